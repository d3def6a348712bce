"""A TCP proxy for tests and benchmarks of reconnecting (protocol/wire.md §14): it forwards
127.0.0.1 connections to a port and can cut every open connection (a reset) or freeze them (a
black hole: both ends stay open and silent).  Loopback only; nothing here is used by a match.
"""

from __future__ import annotations

import trio


class CuttingProxy:
    """Forwards connections to 127.0.0.1:``port`` (``target_port``) on to the host.

    ``await nursery.start(proxy.serve)`` listens on a free loopback port (``proxy.port``);
    :meth:`cut` closes every open connection, :meth:`freeze` stops forwarding on them (each end
    then sees silence).  ``connections`` counts connections taken, ``bytes`` bytes forwarded.
    """

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.scopes: list[trio.CancelScope] = []
        self.port = 0
        self.connections = 0
        self.bytes = 0
        self.frozen: set[int] = set()

    async def serve(self, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
        self.port = listener.socket.getsockname()[1]
        task_status.started(self.port)
        try:
            async with trio.open_nursery() as n:
                while True:
                    down = await listener.accept()
                    self.connections += 1
                    n.start_soon(self._pair, down)
        finally:
            await trio.aclose_forcefully(listener)

    async def _pair(self, down: trio.SocketStream) -> None:
        try:
            up = await trio.open_tcp_stream("127.0.0.1", self.target_port)
        except OSError:
            await down.aclose()
            return
        try:
            await self._forward(down, up)
        finally:
            for s in (down, up):
                s.socket.close()  # at once: a checkpoint here could stop at the first, cancelled

    async def _forward(self, down: trio.SocketStream, up: trio.SocketStream) -> None:
        with trio.CancelScope() as scope:
            self.scopes.append(scope)

            async def pipe(a: trio.SocketStream, b: trio.SocketStream) -> None:
                while data := await a.receive_some(65536):
                    if id(scope) in self.frozen:
                        await trio.sleep_forever()  # swallow it, keep both ends open
                    self.bytes += len(data)
                    await b.send_all(data)

            try:
                async with trio.open_nursery() as n:
                    n.start_soon(pipe, down, up)
                    n.start_soon(pipe, up, down)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError, ExceptionGroup):
                pass

    def cut(self) -> None:
        for scope in self.scopes:
            scope.cancel()
        self.scopes.clear()

    def freeze(self) -> None:
        """Stop forwarding on every open connection but keep them open (a black hole: each side's
        link looks alive until its own timeout)."""
        self.frozen.update(id(s) for s in self.scopes)
        self.scopes.clear()
