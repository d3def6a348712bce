"""``p2ptrumps host``: listen, print the addresses to give out, and the waiting room that
lets connections say hello and gives the match to the first valid guest.

Source: ``protocol/wire.md`` §7.1 (the waiting room: a host drops connections that
say no valid hello in time, carries several handshakes at once and gives the match to the first
guest whose ``agree`` checks out), §17 (its caps: strangers
cannot wedge, flood or poison the host).
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
from collections.abc import Sequence

import trio

from ..message import N_, message_of
from ..text import quoted
from ..wire import messages
from ..wire.errors import RemoteProtocolError
from .addresses import family_missing, format_address, is_ipv6, local_addresses, worth_giving_out
from .admission import FairRoom, network_prefix, ticket_text
from .blocked import blocked_key, guest_refusal_note, refusal_note
from .config import EXIT_CONNECT, NetConfig, NetplayError, NetResult, say
from .doorway import (
    Heard,
    Prefixed,
    ResumeDoor,
    SlowFrame,
    read_past_pings,
    refuse,
)
from .driver import Restored, play_over
from .logfile import check_log_free
from .portmap import describe_path, mapping_wanted, order_given, port_mapping, tell_lines
from .race import first_of, single_errors
from .secure import secure
from .transport import MAX_PENDING_BYTES, Connection

#: Connections whose first frame is not read yet (the doorway, protocol/wire.md §7.3, §17), and the
#: share of one network prefix (/64 for IPv6, ``--ipv4-prefix`` for IPv4): a newcomer replaces the
#: oldest connection of its own prefix when that holds its share, else (full) of the prefix holding
#: the most -- a crowd from few networks only replaces itself.
MAX_DOORWAY = 256
DOORWAY_SHARE = 8
#: Connections let in (with the join ticket, or by an open host) that have not agreed to the rules
#: yet (the waiting room), and one prefix's share of it; replaced the same way.  A guest whose
#: ``agree`` took the match has left the waiting room: it is never replaced.
MAX_WAITING_CONNECTIONS = 64
MAX_WAITING_PER_ADDRESS = 4
#: Most bytes queued for a connection that has not signed yet and does not read them (pongs
#: for a ping flood): a waiting room full of them stays small (protocol/wire.md §17).
WAITING_PENDING_BYTES = 64 * 1024
#: Dropped connections the host tells about (a scanner could fill the screen otherwise).
MAX_DROP_NOTES = 20
#: Seconds the doorway waits beyond the hello deadline, so that the encrypted handshake's own deadline
#: (the same length, protocol/wire.md §18.4) names a connection that never started it.
HANDSHAKE_MARGIN_S = 0.5

LISTEN_BACKLOG = 128


async def bind_addresses(bind: str | None) -> list[tuple[int, str]]:
    """The ``(family, address)`` pairs to listen on for ``--bind``.

    ``None`` (the default): every address of both families (``::`` and ``0.0.0.0``, one
    listener each, the IPv6 one IPv6-only).  An IPv4 or IPv6 literal (``[::1]`` brackets
    allowed): that address.  A host name: every address it resolves to.

    Raises:
        NetplayError: (status 3) the name does not resolve.
    """
    if bind is None:
        return [(socket.AF_INET6, "::"), (socket.AF_INET, "0.0.0.0")]
    literal = bind[1:-1] if bind.startswith("[") and bind.endswith("]") else bind
    if is_ipv6(literal):
        return [(socket.AF_INET6, literal)]
    try:
        infos = await trio.socket.getaddrinfo(literal, None, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as exc:
        raise NetplayError(EXIT_CONNECT, N_("cannot listen on %(bind)s: the name does not resolve (%(why)s)",
                                            bind=repr(bind), why=getattr(exc, "strerror", None) or str(exc))) from None
    out = [(int(family), str(addr[0])) for family, _, _, _, addr in infos
           if family in (socket.AF_INET, socket.AF_INET6)]
    return list(dict.fromkeys(out))


#: Tries of :func:`open_listeners` with port 0 when the port the first listener picked is taken in
#: another family (another program holds it on IPv4 only, say).
FREE_PORT_TRIES = 8


async def open_listeners(bind: str | None, port: int, notes: list[str] | None = None) -> list[trio.SocketListener]:
    """Listen on every address of ``bind`` (see :func:`bind_addresses`) at ``port``; with
    port 0 the first listener picks a free port and the others take the same one (when another
    program holds that port on another address, all are closed and a new port is picked, at
    most :data:`FREE_PORT_TRIES` times).  An address family this machine lacks (no IPv6) is
    skipped while another listens; each address skipped adds a line to ``notes``.

    Raises:
        NetplayError: (status 3) the port is in use, or nothing could listen.
    """
    for _ in range(FREE_PORT_TRIES - 1 if port == 0 else 0):
        try:
            return await _open_listeners(bind, port, notes)
        except _PickedPortTaken:
            continue
    try:
        return await _open_listeners(bind, port, notes)
    except _PickedPortTaken as exc:
        raise NetplayError(EXIT_CONNECT, message_of(exc)) from None


class PortInUse(NetplayError):
    """(status 3) The port asked for is in use on this machine (another host running?)."""


class _PickedPortTaken(Exception):
    """With port 0: the port the first listener picked is in use on another address."""


async def _open_listeners(bind: str | None, port: int, notes: list[str] | None) -> list[trio.SocketListener]:
    picked = port == 0
    listeners: list[trio.SocketListener] = []
    failures: list[str] = []
    try:
        for family, address in await bind_addresses(bind):
            try:
                sock = trio.socket.socket(family, socket.SOCK_STREAM)
            except OSError as exc:  # this family is missing here (IPv6 disabled in the kernel)
                failures.append(f"{address} ({family_missing(family, exc)})")
                continue
            try:
                if os.name == "posix":
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if family == socket.AF_INET6:
                    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                await sock.bind((address, port))
                sock.listen(LISTEN_BACKLOG)
            except OSError as exc:
                sock.close()
                where = format_address(address, port)
                if exc.errno == errno.EADDRINUSE:
                    why = N_("address %(address)s is in use (another host running? choose another %(option)s)",
                             address=where, option="--port")
                    if picked and listeners:
                        raise _PickedPortTaken(why) from None
                    raise PortInUse(EXIT_CONNECT, why) from None
                failures.append(f"{where}: {exc.strerror or exc}")
                continue
            port = int(sock.getsockname()[1])
            listeners.append(trio.SocketListener(sock))
        if not listeners:
            raise NetplayError(EXIT_CONNECT, N_("cannot listen on %(addresses)s",
                                                addresses="; ".join(failures or [repr(bind)])))
        if notes is not None:
            notes.extend(N_("note: not listening on %(address)s", address=why) for why in failures)
    except BaseException:
        for lst in listeners:
            lst.socket.close()
        raise
    return listeners


def addresses_to_give(listeners: list[trio.SocketListener]) -> list[str]:
    """``HOST:PORT`` texts for the guest (IPv6 in brackets, global addresses first):
    this machine's addresses of each family listened on everywhere (``::``, ``0.0.0.0``),
    and each specific address listened on."""
    wildcard: set[int] = set()
    specific: list[str] = []
    port = 0
    for lst in listeners:
        address, port = lst.socket.getsockname()[:2]
        if address in ("::", "0.0.0.0"):
            wildcard.add(socket.AF_INET6 if address == "::" else socket.AF_INET)
        else:
            specific.append(str(address))
    texts = worth_giving_out(specific + (local_addresses(wildcard) if wildcard else []),
                             {socket.AF_INET, socket.AF_INET6})
    return [format_address(a, port) for a in texts]


async def host(cfg: NetConfig, bind: str | None, port: int,
               task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> NetResult:
    """Listen on ``bind``:``port`` (``bind`` None: IPv6 and IPv4, every address; port 0:
    any free port), print the addresses to give out and our fingerprint, and play one
    match with the first guest that accepts the rules (protocol/wire.md §7.1).

    The host reads each connection's first frame before it sends anything (protocol/wire.md
    §7.3): with ``cfg.ticket`` set, only a guest that sends that join ticket first is let in
    (others read ``refuse``); with ``cfg.guest_key`` set, only a hello with that public key.
    Connections that send junk, close, reset, or say no hello within
    ``cfg.hello_timeout_s`` seconds are dropped with a note and the host waits on;
    so is a guest that refuses the rules, does not answer them in time, or leaves
    before accepting them (it may have refused our key): nothing a guest does before
    it has signed ends the hosting or writes a file.  Up to :data:`MAX_DOORWAY` connections
    may be in the doorway (:data:`DOORWAY_SHARE` from one network prefix) and
    :data:`MAX_WAITING_CONNECTIONS` in the waiting room (:data:`MAX_WAITING_PER_ADDRESS` from one
    prefix), a newcomer replacing the oldest of the prefix holding the most; once a guest plays,
    any new connection that does not resume its match is refused as busy.

    ``task_status.started(port)`` reports the port actually bound (for tests).
    Raises :class:`NetplayError` (status 3 when the address cannot be bound, 1 when
    ``--log`` exists, else the match's status).
    """
    check_log_free(cfg)
    notes: list[str] = []
    listeners = await open_listeners(bind, port, notes)
    try:
        for note in notes:
            say(cfg, note)
        bound = int(listeners[0].socket.getsockname()[1])
        cfg.bind, cfg.port = bind, bound  # for the resume file (protocol/files.md)
        say(cfg, N_("hosting as %(name)s, key fingerprint %(fingerprint)s", name=quoted(cfg.name),
                    fingerprint=cfg.identity.fingerprint))
        async with port_mapping(bound, local_addresses(), wanted=mapping_wanted(bind, cfg.port_map),
                                note=lambda line: say(cfg, line)) as reach:
            for line in reach.lines():
                say(cfg, line)
            ticket = "" if cfg.ticket is None else "/" + ticket_text(cfg.ticket)  # protocol/wire.md §7.3
            for line in tell_lines(order_given(addresses_to_give(listeners), reach), reach, ticket):
                say(cfg, line)
            if cfg.guest_key is not None:
                say(cfg, N_("admitting one guest key only"))
            say(cfg, N_("waiting for a guest on port %(port)d ...", port=bound))
            task_status.started(bound)
            return await Lobby(cfg, mapped=reach.mapped is not None).serve(listeners)
    finally:
        for lst in listeners:
            with contextlib.suppress(Exception):
                await lst.aclose()


class _Waiting:
    """One connection in the waiting room: its cancel scope, address, network prefix and (once it
    exists) its :class:`Connection`."""

    def __init__(self, scope: trio.CancelScope, ip: str, prefix: str = "", path: str = "") -> None:
        self.scope = scope
        self.ip = ip
        self.prefix = prefix or ip
        self.path = path  # the connection's path in words (portmap.describe_path)
        self.conn: Connection | None = None

    @property
    def said_hello(self) -> bool:
        return self.conn is not None and getattr(self.conn.session, "chain", None) is not None


class Lobby:
    """The host's doorway and waiting room (protocol/wire.md §7.1, §7.3): reads the first frame of
    every connection before anything is sent (the join ticket, a resume, or a hello), lets each
    connection let in say hello and answer the rules (one handshake per connection via
    :func:`play_over`, side by side), gives the match to the first guest whose ``agree`` checks out
    and closes the rest.  Both rooms are shared fairly by network prefix (:class:`FairRoom`)."""

    def __init__(self, cfg: NetConfig, *, mapped: bool = False) -> None:
        self.cfg = cfg
        self.mapped = mapped  # the router forwards our port (the path of an outside guest is through it)
        self.owner: object | None = None  # the connection holding the match
        #: (a connection's cancel scope, its TCP stream): one that sent nothing goes first (wire.md §7.3).
        self.door: FairRoom[object, tuple[trio.CancelScope, Heard]] = FairRoom(
            MAX_DOORWAY, DOORWAY_SHARE, rank=lambda entry: int(entry[1].heard))
        self.room: FairRoom[object, _Waiting] = FairRoom(MAX_WAITING_CONNECTIONS, MAX_WAITING_PER_ADDRESS)
        self.notes = 0
        self.done: list[NetResult] = []
        self.fatal: list[NetplayError] = []
        #: Connections that start with a ``resume`` frame (the guest coming back, protocol/wire.md
        #: §14), with the bytes read from them, for the match to try in turn.
        self.comebacks = ResumeDoor(self.note)
        #: The connection of the match being played (set by :func:`play_over`).
        self.conn: Connection | None = None

    def note(self, text: str) -> None:
        if self.owner is not None:
            return  # the match is on (maybe on the full screen): say nothing more
        self.notes += 1
        if self.notes <= MAX_DROP_NOTES:
            say(self.cfg, text)
        elif self.notes == MAX_DROP_NOTES + 1:
            say(self.cfg, N_("(more dropped connections are not shown)"))

    def claim(self, token: object, result: NetResult) -> bool:
        """(a handshake's ``claim``) The guest of ``token`` signed its acceptance of the rules: it takes
        the match unless another did first.  It leaves the waiting room (never dropped for a newcomer);
        every other waiting connection is closed."""
        if self.owner is not None:
            return False
        entry = self._leave(token)
        self.owner = token
        if entry is not None and entry.conn is not None:
            self.conn = entry.conn
            self.conn.max_pending_bytes = MAX_PENDING_BYTES
        for other in self.room.values():
            other.scope.cancel()
        say(self.cfg, N_("guest %(name)s accepted the rules", name=quoted(result.peer_name or "")))
        if entry is not None and entry.path:
            self.cfg.report.path = entry.path
            say(self.cfg, N_("path: %(path)s", path=entry.path))
        return True

    def release(self, token: object) -> None:
        """The match of ``token`` ended before it began (its task was cancelled): back to waiting."""
        if self.owner is token:
            self.owner = None
            self.conn = None

    async def serve(self, listeners: Sequence[trio.abc.Listener[trio.SocketStream]]) -> NetResult:
        with single_errors():
            async with trio.open_nursery() as nursery:
                for lst in listeners:
                    nursery.start_soon(self._accept_loop, lst, nursery)
        if self.fatal:
            raise self.fatal[0]
        return self.done[0]

    async def serve_restored(self, listeners: Sequence[trio.abc.Listener[trio.SocketStream]],
                             restored: Restored) -> NetResult:
        """Play a match taken up after a restart (protocol/wire.md §14.4): every connection must
        resume it (see :meth:`ResumeDoor.candidate`); the first proven one carries the match on."""
        self.owner = restored

        async def accept() -> None:
            async with trio.open_nursery() as nursery:
                for lst in listeners:
                    nursery.start_soon(self._accept_loop, lst, nursery)

        _, result = await first_of(lambda: play_over(None, self.cfg, "", redial=self.comebacks.redial,
                                                     restored=restored, on_connection=self.on_connection), accept)
        return result  # type: ignore[no-any-return]

    async def _accept_loop(self, lst: trio.abc.Listener[trio.SocketStream], nursery: trio.Nursery) -> None:
        while True:
            try:
                raw = await lst.accept()
            except OSError as exc:  # e.g. out of file descriptors under a flood: breathe, go on
                self.note(N_("cannot accept a connection: %(why)s", why=exc.strerror or str(exc)))
                await trio.sleep(0.1)
                continue
            try:
                ip = str(raw.socket.getpeername()[0])
                # a listener may name its connections' path itself (a relay: "through relay HOST")
                path = getattr(lst, "path", None) or describe_path(str(raw.socket.getsockname()[0]), ip,
                                                                   mapped=self.mapped)
            except OSError:
                self.note(N_("dropped a connection that was reset at once"))
                await trio.aclose_forcefully(raw)
                continue
            prefix = network_prefix(ip, self.cfg.ipv4_prefix)
            for _, (scope, _heard) in self.door.make_room(prefix):
                scope.cancel()
                self.note(N_("dropped the oldest connection of the busiest network in the doorway: room for one from "
                             "%(ip)s (at most %(share)d from one network, %(most)d in all, say no first frame)", ip=ip,
                             share=DOORWAY_SHARE, most=MAX_DOORWAY))
            token, scope, heard = object(), trio.CancelScope(), Heard(raw)
            self.door.add(token, prefix, (scope, heard))
            stream = secure(heard, self.cfg.identity, server=True,  # every connection (wire.md §18)
                            handshake_time_s=self.cfg.hello_timeout_s)
            nursery.start_soon(self._doorway, token, scope, stream, ip, prefix, path, nursery)

    async def _doorway(self, token: object, scope: trio.CancelScope, stream: trio.abc.Stream, ip: str,
                       prefix: str, path: str, nursery: trio.Nursery) -> None:
        """Read a new connection's first frame before sending anything (protocol/wire.md §7.3): a
        ``resume`` of the match goes to :meth:`ResumeDoor.candidate`; with a match on, anything else is
        refused as ``busy``; else the join ticket (when required), then the hello (its key, when one
        is expected).  A connection let in goes to the waiting room (:meth:`_candidate`); nothing is
        sent to one dropped for room or for junk."""
        buf = bytearray()
        let_in = False
        try:
            with scope:
                # the encrypted handshake's own deadline (wire.md §18.4) ends a silent connection first
                with trio.move_on_after(self.cfg.hello_timeout_s + HANDSHAKE_MARGIN_S) as timer:
                    first: messages.Frame | None
                    first, at = await read_past_pings(stream, buf, 0, self.cfg.frame_time_s)
                    if isinstance(first, messages.Resume):
                        if self.owner is not None:
                            self.door.remove(token, prefix)
                            await self.comebacks.candidate(self.conn, stream, first, buf, at)
                            stream = None  # type: ignore[assignment]  # closed there
                        else:
                            self.note(N_("dropped a connection from %(ip)s: the peer broke the protocol: a resume "
                                         "frame outside a reconnection [%(code)s]; still waiting for a guest", ip=ip,
                                         code="out-of-turn"))
                        return
                    if self.owner is not None:
                        if isinstance(first, (messages.Hello, messages.Ticket)):
                            await refuse(stream, "busy")
                        return
                    if isinstance(first, messages.Ticket):
                        ticket, first = first.ticket, None
                        if self.cfg.ticket is None or ticket == self.cfg.ticket:
                            first, at = await read_past_pings(stream, buf, at, self.cfg.frame_time_s)
                    elif self.cfg.ticket is not None and isinstance(first, messages.Hello):
                        first = None
                    if first is None:
                        await refuse(stream, "ticket")
                        self.note(N_("refused a connection from %(ip)s: no join ticket, or a wrong one", ip=ip))
                        return
                    if isinstance(first, messages.Refuse):  # a guest that blocked our key (wire.md §7.3)
                        self.note(guest_refusal_note(getattr(stream, "peer_key", None), first.reason, f"from {ip}",
                                                     self.cfg.data))
                        return
                    if not isinstance(first, messages.Hello):
                        self.note(N_("dropped a connection from %(ip)s: it sent no hello first; still waiting for a "
                                     "guest", ip=ip))
                        return
                    if self.cfg.guest_key is not None and first.public_key != self.cfg.guest_key:
                        await refuse(stream, "key")
                        self.note(N_("refused %(name)s from %(ip)s: not the guest key expected",
                                     name=quoted(first.name), ip=ip))
                        return
                    if await self._turned_away(stream, first, ip):
                        return
                    let_in = True
                if timer.cancelled_caught:
                    self.note(N_("dropped a connection from %(ip)s: no hello from the peer within %(seconds)s s (not a "
                                 "p2ptrumps peer?); still waiting for a guest", ip=ip,
                                 seconds=f"{self.cfg.hello_timeout_s:g}"))
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            self.note(N_("dropped a connection from %(ip)s: the connection ended before the guest's hello (%(why)s); "
                         "still waiting for a guest", ip=ip,
                         why=getattr(exc, "strerror", None) or str(exc) or "closed"))
            return
        except SlowFrame as exc:
            self.note(N_("dropped a connection from %(ip)s: no hello from the peer: %(why)s (not a p2ptrumps peer?); "
                         "still waiting for a guest", ip=ip, why=message_of(exc)))
            return
        except RemoteProtocolError as exc:
            self.note(N_("dropped a connection from %(ip)s: the peer broke the protocol: %(reason)s [%(code)s]; "
                         "still waiting for a guest", ip=ip, reason=exc.reason, code=exc.code))
            return
        finally:
            self.door.remove(token, prefix)
            if not let_in and stream is not None:
                with contextlib.suppress(Exception):
                    await trio.aclose_forcefully(stream)
        if not let_in:  # dropped for room (its scope cancelled), or silent past the hello deadline
            return
        if self.owner is not None:
            with contextlib.suppress(Exception):
                await trio.aclose_forcefully(stream)
            return
        entry = _Waiting(trio.CancelScope(), ip, prefix, path)
        for _, other in self.room.make_room(prefix):
            other.scope.cancel()
            self.note(N_("dropped the oldest waiting connection from %(other)s: room for a connection from %(ip)s (at "
                         "most %(share)d from one network, %(most)d in all)", other=other.ip, ip=ip,
                         share=MAX_WAITING_PER_ADDRESS, most=MAX_WAITING_CONNECTIONS))
        self.room.add(token, prefix, entry)
        await self._candidate(token, entry, Prefixed(stream, bytes(buf)), ip, nursery)

    async def _turned_away(self, stream: trio.abc.Stream, hello: messages.Hello, ip: str) -> bool:
        """Refuse (``["refuse", "blocked"]``, protocol/wire.md §7.3) the guest of ``hello`` if this user
        blocked its key, with one line naming it; nothing is written.  True when it was turned away."""
        entry, trouble = blocked_key(self.cfg.data, hello.public_key)
        if trouble:
            self.note(trouble)
        if entry is None:
            return False
        await refuse(stream, "blocked")
        self.note(refusal_note(entry, hello.name, f"from {ip}"))
        return True

    def _leave(self, token: object) -> _Waiting | None:
        for prefix, members in list(self.room.by_prefix.items()):
            if token in members:
                return self.room.remove(token, prefix)
        return None

    def on_connection(self, conn: Connection) -> None:
        self.conn = conn

    async def _candidate(self, token: object, entry: _Waiting, stream: trio.abc.Stream, ip: str,
                         nursery: trio.Nursery) -> None:
        """One connection's handshake, and its match if its guest takes it.  Whatever ends a handshake
        before the guest has signed is a note, never the end of the hosting (protocol/wire.md §7.1)."""
        cfg = self.cfg
        finished: list[NetResult] = []

        def on_connection(conn: Connection) -> None:
            entry.conn = conn

        with entry.scope:
            try:
                finished.append(await play_over(stream, cfg, ip, claim=lambda res: self.claim(token, res),
                                                redial=self.comebacks.redial, on_connection=on_connection,
                                                max_pending_bytes=WAITING_PENDING_BYTES))
            except NetplayError as exc:
                if self.owner is not token:
                    res: NetResult | None = getattr(exc, "result", None)
                    if res is not None and res.peer_name is not None:  # a guest that said hello, not signed
                        who = quoted(res.peer_name)
                        fault = message_of(exc) if who in str(exc) else N_("%(name)s: %(fault)s", name=who,
                                                                            fault=message_of(exc))
                        self.note(N_("%(fault)s; waiting for another guest ...", fault=fault))
                    else:
                        self.note(N_("dropped a connection from %(ip)s: %(fault)s; still waiting for a guest", ip=ip,
                                     fault=message_of(exc)))
                    return
                self.fatal.append(exc)
                nursery.cancel_scope.cancel()
                return
            finally:
                self._leave(token)
                with contextlib.suppress(Exception):
                    await trio.aclose_forcefully(stream)
        if not finished:  # cancelled: a claimed match that ended before it began is released
            self.release(token)
            return
        self.done.append(finished[0])
        nursery.cancel_scope.cancel()
