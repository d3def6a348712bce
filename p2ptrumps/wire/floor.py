"""Our side of the chain: the floor and the interjections -- what we say, signed and placed; what is
due from us, sent by itself; and ours that crossed the host's, re-signed on top.

Source: ``protocol/wire.md`` §8.3 (concurrent sends), §9 (the floor, the bodies), §9.7 (chat), §14.2
step 5 (nothing signed while behind), §15 (leave), §16 (claims; a claim against us: our statement or a
dispute).  :class:`Floor` holds no state of the match: the chain's referee (and its match machine)
decides; it keeps what only our side knows -- our commit secrets
(:class:`~p2ptrumps.wire.commitments.Commitments`), the messages of ours it had to drop, and how our
clock answers a claim.  Its intents raise :class:`~p2ptrumps.wire.errors.LocalProtocolError` when the
message is not allowed now; nothing is sent then.
"""

from __future__ import annotations

from collections.abc import Callable

from ..events import Event
from ..match import DEAL_END
from ..rules import Move
from . import messages as m
from .chain import JointChain
from .commitments import Commitments
from .errors import LocalProtocolError
from .identity import Identity
from .referee import DONE, MATCH_END, PLAY, TRANSITIONS, Referee

#: ``claim_check(step)``: whether our own clock ran out on ``step`` (``(step, deal, turn, seat)``,
#: protocol/wire.md §16).
ClaimCheck = Callable[[tuple[str, int, int, int]], bool]


