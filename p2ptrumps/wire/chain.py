"""The match as the protocol sees it: the referee (one transition table) and the joint hash chain.

Source: ``protocol/wire.md`` §8 (the chain and concurrent sends) and §9 (the match).

:class:`Referee` holds the state of the match between the two seats and decides,
for every chained message, whether its sender may send it now and what it
changes.  It is the single place where the protocol's rules live: the live
:class:`~p2ptrumps.wire.session.Session` runs it for both sides' messages and
``verify`` runs it over a log.  :class:`JointChain` puts messages into the one
hash chain (sequence numbers, prev hashes, signatures, the host-wins rule for
crossing messages) and feeds them to the referee.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from ..cards import SUIT_LETTERS
from ..rules import IllegalMoveError, Move, Outcome, Position, RuleSet, next_dealer
from ..shuffle import deal_hands, first_dealer
from . import messages as m
from .errors import LocalProtocolError, PeerFlood, RemoteProtocolError
from .events import (
    ChatReceived,
    Claimed,
    DealEnded,
    DealReady,
    Disputed,
    DrawAnswered,
    DrawOffered,
    Event,
    Left,
    MatchEnded,
    MoveReceived,
    RematchAgreed,
    RematchOffered,
    Resigned,
    RulesAgreed,
    RulesProposed,
    RulesRefused,
    TrumpChosen,
)
from .identity import Identity, PublicKey

SEAT_NAMES = ("host", "guest")
_T = TypeVar("_T")

# Phases (protocol/wire.md §9.1).  FLOOR[phase] = what the match waits for.
DISPUTED = "disputed"  # a claim was disputed: the match ended decided by no one (protocol/wire.md §16)
RULES, AGREE, TRUMP, COMMIT, REVEAL, PLAY, DEAL_END, MATCH_END, DONE, REFUSED, REMATCHED = (
    "rules",
    "agree",
    "trump",
    "commit",
    "reveal",
    "play",
    "deal-end",
    "match-end",
    "done",
    "refused",
    "rematched",
)

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
#: Guest messages a live host holds as superseded (protocol/wire.md §8.3 row a) since the guest's last
#: message placed; one more is a flood (protocol/wire.md §17).  An honest guest's crossing run is far
#: shorter: at most two floor messages in a row, 10 chats a turn and a few other interjections.
MAX_SUPERSEDED = 64


def first_committer(deal: int) -> int:
    """Seat that commits and reveals first in ``deal`` (host in odd deals); the other reveals last."""
    return 0 if deal % 2 == 1 else 1


@dataclass
class DealInfo:
    """What the referee remembers of a dealt deal (for verdicts and records)."""

    number: int
    dealer: int
    seed: bytes
    hands: tuple[int, int]
    outcome: Outcome | None = None


#: How a live session names a message in its own seat signed by its own key: the peer
#: only relayed it; another process with this identity and this match signed it.
OTHER_COPY = ("another copy of this side is running (the same match resumed twice, or two processes sharing "
              "one identity key)")


@dataclass
class Referee:
    """The state of one match between seat 0 (host) and seat 1 (guest).

    Args:
        game_id: the 32-byte game id (protocol/wire.md §7.2).
        keys: raw 32-byte public keys of seat 0 and seat 1.

    :meth:`apply` checks and applies one message; it raises
    ``RemoteProtocolError`` (changing nothing) when the message is not allowed.
    """

    game_id: bytes
    keys: tuple[bytes, bytes]
    phase: str = RULES
    proposed: RuleSet | None = None
    rules: RuleSet | None = None
    #: The move clock (protocol/wire.md §16): seconds per move proposed / agreed, 0 = none.
    proposed_move_time: int = 0
    move_time: int = 0
    trumps: list[int | None] = field(default_factory=lambda: [None, None])
    deal: int = 0
    dealer: int | None = None
    commits: dict[int, bytes] = field(default_factory=dict)
    secrets: dict[int, bytes] = field(default_factory=dict)
    position: Position | None = None
    draw_offer: int | None = None
    draw_offer_turns: dict[int, int] = field(default_factory=dict)
    outcome: Outcome | None = None
    statements: set[int] = field(default_factory=set)
    score: list[int] = field(default_factory=lambda: [0, 0])
    rematch: set[int] = field(default_factory=set)
    deals: list[DealInfo] = field(default_factory=list)
    #: The seat that left the match (protocol/wire.md §15), and the deals it forfeited.
    left: int | None = None
    forfeited: list[int] = field(default_factory=list)
    #: Each standing claim (protocol/wire.md §16): the claimant and the deals it won, in chain order.
    claims: list[tuple[int, list[int]]] = field(default_factory=list)
    #: The open claim (protocol/wire.md §16): its index in :attr:`claims`, until the claimed seat signs.
    open_claim: int | None = None
    #: The step each claim was made on, as the clock times it: ``(step, deal, turn, seat awaited)``,
    #: the turn the moves of the deal for a move, else 0 (protocol/wire.md §16).
    claim_steps: list[tuple[str, int, int, int]] = field(default_factory=list)
    #: Each dispute: (the index of the disputed claim in :attr:`claims`, the disputer).
    disputes: list[tuple[int, int]] = field(default_factory=list)
    #: Chat of each seat (protocol/wire.md §9.7): in the current turn, in the match, bytes of text.
    chats_in_turn: list[int] = field(default_factory=lambda: [0, 0])
    chats_in_match: list[int] = field(default_factory=lambda: [0, 0])
    chat_bytes: list[int] = field(default_factory=lambda: [0, 0])

    def copy(self) -> Referee:
        """An independent copy (the position and the containers copied)."""
        return Referee(
            game_id=self.game_id,
            keys=self.keys,
            phase=self.phase,
            proposed=self.proposed,
            rules=self.rules,
            proposed_move_time=self.proposed_move_time,
            move_time=self.move_time,
            trumps=list(self.trumps),
            deal=self.deal,
            dealer=self.dealer,
            commits=dict(self.commits),
            secrets=dict(self.secrets),
            position=None if self.position is None else self.position.copy(),
            draw_offer=self.draw_offer,
            draw_offer_turns=dict(self.draw_offer_turns),
            outcome=self.outcome,
            statements=set(self.statements),
            score=list(self.score),
            rematch=set(self.rematch),
            deals=[DealInfo(d.number, d.dealer, d.seed, d.hands, d.outcome) for d in self.deals],
            left=self.left,
            forfeited=list(self.forfeited),
            claims=[(s, list(d)) for s, d in self.claims],
            open_claim=self.open_claim,
            claim_steps=list(self.claim_steps),
            disputes=list(self.disputes),
            chats_in_turn=list(self.chats_in_turn),
            chats_in_match=list(self.chats_in_match),
            chat_bytes=list(self.chat_bytes),
        )

    # ----- queries ---------------------------------------------------------------

    @property
    def trumps_pair(self) -> tuple[int, int] | None:
        a, b = self.trumps
        return None if a is None or b is None else (a, b)

    def waiting_for(self) -> tuple[int | None, str]:
        """``(seat, what)`` the match waits for; seat None when either may act (see Session.waiting_for)."""
        p = self.phase
        if p == RULES:
            return 0, "rules"
        if p == AGREE:
            return 1, "agree"
        if p == TRUMP:
            return (0 if self.trumps[0] is None else 1), "trump"
        if p in (COMMIT, REVEAL):
            a = first_committer(self.deal)
            done = self.commits if p == COMMIT else self.secrets
            return (a if a not in done else 1 - a), p
        if p == PLAY:
            assert self.position is not None
            return self.position.to_move, "move"
        if p in (DEAL_END, MATCH_END):
            return (0 if 0 not in self.statements else 1), p
        if p == DONE:
            return None, "rematch"
        if p == DISPUTED:
            return None, "nothing"
        return None, "nothing"

    def floor_seat(self) -> int | None:
        return self.waiting_for()[0]

    def expected_deal_end(self) -> m.DealEndMsg:
        """The deal-end statement due now (phase deal-end)."""
        assert self.outcome is not None
        return m.DealEndMsg.of(self.deal, self.outcome, (self.score[0], self.score[1]))

    def expected_match_end(self) -> m.MatchEndMsg:
        return m.MatchEndMsg((self.score[0], self.score[1]))

    def chat_refusal(self, seat: int, text: str) -> str | None:
        """Why ``seat`` may not send the chat line ``text`` now under the chat limits (protocol/wire.md
        §9.7), in words; None when it may (the phase is checked elsewhere)."""
        if self.chats_in_turn[seat] >= MAX_CHATS_PER_TURN:
            return f"{MAX_CHATS_PER_TURN} chat lines in one turn are the most"
        if self.chats_in_match[seat] >= MAX_CHATS_PER_MATCH:
            return f"{MAX_CHATS_PER_MATCH} chat lines in one match are the most"
        size = len(text.encode("utf-8"))
        if self.chat_bytes[seat] + size > MAX_CHAT_BYTES_PER_MATCH:
            return (f"{MAX_CHAT_BYTES_PER_MATCH} bytes of chat in one match are the most "
                    f"({self.chat_bytes[seat]} used, this line has {size})")
        return None

    def move_hash(self, move: Move) -> bytes:
        """Position hash after ``move`` (legal for the seat to move); ``IllegalMoveError`` otherwise."""
        assert self.position is not None
        pos = self.position
        pos.push(move)
        try:
            return m.position_hash(pos)
        finally:
            pos.pop()

    # ----- the transition function --------------------------------------------------

    def apply(self, seat: int, body: m.Body) -> list[Event]:
        """Check that ``seat`` may send ``body`` now and apply it; return the events it causes.

        Raises ``RemoteProtocolError`` (out-of-turn, illegal-move, wrong-position-hash,
        bad-commitment, bad-reveal, wrong-result, malformed) leaving the state unchanged.
        """
        kind = body.KIND
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
        handler = getattr(self, "_on_" + kind.replace("-", "_"))
        events: list[Event] = handler(seat, body)
        if who == "floor":
            self.chats_in_turn = [0, 0]  # a new turn for chat (protocol/wire.md §9.7)
        return events

    def _where(self) -> str:
        seat, what = self.waiting_for()
        if seat is None:
            return f"phase {self.phase}"
        return f"phase {self.phase} (waiting for the {SEAT_NAMES[seat]}: {what})"

    def _check_deal(self, seat: int, kind: str, deal: int) -> None:
        if deal != self.deal:
            code = "bad-commitment" if kind in ("commit", "reveal") else "out-of-turn"
            raise RemoteProtocolError(
                code, f"{SEAT_NAMES[seat]} sent {kind} for deal {deal}, the current deal is {self.deal}"
            )

    def _on_rules(self, seat: int, body: m.Body) -> list[Event]:
        assert isinstance(body, m.RulesMsg)
        self.proposed = body.rules
        self.proposed_move_time = body.move_time
        self.phase = AGREE
        return [RulesProposed(body.rules, body.move_time)]

    def _on_agree(self, seat: int, body: m.Body) -> list[Event]:
        assert isinstance(body, m.AgreeMsg) and self.proposed is not None
        if not body.accept:
            self.phase = REFUSED
            return [RulesRefused()]
        self.rules = self.proposed
        self.move_time = self.proposed_move_time
        self.phase = TRUMP
        return [RulesAgreed(self.rules, self.move_time)]

    def _on_trump(self, seat: int, body: m.Body) -> list[Event]:
        assert isinstance(body, m.TrumpMsg)
        if seat == 1 and body.suit == self.trumps[0]:
            raise RemoteProtocolError(
                "out-of-turn",
                f"the guest chose the host's trump suit ({SUIT_LETTERS[body.suit]}); the suits must differ",
            )
        self.trumps[seat] = body.suit
        if seat == 1:
            self._start_commits(1)
        return [TrumpChosen(seat, body.suit)]

    def _start_commits(self, deal: int) -> None:
        self.deal = deal
        self.commits = {}
        self.secrets = {}
        self.position = None
        self.outcome = None
        self.draw_offer = None
        self.draw_offer_turns = {}
        self.phase = COMMIT

    def _on_commit(self, seat: int, body: m.Body) -> list[Event]:
        assert isinstance(body, m.CommitMsg)
        self._check_deal(seat, "commit", body.deal)
        self.commits[seat] = body.commitment
        if len(self.commits) == 2:
            self.phase = REVEAL
        return []

    def _on_reveal(self, seat: int, body: m.Body) -> list[Event]:
        assert isinstance(body, m.RevealMsg)
        self._check_deal(seat, "reveal", body.deal)
        want = self.commits[seat]
        got = m.commitment(self.game_id, body.deal, seat, self.keys[seat], body.secret)
        if got != want:
            raise RemoteProtocolError(
                "bad-reveal",
                f"the {SEAT_NAMES[seat]}'s reveal for deal {body.deal} does not open its commitment "
                f"({want.hex()[:16]}…, the secret gives {got.hex()[:16]}…)",
            )
        self.secrets[seat] = body.secret
        if len(self.secrets) < 2:
            return []
        rules, trumps = self.rules, self.trumps_pair
        assert rules is not None and trumps is not None
        seed = m.deal_seed(self.game_id, self.deal, self.secrets[0], self.secrets[1])
        if self.deal == 1:
            self.dealer = first_dealer(seed)
        assert self.dealer is not None
        hands = deal_hands(seed, rules, trumps, self.dealer)
        self.position = Position.start(rules, trumps, hands, self.dealer)
        self.deals.append(DealInfo(self.deal, self.dealer, seed, hands))
        self.phase = PLAY
        return [DealReady(self.deal, self.dealer, seed, hands)]

    def _on_move(self, seat: int, body: m.Body) -> list[Event]:
        assert isinstance(body, m.MoveMsg) and self.position is not None
        self._check_deal(seat, "move", body.deal)
        pos = self.position
        try:
            pos.push(body.move)
        except IllegalMoveError as exc:
            raise RemoteProtocolError(
                "illegal-move", f"the {SEAT_NAMES[seat]}'s move {body.move.code} in deal {self.deal} is illegal: {exc}"
            ) from None
        h = m.position_hash(pos)
        if h != body.position:
            pos.pop()
            raise RemoteProtocolError(
                "wrong-position-hash",
                f"the {SEAT_NAMES[seat]}'s move {body.move.code} in deal {self.deal} claims position "
                f"{body.position.hex()[:16]}…, the engine reaches {h.hex()[:16]}…",
            )
        events: list[Event] = [MoveReceived(self.deal, seat, body.move)]
        if pos.outcome is not None:
            self._end_deal(pos.outcome)
        return events

    def _end_deal(self, outcome: Outcome) -> None:
        self.outcome = outcome
        self.score[0] += outcome.points(0)
        self.score[1] += outcome.points(1)
        self.deals[-1].outcome = outcome
        self.draw_offer = None
        self.statements = set()
        self.phase = DEAL_END

    def _on_resign(self, seat: int, body: m.Body) -> list[Event]:
        assert isinstance(body, m.ResignMsg) and self.position is not None
        self._check_deal(seat, "resign", body.deal)
        self.position.resign(seat)
        assert self.position.outcome is not None
        self._end_deal(self.position.outcome)
        return [Resigned(body.deal, seat)]

    def _on_offer_draw(self, seat: int, body: m.Body) -> list[Event]:
        assert isinstance(body, m.OfferDrawMsg)
        self._check_deal(seat, "offer-draw", body.deal)
        if self.draw_offer is not None:
            raise RemoteProtocolError("out-of-turn", f"the {SEAT_NAMES[seat]} offered a draw while an offer is open")
        assert self.position is not None
        if self.draw_offer_turns.get(seat) == self.position.turn:
            raise RemoteProtocolError(
                "out-of-turn", f"the {SEAT_NAMES[seat]} offered a draw twice in turn {self.position.turn}"
            )
        self.draw_offer_turns[seat] = self.position.turn
        self.draw_offer = seat
        return [DrawOffered(body.deal, seat)]

    def _on_answer_draw(self, seat: int, body: m.Body) -> list[Event]:
        assert isinstance(body, m.AnswerDrawMsg) and self.position is not None
        self._check_deal(seat, "answer-draw", body.deal)
        if self.draw_offer != 1 - seat:
            raise RemoteProtocolError("out-of-turn", f"the {SEAT_NAMES[seat]} answered a draw offer nobody made to it")
        self.draw_offer = None
        events: list[Event] = [DrawAnswered(body.deal, seat, body.accept)]
        if body.accept:
            self.position.agree_draw()
            assert self.position.outcome is not None
            self._end_deal(self.position.outcome)
        return events

    def _on_chat(self, seat: int, body: m.Body) -> list[Event]:
        assert isinstance(body, m.ChatMsg)
        why = self.chat_refusal(seat, body.text)
        if why is not None:
            raise RemoteProtocolError("chat-limit", f"the {SEAT_NAMES[seat]} sent a chat beyond its limits: {why}")
        self.chats_in_turn[seat] += 1
        self.chats_in_match[seat] += 1
        self.chat_bytes[seat] += len(body.text.encode("utf-8"))
        return [ChatReceived(seat, body.text)]

    def _on_deal_end(self, seat: int, body: m.Body) -> list[Event]:
        assert isinstance(body, m.DealEndMsg) and self.rules is not None
        want = self.expected_deal_end()
        self._check_deal(seat, "deal-end", body.deal)  # the deal field first, as in every body (wire.md §9.2)
        if body != want:
            raise RemoteProtocolError(
                "wrong-result", f"the {SEAT_NAMES[seat]}'s deal-end differs from the statement due: "
                + "; ".join(_deal_end_differences(body, want)))
        self._sign_open_claim(seat)
        self.statements.add(seat)
        if len(self.statements) < 2:
            return []
        assert self.outcome is not None
        events: list[Event] = [DealEnded(self.deal, self.outcome, (self.score[0], self.score[1]))]
        self.statements = set()
        if self.left is not None:
            self.forfeited = self._award_rest(self.deal + 1, 1 - self.left)
        elif self.deal >= self.rules.deals:
            self.phase = MATCH_END
        else:
            assert self.dealer is not None
            self.dealer = next_dealer(self.dealer, self.outcome)
            self._start_commits(self.deal + 1)
        return events

    def _on_match_end(self, seat: int, body: m.Body) -> list[Event]:
        assert isinstance(body, m.MatchEndMsg)
        want = self.expected_match_end()
        if body != want:
            raise RemoteProtocolError(
                "wrong-result",
                f"the {SEAT_NAMES[seat]} signed the match score {body.score[0]}:{body.score[1]}; "
                f"the deals give {want.score[0]}:{want.score[1]} (half-points)",
            )
        self._sign_open_claim(seat)
        self.statements.add(seat)
        if len(self.statements) < 2:
            return []
        self.phase = DONE
        return [MatchEnded((self.score[0], self.score[1]))]

    def _award_rest(self, first: int, winner: int) -> list[int]:
        """Score deals ``first`` .. the last as won by ``winner`` without dealing them (a seat left,
        §15, or was claimed against between deals, §16); phase match-end.  Returns those deals."""
        assert self.rules is not None
        deals = list(range(first, self.rules.deals + 1))
        self.score[winner] += 2 * len(deals)
        self.statements = set()
        self.phase = MATCH_END
        return deals

    def _on_leave(self, seat: int, body: m.Body) -> list[Event]:
        if self.left is not None:
            raise RemoteProtocolError("out-of-turn", f"the {SEAT_NAMES[seat]} left a match already left")
        self.left = seat
        events: list[Event] = [Left(seat)]
        if self.phase == PLAY:
            assert self.position is not None
            self.position.resign(seat)
            assert self.position.outcome is not None
            self._end_deal(self.position.outcome)
        elif self.phase in (TRUMP, COMMIT, REVEAL):
            self.position = None
            self.forfeited = self._award_rest(max(self.deal, 1), 1 - seat)
        return events

    def _on_claim(self, seat: int, body: m.Body) -> list[Event]:
        assert isinstance(body, m.ClaimMsg)
        floor, what = self.waiting_for()
        if floor != 1 - seat:
            raise RemoteProtocolError(
                "out-of-turn", f"the {SEAT_NAMES[seat]} claimed, but the match waits for itself ({what}): "
                "only the waiting seat may claim")
        due = max(self.deal, 1)
        if body.deal != due:
            raise RemoteProtocolError(
                "out-of-turn", f"the {SEAT_NAMES[seat]} claimed deal {body.deal}, the deal at stake is {due}")
        turn = self.position.turn if self.phase == PLAY and self.position is not None else 0
        self.claim_steps.append((what, self.deal, turn, 1 - seat))
        if self.phase == PLAY:
            assert self.position is not None
            self.position.lose_on_time(1 - seat)
            assert self.position.outcome is not None
            self._end_deal(self.position.outcome)
            won = [self.deal]
        else:
            self.position = None
            won = self._award_rest(due, seat)
        self.claims.append((seat, won))
        self.open_claim = len(self.claims) - 1
        return [Claimed(seat, due, tuple(won))]

    def claim_against(self, seat: int) -> int | None:
        """The deal of the claim open against ``seat`` (protocol/wire.md §16), None when none is."""
        if self.open_claim is None:
            return None
        claimant, won = self.claims[self.open_claim]
        return won[0] if claimant == 1 - seat else None

    def _sign_open_claim(self, seat: int) -> None:
        if self.open_claim is not None and self.claims[self.open_claim][0] == 1 - seat:
            self.open_claim = None  # the claimed seat accepted

    def _on_dispute(self, seat: int, body: m.Body) -> list[Event]:
        assert isinstance(body, m.DisputeMsg)
        deal = self.claim_against(seat)
        if deal is None:
            raise RemoteProtocolError(
                "out-of-turn", f"the {SEAT_NAMES[seat]} disputed, but no claim against it is open")
        if body.deal != deal:
            raise RemoteProtocolError(
                "out-of-turn", f"the {SEAT_NAMES[seat]} disputed deal {body.deal}, the claim is on deal {deal}")
        assert self.open_claim is not None
        claimant, won = self.claims[self.open_claim]
        self.disputes.append((self.open_claim, seat))
        self.open_claim = None
        if len(won) == 1 and self.deals and self.deals[-1].number == won[0] and self.deals[-1].outcome is not None:
            outcome = self.deals[-1].outcome  # the claim in play: its deal has no result
            self.score[0] -= outcome.points(0)
            self.score[1] -= outcome.points(1)
            self.deals[-1].outcome = None
        else:
            self.score[claimant] -= 2 * len(won)
        self.outcome = None
        self.statements = set()
        self.phase = DISPUTED
        return [Disputed(seat, claimant, body.deal)]

    def _on_rematch(self, seat: int, body: m.Body) -> list[Event]:
        if seat in self.rematch:
            raise RemoteProtocolError("out-of-turn", f"the {SEAT_NAMES[seat]} offered a rematch twice")
        self.rematch.add(seat)
        if len(self.rematch) == 2:
            self.phase = REMATCHED
            return [RematchOffered(seat), RematchAgreed()]
        return [RematchOffered(seat)]


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


@dataclass
class Received:
    """Result of :meth:`JointChain.receive`.

    ``events``: what the message caused.  ``superseded``: the message crossed a
    host message and was ignored (host side only; not logged).  ``withdrawn``:
    our own tentative (guest) messages the host's message displaced, oldest
    first -- re-sign them on top if still allowed.
    """

    events: list[Event] = field(default_factory=list)
    superseded: bool = False
    withdrawn: list[m.Signed] = field(default_factory=list)


class JointChain:
    """The one hash chain of a match, over both seats' messages (protocol/wire.md §8).

    Args:
        game_id: 32 bytes.
        keys: the checked public keys of seat 0 and seat 1.
        viewpoint: our seat in a live session (0 host, 1 guest), or None for
            ``verify`` (messages of both seats arrive in log order).

    Placement: message ``i`` has ``seq == i`` and ``prev == hash(message i-1)``
    (``prev`` of message 0 is the game id).  When a host message arrives for a
    place already taken by guest messages not yet acknowledged by the host,
    those guest messages are withdrawn (the host's message takes the place).
    The host, for its part, ignores a guest message that crossed one of its own
    (its place is taken by a host message, or it builds on such an ignored one).
    """

    def __init__(self, game_id: bytes, keys: tuple[PublicKey, PublicKey], viewpoint: int | None) -> None:
        self.game_id = game_id
        self.keys = keys
        self.viewpoint = viewpoint
        self.referee = Referee(game_id, (keys[0].raw, keys[1].raw))
        self.entries: list[m.Signed] = []
        self._confirmed = 0  # entries[:_confirmed] can no longer be withdrawn
        self._snapshot: Referee | None = None  # referee at len == _confirmed, while tentative entries exist
        #: Hash of each guest message found superseded -> the message (a live host keeps it as possible
        #: evidence, at most :data:`MAX_SUPERSEDED` since the guest's last message placed; verify: None).
        self._stale: dict[bytes, m.Signed | None] = {}
        #: (seq, prev) -> hash of each guest message found superseded (and, in verify, withdrawn)
        #: (protocol/verify.md §3 step 4): another message for one of these places is equivocation.
        #: A live host forgets them with the superseded messages, once a guest message is placed.
        self._gone: dict[tuple[int, bytes], bytes] = {}
        #: How many guest messages were superseded (ignored) and withdrawn (protocol/wire.md §8.3 rows a, g).
        self.superseded = 0
        self.withdrawn = 0
        #: Hashes of the messages this side signed or read back from its log (withdrawn ones too): one of
        #: them sent back by the peer is the peer's doing; any other in our seat with our key is not.
        self._ours: set[bytes] = set()

    @property
    def head(self) -> bytes:
        """Hash of the last message (the game id while the chain is empty)."""
        return self.entries[-1].hash if self.entries else self.game_id

    def hash_before(self, seq: int) -> bytes:
        return self.entries[seq - 1].hash if seq > 0 else self.game_id

    def __len__(self) -> int:
        return len(self.entries)

    # ----- our own messages ------------------------------------------------------------

    def append_local(self, identity: Identity, seat: int, body: m.Body) -> tuple[m.Signed, list[Event]]:
        """Sign ``body`` as ``seat`` at the next place and apply it.

        Raises :class:`LocalProtocolError` (nothing changes) if the referee refuses it.
        """
        msg = m.build_signed(self.game_id, seat, len(self.entries), self.head, body, identity.sign)
        try:
            events = self._apply_and_append(msg)
        except RemoteProtocolError as exc:
            raise LocalProtocolError(str(exc)) from None
        self._ours.add(msg.hash)
        return msg, events

    def place_own(self, msg: m.Signed) -> list[Event]:
        """Place one of our own messages, already signed, read back from our log (a restart,
        protocol/wire.md §14.4): it must carry a good signature and fit the end of the chain.

        Raises ``RemoteProtocolError`` (the log is not ours, or is damaged) changing nothing.
        """
        self.check_signature(msg)
        if msg.seq != len(self.entries) or msg.prev != self.head:
            raise RemoteProtocolError(
                "broken-chain", f"our own message {msg.seq} ({msg.kind}) does not fit the end of the chain "
                f"({len(self.entries)} messages)")
        events = self._apply_and_append(msg)
        self._ours.add(msg.hash)
        return events

    # ----- messages received (or read from a log) ----------------------------------------

    def _signed_by_us(self, msg: m.Signed | m.Envelope) -> bool:
        """Whether ``msg`` (in our own seat) carries a good signature of our own key over this game and
        is not one of the messages this chain holds (those the peer may just send back)."""
        if msg.hash in self._ours:
            return False
        try:
            self.check_signature(msg)
        except RemoteProtocolError:
            return False
        return True

    def check_signature(self, msg: m.Signed | m.Envelope) -> None:
        """``wrong-game`` / ``bad-signature`` checks of one message."""
        if msg.game != self.game_id[:8]:
            raise RemoteProtocolError(
                "wrong-game",
                f"message {msg.seq} ({msg.kind}) belongs to game {msg.game.hex()}…, "
                f"not this game {self.game_id[:8].hex()}… (replayed from another session)",
            )
        if not self.keys[msg.seat].verify(msg.sig, m.signing_input(self.game_id, msg.unsigned())):
            raise RemoteProtocolError(
                "bad-signature",
                f"message {msg.seq} ({msg.kind}): the {SEAT_NAMES[msg.seat]}'s signature does not verify",
            )

    def receive(self, msg: m.Signed | m.Envelope, own: bool = False) -> Received:
        """Check and place one received message (protocol/wire.md §8.2 steps 3-8).

        ``msg`` is an :class:`~p2ptrumps.wire.messages.Envelope` (body not yet checked) or a
        whole :class:`~p2ptrumps.wire.messages.Signed`.  Raises ``RemoteProtocolError`` naming
        the fault: malformed (our own seat), wrong-game, bad-signature, then the body's
        malformed / non-canonical, sequence-gap, broken-chain, equivocation and whatever the
        referee refuses.  Faults that the sender's checked signature proves carry
        ``proven_by`` (protocol/verify.md §3.1).

        ``own`` (verify, :attr:`viewpoint` None): ``msg`` has the seat of the log's owner
        (protocol/verify.md §3): a game field or signature that fails, or a place where the
        table says sequence-gap or broken-chain, is ``malformed`` instead -- the owner's
        session places its own messages at the end of its chain, so such a frame is not the
        owner's message as its session logged it (the peer sent it, or the file changed: the
        reason does not guess which, verify.md §3.1).
        """
        if self.viewpoint is not None and msg.seat == self.viewpoint:
            if self._signed_by_us(msg):  # not the peer's doing: it relays what another copy of us signed
                raise RemoteProtocolError(
                    "malformed", f"message {msg.seq} ({msg.kind}) in our own seat ({SEAT_NAMES[msg.seat]}) is signed "
                    f"by our own key, but this side never signed it: {OTHER_COPY}")
            raise RemoteProtocolError(
                "malformed", f"message {msg.seq} claims to come from our own seat ({SEAT_NAMES[msg.seat]})"
            )
        who = SEAT_NAMES[msg.seat]
        try:
            self.check_signature(msg)
        except RemoteProtocolError as exc:
            if not own:
                raise
            raise RemoteProtocolError(
                "malformed", f"message {msg.seq} ({msg.kind}) claims to come from seat {msg.seat} ({who}), the log's "
                f"owner, but is not its message of this game ({exc.code})") from None
        signed = _open(msg)
        if signed.seat == 1 and self.viewpoint is None:
            self._check_gone(signed)
        if signed.seat == 1 and self.viewpoint != 1 and self._is_stale(signed):
            if self.viewpoint is None:
                self._gone.setdefault((signed.seq, signed.prev), signed.hash)
                self._stale[signed.hash] = None
            else:
                self._hold_superseded(signed)
            self.superseded += 1
            return Received(superseded=True)
        try:
            return self._place(signed)
        except RemoteProtocolError as exc:
            if not own or exc.proven_by is not None:
                raise
            raise RemoteProtocolError(
                "malformed", f"message {signed.seq} ({signed.kind}) of seat {signed.seat} ({who}), the log's owner, "
                f"does not fit the chain ({exc.code}: {exc.reason}); a session places its own messages at the end "
                "of its chain") from None

    def _place(self, msg: m.Signed) -> Received:
        """Placement (protocol/wire.md §8.3, rows b-h) of a checked message of the peer."""
        n = len(self.entries)
        who = SEAT_NAMES[msg.seat]
        if msg.seq > n:
            raise RemoteProtocolError(
                "sequence-gap", f"{who} message {msg.seq} ({msg.kind}) arrived, but the chain holds {n} messages"
            )
        if msg.prev != self.hash_before(msg.seq):
            raise RemoteProtocolError(
                "broken-chain",
                f"{who} message {msg.seq} ({msg.kind}) does not link to message {msg.seq - 1}"
                if msg.seq
                else f"{who} message 0 ({msg.kind}) does not start from the game id",
            )
        if msg.seq == n:
            received = Received(events=self._proven(msg, lambda: self._apply_and_append(msg)))
            if msg.seat == 1 and self.viewpoint == 0:
                # The guest has seen every host message before this one: nothing it sent earlier can
                # cross them any more (TCP keeps order), so the superseded ones are forgotten.
                self._stale.clear()
                self._gone.clear()
            return received
        # The place is taken.
        taken = self.entries[msg.seq]
        if taken.hash == msg.hash:
            raise RemoteProtocolError(
                "sequence-gap", f"{who} message {msg.seq} ({msg.kind}) is a repeat of one already in the chain"
            )
        later = self.entries[msg.seq :]
        if msg.seat == 0 and msg.seq >= self._confirmed and all(e.seat == 1 for e in later):
            def place() -> Received:
                # A message that fails the match rules changes nothing, not even the withdrawal its
                # placement made (protocol/verify.md §5): keep what the withdrawal replaces.
                # Only the tentative tail, the confirmed count and the memories added are kept for the
                # undo, never a copy of the whole chain: linear in the log.
                assert self._snapshot is not None
                confirmed = self._confirmed
                tail = self.entries[confirmed:]
                added = [] if self.viewpoint is not None else [
                    (e.seq, e.prev) for e in self.entries[msg.seq:] if (e.seq, e.prev) not in self._gone]
                saved = (self.referee, self._snapshot.copy(), self.withdrawn)
                withdrawn = self._withdraw_from(msg.seq)
                try:
                    events = self._apply_and_append(msg)
                except RemoteProtocolError:
                    del self.entries[confirmed:]
                    self.entries.extend(tail)
                    self._confirmed = confirmed
                    self.referee, self._snapshot, self.withdrawn = saved
                    for key in added:
                        self._gone.pop(key, None)
                    raise
                return Received(events=events, withdrawn=withdrawn)
            return self._proven(msg, place)
        raise RemoteProtocolError(
            "equivocation",
            f"the {who} signed two different messages for place {msg.seq} "
            f"({taken.kind} {taken.hash.hex()[:16]}… and {msg.kind} {msg.hash.hex()[:16]}…)"
            if taken.seat == msg.seat
            else f"the {who} signed message {msg.seq} ({msg.kind}) on a history it had already built past",
            proven_by=msg.seat,
        )

    @staticmethod
    def _proven(msg: m.Signed, act: Callable[[], _T]) -> _T:
        """Run ``act``; a fault it raises (the referee's) is proven by ``msg``'s signature."""
        try:
            return act()
        except RemoteProtocolError as exc:
            exc.proven_by = msg.seat
            raise

    def _is_stale(self, msg: m.Signed) -> bool:
        """(host view) a guest message that crossed a host message: ignore it, the guest re-sends."""
        if msg.prev in self._stale:
            return True
        n = len(self.entries)
        return msg.seq < n and msg.prev == self.hash_before(msg.seq) and self.entries[msg.seq].seat == 0

    def _hold_superseded(self, msg: m.Signed) -> None:
        """(live host) Keep a superseded guest message: a different one for its place (seq and prev) is
        equivocation, proven with the kept one (and those it builds on) logged first as evidence
        (protocol/wire.md §12); the same bytes again change nothing.  :class:`PeerFlood` beyond
        :data:`MAX_SUPERSEDED` (protocol/wire.md §17)."""
        other = self._gone.get((msg.seq, msg.prev))
        if other is not None and other != msg.hash:
            exc = RemoteProtocolError(
                "equivocation",
                f"the guest signed two different messages for place {msg.seq} on one history ({msg.kind} "
                f"{msg.hash.hex()[:16]}…, after a superseded one, {other.hex()[:16]}…)",
                proven_by=1,
            )
            exc.evidence = self._evidence_of(other)
            raise exc
        if msg.hash in self._stale:
            return
        if len(self._stale) >= MAX_SUPERSEDED:
            raise PeerFlood(f"the guest sent more than {MAX_SUPERSEDED} messages in a row that crossed ours "
                            "(superseded): it floods us")
        self._gone[(msg.seq, msg.prev)] = msg.hash
        self._stale[msg.hash] = msg

    def _evidence_of(self, digest: bytes) -> tuple[bytes, ...]:
        """The payloads of the kept superseded message ``digest`` and of the superseded ones it builds
        on, oldest first (a verifier needs them all to find it superseded too)."""
        out: list[bytes] = []
        msg = self._stale.get(digest)
        for _ in range(MAX_SUPERSEDED + 1):
            if msg is None:
                break
            out.append(msg.payload)
            msg = self._stale.get(msg.prev)
        return tuple(reversed(out))

    def _check_gone(self, msg: m.Signed) -> None:
        """(verify) A guest message for the place (seq and prev) of a guest message found superseded
        or withdrawn, with other bytes, is equivocation proven by the guest's signature, whatever
        placement row would apply to it otherwise (protocol/verify.md §3 step 4)."""
        other = self._gone.get((msg.seq, msg.prev))
        if other is not None and other != msg.hash:
            raise RemoteProtocolError(
                "equivocation",
                f"the guest signed two different messages for place {msg.seq} on one history (the second, "
                f"{msg.kind} {msg.hash.hex()[:16]}…, after one withdrawn or superseded, {other.hex()[:16]}…)",
                proven_by=1,
            )

    def _withdraw_from(self, seq: int) -> list[m.Signed]:
        assert self._snapshot is not None
        kept = self.entries[self._confirmed : seq]
        withdrawn = self.entries[seq:]
        self.withdrawn += len(withdrawn)
        if self.viewpoint is None:
            for e in withdrawn:
                self._gone.setdefault((e.seq, e.prev), e.hash)
        self.referee = self._snapshot
        self._snapshot = None
        del self.entries[self._confirmed :]
        for e in kept:
            self._apply_and_append(e)
        return withdrawn

    def _apply_and_append(self, msg: m.Signed) -> list[Event]:
        tentative = msg.seat == 1 and self.viewpoint != 0
        if tentative and self._snapshot is None:
            snap = self.referee.copy()
            events = self.referee.apply(msg.seat, msg.body)
            self._snapshot = snap
        else:
            events = self.referee.apply(msg.seat, msg.body)
        self.entries.append(msg)
        if not tentative:
            self._confirmed = len(self.entries)
            self._snapshot = None
        return events


def _open(msg: m.Signed | m.Envelope) -> m.Signed:
    """The body of a message whose signature checked out (protocol/wire.md §8.2 step 6):
    a bad body is proven by that signature."""
    if isinstance(msg, m.Signed):
        return msg
    try:
        return msg.open()
    except RemoteProtocolError as exc:
        exc.proven_by = msg.seat
        raise
