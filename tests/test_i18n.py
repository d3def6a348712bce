"""Choosing the person's language and saying things in it (p2ptrumps/i18n.py, p2ptrumps/message.py).

The runtime rule: the pure layers make lazy messages whose ``str`` is the English text, byte for
byte, and a display translates them with ``tr``; the language is ``--lang``, else the saved choice
(protocol/files.md ``language``), else ``LANGUAGE``/``LC_ALL``/``LC_MESSAGES``/``LANG`` (Windows:
the interface language), else English, with no word of error for a language without a catalog.
"""

from __future__ import annotations

import argparse
import ast
import copy
import gettext
import inspect
import pickle
from pathlib import Path

import pytest

from p2ptrumps import i18n
from p2ptrumps.cards import Card, CardParseError
from p2ptrumps.commands.main import language_option, main
from p2ptrumps.message import N_, Message, Nn_, message_of
from p2ptrumps.notation import parse_position
from p2ptrumps.rules import IllegalMoveError, Move, Outcome, RuleSet
from p2ptrumps.system.uilanguage import ui_languages
from p2ptrumps.text import COUNTED, counted

CODES = ["en", "ca", "lt", "ru", "vi"]
PACKAGE = Path(__file__).resolve().parent.parent / "p2ptrumps"


# ----- choosing -----------------------------------------------------------------------------


@pytest.mark.parametrize(("option", "saved", "asked", "chosen"), [
    (None, None, [], "en"),
    (None, None, ["ru_RU.UTF-8"], "ru"),
    (None, None, ["pt_BR", "lt_LT"], "lt"),  # LANGUAGE=pt_BR:lt_LT: the first one with a catalog
    (None, None, ["de_DE.UTF-8"], "en"),  # no catalog: English, no error
    (None, None, ["C"], "en"),
    (None, None, ["vi-VN"], "vi"),
    (None, "ca", ["ru_RU.UTF-8"], "ca"),  # the saved choice over the environment
    ("vi", "ca", ["ru_RU.UTF-8"], "vi"),  # --lang over both
    ("auto", "ca", ["ru_RU.UTF-8"], "ru"),  # --lang auto: the environment, the saved choice passed over
    ("xx", None, ["ru"], "ru"),  # an unknown --lang: as if not given
    ("ru_XX", None, [], "ru"),  # a partial one: its language
    ("../etc", None, [], "en"),
])
def test_the_language_is_chosen_as_people_expect(option: str | None, saved: str | None, asked: list[str],
                                                 chosen: str) -> None:
    assert i18n.choose(option, saved, asked, CODES) == chosen


def test_a_language_the_output_cannot_write_is_passed_over() -> None:
    assert i18n.choose("ru", None, [], CODES, encoding="ascii") == "en"
    assert i18n.choose("ru", None, [], CODES, encoding="koi8-r") == "ru"
    assert i18n.choose("vi", None, ["ca"], CODES, encoding="latin-1") == "ca"


def test_the_environment_is_read_in_gettexts_order() -> None:
    env = {"LANG": "ca_ES.UTF-8", "LC_MESSAGES": "lt_LT.UTF-8", "LC_ALL": "vi_VN.UTF-8", "LANGUAGE": "ru:en"}
    assert i18n.environment_languages(env) == ["ru", "en"]
    del env["LANGUAGE"]
    assert i18n.environment_languages(env) == ["vi_VN.UTF-8"]
    del env["LC_ALL"]
    assert i18n.environment_languages(env) == ["lt_LT.UTF-8"]
    del env["LC_MESSAGES"]
    assert i18n.environment_languages(env) == ["ca_ES.UTF-8"]
    assert i18n.environment_languages({}) == []  # POSIX: nothing else asked


def test_windows_gives_the_users_interface_language() -> None:
    assert ui_languages(lambda: 0x0419) == ["ru_RU"]
    assert ui_languages(lambda: 0x042A) == ["vi_VN"]
    assert ui_languages(lambda: 0x0403) == ["ca_ES"]
    assert ui_languages(lambda: 0x0427) == ["lt_LT"]
    assert ui_languages(lambda: 0x7FFF) == []

    def broken() -> int:
        raise OSError("no kernel32")

    assert ui_languages(broken) == []
    assert ui_languages() == []  # not Windows


def test_the_saved_choice_is_one_word_in_the_data_directory(tmp_path: Path) -> None:
    assert i18n.saved_language(tmp_path) is None
    i18n.save_language("lt", tmp_path)
    assert (tmp_path / "language").read_bytes() == b"lt\n"
    assert i18n.saved_language(tmp_path) == "lt"
    (tmp_path / "language").write_bytes(b"ru vi\n")
    assert i18n.saved_language(tmp_path) is None
    (tmp_path / "language").write_bytes(b"\xff\n")
    assert i18n.saved_language(tmp_path) is None
    i18n.save_language(None, tmp_path)
    assert not (tmp_path / "language").exists()


def test_lang_is_read_before_the_parser() -> None:
    assert language_option(["--lang", "vi", "rules"]) == "vi"
    assert language_option(["host", "--lang=lt", "--help"]) == "lt"
    assert language_option(["id", "--name", "Ann"]) is None
    assert language_option(["play", "--", "--lang", "ru"]) is None
    assert language_option(["--lang"]) is None


