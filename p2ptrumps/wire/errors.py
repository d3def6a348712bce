"""Errors of the wire layer: who broke the protocol, and how.

Source: ``protocol/wire.md`` §11 (fault codes).

* :class:`LocalProtocolError` -- *we* asked for something the protocol does not
  allow now (playing out of turn, committing twice, chatting before the
  handshake).  Nothing was sent; the session is unchanged.
* :class:`RemoteProtocolError` -- the *peer* (or a log) broke the protocol.
  ``code`` is one of :data:`FAULT_CODES` (stable, for tests and JSON);
  ``str(exc)`` is a sentence for people that names the fault and where.
"""

from __future__ import annotations

#: Every fault code a :class:`RemoteProtocolError` can carry (protocol/wire.md §11).
FAULT_CODES: tuple[str, ...] = (
    "oversized-frame",  # length prefix above the maximum frame size
    "garbage-frame",  # not msgpack, or msgpack of an unexpected shape
    "non-canonical",  # msgpack that does not re-encode to the same bytes (maps, floats, long ints, ...)
    "malformed",  # canonical msgpack, but not a valid message (types, ranges, unknown kind)
    "version",  # unsupported protocol version, or a peer with the wrong role
    "bad-key",  # small-order / non-canonical public key, or the peer uses our key
    "wrong-game",  # a message signed for another game (replayed from another session)
    "bad-signature",  # the Ed25519 signature does not verify
    "sequence-gap",  # sequence number is not the next place in the chain
    "broken-chain",  # prev hash does not match the chain
    "equivocation",  # two different signed messages by one key at one place
    "out-of-turn",  # a message the sender may not send now
    "illegal-move",  # the engine rejects the move
    "wrong-position-hash",  # the move leads to another position than the one it claims
    "bad-commitment",  # commitment for the wrong deal, repeated, ...
    "bad-reveal",  # the reveal does not open the commitment
    "wrong-result",  # a deal-end / match-end statement that differs from the computed one
    "chat-limit",  # a chat beyond its sender's limits: per turn, per match, bytes per match
)


class LocalProtocolError(Exception):
    """We tried to do something the protocol does not allow now; the message says what and why."""


class RemoteProtocolError(Exception):
    """The peer (or a log) broke the protocol.

    Attributes:
        code: one of :data:`FAULT_CODES`.
        reason: a sentence naming the fault (also ``str(exc)``).
        proven_by: the seat whose checked signature over the offending message proves
            the fault (protocol/verify.md §3.1), or None when nothing proves it.
    """

    def __init__(self, code: str, reason: str, proven_by: int | None = None) -> None:
        if code not in FAULT_CODES:
            raise ValueError(f"unknown fault code {code!r}")
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.proven_by = proven_by
        #: Payloads to log before the offending frame, as evidence (protocol/wire.md §12: the superseded
        #: messages that a second message for their place proves equivocation against), oldest first.
        self.evidence: tuple[bytes, ...] = ()


class PeerFlood(Exception):
    """The peer went beyond a limit of protocol/wire.md §17 that no log can show (e.g. more guest
    messages held as superseded than :data:`~p2ptrumps.wire.chain.MAX_SUPERSEDED`); the message
    says which.  Not a fault code: nothing of it is logged."""


class NonCanonical(RemoteProtocolError):
    """Bytes that decode but do not re-encode identically (protocol/wire.md §3)."""

    def __init__(self, reason: str) -> None:
        super().__init__("non-canonical", reason)
