"""A networked AI-vs-AI match over loopback TCP against the same match in one process.

Both runs play ``--deals`` deals between two ``random``-level AIs (the AI's own
cost is then tiny, so what remains is the match loop, and for the networked run
the protocol: signing, verifying, hashing the chain and positions, msgpack,
framing, TCP, the fsynced match logs of both sides).  Reports wall time, moves,
milliseconds per move and the ratio networked / in-process.

Usage: python bench/net_match.py [--deals N] [--no-fsync]

``--no-fsync`` measures without ``os.fsync`` (to separate the disk from the protocol).
CPU is this process's CPU time (``time.process_time``: both peers, the AI threads
included), less disturbed by other load than wall time.  ``fsyncs`` counts the
``os.fsync`` calls on match-log files: one per logged message (plus one per log
header), never more.
"""

from __future__ import annotations

import argparse
import io
import os
import tempfile
import time
from pathlib import Path

import trio

from p2ptrumps.ai import AIPlayer
from p2ptrumps.match import Match
from p2ptrumps.net import config, dial, lobby
from p2ptrumps.rules import RuleSet
from p2ptrumps.seats import play
from p2ptrumps.wire.identity import Identity

FSYNCS = [0]
_real_fsync = os.fsync


def counting_fsync(fd: int) -> None:
    FSYNCS[0] += 1
    _real_fsync(fd)


async def in_process(deals: int) -> tuple[float, float, int]:
    players = (AIPlayer("random", 0.01, seed=1), AIPlayer("random", 0.01, seed=2))
    t0, c0 = time.perf_counter(), time.process_time()
    record = await play(Match(RuleSet(deals=deals), trumps=(2, 3), players=(players[0].info, players[1].info)), players)
    return time.perf_counter() - t0, time.process_time() - c0, sum(len(d.moves) for d in record.deals)


async def networked(deals: int, data: Path) -> tuple[float, float, int, int]:
    h = config.NetConfig(role="host", identity=Identity.from_seed(b"h" * 32), name="H", data=data / "h",
                          rules=RuleSet(deals=deals), ai="random", think_s=0.01, out=io.StringIO(), trump=2)
    g = config.NetConfig(role="guest", identity=Identity.from_seed(b"g" * 32), name="G", data=data / "g",
                          ai="random", think_s=0.01, accept_new=True, out=io.StringIO(), trump=3)
    t0, c0 = time.perf_counter(), time.process_time()
    async with trio.open_nursery() as n:
        port = await n.start(lobby.host, h, "127.0.0.1", 0)
        result = await dial.join(g, f"127.0.0.1:{port}")
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    from p2ptrumps.wire.verify import verify_log

    assert result.log_path is not None
    verdict = verify_log(result.log_path.read_bytes())
    assert verdict.status == "valid", verdict.reason
    record = verdict.to_record()
    from p2ptrumps.wire.log import read_log

    frames = len(read_log(result.log_path.read_bytes()).frames)
    return elapsed, cpu, sum(len(d.moves) for d in record.deals), frames


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=20)
    ap.add_argument("--no-fsync", action="store_true")
    args = ap.parse_args()
    if args.no_fsync:
        os.fsync = lambda fd: None  # type: ignore[assignment]
    else:
        os.fsync = counting_fsync  # type: ignore[assignment]
    local_s, local_cpu, local_moves = trio.run(in_process, args.deals)
    with tempfile.TemporaryDirectory() as tmp:
        FSYNCS[0] = 0
        net_s, net_cpu, net_moves, frames = trio.run(networked, args.deals, Path(tmp))
    print(f"deals: {args.deals} (random vs random), fsync {'off' if args.no_fsync else 'on'}")
    print(f"in one process: {local_s:.3f} s, {local_moves} moves, {1000 * local_s / local_moves:.3f} ms/move; "
          f"CPU {1000 * local_cpu / local_moves:.3f} ms/move")
    net_ms, local_ms = 1000 * net_s / net_moves, 1000 * local_s / local_moves
    print(f"over loopback:  {net_s:.3f} s, {net_moves} moves, {net_ms:.3f} ms/move (both peers, one CPU); "
          f"CPU {1000 * net_cpu / net_moves:.3f} ms/move")
    print(f"ratio networked / in-process per move: {net_ms / local_ms:.1f}x wall, "
          f"{(net_cpu / net_moves) / (local_cpu / local_moves):.1f}x CPU; "
          f"protocol CPU per move: {1000 * (net_cpu / net_moves - local_cpu / local_moves):.3f} ms")
    if not args.no_fsync:
        # Each side fsyncs every frame of its log (both hellos and every chained message) once,
        # the header once, and the logs directory twice (creation, rename to the peer's name).
        want = 2 * (frames + 1 + 2)
        print(f"fsyncs: {FSYNCS[0]} for 2 logs of {frames} frames each (one per message would be {want})")


if __name__ == "__main__":
    main()
