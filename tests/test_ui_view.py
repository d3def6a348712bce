"""The pure renderer: exact screens for fixed positions, ASCII mode, NO_COLOR, the status texts."""

from __future__ import annotations

import dataclasses

from prompt_toolkit.styles import Attrs

from p2ptrumps.cards import Card, mask_of, parse_cards
from p2ptrumps.rules import Move, Position, RuleSet
from p2ptrumps.text import halves_text
from p2ptrumps.ui.terminal import c_locale, wants_ascii
from p2ptrumps.ui.view import (
    EndView,
    HistoryEntry,
    StatusView,
    TableView,
    asciify,
    clock_fragment,
    expect_text,
    hand_order,
    hand_rows,
    make_style,
    plain,
    printable,
    render_end,
    render_status,
    render_table,
    render_too_small,
    render_trump_choice,
    wants_color,
)


def m(text: str) -> int:
    return mask_of(parse_cards(text))


def c(text: str) -> int:
    return int(Card.parse(text))


# RULES.md §9 example 4: t=♥, o=♦, pile 8♣ J♦ 6♥ 10♠ 7♣ 9♦.
VIEW = TableView(
    my_seat=0,
    names=("Ann", "AI greedy"),
    trumps=(2, 1),
    hands=(m("6S 7H KC AS 9D"), m("8D QH 7S")),
    pile=tuple(c(x) for x in ("8C", "JD", "6H", "TS", "7C", "9D")),
    to_move=0,
    deal_number=2,
    deals=3,
    score_halves=(1, 1),
    history=(
        HistoryEntry(1, 1, Move.lead(c("8C"))),
        HistoryEntry(2, 0, Move.beat(c("JD"), c("6H"))),
        HistoryEntry(3, 1, Move.beat(c("TS"), c("7C"))),
        HistoryEntry(4, 0, Move.pick_up(), 3),
    ),
    legal=m("AS 7H"),
    selected=c("7H"),
)


def test_table_at_80_columns_with_history() -> None:
    assert plain(render_table(VIEW, 80, 13)) == [
        " Svoi Kozyri   deal 2/3   Ann ½ : ½ AI greedy           │ Moves",
        "────────────────────────────────────────────────────────│   1 AI    lead 8♣",
        "   AI greedy  trump ♦  3 cards                          │   2 Ann   beat J♦ 6♥",
        "    hand hidden (o shows it)                            │   3 AI    beat 10♠ 7♣",
        "                                                        │   4 Ann   pick up 3",
        " Pile (6): 8♣ J♦ 6♥ 10♠ 7♣  top ▶ 9♦ ◀                  │",
        "                                                        │",
        " ▶ Ann  trump ♥  5 cards                                │",
        "  ♥ trump [7♥]                                          │",
        "  ♠        6♠ A♠                                        │",
        "  ♦        9♦                                           │",
        "  ♣        K♣                                           │",
        "                                                        │",
    ]


def test_every_line_has_the_exact_width() -> None:
    for width, height in ((80, 22), (60, 14), (100, 30)):
        lines = render_table(VIEW, width, height)
        assert len(lines) == height
        assert {sum(len(t) for _, t in line) for line in lines} == {width}


def test_narrow_table_drops_the_history() -> None:
    assert plain(render_table(VIEW, 60, 13)) == [
        " Svoi Kozyri   deal 2/3   Ann ½ : ½ AI greedy",
        "────────────────────────────────────────────────────────────",
        "   AI greedy  trump ♦  3 cards",
        "    hand hidden (o shows it)",
        "",
        " Pile (6): 8♣ J♦ 6♥ 10♠ 7♣  top ▶ 9♦ ◀",
        " Last move of AI greedy: beat 10♠, second 7♣",
        "",
        " ▶ Ann  trump ♥  5 cards",
        "  ♥ trump [7♥]",
        "  ♠        6♠ A♠",
        "  ♦        9♦",
        "  ♣        K♣",
    ]


