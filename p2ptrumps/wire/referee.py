"""The match as the protocol sees it: the referee, one transition table over the match machine.

Source: ``protocol/wire.md`` §9 (the match: phases, the floor, bodies), §9.7 (chat limits), §15
(leave) and §16 (claims and disputes).

:class:`Referee` decides, for every chained message, whether its sender may send it now and what it
changes.  What is a rule of the game -- the trumps, the deal from its seed, each move, resigning,
draw offers, claims, leaving, the score -- it hands to the match machine
(:class:`~p2ptrumps.match.Match`), which checks it once; what belongs to the protocol -- the rules
proposal, the commitments and reveals, the signed statements of each result, chat, rematch -- it
keeps itself.  The live :class:`~p2ptrumps.wire.session.Session` runs it for both sides' messages
and ``verify`` runs it over a log, through :class:`~p2ptrumps.wire.chain.JointChain`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from ..events import (
    ChatReceived,
    DealSigned,
    Event,
    MatchEvent,
    MatchSigned,
    RematchAgreed,
    RematchOffered,
    RulesAgreed,
    RulesProposed,
    RulesRefused,
)
from ..match import (
    DEAL_END,
    AnswerDraw,
    ChooseTrump,
    Claim,
    Deal,
    Dispute,
    IllegalActionError,
    Leave,
    Mark,
    Match,
    NextDeal,
    OfferDraw,
    Resign,
)
from ..record import PlayerInfo
from ..rules import IllegalMoveError, Move, RuleSet
from . import messages as m
from .errors import RemoteProtocolError

SEAT_NAMES = ("host", "guest")

# Phases (protocol/wire.md §9.1).  waiting_for() says what the match waits for in each; "deal-end" is
# the machine's DEAL_END too.
RULES, AGREE, TRUMP, COMMIT, REVEAL, PLAY, MATCH_END, DONE, REFUSED, REMATCHED = (
    "rules", "agree", "trump", "commit", "reveal", "play", "match-end", "done", "refused", "rematched",
)
DISPUTED = "disputed"  # a claim was disputed: the match ended decided by no one (protocol/wire.md §16)

#: The transition table: for each message kind, the phases in which it may be sent,
#: and whether only the seat holding the floor may send it ("floor") or either
#: seat ("any"; further conditions in :meth:`Referee.apply`).
TRANSITIONS: dict[str, tuple[frozenset[str], str]] = {
    "rules": (frozenset({RULES}), "floor"),
    "agree": (frozenset({AGREE}), "floor"),
    "trump": (frozenset({TRUMP}), "floor"),
    "commit": (frozenset({COMMIT}), "floor"),
    "reveal": (frozenset({REVEAL}), "floor"),
    "move": (frozenset({PLAY}), "floor"),
    "deal-end": (frozenset({DEAL_END}), "floor"),
    "match-end": (frozenset({MATCH_END}), "floor"),
    "resign": (frozenset({PLAY}), "any"),
    "offer-draw": (frozenset({PLAY}), "any"),
    "answer-draw": (frozenset({PLAY}), "any"),
    "dispute": (frozenset({DEAL_END, MATCH_END}), "floor"),
    "chat": (frozenset({TRUMP, COMMIT, REVEAL, PLAY, DEAL_END, MATCH_END, DONE, DISPUTED}), "any"),
    "rematch": (frozenset({DONE}), "any"),
    "leave": (frozenset({TRUMP, COMMIT, REVEAL, PLAY, DEAL_END}), "any"),
    "claim": (frozenset({TRUMP, COMMIT, REVEAL, PLAY}), "any"),
}

#: Kinds that either seat may send whoever holds the floor (protocol/wire.md §8.3).
INTERJECTIONS = frozenset(k for k, (_, who) in TRANSITIONS.items() if who == "any")

#: Chat limits of one seat in one match (protocol/wire.md §9.7): chats since the last floor
#: message of either seat, chats in all, and bytes of chat text (UTF-8) in all.
MAX_CHATS_PER_TURN = 10
MAX_CHATS_PER_MATCH = 200
MAX_CHAT_BYTES_PER_MATCH = 32768


def first_committer(deal: int) -> int:
    """Seat that commits and reveals first in ``deal`` (host in odd deals); the other reveals last."""
    return 0 if deal % 2 == 1 else 1


class ChatCount(NamedTuple):
    """What each seat has said (protocol/wire.md §9.7): chats in the current turn, in the match, and
    bytes of chat text in the match.  A value: :meth:`count` and :meth:`new_turn` give the next one."""

    in_turn: tuple[int, int] = (0, 0)
    in_match: tuple[int, int] = (0, 0)
    text_bytes: tuple[int, int] = (0, 0)

    def refusal(self, seat: int, text: str) -> str | None:
        """Why ``seat`` may not send the chat line ``text`` now, in words; None when it may."""
        if self.in_turn[seat] >= MAX_CHATS_PER_TURN:
            return f"{MAX_CHATS_PER_TURN} chat lines in one turn are the most"
        if self.in_match[seat] >= MAX_CHATS_PER_MATCH:
            return f"{MAX_CHATS_PER_MATCH} chat lines in one match are the most"
        size = len(text.encode("utf-8"))
        if self.text_bytes[seat] + size > MAX_CHAT_BYTES_PER_MATCH:
            return (f"{MAX_CHAT_BYTES_PER_MATCH} bytes of chat in one match are the most "
                    f"({self.text_bytes[seat]} used, this line has {size})")
        return None

    def said(self, seat: int, text: str) -> ChatCount:
        """The count with ``seat``'s chat line ``text`` added."""
        def more(pair: tuple[int, int], n: int) -> tuple[int, int]:
            return (pair[0] + n, pair[1]) if seat == 0 else (pair[0], pair[1] + n)
        size = len(text.encode("utf-8"))
        return ChatCount(more(self.in_turn, 1), more(self.in_match, 1), more(self.text_bytes, size))

    def new_turn(self) -> ChatCount:
        """The count after a floor message of either seat: a new turn for chat."""
        return self._replace(in_turn=(0, 0)) if self.in_turn != (0, 0) else self


