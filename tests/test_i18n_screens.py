"""The table fits the screen in every language: at 60x20 (the smallest, ``view.MIN_WIDTH`` x
``view.MIN_HEIGHT``) and 100x32, no line of the table, the status lines, the help box, a question,
the trump screen or the end screen is wider than the terminal (counted in terminal columns:
Vietnamese letters with combining marks, long Catalan and Lithuanian words), the help box and the
questions are no taller than it, and the player's four suit rows stay on screen under the status; and
the replay viewer's screens fit too.  ``play`` and ``replay`` themselves in tmux, in Russian and
Vietnamese, are ``test_i18n_tmux.py``."""

from __future__ import annotations

from pathlib import Path

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.utils import get_cwidth

from p2ptrumps import i18n
from p2ptrumps.cards import mask_of as m_of
from p2ptrumps.cards import parse_cards
from p2ptrumps.events import DealStarted
from p2ptrumps.record import MatchRecord
from p2ptrumps.rules import Outcome, Position, RuleSet
from p2ptrumps.ui.app import TableApp, UIOptions
from p2ptrumps.ui.replay import ReplayViewer
from p2ptrumps.ui.view import EndView, plain, render_end, render_trump_choice

LANGUAGES = list(i18n.LANGUAGES)
SIZES = [(60, 20), (100, 32)]
RECORD = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "record-sample.json"


class _Screen(DummyOutput):
    def __init__(self, columns: int, rows: int) -> None:
        self.columns, self.rows = columns, rows

    def get_size(self) -> Size:
        return Size(rows=self.rows, columns=self.columns)


def _position() -> Position:
    """RULES.md §9 example 4 with my turn: A♠ and 7♥ (my trump) beat the top 9♠."""
    hands = [m_of(parse_cards("6S 7H KC AS 9D 10D JD QD KD AD 6C 7C")), m_of(parse_cards("8D QH 7S"))]
    return Position(rules=RuleSet(deals=3), trumps=(2, 1), hands=hands,
                    pile=tuple(parse_cards("8C JD 6H TS 7C 9S")), to_move=0)


def _fits(lines: list[str], width: int, what: str) -> None:
    wide = [(get_cwidth(line), line) for line in lines if get_cwidth(line) > width]
    assert wide == [], f"{what}: wider than {width} columns"


@pytest.mark.parametrize("code", LANGUAGES)
@pytest.mark.parametrize(("width", "height"), SIZES)
def test_every_screen_fits_in_every_language(code: str, width: int, height: int) -> None:
    i18n.use(code)
    table = TableApp(UIOptions(allow_undo=True, allow_hint=True, allow_play_again=True),
                     output=_Screen(width, height))
    table.set_players((i18n._("You"), "Ωμέγα Kowalczykówna"), 0)
    pos = _position()
    table.show_event(DealStarted(2, 1, pos))
    table.begin_turn(pos.copy(), 0)
    status = plain(table._render_status(width, height))
    body = plain(table._render_body(width, height - len(status)))
    print(f"--- {code} {width}x{height}", *body, *status, sep="\n")
    _fits(body + status, width, "the table")
    assert len(status) <= 5
    hand = [line for line in body if line.startswith(("  ♥ ", "  ♠ ", "  ♦ ", "  ♣ "))]
    assert len(hand) == 4, "the player's four suit rows are on screen"
    table.state.help_open = True
    help_box = table.overlay_lines()
    print(*help_box, sep="\n")
    _fits(help_box, width, "the help box")
    assert len(help_box) <= height
    assert help_box[1].startswith("│ " + i18n._("Svoi Kozyri")), "the rules in brief fit too"
    table.state.help_open = False
    table.ask_quit()
    _fits(table.overlay_lines(), width, "the quit question")
    assert len(table.overlay_lines()) <= height
    trump = plain(render_trump_choice(2, 1, False, width, height))
    _fits(trump, width, "the trump screen")
    end = EndView(title=i18n.tr(Outcome(1, "resign").describe((i18n._("You"), "Ωμέγα Kowalczykówna"))) + ".",
                  names=(i18n._("You"), "Ωμέγα"), trumps=(2, 1), hands=pos.hands[0:2] and (pos.hands[0], 0),
                  pile=pos.pile, deal_number=3, deals=3, score_halves=(3, 3), match_over=True,
                  record_path="/home/ann/.local/share/p2ptrumps/records/2026-12-02_0437_vs-normal.json")
    _fits(plain(render_end(end, width, height)), width, "the end screen")


@pytest.mark.parametrize("code", LANGUAGES)
@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_replay_viewer_fits_in_every_language(code: str, width: int, height: int) -> None:
    """The replay viewer (``p2ptrumps replay``): at a deal's start, after a move, at its end with the result
    and a key that does nothing, at the match's end, with analysis on (the verdict line and the value
    graph of a deal without moves): no line wider than the terminal, and the keys line fitted whole
    (hints dropped, never cut), ending in the way out."""
    i18n.use(code)
    record = MatchRecord.load(RECORD)
    record.deals[1].moves.clear()  # a deal without moves: its value graph says there is none
    record.deals[1].outcome, record.deals[2:] = Outcome(0, "resign"), []
    record.claimed_score = record.claimed_finished = None
    viewer = ReplayViewer(record, output=_Screen(width, height))

    def screen(what: str) -> None:
        status = plain(viewer._render_status(width, height))
        body = plain(viewer._render_body(width, max(1, height - len(status))))
        print(f"--- {code} {width}x{height}: {what}", *body, *status, sep="\n")
        _fits(body + status, width, f"the replay viewer, {what}")
        keys = viewer.status_view(width).keys
        assert get_cwidth(keys) <= width - 1 and keys.endswith(i18n._("q quit")), keys

    screen("a deal's start")
    viewer.step(1)
    screen("after a move")
    viewer.to_end(True)
    viewer.note = i18n._("%(key)s does nothing here: → next move, ← back, ] next deal, q quits", key="'z'")
    screen("a deal's end")
    viewer.show_analysis = True
    viewer.analysis = {0: [], 1: []}
    viewer.deal(1)
    screen("analysis, a deal without moves")
    viewer.step(1)
    screen("the match's end")
