"""Standalone verifier of ``facedown-transcript-v1`` transcripts (docs/fairness.md).

    python -m games.verify transcript.json [--public-key HEX ...]

It needs no database and no Django settings: it imports only the game engines
(``cardgames.engines``, found through the pure ``games.catalog``), the standard library and
``cryptography``. Every formula the server uses is written out again here, so this file is an
independent check of the server, not a copy of it.

Checked: the seed against ``seed_sha256``; the deal, re-derived by the engine's
``initial_state`` from the seed, the match id and the client seeds; every receipt (digest and
Ed25519 signature); every commit-reveal commitment present; every step's moves replayed through
the engine's ``apply`` and compared with the ``step_resolved`` events; the result.

Exit status: 0 when everything matches (``OK: …``), 1 when anything does not (``FAILED: …``
with one line per problem), 2 when the file cannot be read.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from cardgames.engines.protocol import Engine, EngineError
from cardgames.engines.rng import DealRng
from games.catalog import get_engine

FORMAT = "facedown-transcript-v1"
MOVE_PREFIX = "facedown-move-v1"
RECEIPT_PREFIX = "facedown-receipt-v1"
SIGNATURE_PREFIX = "facedown-receipt-sig-v1|"
#: Moves the server made itself (forced, forfeited, timed-out seats) carry no receipt.
SERVER_SOURCES = frozenset({"forced", "forfeit", "timeout"})
# Moves the server makes itself (bots included) need no commitment under commit-reveal.
UNCOMMITTED_SOURCES = SERVER_SOURCES | {"bot"}

_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_STOPPED = " (the replay stops here: later steps and the result are not checked)"


# --- the formats (docs/fairness.md) -------------------------------------------------------------


def canonical_json(value: Any) -> str:
    """Keys sorted, no whitespace, separators ``,`` and ``:``, non-ASCII kept as UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def seed_hash(seed_hex: str) -> str:
    return hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()


def commitment_hash(match_id: str, step: int, seat: int, move: Any, salt: str) -> str:
    message = f"{MOVE_PREFIX}|{match_id}|{step}|{seat}|{canonical_json(move)}|{salt}"
    return hashlib.sha256(message.encode()).hexdigest()


def receipt_digest(match_id: str, step: int, seat: int, submission: Any, salt: str) -> str:
    message = f"{RECEIPT_PREFIX}|{match_id}|{step}|{seat}|{canonical_json(submission)}|{salt}"
    return hashlib.sha256(message.encode()).hexdigest()


def signature_message(receipt: Mapping[str, Any]) -> bytes:
    """What ``sig`` signs: the receipt without ``sig``, canonical, behind a fixed prefix."""
    unsigned = {key: value for key, value in receipt.items() if key != "sig"}
    return (SIGNATURE_PREFIX + canonical_json(unsigned)).encode()


def key_id_of(public_key_hex: str) -> str:
    """First 16 lowercase hex characters of SHA-256 of the raw 32-byte public key."""
    return hashlib.sha256(bytes.fromhex(public_key_hex)).hexdigest()[:16]


def signature_valid(public_key_hex: str, receipt: Mapping[str, Any]) -> bool:
    sig = receipt.get("sig")
    if not isinstance(sig, str):
        return False
    try:
        key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_key_hex))
        key.verify(bytes.fromhex(sig), signature_message(receipt))
    except (ValueError, InvalidSignature):
        return False
    return True


# --- the report ---------------------------------------------------------------------------------


@dataclass
class Report:
    match: str = "?"
    game: str = "?"
    problems: list[str] = field(default_factory=list)
    steps_replayed: int = 0
    receipts: int = 0
    signatures: int = 0
    commitments: int = 0
    keys_used: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def fail(self, message: str) -> None:
        self.problems.append(message)

    def verdict(self) -> str:
        if not self.ok:
            lines = [f"FAILED: {self.game} match {self.match}: {len(self.problems)} problem(s)"]
            lines += [f"  - {problem}" for problem in self.problems]
            return "\n".join(lines)
        keys = ", ".join(sorted(self.keys_used)) or "none"
        text = (
            f"OK: {self.game} match {self.match}: seed matches seed_sha256, deal re-derived, "
            f"{self.steps_replayed} steps replayed, {self.receipts} receipts "
            f"({self.signatures} signatures, keys: {keys}), {self.commitments} commitments, "
            "result confirmed"
        )
        return "\n".join([text, *(f"  note: {note}" for note in self.notes)])


