"""The play UI driven through prompt_toolkit's pipe input with a dummy output.

Each test runs ``PlaySession`` (the real app, the trio guest run, the real AI
at level ``random``) on an asyncio loop, types keys, and asserts on the game
state and the saved record.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2ptrumps.ai import choose_trump
from p2ptrumps.cards import Card, cards_in
from p2ptrumps.record import MatchRecord
from p2ptrumps.rules import BEAT, NO_CARD, PICK_UP, IllegalMoveError, Move, Position, RuleSet
from p2ptrumps.shuffle import deal_hands, first_dealer
from p2ptrumps.ui.app import DrawAnswer, Intent, Mode, QuitResult, TableApp, UIOptions
from p2ptrumps.ui.play import PlayConfig, PlaySession, deal_seed, record_name
from p2ptrumps.ui.view import hand_order

RIGHT = "\x1b[C"
ENTER = "\r"
CTRL_C = "\x03"
CTRL_U = "\x15"

Script = Callable[[PlaySession, PipeInput], Awaitable[None]]


def seed_where_elder_is(seat: int) -> int:
    """The first --seed whose first deal is led by ``seat`` (dealt by the other)."""
    return next(s for s in range(100) if first_dealer(deal_seed(s, 1)) == 1 - seat)


HUMAN_LEADS = seed_where_elder_is(0)
AI_LEADS = seed_where_elder_is(1)


def config(tmp_path: Path, seed: int, trump: int | None = 2, deals: int = 1) -> PlayConfig:
    return PlayConfig(rules=RuleSet(deals=deals), level="random", think_s=0.05, seed=seed, trump=trump,
                      name="Tess", ascii_only=False, color=False, record_path=tmp_path / "rec.json")


async def wait_until(pred: Callable[[], bool], what: str) -> None:
    """Poll ``pred`` until true; fail (naming ``what``) if the UI never gets there."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20
    while not pred():
        if loop.time() > deadline:
            raise AssertionError(f"the UI never reached: {what}")
        await asyncio.sleep(0.005)


def run_play(cfg: PlayConfig, script: Script) -> tuple[PlaySession, QuitResult]:
    async def main() -> tuple[PlaySession, QuitResult]:
        with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
            session = PlaySession(cfg, input=inp, output=DummyOutput())
            session.table.application.ttimeoutlen = 0.01  # a lone Esc is not the start of a sequence
            task = asyncio.ensure_future(session.run())
            try:
                await script(session, inp)
                result = await asyncio.wait_for(task, 20)
            finally:
                if not task.done():
                    session.table.exit(QuitResult.QUIT)
                    await task
            return session, result

    return asyncio.run(main())


def my_turn(session: PlaySession) -> Callable[[], bool]:
    return lambda: session.table.state.mode == Mode.TURN


def position(session: PlaySession) -> Position:
    pos = session.table.state.position
    assert pos is not None
    return pos


async def quit_game(inp: PipeInput) -> None:
    inp.send_text("q")
    await asyncio.sleep(0)
    inp.send_text("y")


def saved(cfg: PlayConfig) -> MatchRecord:
    return MatchRecord.load(cfg.record_path)


# ----- trump choice and the deal ---------------------------------------------------------


def test_trump_choice_by_key_then_quit_leaves_an_unfinished_record(tmp_path: Path) -> None:
    cfg = config(tmp_path, AI_LEADS, trump=None)

    async def script(session: PlaySession, inp: PipeInput) -> None:
        await wait_until(lambda: session.table.state.mode == Mode.TRUMP, "the trump screen")
        inp.send_text("s" + ENTER)  # spades
        await wait_until(my_turn(session), "my first turn")
        await quit_game(inp)

    session, result = run_play(cfg, script)
    assert result == QuitResult.QUIT
    rec = saved(cfg)
    ai_trump = choose_trump(3, random.Random(AI_LEADS))
    assert rec.trumps == (3, ai_trump)
    assert [p.name for p in rec.players] == ["Tess", "AI random"]
    seed = deal_seed(AI_LEADS, 1)
    deal = rec.deals[0]
    assert (deal.seed, deal.dealer) == (seed, 0)
    assert deal.hands == deal_hands(seed, rec.rules, rec.trumps, 0)
    assert len(deal.moves) == 1  # the AI led; I quit on my turn
    assert deal.outcome is None
    assert position(session).hands == [deal.hands[0], deal.hands[1] & ~(1 << deal.moves[0].card)]


def test_lead_by_arrow_and_enter(tmp_path: Path) -> None:
    cfg = config(tmp_path, HUMAN_LEADS)

    async def script(session: PlaySession, inp: PipeInput) -> None:
        await wait_until(my_turn(session), "my lead")
        order = hand_order(position(session).hands[0], 2)
        assert session.table.state.selected == order[0]
        inp.send_text(RIGHT + ENTER)
        await wait_until(lambda: len(session.table.state.history) >= 2 or position(session).is_over, "the reply")
        assert session.table.state.history[0].move == Move.lead(order[1])
        await quit_game(inp)

    run_play(cfg, script)
    rec = saved(cfg)
    start = deal_hands(deal_seed(HUMAN_LEADS, 1), rec.rules, rec.trumps, 1)
    assert rec.deals[0].moves[0] == Move.lead(hand_order(start[0], 2)[1])


def _first_pile_turn(session: PlaySession) -> Position:
    pos = position(session)
    assert pos.pile, "the AI leads first in this seed"
    return pos


