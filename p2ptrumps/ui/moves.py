"""The person's move (RULES.md §4-§7): the card cursor, Enter and the second card, picking
up, typed moves, hints, and the warning before a move that draws by repetition.

:class:`Turn` turns keys and typed text into a legal :class:`~p2ptrumps.rules.Move` and sends
it; an illegal one only says why on the message line.  Nothing here draws the table
(:mod:`.screen` does) or decides a rule (:class:`~p2ptrumps.rules.Position` does).
"""

from __future__ import annotations

from ..cards import Card, CardParseError, cards_in
from ..i18n import _, card_label, tr
from ..rules import LEAD, NO_CARD, PICK_UP, IllegalMoveError, InvalidMoveError, Move, Position
from .keys import latin_move_text
from .prompt import Prompt
from .state import Confirm, Mode, TableCore, TableState
from .view import hand_order, or_list, suit_rows

#: Words of a typed move that pick up rather than name a card.
_PICK_WORDS = ("p", "pickup", "take", "t")


def repeating_moves(position: Position) -> frozenset[Move]:
    """The legal moves of the player to move that would end the deal drawn by repetition
    (RULES.md §7: the position after them would occur for the ``rules.repetition``-th time)."""
    if not position.rules.repetition or position.outcome is not None:
        return frozenset()
    probe = position.copy()
    out = set()
    for move in probe.legal_moves():
        probe.push_unchecked(move)
        if probe.outcome is not None and probe.outcome.reason == "repetition":
            out.add(move)
        probe.pop()
    return frozenset(out)


def _move_words(move: Move) -> str:
    """``"playing 9♦"``, ``"beating with 10♠ then 7♥"``, ``"picking up"`` (for the repetition warning)."""
    if move.kind == PICK_UP:
        return _("picking up")
    if move.kind == LEAD:
        return _("playing %(card)s", card=card_label(move.card))
    if move.second < 0:
        return _("beating with %(card)s", card=card_label(move.card))
    return _("beating with %(card)s then %(second)s", card=card_label(move.card), second=card_label(move.second))


def legal_cards(s: TableState) -> int:
    """Bitmask of my cards that Enter accepts now: any card to lead, a beating card,
    or any other card as the second card; 0 when it is not my move."""
    pos = s.position
    if pos is None or s.mode not in (Mode.TURN, Mode.SECOND):
        return 0
    hand = pos.hands[s.my_seat]
    if s.mode == Mode.SECOND and s.pending_beat is not None:
        return hand & ~(1 << s.pending_beat)
    if not pos.pile:
        return hand
    return pos.beating_cards(s.my_seat)


