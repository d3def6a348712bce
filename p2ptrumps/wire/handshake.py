"""The handshake of a session: the hellos, the admission frames, and the peer's key accepted.

Source: ``protocol/wire.md`` §7.1 (hellos), §7.2 (the game id), §7.3 (admission: ``ticket`` and
``refuse``).  One :class:`Handshake` per session (a rematch has its own).  It makes our hello, checks
the peer's, and builds the joint chain (:class:`~p2ptrumps.wire.chain.JointChain`) of the game both
hellos define; the session logs the frames and sends them.
"""

from __future__ import annotations

from ..events import HostRefused, PeerHello
from ..message import N_
from ..rules import RuleSet
from . import messages as m
from .chain import JointChain
from .errors import LocalProtocolError, RemoteProtocolError
from .identity import Identity, PublicKey


class Handshake:
    """Our hello and the peer's (protocol/wire.md §7).

    Args:
        seat: ours (0 host, 1 guest).
        identity: our key.
        name: our display name (checked: ``ValueError``).
        nonce: 32 fresh bytes for this session's hello.
        rules / move_time: what the host proposes once it accepts the guest's key (the guest: None, 0).

    :attr:`payload` is our hello (the frame's payload, to log and send first).
    """

    def __init__(self, seat: int, identity: Identity, name: str, nonce: bytes, rules: RuleSet | None,
                 move_time: int) -> None:
        m.check_name(name)
        m.check_move_time(move_time)
        self.seat = seat
        self.identity = identity
        self.name = name
        self.nonce = nonce
        self.rules = rules
        self.move_time = move_time
        self.hellos: list[m.Hello | None] = [None, None]
        self.payloads: list[bytes | None] = [None, None]
        self.peer_key: PublicKey | None = None
        self.key_accepted = False
        hello = m.Hello(version=m.VERSION, seat=seat, name=name, public_key=identity.public_bytes, nonce=nonce)
        self.hellos[seat] = hello
        self.payload = self.payloads[seat] = hello.encode()

    @property
    def peer_name(self) -> str | None:
        """The peer's display name from its hello (None before it)."""
        hello = self.hellos[1 - self.seat]
        return None if hello is None else hello.name

    @property
    def peer_fingerprint(self) -> str | None:
        return None if self.peer_key is None else self.peer_key.fingerprint

    def check_hello(self, hello: m.Hello) -> PublicKey:
        """Checks 8-11 of protocol/wire.md §7.1 on the peer's ``hello`` (1-7 are ``decode_frame``'s); the
        key it shows.  ``RemoteProtocolError``: a second hello, a version or seat clash, a bad key."""
        if self.hellos[1 - self.seat] is not None:
            raise RemoteProtocolError("out-of-turn", N_("the peer sent a second hello"))
        m.check_peer_hello(hello, self.hellos[self.seat])
        return PublicKey.from_bytes(hello.public_key)

    def take_hello(self, payload: bytes, hello: m.Hello, key: PublicKey) -> tuple[JointChain, PeerHello]:
        """The peer's checked ``hello`` (:meth:`check_hello`): the game's chain (protocol/wire.md §7.2) and
        the event that asks to accept the key."""
        peer = 1 - self.seat
        self.hellos[peer] = hello
        self.payloads[peer] = payload
        self.peer_key = key
        host_p, guest_p = self.payloads
        assert host_p is not None and guest_p is not None
        mine = self.identity.public_key
        keys = (mine, key) if self.seat == 0 else (key, mine)
        chain = JointChain(m.game_id(host_p, guest_p), keys, self.seat)
        return chain, PeerHello(hello.name, key.fingerprint, hello.public_key, peer)

    def admission(self, msg: m.Ticket | m.Refuse, before_hello: bool) -> HostRefused | None:
        """A ``ticket`` or ``refuse`` frame (protocol/wire.md §7.3): before the peer's hello an open host
        reads past a ticket (None), and a guest stops on the host's refusal (:class:`HostRefused`, nothing
        logged); anywhere else either is ``malformed`` (``RemoteProtocolError``)."""
        if isinstance(msg, m.Ticket) and before_hello and self.seat == 0:
            return None
        if isinstance(msg, m.Refuse) and before_hello and self.seat == 1:
            return HostRefused(msg.reason)
        kind = type(msg).__name__.lower()
        raise RemoteProtocolError("malformed", N_("a %(kind)s frame after the hellos, or from the wrong side (wire.md "
                                                  "§7.3)", kind=kind))

    def accept(self, have_chain: bool) -> m.RulesMsg | None:
        """Go on with the peer whose hello we got; the host's rules proposal to send (the guest: None).
        ``LocalProtocolError`` before the peer's hello or when already accepted."""
        if not have_chain:
            raise LocalProtocolError("no hello from the peer yet: there is no key to accept")
        if self.key_accepted:
            raise LocalProtocolError("the peer's key is already accepted")
        self.key_accepted = True
        if self.seat == 0:
            assert self.rules is not None
            return m.RulesMsg(self.rules, self.move_time)
        return None
