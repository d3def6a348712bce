"""Keys and what the table says: any keyboard layout, unknown keys, typed
Russian card letters, the second-card step, repetition, pick-up counts, the last move at 60
columns, the deal-over screen, the rule book.  The table runs on prompt_toolkit's pipe
input with a dummy output; its intents are collected instead of reaching a match."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2ptrumps.cards import Card, mask_of, parse_cards
from p2ptrumps.events import DealEnded, DealStarted, MovePlayed
from p2ptrumps.match import OfferDraw, Resign, Undo
from p2ptrumps.record import MatchRecord, PlayerInfo
from p2ptrumps.rules import Move, Outcome, Position, RuleSet
from p2ptrumps.ui.app import HintRequest, Intent, Mode, QuitResult, TableApp, UIOptions, repeating_moves
from p2ptrumps.ui.keys import CYRILLIC_OF_LATIN, latin_move_text
from p2ptrumps.ui.replay import ReplayViewer, load_any
from p2ptrumps.ui.view import plain

ENTER = "\r"


def c(text: str) -> int:
    return int(Card.parse(text))


def m(text: str) -> int:
    return mask_of(int(x) for x in parse_cards(text))


def position(mine: str, theirs: str, pile: str, trumps: tuple[int, int] = (2, 1)) -> Position:
    return Position(rules=RuleSet(), trumps=trumps, hands=[m(mine), m(theirs)], pile=tuple(parse_cards(pile)),
                    to_move=0)


# The RULES.md §9 example 4 position with my turn: A♠ and 7♥ (my trump) beat the top 9♠.
BEAT_POS = "6S 7H KC AS 9D", "8D QH 7S", "8C JD 6H TS 7C 9S"
# Nothing in my hand beats 9♦: a pick-up is due.
PICK_POS = "6S 7S", "8D QH", "8C 9D"


class _Screen(DummyOutput):
    def __init__(self, columns: int = 80, rows: int = 24) -> None:
        self.columns, self.rows = columns, rows

    def get_size(self) -> Size:
        return Size(rows=self.rows, columns=self.columns)


@dataclass
class Table:
    """A running table and what it sent."""

    table: TableApp
    inp: PipeInput
    sent: list[Intent] = field(default_factory=list)

    async def keys(self, text: str, until: Callable[[], bool], what: str) -> None:
        self.inp.send_text(text)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while not until():
            assert loop.time() < deadline, f"the table never showed: {what}"
            await asyncio.sleep(0.005)


def run_table(setup: Callable[[TableApp], None], script: Callable[[Table], object],
              options: UIOptions | None = None, columns: int = 80) -> Table:
    """Run a :class:`TableApp` set up by ``setup`` while ``script`` types; return it after it closes."""

    async def main() -> Table:
        with create_pipe_input() as inp:
            table = TableApp(options or UIOptions(allow_undo=True, allow_hint=True), input=inp,
                             output=_Screen(columns))
            table.application.ttimeoutlen = 0.01
            t = Table(table, inp)
            table.intent_sink = t.sent.append
            table.set_players(("Tess", "AI greedy"), 0)
            setup(table)
            task = asyncio.ensure_future(table.application.run_async())
            try:
                await t.keys("", lambda: table.application.is_running, "the application running")
                await script(t)  # type: ignore[misc]
            finally:
                table.exit(QuitResult.QUIT)
                await asyncio.wait_for(task, 10)
            return t

    return asyncio.run(main())


def my_turn(mine: str, theirs: str, pile: str) -> Callable[[TableApp], None]:
    def setup(table: TableApp) -> None:
        pos = position(mine, theirs, pile)
        table.show_event(DealStarted(1, 1, pos))
        table.begin_turn(pos.copy(), 0)

    return setup


# ----- any keyboard layout ------------------------------------------------------------------


def test_russian_layout_letters_sit_on_the_latin_keys() -> None:
    pairs = {"p": "з", "q": "й", "i": "ш", "o": "щ", "d": "в", "u": "г", "R": "К", ":": "Ж", "h": "р", "l": "д"}
    assert {latin: CYRILLIC_OF_LATIN[latin] for latin in pairs} == pairs


@pytest.mark.parametrize(("key", "intent"), [("з", Move.pick_up()), ("ш", HintRequest()), ("г", Undo())])
def test_a_russian_layout_key_acts_like_its_latin_key(key: str, intent: Intent) -> None:
    async def script(t: Table) -> None:
        await t.keys(key, lambda: bool(t.sent), f"the intent of {key!r}")

    t = run_table(my_turn(*PICK_POS), script)
    assert t.sent == [intent]


def test_russian_layout_keys_open_the_same_dialogs() -> None:
    async def script(t: Table) -> None:
        s = t.table.state
        await t.keys("щ", lambda: s.show_opponent, "the opponent's hand")
        await t.keys("К", lambda: s.confirm is not None, "the resign question")
        assert s.confirm is not None and s.confirm.question == "Resign this deal? The opponent wins it."
        await t.keys("н", lambda: bool(t.sent), "the resignation")  # н is y
        await t.keys("й", lambda: s.confirm is not None, "the quit question")
        assert s.confirm is not None and s.confirm.question == "Quit? The record is saved."

    t = run_table(my_turn(*BEAT_POS), script)
    assert t.sent == [Resign()]


def test_russian_d_offers_a_draw_and_zh_opens_the_prompt() -> None:
    async def script(t: Table) -> None:
        s = t.table.state
        await t.keys("Ж", lambda: s.prompt_kind == "move", "the typed-move prompt")
        await t.keys("\x1b", lambda: s.prompt_kind is None, "the prompt closed")
        await t.keys("в", lambda: s.confirm is not None, "the draw question")
        await t.keys("y", lambda: bool(t.sent), "the offer")

    assert run_table(my_turn(*BEAT_POS), script).sent == [OfferDraw()]


def test_an_unknown_key_says_what_would_help() -> None:
    async def script(t: Table) -> None:
        s = t.table.state
        await t.keys("x", lambda: s.message.startswith("'x'"), "a hint")
        assert (s.message, s.message_kind) == (
            "'x' does nothing here: choose a card with the arrows and press Enter; ? lists every key", "hint")
        await t.keys("p", lambda: s.message_kind == "error", "the pick-up refusal")
        t.table.end_turn()
        await t.keys("z", lambda: s.message.startswith("'z'"), "a hint while waiting")
        assert s.message == "'z' does nothing here: it is AI greedy's move; ? lists the keys, q quits"
        await t.keys("\x07", lambda: s.message.startswith("Ctrl-G"), "a hint for a control key")

    t = run_table(my_turn(*BEAT_POS), script)
    assert t.sent == []


def test_unknown_key_hint_mentions_the_pick_up_only_when_it_is_legal() -> None:
    async def script(t: Table) -> None:
        await t.keys("ъ", lambda: t.table.state.message.startswith("'ъ'"), "a hint")

    t = run_table(my_turn(*PICK_POS), script)
    assert t.table.state.message == (
        "'ъ' does nothing here: choose a card with the arrows and press Enter, p picks up; ? lists every key")


# ----- typed moves in Russian ----------------------------------------------------------------


@pytest.mark.parametrize(("typed", "latin"), [
    ("Дп", "QS"), ("10ч вт", "10H JC"), ("ТП/7Ч", "AS 7H"), ("тт", "AC"), ("ЙЫ", "QS"), ("фы", "AS"),
    ("з", "p"), ("беру", "p"), ("QS", "QS"), ("10s 7h", "10s 7h"), ("Д", "Q"),
])
def test_latin_move_text(typed: str, latin: str) -> None:
    assert latin_move_text(typed) == latin


def test_typed_russian_letters_play_a_beat_and_its_second_card() -> None:
    async def script(t: Table) -> None:
        table = t.table
        assert table.submit_typed("Тп") is False  # A♠ beats 9♠; the second card comes next
        assert (table.state.mode, table.state.pending_beat) == (Mode.SECOND, c("AS"))
        assert table.submit_typed("Вт") is False  # J♣ is not in my hand
        assert table.state.message == "J♣ is not in your hand"
        assert table.submit_typed("Кт") is True  # K♣ as the second card

    assert run_table(my_turn(*BEAT_POS), script).sent == [Move.beat(c("AS"), c("KC"))]


def test_typed_russian_pick_up_word() -> None:
    async def script(t: Table) -> None:
        assert t.table.submit_typed("беру") is True

    assert run_table(my_turn(*PICK_POS), script).sent == [Move.pick_up()]


# ----- what the table says -------------------------------------------------------------------


def test_second_card_step_says_what_happened_and_shows_the_beat_on_the_pile() -> None:
    async def script(t: Table) -> None:
        table = t.table
        table.state.selected = c("AS")
        await t.keys(ENTER, lambda: table.state.mode == Mode.SECOND, "the second-card step")
        assert table.state.message == "A♠ beats 9♠: now choose the second card to put on it."
        assert table.status_view().expect == (
            "Second card: any card on top of A♠ (Enter plays it, Esc takes the beat back)")
        screen = plain(table._render_body(80, 20))
        assert screen[5].startswith(" Pile (6): 8♣ J♦ 6♥ 10♠ 7♣  top ▶ 9♠ ◀ *A♠* beats it")
        assert screen[8].startswith("  ♥ trump [7♥]")  # the cursor moved on to the first other card
        assert screen[9].startswith("  ♠        6♠*A♠*")
        view = table.table_view()
        assert view is not None and view.pending_beat == c("AS")
        assert view.legal == m("6S 7H KC 9D")  # every other card may go on it

    run_table(my_turn(*BEAT_POS), script)


def test_the_cursor_keeps_the_legal_highlight() -> None:
    table = TableApp()
    pos = position(*BEAT_POS)
    table.show_event(DealStarted(1, 1, pos))
    table.begin_turn(pos.copy(), 0)
    assert table.state.selected == c("7H")  # the first legal card in display order
    styles = {text: style for line in table._render_body(80, 20) for style, text in line}
    assert styles["7♥"] == "class:card.selected class:card.legal"
    assert styles["A♠"] == "class:card class:card.legal"
    assert styles["6♠"] == "class:card"
    table.state.selected = c("6S")
    styles = {text: style for line in table._render_body(80, 20) for style, text in line}
    assert styles["6♠"] == "class:card.selected"


# A deal from the rules' own position (sixes off) in which the moves below bring back the
# position before the last pick-up twice: picking up again would make it the third time.
REPEAT_HANDS = ((35, 44, 43), (49, 23, 34))
REPEAT_PILE = (37, 10, 12)
REPEAT_MOVES = ["JH/6S", "QS/QD", "pickup", "pickup", "pickup", "QC", "KH/7S", "pickup", "QS", "pickup", "QD",
                "QS/KH", "pickup", "TH", "KH/QS", "pickup", "6S", "7S/KH", "pickup", "QS", "KH/7S"]


def repeat_position() -> Position:
    pos = Position(rules=RuleSet(sixes=False), trumps=(2, 3),
                   hands=[mask_of(REPEAT_HANDS[0]), mask_of(REPEAT_HANDS[1])], pile=REPEAT_PILE, to_move=0)
    for code in REPEAT_MOVES:
        pos.push(Move.parse(code))
    return pos


def test_repeating_moves_are_exactly_those_that_draw() -> None:
    pos = repeat_position()
    assert repeating_moves(pos) == {Move.pick_up()}
    probe = pos.copy()
    probe.push(Move.pick_up())
    assert probe.outcome == Outcome(None, "repetition")
    assert repeating_moves(position(*BEAT_POS)) == frozenset()


def test_a_forced_pick_up_that_repeats_a_position_is_named_not_asked() -> None:
    """The only legal move is said to draw, and played without "Play it?"."""
    pos = repeat_position()
    assert pos.legal_moves() == [Move.pick_up()]
    seat = pos.to_move

    def setup(table: TableApp) -> None:
        table.set_players(("Tess", "AI greedy"), seat)
        table.show_event(DealStarted(1, 1, pos.copy()))
        table.begin_turn(pos.copy(), seat)

    async def script(t: Table) -> None:
        s = t.table.state
        assert (s.message, s.message_kind) == (
            "Your only move: picking up repeats a position a third time: the deal is drawn.", "hint")
        await t.keys("p", lambda: bool(t.sent), "the pick-up")
        assert s.confirm is None

    assert run_table(setup, script).sent == [Move.pick_up()]


#: A deal (seed: random.Random(10)'s first 32 bytes; trumps C D; seat 0 deals; repetition 2, voluntary
#: pick-up) whose last position has a choice (221 moves), and picking up draws by repetition.
CHOICE_MOVES = ("7S pickup TH pickup 6S pickup QD pickup QS 9C/6S 9S/8D pickup pickup AC pickup QD pickup TD "
                "pickup 9S pickup 6S pickup AS pickup TS pickup JD QD/JS pickup QS pickup JC pickup TS pickup AD "
                "pickup TD 7C/AH pickup KC pickup JD pickup KH pickup AD pickup KS pickup 7D pickup 9D pickup 7S "
                "9D/9C JC/QD AD/JH pickup pickup JS/QD pickup TC pickup 9H pickup TH QD/8C pickup 6D QD/8C")


def test_a_chosen_move_that_repeats_a_position_is_named_and_confirmed() -> None:
    import random

    from p2ptrumps.shuffle import deal_hands

    rules = RuleSet(repetition=2, voluntary_pickup=True)
    rng = random.Random(10)
    seed = bytes(rng.getrandbits(8) for _ in range(32))
    pos = Position.start(rules, (0, 1), deal_hands(seed, rules, (0, 1), 0), 0)
    for code in CHOICE_MOVES.split():
        pos.push(Move.parse(code))
    assert len(pos.legal_moves()) == 221 and repeating_moves(pos) == {Move.pick_up()}
    seat = pos.to_move

    def setup(table: TableApp) -> None:
        table.set_players(("Tess", "AI greedy"), seat)
        table.show_event(DealStarted(1, 0, pos.copy()))
        table.begin_turn(pos.copy(), seat)

    async def script(t: Table) -> None:
        s = t.table.state
        assert (s.message, s.message_kind) == ("picking up repeats a position a second time: the deal is drawn", "hint")
        await t.keys("p", lambda: s.confirm is not None, "the question")
        assert s.confirm is not None
        assert s.confirm.question == "Picking up repeats a position a second time: the deal is drawn. Play it?"
        await t.keys("n", lambda: s.confirm is None, "the question answered no")
        assert t.sent == [] and s.mode == Mode.TURN
        await t.keys("p", lambda: s.confirm is not None, "the question again")
        await t.keys("y", lambda: bool(t.sent), "the pick-up")

    assert run_table(setup, script).sent == [Move.pick_up()]


def test_my_own_pick_up_says_how_many_cards() -> None:
    table = TableApp()
    pos = position("6S 7S", "8D QH", "8C 10C JD 9D")
    table.set_players(("Tess", "AI"), 0)
    table.show_event(DealStarted(1, 1, pos.copy()))
    before = pos.copy()
    pos.push(Move.pick_up())
    table.state.position = before
    table.show_event(MovePlayed(0, Move.pick_up(), pos.copy()))
    assert table.state.message == "You picked up 3 cards (now 5 in hand)."
    assert table.state.history[-1].picked == 3
    # The reply that follows keeps it said, then it is gone.
    after = pos.copy()
    pos.push(Move.beat(c("8D"), c("QH")))
    table.state.position = after
    table.show_event(MovePlayed(1, Move.beat(c("8D"), c("QH")), pos.copy()))
    assert table.state.message == "You picked up 3 cards (now 5 in hand). AI: beat 8♦, second Q♥"
    table.show_event(MovePlayed(1, Move.lead(c("8C")), pos.copy()))
    assert table.state.message == "AI: lead 8♣"


@pytest.mark.parametrize(("key", "suit"), [("ы", 3), ("р", 2), ("п", 3), ("Ч", 2), ("б", 1), ("т", 0), ("с", 0)])
def test_trump_choice_by_russian_key_position_or_letter(key: str, suit: int) -> None:
    from p2ptrumps.ui.app import ChooseTrump

    async def script(t: Table) -> None:
        await t.keys(key, lambda: t.table.state.message_kind == "hint", f"the mark by {key!r}")
        assert t.sent == [] and t.table.state.trump_choice == suit
        await t.keys(ENTER, lambda: bool(t.sent), "the choice by Enter")

    assert run_table(lambda table: table.ask_trump(None), script).sent == [ChooseTrump(suit)]


def test_on_the_networked_trump_screen_a_reach_for_chat_chooses_no_trump() -> None:
    """The trump screen replaces the waiting screen by itself; ``c`` opened chat on the one and chose
    clubs on the other.  Now chat is ``t`` on every screen (the trump screen too) and a suit key only
    marks a suit: the chat line typed there goes out as chat, and only Enter chooses."""
    from p2ptrumps.ui.app import ChatSend, ChooseTrump

    seen: dict[str, object] = {}

    async def script(t: Table) -> None:
        s = t.table.state
        seen["keys"] = t.table._keys_items()
        await t.keys("c", lambda: s.message_kind == "hint", "the mark of clubs")
        seen["after c"] = (list(t.sent), s.mode, s.trump_choice, s.message)
        await t.keys("t", lambda: s.prompt_kind == "chat", "the chat prompt")
        await t.keys("hi, good luck" + ENTER, lambda: bool(t.sent), "the chat line sent")
        seen["after chat"] = (list(t.sent), s.mode, s.trump_choice)
        await t.keys(" ", lambda: s.message_kind == "hint" and "does nothing" in s.message, "Space refused")
        seen["space"] = s.message
        assert t.sent == [ChatSend("hi, good luck")]
        await t.keys("s" + ENTER, lambda: len(t.sent) == 2, "the choice")

    t = run_table(lambda table: table.ask_trump(None), script,
                  UIOptions(allow_chat=True, waiting_text="Waiting for {name}…"))
    assert seen["keys"] == ["↑↓ or c d h s mark", "Enter choose", "t chat", "q quit"]
    assert seen["after c"] == ([], Mode.TRUMP, 0, "♣ clubs marked: Enter chooses it as your trump")
    assert seen["after chat"] == ([ChatSend("hi, good luck")], Mode.TRUMP, 0)
    assert seen["space"] == "Space does nothing here: mark a suit with c d h s or the arrows, then press Enter; q quits"
    assert t.sent == [ChatSend("hi, good luck"), ChooseTrump(3)]


def test_offline_trump_screen_marks_with_the_same_keys_and_chat_is_nowhere() -> None:
    from p2ptrumps.ui.app import ChooseTrump

    seen: dict[str, object] = {}

    async def script(t: Table) -> None:
        s = t.table.state
        seen["keys"] = t.table._keys_items()
        await t.keys("t", lambda: "does nothing" in s.message, "t refused")
        seen["t"] = s.message
        await t.keys("2", lambda: s.trump_choice == 1, "the mark of diamonds")
        seen["2"] = s.message
        await t.keys(ENTER, lambda: bool(t.sent), "the choice")

    t = run_table(lambda table: table.ask_trump(3), script)
    assert seen["keys"] == ["↑↓ or c d h s mark", "Enter choose", "q quit"]
    assert seen["t"] == "'t' does nothing here: mark a suit with c d h s or the arrows, then press Enter; q quits"
    assert seen["2"] == "♦ diamonds marked: Enter chooses it as your trump"
    assert t.sent == [ChooseTrump(1)]


def test_while_the_opponents_draw_offer_waits_the_status_line_asks_us() -> None:
    """The opponent offered a draw on its turn: the status line said "AI is thinking…" under the
    question that waited for us; now it asks for the answer, and says whose move it is once answered."""
    table = TableApp(output=_Screen(80))
    pos = position(*BEAT_POS)
    pos.to_move = 1
    table.set_players(("Tess", "AI"), 0)
    table.show_event(DealStarted(1, 1, pos.copy()))
    assert table.status_view().expect == "AI is thinking…"
    table.ask_draw()
    assert table.status_view().expect == "Answer the question above: y or n."
    table.answer_confirm(False)
    assert table.status_view().expect == "AI is thinking…"


def test_keys_that_do_nothing_are_named_as_people_call_them() -> None:
    """Tab said "Ctrl-I does nothing here", Backspace "Ctrl-H", PageUp "Pageup"."""
    from p2ptrumps.ui.keys import key_name

    assert [key_name(k) for k in ("c-i", "c-h", "pageup", "pagedown", "s-tab", "c-z", "f1", "x", "escape")] == [
        "Tab", "Backspace", "PgUp", "PgDn", "Shift-Tab", "Ctrl-Z", "F1", "'x'", "Esc"]


def test_the_second_trump_chooser_reads_that_its_turn_came() -> None:
    """The guest's message line said "Hana is choosing a trump; you choose yours next" on its own
    trump screen, after Hana had chosen; now it says what Hana chose and that it is the guest's turn."""
    table = TableApp(output=_Screen(80))
    table.set_players(("Hana", "Tess"), 1)
    table.show_message("Hana is choosing a trump; you choose yours next")
    table.ask_trump(3)
    assert table.state.message == "Hana chose ♠: now choose yours."
    ascii_table = TableApp(UIOptions(ascii_only=True), output=_Screen(80))
    ascii_table.set_players(("Hana", "Tess"), 1)
    ascii_table.ask_trump(0)
    assert ascii_table.state.message == "Hana chose C: now choose yours."