class Floor:
    """Our messages in the chain of one match (see the module docstring).

    Args:
        seat: ours; ``identity``: our key.
        emit: ``emit(msg, acked)`` for each message of ours placed (the session logs and sends it);
            ``acked``: whether the peer must acknowledge it (protocol/wire.md §14.5: up to the match's end).
        guard: ``guard()`` raises ``LocalProtocolError`` when we may sign nothing now (the session is
            over, the handshake not done, or we catch up after a resume); else gives the referee.
        current: ``current()`` raises ``LocalProtocolError`` when the session is over; else gives the
            referee once the peer's key is accepted (else None): a commitment may be given ahead.
        publish: ``publish(events)`` hands the events of what we signed to the session (which then
            sends what fell due).
        gone: ``gone()``: the peer closed the connection once the match began (a claim is then only
            logged: the peer stayed away, protocol/wire.md §16).

    The chain is attached (:meth:`attach`) once both hellos are in.  :attr:`claim_check` (how our clock
    answers a claim against us; None accepts every claim) and :attr:`dropped` (our withdrawn messages
    no longer allowed, with why) are public.
    """

    def __init__(self, seat: int, identity: Identity, emit: Callable[[m.Signed, bool], None],
                 guard: Callable[[], Referee], current: Callable[[], Referee | None],
                 publish: Callable[[list[Event]], None], gone: Callable[[], bool]) -> None:
        self.seat = seat
        self.identity = identity
        self.emit, self.guard, self.current, self.publish, self.gone = emit, guard, current, publish, gone
        self.chain: JointChain | None = None
        self.commitments = Commitments(seat, identity.public_bytes)
        self.claim_check: ClaimCheck | None = None
        self.dropped: list[tuple[m.Body, str]] = []

    def attach(self, chain: JointChain) -> None:
        """The match's chain, once both hellos are in."""
        self.chain = chain

    # ----- intents -------------------------------------------------------------

    def accept_rules(self) -> None:
        """(guest) Accept the proposed rules.  ``LocalProtocolError`` unless a proposal waits."""
        self._send(m.AgreeMsg(True))

    def refuse_rules(self) -> None:
        """(guest) Refuse the proposed rules: the session ends with no match."""
        self._send(m.AgreeMsg(False))

    def choose_trump(self, suit: int) -> None:
        """Choose our own trump ``suit`` (0..3).  The host chooses first, the guest a different suit.
        ``LocalProtocolError`` out of turn or for a taken suit."""
        if not isinstance(suit, int) or not 0 <= suit <= 3:
            raise LocalProtocolError(f"{suit!r} is not a suit 0..3")
        self._send(m.TrumpMsg(int(suit)))

    def commit(self, secret: bytes) -> None:
        """Give our 32-byte commit ``secret`` (``os.urandom(32)``) for the next deal, sent when due (e.g.
        on :class:`~p2ptrumps.events.CommitDue`).  ``LocalProtocolError`` when we gave one for that deal
        already or no deal is coming; ``ValueError`` if ``secret`` is not 32 bytes."""
        if not isinstance(secret, bytes) or len(secret) != 32:
            raise ValueError("a commit secret is 32 bytes")
        self.commitments.give(secret, self.current())
        self.publish([])

    def reveal(self) -> None:
        """Reveal our secret of the current (or coming) deal when due; may be called right after
        :meth:`commit`.  ``LocalProtocolError`` without a commitment to open."""
        self.commitments.want_reveal(self.current())
        self.publish([])

    def play(self, move: Move) -> None:
        """Play ``move`` (it must be our turn and legal): the match machine applies it, and it is signed
        with the hash of the position it reaches.  ``LocalProtocolError`` otherwise (the message says
        why, e.g. the engine's reason)."""
        ref = self.guard()
        pos = None if ref.match is None else ref.match.position
        if ref.phase != PLAY or pos is None:
            raise LocalProtocolError("no deal is being played")
        if pos.to_move != self.seat:
            raise LocalProtocolError("it is not our turn to move")
        self._send(m.MoveMsg(ref.deal, move, b""))  # its position hash is the one the move reaches

    def resign(self) -> None:
        """Resign the current deal (allowed at any time during play, in turn or not)."""
        self._send(m.ResignMsg(self.guard().deal))

    def offer_draw(self) -> None:
        """Offer a draw in the current deal (one open offer at a time; any time during play)."""
        self._send(m.OfferDrawMsg(self.guard().deal))

    def answer_draw(self, accept: bool) -> None:
        """Answer the peer's open draw offer; accepting ends the deal as an agreed draw."""
        self._send(m.AnswerDrawMsg(self.guard().deal, bool(accept)))

    def chat(self, text: str) -> None:
        """Send a chat line (1..500 characters, no control characters), signed and in the chain,
        within the chat limits (protocol/wire.md §9.7: 10 a turn, 200 and 32768 bytes a match);
        :class:`LocalProtocolError` names the limit reached."""
        try:
            m.check_chat(text)
        except ValueError as exc:
            raise LocalProtocolError(str(exc)) from None
        why = self.guard().chat_refusal(self.seat, text)
        if why is not None:
            raise LocalProtocolError(why + (" (wait for the next move)" if "one turn" in why else ""))
        self._send(m.ChatMsg(text))

    def offer_rematch(self) -> None:
        """Offer (or accept the peer's offer of) a rematch once the match has ended."""
        self._send(m.RematchMsg())

    def leave(self) -> None:
        """Leave the match (protocol/wire.md §15): the deal in play is resigned, the deals not yet
        dealt are forfeited, and both sides then sign the final score.  ``LocalProtocolError``
        when leaving is not allowed now (before the trumps, at or after the match's end)."""
        self._send(m.LeaveMsg())

    def claim(self) -> None:
        """Claim on time (protocol/wire.md §16): the match waits for the peer, whose move clock ran
        out or who stayed away.  In phase play the deal ends won by us (reason ``"time"``); between
        deals (trump, commit, reveal) every deal not yet dealt is ours and the match goes to its signed
        end.  Also once the peer closed the connection (the claim and the statements it makes due are
        then only logged).  ``LocalProtocolError`` when the match does not wait for the peer in one of
        those phases, or the session ended otherwise."""
        if self.gone() and self.chain is not None:
            events = self.sign(m.ClaimMsg(max(self.chain.referee.deal, 1)))
            self.publish(events + self.due())  # our statements that fall due at once
            return
        self._send(m.ClaimMsg(max(self.guard().deal, 1)))

    # ----- what the session asks ----------------------------------------------------


    def _send(self, body: m.Body) -> None:
        self.guard()
        self.publish(self.sign(body))

    def sign(self, body: m.Body) -> list[Event]:
        """Sign ``body`` at the next place and apply it (a move is applied first, once, and signed with
        the hash of the position it reached); hand it to ``emit``.  ``LocalProtocolError`` (nothing
        changes) when the referee refuses it."""
        chain = self.chain
        assert chain is not None
        acked = chain.referee.phase != DONE
        if isinstance(body, m.MoveMsg):
            msg, events = chain.play_local(self.identity, self.seat, body.deal, body.move)
        else:
            msg, events = chain.append_local(self.identity, self.seat, body)
        self.emit(msg, acked)
        self.commitments.signed(body)
        return events

    def due(self) -> list[Event]:
        """Send what is due from us by itself -- our deal-end and match-end statements (or a dispute of
        a claim our clock contradicts, protocol/wire.md §16), our commitment and reveal once given --
        and say which commitment or reveal is wanted; the events."""
        assert self.chain is not None
        ref = self.chain.referee
        events: list[Event] = []
        for _ in range(8):  # at most a few automatic messages in a row
            seat, what = ref.waiting_for()
            if seat != self.seat:
                break
            body = self._statement(what) or self.commitments.due(ref, what)
            if body is None:
                break
            events += self.sign(body)
        announced = self.commitments.announce(ref)
        if announced is not None:
            events.append(announced)
        return events

    def _statement(self, what: str) -> m.Body | None:
        assert self.chain is not None
        ref = self.chain.referee
        if what not in (DEAL_END, MATCH_END):
            return None
        claimed = ref.claim_against(self.seat)
        if claimed is not None and self.claim_check is not None \
                and not self.claim_check(ref.claim_steps[ref.open_claim or 0]):
            return m.DisputeMsg(claimed)  # our clock had not run out (§16)
        return ref.expected_deal_end() if what == DEAL_END else ref.expected_match_end()

    def resign_withdrawn(self, withdrawn: list[m.Signed], host_msg: m.Signed, catching_up: bool) -> list[Event]:
        """Our messages the host's ``host_msg`` displaced (protocol/wire.md §8.3): each re-signed on top if
        it is still allowed, else dropped (:attr:`dropped`, with why); the events."""
        events: list[Event] = []
        for old in withdrawn:
            if catching_up:  # never while behind: the peer's re-signed copy, if it holds one, comes back
                self.dropped.append((old.body, "withdrawn while catching up after a resume (wire.md §14.2 step 5)"))
                continue
            if isinstance(old.body, m.ClaimMsg) and TRANSITIONS[host_msg.kind][1] == "floor":
                # The host made a step in time as the chain now shows: the claim is dropped (wire.md §16).
                self.dropped.append((old.body, f"the host's {host_msg.kind} came first: its step was in time"))
                continue
            try:
                events += self.sign(self._refresh(old.body))
            except LocalProtocolError as exc:
                self.dropped.append((old.body, str(exc)))
        return events

    def _refresh(self, body: m.Body) -> m.Body:
        """A withdrawn body made current (a move is signed again with the position hash of now)."""
        ref = self.guard()
        if isinstance(body, m.MoveMsg) and (ref.match is None or ref.match.position is None or ref.phase != PLAY):
            raise LocalProtocolError("the deal ended before our move could be placed")
        return body
