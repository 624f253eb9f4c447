"""``facedown-bot module:Class``: run a bot (a ``facedown_client.Bot`` subclass) until stopped.

    FACEDOWN_TOKEN=fdp_… facedown-bot my_bot:Lowest --url https://facedown.example

The token comes from ``FACEDOWN_TOKEN``, else the config file's ``token`` or ``token_file``,
else ``FACEDOWN_TOKEN_FILE``, else ``~/.config/facedown/token``: never from the command line,
where other users of the machine could read it. The config file (``--config``, else
``FACEDOWN_CONFIG``, else ``~/.config/facedown/bot.toml`` if it exists) is TOML with any of
``url``, ``token``, ``token_file``, ``max_matches``, ``max_concurrent``, ``on_error``,
``on_stop``; options on the command line win. SIGINT or SIGTERM stops it cleanly: a move being
sent is finished first, then it exits 0.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
import tomllib
from pathlib import Path
from typing import Any

from facedown_client.bot import Bot, run
from facedown_client.client import Client
from facedown_client.errors import FacedownError

DEFAULT_CONFIG = Path("~/.config/facedown/bot.toml")
POLICIES = ("resign", "leave")


def load_bot(spec: str) -> Bot:
    """``module:Class`` (the module importable from the current directory too) → an instance."""
    module_name, _, class_name = spec.partition(":")
    if not module_name or not class_name:
        raise FacedownError(f"{spec!r}: give the bot as module:Class")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    found = getattr(importlib.import_module(module_name), class_name, None)
    if not (isinstance(found, type) and issubclass(found, Bot)):
        raise FacedownError(f"{spec!r} is not a facedown_client.Bot subclass")
    return found()


def load_config(path: str | None) -> dict[str, Any]:
    named = path or os.environ.get("FACEDOWN_CONFIG")
    chosen = Path(named).expanduser() if named else DEFAULT_CONFIG.expanduser()
    if not named and not chosen.exists():
        return {}
    try:
        with chosen.open("rb") as file:
            return tomllib.load(file)
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise FacedownError(f"config {chosen}: {error}") from error


def make_client(config: dict[str, Any], url: str | None) -> Client:
    """The client of the command: ``FACEDOWN_TOKEN`` first, then the config's ``token``, its
    ``token_file``, ``FACEDOWN_TOKEN_FILE``; the server from ``--url``, the config, else
    ``FACEDOWN_URL``."""
    base_url = url or config.get("url")
    if not os.environ.get("FACEDOWN_TOKEN") and config.get("token"):
        root = base_url or os.environ.get("FACEDOWN_URL") or "http://127.0.0.1:8000"
        return Client(root, str(config["token"]).strip())
    return Client.from_env(base_url, token_file=config.get("token_file"))


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(prog="facedown-bot", description=__doc__.splitlines()[0])
    parse.add_argument("bot", help="the bot class, as module:Class")
    parse.add_argument("--url", help="the server's root (else the config's, FACEDOWN_URL)")
    parse.add_argument("--config", help="a TOML config file")
    parse.add_argument("--max-matches", type=int, help="stop after this many finished matches")
    parse.add_argument("--max-concurrent", type=int, help="hold at most this many matches")
    parse.add_argument("--on-error", choices=POLICIES, help="a failed match: resign or leave")
    parse.add_argument("--on-stop", choices=POLICIES, help="held matches on a stop")
    parse.add_argument("--verbose", "-v", action="store_true")
    return parse


def main(argv: list[str] | None = None) -> int:
    arguments = parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if arguments.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        config = load_config(arguments.config)
        bot = load_bot(arguments.bot)
        client = make_client(config, arguments.url)
    except (FacedownError, ImportError) as error:
        print(f"facedown-bot: {error}", file=sys.stderr)
        return 2

    def setting(name: str) -> Any:
        given = getattr(arguments, name)
        return given if given is not None else config.get(name)

    with client:
        report = run(
            client,
            bot,
            max_matches=setting("max_matches"),
            max_concurrent=setting("max_concurrent"),
            on_error=setting("on_error") or "resign",
            on_stop=setting("on_stop") or "leave",
            handle_signals=True,
        )
    stopped = f"; stopped by {report.stopped_by}" if report.stopped_by else ""
    print(
        f"finished {len(report.finished)} matches, sent {len(report.moves)} moves, "
        f"failed in {len(report.failed)}{stopped}",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