class RefereeMark(NamedTuple):
    """A state of a :class:`Referee` to come back to (:meth:`Referee.rewind`); opaque.  Its containers
    are the referee's own: the referee replaces them, never changes them in place."""

    phase: str
    proposed: tuple[RuleSet | None, int]
    move_time: int
    match: Match | None
    match_mark: Mark | None
    deal: int
    commits: dict[int, bytes]
    secrets: dict[int, bytes]
    statements: frozenset[int]
    rematch: frozenset[int]
    open_claim: int | None
    claim_steps: int
    chat: ChatCount


@dataclass
class Referee:
    """The state of one match between seat 0 (host) and seat 1 (guest), as the protocol sees it.

    Args:
        game_id: the 32-byte game id (protocol/wire.md §7.2).
        keys: raw 32-byte public keys of seat 0 and seat 1.

    :meth:`apply` checks and applies one message; it raises ``RemoteProtocolError`` (changing
    nothing) when the message is not allowed.  :attr:`match` is the match machine, from the agreed
    rules on.  ``quiet``: the machine makes no events (``verify`` reads none).  The containers below
    are replaced, never changed in place (a mark keeps them as they are).
    """

    game_id: bytes
    keys: tuple[bytes, bytes]
    phase: str = RULES
    proposed: RuleSet | None = None
    #: The move clock (protocol/wire.md §16): seconds per move proposed / agreed, 0 = none.
    proposed_move_time: int = 0
    move_time: int = 0
    match: Match | None = None
    #: The deal being prepared (commit, reveal) or played, 0 before the first.
    deal: int = 0
    commits: dict[int, bytes] = field(default_factory=dict)
    secrets: dict[int, bytes] = field(default_factory=dict)
    #: The seats that signed the statement due (deal-end, match-end).
    statements: frozenset[int] = frozenset()
    rematch: frozenset[int] = frozenset()
    #: The open claim (protocol/wire.md §16): its index in the machine's claims, until the claimed seat signs.
    open_claim: int | None = None
    #: The step each claim was made on, as the clock times it: ``(step, deal, turn, seat awaited)``,
    #: the turn the moves of the deal for a move, else 0 (protocol/wire.md §16).
    claim_steps: list[tuple[str, int, int, int]] = field(default_factory=list)
    chat: ChatCount = field(default_factory=ChatCount)
    quiet: bool = False

    # ----- queries ---------------------------------------------------------------

    @property
    def rules(self) -> RuleSet | None:
        """The agreed rules (None before the guest accepted)."""
        return None if self.match is None else self.match.rules

    @property
    def trumps_pair(self) -> tuple[int, int] | None:
        """Own trump of seat 0 and seat 1, once both are chosen."""
        if self.match is None:
            return None
        a, b = self.match.trumps
        return None if a is None or b is None else (a, b)

    def waiting_for(self) -> tuple[int | None, str]:
        """``(seat, what)`` the match waits for; seat None when either may act (see Session.waiting_for)."""
        p = self.phase
        if p == RULES:
            return 0, "rules"
        if p == AGREE:
            return 1, "agree"
        if p in (TRUMP, PLAY):
            assert self.match is not None
            return self.match.waiting_for()
        if p in (COMMIT, REVEAL):
            a = first_committer(self.deal)
            done = self.commits if p == COMMIT else self.secrets
            return (a if a not in done else 1 - a), p
        if p in (DEAL_END, MATCH_END):
            return (0 if 0 not in self.statements else 1), p
        if p == DONE:
            return None, "rematch"
        return None, "nothing"

    def score(self) -> tuple[int, int]:
        """The match score in half-points (seat 0, seat 1)."""
        return (0, 0) if self.match is None else self.match.score_halves()

    def expected_deal_end(self) -> m.DealEndMsg:
        """The deal-end statement due now (phase deal-end)."""
        assert self.match is not None and self.match.deal is not None and self.match.deal.outcome is not None
        return m.DealEndMsg.of(self.deal, self.match.deal.outcome, self.score())

    def expected_match_end(self) -> m.MatchEndMsg:
        return m.MatchEndMsg(self.score())

    def chat_refusal(self, seat: int, text: str) -> str | None:
        """Why ``seat`` may not send the chat line ``text`` now under the chat limits (protocol/wire.md
        §9.7), in words; None when it may (the phase is checked elsewhere)."""
        return self.chat.refusal(seat, text)

    def claim_against(self, seat: int) -> int | None:
        """The deal of the claim open against ``seat`` (protocol/wire.md §16), None when none is."""
        if self.open_claim is None or self.match is None:
            return None
        claimant, won = self.match.claims[self.open_claim]
        return won[0] if claimant == 1 - seat else None

    # ----- the transition function --------------------------------------------------

    def apply(self, seat: int, body: m.Body) -> list[Event]:
        """Check that ``seat`` may send ``body`` now and apply it; return the events it causes.

        Raises ``RemoteProtocolError`` (out-of-turn, illegal-move, wrong-position-hash,
        bad-commitment, bad-reveal, wrong-result, malformed) leaving the state unchanged.
        """
        kind = body.KIND
        self._check_floor(seat, kind)
        events: list[Event] = _HANDLERS[kind](self, seat, body)
        if TRANSITIONS[kind][1] == "floor":
            self.chat = self.chat.new_turn()  # a new turn for chat (protocol/wire.md §9.7)
        return events

    def play_own(self, seat: int, deal: int, move: Move) -> tuple[m.MoveMsg, list[Event]]:
        """Apply our own ``move`` in ``deal`` (the rules checked once, by the machine) and return the
        body to sign -- its position hash that of the position the move reaches -- with the events.
        ``IllegalMoveError`` for an illegal move, ``RemoteProtocolError`` when no move of ``seat`` is
        allowed now (nothing changed either way)."""
        self._check_floor(seat, "move")
        _check_deal(self, seat, "move", deal)
        events, reached = _move(self, seat, move, None)
        self.chat = self.chat.new_turn()
        return m.MoveMsg(deal, move, reached), events

    def _check_floor(self, seat: int, kind: str) -> None:
        phases, who = TRANSITIONS[kind]
        sender = SEAT_NAMES[seat]
        if self.phase not in phases:
            raise RemoteProtocolError("out-of-turn", f"{sender} sent {kind} while the match is at {self._where()}")
        if who == "floor":
            floor, what = self.waiting_for()
            if floor != seat:
                raise RemoteProtocolError(
                    "out-of-turn", f"{sender} sent {kind} but the match waits for the {SEAT_NAMES[floor or 0]} ({what})"
                )

    def _where(self) -> str:
        seat, what = self.waiting_for()
        if seat is None:
            return f"phase {self.phase}"
        return f"phase {self.phase} (waiting for the {SEAT_NAMES[seat]}: {what})"

    # ----- going back (protocol/wire.md §8.3) ------------------------------------------------

    def mark(self) -> RefereeMark:
        """The state now, to :meth:`rewind` to later (cheap: nothing is copied that grows with the match)."""
        return RefereeMark(
            self.phase, (self.proposed, self.proposed_move_time), self.move_time, self.match,
            None if self.match is None else self.match.mark(), self.deal, self.commits, self.secrets,
            self.statements, self.rematch, self.open_claim, len(self.claim_steps), self.chat)

    def rewind(self, mark: RefereeMark) -> list[MatchEvent]:
        """Take the referee back to ``mark`` (made on it by :meth:`mark`; it has only gone on since); the
        machine's events that say so (:meth:`~p2ptrumps.match.Match.rewind`).  The mark stays usable."""
        self.phase, (self.proposed, self.proposed_move_time) = mark.phase, mark.proposed
        self.move_time, self.match, self.deal = mark.move_time, mark.match, mark.deal
        self.commits, self.secrets = mark.commits, mark.secrets
        self.statements, self.rematch = mark.statements, mark.rematch
        self.open_claim = mark.open_claim
        del self.claim_steps[mark.claim_steps:]
        self.chat = mark.chat
        if self.match is None or mark.match_mark is None:
            return []
        return self.match.rewind(mark.match_mark)




