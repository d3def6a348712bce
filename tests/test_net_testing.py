"""The test helpers of ``p2ptrumps/net/testing.py`` keep the promises the network tests build on."""

from __future__ import annotations

from functools import partial

import trio

from p2ptrumps.net.testing import CuttingProxy


async def test_a_stranded_connection_stays_open_on_the_far_side_while_the_dialler_still_sends() -> None:
    """``strand`` ends the dialler's side at once while the listener's side stays open and silent -- also
    when the dialler's bytes still arrive after the strand (the proxy's end, shut down, then resets
    itself: that reset must not close the far side)."""
    far: list[trio.SocketStream] = []

    async def listener(stream: trio.SocketStream) -> None:
        far.append(stream)
        async with stream:
            await trio.sleep_forever()

    with trio.fail_after(20):
        async with trio.open_nursery() as n:
            listeners = await n.start(partial(trio.serve_tcp, listener, 0, host="127.0.0.1"))
            proxy = CuttingProxy(listeners[0].socket.getsockname()[1])
            await n.start(proxy.serve)
            near = await trio.open_tcp_stream("127.0.0.1", proxy.port)
            n.start_soon(_close_at_end, near)
            await near.send_all(b"hello")
            while not far:
                await trio.sleep(0.01)
            got = b""
            while len(got) < 5:
                got += await far[0].receive_some(5 - len(got))
            assert got == b"hello"
            proxy.strand()
            await near.send_all(b"still talking")  # sent before the proxy reads its end of the stream
            assert await near.receive_some(100) == b""  # the dialler reads the end at once
            with trio.move_on_after(1.0) as silent:
                await far[0].receive_some(100)  # neither bytes nor the end of the stream come
            assert silent.cancelled_caught
            assert proxy.bytes == 5
            n.cancel_scope.cancel()


async def _close_at_end(stream: trio.SocketStream) -> None:
    async with stream:
        await trio.sleep_forever()