def test_illegal_card_says_why_and_beat_then_second_card(tmp_path: Path) -> None:
    cfg = config(tmp_path, AI_LEADS)

    async def script(session: PlaySession, inp: PipeInput) -> None:
        await wait_until(my_turn(session), "my first turn")
        pos = _first_pile_turn(session)
        hand = pos.hands[0]
        beaters = pos.beating_cards(0)
        non_beaters = hand & ~beaters
        assert beaters and non_beaters, "this seed gives me both kinds of card"
        table = session.table
        bad = next(iter(cards_in(non_beaters)))
        table.state.selected = bad
        inp.send_text(ENTER)
        other = next(iter(cards_in(hand & ~(1 << bad))))
        with pytest.raises(IllegalMoveError) as err:
            pos.check(Move.beat(bad, other))
        await wait_until(lambda: table.state.message == str(err.value), "the reason on the message line")
        assert table.state.message.startswith(f"{Card(bad).label()} does not beat ")
        assert table.state.message_kind == "error"
        assert table.state.mode == Mode.TURN
        b = next(iter(cards_in(beaters)))
        table.state.selected = b
        inp.send_text(ENTER)
        await wait_until(lambda: table.state.mode == Mode.SECOND, "the second-card step")
        assert table.state.pending_beat == b
        second = next(iter(cards_in(hand & ~(1 << b))))
        table.state.selected = second
        inp.send_text(ENTER)
        await wait_until(lambda: len(table.state.history) >= 2, "my beat")
        assert table.state.history[1].move == Move.beat(b, second)
        await quit_game(inp)

    run_play(cfg, script)
    moves = saved(cfg).deals[0].moves
    assert len(moves) >= 2 and moves[1].kind == BEAT


def test_escape_takes_back_the_beating_card(tmp_path: Path) -> None:
    # Seed chosen so that I can beat the AI's lead (checked below).
    cfg = config(tmp_path, AI_LEADS)

    async def script(session: PlaySession, inp: PipeInput) -> None:
        await wait_until(my_turn(session), "my first turn")
        pos = position(session)
        beaters = pos.beating_cards(0)
        assert beaters, "this seed must give me a beating card"
        b = next(iter(cards_in(beaters)))
        session.table.state.selected = b
        inp.send_text(ENTER)
        await wait_until(lambda: session.table.state.mode == Mode.SECOND, "the second-card step")
        inp.send_text("\x1b")
        await wait_until(lambda: session.table.state.mode == Mode.TURN, "back to the beat")
        assert session.table.state.pending_beat is None
        assert session.table.state.selected == b
        await quit_game(inp)

    run_play(cfg, script)
    assert len(saved(cfg).deals[0].moves) == 1


def test_typing_one_beating_card_asks_for_the_second(tmp_path: Path) -> None:
    cfg = config(tmp_path, AI_LEADS)
    played: list[Move] = []

    async def script(session: PlaySession, inp: PipeInput) -> None:
        table = session.table
        await wait_until(my_turn(session), "my first turn")
        pos = position(session)
        b = next(iter(cards_in(pos.beating_cards(0))))
        second = next(c for c in cards_in(pos.hands[0]) if c != b)
        inp.send_text(":" + Card(b).code.lower() + ENTER)
        await wait_until(lambda: table.state.mode == Mode.SECOND, "the second-card step")
        assert table.state.pending_beat == b
        assert table.state.prompt_kind == "move" and table.prompt_buffer.text == ""
        inp.send_text(Card(second).code + ENTER)
        await wait_until(lambda: len(table.state.history) >= 2, "my typed beat")
        played.append(Move.beat(b, second))
        assert table.state.history[1].move == played[0]
        await quit_game(inp)

    run_play(cfg, script)
    assert saved(cfg).deals[0].moves[1] == played[0]


def test_typed_garbage_is_reported_then_a_typed_move_plays(tmp_path: Path) -> None:
    cfg = config(tmp_path, HUMAN_LEADS)

    async def script(session: PlaySession, inp: PipeInput) -> None:
        table = session.table
        await wait_until(my_turn(session), "my lead")
        inp.send_text(":zz" + ENTER)
        await wait_until(lambda: table.state.message_kind == "error", "the parse error")
        assert table.state.message == "'zz' is not a card: 'z' is not a suit (use C D H S or ♣ ♦ ♥ ♠)"
        # The bad text is cleared (the message names it), so typing starts afresh.
        assert table.state.prompt_kind == "move" and table.prompt_buffer.text == ""
        inp.send_text(":10x" + ENTER)  # a ':' typed again in the prompt is ignored
        await wait_until(lambda: "10x" in table.state.message, "the second parse error")
        card = Card(hand_order(position(session).hands[0], 2)[-1])
        inp.send_text(CTRL_U + card.label(ascii_only=True).lower() + ENTER)
        await wait_until(lambda: len(table.state.history) >= 1, "my typed lead")
        assert table.state.history[0].move == Move.lead(card)
        assert table.state.prompt_kind is None
        await quit_game(inp)

    run_play(cfg, script)
    assert saved(cfg).deals[0].moves[0].code == Card(
        hand_order(deal_hands(deal_seed(HUMAN_LEADS, 1), RuleSet(), (2, choose_trump(2, random.Random(HUMAN_LEADS))),
                              1)[0], 2)[-1]).code