# ----- the transition table's rows: what each message does (protocol/wire.md §9.2) ----------------


def _check_deal(ref: Referee, seat: int, kind: str, deal: int) -> None:
    if deal != ref.deal:
        code = "bad-commitment" if kind in ("commit", "reveal") else "out-of-turn"
        raise RemoteProtocolError(
            code, f"{SEAT_NAMES[seat]} sent {kind} for deal {deal}, the current deal is {ref.deal}"
        )


def _game(ref: Referee, seat: int, action: object) -> list[MatchEvent]:
    """Hand ``action`` of ``seat`` to the machine; what it refuses is ``out-of-turn``."""
    assert ref.match is not None
    try:
        return ref.match.send(seat, action)  # type: ignore[arg-type]
    except IllegalActionError as exc:
        raise RemoteProtocolError("out-of-turn", f"the {SEAT_NAMES[seat]} {exc}") from None


def _after_game(ref: Referee, events: list[MatchEvent]) -> None:
    """Follow the machine into the statements: a deal's end (deal-end) or the match decided (match-end)."""
    assert ref.match is not None
    phase = ref.match.phase
    if phase == DEAL_END and ref.phase != DEAL_END:
        ref.statements = frozenset()
        ref.phase = DEAL_END
    elif phase == "over":
        ref.statements = frozenset()
        ref.phase = MATCH_END