def test_ascii_table_with_opponent_hand_pending_beat_and_connection() -> None:
    view = dataclasses.replace(
        VIEW, ascii_only=True, show_opponent=True, selected=c("AS"), pending_beat=c("7H"),
        legal=m("6S AS KC 9D"), connection="connected", opponent_detail="fingerprint ab12 cd34",
    )
    lines = plain(render_table(view, 80, 17))
    assert lines == [
        " Svoi Kozyri   deal 2/3   Ann 0.5 : 0.5 AI greedy       | Moves",
        "--------------------------------------------------------|   1 AI    lead 8C",
        "   AI greedy  trump D  3 cards                connected |   2 Ann   beat JD 6H",
        "    fingerprint ab12 cd34                               |   3 AI    beat 10S 7C",
        "  D trump  8D                                           |   4 Ann   pick up 3",
        "  S        7S                                           |",
        "  H        QH                                           |",
        "  C        -                                            |",
        "                                                        |",
        " Pile (6): 8C JD 6H 10S 7C  top > 9D < *7H* beats it    |",
        "                                                        |",
        " > Ann  trump H  5 cards                                |",
        "  H trump *7H*                                          |",
        "  S        6S[AS]                                       |",
        "  D        9D                                           |",
        "  C        KC                                           |",
        "                                                        |",
    ]
    assert all(line.isascii() for line in lines)


def test_hand_row_styles_mark_legal_selected_and_pending() -> None:
    rows = hand_rows(m("6S 7S 9S"), 2, ascii_only=False, legal=m("7S 9S"), selected=c("7S"))
    spades = rows[1]
    assert "".join(t for _, t in spades) == "  ♠        6♠[7♠]9♠ "
    styles = {t: s for s, t in spades if "♠" in t and len(t) > 1}
    # The cursor on a legal card keeps the legal style beside its own (reverse + underline).
    assert styles == {"6♠": "class:card", "7♠": "class:card.selected class:card.legal",
                      "9♠": "class:card class:card.legal"}
    pending = hand_rows(m("6S 7S 9S"), 2, ascii_only=True, selected=c("9S"), pending=c("7S"))[1]
    assert "".join(t for _, t in pending) == "  S        6S*7S*[9S]"
    # The beating card next to the cursor keeps both of its marks.
    before = hand_rows(m("6H 8H 9H"), 2, ascii_only=False, selected=c("6H"), pending=c("8H"))[0]
    assert "".join(t for _, t in before) == "  ♥ trump [6♥]*8♥*9♥ "


def test_hand_order_puts_own_trump_first() -> None:
    order = hand_order(m("AS 6C TH KD 7H"), 2)
    assert [Card(x).code for x in order] == ["7H", "TH", "AS", "KD", "6C"]


def test_status_lines_ascii_and_error_mark() -> None:
    status = StatusView(expect="Beat 9♦ with 7♥.", message="6♠ does not beat 9♦ (your trump is ♥)",
                        message_kind="error", keys="p pick up  ? help", ascii_only=True)
    assert plain(render_status(status, 60)) == [
        " Beat 9D with 7H.",
        " x 6S does not beat 9D (your trump is H)",
        " p pick up  ? help",
    ]
    unicode = plain(render_status(dataclasses.replace(status, ascii_only=False), 60))
    assert unicode[1] == " ✗ 6♠ does not beat 9♦ (your trump is ♥)"


def test_trump_choice_screen() -> None:
    assert plain(render_trump_choice(2, 3, False, 60, 11)) == [
        " Svoi Kozyri",
        "────────────────────────────────────────────────────────────",
        "",
        " Choose your own trump",
        " Your trump beats any card of another suit, on your turn.",
        "",
        "   1.   ♣ clubs",
        "   2.   ♦ diamonds",
        "   3. ▶ ♥ hearts",
        "   4.   ♠ spades  (taken by your opponent)",
        "",
    ]