def test_lang_help_lists_the_languages(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--lang", "help"]) == 0
    assert capsys.readouterr().out == "en  English\nca  Català\nlt  Lietuvių\nru  Русский\nvi  Tiếng Việt\n"


def test_id_saves_the_language_and_every_command_speaks_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    from p2ptrumps.net.commands import run_id

    data = tmp_path / "p2ptrumps"
    i18n.setup("ru")
    assert run_id(argparse.Namespace(command="id", name=None, forget=None, save_lang="ru")) == 0
    out = capsys.readouterr().out
    assert (data / "language").read_text() == "ru\n"
    assert out.splitlines()[0].startswith("создан новый ключ личности: ")
    assert out.splitlines()[-1] == "язык:      Русский (ru)"
    assert i18n.saved_language() == "ru"
    i18n.setup(None, {"LANGUAGE": "ca"})  # the saved choice over the environment
    assert i18n.current() == "ru"
    assert run_id(argparse.Namespace(command="id", name=None, forget=None, save_lang="xx")) == 1
    assert "--lang: " in capsys.readouterr().err and (data / "language").read_text() == "ru\n"
    i18n.setup("auto", {"LANGUAGE": "ca"})
    assert run_id(argparse.Namespace(command="id", name=None, forget=None, save_lang="auto")) == 0
    assert not (data / "language").exists()
    assert capsys.readouterr().out.splitlines()[-1] == "idioma:   Català (ca)"


# ----- lazy messages ------------------------------------------------------------------------


def test_a_lazy_message_is_its_english_text() -> None:
    m = N_("%(card)s does not beat %(top)s (your trump is %(trump)s)", card="6♥", top="9♠", trump="♥")
    assert m == "6♥ does not beat 9♠ (your trump is ♥)" and type(str(m)) is str
    assert m.template == "%(card)s does not beat %(top)s (your trump is %(trump)s)"
    assert Nn_("%(n)d card", "%(n)d cards", 1) == "1 card" and Nn_("%(n)d card", "%(n)d cards", 0) == "0 cards"
    assert N_("95%% of %(n)d", n=3) == "95% of 3" and N_("no arguments, 95%") == "no arguments, 95%"
    for again in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        assert again == m and isinstance(again, Message) and again.args == m.args


def test_the_display_translates_a_lazy_message_with_its_arguments() -> None:
    pos = parse_position("v1/HS/TS7HKC/8D9D/9S/0/1")
    with pytest.raises(IllegalMoveError) as caught:
        pos.check(Move.beat(Card.parse("KC"), Card.parse("7H")))
    english = str(caught.value)
    assert english == "K♣ does not beat 9♠ (your trump is ♥)"
    i18n.use("ru")
    assert str(caught.value) == english  # what a log or a verdict would write stays English
    assert i18n.tr(caught.value) == "К♣ не бьёт 9♠ (ваш козырь ♥)"
    assert i18n.tr(Outcome(0, "resign").describe(("Аня", "Борис"))) == "Борис сдался; выиграл Аня"
    assert i18n.tr(counted(5, "byte")) == "5 байт" and i18n.tr(counted(3, "byte")) == "3 байта"
    assert i18n.tr(RuleSet(deals=3).describe()) == (
        "36 карт, шестёрки отдаются, бить обязательно, повтор 3, предел 1000 ходов, 3 партии")
    assert i18n.tr(Move.beat(Card.parse("QS"), Card.parse("AH")).label()) == "бьёт Д♠, вторая Т♥"
    with pytest.raises(CardParseError) as bad:
        Card.parse("Z")
    assert i18n.tr(bad.value) == "'Z' — не карта: нужно достоинство, потом масть, например 10Ч, 10H или 10♥"
    assert i18n.tr("Аня") == "Аня" and i18n.tr(message_of(ValueError("plain"))) == "plain"
    i18n.use("vi")
    assert i18n.tr(Move.pick_up().label()) == "lấy bài"
    i18n.use("en")
    assert i18n.tr(caught.value) == english


def test_a_catalog_that_breaks_a_placeholder_falls_back_to_english(monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken(gettext.NullTranslations):
        def gettext(self, message: str) -> str:
            return "%(nowhere)s"

    monkeypatch.setattr(i18n, "_translation", Broken())
    assert i18n.tr(N_("%(card)s is not in your hand", card="Q♠")) == "Q♠ is not in your hand"
    assert i18n._("%(n)d left", n=2) == "2 left"


def test_rank_letters_come_from_the_catalog() -> None:
    assert i18n.card_label(Card.parse("QS")) == "Q♠"
    i18n.use("ru")
    assert [i18n.card_label(Card.parse(c)) for c in ("JH", "QS", "KD", "AC", "TC")] == ["В♥", "Д♠", "К♦", "Т♣", "10♣"]
    assert i18n.card_label(Card.parse("AS"), ascii_only=True) == "ТS"
    for code in ("vi", "ca", "lt"):  # J Q K A: a Lithuanian T (tūzas) would read as T = 10 when typed
        i18n.use(code)
        assert i18n.rank_labels()[-4:] == ("J", "Q", "K", "A")


def test_argparse_asks_gettext_for_the_words_we_translate() -> None:
    source = inspect.getsource(argparse)
    for word in i18n.ARGPARSE_WORDS:
        assert f"_({word!r})" in source, word


def test_every_counted_word_has_its_plural_in_the_catalog() -> None:
    """``counted(n, "word")`` says ``word`` through the catalog only when the word is in ``COUNTED``."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "counted"
                    and len(node.args) == 2 and isinstance(node.args[1], ast.Constant)):
                found.add(node.args[1].value)
    assert found and found <= set(COUNTED)
