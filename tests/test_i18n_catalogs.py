"""The catalogs of p2ptrumps/locale/ (the how-to is p2ptrumps/locale/README.md).

* the template ``p2ptrumps.pot`` holds exactly the texts marked in the source (extracted again here
  with the tool and the mapping of ``pyproject.toml``, ``[tool.babel]``);
* each language's ``.po`` holds exactly those, every one translated, none fuzzy, and passes the
  tool's own checker (Babel: placeholders of the ``%`` form, the number of plural forms); its
  placeholders (``%(name)s`` and ``{name}``) are the English ones, its text in NFC, the keys at
  the head of a key hint kept;
* each compiled ``.mo`` (shipped in the package: no build step) is the compilation of its ``.po``,
  byte for byte, and gives the plural form the language says for 1, 2, 5, 21.
"""

from __future__ import annotations

import gettext
import io
import re
import unicodedata
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.frontend import CommandLineInterface
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from p2ptrumps import i18n

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "p2ptrumps" / "locale"
LANGUAGES = [code for code in i18n.LANGUAGES if code != i18n.SOURCE]
#: The plural forms each language has (CLDR's and gettext's; Catalan as gettext counts it).
PLURAL_FORMS = {"ru": 3, "lt": 3, "vi": 1, "ca": 2}


def _read(path: Path) -> Catalog:
    with path.open("rb") as f:
        return read_po(f)


def _ids(catalog: Catalog) -> set[tuple[str | None, str]]:
    return {(m.context, m.id if isinstance(m.id, str) else m.id[0]) for m in catalog if m.id}


@pytest.fixture(scope="module")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    out = tmp_path_factory.mktemp("pot") / "p2ptrumps.pot"
    CommandLineInterface().run(["pybabel", "-q", "extract", "-F", str(ROOT / "pyproject.toml"), "--no-wrap",
                                "-c", "TRANSLATORS:", "-o", str(out), str(ROOT / "p2ptrumps")])
    return _read(out)


def test_the_template_holds_what_the_source_marks(extracted: Catalog) -> None:
    template = _read(LOCALE / "p2ptrumps.pot")
    assert _ids(template) == _ids(extracted), "run the update of p2ptrumps/locale/README.md"
    assert len(_ids(template)) > 250


def test_the_languages_are_the_ones_with_catalogs() -> None:
    assert sorted(LANGUAGES) == ["ca", "lt", "ru", "vi"]
    assert sorted(p.parent.parent.name for p in LOCALE.glob("*/LC_MESSAGES/p2ptrumps.po")) == sorted(LANGUAGES)
    assert i18n.available() == ["en", "ca", "lt", "ru", "vi"]


#: The key hints of the keys line (ui/status.py) and their keys, which a translation keeps at its head.
KEY_HINTS = {hint: hint.rsplit(" ", len(hint.split(" ")) - keys)[0] for hint, keys in (
    ("o hand", 1), ("R resign", 1), ("d draw", 1), (": type", 1), ("u undo", 1), ("i hint", 1), ("t chat", 1),
    ("Esc back", 1), ("y yes", 1), ("n no", 1), ("↑↓ PgUp PgDn scroll", 3), ("q Esc close the rules", 2),
    ("Tab complete", 1), ("Esc close", 1), ("Enter play", 1), ("Enter send", 1), ("p pick up", 1),
    ("←→↑↓ select", 1), ("? help", 1), ("q quit", 1), ("Enter second card", 1), ("Enter choose", 1),
    ("Enter next deal", 1), ("a play again", 1), ("y leave", 1), ("a adjourn", 1), ("n play on", 1))}

_PLACEHOLDER = re.compile(r"%\([a-z_]+\)[sd]|\{[a-z_]+\}")


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_catalog_is_complete_and_passes_the_checker(code: str) -> None:
    template = _read(LOCALE / "p2ptrumps.pot")
    catalog = _read(LOCALE / code / "LC_MESSAGES" / "p2ptrumps.po")
    assert _ids(catalog) == _ids(template)
    assert catalog.num_plurals == PLURAL_FORMS[code]
    untranslated = [m.id for m in catalog if m.id and not all(
        m.string if isinstance(m.string, tuple) else [m.string])]
    fuzzy = [m.id for m in catalog if m.id and m.fuzzy]
    errors = [(m.id, [str(e) for e in errs]) for m, errs in catalog.check()]
    assert (untranslated, fuzzy, errors) == ([], [], [])
    for m in catalog:
        if not m.id:
            continue
        ids = [m.id] if isinstance(m.id, str) else list(m.id)
        strings = [m.string] if isinstance(m.string, str) else list(m.string)
        assert len(strings) == (1 if isinstance(m.id, str) else PLURAL_FORMS[code]), m.id
        wanted = set(_PLACEHOLDER.findall(ids[-1])) | set(_PLACEHOLDER.findall(ids[0]))
        for text in strings:
            assert set(_PLACEHOLDER.findall(text)) == wanted, (m.id, text)
            assert unicodedata.is_normalized("NFC", text), (m.id, text)
        if ids[0] in KEY_HINTS:  # the keys stay at the head of a key hint ("o hand", "q Esc close the rules")
            keys = KEY_HINTS[ids[0]]
            assert all(text.startswith(keys + " ") for text in strings), (m.id, strings)


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_compiled_catalog_is_its_source(code: str) -> None:
    catalog = _read(LOCALE / code / "LC_MESSAGES" / "p2ptrumps.po")
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    assert (LOCALE / code / "LC_MESSAGES" / "p2ptrumps.mo").read_bytes() == compiled.getvalue(), (
        "compile the catalogs (p2ptrumps/locale/README.md)")


@pytest.mark.parametrize(("code", "forms"), [
    ("ru", ["1 карта", "2 карты", "5 карт", "21 карта", "12 карт"]),
    ("lt", ["1 korta", "2 kortos", "5 kortos", "21 korta", "12 kortų"]),
    ("vi", ["1 lá", "2 lá", "5 lá", "21 lá", "12 lá"]),
    ("ca", ["1 carta", "2 cartes", "5 cartes", "21 cartes", "12 cartes"]),
])
def test_counted_words_take_the_languages_plural_forms(code: str, forms: list[str]) -> None:
    t = gettext.translation(i18n.DOMAIN, str(LOCALE), languages=[code])
    assert [t.ngettext("%(n)d card", "%(n)d cards", n) % {"n": n} for n in (1, 2, 5, 21, 12)] == forms