def test_end_of_match_screen_shows_result_score_and_record_path() -> None:
    view = EndView(title="Ann went out and won.", names=("Ann", "AI greedy"), trumps=(2, 1), hands=(0, m("8D QH 7S")),
                   pile=(c("9D"), c("7H")), deal_number=2, deals=3, score_halves=(3, 1), match_over=True,
                   record_path="/tmp/r.json")
    assert plain(render_end(view, 60, 14)) == [
        " Svoi Kozyri   Match over",
        "────────────────────────────────────────────────────────────",
        " Ann went out and won.",
        " Score: Ann 1½ : ½ AI greedy",
        " Record saved: /tmp/r.json",
        "",
        " AI greedy  trump ♦  3 cards left",
        "  ♦ trump  8♦",
        "  ♠        7♠",
        "  ♥        Q♥",
        "  ♣        -",
        " Ann  trump ♥  0 cards left",
        " Pile: 9♦ 7♥",
        "",
    ]
    deal_end = plain(render_end(dataclasses.replace(view, match_over=False, ascii_only=True), 40, 5))
    assert deal_end[0] == " Svoi Kozyri   Deal 2 of 3 over"
    assert deal_end[3] == " Score: Ann 1.5 : 0.5 AI greedy"
    assert deal_end[4] == ""


def test_long_pile_wraps_on_the_end_screen() -> None:
    pile = tuple(parse_cards("6C 7C 8C 9C TC JC QC KC AC 6D 7D 8D 9D TD JD QD"))
    view = EndView(title="x", names=("A", "B"), trumps=(0, 1), hands=(0, 0), pile=tuple(int(p) for p in pile),
                   deal_number=1, deals=1, score_halves=(2, 0))
    lines = plain(render_end(view, 30, 12))
    assert lines[7:10] == [
        " Pile: 6♣ 7♣ 8♣ 9♣ 10♣ J♣ Q♣",
        "       K♣ A♣ 6♦ 7♦ 8♦ 9♦ 10♦",
        "       J♦ Q♦",
    ]


def pos(trumps: tuple[int, int], pile: str, hand: str, other: str = "QD", **rules: bool) -> Position:
    return Position(rules=RuleSet(**rules), trumps=trumps, hands=[m(hand), m(other)],
                    pile=tuple(parse_cards(pile)), to_move=0)


def test_expect_text_for_each_situation() -> None:
    # RULES.md §9 example 1: t=♥, pile 9♠, hand 10♠ 7♥ K♣.
    p1 = pos((2, 3), "9S", "TS 7H KC")
    assert expect_text(p1, 0) == "Beat 9♠ with 7♥ or 10♠, then a second card."
    assert expect_text(pos((2, 3), "9S", "TS 7H KC", voluntary_pickup=True), 0) == (
        "Beat 9♠ with 7♥ or 10♠, then a second card; or pick up (p) takes 1 card.")
    assert expect_text(p1, 0, pending_beat=c("TS")) == (
        "Second card: any card on top of 10♠ (Enter plays it, Esc takes the beat back)")
    # Example 4: nothing beats 9♦, take 3.
    assert expect_text(pos((2, 1), "8C JD 6H TS 7C 9D", "6S"), 0) == "Nothing beats 9♦: pick up (p) takes 3 cards."
    # Example 7: the last card beats, no second card.
    assert expect_text(pos((3, 2), "9S", "KS"), 0) == "Beat 9♠ with K♠."
    assert expect_text(pos((3, 2), "", "KS"), 0) == "Your lead: play any card (Enter)."
    many = pos((2, 3), "6C", "7C 8C 9C TC JC 6H 7H")
    assert expect_text(many, 0) == "Beat 6♣ with one of the 7 highlighted cards, then a second card."
    assert expect_text(pos((3, 2), "", "KS"), 1, opponent_name="Bob") == "Bob to move…"


