"""The trio connection loop around a stand-in session (p2ptrumps/net/transport.py).

The stand-in frames messages as lines: ``b"PING"`` / ``b"PONG"`` are heartbeats
(no event), ``b"BAD"`` is a protocol fault, anything else is an event.  The
real session is exercised in tests/test_net_match.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
import trio.testing

from p2ptrumps.net.logfile import MatchLogFile
from p2ptrumps.net.transport import Connection, PeerFault, PeerGone, PeerTimeout


class RemoteError(Exception):
    pass


class LineSession:
    def __init__(self, log: list[bytes] | None = None) -> None:
        self.buf = b""
        self.out = b""
        self.events: list[object] = []
        self.log = log if log is not None else []
        self.pings = 0

    def receive_data(self, data: bytes) -> None:
        if not data:
            self.events.append("closed")
            return
        self.buf += data
        while b"\n" in self.buf:
            line, _, self.buf = self.buf.partition(b"\n")
            if line == b"PING":
                self.out += b"PONG\n"
            elif line == b"PONG":
                pass
            elif line == b"GARBAGE":
                raise RemoteError("garbage frame")
            else:
                self.log.append(b"<" + line)
                self.events.append(line.decode())

    def next_event(self) -> object | None:
        return self.events.pop(0) if self.events else None

    def data_to_send(self) -> bytes:
        out, self.out = self.out, b""
        return out

    def ping(self) -> None:
        self.pings += 1
        self.out += b"PING\n"

    def say(self, text: str) -> None:
        self.log.append(b">" + text.encode())
        self.out += text.encode() + b"\n"


def fault_of(ev: object) -> str | None:
    return "peer sent BAD" if ev == "BAD" else None


def conn(stream: trio.abc.Stream, session: LineSession, timeout_s: float = 30.0) -> Connection:
    return Connection(stream, session, timeout_s=timeout_s, fault_of=fault_of, remote_errors=(RemoteError,))


async def test_exchange_and_clean_close(autojump_clock: trio.testing.MockClock) -> None:
    a, b = trio.testing.memory_stream_pair()
    sa, sb = LineSession(), LineSession()

    async def side_a(c: Connection) -> list[object]:
        sa.say("hello")
        await c.send_pending()
        got = [await c.next_event(timeout_s=10)]
        await trio.sleep(60)  # a long think: heartbeats keep the line alive
        sa.say("bye")
        await c.send_pending()
        return got

    async def side_b(c: Connection) -> list[object]:
        got = [await c.next_event(timeout_s=10)]
        sb.say("hi")
        await c.send_pending()
        got.append(await c.next_event(timeout_s=120))
        return got

    results: dict[str, list[object]] = {}

    async def run(name: str, c: Connection, body: object) -> None:
        results[name] = await c.run(body)  # type: ignore[arg-type]

    async with trio.open_nursery() as n:
        n.start_soon(run, "a", conn(a, sa, timeout_s=15), side_a)
        n.start_soon(run, "b", conn(b, sb, timeout_s=15), side_b)
    assert results == {"a": ["hi"], "b": ["hello", "bye"]}
    assert sa.pings >= 10 and sb.pings >= 10
    assert sa.log == [b">hello", b"<hi", b">bye"]


async def test_silence_past_timeout(autojump_clock: trio.testing.MockClock) -> None:
    a, _b = trio.testing.memory_stream_pair()  # the peer never reads nor writes

    async def wait_forever(c: Connection) -> None:
        await c.next_event()

    with pytest.raises(PeerTimeout) as info:
        await conn(a, LineSession(), timeout_s=7).run(wait_forever)
    assert str(info.value) == "no word from the peer for 7 s (timeout)"
    assert trio.current_time() == pytest.approx(7, abs=0.01)


async def test_fault_event_and_remote_error_stop_the_body(autojump_clock: trio.testing.MockClock) -> None:
    for payload, message in ((b"BAD\n", "peer sent BAD"), (b"GARBAGE\n", "garbage frame")):
        a, b = trio.testing.memory_stream_pair()

        async def body(c: Connection) -> None:
            await trio.sleep(1000)

        async with trio.open_nursery() as n:
            n.start_soon(b.send_all, payload)
            with pytest.raises(PeerFault) as info:
                await conn(a, LineSession()).run(body)
        assert str(info.value) == message
        assert trio.current_time() < 1000


async def test_peer_closes_early(autojump_clock: trio.testing.MockClock) -> None:
    a, b = trio.testing.memory_stream_pair()

    async def body(c: Connection) -> None:
        await c.next_event()
        await c.next_event()

    async def peer() -> None:
        await b.send_all(b"one\n")
        await b.aclose()

    async with trio.open_nursery() as n:
        n.start_soon(peer)
        with pytest.raises(PeerGone) as info:
            await conn(a, LineSession()).run(body)
    assert str(info.value) == "the peer closed the connection before the match ended"


async def test_body_errors_propagate(autojump_clock: trio.testing.MockClock) -> None:
    a, _b = trio.testing.memory_stream_pair()

    async def body(c: Connection) -> None:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        await conn(a, LineSession()).run(body)


def test_match_log_file_appends_and_never_overwrites(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "m.p2plog"
    f = MatchLogFile(path)
    f.append(b"abc")
    f.append(b"de")
    assert path.read_bytes() == b"abcde" and f.bytes_written == 5
    f.rename(tmp_path / "logs" / "n.p2plog")
    f.append(b"f")
    f.close()
    assert (tmp_path / "logs" / "n.p2plog").read_bytes() == b"abcdef"
    assert not path.exists()
    with pytest.raises(FileExistsError):
        MatchLogFile(tmp_path / "logs" / "n.p2plog")
    assert oct(path.parent.joinpath("n.p2plog").stat().st_mode & 0o777) == "0o600"


class GatedStream(trio.abc.Stream):
    """A stream whose writes wait at a gate before they start (a slow socket)."""

    def __init__(self, inner: trio.abc.Stream) -> None:
        self.inner = inner
        self.writing = trio.Event()
        self.gate = trio.Event()

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        self.writing.set()
        await self.gate.wait()
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        return await self.inner.receive_some(max_bytes)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_a_write_whose_caller_is_cancelled_still_goes_out_whole(autojump_clock: trio.testing.MockClock) -> None:
    """The bytes ``send_pending`` took from the session are written even when its caller is cancelled
    mid-write (a task ended by the match's early end): else they are lost, and the pong of a
    later ping acknowledges a message the peer never got (protocol/wire.md §10, §14.5)."""
    a, b = trio.testing.memory_stream_pair()
    gated = GatedStream(a)
    sa = LineSession()
    got = bytearray()

    async def body(c: Connection) -> None:
        sa.say("dispute")
        async with trio.open_nursery() as n:
            n.start_soon(c.send_pending)
            await gated.writing.wait()
            n.cancel_scope.cancel()  # the caller of the write is cancelled while the write waits
            gated.gate.set()
        sa.ping()
        await c.send_pending()

    async def peer() -> None:
        for _ in range(100):
            data = await b.receive_some(65536)
            if not data:
                break
            got.extend(data)
        await b.aclose()

    async with trio.open_nursery() as n:
        n.start_soon(peer)
        await conn(gated, sa).run(body)
    assert bytes(got).split(b"\n")[:2] == [b"dispute", b"PING"]


async def test_the_connection_still_stops_a_write_that_never_ends(autojump_clock: trio.testing.MockClock) -> None:
    """The shielded write (above) is not shielded from the connection itself: stopping the run ends a
    write that would wait forever at once, not after the write's timeout."""
    a, _b = trio.testing.memory_stream_pair()
    gated = GatedStream(a)  # its gate never opens
    sa = LineSession()
    c = conn(gated, sa, timeout_s=30)

    async def body(c: Connection) -> None:
        sa.say("stuck")
        await c.send_pending()

    async def stop_soon() -> None:
        await gated.writing.wait()
        await trio.sleep(1)
        c.stop(PeerTimeout("stopped by the test"))

    async with trio.open_nursery() as n:
        n.start_soon(stop_soon)
        with pytest.raises(PeerTimeout, match="stopped by the test"):
            await c.run(body)
    assert trio.current_time() == pytest.approx(1, abs=0.01)


async def test_cancelling_the_run_from_outside_ends_a_write_that_never_ends(
        autojump_clock: trio.testing.MockClock) -> None:
    """A second Ctrl-C cancels the whole run from outside: a shielded write stuck on a peer that does not
    read ends at once too (not after the write's timeout)."""
    a, _b = trio.testing.memory_stream_pair()
    gated = GatedStream(a)  # its gate never opens
    sa = LineSession()

    async def body(c: Connection) -> None:
        sa.say("stuck")
        await c.send_pending()

    with trio.move_on_after(1) as outer:
        await conn(gated, sa, timeout_s=30).run(body)
    assert outer.cancelled_caught and trio.current_time() == pytest.approx(1, abs=0.01)
