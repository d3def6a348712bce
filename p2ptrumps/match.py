"""The match machine: the one engine that decides every match.

Source: RULES.md §2 (own trumps), §3 (the dealer), §4-§7 (a deal), §8 (the match); protocol/wire.md
§9.6 (draw offers), §15 (leaving) and §16 (claims on time and disputes).

Sans-IO, in the manner of h11 and wsproto: :meth:`Match.send` takes one action of one seat (or of the
deal source, seat None), checks it against the rules once, applies it and returns the
:mod:`~p2ptrumps.events` it caused; an action that is not allowed raises and changes nothing.  It
reads no clock, draws no randomness and awaits nothing: whoever drives it -- the offline table
(:mod:`p2ptrumps.seats`), ``arena``, the wire referee (:mod:`p2ptrumps.wire.chain`) for networked
play and ``verify`` -- gives it the deal seeds and the seats' actions, and reacts to its events.

The match goes through these phases (:attr:`Match.phase`)::

    trump -> deal -> play -> deal-end -> deal -> play -> ... -> over
                                 \\-> (a dispute) disputed

* ``trump``: seat 0 chooses its own trump, then seat 1 another suit (:class:`ChooseTrump`);
  skipped when the trumps are given.
* ``deal``: a deal is due; the deal source gives its seed (:class:`Deal`, seat None).  The dealer of
  deal 1 is ``first_dealer(seed)`` unless given; later, RULES.md §3.
* ``play``: the seat to move moves (a :class:`~p2ptrumps.rules.Move`); either seat may resign, offer
  a draw or answer the other's offer, claim on time, or leave.
* ``deal-end``: the deal is over; :class:`NextDeal` (seat None) goes on once the drivers have seen
  it (offline at once; over the network once both seats signed the result).
* ``over``: every deal is decided (:class:`~p2ptrumps.events.MatchEnded`); ``disputed``: a claim on
  time was disputed (protocol/wire.md §16), the match ended decided by no one.

The results are values the machine keeps: each dealt deal's :class:`~p2ptrumps.record.DealRecord`
(its moves and outcome, None while unfinished or after a dispute) in :attr:`Match.record`, and the
deals awarded without being dealt (:attr:`Match.awarded`: forfeited by a seat that left, or won by a
claim between deals).  The score is computed from them.

For the wire chain, :meth:`Match.mark` and :meth:`Match.rewind` take the match back to an earlier
state cheaply (protocol/wire.md §8.3: the guest's tentative messages withdrawn).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from .cards import SUIT_LETTERS
from .events import (
    Claimed,
    DealEnded,
    DealStarted,
    Disputed,
    DrawAnswered,
    DrawOffered,
    Left,
    MatchEnded,
    MatchEvent,
    MovePlayed,
    MovesTakenBack,
    Resigned,
    TrumpChosen,
    Withdrawn,
)
from .notation import position_text
from .record import DealRecord, MatchRecord, PlayerInfo
from .rules import Move, Outcome, Position, RuleSet, next_dealer
from .shuffle import deal_hands, first_dealer

# ----- actions ----------------------------------------------------------------------


@dataclass(frozen=True)
class ChooseTrump:
    """Choose ``suit`` (0..3) as the seat's own trump (RULES.md §2)."""

    suit: int


@dataclass(frozen=True)
class Resign:
    """Resign the deal in play (RULES.md §7): the other seat wins it."""


@dataclass(frozen=True)
class OfferDraw:
    """Offer a draw in the deal in play (RULES.md §7; protocol/wire.md §9.6)."""


@dataclass(frozen=True)
class AnswerDraw:
    """Answer the other seat's open draw offer; ``accept`` ends the deal drawn."""

    accept: bool


@dataclass(frozen=True)
class Undo:
    """Take back moves until the seat is to move again before its own last move (offline against the AI)."""


@dataclass(frozen=True)
class Claim:
    """Claim on time (protocol/wire.md §16): the match waits for the other seat, whose time ran out."""


@dataclass(frozen=True)
class Leave:
    """Leave the match (protocol/wire.md §15): the deal in play is resigned, the rest forfeited."""


@dataclass(frozen=True)
class Dispute:
    """Dispute the claim on time made against the seat (protocol/wire.md §16): its clock had not run out."""