def _on_rules(ref: Referee, seat: int, body: m.Body) -> list[Event]:
    assert isinstance(body, m.RulesMsg)
    ref.proposed = body.rules
    ref.proposed_move_time = body.move_time
    ref.phase = AGREE
    return [RulesProposed(body.rules, body.move_time)]


def _on_agree(ref: Referee, seat: int, body: m.Body) -> list[Event]:
    assert isinstance(body, m.AgreeMsg) and ref.proposed is not None
    if not body.accept:
        ref.phase = REFUSED
        return [RulesRefused()]
    ref.match = Match(ref.proposed, players=(PlayerInfo("host", "remote"), PlayerInfo("guest", "remote")),
                       source="network", quiet=ref.quiet)
    ref.move_time = ref.proposed_move_time
    ref.phase = TRUMP
    return [RulesAgreed(ref.proposed, ref.move_time)]


def _on_trump(ref: Referee, seat: int, body: m.Body) -> list[Event]:
    assert isinstance(body, m.TrumpMsg)
    events: list[Event] = [*_game(ref, seat, ChooseTrump(body.suit))]
    if seat == 1:
        _start_commits(ref, 1)
    return events


def _start_commits(ref: Referee, deal: int) -> None:
    ref.deal = deal
    ref.commits = {}
    ref.secrets = {}
    ref.phase = COMMIT


def _on_commit(ref: Referee, seat: int, body: m.Body) -> list[Event]:
    assert isinstance(body, m.CommitMsg)
    _check_deal(ref, seat, "commit", body.deal)
    ref.commits = {**ref.commits, seat: body.commitment}
    if len(ref.commits) == 2:
        ref.phase = REVEAL
    return []


def _on_reveal(ref: Referee, seat: int, body: m.Body) -> list[Event]:
    assert isinstance(body, m.RevealMsg)
    _check_deal(ref, seat, "reveal", body.deal)
    want = ref.commits[seat]
    got = m.commitment(ref.game_id, body.deal, seat, ref.keys[seat], body.secret)
    if got != want:
        raise RemoteProtocolError(
            "bad-reveal",
            f"the {SEAT_NAMES[seat]}'s reveal for deal {body.deal} does not open its commitment "
            f"({want.hex()[:16]}…, the secret gives {got.hex()[:16]}…)",
        )
    ref.secrets = {**ref.secrets, seat: body.secret}
    if len(ref.secrets) < 2:
        return []
    assert ref.match is not None
    seed = m.deal_seed(ref.game_id, ref.deal, ref.secrets[0], ref.secrets[1])
    events: list[Event] = [*ref.match.send(None, Deal(seed))]
    ref.phase = PLAY
    return events


