"""Our deal secrets: each deal's commitment and its reveal (protocol/wire.md §9.3, §14.4).

:class:`Commitments` keeps the secret given for the next deal until our commitment is due, the secrets
committed, the reveals asked for, and what was announced (:class:`~p2ptrumps.events.CommitDue`,
:class:`~p2ptrumps.events.RevealDue`).  It reads the referee; the session signs what it says is due.
"""

from __future__ import annotations

from ..events import CommitDue, RevealDue
from . import messages as m
from .errors import LocalProtocolError
from .referee import COMMIT, PLAY, REVEAL, Referee


class Commitments:
    """The commit-reveal of our seat in one match.

    Args:
        seat: ours; ``public_key``: our raw 32-byte key (the commitment covers it, protocol/wire.md §6).
    """

    def __init__(self, seat: int, public_key: bytes) -> None:
        self.seat = seat
        self.public_key = public_key
        self.pending: tuple[int, bytes] | None = None  # (deal, secret) given, not yet sent
        self.secrets: dict[int, bytes] = {}  # deal -> our secret (commitment sent)
        self.reveal_wanted: set[int] = set()
        self.announced: set[tuple[str, int]] = set()  # CommitDue/RevealDue already said
        #: Deals whose commitment of ours came back from the peer after a resume with its secret lost
        #: (neither log nor resume file kept it): we cannot reveal (protocol/wire.md §14.4).
        self.lost: set[int] = set()
        #: Deal secrets of the resume file (a restored session): for a commitment of ours that comes back.
        self.stored: dict[int, bytes] = {}

    def next_deal(self, ref: Referee | None) -> int | None:
        """The deal our next commitment is for, if one may be given now."""
        if ref is None or ref.rules is None or ref.trumps_pair is None or self.pending is not None:
            return None
        if ref.phase == COMMIT and self.seat not in ref.commits:
            target = ref.deal
        elif ref.phase in (COMMIT, REVEAL, PLAY, "deal-end") and ref.deal < ref.rules.deals:
            target = ref.deal + 1
        else:
            return None
        return None if target in self.secrets else target

    def give(self, secret: bytes, ref: Referee | None) -> None:
        """Our 32-byte ``secret`` for the next deal, sent when our commitment is due.
        ``LocalProtocolError`` when no deal waits for one."""
        deal = self.next_deal(ref)
        if deal is None:
            raise LocalProtocolError("no deal waits for our commitment now")
        self.pending = (deal, secret)

    def want_reveal(self, ref: Referee | None) -> None:
        """Reveal our secret of the current (or coming) deal when due.  ``LocalProtocolError`` without a
        commitment to open (or with its secret lost)."""
        deal = None
        if self.pending is not None:
            deal = self.pending[0]
        elif ref is not None and ref.deal in self.secrets and self.seat not in ref.secrets:
            deal = ref.deal
        if deal is None and ref is not None and ref.deal in self.lost:
            raise LocalProtocolError(
                f"our commitment for deal {ref.deal} came back from the peer, but its secret is lost "
                "(neither our log nor the resume file kept it): we cannot reveal")
        if deal is None or deal in self.reveal_wanted:
            raise LocalProtocolError("there is no commitment of ours waiting to be revealed")
        self.reveal_wanted.add(deal)

    def revealing(self, deal: int) -> bool:
        """Whether our reveal of ``deal`` is given already (sent, or held until it is due)."""
        return deal in self.reveal_wanted

    def due(self, ref: Referee, what: str) -> m.Body | None:
        """Our commitment or reveal, when the match waits for ``what`` from us and we gave it."""
        if what == COMMIT and self.pending is not None and self.pending[0] == ref.deal:
            deal, secret = self.pending
            return m.CommitMsg(deal, m.commitment(ref.game_id, deal, self.seat, self.public_key, secret))
        if what == REVEAL and ref.deal in self.reveal_wanted and ref.deal in self.secrets:
            return m.RevealMsg(ref.deal, self.secrets[ref.deal])
        return None

    def signed(self, body: m.Body) -> None:
        """Our ``body`` took its place in the chain: a commitment's secret is now committed."""
        if isinstance(body, m.CommitMsg):
            assert self.pending is not None
            self.secrets[body.deal] = self.pending[1]
            self.pending = None

    def announce(self, ref: Referee) -> CommitDue | RevealDue | None:
        """:class:`CommitDue` / :class:`RevealDue` once, when the match waits for commitments (reveals)
        of a deal and ours is not given."""
        _, what = ref.waiting_for()
        if what not in (COMMIT, REVEAL) or (what, ref.deal) in self.announced:
            return None
        if what == COMMIT:
            mine = self.seat not in ref.commits and self.pending is None and ref.deal not in self.secrets
        else:
            mine = self.seat not in ref.secrets and ref.deal not in self.reveal_wanted
        if not mine:
            return None
        self.announced.add((what, ref.deal))
        return CommitDue(ref.deal) if what == COMMIT else RevealDue(ref.deal)

    def came_back(self, body: m.CommitMsg, game_id: bytes, secrets: dict[int, bytes] | None = None) -> None:
        """A commitment of ours in the chain that this side did not make now (read back from our log,
        or sent back by the peer after a resume, protocol/wire.md §14.2 step 5, §14.4): its secret is
        the one of ``secrets`` (default: the resume file's, :attr:`stored`) that opens it, or lost."""
        deal = body.deal
        if self.pending is not None and self.pending[0] == deal:
            self.pending = None  # the commitment we had signed stands; a new secret is never used
        secret = (self.stored if secrets is None else secrets).get(deal)
        if secret is not None and m.commitment(game_id, deal, self.seat, self.public_key, secret) == body.commitment:
            self.secrets[deal] = secret
        elif secrets is None:
            self.lost.add(deal)
