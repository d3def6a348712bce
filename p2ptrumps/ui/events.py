"""What match events do to the table (RULES.md §4-§8): the position and history follow the
match, the message line says what happened, and the end of a deal or of the match opens its
screen (:class:`~.view.EndView`, drawn by :func:`~.view.render_end`).

:func:`show_event` is called for every :class:`~p2ptrumps.events.MatchEvent` the person's
:class:`~.app.HumanPlayer` observes; :func:`show_end` opens the end screens.  Further
end-of-match screens (play again, the match history) belong beside :func:`show_end`, as
modes of :class:`~.state.Mode` with their keys in :func:`.bindings.end_keys`.
"""

from __future__ import annotations

from ..events import DealEnded, DealStarted, MatchEnded, MatchEvent, MovePlayed, MovesTakenBack, Withdrawn
from ..rules import PICK_UP
from ..text import counted
from .state import Mode, TableCore
from .view import EndView, HistoryEntry


def show_event(core: TableCore, event: MatchEvent) -> None:
    """Update the table for a match event (called by :meth:`~.app.HumanPlayer.observe`)."""
    s = core.state
    if isinstance(event, DealStarted):
        _deal_started(core, event)
    elif isinstance(event, MovePlayed):
        _move_played(core, event)
    elif isinstance(event, MovesTakenBack):
        s.position = event.position
        del s.history[len(s.history) - event.count:]
        if event.count:
            core.show_message(f"Took back {counted(event.count, 'move')}.")
        else:
            core.show_message("Nothing to take back yet.", "error")
    elif isinstance(event, Withdrawn):  # our crossing moves gave way to the host's message (wire.md §8.3)
        s.position = event.position
        del s.history[len(s.history) - event.count:]
    elif isinstance(event, DealEnded):
        s.position = event.position
        s.score_halves = event.score_halves
    elif isinstance(event, MatchEnded):
        s.score_halves = event.score_halves
    core.invalidate()


def _deal_started(core: TableCore, event: DealStarted) -> None:
    s = core.state
    s.position = event.position
    s.trumps = event.position.trumps
    s.deal_number = event.number
    s.deals = event.position.rules.deals
    s.history = []
    s.end = None
    s.mode = Mode.IDLE
    s.selected = None
    dealer = "you" if event.dealer == s.my_seat else s.names[event.dealer]
    elder = "you lead" if event.dealer != s.my_seat else f"{s.names[1 - event.dealer]} leads"
    if event.position.pile or event.position.turn:  # a deal set up from a position (play --position)
        mover = "you are" if event.position.to_move == s.my_seat else f"{s.names[event.position.to_move]} is"
        core.show_message(f"Deal {event.number} of {s.deals}: from a set-up position; {mover} to move.")
    else:
        core.show_message(f"Deal {event.number} of {s.deals}: {dealer} dealt; {elder}.")


def _move_played(core: TableCore, event: MovePlayed) -> None:
    s = core.state
    before = s.position
    picked = 0
    if event.move.kind == PICK_UP and before is not None:
        picked = len(before.pile) - len(event.position.pile)
    s.position = event.position
    s.history.append(HistoryEntry(len(s.history) + 1, event.seat, event.move, picked))
    if event.seat != s.my_seat:
        what = event.move.label()
        if picked:
            what += f" ({counted(picked, 'card')})"
        # My own pick-up stays said beside the reply that follows it.
        before_reply = f"{s.pickup_note} " if s.pickup_note else ""
        core.show_message(f"{before_reply}{s.names[event.seat]}: {what}")
        s.pickup_note = ""
    elif picked:
        n = bin(event.position.hands[event.seat]).count("1")
        s.pickup_note = f"You picked up {counted(picked, 'card')} (now {n} in hand)."
        core.show_message(s.pickup_note)
    else:
        s.pickup_note = ""
        core.show_message("")


def show_end(core: TableCore, event: DealEnded | MatchEnded, record_path: str | None, record_label: str) -> None:
    """Show the end-of-deal screen (for :class:`~p2ptrumps.events.DealEnded`) or the end of the
    match; ``record_path`` (None: not shown) follows ``record_label`` on the match's end."""
    s = core.state
    pos = s.position
    if pos is None or s.trumps is None:
        return
    if isinstance(event, DealEnded):
        text = event.outcome.describe(_you_names(core))
        title = text[0].upper() + text[1:] + "."
        match_over = False
        s.mode = Mode.DEAL_END
    else:
        a, b = event.score_halves[s.my_seat], event.score_halves[1 - s.my_seat]
        verdict = "You won the match" if a > b else ("You lost the match" if a < b else "The match is drawn")
        last = event.record.deals[-1] if event.record is not None and event.record.deals else None
        title = verdict
        if last is not None and last.outcome is not None and not s.end_note:  # a note says how it ended
            title = f"{verdict}. Last deal: {last.outcome.describe(_you_names(core))}"
        match_over = True
        s.mode = Mode.MATCH_END
    s.end = EndView(
        title=core.t(title), names=s.names, trumps=s.trumps, hands=(pos.hands[0], pos.hands[1]),
        pile=pos.pile, deal_number=s.deal_number, deals=s.deals, score_halves=event.score_halves,
        my_seat=s.my_seat, match_over=match_over, record_path=record_path,
        ascii_only=core.options.ascii_only, record_label=record_label, history=tuple(s.history),
        note=core.t(s.end_note) if match_over else "",
    )
    s.selected = None
    s.prompt_kind = None
    core.show_message(s.end_note if match_over else "")


def _you_names(core: TableCore) -> tuple[str, str]:
    names = list(core.state.names)
    names[core.state.my_seat] = "you"
    return names[0], names[1]