def test_at_60_columns_the_opponents_last_move_keeps_its_own_line() -> None:
    table = TableApp(output=_Screen(60, 20))
    pos = position("6S 7H KC AS 9D", "8D QH 7S 9C", "8C JD 6H TS 7C")
    pos.to_move = 1
    table.set_players(("Tess", "AI greedy"), 0)
    table.show_event(DealStarted(1, 0, pos.copy()))
    before = pos.copy()
    pos.push(Move.beat(c("9C"), c("8D")))
    table.state.position = before
    table.show_event(MovePlayed(1, Move.beat(c("9C"), c("8D")), pos.copy()))
    table.show_message("9♦ does not beat 8♦", "error")  # a later error on the message line
    screen = plain(table._render_body(60, 16))
    assert screen[6] == " Last move of AI greedy: beat 9♣, second 8♦"
    assert not any("│ Moves" in line for line in screen)
    wide = plain(table._render_body(80, 16))
    assert not any("Last move of" in line for line in wide) and wide[0].endswith("│ Moves")


def test_the_deal_over_screen_keeps_the_moves() -> None:
    table = TableApp(output=_Screen(80, 24))
    pos = Position(rules=RuleSet(deals=2), trumps=(2, 1), hands=[m("AS"), m("8D QH")], pile=(c("9S"),), to_move=0)
    table.set_players(("Tess", "AI greedy"), 0)
    table.show_event(DealStarted(1, 1, pos.copy()))
    before = pos.copy()
    pos.push(Move.beat(c("AS")))
    table.state.position = before
    table.show_event(MovePlayed(0, Move.beat(c("AS")), pos.copy()))
    assert pos.outcome == Outcome(0, "out")
    event = DealEnded(1, pos.outcome, pos.copy(), (2, 0))
    table.show_event(event)
    table.show_end(event)
    assert table.state.mode == Mode.DEAL_END
    wide = plain(table._render_body(80, 20))
    assert wide[0] == " Svoi Kozyri   Deal 1 of 2 over                         │ Moves"
    assert wide[1].endswith("│   1 Tess  beat A♠")
    narrow = plain(table._render_body(60, 20))
    assert narrow[4] == " Last move of Tess: beat A♠ (last card)"
    view = table.table_view()
    assert view is not None and view.to_move is None  # no turn marker once the deal is over