def test_completion_offers_legal_plays_only(tmp_path: Path) -> None:
    cfg = config(tmp_path, AI_LEADS)

    async def script(session: PlaySession, inp: PipeInput) -> None:
        table = session.table
        await wait_until(my_turn(session), "my first turn")
        pos = position(session)
        legal = pos.legal_moves()
        inp.send_text(":")
        await wait_until(lambda: table.state.prompt_kind == "move", "the prompt")
        from prompt_toolkit.completion import CompleteEvent
        from prompt_toolkit.document import Document

        completer = table.prompt_buffer.completer
        assert completer is not None
        firsts = {c.text for c in completer.get_completions(Document(""), CompleteEvent())}
        want = {Card(m.card).label() for m in legal if m.kind == BEAT}  # 8♣ as on the table, not 8C
        if any(m.kind == PICK_UP for m in legal):
            want.add("p")
        assert firsts == want
        beat = next((m for m in legal if m.kind == BEAT and m.second >= 0), None)
        if beat is not None:
            typed = Card(beat.card).code.lower() + " "
            seconds = {c.text for c in completer.get_completions(Document(typed), CompleteEvent())}
            assert seconds == {Card(m.second).label() for m in legal
                               if m.kind == BEAT and m.card == beat.card}
            assert all(not s.isascii() for s in seconds)
            # A typed suit letter still completes, to the card as shown.
            code = Card(beat.second).code
            assert Card(beat.second).label() in {
                c.text for c in completer.get_completions(Document(typed + code), CompleteEvent())}
        inp.send_text("\x1b")
        await wait_until(lambda: table.state.prompt_kind is None, "the prompt to close")
        await quit_game(inp)

    run_play(cfg, script)


def test_pick_up_when_a_card_beats_is_refused(tmp_path: Path) -> None:
    cfg = config(tmp_path, AI_LEADS)

    async def script(session: PlaySession, inp: PipeInput) -> None:
        await wait_until(my_turn(session), "my first turn")
        pos = position(session)
        assert pos.beating_cards(0), "this seed gives me a beating card"
        inp.send_text("p")
        await wait_until(lambda: session.table.state.message_kind == "error", "the refusal")
        assert session.table.state.message.startswith(f"you must beat {Card(pos.pile[-1]).label()} when you can")
        assert len(session.table.state.history) == 1
        await quit_game(inp)

    run_play(cfg, script)


def test_undo_takes_back_my_move_and_the_reply(tmp_path: Path) -> None:
    cfg = config(tmp_path, HUMAN_LEADS)

    async def script(session: PlaySession, inp: PipeInput) -> None:
        table = session.table
        await wait_until(my_turn(session), "my lead")
        start = list(position(session).hands)
        inp.send_text(ENTER)
        await wait_until(lambda: len(table.state.history) == 2 and table.state.mode == Mode.TURN, "the reply")
        inp.send_text("u")
        await wait_until(lambda: not table.state.history and table.state.mode == Mode.TURN, "the undo")
        assert position(session).hands == start
        assert position(session).pile == ()
        assert table.state.message == "Took back 2 moves."
        await quit_game(inp)

    run_play(cfg, script)
    assert saved(cfg).deals[0].moves == []


def test_hint_shows_a_legal_move(tmp_path: Path) -> None:
    cfg = config(tmp_path, AI_LEADS)

    async def script(session: PlaySession, inp: PipeInput) -> None:
        table = session.table
        await wait_until(my_turn(session), "my first turn")
        pos = position(session)
        inp.send_text("i")
        await wait_until(lambda: table.state.message.startswith("Hint: "), "the hint")
        labels = {m.label() for m in pos.legal_moves()}
        assert table.state.message.removeprefix("Hint: ") in labels
        await quit_game(inp)

    run_play(cfg, script)


def test_resign_needs_confirmation_and_ends_the_deal(tmp_path: Path) -> None:
    cfg = config(tmp_path, HUMAN_LEADS)

    async def script(session: PlaySession, inp: PipeInput) -> None:
        table = session.table
        await wait_until(my_turn(session), "my lead")
        inp.send_text("R")
        await wait_until(lambda: table.state.confirm is not None, "the question")
        inp.send_text("n")
        await wait_until(lambda: table.state.confirm is None, "the answer")
        assert table.state.mode == Mode.TURN
        inp.send_text("Ry")
        await wait_until(lambda: table.state.mode == Mode.MATCH_END, "the end of the match")
        assert table.state.end is not None
        assert table.state.end.title == "You lost the match. Last deal: you resigned; AI random won"
        assert table.state.end.record_path == str(cfg.record_path)
        inp.send_text(ENTER)

    _, result = run_play(cfg, script)
    assert result == QuitResult.FINISHED
    rec = saved(cfg)
    assert rec.deals[0].outcome is not None
    assert (rec.deals[0].outcome.winner, rec.deals[0].outcome.reason) == (1, "resign")
    assert rec.score_halves() == (0, 2)
    assert rec.finished


def test_help_and_quit_confirmation(tmp_path: Path) -> None:
    cfg = config(tmp_path, HUMAN_LEADS)

    async def script(session: PlaySession, inp: PipeInput) -> None:
        table = session.table
        await wait_until(my_turn(session), "my lead")
        inp.send_text("?")
        await wait_until(lambda: table.state.help_open, "the help")
        inp.send_text("x")
        await wait_until(lambda: not table.state.help_open, "the help to close")
        inp.send_text(CTRL_C)
        await wait_until(lambda: table.state.confirm is not None, "the quit question")
        inp.send_text("n")
        await wait_until(lambda: table.state.confirm is None, "the answer")
        assert table.state.mode == Mode.TURN
        inp.send_text("o")
        await wait_until(lambda: table.state.show_opponent, "the opponent's hand")
        await quit_game(inp)

    session, result = run_play(cfg, script)
    assert result == QuitResult.QUIT
    # No move was made: no record file.
    assert session.record is None and session.saved == [] and list(tmp_path.iterdir()) == []