def test_style_without_colour_keeps_bold_and_reverse() -> None:
    mono = make_style(color=False)
    colour = make_style(color=True)
    default = Attrs(color="", bgcolor="", bold=False, underline=False, strike=False, italic=False, blink=False,
                    reverse=False, hidden=False, dim=False)
    for name in ("card.red", "message.error", "trump", "expect", "card.legal", "card.selected", "top", "dialog"):
        attrs = mono.get_attrs_for_style_str(f"class:{name}", default)
        assert (attrs.color, attrs.bgcolor) == ("", ""), name
    assert mono.get_attrs_for_style_str("class:card.selected", default).reverse is True
    assert mono.get_attrs_for_style_str("class:card.legal", default).bold is True
    assert colour.get_attrs_for_style_str("class:card.red", default).color == "d03030"


def test_environment_and_encoding_detection() -> None:
    assert wants_color({}) is True
    assert wants_color({"NO_COLOR": "1"}) is False
    assert wants_color({"NO_COLOR": ""}) is True
    # A terminal without colours gets none.
    assert wants_color({"TERM": "xterm-mono"}) is False
    assert wants_color({"TERM": "vt100"}) is False
    assert wants_color({"TERM": "xterm-256color"}) is True
    assert wants_color({"TERM": "screen"}) is True
    utf8 = {"LANG": "en_US.UTF-8"}
    assert wants_ascii("utf-8", utf8) is False
    assert wants_ascii("ascii", utf8) is True
    assert wants_ascii("latin-1", utf8) is True
    assert wants_ascii(None, utf8) is True
    assert asciify("10♥ beats 9♠ — ½") == "10H beats 9S - .5"
    assert [halves_text(h) for h in (0, 1, 2, 3)] == ["0", "½", "1", "1½"]
    assert [halves_text(h, True) for h in (0, 1, 2, 3)] == ["0", "0.5", "1", "1.5"]


def test_c_locale_means_ascii_even_with_a_utf8_stream() -> None:
    """Python coerces the C locale to UTF-8 stdout, so the environment decides (LC_ALL, LC_CTYPE, LANG)."""
    assert wants_ascii("utf-8", {"LANG": "C"}) is True
    assert wants_ascii("utf-8", {"LC_ALL": "POSIX", "LANG": "en_US.UTF-8"}) is True
    assert wants_ascii("utf-8", {"LC_ALL": "C"}) is True
    assert wants_ascii("utf-8", {"LC_CTYPE": "C", "LANG": "de_DE.UTF-8"}) is True
    assert wants_ascii("utf-8", {"LC_ALL": "en_US.UTF-8", "LANG": "C"}) is False
    assert wants_ascii("utf-8", {"LC_ALL": "", "LC_CTYPE": "en_US.UTF-8", "LANG": "C"}) is False
    assert wants_ascii("utf-8", {"LANG": "C.UTF-8"}) is False
    assert c_locale({}) is True  # nothing set: the POSIX default locale is C
    # What Python's C-locale coercion leaves in os.environ after `LANG=C p2ptrumps ...` (PEP 538).
    assert wants_ascii("utf-8", {"LANG": "C", "LC_CTYPE": "C.UTF-8"}) is True
    assert wants_ascii("utf-8", {"LC_CTYPE": "C.UTF-8"}) is True
    assert wants_ascii("utf-8", {"LANG": "en_GB.UTF-8", "LC_CTYPE": "C.UTF-8"}) is False
    assert c_locale({"LANG": "fr_FR.UTF-8"}) is False


def test_long_status_texts_wrap_instead_of_being_cut() -> None:
    status = StatusView(expect="Beat 9♠ with 7♥, 10♠, J♠ or K♣, then a second card; or pick up (p) takes 3 cards.",
                        message="cannot save the record to /home/someone/records/2026-11-29_1742_vs-normal.json",
                        message_kind="error", keys="p pick up  ? help")
    assert plain(render_status(status, 40)) == [
        " Beat 9♠ with 7♥, 10♠, J♠ or K♣, then a",
        " second card; or pick up (p) takes 3",
        " cards.",
        " ✗ cannot save the record to",
        " /home/someone/records/2026-11-29_1742_v",
        " s-normal.json",
        " p pick up  ? help",
    ]
    assert all(len(line) == 40 for line in plain(render_status(status, 40)) for line in [line.ljust(40)])
    assert len(render_status(StatusView(expect="x"), 60)) == 3