def test_help_r_opens_the_rule_book_inside_the_table() -> None:
    async def script(t: Table) -> None:
        s = t.table.state
        await t.keys("?", lambda: s.help_open, "the help")
        await t.keys("r", lambda: s.rules_top == 0, "the rule book")
        screen = plain(t.table._render_body(80, 20))
        assert screen[0] == " The rules of Svoi Kozyri (RULES.md)"
        assert screen[1] == " # Your own trumps — the duel (rules of record)"
        assert t.table.status_view().keys.startswith("↑↓ PgUp PgDn scroll")
        await t.keys("j", lambda: s.rules_top == 1, "one line down")
        await t.keys("\x1b[F", lambda: (s.rules_top or 0) > 50, "the end")  # End
        top, message = s.rules_top, s.message
        await t.keys("pk", lambda: s.rules_top == (top or 0) - 1, "k scrolls up; p did nothing")
        assert s.message == message  # no pick-up, no hint
        await t.keys("q", lambda: s.rules_top is None, "back to the table")
        assert s.confirm is None and s.mode == Mode.TURN

    assert run_table(my_turn(*PICK_POS), script).sent == []


# ----- replay keys ----------------------------------------------------------------------------


def test_replay_keys_by_position_and_unknown_keys() -> None:
    from pathlib import Path

    sample = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "record-sample.json"

    async def main() -> ReplayViewer:
        with create_pipe_input() as inp:
            viewer = ReplayViewer(load_any(sample), input=inp, output=DummyOutput())
            viewer.application.ttimeoutlen = 0.01
            task = asyncio.ensure_future(viewer.application.run_async())
            loop = asyncio.get_running_loop()

            async def until(pred: Callable[[], bool]) -> None:
                deadline = loop.time() + 10
                while not pred():
                    assert loop.time() < deadline
                    await asyncio.sleep(0.005)

            inp.send_text("т")  # n: next move
            await until(lambda: viewer.step_index == 1)
            inp.send_text("Ъ")  # }: does nothing
            await until(lambda: viewer.note != "")
            assert viewer.note == "'Ъ' does nothing here: → next move, ← back, ] next deal, q quits"
            inp.send_text("ъ")  # ]: next deal
            await until(lambda: viewer.deal_index == 1)
            inp.send_text("й")  # q
            await asyncio.wait_for(task, 10)
            return viewer

    viewer = asyncio.run(main())
    assert (viewer.deal_index, viewer.step_index) == (1, 0)