class Turn:
    """The person's move, from :meth:`begin` to :meth:`end` (modes TURN and SECOND).

    Args:
        core: the table's :class:`~.state.TableCore` (sends the move as an intent).
        prompt: the prompt line; the typed-move prompt closes when the turn ends.
    """

    def __init__(self, core: TableCore, prompt: Prompt) -> None:
        self._core = core
        self._prompt = prompt
        #: The AI's hint for this turn (``i``): its beat's second card is preselected after that beat.
        self._hint: Move | None = None

    def begin(self, position: Position, seat: int) -> None:
        """It is the person's move in ``position`` (a copy): enable the move keys."""
        s = self._core.state
        s.position = position
        s.my_seat = seat
        s.mode = Mode.TURN
        s.pending_beat = None
        self._hint = None
        legal = legal_cards(s)
        order = hand_order(position.hands[seat], position.trumps[seat])
        if s.selected not in order or not (legal >> (s.selected or 0) & 1):
            s.selected = next((c for c in order if legal >> c & 1), order[0] if order else None)
        s.repeating = repeating_moves(position)
        if s.repeating:
            warning = self.repetition_warning(sorted(s.repeating))
            if len(position.legal_moves()) == 1:  # forced: nothing to choose, nothing to confirm
                warning = _("Your only move: %(move)s.", move=warning)
            self._core.show_message(warning, "hint")
        self._core.invalidate()

    def end(self) -> None:
        """The person's move is over (sent, or the turn was cancelled): disable the move keys."""
        s = self._core.state
        if s.mode in (Mode.TURN, Mode.SECOND):
            s.mode = Mode.WAIT
        s.pending_beat = None
        if s.prompt_kind == "move":
            self._prompt.close()
        self._core.invalidate()

    def repetition_warning(self, moves: list[Move]) -> str:
        """``"playing 9♦ repeats a position a third time: the deal is drawn"`` for ``moves``
        (RULES.md §7 repetition; the count is the rule set's)."""
        pos = self._core.state.position
        n = pos.rules.repetition if pos is not None else 3
        labels = [_move_words(m) for m in moves[:3]] + ([_("another move")] if len(moves) > 3 else [])
        what = or_list(labels)
        if n == 2:
            return _("%(move)s repeats a position a second time: the deal is drawn", move=what)
        if n == 3:
            return _("%(move)s repeats a position a third time: the deal is drawn", move=what)
        return _("%(move)s repeats a position for the %(n)dth time: the deal is drawn", move=what, n=n)

    def show_hint(self, move: Move, note: str = "") -> None:
        """Show the AI's suggested ``move`` (with ``note``, e.g. "wins by force in 3") and put the
        cursor on its card."""
        hint = tr(move.label())
        self._core.show_message(_("Hint: %(move)s — %(note)s", move=hint, note=tr(note)) if note
                                else _("Hint: %(move)s", move=hint), "hint")
        s = self._core.state
        self._hint = move
        if move.card != NO_CARD and s.mode == Mode.TURN:
            s.selected = move.card
        elif s.mode == Mode.SECOND and s.pending_beat == move.card and move.second != NO_CARD:
            s.selected = move.second  # the beat is chosen already: on to the hint's second card

    def play(self, move: Move, *, confirmed: bool = False) -> bool:
        """Check ``move`` against the position; send it, or show why it is illegal.  A move
        that would draw the deal by repetition asks first, unless it is the only legal move
        (True: asked or sent)."""
        s = self._core.state
        pos = s.position
        if pos is None:
            return False
        try:
            pos.check(move)
        except IllegalMoveError as exc:
            self._core.show_message(tr(exc), "error")
            return False
        if move in s.repeating and not confirmed and len(pos.legal_moves()) > 1:
            warning = self.repetition_warning([move])

            def yes() -> None:
                if s.mode in (Mode.TURN, Mode.SECOND) and s.position is pos:
                    self.play(move, confirmed=True)

            s.confirm = Confirm(_("%(warning)s. Play it?", warning=warning[0].upper() + warning[1:]), on_yes=yes)
            self._core.invalidate()
            return True
        self._core.show_message("")
        self.end()
        self._core.send(move)
        return True

    def play_selected(self) -> None:
        """Enter: lead the selected card, choose it as the beating card, or play it as the second card."""
        s = self._core.state
        pos = s.position
        card = s.selected
        if pos is None or card is None:
            return
        hand = pos.hands[s.my_seat]
        if s.mode == Mode.SECOND and s.pending_beat is not None:
            if card == s.pending_beat:
                self._core.show_message(_("choose a different card as the second card (Esc takes the beat back)"),
                                        "error")
                return
            self.play(Move.beat(s.pending_beat, card))
            return
        if not pos.pile:
            self.play(Move.lead(card))
            return
        rest = hand & ~(1 << card)
        probe = Move.beat(card, next(iter(cards_in(rest))) if rest else NO_CARD)
        try:
            pos.check(probe)
        except IllegalMoveError as exc:
            self._core.show_message(tr(exc), "error")
            return
        if not rest:
            self.play(Move.beat(card))
            return
        s.pending_beat = card
        s.mode = Mode.SECOND
        order = [c for c in hand_order(hand, pos.trumps[s.my_seat]) if c != card]
        hinted = self._hint
        if hinted is not None and hinted.card == card and hinted.second in order:
            s.selected = hinted.second  # the beat the hint gave: its second card too
        else:
            s.selected = order[0] if order else None
        self._core.show_message(_("%(card)s beats %(top)s: now choose the second card to put on it.",
                                  card=card_label(card), top=card_label(pos.pile[-1])))

    def cancel_beat(self) -> None:
        """Esc after choosing a beating card: back to choosing the beating card."""
        s = self._core.state
        if s.mode == Mode.SECOND:
            s.selected = s.pending_beat
            s.pending_beat = None
            s.mode = Mode.TURN
            self._core.show_message("")

    def pick_up(self) -> None:
        """``p``: pick up (RULES.md §6), or say why not.  While a beating card waits for
        its second card, ``p`` only says so (Esc takes the beat back first)."""
        if self._core.state.mode == Mode.SECOND:
            self._core.show_message(_("choose the second card (Esc takes the beat back)"), "error")
            return
        self.play(Move.pick_up())

    def submit_typed(self, text: str) -> bool:
        """A typed move (``QS``, ``10s 7h``, ``p``): play it if legal, else show why; True if sent.

        With a beating card already chosen, a single card is its second card; a single
        beating card (not the last in hand) goes on to the second-card step, as Enter does,
        and the prompt stays open for the second card (False is returned: nothing sent yet).
        """
        s = self._core.state
        pos = s.position
        if pos is None or s.mode not in (Mode.TURN, Mode.SECOND):
            self._core.show_message(_("it is not your move"), "error")
            return False
        text = latin_move_text(text)
        words = text.replace("/", " ").replace(",", " ").split()
        if not words:
            return False
        if s.mode == Mode.TURN and pos.pile and len(words) == 1 and words[0].lower() not in _PICK_WORDS:
            # One beating card with more cards in hand: on to the second-card step, as Enter does.
            try:
                card = int(Card.parse(words[0]))
            except CardParseError:
                card = NO_CARD
            hand = pos.hands[s.my_seat]
            if card != NO_CARD and hand >> card & 1 and hand & ~(1 << card):
                s.selected = card
                self.play_selected()
                return False
        try:
            if s.mode == Mode.SECOND and s.pending_beat is not None and len(words) == 1 \
                    and words[0].lower() not in _PICK_WORDS:
                move = Move.beat(s.pending_beat, int(Card.parse(words[0])))
            else:
                move = pos.parse_move(text)
        except (InvalidMoveError, CardParseError, IllegalMoveError) as exc:
            self._core.show_message(tr(exc), "error")
            return False
        return self.play(move)

    def move_selection(self, step: int) -> None:
        """Move the cursor ``step`` cards along the hand in display order (wrapping)."""
        s = self._core.state
        pos = s.position
        if pos is None:
            return
        order = hand_order(pos.hands[s.my_seat], pos.trumps[s.my_seat])
        if not order:
            return
        i = order.index(s.selected) if s.selected in order else -step if step > 0 else 0
        s.selected = order[(i + step) % len(order)]
        self._core.invalidate()

    def move_row(self, step: int) -> None:
        """Move the cursor to the next (``step`` 1) or previous (-1) non-empty suit row."""
        s = self._core.state
        pos = s.position
        if pos is None or s.selected is None:
            return
        trump = pos.trumps[s.my_seat]
        hand = pos.hands[s.my_seat]
        rows = [[int(c) for c in cards_in(hand) if c // 13 == suit] for suit in suit_rows(trump)]
        r = next(i for i, row in enumerate(rows) if s.selected in row)
        col = rows[r].index(s.selected)
        for k in range(1, 5):
            row = rows[(r + step * k) % 4]
            if row:
                s.selected = row[min(col, len(row) - 1)]
                break
        self._core.invalidate()