class _Stop(Exception):
    """Nothing further can be checked (the replay diverged or the input is malformed)."""


def _show(value: Any) -> str:
    """A value as a message quotes it: JSON with keys sorted, readable spacing."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _seat_list(step: Mapping[str, Any], name: str, seats: int) -> list[Any]:
    values = step.get(name)
    if values is None:
        return [None] * seats
    if not isinstance(values, list) or len(values) != seats:
        raise _Stop(f"step {step.get('step')}: {name!r} must list one entry per seat")
    return values


# --- the checks ---------------------------------------------------------------------------------


def verify_transcript(
    transcript: Mapping[str, Any], *, public_keys: Iterable[str] | None = None
) -> Report:
    """Check a transcript end to end. ``public_keys`` (hex) pins the server's keys; without it
    the signatures are checked against the keys the transcript carries in ``public_keys``."""
    report = Report(match=str(transcript.get("match", "?")), game=str(transcript.get("game", "?")))
    try:
        _verify(transcript, report, None if public_keys is None else list(public_keys))
    except _Stop as stop:
        report.fail(str(stop))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        report.fail(f"malformed transcript: {type(exc).__name__}: {exc}")
    return report


def _verify(t: Mapping[str, Any], report: Report, pinned: list[str] | None) -> None:
    if t.get("format") != FORMAT:
        raise _Stop(f"format is {t.get('format')!r}, expected {FORMAT!r}")
    match_id: str = t["match"]
    engine = get_engine(t["game"])
    if engine is None:
        raise _Stop(f"unknown game {t['game']!r}")
    if t.get("rules_version") != engine.rules_version:
        report.fail(
            f"rules_version is {t.get('rules_version')!r}, this verifier replays "
            f"{engine.rules_version!r}"
        )
    seats: list[Mapping[str, Any]] = t["seats"]
    players = len(seats)
    if [seat["index"] for seat in seats] != list(range(players)):
        raise _Stop("seats must be listed in index order 0, 1, …")

    _check_seed(t, report)
    keys = _keys(t, report, pinned)
    events: list[Mapping[str, Any]] = list(t.get("events") or [])
    _check_events_numbered(events, report)

    started = any(event["type"] == "match_started" for event in events)
    steps: list[Mapping[str, Any]] = list(t.get("steps") or [])
    result: Mapping[str, Any] | None = t.get("result")
    if not started:
        if steps:
            report.fail("the transcript has steps but no match_started event")
        _check_result_unstarted(result, players, report)
        return

    client_seeds = t["client_seeds"]
    if not isinstance(client_seeds, list) or len(client_seeds) != players:
        raise _Stop("client_seeds must list one entry per seat (null for none)")
    try:
        state = engine.initial_state(
            players, t["options"], DealRng(bytes.fromhex(t["seed"]), match_id, client_seeds)
        )
    except (EngineError, ValueError) as exc:
        raise _Stop(f"the deal cannot be re-derived: {exc}") from exc

    resolved = {event["step"]: event for event in events if event["type"] == "step_resolved"}
    seen_commitments: dict[str, tuple[int, int]] = {}
    numbers = [step["step"] for step in steps]
    if numbers != list(range(1, len(steps) + 1)):
        report.fail(f"steps must be numbered 1, 2, … without gaps; found {numbers}")
    for position, step in enumerate(steps):
        number = step["step"]
        to_act = engine.to_act(state)
        if to_act is None:
            raise _Stop(f"step {number}: the game was already over{_STOPPED}")
        moves = _seat_list(step, "moves", players)
        _check_submissions(t, step, players, to_act.simultaneous, seen_commitments, keys, report)
        for seat in range(players):
            if seat not in to_act.seats and moves[seat] is not None:
                report.fail(f"step {number} seat {seat}: a move from a seat that was not to act")
        event = resolved.get(number)
        if event is None:
            if position != len(steps) - 1:
                raise _Stop(f"step {number}: moves recorded but no step_resolved event{_STOPPED}")
            # The match ended during this step (forfeit or abort): nothing was applied.
            continue
        missing = [seat for seat in to_act.seats if moves[seat] is None]
        if missing:
            raise _Stop(f"step {number}: no move for acting seat(s) {missing}{_STOPPED}")
        try:
            resolution = engine.apply(state, {seat: moves[seat] for seat in to_act.seats})
        except EngineError as exc:
            raise _Stop(f"step {number}: the moves are illegal: {exc}{_STOPPED}") from exc
        _compare_event(number, event, resolution.public, resolution.private, report)
        state = resolution.state
        report.steps_replayed += 1
    extra = sorted(set(resolved) - set(numbers))
    if extra:
        report.fail(f"step_resolved events for steps that have no moves: {extra}")
    _check_result(engine, t, state, report)


def _check_seed(t: Mapping[str, Any], report: Report) -> None:
    seed, published = t.get("seed"), t.get("seed_sha256")
    if not isinstance(seed, str) or not _HEX64.match(seed):
        raise _Stop(f"seed must be 64 lowercase hex characters, got {seed!r}")
    if seed_hash(seed) != published:
        raise _Stop(
            f"seed does not match seed_sha256: sha256(seed) = {seed_hash(seed)}, "
            f"published {published}"
        )


def _keys(t: Mapping[str, Any], report: Report, pinned: list[str] | None) -> dict[str, str]:
    """key_id → public key hex: the pinned keys, else the transcript's own (self-checked)."""
    keys: dict[str, str] = {}
    if pinned is not None:
        for public_key in pinned:
            keys[key_id_of(public_key.lower())] = public_key.lower()
        return keys
    for key_id, public_key in (t.get("public_keys") or {}).items():
        if key_id_of(public_key) != key_id:
            report.fail(f"public_keys: {public_key} does not have key_id {key_id}")
            continue
        keys[key_id] = public_key
    report.notes.append(
        "signatures were checked against the public keys in the transcript; pass --public-key "
        "(from GET /api/v1/fairness/key) to pin the server's key"
    )
    return keys