def test_replay_text_of_a_networked_log_names_host_and_guest(tmp_path: object) -> None:
    from pathlib import Path

    from p2ptrumps.commands.replay import load_match_log, started_from_name
    from p2ptrumps.ui.replay import replay_text

    vectors = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "wire"
    log = vectors / "valid-host.log"
    record = load_match_log(log, log.read_bytes())
    assert isinstance(record, MatchRecord)
    lines = replay_text(record)
    assert lines[0] == "p2ptrumps match (network), start time not recorded"
    assert lines[2].startswith(f"seat 0: {record.players[0].name} (host, fingerprint ")
    assert lines[3].startswith(f"seat 1: {record.players[1].name} (guest, fingerprint ")
    assert started_from_name(Path("2026-11-29_1805_guest_vs-Hana.p2plog")).startswith("2026-11-")
    assert started_from_name(Path("2026-13-29_1805_guest_vs-Hana.p2plog")) == ""
    assert started_from_name(Path("mine.p2plog")) == ""
    assert PlayerInfo("x", "remote").kind == "remote"  # the record keeps the protocol's kind


def test_a_long_question_wraps_inside_the_terminal() -> None:
    table = TableApp(UIOptions(quit_question="Leave? You resign the rest of the match (signed); its log is kept "
                                             "and verifies as complete."), output=_Screen(60, 20))
    pos = position(*BEAT_POS)
    table.show_event(DealStarted(1, 1, pos))
    table.begin_turn(pos.copy(), 0)
    table.ask_quit()
    lines = table.overlay_lines()
    assert max(len(line) for line in lines) <= 60
    assert lines[1:4] == [
        "│ Leave? You resign the rest of the match (signed); its │",
        "│ log is kept and verifies as complete.                 │",
        "│                                                       │",
    ]


