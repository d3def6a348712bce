"""Intents: what the table sends to the trio side (the person's decisions, never a rule verdict).

The table hands each intent to :attr:`~.state.TableCore.intent_sink`;
:class:`~.app.HumanPlayer` connects that to its trio channel and the match loop
reads moves (RULES.md §4), resignations and draw offers (RULES.md §7) from it.
A networked caller may wrap the sink to route :class:`ChatSend` elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..match import ChooseTrump, OfferDraw, Resign, Undo
from ..rules import Move


@dataclass(frozen=True)
class HintRequest:
    """The person asks for the AI's suggestion (offline only)."""


@dataclass(frozen=True)
class Continue:
    """The person dismissed the end-of-deal or end-of-match screen."""


@dataclass(frozen=True)
class PlayAgain:
    """On the end-of-match screen of an offline match: another match, same level and rules, a new deal."""


@dataclass(frozen=True)
class DrawAnswer:
    """The person's answer to the opponent's draw offer."""

    accept: bool


@dataclass(frozen=True)
class ChatSend:
    """A chat line the person typed (networked games)."""

    text: str


#: Everything the table may send: an action of the match machine (a move,
#: :class:`~p2ptrumps.match.Resign`, :class:`~p2ptrumps.match.Undo`,
#: :class:`~p2ptrumps.match.OfferDraw`, the own trump :class:`~p2ptrumps.match.ChooseTrump`), or one
#: of the intents above.
Intent = (Move | Resign | Undo | OfferDraw | ChooseTrump | HintRequest | Continue | PlayAgain | DrawAnswer
          | ChatSend)