def test_too_small_screen_names_the_minimum() -> None:
    assert plain(render_too_small(60, 3)) == [
        "terminal too small: need at least 60x20 (now 60x3); q quits",
        "",
        "",
    ]


def test_control_characters_are_replaced_on_every_screen() -> None:
    assert printable("Bob\x1b[31mRED\nX\t") == "Bob?[31mRED?X?"
    assert printable("Ann ♥ ½") == "Ann ♥ ½"
    # Bidirectional overrides and C1 controls (CSI) too; invisible joiners are left out, other spaces are spaces.
    assert printable("Ann\u202eeeL\u2066x\x9b2J") == "Ann?eeL?x?2J"
    family = "\U0001f469\u200d\U0001f469\u200d\U0001f467"
    assert printable(f"Ann {family}\u00a0\u3000!") == "Ann \U0001f469\U0001f469\U0001f467  !"
    assert printable("a\ue000\U0010fffd\ufffe") == "a???"
    view = dataclasses.replace(VIEW, names=("Ann\x1b[2J", "AI\r"), chat=("AI\r: hi\x1b",))
    screen = plain(render_table(view, 80, 16))
    assert screen[0].startswith(" Svoi Kozyri   deal 2/3   Ann?[2J ½ : ½ AI?")
    assert screen[13].startswith(" AI?: hi?")
    assert not any(ch < " " or ch == "\x7f" for line in screen for ch in line)


def test_a_long_result_line_wraps_on_the_end_screen() -> None:
    """At 60 columns "You lost the match. Last deal: you ran out of time; Наталья-Длинное-Имя-Очень
    claimed the deal" was clipped after "Наталья"; it wraps like the note under it."""
    title = "You lost the match. Last deal: you ran out of time; Наталья-Длинное-Имя claimed the deal"
    view = EndView(title=title, names=("A", "B"), trumps=(0, 1), hands=(0, 0), pile=(), deal_number=1, deals=1,
                   score_halves=(0, 2), match_over=True)
    assert plain(render_end(view, 60, 8))[2:5] == [
        " You lost the match. Last deal: you ran out of time;",
        " Наталья-Длинное-Имя claimed the deal",
        " Score: A 0 : 1 B",
    ]


def test_long_record_path_wraps_on_the_end_screen() -> None:
    path = "/home/someone/.local/share/p2ptrumps/records/2026-11-29_1742_vs-normal.json"
    view = EndView(title="x", names=("A", "B"), trumps=(0, 1), hands=(0, 0), pile=(), deal_number=1, deals=1,
                   score_halves=(2, 0), match_over=True, record_path=path)
    lines = plain(render_end(view, 50, 8))
    # Broken after a "/", never inside a name.
    assert lines[4:7] == [
        " Record saved: /home/someone/.local/share/",
        "   p2ptrumps/records/",
        "   2026-11-29_1742_vs-normal.json",
    ]
    wide = plain(render_end(dataclasses.replace(view, record_path="/root/.local/share/p2ptrumps/records/"
                                                "2026-12-01_1554_vs-random.json"), 80, 8))
    assert wide[4:6] == [" Record saved: /root/.local/share/p2ptrumps/records/",
                         "   2026-12-01_1554_vs-random.json"]


def test_at_60_columns_a_long_name_is_cut_before_the_clock_is() -> None:
    view = dataclasses.replace(VIEW, names=("Ann", "Аня Анастасия-Мария"), connection="connected · Аня Анаст… 0:59",
                               opponent_detail="key QOL5-2LMR-KEVP-T4PX-GQEW-EK7K-BXS6-LYD4")
    screen = plain(render_table(view, 60, 14))
    assert screen[2] == "   Аня Анас…  trump ♦  3 cards  connected · Аня Анаст… 0:59"
    short = plain(render_table(dataclasses.replace(view, names=("Ann", "Bo")), 60, 14))
    assert short[2] == "   Bo  trump ♦  3 cards         connected · Аня Анаст… 0:59"


