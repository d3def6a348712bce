"""The prompt line: a move typed with completion (``:`` or ``/``), or a chat line (``t``).

* :class:`MoveCompleter` — completes a typed move with the legal plays only (RULES.md §4);
* :class:`Prompt` — the one-line buffer above the status lines, opened as ``"move"`` or
  ``"chat"`` (``state.prompt_kind``); Enter hands the text to ``on_move`` (the table's
  typed-move check) or sends it as :class:`~.intents.ChatSend`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.layout import Window
from prompt_toolkit.layout.controls import BufferControl
from prompt_toolkit.layout.processors import BeforeInput

from ..cards import Card, CardParseError
from ..i18n import _, card_label
from ..rules import BEAT, LEAD, PICK_UP
from .intents import ChatSend
from .keys import latin_move_text
from .state import Mode, TableCore


class MoveCompleter(Completer):
    """Completes a typed move with the legal plays only (RULES.md §4).

    The first word completes to a card that may be led or that beats the top
    (or ``p`` when picking up is legal); after a beating card and a space the
    second word completes to the cards that may follow it.  Cards are offered
    as the table shows them (``10♠``; ``10S`` under ``ascii_only``); prefixes match
    the suit sign, the suit letter and both ``T`` and ``10`` spellings.
    """

    def __init__(self, core: TableCore) -> None:
        self._core = core

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        pos = self._core.state.position
        if pos is None or self._core.state.mode not in (Mode.TURN, Mode.SECOND):
            return
        text = latin_move_text(document.text_before_cursor)
        if document.text_before_cursor[-1:].isspace():
            text += " "
        words = text.split()
        current = "" if (not words or text[-1:].isspace()) else words[-1]
        done = words if current == "" else words[:-1]
        legal = pos.legal_moves()
        pending = self._core.state.pending_beat
        candidates: dict[int, str] = {}
        if pending is not None and not done:
            for m in legal:
                if m.kind == BEAT and m.card == pending and m.second >= 0:
                    candidates[m.second] = _("second card")
        elif not done:
            for m in legal:
                if m.kind == LEAD:
                    candidates[m.card] = _("lead")
                elif m.kind == BEAT:
                    candidates[m.card] = _("beat") if m.second >= 0 else _("beat (last card)")
        elif len(done) == 1:
            try:
                first = int(Card.parse(done[0]))
            except CardParseError:
                return
            for m in legal:
                if m.kind == BEAT and m.card == first and m.second >= 0:
                    candidates[m.second] = _("second card")
        else:
            return
        low = current.lower()
        ascii_only = self._core.options.ascii_only
        for card, meta in candidates.items():
            c = Card(card)
            shown = card_label(card, ascii_only)  # as the table shows it: 8♣ (8C under --ascii; Д♠ in Russian)
            names = (shown, card_label(card, True), c.label(), c.label(ascii_only=True), c.code)
            if any(name.lower().startswith(low) for name in names):
                yield Completion(shown, start_position=-len(current), display=shown, display_meta=meta)
        if not done and pending is None and any(m.kind == PICK_UP for m in legal) and "pickup".startswith(low):
            yield Completion("p", start_position=-len(current), display="p", display_meta=_("pick up"))


class Prompt:
    """The prompt line (shown while ``state.prompt_kind`` is not None).

    Args:
        core: the table's :class:`~.state.TableCore`.
        home: the window that has the focus while the prompt is closed (the table).
        on_move: checks and plays a typed move; True when it was sent (the prompt closes),
            False when it was refused or waits for a second card (the prompt stays, emptied).
    """

    def __init__(self, core: TableCore, home: Window, on_move: Callable[[str], bool]) -> None:
        self._core = core
        self._home = home
        self._on_move = on_move
        self.buffer = Buffer(completer=MoveCompleter(core), complete_while_typing=True, multiline=False,
                             accept_handler=self._accept)
        self.window = Window(
            BufferControl(self.buffer, input_processors=[BeforeInput(self._label, style="class:prompt")]),
            height=1,
        )

    def _label(self) -> str:
        return _("chat: ") if self._core.state.prompt_kind == "chat" else _("move: ")

    def open(self, kind: str = "move") -> None:
        """Open the typed-move (``"move"``) or chat (``"chat"``) prompt."""
        self._core.state.prompt_kind = kind
        self.buffer.reset()
        self._core.application.layout.focus(self.window)
        self._core.invalidate()

    def close(self) -> None:
        """Close the prompt; an error message about what was typed goes with it."""
        s = self._core.state
        if s.prompt_kind == "move" and s.message_kind == "error":
            self._core.show_message("")
        s.prompt_kind = None
        self.buffer.reset()
        with contextlib.suppress(ValueError):
            self._core.application.layout.focus(self._home)

    def _accept(self, buffer: Buffer) -> bool:
        text = buffer.text
        kind = self._core.state.prompt_kind
        if kind == "chat":
            if text.strip():
                self._core.send(ChatSend(text.strip()))
            self.close()
        elif kind == "move":
            # ":" and "/" open the prompt; typed again inside it they are not part of the move.
            text = text.lstrip(":/ ")
            if not text.strip() or self._on_move(text):
                self.close()
            else:
                # The message names the bad text; start afresh rather than append to it.
                buffer.reset()
                return True
        self._core.invalidate()
        return False
