"""``p2ptrumps host``: listen, print the addresses to give out, and the waiting room that
lets connections say hello and gives the match to the first valid guest.

Source: issue 3 §3, ``protocol/wire.md`` §7.1 (a host drops connections that say no
valid hello in time), issue 6 §1 (addresses).
"""

from __future__ import annotations

import contextlib
import errno

import trio

from .addresses import format_address, local_addresses
from .config import EXIT_CONNECT, EXIT_PEER_FAULT, EXIT_PEER_GONE, NetConfig, NetplayError, NetResult, say
from .driver import play_over
from .logfile import check_log_free
from .transport import single_errors

#: Connections the host lets say hello at once; more are closed at once (a flood).
MAX_WAITING_CONNECTIONS = 64
#: Connections from one address that may be saying hello at once.  When a cap is
#: reached the *oldest* waiting connection (of that address, or of all) is dropped,
#: never the new one: a real guest says hello at once, so strays that only hold
#: connections open cannot lock it out.
MAX_WAITING_PER_ADDRESS = 4
#: Dropped connections the host tells about (a scanner could fill the screen otherwise).
MAX_DROP_NOTES = 20

async def host(cfg: NetConfig, bind: str, port: int,
               task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> NetResult:
    """Listen on ``bind``:``port`` (0: any free port), print the address and our
    fingerprint, and play one match with the first guest that says a valid hello.

    Connections that send junk, close, reset, or say no hello within
    ``cfg.hello_timeout_s`` seconds are dropped with a note and the host waits on;
    so is a guest that leaves before accepting the rules (it may have refused our
    key).  Up to :data:`MAX_WAITING_CONNECTIONS` connections may be saying hello at
    once; more, and any connection once a guest is playing, are closed at once.

    ``task_status.started(port)`` reports the port actually bound (for tests).
    Raises :class:`NetplayError` (status 3 when the address cannot be bound, 1 when
    ``--log`` exists, else the match's status).
    """
    check_log_free(cfg)
    try:
        listeners = await trio.open_tcp_listeners(port, host=bind)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise NetplayError(EXIT_CONNECT, f"address {format_address(bind, port)} is in use "
                               "(another host running? choose another --port)") from None
        raise NetplayError(EXIT_CONNECT, f"cannot listen on {format_address(bind, port)}: "
                           f"{exc.strerror or exc}") from None
    try:
        bound = int(listeners[0].socket.getsockname()[1])
        addresses = local_addresses() if bind in ("0.0.0.0", "::", "") else [bind]
        say(cfg, f"hosting as {cfg.name!r}, key fingerprint {cfg.identity.fingerprint}")
        say(cfg, "give your opponent one of: " + ", ".join(format_address(a, bound) for a in addresses))
        say(cfg, f"waiting for a guest on port {bound} ...")
        task_status.started(bound)
        return await _Lobby(cfg).serve(listeners)
    finally:
        for lst in listeners:
            with contextlib.suppress(Exception):
                await lst.aclose()


class _Lobby:
    """The host's waiting room: accepts connections, lets each say hello (one match runs
    per connection via :func:`play_over`), gives the match to the first valid hello and
    drops the rest; goes back to waiting if that guest leaves before the rules."""

    def __init__(self, cfg: NetConfig) -> None:
        self.cfg = cfg
        self.owner: object | None = None  # the connection holding the match
        self.waiting: dict[object, tuple[trio.CancelScope, str]] = {}  # oldest first
        self.waiting_from: dict[str, int] = {}  # address -> connections saying hello
        self.notes = 0
        self.done: list[NetResult] = []
        self.fatal: list[NetplayError] = []

    def note(self, text: str) -> None:
        if self.owner is not None:
            return  # the match is on (maybe on the full screen): say nothing more
        self.notes += 1
        if self.notes <= MAX_DROP_NOTES:
            say(self.cfg, text)
        elif self.notes == MAX_DROP_NOTES + 1:
            say(self.cfg, "(more dropped connections are not shown)")

    def claim(self, token: object, result: NetResult) -> bool:
        if self.owner is not None:
            return False
        self.owner = token
        for other, (scope, _) in list(self.waiting.items()):
            if other is not token:
                scope.cancel()
        say(self.cfg, f"guest {result.peer_name!r} said hello")
        return True

    async def serve(self, listeners: list[trio.SocketListener]) -> NetResult:
        with single_errors():
            async with trio.open_nursery() as nursery:
                for lst in listeners:
                    nursery.start_soon(self._accept_loop, lst, nursery)
        if self.fatal:
            raise self.fatal[0]
        return self.done[0]

    async def _accept_loop(self, lst: trio.SocketListener, nursery: trio.Nursery) -> None:
        while True:
            try:
                stream = await lst.accept()
            except OSError as exc:  # e.g. out of file descriptors under a flood: breathe, go on
                self.note(f"cannot accept a connection: {exc.strerror or exc}")
                await trio.sleep(0.1)
                continue
            try:
                ip = str(stream.socket.getpeername()[0])
            except OSError:
                self.note("dropped a connection that was reset at once")
                await trio.aclose_forcefully(stream)
                continue
            if self.owner is not None:
                await trio.aclose_forcefully(stream)
                continue
            if self.waiting_from.get(ip, 0) >= MAX_WAITING_PER_ADDRESS:
                self._drop_oldest(ip, f"{MAX_WAITING_PER_ADDRESS} connections from there were saying hello")
            if len(self.waiting) >= MAX_WAITING_CONNECTIONS:
                self._drop_oldest(None, f"{MAX_WAITING_CONNECTIONS} connections were saying hello")
            self._enter(object(), stream, ip, nursery)

    def _enter(self, token: object, stream: trio.SocketStream, ip: str, nursery: trio.Nursery) -> None:
        scope = trio.CancelScope()
        self.waiting[token] = (scope, ip)
        self.waiting_from[ip] = self.waiting_from.get(ip, 0) + 1
        nursery.start_soon(self._candidate, token, scope, stream, ip, nursery)

    def _leave(self, token: object) -> None:
        entry = self.waiting.pop(token, None)
        if entry is None:
            return
        ip = entry[1]
        left = self.waiting_from.get(ip, 1) - 1
        if left > 0:
            self.waiting_from[ip] = left
        else:
            self.waiting_from.pop(ip, None)

    def _drop_oldest(self, ip: str | None, why: str) -> None:
        """Cancel the longest-waiting connection (from ``ip``, or from anywhere when None)."""
        for token, (scope, from_ip) in self.waiting.items():
            if ip is None or from_ip == ip:
                self._leave(token)
                scope.cancel()
                self.note(f"dropped the oldest waiting connection from {from_ip}: {why}")
                return

    async def _candidate(self, token: object, scope: trio.CancelScope, stream: trio.SocketStream, ip: str,
                         nursery: trio.Nursery) -> None:
        cfg = self.cfg
        with scope:
            try:
                result = await play_over(stream, cfg, ip, claim=lambda res: self.claim(token, res))
            except NetplayError as exc:
                if self.owner is not token:
                    self.note(f"dropped a connection from {ip}: {exc}; still waiting for a guest")
                    return
                res: NetResult | None = getattr(exc, "result", None)
                if res is not None and res.rules is None and exc.status in (EXIT_PEER_GONE, EXIT_PEER_FAULT):
                    self.owner = None
                    kept = f"; its log: {res.log_path}" if res.log_path else ""
                    self.note(f"{exc}{kept}; waiting for another guest ...")
                    return
                self.fatal.append(exc)
                nursery.cancel_scope.cancel()
                return
            finally:
                self._leave(token)
                with contextlib.suppress(Exception):
                    await trio.aclose_forcefully(stream)
            self.done.append(result)
            nursery.cancel_scope.cancel()