def test_at_60_columns_the_key_line_is_cut_with_an_ellipsis_after_the_key() -> None:
    """The opponent's key and path at 60 columns: it was clipped mid-word ("· on this ma")."""
    view = dataclasses.replace(VIEW, opponent_detail="key QOL5-2LMR-KEVP-T4PX-GQEW-EK7K-BXS6-LYD4 · on this machine")
    assert plain(render_table(view, 60, 14))[3] == "    key QOL5-2LMR-KEVP-T4PX-GQEW-EK7K-BXS6-LYD4 · on this m…"
    assert plain(render_table(view, 100, 14))[3].split("│")[0].rstrip().endswith("LYD4 · on this machine")


def test_a_small_screen_keeps_the_newest_chat_line() -> None:
    """With no room below the hand, blank lines make way for the newest chat line (a sender sees theirs)."""
    view = dataclasses.replace(VIEW, chat=("Ann: hello", "AI greedy: привет"))
    assert plain(render_table(view, 60, 13))[-2:] == ["  ♣        K♣", " AI greedy: привет"]
    assert plain(render_table(view, 60, 14))[-2:] == ["  ♣        K♣", " AI greedy: привет"]
    assert plain(render_table(view, 60, 16))[-3:] == ["", " Ann: hello", " AI greedy: привет"]
    assert plain(render_table(VIEW, 60, 13))[-1] == "  ♣        K♣"


def test_move_100_does_not_touch_the_panel_border() -> None:
    """"│100" touched the border; every number keeps a space after it, and the longest
    line up to move 999 fits the panel."""
    from dataclasses import replace

    history = tuple(HistoryEntry(n, n % 2, Move.beat(c("TS"), c("TH"))) for n in range(90, 101))
    view = replace(VIEW, history=history, names=("Annabel", "AI greedy"))
    lines = plain(render_table(view, 80, 13))
    assert any(line.endswith("│ 100 Annab beat 10♠ 10♥") for line in lines)
    assert all(len(line) <= 80 for line in lines)
    assert not any("│1" in line for line in lines)


def test_the_running_clock_is_on_its_seats_own_line_and_warns_in_its_last_10_seconds() -> None:
    """protocol/wire.md §16: the clock on the line of the seat it runs against, highlighted; its last 10
    seconds in the warning style, marked with ``!`` so that it reads the same without colour."""
    opp = 1 - VIEW.my_seat
    mine = render_table(dataclasses.replace(VIEW, clock=(VIEW.my_seat, 42.3)), 80, 20)
    text = plain(mine)
    me_row = next(i for i, line in enumerate(text) if line.startswith("   Ann") or line.startswith(" ▶ Ann"))
    assert text[me_row].startswith(" ▶ Ann  trump ♥  5 cards   0:43  ") and "0:43" not in text[2]
    assert ("class:clock", " 0:43 ") in mine[me_row]
    theirs = render_table(dataclasses.replace(VIEW, clock=(opp, 7.0)), 80, 20)
    assert "3 cards  !0:07!" in plain(theirs)[2] and ("class:clock.warn", "!0:07!") in theirs[2]
    assert "!0:07!" not in plain(theirs)[me_row]
    assert clock_fragment(10.0) == ("class:clock.warn", "!0:10!") and clock_fragment(10.5) == ("class:clock", " 0:11 ")
    for color in (True, False):  # NO_COLOR keeps the highlight (reverse) and the warning (bold, marks)
        style = make_style(color)
        attrs = style.get_attrs_for_style_str("class:clock.warn")
        assert attrs.reverse and attrs.bold
        assert style.get_attrs_for_style_str("class:clock").reverse