def _check_events_numbered(events: list[Mapping[str, Any]], report: Report) -> None:
    seqs = [event.get("seq") for event in events]
    if seqs != list(range(1, len(events) + 1)):
        report.fail(f"events must be numbered 1, 2, … without gaps; found {seqs}")


def _receipts_of(entry: Any) -> list[Any]:
    """A seat's receipts in one step: one object, or a list of them (commit, then reveal)."""
    if entry is None:
        return []
    return list(entry) if isinstance(entry, list) else [entry]


def _check_submissions(
    t: Mapping[str, Any],
    step: Mapping[str, Any],
    players: int,
    simultaneous: bool,
    seen_commitments: dict[str, tuple[int, int]],
    keys: dict[str, str],
    report: Report,
) -> None:
    match_id: str = t["match"]
    number: int = step["step"]
    moves = _seat_list(step, "moves", players)
    commitments = _seat_list(step, "commitments", players)
    salts = _seat_list(step, "salts", players)
    receipts = _seat_list(step, "receipts", players)
    receipt_salts = _seat_list(step, "receipt_salts", players)
    sources = _seat_list(step, "sources", players)
    commit_reveal = t.get("protocol") == "commit-reveal"
    for seat in range(players):
        where = f"step {number} seat {seat}"
        move, commitment = moves[seat], commitments[seat]
        if commitment:
            report.commitments += 1
            salt = salts[seat]
            if move is None or not salt:
                report.fail(f"{where}: a commitment without its revealed move and salt")
            elif commitment_hash(match_id, number, seat, move, salt) != commitment:
                report.fail(
                    f"{where}: commitment does not match the move {_show(move)} and salt {salt}"
                )
            other = seen_commitments.setdefault(commitment, (number, seat))
            if other != (number, seat):
                report.fail(f"{where}: commitment reused from step {other[0]} seat {other[1]}")
        elif (
            commit_reveal
            and simultaneous
            and move is not None
            and sources[seat] not in UNCOMMITTED_SOURCES
        ):
            report.fail(f"{where}: a commit-reveal match, but the move has no commitment")
        seat_receipts = _receipts_of(receipts[seat])
        seat_salts = _receipts_of(receipt_salts[seat])
        if not seat_receipts:
            source = sources[seat]
            if move is not None and source is not None and source not in SERVER_SOURCES:
                report.fail(f"{where}: the {source}'s move has no receipt")
            continue
        if len(seat_salts) != len(seat_receipts):
            report.fail(f"{where}: {len(seat_receipts)} receipt(s) but {len(seat_salts)} salt(s)")
            continue
        for receipt, receipt_salt in zip(seat_receipts, seat_salts, strict=True):
            _check_receipt(
                where,
                match_id,
                number,
                seat,
                move,
                commitment,
                salts[seat],
                receipt,
                receipt_salt,
                keys,
                report,
            )