def _on_move(ref: Referee, seat: int, body: m.Body) -> list[Event]:
    assert isinstance(body, m.MoveMsg)
    _check_deal(ref, seat, "move", body.deal)
    return _move(ref, seat, body.move, body.position)[0]


def _move(ref: Referee, seat: int, move: Move, claimed: bytes | None) -> tuple[list[Event], bytes]:
    """Play ``move`` of ``seat``; the position hash it reaches must be ``claimed`` (None: ours, to sign)."""
    match = ref.match
    assert match is not None
    offer = match.draw_offer
    try:
        events: list[Event] = [*match.send(seat, move)]
    except IllegalMoveError as exc:
        if claimed is None:
            raise  # our own move: the caller says so in its words
        raise RemoteProtocolError(
            "illegal-move", f"the {SEAT_NAMES[seat]}'s move {move.code} in deal {ref.deal} is illegal: {exc}"
        ) from None
    assert match.position is not None
    reached = m.position_hash(match.position)
    if claimed is not None and reached != claimed:
        match.unmove(offer)
        raise RemoteProtocolError(
            "wrong-position-hash",
            f"the {SEAT_NAMES[seat]}'s move {move.code} in deal {ref.deal} claims position "
            f"{(claimed or b'').hex()[:16]}…, the engine reaches {reached.hex()[:16]}…",
        )
    _after_game(ref, events)  # type: ignore[arg-type]
    return events, reached


def _on_resign(ref: Referee, seat: int, body: m.Body) -> list[Event]:
    assert isinstance(body, m.ResignMsg)
    _check_deal(ref, seat, "resign", body.deal)
    events = _game(ref, seat, Resign())
    _after_game(ref, events)
    return [*events]


def _on_offer_draw(ref: Referee, seat: int, body: m.Body) -> list[Event]:
    assert isinstance(body, m.OfferDrawMsg)
    _check_deal(ref, seat, "offer-draw", body.deal)
    return [*_game(ref, seat, OfferDraw())]


def _on_answer_draw(ref: Referee, seat: int, body: m.Body) -> list[Event]:
    assert isinstance(body, m.AnswerDrawMsg)
    _check_deal(ref, seat, "answer-draw", body.deal)
    events = _game(ref, seat, AnswerDraw(body.accept))
    _after_game(ref, events)
    return [*events]


def _on_chat(ref: Referee, seat: int, body: m.Body) -> list[Event]:
    assert isinstance(body, m.ChatMsg)
    why = ref.chat.refusal(seat, body.text)
    if why is not None:
        raise RemoteProtocolError("chat-limit", f"the {SEAT_NAMES[seat]} sent a chat beyond its limits: {why}")
    ref.chat = ref.chat.said(seat, body.text)
    return [ChatReceived(seat, body.text)]


def _on_deal_end(ref: Referee, seat: int, body: m.Body) -> list[Event]:
    assert isinstance(body, m.DealEndMsg) and ref.match is not None
    want = ref.expected_deal_end()
    _check_deal(ref, seat, "deal-end", body.deal)  # the deal field first, as in every body (wire.md §9.2)
    if body != want:
        raise RemoteProtocolError(
            "wrong-result", f"the {SEAT_NAMES[seat]}'s deal-end differs from the statement due: "
            + "; ".join(_deal_end_differences(body, want)))
    _sign_open_claim(ref, seat)
    ref.statements = ref.statements | {seat}
    if len(ref.statements) < 2:
        return []
    deal = ref.match.deal
    assert deal is not None and deal.outcome is not None
    events: list[Event] = [DealSigned(ref.deal, deal.outcome, ref.score())]
    ref.statements = frozenset()
    events += ref.match.send(None, NextDeal())
    if ref.match.phase == "over":
        ref.phase = MATCH_END
    else:
        _start_commits(ref, ref.deal + 1)
    return events


def _on_match_end(ref: Referee, seat: int, body: m.Body) -> list[Event]:
    assert isinstance(body, m.MatchEndMsg)
    want = ref.expected_match_end()
    if body != want:
        raise RemoteProtocolError(
            "wrong-result",
            f"the {SEAT_NAMES[seat]} signed the match score {body.score[0]}:{body.score[1]}; "
            f"the deals give {want.score[0]}:{want.score[1]} (half-points)",
        )
    _sign_open_claim(ref, seat)
    ref.statements = ref.statements | {seat}
    if len(ref.statements) < 2:
        return []
    ref.phase = DONE
    return [MatchSigned(ref.score())]


