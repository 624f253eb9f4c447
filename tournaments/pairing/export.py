"""A Swiss tournament as the text an arbiter's software reads: FIDE's Tournament Report File.

Fixed columns as in TRF16: a ``012`` line with the name, ``062`` the number of players, ``092``
the type, ``XXR`` the number of rounds, then one ``001`` line per player in starting order
(rating, then id), with their points and place from ``standings`` and one ten-column entry per
round: the opponent's starting number, the colour (``w`` for seat 0, ``b`` for seat 1) and the
result (``1``, ``=``, ``0``; ``+`` and ``-`` for a forfeit; ``0000 - U`` for a bye, ``0000 - Z``
for a round without a game). Ratings are as the caller gives them (the services give the
rating players read). Two seats only: the format knows nothing else.

Nothing may spill from one field into another or onto a new line (a forged ``001`` record): free
text (the tournament's name, player names) loses every control, format and line-separator
character (names are refused with them at creation; older rows are cleaned here) and is cut to
its columns, the name after ``012`` to ``NAME_WIDTH``; a number wider than its columns raises
``TrfOverflow`` rather than push the next field along.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence

from tournaments.pairing.standings import standings
from tournaments.pairing.types import Entrant, Played, PlayerId

_RESULT = {1.0: "1", 0.5: "=", 0.0: "0"}
#: The columns of the tournament's name on its ``012`` line (TRF16 gives the line no end; the
#: name is at most 100 characters at creation).
NAME_WIDTH = 100
#: A player's name: columns 15 to 47.
PLAYER_WIDTH = 33
#: Characters that would end a line or a field, or hide what follows: controls (Cc), format
#: characters (Cf) and the line and paragraph separators.
_BREAKING = frozenset({"Cc", "Cf", "Zl", "Zp"})


class TrfOverflow(ValueError):
    """A number does not fit its columns (more than 9,999 players, say)."""


def trf_free_text(value: str, width: int) -> str:
    """``value`` as one field of ``width`` columns at most: every breaking character becomes
    a space, then it is cut to ``width``."""
    flat = "".join(" " if unicodedata.category(c) in _BREAKING else c for c in value)
    return flat[:width]


def _number(value: int | float, width: int, spec: str = "") -> str:
    text = format(value, f">{width}{spec}")
    if len(text) > width:
        raise TrfOverflow(f"{value} does not fit {width} columns")
    return text


def _entry(opponent: int, colour: str, result: str) -> str:
    # No opponent (a bye, no game) is written 0000.
    if not opponent:
        return f"  0000 {colour} {result}"
    return f"  {_number(opponent, 4)} {colour} {result}"


def trf_text(
    *,
    name: str,
    entrants: Sequence[Entrant],
    played: Sequence[Played],
    byes: Mapping[int, Sequence[PlayerId]],
    names: Mapping[PlayerId, str],
    rounds: int,
) -> str:
    """The report of a 2-seat tournament; ``byes`` by round number (1-based)."""
    if any(len(match.players) != 2 for match in played):
        raise ValueError("the tournament report file knows only 2-seat matches")
    bye_count: dict[PlayerId, int] = {}
    for players in byes.values():
        for player in players:
            bye_count[player] = bye_count.get(player, 0) + 1
    rows = {row.player: row for row in standings(entrants, played, bye_count)}
    start = {e.id: n for n, e in enumerate(sorted(entrants, key=lambda e: (-e.rating, e.id)), 1)}
    cells: dict[tuple[PlayerId, int], str] = {}
    for match in played:
        first, second = match.players
        ahead = match.ranking[0]
        for seat, (me, other) in enumerate(((first, second), (second, first))):
            if match.forfeited:
                result = "-" if me in match.forfeited else "+"
            elif len(ahead) == 2:
                result = _RESULT[0.5]
            else:
                result = _RESULT[1.0 if seat in ahead else 0.0]
            cells[me, match.round] = _entry(start[other], "wb"[seat], result)
    for number, players in byes.items():
        for player in players:
            cells[player, number] = _entry(0, "-", "U")
    lines = [
        f"012 {trf_free_text(name, NAME_WIDTH)}".rstrip(),
        f"062 {len(entrants)}",
        "092 Swiss",
        f"XXR {rounds}",
    ]
    last = max((number for _, number in cells), default=0)
    for e in sorted(entrants, key=lambda e: start[e.id]):
        row = rows[e.id]
        shown = trf_free_text(names.get(e.id, str(e.id)), PLAYER_WIDTH)
        # A rating is four digits, rounded, kept within 0 to 9999.
        rating = min(max(round(e.rating), 0), 9999)
        head = (
            f"001 {_number(start[e.id], 4)} {'':4} {shown:<{PLAYER_WIDTH}} "
            f"{rating:>4} {'':3} {'':11} {'':10} {_number(row.score, 4, '.1f')} "
            f"{_number(row.rank, 4)}"
        )
        tail = "".join(cells.get((e.id, n), _entry(0, "-", "Z")) for n in range(1, last + 1))
        lines.append(head + tail)
    return "\n".join(lines) + "\n"