def _submission(receipt: Mapping[str, Any], move: Any, commitment: Any, salt: Any) -> Any:
    """What a receipt's digest covers (docs/fairness.md, "Receipts")."""
    kind = receipt.get("kind", "move")
    if kind == "commitment":
        return {"commitment": commitment}
    if kind == "reveal":
        return {"move": move, "salt": salt}
    return move


def _check_receipt(
    where: str,
    match_id: str,
    step: int,
    seat: int,
    move: Any,
    commitment: Any,
    salt: Any,
    receipt: Mapping[str, Any],
    receipt_salt: str,
    keys: dict[str, str],
    report: Report,
) -> None:
    report.receipts += 1
    named = (receipt.get("match"), receipt.get("step"), receipt.get("seat"))
    if named != (match_id, step, seat):
        report.fail(f"{where}: the receipt names match/step/seat {list(named)}")
    submission = _submission(receipt, move, commitment, salt)
    expected = receipt_digest(match_id, step, seat, submission, receipt_salt)
    if receipt.get("digest") != expected:
        what = "the move" if receipt.get("kind", "move") == "move" else "the submission"
        report.fail(f"{where}: receipt digest does not match {what} {_show(submission)}")
    key_id = receipt.get("key_id")
    if receipt.get("sig") is None:
        report.fail(f"{where}: the receipt is not signed")
        return
    public_key = keys.get(str(key_id))
    if public_key is None:
        report.fail(f"{where}: receipt signed by unknown key {key_id!r}")
        return
    if not signature_valid(public_key, receipt):
        report.fail(f"{where}: receipt signature is not valid for key {key_id}")
        return
    report.signatures += 1
    report.keys_used.add(str(key_id))


def _compare_event(
    step: int,
    event: Mapping[str, Any],
    public: Mapping[str, Any],
    private: Mapping[int, Mapping[str, Any]],
    report: Report,
) -> None:
    recorded = json.loads(canonical_json(event.get("data")))
    replayed = json.loads(canonical_json(public))
    if recorded != replayed:
        fields = sorted(
            key
            for key in set(recorded or {}) | set(replayed)
            if (recorded or {}).get(key) != replayed.get(key)
        )
        details = "; ".join(
            f"{key}: recorded {_show((recorded or {}).get(key))}, replay {_show(replayed.get(key))}"
            for key in fields
        )
        report.fail(f"step {step}: step_resolved does not match the replay ({details})")
    if "private" in event:
        recorded_private = json.loads(canonical_json(event.get("private") or {}))
        replayed_private = json.loads(canonical_json({str(k): v for k, v in private.items()}))
        if recorded_private != replayed_private:
            report.fail(f"step {step}: step_resolved private data does not match the replay")


