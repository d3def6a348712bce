"""Reconnecting: one match over several connections, and the acknowledgement of our last message.

Source: ``protocol/wire.md`` §14.1-§14.2 (the ``resume`` and ``proof`` frames, what is sent again,
catching up), §14.4 (a side that restarted: its session rebuilt from its log by
:meth:`Session.restore <p2ptrumps.wire.session.Session.restore>`) and §14.5 (the last message: when
the peer holds it for sure).

:class:`Resumption` is the state of that exchange; the session feeds it the frames and sends what it
says.  It reads no clock: the transport decides when a link is lost and a new one begins.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import framing
from . import messages as m
from .chain import JointChain
from .errors import RemoteProtocolError
from .identity import Identity


@dataclass
class ResumeStep:
    """What a frame of the resume exchange asks the session to do: send ``out`` (frames), drop the
    connection as not the peer's (``refused``: why), or -- ``proven`` -- log ``log`` (the peer's resume
    frame) and send the chain from ``resend`` on."""

    out: bytes = b""
    refused: str | None = None
    proven: bool = False
    log: bytes = b""
    resend: int = 0


class Resumption:
    """The resume exchange and the acknowledgement of our last message (protocol/wire.md §14).

    Args:
        seat: ours (0 host, 1 guest); ``identity``: our key (it signs the ``proof``).
    """

    def __init__(self, seat: int, identity: Identity) -> None:
        self.seat = seat
        self.identity = identity
        #: A resume in progress: our nonce, the peer's ``resume`` (and its frame), ours sent yet.
        self.nonce: bytes | None = None
        self.peer_resume: m.Resume | None = None
        self.peer_resume_frame = b""
        self.resume_sent = False
        self.reconnections = 0
        #: How many messages the peer's last proof says it holds (§14.2 step 5): while our chain is shorter
        #: -- our log lost messages we had sent -- we sign nothing and take our own messages back from the
        #: peer.  None: a session restored from its log whose first resume is not proven yet.
        self.catch_up: int | None = 0
        #: A restored session until :meth:`Session.end_replay`: the events of what it places meanwhile
        #: are not queued (its user reads the chain instead).
        self.replaying = False
        #: Our last message (up to the match's end) may not be held by the peer yet; the ping whose pong
        #: will say it is (§14.5).
        self.unacked = False
        self.ack_ping: int | None = None

    @property
    def resuming(self) -> bool:
        """True from :meth:`begin` until the peer's proof checks out."""
        return self.nonce is not None

    @property
    def delivered(self) -> bool:
        """True when the peer holds every message we sent up to the match's end for sure (§14.5)."""
        return not self.unacked

    def catching_up(self, held: int) -> bool:
        """Whether we may not sign, our chain holding ``held`` messages (§14.2 step 5)."""
        return self.catch_up is None or held < self.catch_up

    # ----- the acknowledgement (§14.5) ---------------------------------------------------------

    def sent(self, acked: bool) -> None:
        """We signed a message; ``acked``: before the match's end, so the peer must acknowledge it."""
        if acked:
            self.unacked, self.ack_ping = True, None

    def heard(self) -> None:
        """A message of the peer was placed after ours: it acknowledges them."""
        self.unacked, self.ack_ping = False, None

    def pinging(self, n: int) -> None:
        """We send ``ping`` ``n``: its pong acknowledges our last message (when one waits and no resume runs)."""
        if self.unacked and self.ack_ping is None and self.nonce is None:
            self.ack_ping = n

    def pong(self, n: int) -> None:
        if self.ack_ping is not None and (n - self.ack_ping) & 0xFFFFFFFF < (1 << 31):
            self.unacked, self.ack_ping = False, None  # the peer holds all we sent

    # ----- the exchange (§14.2) ------------------------------------------------------------------

    def begin(self, nonce: bytes, resume_sent: bool) -> None:
        """A new connection: our ``nonce``; ``resume_sent``: our ``resume`` already went out on it."""
        self.nonce = nonce
        self.peer_resume = None
        self.peer_resume_frame = b""
        self.resume_sent = resume_sent
        self.ack_ping = None  # a pong on the old connection acknowledges nothing any more

    def resume_frame(self, game_id: bytes) -> bytes:
        """Our ``resume`` frame on the new connection (marked sent)."""
        assert self.nonce is not None
        self.resume_sent = True
        return framing.frame(m.Resume(m.VERSION, self.seat, game_id, self.nonce).encode())

    def confirmed(self, chain: JointChain) -> int:
        """Our ``confirmed`` count (§14.1): the host's chain length; the guest's chain up to its last host
        message."""
        if self.seat == 0:
            return len(chain.entries)
        return max((i + 1 for i, e in enumerate(chain.entries) if e.seat == 0), default=0)

    def on_frame(self, frame: bytes, msg: m.RawFrame, chain: JointChain) -> ResumeStep:
        """A ``resume`` or ``proof`` frame (or anything else while resuming) on the new connection.
        ``RemoteProtocolError`` (out-of-turn) when no reconnection runs."""
        nonce = self.nonce
        if nonce is None:
            raise RemoteProtocolError("out-of-turn", f"a {type(msg).__name__.lower()} frame outside a reconnection")
        peer = 1 - self.seat
        if isinstance(msg, m.Resume):
            if self.peer_resume is not None:
                return ResumeStep(refused="a second resume frame on one connection")
            if msg.game_id != chain.game_id or msg.seat != peer:
                return ResumeStep(refused="the connection resumes another match (other game id or seat)")
            if msg.nonce == nonce:
                return ResumeStep(refused="the peer's resume nonce repeats ours")
            self.peer_resume, self.peer_resume_frame = msg, frame
            out = b"" if self.resume_sent else self.resume_frame(chain.game_id)
            confirmed = self.confirmed(chain)
            sig = self.identity.sign(m.proof_input(chain.game_id, self.seat, confirmed, nonce, msg.nonce))
            return ResumeStep(out=out + framing.frame(m.Proof(confirmed, sig).encode()))
        if not isinstance(msg, m.Proof) or self.peer_resume is None:
            return ResumeStep(refused="the new connection sent something else than resume and proof first")
        signed = m.proof_input(chain.game_id, peer, msg.confirmed, self.peer_resume.nonce, nonce)
        if not chain.keys[peer].verify(msg.sig, signed):
            return ResumeStep(refused="the proof does not verify with the key of this match's peer (a stranger?)")
        # Proven: log the peer's resume (it marks the reconnection, §14.2), send what the peer may lack.
        self.nonce = None
        self.reconnections += 1
        self.catch_up = msg.confirmed  # we sign nothing until our chain holds as many (§14.2 step 5)
        held = len(chain.entries) if self.seat == 0 else self.confirmed(chain)
        # From the peer's count when that is lower: its log lost its tail, and its messages come back.
        return ResumeStep(proven=True, log=self.peer_resume_frame, resend=min(msg.confirmed, held))