# ----- a whole deal, end to end -------------------------------------------------------------


def typed_text(move: Move) -> str:
    """``move`` as the person types it at the ``:`` prompt."""
    if move.kind == PICK_UP:
        return "p"
    if move.kind == BEAT and move.second >= 0:
        return f"{Card(move.card).code} {Card(move.second).label(ascii_only=True).lower()}"
    return Card(move.card).label(ascii_only=True)


def test_a_whole_match_of_two_deals_through_the_ui(tmp_path: Path) -> None:
    cfg = config(tmp_path, 7, deals=2)
    typed: list[Move] = []

    async def script(session: PlaySession, inp: PipeInput) -> None:
        table = session.table
        rng = random.Random(5)

        def landed(n: int) -> Callable[[], bool]:
            return lambda: len(table.state.history) > n or table.state.mode != Mode.TURN
        for deal in (1, 2):
            while True:
                await wait_until(
                    lambda: table.state.mode in (Mode.TURN, Mode.DEAL_END, Mode.MATCH_END), f"my turn in deal {deal}")
                if table.state.mode != Mode.TURN:
                    break
                pos = position(session)
                move = rng.choice(pos.legal_moves())
                n = len(table.state.history)
                inp.send_text(":" + typed_text(move) + ENTER)
                typed.append(move)
                await wait_until(landed(n), "my move to land")
            if deal == 1:
                assert table.state.mode == Mode.DEAL_END
                assert table.state.end is not None and table.state.end.score_halves == table.state.score_halves
                inp.send_text(ENTER)
                await wait_until(lambda: table.state.deal_number == 2, "the second deal")
        assert table.state.mode == Mode.MATCH_END
        inp.send_text(ENTER)

    session, result = run_play(cfg, script)
    assert result == QuitResult.FINISHED
    rec = saved(cfg)
    assert rec.finished and len(rec.deals) == 2
    mine: list[Move] = []
    for deal in rec.deals:
        assert deal.seed == deal_seed(7, deal.number)
        last: Position | None = None
        for move, pos in rec.replay_deal(deal):  # validates every move
            if move is not None and last is not None and last.to_move == 0:
                mine.append(move)
            last = pos
        assert last is not None and last.outcome == deal.outcome
    assert mine == typed
    assert rec.deals[1].dealer == (1 - rec.deals[0].outcome.winner if rec.deals[0].outcome and
                                   rec.deals[0].outcome.winner is not None else 1 - rec.deals[0].dealer)
    assert session.table.state.score_halves == rec.score_halves()


# ----- come back to a game: play again, --continue ------------------------------------------


def test_play_again_starts_a_new_match_with_the_same_level_and_rules(tmp_path: Path) -> None:
    cfg = config(tmp_path, HUMAN_LEADS)

    async def script(session: PlaySession, inp: PipeInput) -> None:
        table = session.table
        await wait_until(my_turn(session), "my lead")
        inp.send_text("Ry")
        await wait_until(lambda: table.state.mode == Mode.MATCH_END, "the end of the match")
        assert table.status_view(100).keys.startswith("a play again  Enter leave")
        first_hands = position(session).hands
        inp.send_text("a")
        await wait_until(lambda: table.state.mode in (Mode.TURN, Mode.WAIT) and table.state.end is None,
                         "the new match")
        assert table.state.score_halves == (0, 0) and table.state.deal_number == 1
        assert position(session).hands != first_hands
        await wait_until(my_turn(session), "my turn in the new match")
        inp.send_text("Ry")
        await wait_until(lambda: table.state.mode == Mode.MATCH_END, "the end of the second match")
        assert table.state.end is not None and table.state.end.record_path == str(session.saved[1])
        inp.send_text(ENTER)

    session, result = run_play(cfg, script)
    assert result == QuitResult.FINISHED
    assert session.saved[0] == cfg.record_path and len(session.saved) == 2
    assert session.saved[1].parent == tmp_path and session.saved[1].name.endswith("_vs-random.json")
    first, second = (MatchRecord.load(p) for p in session.saved)
    assert first.finished and second.finished
    assert second.rules == first.rules and second.trumps == first.trumps and second.players == first.players
    assert first.deals[0].seed == deal_seed(HUMAN_LEADS, 1)
    assert second.deals[0].seed == deal_seed(HUMAN_LEADS, 1, match=2) != first.deals[0].seed


