"""What the encrypted connection (protocol/wire.md §18) costs: set-up, handshake, bytes, per frame.

Run: ``.venv/bin/python bench/net_secure.py [--handshakes N] [--frames F]``

1. The TLS context of one side (our certificate made and loaded): once per process.
2. N handshakes over loopback TCP (both sides in this process, so the CPU is both sides'):
   wall-clock median and 90th percentile, CPU per handshake, and the bytes each way, against
   a plain TCP connect.
3. Memory: the growth of this process's resident set while 64 encrypted connections (the host's
   waiting-room cap, wire.md §17) are open at once, per connection.
4. Per frame: F frames of the sizes the match sends (a ping, a move, a long chat) written one
   ``send_all`` each through a TLS pair and through a plain socket pair and read on the other
   side: the bytes on the wire per frame and the CPU per frame, plain vs encrypted.

Times are medians of wall-clock (handshakes) or CPU seconds of this process
(``time.process_time``, frames), so that other load on the machine disturbs them little.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import trio

from p2ptrumps.net import secure
from p2ptrumps.wire import framing, messages
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.testing import fixed_bytes

HOST = Identity.from_seed(fixed_bytes("bench-secure/host"))
GUEST = Identity.from_seed(fixed_bytes("bench-secure/guest"))


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def sample_frames() -> dict[str, bytes]:
    """Frames of the sizes a match sends: a ping, a signed move, a signed chat of 200 characters."""
    gid = fixed_bytes("bench-secure/game")
    from p2ptrumps.cards import card_list
    from p2ptrumps.rules import Move

    move = messages.MoveMsg(1, Move.lead(card_list(1)[0]), bytes(32))
    return {
        "ping": framing.frame(messages.Ping(7).encode()),
        "move": framing.frame(messages.build_signed(gid, 1, 10, bytes(32), move, GUEST.sign).payload),
        "chat-200": framing.frame(messages.build_signed(gid, 1, 11, bytes(32), messages.ChatMsg("x" * 200),
                                                        GUEST.sign).payload),
    }


async def handshakes(n: int) -> dict[str, float]:
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    port = listener.socket.getsockname()[1]
    walls: list[float] = []
    plain: list[float] = []
    cpu0 = time.process_time()
    sent = received = 0
    async with trio.open_nursery() as nursery:

        async def serve() -> None:
            while True:
                raw = await listener.accept()
                stream = secure.secure(raw, HOST, server=True)
                nursery.start_soon(server_side, stream)

        async def server_side(stream: secure.SecureStream) -> None:
            try:
                await stream.handshake()
                await stream.receive_some()
            except trio.BrokenResourceError:
                pass
            await trio.aclose_forcefully(stream)

        nursery.start_soon(serve)
        for _ in range(n):
            t = time.perf_counter()
            raw = await trio.open_tcp_stream("127.0.0.1", port)
            client = secure.secure(raw, GUEST, server=False)
            await client.handshake()
            walls.append(time.perf_counter() - t)
            sent += client.raw_sent
            received += client.raw_received
            await client.aclose()
        cpu = (time.process_time() - cpu0) / n
        plain_listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
        plain_port = plain_listener.socket.getsockname()[1]

        async def plain_serve() -> None:
            while True:
                s = await plain_listener.accept()
                await s.aclose()

        nursery.start_soon(plain_serve)
        for _ in range(n):
            t = time.perf_counter()
            s = await trio.open_tcp_stream("127.0.0.1", plain_port)
            plain.append(time.perf_counter() - t)
            await s.aclose()
        nursery.cancel_scope.cancel()
    walls.sort()
    return {"median_ms": statistics.median(walls) * 1e3, "p90_ms": walls[int(0.9 * (n - 1))] * 1e3,
            "cpu_ms": cpu * 1e3, "client_sent": sent / n, "client_received": received / n,
            "plain_connect_ms": statistics.median(plain) * 1e3}


async def memory(count: int = 64) -> float:
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    port = listener.socket.getsockname()[1]
    held: list[trio.abc.AsyncResource] = []
    async with trio.open_nursery() as nursery:

        async def serve() -> None:
            while True:
                stream = secure.secure(await listener.accept(), HOST, server=True)
                held.append(stream)
                nursery.start_soon(stream.handshake)

        nursery.start_soon(serve)
        client = secure.secure(await trio.open_tcp_stream("127.0.0.1", port), GUEST, server=False)
        await client.handshake()  # warm up: contexts, certificates, code paths
        held.append(client)
        before = rss_bytes()
        for _ in range(count):
            c = secure.secure(await trio.open_tcp_stream("127.0.0.1", port), GUEST, server=False)
            await c.handshake()
            held.append(c)
        await trio.sleep(0.2)
        after = rss_bytes()
        for s in held:
            await trio.aclose_forcefully(s)
        nursery.cancel_scope.cancel()
    return (after - before) / count / 2  # two ends per connection in this process


async def per_frame(frames: int) -> dict[str, tuple[float, float, float, float]]:
    out: dict[str, tuple[float, float, float, float]] = {}
    for name, frame in sample_frames().items():
        results = []
        for encrypted in (False, True):
            a, b = trio.socket.socketpair()
            ta, tb = trio.SocketStream(a), trio.SocketStream(b)
            sa: trio.abc.Stream = ta
            sb: trio.abc.Stream = tb
            if encrypted:
                sa, sb = secure.secure(ta, GUEST, server=False), secure.secure(tb, HOST, server=True)
                async with trio.open_nursery() as n:
                    n.start_soon(sa.handshake)  # type: ignore[attr-defined]
                    n.start_soon(sb.handshake)  # type: ignore[attr-defined]
            start_sent = getattr(sa, "raw_sent", 0)
            cpu0 = time.process_time()
            want = len(frame) * frames

            async def reader(stream: trio.abc.Stream, want: int = want) -> None:
                got = 0
                while got < want:
                    got += len(await stream.receive_some(65536))

            async with trio.open_nursery() as n:
                n.start_soon(reader, sb)
                for _ in range(frames):
                    await sa.send_all(frame)
            cpu = (time.process_time() - cpu0) / frames
            wire = (getattr(sa, "raw_sent", 0) - start_sent) / frames if encrypted else float(len(frame))
            results.append((wire, cpu))
            await trio.aclose_forcefully(sa)
            await trio.aclose_forcefully(sb)
        (plain_bytes, plain_cpu), (tls_bytes, tls_cpu) = results
        out[name] = (plain_bytes, tls_bytes, plain_cpu * 1e6, tls_cpu * 1e6)
    return out


async def main_async(args: argparse.Namespace) -> None:
    t = time.perf_counter()
    secure._context(HOST, True)
    secure._context(GUEST, False)
    print(f"1. context of one side (certificate made and loaded, once per process): "
          f"{(time.perf_counter() - t) / 2 * 1e3:.1f} ms")
    h = await handshakes(args.handshakes)
    print(f"2. {args.handshakes} handshakes over loopback TCP: median {h['median_ms']:.2f} ms, 90th percentile "
          f"{h['p90_ms']:.2f} ms (a plain TCP connect: {h['plain_connect_ms']:.2f} ms); CPU of both sides "
          f"{h['cpu_ms']:.2f} ms per handshake; bytes: {h['client_sent']:.0f} guest -> host, "
          f"{h['client_received']:.0f} host -> guest")
    per = await memory()
    print(f"3. memory: {per / 1024:.1f} KiB of resident set per encrypted connection end (64 open at once)")
    print(f"4. per frame, one send_all each ({args.frames} frames):")
    print("   frame      plain bytes  TLS bytes  overhead   plain CPU us  TLS CPU us")
    for name, (pb, tb, pc, tc) in (await per_frame(args.frames)).items():
        print(f"   {name:<10} {pb:>11.0f} {tb:>10.0f} {tb - pb:>+9.0f} {pc:>14.1f} {tc:>11.1f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--handshakes", type=int, default=200)
    ap.add_argument("--frames", type=int, default=5000)
    trio.run(main_async, ap.parse_args())


if __name__ == "__main__":
    main()
