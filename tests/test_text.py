"""The one text rule for names and chat lines (protocol/wire.md §5.1), and the move-code
spellings of §9.5: which wrong spellings are ``non-canonical`` and which ``malformed``."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2ptrumps.commands.main import main
from p2ptrumps.net import keystore
from p2ptrumps.net.keystore import is_blank
from p2ptrumps.rules import Move
from p2ptrumps.text import (
    MAX_CHAT_CHARS,
    MAX_NAME_CHARS,
    check_chat,
    check_name,
    clock_text,
    counted,
    numbered,
    quoted,
    refused_char,
    text_problem,
)
from p2ptrumps.wire.errors import RemoteProtocolError
from p2ptrumps.wire.messages import _MOVES, MoveMsg, canonical_move_code


@pytest.mark.parametrize(
    "text",
    [
        "Ann",
        "Anna-Maria O'Neil",
        "Иван Петров",
        "محمد",  # Arabic letters are fine: only the formatting controls are refused
        "李小龙",
        "👩\u200d👩\u200d👧",  # a family: emoji joined by ZERO WIDTH JOINER
        "\u2764\ufe0f",  # red heart with VARIATION SELECTOR-16
        "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",  # Scotland: a tag sequence
        "\U000f0000",  # private use
        "\U0003ffd0",  # unassigned today: allowed whatever Unicode version Python ships
        "x" * MAX_NAME_CHARS,
    ],
)
def test_names_allowed(text: str) -> None:
    check_name(text)
    check_chat(text)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "must be 1..40 characters, not 0"),
        ("x" * 41, "must be 1..40 characters, not 41"),
        ("a\nb", "contains U+000A, a control character"),
        ("a\tb", "contains U+0009, a control character"),
        ("a\x1b[31mred", "contains U+001B, a control character"),
        ("a\x85b", "contains U+0085, a control character"),
        ("a\u2028b", "contains U+2028, a line or paragraph separator"),
        ("evil\u202egnp.exe", "contains U+202E, a bidirectional formatting character"),
        ("a\u2066b\u2069", "contains U+2066, a bidirectional formatting character"),
        ("a\u200fb", "contains U+200F, a bidirectional formatting character"),
        ("a\u061cb", "contains U+061C, a bidirectional formatting character"),
        ("a\ufdd0b", "contains U+FDD0, a noncharacter"),
        ("a\uffffb", "contains U+FFFF, a noncharacter"),
        ("a\U0010fffeb", "contains U+10FFFE, a noncharacter"),
    ],
)
def test_names_refused_with_the_reason(text: str, why: str) -> None:
    assert text_problem(text, "a name", MAX_NAME_CHARS) == f"a name {why}"
    with pytest.raises(ValueError, match="a name"):
        check_name(text)


def test_chat_length_and_the_rule_is_the_same() -> None:
    check_chat("x" * MAX_CHAT_CHARS)
    assert text_problem("x" * 501, "a chat line", MAX_CHAT_CHARS) == "a chat line must be 1..500 characters, not 501"
    assert refused_char("\u200d") is None and refused_char("\u202e") is not None


def test_one_name_length_everywhere() -> None:
    assert MAX_NAME_CHARS == keystore.MAX_NAME_CHARS == 40


@pytest.mark.parametrize(
    ("code", "canonical"),
    [
        ("QS", "QS"), ("TS/7H", "TS/7H"), ("TS/", "TS/"), ("pickup", "pickup"),
        ("qs", "QS"), ("10S", "TS"), ("tS", "TS"), ("Q♠", "QS"), ("Q♤", "QS"), ("10h/7♥", "TH/7H"),
        ("PICKUP", "pickup"), ("pick up", "pickup"), ("Pick-Up", "pickup"),
        ("QS ", None), (" QS", None), ("Q S", None), ("QS/QS", None), ("QS/qs", None), ("QS//", None),
        ("/QS", None), ("1S", None), ("QX", None), ("", None), ("pass", None), ("pick  up", None),
        ("PIC\u212aUP", None),  # KELVIN SIGN lower-cases to k, but only ASCII case is a variant
        ("QＳ", None), ("١٠S", None),
    ],
)
def test_move_code_spellings(code: str, canonical: str | None) -> None:
    assert canonical_move_code(code) == canonical


def test_quoted_keeps_scripts_and_joiners_and_escapes_what_the_rule_refuses() -> None:
    family = "\U0001f469\u200d\U0001f469\u200d\U0001f467"
    assert quoted(f"Аня {family}") == f"'Аня {family}'"  # repr() would show \u200d
    assert quoted("a\x1b[2J\u202eb\x9b") == "'a\\x1b[2J\\u202eb\\x9b'"
    assert quoted("O'Brien") == "'O'Brien'"


@pytest.mark.parametrize("name", ["\u200b", "\u200c\u200d", "\u2060", "\ufeff", "\u00ad", "\u3164", "\u2800",
                                  "\u115f", "\u034f", "\ufe0f", "\U000e0041", "\u180e", "\u0301", " \u3000"])
def test_a_name_that_draws_nothing_is_blank(name: str) -> None:
    assert is_blank(name)


@pytest.mark.parametrize("name", ["Ann", "\u0430", "\U0001f469\u200d\U0001f469", "\u00e9", "e\u0301", "\u4e00", "_"])
def test_a_name_with_something_to_see_is_not_blank(name: str) -> None:
    assert not is_blank(name)


def test_our_own_name_must_draw_something(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    with pytest.raises(SystemExit) as info:
        main(["id", "--name", "\u200b"])
    assert info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "p2ptrumps id: --name: '\\u200b' draws nothing: a name needs at least one visible character")
    with pytest.raises(ValueError, match="at least one visible character"):
        keystore.clean_name("\u3164")


def test_counted_numbered_and_clock_text_say_it_once_for_every_module() -> None:
    assert [counted(n, "card") for n in (0, 1, 2)] == ["0 cards", "1 card", "2 cards"]
    assert [counted(n, "inaccuracy", "inaccuracies") for n in (1, 3)] == ["1 inaccuracy", "3 inaccuracies"]
    assert [counted(n, "match", "matches") for n in (1, 0)] == ["1 match", "0 matches"]
    assert numbered("deal", [3]) == "deal 3" and numbered("deal", [3, 4, 5]) == "deals 3, 4, 5"
    assert [clock_text(s) for s in (-1.0, 0.0, 0.2, 59.0, 65.0, 600.0)] == ["0:00", "0:00", "0:01", "0:59", "1:05",
                                                                          "10:00"]


_SPELLINGS = [("QS", "QS"), ("qs", "QS"), ("TS/7H", "TS/7H"), ("10h/7♥", "TH/7H"), ("TS/", "TS/"),
              ("pickup", "pickup"), ("PICKUP", "pickup"), ("QS/QS", None), ("QS ", None), ("", None)]


@pytest.mark.parametrize("rounds", [1, 2])
def test_a_move_body_reads_each_code_the_same_the_first_time_and_after(rounds: int) -> None:
    """A canonical code met once is looked up afterwards (messages._MOVES): the second reading of
    every spelling, right after its canonical form was read, gives the same move or the same fault."""
    position = bytes(range(32))
    for _ in range(rounds):
        for code, canonical in _SPELLINGS:
            if canonical is not None:
                assert MoveMsg.parse([3, canonical, position]) == MoveMsg(3, Move.parse(canonical), position)
            if canonical == code:
                continue
            with pytest.raises(RemoteProtocolError) as info:
                MoveMsg.parse([3, code, position])
            want = ("non-canonical", f"move code {code!r} is not canonical (write {canonical!r})") if canonical \
                else ("malformed", f"move: {code!r} is not a move code (like QS, TS/7H, TS/ or pickup)")
            assert (info.value.code, info.value.reason) == want
    assert {"QS", "TS/7H", "TS/", "pickup"} <= set(_MOVES) and not {"qs", "PICKUP", "QS/QS", ""} & set(_MOVES)


@pytest.mark.parametrize(
    ("items", "reason"),
    [
        ([3, "QS"], "a move body has 3 elements, not 2"),
        ([0, "QS", bytes(32)], "move: the deal number 0 is outside 1..1000"),
        ([True, "QS", bytes(32)], "move: the deal number must be an integer, not a boolean"),
        ([3, b"QS", bytes(32)], "move: the move code must be text, not bytes"),
        ([3, "QS", bytes(31)], "move: the position hash must be 32 bytes, not 31"),
        ([3, "QS", "x" * 32], "move: the position hash must be bytes, not text"),
    ],
)
def test_a_move_body_with_a_known_code_is_still_checked_field_by_field(items: list[object], reason: str) -> None:
    MoveMsg.parse([1, "QS", bytes(32)])  # "QS" is known from now on
    with pytest.raises(RemoteProtocolError) as info:
        MoveMsg.parse(items)
    assert (info.value.code, info.value.reason) == ("malformed", reason)
