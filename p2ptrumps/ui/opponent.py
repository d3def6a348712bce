"""The opponent across the network, as the table shows it: the line under their name, the
connection state, chat, their leaving the match (protocol/wire.md §15) and a rematch.

The networked table glue (``net/table.py``) calls these through
:class:`~.app.TableApp`; offline only the names are used.
"""

from __future__ import annotations

from ..i18n import _, tr
from .prompt import Prompt
from .state import Mode, TableCore


class Opponent:
    """The networked news on the table.

    Args:
        core: the table's :class:`~.state.TableCore`.
        prompt: the prompt line (an open chat prompt closes when the opponent leaves).
    """

    def __init__(self, core: TableCore, prompt: Prompt) -> None:
        self._core = core
        self._prompt = prompt

    def set_connection(self, text: str) -> None:
        """The connection-state text shown right of the opponent (``""`` hides it)."""
        self._core.state.connection = text
        self._core.invalidate()

    def set_clock(self, clock: tuple[int, float] | None) -> None:
        """The move clock that runs: ``(seat, seconds left)`` (may go below 0), None when none runs."""
        self._core.state.clock = clock
        self._core.invalidate()

    def set_detail(self, text: str) -> None:
        """An extra line under the opponent's name (e.g. ``"fingerprint 3f2a…"``; ``""`` hides it)."""
        self._core.state.opponent_detail = text
        self._core.invalidate()

    def add_chat(self, sender: str, text: str) -> None:
        """Show a chat line ``"sender: text"`` (the last three stay on the table)."""
        self._core.state.chat.append(f"{sender}: {text}")
        self._core.invalidate()

    def chat_refused(self, why: str) -> None:
        """A chat line of the person was not sent (``why``, e.g. too long): a note in the chat panel,
        where it stays (the line itself is not shown as said), and on the message line."""
        self._core.state.chat.append(_("(your line was not sent: %(why)s)", why=tr(why)))
        self._core.show_message(_("chat not sent: %(why)s", why=tr(why)), "error")

    def left(self, text: str) -> None:
        """The opponent left the match: ``text`` (e.g. ``"Gus resigned and left the match"``) goes
        on the message line now and stays on the end screen; draw offers and chat end, and Enter
        on the end screen only leaves (no rematch)."""
        core = self._core
        core.state.end_note = text
        core.options.match_end_enter = "leave"
        core.options.allow_draw_offer = False
        core.options.allow_chat = False
        if core.state.prompt_kind == "chat":
            self._prompt.close()
        core.show_message(text, "info")

    def new_match(self) -> None:
        """Clear the table for another match with the same players (a networked rematch):
        no position, score 0 : 0, back from the end screen."""
        s = self._core.state
        s.end_note = ""
        s.position = None
        s.trumps = None
        s.history = []
        s.deal_number = 0
        s.score_halves = (0, 0)
        s.end = None
        s.mode = Mode.IDLE
        s.selected = None
        s.pending_beat = None
        self._core.invalidate()