def test_after_play_again_the_closing_score_counts_every_match_of_the_session(tmp_path: Path) -> None:
    """Four matches from a position Tess wins in 2: won (she plays it out), drawn (the AI, lost, accepts
    her draw offer), lost (she resigns), and one left at once (no move: no record).  The closing
    "Score:" said "Tess 0 : 0 AI random (unfinished)", the last match only; it now sums the session's
    matches and lists each."""
    from p2ptrumps.notation import parse_position
    from p2ptrumps.ui.play import score_lines

    start = parse_position("v1/SH/6SAS/6D7D/-/0/0/36.sixes.must.r3.t1000")
    cfg = dataclasses.replace(config(tmp_path, HUMAN_LEADS, trump=3), position=start, rules=start.rules)

    async def script(session: PlaySession, inp: PipeInput) -> None:
        table = session.table
        for keys in (ENTER, "dy", "Ry"):  # play the selected card / offer a draw / resign
            for _ in range(3):  # Enter plays the deal out in two turns
                await wait_until(lambda: table.state.mode in (Mode.TURN, Mode.MATCH_END), "my turn or the end")
                if table.state.mode == Mode.MATCH_END:
                    break
                n = len(table.state.history)
                inp.send_text(keys)
                await wait_until(lambda n=n: len(table.state.history) > n or table.state.mode != Mode.TURN,  # type: ignore[misc]
                                 "my move")
            await wait_until(lambda: table.state.mode == Mode.MATCH_END, "the end of the match")
            inp.send_text("a")
            await wait_until(lambda: table.state.end is None, "the next match")
        await wait_until(my_turn(session), "my lead in the fourth match")
        await quit_game(inp)

    session, result = run_play(cfg, script)
    assert result == QuitResult.QUIT and len(session.saved) == 3
    assert [MatchRecord.load(p).score_halves() for p in session.saved] == [(2, 0), (1, 1), (0, 2)]
    assert score_lines(list(session.records.values())) == [
        "Score: Tess 1½ : 1½ AI random in 3 matches (1 won, 1 drawn, 1 lost)",
        "  match 1: Tess 1 : 0 AI random",
        "  match 2: Tess ½ : ½ AI random",
        "  match 3: Tess 0 : 1 AI random",
    ]
    assert score_lines([MatchRecord.load(session.saved[0])], ascii_only=True) == ["Score: Tess 1 : 0 AI random"]


def test_continue_after_one_move_says_one_move(tmp_path: Path) -> None:
    """The AI led and the person quit: `play --continue` says "after 1 move." (it said "1 moves")."""
    cfg = config(tmp_path, AI_LEADS)

    async def first(session: PlaySession, inp: PipeInput) -> None:
        await wait_until(my_turn(session), "my turn")
        await quit_game(inp)

    run_play(cfg, first)
    rec = saved(cfg)
    assert len(rec.deals[0].moves) == 1
    seen: list[str] = []

    async def second(session: PlaySession, inp: PipeInput) -> None:
        await wait_until(my_turn(session), "my turn where I stopped")
        seen.append(session.table.state.message)
        await quit_game(inp)

    run_play(dataclasses.replace(cfg, resume=rec), second)
    assert seen[0].startswith("Continued where you stopped (deal 1 of 1, after 1 move), with the saved game's level")


def test_continue_goes_on_where_the_game_stopped(tmp_path: Path) -> None:
    cfg = config(tmp_path, AI_LEADS, deals=2)
    stopped: list[Position] = []

    async def first(session: PlaySession, inp: PipeInput) -> None:
        table = session.table
        for _ in range(2):
            await wait_until(my_turn(session), "my turn")
            n = len(table.state.history)
            inp.send_text(":" + typed_text(position(session).legal_moves()[0]) + ENTER)
            await wait_until(lambda n=n: len(table.state.history) > n + 1 or table.state.mode != Mode.TURN,  # type: ignore[misc]
                             "a reply")
        await wait_until(my_turn(session), "my turn")
        stopped.append(position(session).copy())
        await quit_game(inp)

    run_play(cfg, first)
    rec = saved(cfg)
    assert not rec.finished and rec.deals[0].outcome is None
    moves = list(rec.deals[0].moves)
    assert len(moves) >= 4

    again = dataclasses.replace(cfg, resume=rec)

    async def second(session: PlaySession, inp: PipeInput) -> None:
        table = session.table
        await wait_until(my_turn(session), "my turn where I stopped")
        assert position(session).key() == stopped[0].key()
        assert [h.move for h in table.state.history] == moves
        assert table.state.message.startswith(
            f"Continued where you stopped (deal 1 of 2, after {len(moves)} moves), with the saved game's level and "
            "rules: AI random, 36 cards, 2 deals. ")
        inp.send_text("Ry")
        await wait_until(lambda: table.state.mode == Mode.DEAL_END, "the end of deal 1")
        inp.send_text(ENTER)
        await wait_until(lambda: table.state.deal_number == 2 and table.state.mode == Mode.TURN, "deal 2")
        inp.send_text("Ry")
        await wait_until(lambda: table.state.mode == Mode.MATCH_END, "the end of the match")
        inp.send_text(ENTER)

    session, result = run_play(again, second)
    assert result == QuitResult.FINISHED and session.saved == [cfg.record_path]
    done = saved(cfg)
    assert done.finished and done.started == rec.started and len(done.deals) == 2
    assert done.deals[0].moves == moves and done.deals[0].outcome is not None
    assert done.deals[0].outcome.reason == "resign"
    done.check()


def test_newest_unfinished_record_is_found(tmp_path: Path) -> None:
    import os

    from p2ptrumps.record import PlayerInfo
    from p2ptrumps.ui.play import newest_unfinished

    def record(moves: int, finished: bool) -> MatchRecord:
        rec = MatchRecord(RuleSet(deals=1), (2, 0), (PlayerInfo("Tess"), PlayerInfo("AI normal", "ai:normal")))
        seed = deal_seed(1, 1)
        hands = deal_hands(seed, rec.rules, rec.trumps, 0)
        from p2ptrumps.record import DealRecord
        deal = DealRecord(1, 0, seed, hands)
        pos = rec.start_of(deal)
        for _ in range(moves):
            m = pos.legal_moves()[0]
            pos.push(m)
            deal.moves.append(m)
        if finished:
            pos.resign(pos.to_move)
            deal.outcome = pos.outcome
        rec.deals.append(deal)
        return rec

    record(3, False).save(tmp_path / "older.json")
    record(2, False).save(tmp_path / "newer.json")
    record(1, True).save(tmp_path / "newest-finished.json")
    (tmp_path / "broken.json").write_text("{")
    for i, name in enumerate(["older.json", "newer.json", "newest-finished.json", "broken.json"]):
        os.utime(tmp_path / name, (1_000_000 + i, 1_000_000 + i))
    found = newest_unfinished(tmp_path)
    assert found is not None and found[0] == tmp_path / "newer.json" and len(found[1].deals[0].moves) == 2
    assert newest_unfinished(tmp_path / "none") is None


