"""Summarise py-spy raw (collapsed-stack) profiles written by ``bench/load.py --profile DIR``.

    .venv/bin/python bench/profile_summary.py DIR [--top 25]

For every request path (the move path ``MatchMovesApi.post``, the read path
``MatchDetailApi.get``, everything) prints the share of samples *inside* each function
(inclusive) and the functions where the samples *are* (self). Frames are ``function (file)``,
line numbers dropped. ``bench/load.py`` records with py-spy's ``--gil``: only the thread that
holds the GIL is sampled, so 100% is the workers' Python time and a wait for PostgreSQL is not
in it. Profiles recorded before that (2026-11-26) sampled every running thread, waits included:
``--cpu`` drops those waits from them.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

_LINE = re.compile(r"^(.*) (\d+)$")
_FRAME = re.compile(r"^(.*?) \((.*?)(?::\d+)?\)$")
PATHS = {
    "move path (POST /moves)": "MatchMovesApi.post",
    "read path (GET /matches/{id})": "MatchDetailApi.get",
    "create (POST /matches)": "MatchListApi.post",
    "join (POST /join)": "MatchJoinApi.post",
    "all samples": "",
}


def _frame(raw: str) -> str:
    found = _FRAME.match(raw.strip())
    if not found:
        return raw.strip()
    name, path = found.groups()
    for marker in ("site-packages/", "/work/main/"):
        if marker in path:
            path = path.split(marker, 1)[1]
    return f"{name} ({path})"


def load(directory: Path) -> list[tuple[list[str], int]]:
    stacks = []
    for file in sorted(directory.glob("*.txt")):
        for line in file.read_text().splitlines():
            found = _LINE.match(line)
            if found:
                stacks.append(([_frame(f) for f in found.group(1).split(";")], int(found.group(2))))
    return stacks


#: Leaf frames that are waiting, not computing, in a profile recorded without ``--gil``: psycopg
#: waits in C for PostgreSQL's answer, which py-spy could not tell from work. ``--cpu`` drops
#: these samples (a ``--gil`` profile has none).
WAITING = ("Connection.wait (psycopg/connection.py)",)


def summarise(stacks: list[tuple[list[str], int]], marker: str, top: int, cpu: bool = False) -> str:
    chosen = [(s, n) for s, n in stacks if not marker or any(marker in f for f in s)]
    if cpu:
        chosen = [(s, n) for s, n in chosen if s[-1] not in WAITING]
    total = sum(n for _, n in chosen)
    if not total:
        return "  (no samples)\n"
    inclusive: Counter[str] = Counter()
    own: Counter[str] = Counter()
    for frames, n in chosen:
        for name in set(frames):
            inclusive[name] += n
        own[frames[-1]] += n
    everything = sum(n for _, n in stacks)
    lines = [f"  {total} samples ({total / everything:.0%} of all busy samples)", "  inclusive:"]
    lines += [f"    {n / total:6.1%}  {name}" for name, n in inclusive.most_common(top)]
    lines.append("  self:")
    lines += [f"    {n / total:6.1%}  {name}" for name, n in own.most_common(top)]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("directory", type=Path)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="leave out samples waiting on PostgreSQL (for profiles recorded without --gil)",
    )
    args = parser.parse_args()
    stacks = load(args.directory)
    for title, marker in PATHS.items():
        print(f"== {title}")
        print(summarise(stacks, marker, args.top, cpu=args.cpu))


if __name__ == "__main__":
    main()
