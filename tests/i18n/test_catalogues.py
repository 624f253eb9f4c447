"""The catalogues: complete in German (no untranslated, no fuzzy message), their committed
``.mo`` files compiled from the ``.po`` files as they are, and every text the client and the
game catalogue show present in them. ``msgfmt`` comes with gettext (scripts/test installs it);
without it the tests that need it skip and say why."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings

from games.catalog import GAMES, catalogue_texts
from tests.i18n.catalogues import DOMAINS, messages, po_path

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "web" / "static" / "web"
TRANSLATED = [code for code, _ in settings.LANGUAGES if code != settings.LANGUAGE_CODE]
# A literal in _("…"), gettext("…"), gettext_noop("…") or ngettext("…", "…", n).
CLIENT_TEXT = re.compile(r'(?<![\w.])(?:_|gettext|gettext_noop|ngettext)\("((?:[^"\\]|\\.)*)"')


def gettext_tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is missing: install gettext (scripts/test does it as root)")
    return found


@pytest.mark.parametrize("language", TRANSLATED)
@pytest.mark.parametrize("domain", DOMAINS)
def test_every_message_is_translated(language: str, domain: str) -> None:
    source = str(po_path(language, domain))
    checked = subprocess.run(
        [gettext_tool("msgfmt"), "--check", "--statistics", "-o", "/dev/null", source],
        capture_output=True,
        text=True,
        check=True,
    )
    said = checked.stderr.strip()
    assert re.fullmatch(r"\d+ translated messages?\.", said), said
    assert int(said.split()[0]) == len(messages(language, domain)) > 0


@pytest.mark.parametrize("language", TRANSLATED)
@pytest.mark.parametrize("domain", DOMAINS)
def test_the_compiled_catalogue_is_the_source_compiled(
    language: str, domain: str, tmp_path: Path
) -> None:
    source = po_path(language, domain)
    fresh = tmp_path / f"{domain}.mo"
    subprocess.run([gettext_tool("msgfmt"), "-o", str(fresh), str(source)], check=True)
    unfmt = gettext_tool("msgunfmt")

    def decompiled(path: Path) -> str:
        return subprocess.run([unfmt, str(path)], capture_output=True, text=True, check=True).stdout

    committed = source.with_suffix(".mo")
    assert decompiled(committed) == decompiled(fresh), (
        f"{committed} is stale: run manage.py compilemessages (docs/languages.md)"
    )


def test_every_text_of_the_client_is_in_the_catalogue() -> None:
    catalogued = {m.msgid for m in messages("de", "djangojs")} | {
        m.plural for m in messages("de", "djangojs")
    }
    missing = [
        (script.name, text)
        for script in sorted(CLIENT.glob("*.js"))
        for text in CLIENT_TEXT.findall(script.read_text(encoding="utf-8"))
        if text not in catalogued
    ]
    assert not missing, f"run makemessages -d djangojs (docs/languages.md): {missing}"


def test_every_text_of_the_game_catalogue_is_in_the_catalogue() -> None:
    catalogued = {m.msgid for m in messages("de", "django")}
    missing = [text for text in catalogue_texts() if text not in catalogued]
    assert not missing, f"run makemessages (docs/languages.md): {missing}"


def test_the_view_texts_are_what_the_views_carry() -> None:
    """A sentence of a view marked for translation must be the view's own, else the page
    would show the English one (a changed data file changes the view)."""
    from cardgames.engines.old_men_of_the_forest import PLACEHOLDER_NOTE

    assert GAMES["old-men-of-the-forest"].view_texts == (PLACEHOLDER_NOTE,)