def _forfeited(t: Mapping[str, Any], report: Report) -> frozenset[int]:
    flagged = frozenset(seat["index"] for seat in t["seats"] if seat.get("forfeited"))
    # In order: a substitute taking a forfeited seat over plays it on, no longer forfeited.
    forfeits: set[int] = set()
    for event in t.get("events") or []:
        if not isinstance(event.get("data"), Mapping):
            continue
        if event["type"] == "seat_forfeited":
            forfeits.add(event["data"]["seat"])
        elif event["type"] == "seat_taken_over":
            forfeits.discard(event["data"]["seat"])
    events = frozenset(forfeits)
    if events and events - flagged:
        unmarked = sorted(events - flagged)
        report.fail(f"seat_forfeited events for seats {unmarked} not marked forfeited")
    return flagged | events


def _check_result(engine: Engine, t: Mapping[str, Any], state: Any, report: Report) -> None:
    result = t.get("result")
    if not isinstance(result, Mapping):
        raise _Stop("the transcript has no result")
    reason = result.get("reason")
    forfeited = _forfeited(t, report)
    players = len(t["seats"])
    scores = list(engine.scores(state))
    if reason == "completed":
        outcome = engine.outcome(state, forfeited)
        if outcome is None:
            report.fail("result: reason 'completed' but the replayed game is not over")
            return
        expected: dict[str, Any] = {
            "scores": list(outcome.scores),
            "winners": list(outcome.winners),
            "ranking": [list(group) for group in outcome.ranking],
        }
    elif reason == "forfeit":
        survivors = [seat for seat in range(players) if seat not in forfeited]
        if len(survivors) >= 2:
            report.fail(f"result: reason 'forfeit' but seats {survivors} had not forfeited")
        expected = {
            "scores": scores,
            "winners": survivors,
            "ranking": [group for group in (survivors, sorted(forfeited)) if group],
        }
    elif reason == "aborted":
        expected = {"scores": scores, "winners": [], "ranking": []}
    else:
        raise _Stop(f"result: unknown reason {reason!r}")
    _compare_result(result, expected, report)
    _check_finished_event(t, result, report)


def _check_result_unstarted(result: Any, players: int, report: Report) -> None:
    if not isinstance(result, Mapping) or result.get("reason") != "aborted":
        report.fail("a match that never started must have been aborted")
        return
    _compare_result(result, {"scores": [0] * players, "winners": [], "ranking": []}, report)


def _compare_result(result: Mapping[str, Any], expected: Mapping[str, Any], report: Report) -> None:
    for key, value in expected.items():
        if result.get(key) != value:
            report.fail(
                f"result {key} is {_show(result.get(key))}, the replay gives {_show(value)}"
            )


def _check_finished_event(t: Mapping[str, Any], result: Mapping[str, Any], report: Report) -> None:
    finished = [event for event in t.get("events") or [] if event["type"] == "match_finished"]
    # The event may add the rating changes to the result (``ratings``).
    data = finished[-1].get("data") if finished else None
    if isinstance(data, Mapping):
        data = {key: value for key, value in data.items() if key != "ratings"}
    if finished and data != result:
        report.fail("the match_finished event does not carry the transcript's result")


# --- command line -------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="facedown-verify",
        description="Check a facedown-transcript-v1 transcript (GET /api/v1/matches/{id}/audit).",
    )
    parser.add_argument("transcript", help="the transcript JSON file ('-' for standard input)")
    parser.add_argument(
        "--public-key",
        action="append",
        metavar="HEX",
        help="the server's Ed25519 public key (64 hex characters, GET /api/v1/fairness/key); "
        "repeat for rotated keys. Without it the transcript's own public_keys are used.",
    )
    args = parser.parse_args(argv)
    try:
        if args.transcript == "-":
            transcript = json.load(sys.stdin)
        else:
            with open(args.transcript, encoding="utf-8") as handle:
                transcript = json.load(handle)
    except (OSError, ValueError) as exc:
        print(f"FAILED: cannot read {args.transcript}: {exc}", file=sys.stderr)
        return 2
    if not isinstance(transcript, dict):
        print("FAILED: the transcript is not a JSON object", file=sys.stderr)
        return 2
    report = verify_transcript(transcript, public_keys=args.public_key)
    print(report.verdict())
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