# ----- the table without trio: intents and records names --------------------------------------


def test_draw_offer_answer_goes_to_the_sink() -> None:
    table = TableApp(UIOptions(allow_chat=True))
    sent: list[Intent] = []
    table.intent_sink = sent.append
    table.set_players(("Me", "Bob"), 0)
    assert "t chat" in table._keys_items()  # no question open: the table's keys
    table.ask_draw()
    assert table.state.confirm is not None
    assert table.state.confirm.question == "Bob offers a draw. Accept?"
    # the footer says what the open question takes (only y, n, Esc): it listed o, ?, t chat and q
    assert table._keys_items() == ["y yes", "n no"]
    table.answer_confirm(True)
    table.ask_draw()
    table.answer_confirm(False)
    assert sent == [DrawAnswer(True), DrawAnswer(False)]


def test_hooks_for_a_networked_opponent_reach_the_screen() -> None:
    table = TableApp(UIOptions(allow_chat=True))
    table.set_players(("Me", "Bob"), 1)
    table.set_connection("connected")
    table.set_opponent_detail("fingerprint 1a2b 3c4d")
    table.add_chat("Bob", "good luck")
    pos = Position(rules=RuleSet(), trumps=(0, 1), hands=[0b111, 0b111000], to_move=1)
    from p2ptrumps.events import DealStarted

    table.show_event(DealStarted(1, 0, pos))
    view = table.table_view()
    assert view is not None
    assert (view.my_seat, view.connection, view.opponent_detail, view.chat) == (
        1, "connected", "fingerprint 1a2b 3c4d", ("Bob: good luck",))


def test_record_name_is_readable_and_unused(tmp_path: Path) -> None:
    from datetime import datetime

    now = datetime(2026, 11, 29, 17, 42)
    first = record_name(tmp_path, "normal", now)
    assert first == tmp_path / "2026-11-29_1742_vs-normal.json"
    first.write_text("{}")
    assert record_name(tmp_path, "normal", now) == tmp_path / "2026-11-29_1742_vs-normal-2.json"


def test_draw_offer_to_the_ai_is_settled_either_way(tmp_path: Path) -> None:
    cfg = config(tmp_path, HUMAN_LEADS)

    async def script(session: PlaySession, inp: PipeInput) -> None:
        table = session.table
        await wait_until(my_turn(session), "my lead")
        inp.send_text("d")
        await wait_until(lambda: table.state.confirm is not None, "the draw question")
        assert table.overlay_lines()[1] == "│ Offer AI random a draw? If accepted, the deal is drawn. │"
        assert table.state.mode == Mode.TURN  # nothing is sent before the answer
        inp.send_text("y")
        await wait_until(lambda: "declined" in table.state.message or table.state.mode == Mode.MATCH_END,
                         "the AI's answer")
        if table.state.mode == Mode.TURN:
            assert table.state.message == "AI random declined the draw."
            assert position(session).outcome is None
        else:
            assert table.state.end is not None
            assert table.state.end.title == "The match is drawn. Last deal: drawn by agreement"
        await quit_game(inp)

    run_play(cfg, script)
    if not cfg.record_path.exists():  # declined, then quit without a move: no record
        return
    deal = saved(cfg).deals[0]
    assert deal.moves == []
    assert deal.outcome is not None and (deal.outcome.winner, deal.outcome.reason) == (None, "agreed-draw")


def test_dialogs_are_framed_and_ascii_safe() -> None:
    table = TableApp(UIOptions(ascii_only=True))
    table.state.help_open = True
    lines = table.overlay_lines()
    assert len({len(line) for line in lines}) == 1
    assert lines[0].startswith("+--") and lines[-1].endswith("-+")
    assert all(line.isascii() for line in lines)
    assert len(lines) <= 22 and len(lines[0]) <= 80
    table.ask_quit()
    assert table.overlay_lines() == [
        "+----------------+",
        "| Quit the game? |",
        "|                |",
        "| y yes    n no  |",
        "+----------------+",
    ]


# ----- the defects a first-time tester found ---------------------------------------------


def test_escape_acts_at_once_and_the_next_key_is_not_swallowed(tmp_path: Path) -> None:
    from p2ptrumps.ui.app import ESC_TIMEOUT_S

    table = TableApp()
    assert (table.application.ttimeoutlen, table.application.timeoutlen) == (ESC_TIMEOUT_S, ESC_TIMEOUT_S) == (
        0.05, 0.05)
    cfg = config(tmp_path, HUMAN_LEADS)

    async def script(session: PlaySession, inp: PipeInput) -> None:
        table = session.table
        await wait_until(my_turn(session), "my lead")
        selected = table.state.selected
        inp.send_text(":zz" + ENTER)
        await wait_until(lambda: table.state.message_kind == "error", "the parse error")
        inp.send_text("\x1b" + ENTER)  # Esc closes the prompt; Enter, right after it, plays the card
        await wait_until(lambda: len(table.state.history) >= 1, "the lead played by Enter")
        assert table.state.prompt_kind is None
        assert table.state.history[0].move == Move.lead(selected)  # type: ignore[arg-type]
        assert table.state.message_kind != "error"  # closing the prompt took its error away
        await quit_game(inp)

    run_play(cfg, script)