@dataclass(frozen=True)
class Deal:
    """(the deal source, seat None) The due deal is dealt from ``seed`` (32 bytes; ignored for a deal
    set up from a position)."""

    seed: bytes


@dataclass(frozen=True)
class NextDeal:
    """(seat None) Go on after a deal's end: the next deal is due, or the match is decided."""


#: What a seat may do.
Action = Move | ChooseTrump | Resign | OfferDraw | AnswerDraw | Undo | Claim | Leave | Dispute
#: What the deal source (seat None) does.
SourceAction = Deal | NextDeal

TRUMP, DEAL, PLAY, DEAL_END, OVER, DISPUTED = "trump", "deal", "play", "deal-end", "over", "disputed"
#: The outcomes a deal may have without its moves reaching them.
ENDED_BY_SEATS = ("resign", "agreed-draw", "time")


class IllegalActionError(ValueError):
    """The action is not allowed now; the message says why, as a phrase about the acting seat (``"offered
    a draw while an offer is open"``) or, for a move, the rules' own reason.  Nothing changed."""


class Mark(NamedTuple):
    """A state of a :class:`Match` to come back to (:meth:`Match.rewind`); opaque."""

    phase: str
    number: int
    dealer: int | None
    trumps: tuple[int | None, int | None]
    position: Position | None
    depth: int
    deals: int
    moves: int
    outcome: Outcome | None
    draw_offer: int | None
    draw_offer_turns: dict[int, int]
    left: int | None
    awarded: dict[int, int]
    forfeited: tuple[int, ...]
    claims: int
    disputes: int


