"""Plain words for a game's options, as players read them: a title per option, a sentence
saying what it changes, and a short title per choice (with a longer description where the
short one cannot say it all). ``GET /games`` adds them to the engine's option schema as JSON
Schema annotations (``title``, ``description``, ``oneOf`` of ``const`` with ``title``), so the
lobby never shows an option's key or a raw value."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


def gettext_noop(text: str) -> str:
    """Marks catalogue text for the translation catalogues (``makemessages`` finds it by this
    name) and returns it unchanged: the API serves the catalogue in English, the web client
    shows it in the reader's language (``words_in`` below, web/context.py). Django's own marker
    cannot be imported here (the catalogue is free of Django)."""
    return text


#: An option's value as JSON has it (a string, a number, a boolean or null).
Value = str | int | float | bool | None


@dataclass(frozen=True)
class Choice:
    value: Value
    #: Short enough for a select on a phone (about 30 characters at most).
    title: str
    description: str = ""


@dataclass(frozen=True)
class OptionWords:
    title: str
    description: str
    #: For an option with a fixed set of values (an enum, or a boolean that may be null): one
    #: per value, in the order the lobby offers them.
    choices: tuple[Choice, ...] = field(default_factory=tuple)


def words_in(words: Mapping[str, OptionWords]) -> list[str]:
    """Every text of these options (titles, descriptions, choices), for translation."""
    texts: list[str] = []
    for said in words.values():
        texts += [said.title, said.description]
        for choice in said.choices:
            texts += [choice.title, choice.description]
    return [text for text in texts if text]


def choice_values(prop: Mapping[str, Any]) -> list[Value] | None:
    """The values a select offers for this option, or None when it is typed in or ticked."""
    if "enum" in prop:
        return list(prop["enum"])
    types = prop.get("type")
    kinds = types if isinstance(types, list) else [types]
    if "boolean" in kinds and "null" in kinds:
        return [None, True, False]
    return None


def options_schema_in_words(
    schema: Mapping[str, Any], words: Mapping[str, OptionWords]
) -> dict[str, Any]:
    """A copy of ``schema`` whose every option carries its plain title, description and
    choices; the constraints are unchanged (``oneOf`` of ``const`` accepts what ``enum`` does)."""
    annotated = copy.deepcopy(dict(schema))
    for name, prop in annotated.get("properties", {}).items():
        said = words.get(name)
        if said is None:
            continue
        prop["title"] = said.title
        prop["description"] = said.description
        if said.choices:
            prop["oneOf"] = [
                {"const": choice.value, "title": choice.title}
                | ({"description": choice.description} if choice.description else {})
                for choice in said.choices
            ]
    return annotated