def test_empty_enter_closes_the_prompt_and_its_error(tmp_path: Path) -> None:
    cfg = config(tmp_path, HUMAN_LEADS)

    async def script(session: PlaySession, inp: PipeInput) -> None:
        table = session.table
        await wait_until(my_turn(session), "my lead")
        inp.send_text(":8H9C" + ENTER)
        await wait_until(lambda: table.state.message_kind == "error", "the parse error")
        inp.send_text(ENTER)
        await wait_until(lambda: table.state.prompt_kind is None, "the prompt to close")
        assert (table.state.message, table.state.mode) == ("", Mode.TURN)
        await quit_game(inp)

    run_play(cfg, script)


def test_p_while_choosing_the_second_card_keeps_the_beat(tmp_path: Path) -> None:
    cfg = config(tmp_path, AI_LEADS)

    async def script(session: PlaySession, inp: PipeInput) -> None:
        table = session.table
        await wait_until(my_turn(session), "my first turn")
        b = next(iter(cards_in(position(session).beating_cards(0))))
        table.state.selected = b
        inp.send_text(ENTER)
        await wait_until(lambda: table.state.mode == Mode.SECOND, "the second-card step")
        inp.send_text("p")
        await wait_until(lambda: table.state.message_kind == "error", "the note")
        assert table.state.message == "choose the second card (Esc takes the beat back)"
        assert (table.state.mode, table.state.pending_beat) == (Mode.SECOND, b)
        await quit_game(inp)

    run_play(cfg, script)
    assert len(saved(cfg).deals[0].moves) == 1  # only the AI's lead: p sent nothing


def test_draw_offer_asks_first_and_no_sends_nothing(tmp_path: Path) -> None:
    cfg = config(tmp_path, HUMAN_LEADS)

    async def script(session: PlaySession, inp: PipeInput) -> None:
        table = session.table
        await wait_until(my_turn(session), "my lead")
        assert "d draw" in table.status_view(200).keys
        inp.send_text("d")
        await wait_until(lambda: table.state.confirm is not None, "the draw question")
        inp.send_text("n")
        await wait_until(lambda: table.state.confirm is None, "the answer")
        assert (table.state.mode, table.state.message) == (Mode.TURN, "Deal 1 of 1: AI random dealt; you lead.")
        await quit_game(inp)

    run_play(cfg, script)
    assert not cfg.record_path.exists()  # no move made: no record


def test_help_names_the_draw_key_and_fits_the_smallest_terminal() -> None:
    from p2ptrumps.ui.view import MIN_HEIGHT, MIN_WIDTH

    table = TableApp(UIOptions(allow_undo=True, allow_hint=True))  # the table of `play`
    table.state.help_open = True
    lines = table.overlay_lines()
    assert any("d offer a draw" in line for line in lines)
    # No pointer to a file that `pip install` does not install: the rule book is one key away.
    assert not any("protocol/" in line or "RULES.md" in line for line in lines)
    assert lines[-2] == "│ r reads the whole rule book; any other key closes        │"
    assert any("Russian letters: В Д К Т = J Q K A, П Ч Б Т = ♠ ♥ ♦ ♣" in line for line in lines)
    assert len(lines) == MIN_HEIGHT == 20
    assert len(lines[0]) == 60 <= MIN_WIDTH


def test_help_lists_play_again_where_the_end_of_the_match_offers_it() -> None:
    from p2ptrumps.ui.view import MIN_HEIGHT, MIN_WIDTH

    table = TableApp(UIOptions(allow_play_again=True, allow_undo=True, allow_hint=True))
    table.state.help_open = True
    lines = table.overlay_lines()
    assert "│ u undo, i hint, a play again  o hand  d draw  R resign  │" in lines
    assert len(lines) == MIN_HEIGHT and len(lines[0]) == 59 <= MIN_WIDTH
    plain = TableApp()  # a networked table: no play again
    plain.state.help_open = True
    assert not any("play again" in line for line in plain.overlay_lines())


def test_help_names_chat_on_the_networked_table_and_the_trump_keys_on_the_trump_screen() -> None:
    from p2ptrumps.ui.view import MIN_HEIGHT, MIN_WIDTH

    table = TableApp(UIOptions(allow_chat=True))  # a networked table: chat, no undo, no hint
    table.state.help_open = True
    lines = table.overlay_lines()
    assert "│ t chat  o hand  d offer a draw  R resign                │" in lines
    assert not any("undo" in line for line in lines)
    table.state.help_open = False
    table.ask_trump(None)
    table.state.help_open = True
    lines = table.overlay_lines()
    assert "│ Own trump: c d h s, 1-4 or ↑↓ mark a suit, Enter chooses │" in lines
    assert not any("Enter play" in line for line in lines)
    assert len(lines) == MIN_HEIGHT and len(lines[0]) == 60 <= MIN_WIDTH
    ascii_table = TableApp(UIOptions(ascii_only=True, allow_chat=True))
    ascii_table.ask_trump(None)
    ascii_table.state.help_open = True
    assert "| Own trump: c d h s, 1-4 or ^v mark a suit, Enter chooses |" in ascii_table.overlay_lines()