def test_pasted_colour_codes_are_not_taken_for_a_mouse_report() -> None:
    """``ESC [ 3 1 m`` (pasted coloured text) looks like a mouse report to the key parser; the table
    ignores it (the mouse is not used) instead of failing with a traceback over the screen."""

    async def script(t: Table) -> None:
        s = t.table.state
        await t.keys("\x1b[31m\x1b[0m", lambda: True, "the pasted codes")
        await t.keys("x", lambda: s.message.startswith("'x'"), "a hint: the table still answers")

    assert run_table(my_turn(*BEAT_POS), script).sent == []


@pytest.mark.parametrize(("where", "question"), [
    ("trump", "Leave the match? That resigns it: every deal of the match counts for Bob, signed (the match log "
              "is kept)."),
    ("turn", "Leave the match? That resigns it: this deal and every deal not yet played count for Bob, signed "
             "(the match log is kept)."),
])
def test_on_a_networked_table_q_says_that_leaving_resigns_the_match_also_on_the_trump_screen(
        where: str, question: str) -> None:
    """The trump screen asked "Quit the game?" and then resigned the whole match: a networked table
    (``leave_resigns``) says what leaving resigns in every mode, before it does it."""
    table = TableApp(UIOptions(leave_resigns=True), output=_Screen(100, 30))
    table.set_players(("Ann", "Bob"), 0)
    if where == "trump":
        table.ask_trump()
    else:
        pos = position(*BEAT_POS)
        table.show_event(DealStarted(1, 1, pos))
        table.begin_turn(pos.copy(), 0)
    table.ask_quit()
    assert table.state.confirm is not None and table.state.confirm.question == question
