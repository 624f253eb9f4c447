"""The translation catalogues as the tests read them: each message of a ``.po`` file."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

LOCALE = Path(__file__).resolve().parents[2] / "locale"
DOMAINS = ("django", "djangojs")
_FIELD = re.compile(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?) (".*")$')


@dataclass(frozen=True)
class Message:
    msgid: str
    plural: str
    strings: tuple[str, ...]


def po_path(language: str, domain: str) -> Path:
    return LOCALE / language / "LC_MESSAGES" / f"{domain}.po"


def messages(language: str, domain: str) -> list[Message]:
    """The messages of a catalogue, without its header and obsolete (``#~``) entries."""
    found: list[Message] = []
    for block in po_path(language, domain).read_text(encoding="utf-8").split("\n\n"):
        fields: dict[str, str] = {}
        key = ""
        for line in block.splitlines():
            if line.startswith("#"):
                continue
            matched = _FIELD.match(line)
            if matched:
                key = matched.group(1)
                fields[key] = ast.literal_eval(matched.group(2))
            elif line.startswith('"') and key:
                fields[key] += ast.literal_eval(line)
        if fields.get("msgid"):
            strings = tuple(v for k, v in sorted(fields.items()) if k.startswith("msgstr"))
            found.append(Message(fields["msgid"], fields.get("msgid_plural", ""), strings))
    return found