class _SmallOutput(DummyOutput):
    def __init__(self, columns: int, rows: int) -> None:
        self.size = (columns, rows)

    def get_size(self) -> Size:
        return Size(rows=self.size[1], columns=self.size[0])


def test_small_terminal_says_so_instead_of_hiding_the_game() -> None:
    from p2ptrumps.ui.view import plain

    out = _SmallOutput(30, 10)
    table = TableApp(output=out)
    table.state.help_open = True
    assert table.too_small()
    assert plain(table._render_body(30, 10)) == [
        "terminal too small: need at",
        "least 60x20 (now 30x10); q",
        "quits",
    ] + [""] * 7
    assert table._render_status(30, 0) == []
    table.state.help_open = False
    table.ask_quit()
    assert plain(table._render_body(30, 10))[8] == "Quit the game? y/n"
    table.answer_confirm(False)
    out.size = (60, 20)
    assert not table.too_small()
    assert plain(table._render_body(60, 17))[0] == " Svoi Kozyri"


def test_names_with_control_characters_never_reach_the_screen() -> None:
    from p2ptrumps.ui.view import plain

    table = TableApp()
    table.set_players(("Bob\x1b[31mRED\nX", "AI\x07"), 0)
    pos = Position(rules=RuleSet(), trumps=(0, 1), hands=[0b111, 0b111000], to_move=0)
    from p2ptrumps.events import DealStarted

    table.show_event(DealStarted(1, 1, pos))
    screen = plain(table._render_body(80, 20))
    assert screen[0].startswith(" Svoi Kozyri   deal 1/1   Bob?[31mRED?X 0 : 0 AI?")
    assert not any(ch < " " for line in screen for ch in line)
    table.ask_draw()
    assert table.overlay_lines()[1] == "│ AI? offers a draw. Accept? │"


def test_my_running_clock_shows_where_no_player_line_does() -> None:
    """protocol/wire.md §16: between deals and at the trump choice a running clock is on the status
    line (with ``!`` marks in its last 10 s): the own one, and the opponent's where no player line
    shows it (its first move of the next deal while we read "Deal over", its trump choice)."""
    table = TableApp(UIOptions())
    table.set_players(("Me", "Bob"), 0)
    table.state.mode = Mode.DEAL_END
    table.set_clock((0, 41.2))
    assert table.status_view().expect == "Deal over. Enter starts the next deal. Your time: 0:42"
    table.set_clock((0, 9.5))
    assert table.status_view().expect == "Deal over. Enter starts the next deal. Your time: !0:10!"
    table.set_clock((1, 9.5))
    assert table.status_view().expect == "Deal over. Enter starts the next deal. Bob's time: !0:10!"
    table.set_clock(None)
    assert table.status_view().expect == "Deal over. Enter starts the next deal."
    table.state.mode = Mode.TRUMP
    table.set_clock((0, 30.0))
    assert table.status_view().expect == "Your trump stays yours for every deal of the match. Your time: 0:30"
    table.set_clock(None)
    assert table.status_view().expect == "Your trump stays yours for every deal of the match."
    table.state.mode = Mode.IDLE  # before the first deal: Bob chooses its trump
    table.set_clock((1, 30.0))
    assert table.status_view().expect == "Bob's time: 0:30"


def test_a_lost_connection_shows_before_the_first_deal_where_no_opponent_line_does() -> None:
    """Waiting for the guest's trump (or choosing one's own) when the guest's process died: the screen
    said only "Waiting for root…", the countdown of the reconnection nowhere (no opponent line yet)."""
    table = TableApp(UIOptions(allow_chat=True))
    table.set_players(("Hana", "root"), 0)
    table.set_connection("connected")
    assert table.status_view().expect == "Waiting for root…"
    table.set_connection("connection lost — reconnecting (1:42 left)")
    assert table.status_view().expect == "Waiting for root… (connection lost — reconnecting (1:42 left))"
    table.state.mode = Mode.TRUMP
    assert table.status_view().expect == ("Your trump stays yours for every deal of the match."
                                          " (connection lost — reconnecting (1:42 left))")
    table.set_connection("connected")
    assert table.status_view().expect == "Your trump stays yours for every deal of the match."


def test_the_hint_s_beat_comes_with_its_second_card_selected(tmp_path: Path) -> None:
    """The hint gives a beat and a second card: Enter on the hinted (selected) beating card goes on to
    the second card with the hint's second card selected, not the first of the hand; Enter plays both."""
    cfg = config(tmp_path, AI_LEADS)
    seen: list[Move] = []

    async def script(session: PlaySession, inp: PipeInput) -> None:
        table = session.table
        await wait_until(my_turn(session), "my first turn")
        inp.send_text("i")
        await wait_until(lambda: table.state.message.startswith("Hint: "), "the hint")
        pos = position(session)
        move = next(m for m in pos.legal_moves() if m.label() == table.state.message.removeprefix("Hint: "))
        seen.append(move)
        assert move.kind == BEAT and move.second != NO_CARD, "this seed's hint is a beat with a second card"
        assert table.state.selected == move.card
        inp.send_text(ENTER)
        await wait_until(lambda: table.state.mode == Mode.SECOND, "the second card's choice")
        assert table.state.selected == move.second
        inp.send_text(ENTER)
        await wait_until(lambda: len(table.state.history) >= 2, "the beat played")
        await quit_game(inp)

    run_play(cfg, script)
    assert saved(cfg).deals[0].moves[1] == seen[0]