class Match:
    """One match between seat 0 and seat 1 (see the module docstring).

    Args:
        rules: the agreed rule set (``rules.deals`` deals).
        trumps: own trump of seat 0 and seat 1 (different suits); None: chosen in phase ``trump``.
        players: who sits in seat 0 and seat 1, for the record.
        started: when the match started (ISO 8601 text), for the record.
        source: the record's source (``"offline"``, ``"network"``, ``"arena"``).
        dealer: the first deal's dealer; None: ``first_dealer`` of the first seed.
        start: the first deal starts from this position (``play --position``; its record gets ``start``,
            protocol/record.md §3); its trumps are the match's.
        resume: a saved record of this match to go on with (``play --continue``): its finished deals
            stand, an unfinished last deal goes on from its last move (its moves are replayed:
            ``RecordError`` from :meth:`MatchRecord.start_of` or ``IllegalActionError`` if they do not),
            and the record grows in place.
        allow_undo: :class:`Undo` is allowed (offline against the AI).
        quiet: :meth:`send` returns no events (``verify`` reads none: it saves making them).

    Raises:
        ValueError: trumps that are not two different suits.
    """

    def __init__(self, rules: RuleSet, *, trumps: tuple[int, int] | None = None,
                 players: tuple[PlayerInfo, PlayerInfo] | None = None, started: str = "",
                 source: str = "offline", dealer: int | None = None, start: Position | None = None,
                 resume: MatchRecord | None = None, allow_undo: bool = False, quiet: bool = False) -> None:
        if resume is not None:
            rules, trumps = resume.rules, resume.trumps
        if start is not None:
            trumps = start.trumps
        if trumps is not None and (len(trumps) != 2 or trumps[0] == trumps[1]
                                   or not all(0 <= t <= 3 for t in trumps)):
            raise ValueError(f"trumps must be two different suits 0..3, not {trumps!r}")
        self.rules = rules
        self.allow_undo = allow_undo
        self.quiet = quiet
        self.players = players or (PlayerInfo("seat 0"), PlayerInfo("seat 1"))
        self.started = started
        self.source = source
        self.trumps: tuple[int | None, int | None] = (None, None) if trumps is None else (trumps[0], trumps[1])
        self.phase = TRUMP if trumps is None else DEAL
        #: The current (or last) deal's number, 0 before the first; its dealer (the first deal's while none).
        self.number = 0
        self.dealer = dealer
        self.start = start
        #: The deal in play (or the last one), None before the first.
        self.position: Position | None = None
        #: The seat whose draw offer is open, and the turn in which each seat last offered (wire.md §9.6).
        self.draw_offer: int | None = None
        self.draw_offer_turns: dict[int, int] = {}  # replaced, never changed in place (see mark)
        #: The seat that left the match, and the deals forfeited to the other seat (protocol/wire.md §15).
        self.left: int | None = None
        self.forfeited: tuple[int, ...] = ()
        #: Deals decided without being dealt: deal number -> the seat that won it (forfeits, claims);
        #: replaced, never changed in place.
        self.awarded: dict[int, int] = {}
        #: Each claim on time: the claimant and the deals it won (protocol/wire.md §16), in order.
        self.claims: list[tuple[int, tuple[int, ...]]] = []
        #: Each dispute: the index of the disputed claim in :attr:`claims` and the disputer.
        self.disputes: list[tuple[int, int]] = []
        self.record: MatchRecord | None = None
        if resume is not None:
            self.record = resume
            self._resume(resume)
        elif trumps is not None:
            self.record = self._new_record(trumps)

    def _new_record(self, trumps: tuple[int, int]) -> MatchRecord:
        return MatchRecord(rules=self.rules, trumps=trumps, players=self.players, started=self.started,
                           source=self.source)

    def _resume(self, record: MatchRecord) -> None:
        if not record.deals:
            return
        last = record.deals[-1]
        self.number, self.dealer = last.number, last.dealer
        if last.outcome is not None:
            self.position = record.start_of(last)
            self.phase = DEAL_END
            self.send(None, NextDeal())
            return
        pos = record.start_of(last)
        for move in last.moves:
            try:
                pos.push(move)
            except ValueError as exc:
                raise IllegalActionError(f"deal {last.number}: recorded move {move.code} is illegal: {exc}") from exc
        self.position = pos
        self.phase = PLAY

    # ----- queries ---------------------------------------------------------------------

    @property
    def deals(self) -> list[DealRecord]:
        """The deals dealt so far, the current one last (their moves and outcomes)."""
        return [] if self.record is None else self.record.deals

    @property
    def deal(self) -> DealRecord | None:
        """The current (or last) deal dealt, None before the first."""
        deals = self.deals
        return deals[-1] if deals else None

    def score_halves(self) -> tuple[int, int]:
        """The match score in half-points (seat 0, seat 1): the deals' outcomes (win 2, draw 1) and the
        deals awarded without being dealt (2 each)."""
        a = b = 0
        for d in self.deals:
            if d.outcome is not None:
                a += d.outcome.points(0)
                b += d.outcome.points(1)
        for seat in self.awarded.values():
            if seat == 0:
                a += 2
            else:
                b += 2
        return a, b

    def waiting_for(self) -> tuple[int | None, str]:
        """``(seat, what)`` the match waits for: ``"trump"`` (that seat's), ``"deal"`` (the deal source:
        seat None), ``"move"`` (the seat to move), ``"deal-end"`` (the drivers: seat None, then
        :class:`NextDeal`), ``"nothing"`` (over or disputed)."""
        if self.phase == TRUMP:
            return (0 if self.trumps[0] is None else 1), "trump"
        if self.phase == DEAL:
            return None, "deal"
        if self.phase == PLAY:
            assert self.position is not None
            return self.position.to_move, "move"
        if self.phase == DEAL_END:
            return None, "deal-end"
        return None, "nothing"

    @property
    def due(self) -> int:
        """The deal at stake: the deal in play, else the next one to deal (1 before the first)."""
        return self.number if self.phase == PLAY else self.number + 1

    def may_offer_draw(self, seat: int) -> bool:
        """Whether ``seat`` may offer a draw now (protocol/wire.md §9.6)."""
        return self._draw_refusal(seat) is None

    def replay_events(self) -> list[MatchEvent]:
        """The events that bring a reader from nothing to the deal in play: its
        :class:`~p2ptrumps.events.DealStarted` and a :class:`~p2ptrumps.events.MovePlayed` for each of its
        moves (a match taken up from a saved record or a log; the deals before it are in the score).
        Empty before the first deal."""
        deal = self.deal
        if deal is None or self.record is None:
            return []
        pos = self._start_of(deal)
        events: list[MatchEvent] = [DealStarted(deal.number, deal.dealer, pos.copy(), deal.seed)]
        for move in deal.moves:
            seat = pos.to_move
            pos.push_unchecked(move)
            events.append(MovePlayed(seat, move, pos.copy()))
        return events

    # ----- the transition function ---------------------------------------------------------

    def send(self, seat: int | None, action: Action | SourceAction) -> list[MatchEvent]:
        """Check that ``seat`` (None: the deal source) may take ``action`` now, apply it, and return the
        events it caused, in order.

        Raises:
            IllegalMoveError: an illegal move (the rules' reason, RULES.md §4-§6).
            IllegalActionError: any other action not allowed now (nothing changed).
        """
        if seat is None:
            if isinstance(action, Deal):
                return self._deal(action.seed)
            if isinstance(action, NextDeal):
                return self._next_deal()
            raise IllegalActionError(f"{action!r} is not an action of the deal source")
        if seat not in (0, 1):
            raise IllegalActionError(f"{seat!r} is not a seat")
        if isinstance(action, Move):
            return self._move(seat, action)
        if isinstance(action, ChooseTrump):
            return self._choose_trump(seat, action.suit)
        if isinstance(action, Resign):
            return self._resign(seat)
        if isinstance(action, OfferDraw):
            return self._offer_draw(seat)
        if isinstance(action, AnswerDraw):
            return self._answer_draw(seat, action.accept)
        if isinstance(action, Undo):
            return self._undo(seat)
        if isinstance(action, Claim):
            return self._claim(seat)
        if isinstance(action, Leave):
            return self._leave(seat)
        if isinstance(action, Dispute):
            return self._dispute(seat)
        raise IllegalActionError(f"{action!r} is not a move or an intent")

    def _in_play(self, what: str) -> Position:
        if self.phase != PLAY or self.position is None:
            raise IllegalActionError(f"{what}, but no deal is being played")
        return self.position

    def _choose_trump(self, seat: int, suit: int) -> list[MatchEvent]:
        if self.phase != TRUMP or self.waiting_for()[0] != seat:
            raise IllegalActionError("chose a trump out of turn")
        if type(suit) is not int or not 0 <= suit <= 3:
            raise IllegalActionError(f"chose {suit!r}, which is not a suit 0..3")
        if seat == 1 and suit == self.trumps[0]:
            raise IllegalActionError(f"chose the host's trump suit ({SUIT_LETTERS[suit]}); the suits must differ")
        self.trumps = (suit, self.trumps[1]) if seat == 0 else (self.trumps[0], suit)
        if seat == 1:
            a, b = self.trumps
            assert a is not None and b is not None
            self.record = self._new_record((a, b))
            self.phase = DEAL
        return [TrumpChosen(seat, suit)]

    def _deal(self, seed: bytes) -> list[MatchEvent]:
        if self.phase != DEAL or self.record is None:
            raise IllegalActionError("no deal is due")
        number = self.number + 1
        trumps = self.record.trumps
        if self.start is not None and number == 1:
            s = self.start
            pos = Position(self.rules, trumps, list(s.hands), s.pile, s.to_move, s.turn)
            dealer = 1 - s.to_move
            deal = DealRecord(number, dealer, b"", (s.hands[0], s.hands[1]), start=position_text(pos))
        else:
            if not isinstance(seed, bytes) or not seed:
                raise IllegalActionError("a deal needs a seed")
            dealer = self.dealer if self.dealer is not None else first_dealer(seed)
            hands = deal_hands(seed, self.rules, trumps, dealer)
            deal = DealRecord(number, dealer, seed, hands)
            pos = Position.start(self.rules, trumps, hands, dealer)
        self.number, self.dealer, self.position = number, dealer, pos
        self.draw_offer, self.draw_offer_turns = None, {}
        self.record.deals.append(deal)
        self.phase = PLAY
        return [] if self.quiet else [DealStarted(number, dealer, pos.copy(), deal.seed)]

    def _move(self, seat: int, move: Move) -> list[MatchEvent]:
        pos = self._in_play("moved")
        if pos.to_move != seat:
            raise IllegalActionError("moved out of turn")
        pos.push(move)  # the one check of the rules (IllegalMoveError)
        deals = self.record.deals  # type: ignore[union-attr]  # a deal is in play
        deals[-1].moves.append(move)
        if self.quiet:
            return self._end_deal() if pos.outcome is not None else []
        events: list[MatchEvent] = [MovePlayed(seat, move, pos.copy())]
        if pos.outcome is not None:
            events += self._end_deal()
        return events

    def _end_deal(self) -> list[MatchEvent]:
        pos, deal = self.position, self.deal
        assert pos is not None and pos.outcome is not None and deal is not None
        deal.outcome = pos.outcome
        self.draw_offer = None
        self.phase = DEAL_END
        return [] if self.quiet else [DealEnded(self.number, pos.outcome, pos.copy(), self.score_halves())]

    def _resign(self, seat: int) -> list[MatchEvent]:
        self._in_play("resigned").resign(seat)
        return [Resigned(self.number, seat), *self._end_deal()]

    def _draw_refusal(self, seat: int) -> str | None:
        if self.phase != PLAY or self.position is None:
            return "offered a draw, but no deal is being played"
        if self.draw_offer is not None:
            return "offered a draw while an offer is open"
        if self.draw_offer_turns.get(seat) == self.position.turn:
            return f"offered a draw twice in turn {self.position.turn}"
        return None

    def _offer_draw(self, seat: int) -> list[MatchEvent]:
        why = self._draw_refusal(seat)
        if why is not None:
            raise IllegalActionError(why)
        assert self.position is not None
        self.draw_offer_turns = {**self.draw_offer_turns, seat: self.position.turn}
        self.draw_offer = seat
        return [DrawOffered(self.number, seat)]

    def _answer_draw(self, seat: int, accept: bool) -> list[MatchEvent]:
        pos = self._in_play("answered a draw offer")
        if self.draw_offer != 1 - seat:
            raise IllegalActionError("answered a draw offer nobody made to it")
        self.draw_offer = None
        events: list[MatchEvent] = [DrawAnswered(self.number, seat, bool(accept))]
        if accept:
            pos.agree_draw()
            events += self._end_deal()
        return events

    def _undo(self, seat: int) -> list[MatchEvent]:
        pos = self._in_play("took back a move")
        if not self.allow_undo:
            raise IllegalActionError("undo is not allowed in this match")
        deal = self.deal
        assert deal is not None
        replay = self._start_of(deal)
        movers = []
        for m in deal.moves:
            movers.append(replay.to_move)
            replay.push_unchecked(m)
        n = 0
        if seat in movers:
            n = len(deal.moves) - (len(movers) - 1 - movers[::-1].index(seat))
        for _ in range(n):
            pos.pop()
            deal.moves.pop()
        return [MovesTakenBack(n, pos.copy())]

    def _claim(self, seat: int) -> list[MatchEvent]:
        if self.phase == PLAY:
            assert self.position is not None
            if self.position.to_move != 1 - seat:
                raise IllegalActionError("claimed on time, but the match waits for itself")
            self.position.lose_on_time(1 - seat)
            won: tuple[int, ...] = (self.number,)
            self.claims.append((seat, won))
            return [Claimed(seat, self.number, won), *self._end_deal()]
        if self.phase == TRUMP and self.waiting_for()[0] != 1 - seat:
            raise IllegalActionError("claimed on time, but the match waits for itself")
        if self.phase not in (TRUMP, DEAL):
            raise IllegalActionError(f"claimed on time in phase {self.phase}")
        due = self.number + 1
        won = self._award_rest(due, seat)
        self.claims.append((seat, won))
        return [Claimed(seat, due, won), self._match_ended()]

    def _award_rest(self, first: int, winner: int) -> tuple[int, ...]:
        """Decide deals ``first`` .. the last as won by ``winner`` without dealing them; phase over."""
        deals = tuple(range(first, self.rules.deals + 1))
        self.awarded = {**self.awarded, **dict.fromkeys(deals, winner)}
        self.position = None if self.phase in (TRUMP, DEAL) else self.position
        self.phase = OVER
        return deals

    def _match_ended(self) -> MatchEnded:
        self.phase = OVER
        return MatchEnded(self.score_halves(), self.record)

    def _leave(self, seat: int) -> list[MatchEvent]:
        if self.left is not None:
            raise IllegalActionError("left a match already left")
        if self.phase not in (TRUMP, DEAL, PLAY, DEAL_END):
            raise IllegalActionError(f"left the match in phase {self.phase}")
        self.left = seat
        events: list[MatchEvent] = [Left(seat)]
        if self.phase == PLAY:
            assert self.position is not None
            self.position.resign(seat)
            events += self._end_deal()
        elif self.phase in (TRUMP, DEAL):
            self.forfeited = self._award_rest(self.number + 1, 1 - seat)
            events.append(self._match_ended())
        return events

    def _next_deal(self) -> list[MatchEvent]:
        if self.phase != DEAL_END:
            raise IllegalActionError("no deal has just ended")
        deal = self.deal
        assert deal is not None and deal.outcome is not None
        if self.left is not None:
            self.forfeited = self._award_rest(self.number + 1, 1 - self.left)
            return [self._match_ended()]
        if self.number >= self.rules.deals:
            return [self._match_ended()]
        self.dealer = next_dealer(deal.dealer, deal.outcome)
        self.phase = DEAL
        return []

    def _dispute(self, seat: int) -> list[MatchEvent]:
        if self.phase not in (DEAL_END, OVER):
            raise IllegalActionError(f"disputed in phase {self.phase}")
        if not self.claims or self.claims[-1][0] != 1 - seat or any(i == len(self.claims) - 1
                                                                    for i, _ in self.disputes):
            raise IllegalActionError("disputed, but no claim against it is open")
        claimant, won = self.claims[-1]
        deal = self.deal
        if len(won) == 1 and deal is not None and deal.number == won[0] and deal.outcome is not None:
            deal.outcome = None  # the claim in play: its deal has no result
        else:
            self.awarded = {d: s for d, s in self.awarded.items() if d not in won}
        self.disputes.append((len(self.claims) - 1, seat))
        self.phase = DISPUTED
        return [Disputed(seat, claimant, won[0])]

    def _start_of(self, deal: DealRecord) -> Position:
        assert self.record is not None
        return self.record.start_of(deal)

    # ----- going back (protocol/wire.md §8.3) ------------------------------------------------

    def unmove(self, draw_offer: int | None) -> None:
        """Take back the move just applied by :meth:`send` (a move whose message fails a later check:
        its position hash), ``draw_offer`` the open offer before it; the match is as before it."""
        pos, deal = self.position, self.deal
        assert pos is not None and deal is not None and deal.moves
        pos.pop()
        deal.moves.pop()
        deal.outcome = None
        self.phase, self.draw_offer = PLAY, draw_offer

    def mark(self) -> Mark:
        """The state now, to :meth:`rewind` to later (cheap: nothing is copied; the containers a mark keeps
        are replaced, never changed in place, and the lists that only grow are kept by length)."""
        pos = self.position
        deals = self.record.deals if self.record is not None else []
        deal = deals[-1] if deals else None
        return Mark(
            self.phase, self.number, self.dealer, self.trumps, pos, 0 if pos is None else len(pos._stack),
            len(deals), 0 if deal is None else len(deal.moves), None if deal is None else deal.outcome,
            self.draw_offer, self.draw_offer_turns, self.left, self.awarded, self.forfeited, len(self.claims),
            len(self.disputes))

    def rewind(self, mark: Mark) -> list[MatchEvent]:
        """Take the match back to ``mark`` (made by :meth:`mark` on this match, which has only gone on
        since); returns what a reader needs to follow: :class:`~p2ptrumps.events.Withdrawn` with the moves
        taken back in the deal in play, or, when a deal dealt since is gone, the :meth:`replay_events`
        of the deal that is current again.  The mark stays usable."""
        deals = self.deals
        dealt_since = len(deals) > mark.deals
        moves_before = len(deals[-1].moves) if deals else 0
        del deals[mark.deals:]
        if deals:
            deals[-1].outcome = mark.outcome
            del deals[-1].moves[mark.moves:]
        if mark.position is not None:
            mark.position.pop_to(mark.depth)
        self.phase, self.number, self.dealer, self.trumps = mark.phase, mark.number, mark.dealer, mark.trumps
        self.position, self.draw_offer = mark.position, mark.draw_offer
        self.draw_offer_turns = mark.draw_offer_turns
        self.left, self.awarded, self.forfeited = mark.left, mark.awarded, mark.forfeited
        del self.claims[mark.claims:]
        del self.disputes[mark.disputes:]
        if None in self.trumps:
            self.record = None
        if self.quiet:
            return []
        if dealt_since:
            return [Withdrawn(0, None if self.position is None else self.position.copy()), *self.replay_events()]
        taken = moves_before - mark.moves
        return [Withdrawn(taken, None if self.position is None else self.position.copy())]