def _on_leave(ref: Referee, seat: int, body: m.Body) -> list[Event]:
    events = _game(ref, seat, Leave())
    _after_game(ref, events)
    return [*events]


def _on_claim(ref: Referee, seat: int, body: m.Body) -> list[Event]:
    assert isinstance(body, m.ClaimMsg) and ref.match is not None
    floor, what = ref.waiting_for()
    if floor != 1 - seat:
        raise RemoteProtocolError(
            "out-of-turn", f"the {SEAT_NAMES[seat]} claimed, but the match waits for itself ({what}): "
            "only the waiting seat may claim")
    due = max(ref.deal, 1)
    if body.deal != due:
        raise RemoteProtocolError(
            "out-of-turn", f"the {SEAT_NAMES[seat]} claimed deal {body.deal}, the deal at stake is {due}")
    pos = ref.match.position
    turn = pos.turn if ref.phase == PLAY and pos is not None else 0
    events = _game(ref, seat, Claim())
    ref.claim_steps.append((what, ref.deal, turn, 1 - seat))
    _after_game(ref, events)
    ref.open_claim = len(ref.match.claims) - 1
    return [*events]


def _sign_open_claim(ref: Referee, seat: int) -> None:
    if ref.open_claim is not None and ref.match is not None and ref.match.claims[ref.open_claim][0] == 1 - seat:
        ref.open_claim = None  # the claimed seat accepted


def _on_dispute(ref: Referee, seat: int, body: m.Body) -> list[Event]:
    assert isinstance(body, m.DisputeMsg)
    deal = ref.claim_against(seat)
    if deal is None:
        raise RemoteProtocolError(
            "out-of-turn", f"the {SEAT_NAMES[seat]} disputed, but no claim against it is open")
    if body.deal != deal:
        raise RemoteProtocolError(
            "out-of-turn", f"the {SEAT_NAMES[seat]} disputed deal {body.deal}, the claim is on deal {deal}")
    events = _game(ref, seat, Dispute())
    ref.open_claim = None
    ref.statements = frozenset()
    ref.phase = DISPUTED
    return [*events]


def _on_rematch(ref: Referee, seat: int, body: m.Body) -> list[Event]:
    if seat in ref.rematch:
        raise RemoteProtocolError("out-of-turn", f"the {SEAT_NAMES[seat]} offered a rematch twice")
    ref.rematch = ref.rematch | {seat}
    if len(ref.rematch) == 2:
        ref.phase = REMATCHED
        return [RematchOffered(seat), RematchAgreed()]
    return [RematchOffered(seat)]


#: What applies each kind of message (the handlers above), by kind.
_HANDLERS: dict[str, Callable[[Referee, int, m.Body], list[Event]]] = {
    "rules": _on_rules, "agree": _on_agree, "trump": _on_trump, "commit": _on_commit, "reveal": _on_reveal,
    "move": _on_move, "resign": _on_resign, "offer-draw": _on_offer_draw, "answer-draw": _on_answer_draw,
    "chat": _on_chat, "deal-end": _on_deal_end, "match-end": _on_match_end, "leave": _on_leave,
    "claim": _on_claim, "dispute": _on_dispute, "rematch": _on_rematch,
}


def _deal_end_differences(got: m.DealEndMsg, want: m.DealEndMsg) -> list[str]:
    """Each element of a deal-end statement that differs from the one due, in words."""
    out = []
    if got.deal != want.deal:
        out.append(f"it names deal {got.deal}, the current deal is {want.deal}")
    if (got.winner, got.reason) != (want.winner, want.reason):
        reasons = "/".join(m.REASONS)
        known = "" if got.reason in m.REASONS else f" (an unknown reason: the reasons are {reasons})"
        out.append(f"it says winner {_winner(got.winner)}, reason {got.reason!r}{known}; the deal ended with "
                   f"winner {_winner(want.winner)}, reason {want.reason!r}")
    if got.score != want.score:
        out.append(f"it says score {got.score[0]}:{got.score[1]}, the match score is {want.score[0]}:{want.score[1]} "
                   "(half-points)")
    return out


def _winner(w: int | None) -> str:
    return "none (a draw)" if w is None else f"seat {w}"
