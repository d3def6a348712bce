"""A networked AI-vs-AI match over loopback TCP against the same match in one process.

Both runs play ``--deals`` deals between two ``random``-level AIs (the AI's own
cost is then tiny, so what remains is the match loop, and for the networked run
the protocol: signing, verifying, hashing the chain and positions, msgpack,
framing, TCP, the fsynced match logs of both sides).  Reports wall time, moves,
milliseconds per move and the ratio networked / in-process.

Usage: python bench/net_match.py [--deals N] [--no-fsync]

``--no-fsync`` measures without ``os.fsync`` (to separate the disk from the protocol).
"""

from __future__ import annotations

import argparse
import io
import os
import tempfile
import time
from pathlib import Path

import trio

from p2ptrumps import netplay
from p2ptrumps.ai import AIPlayer
from p2ptrumps.match import MatchRunner
from p2ptrumps.rules import RuleSet
from p2ptrumps.wire.identity import Identity


async def in_process(deals: int) -> tuple[float, int]:
    players = (AIPlayer("random", 0.01, seed=1), AIPlayer("random", 0.01, seed=2))
    t0 = time.perf_counter()
    record = await MatchRunner(RuleSet(deals=deals), (2, 3), players).run()
    return time.perf_counter() - t0, sum(len(d.moves) for d in record.deals)


async def networked(deals: int, data: Path) -> tuple[float, int]:
    h = netplay.NetConfig(role="host", identity=Identity.from_seed(b"h" * 32), name="H", data=data / "h",
                          rules=RuleSet(deals=deals), ai="random", think_s=0.01, out=io.StringIO(), trump=2)
    g = netplay.NetConfig(role="guest", identity=Identity.from_seed(b"g" * 32), name="G", data=data / "g",
                          ai="random", think_s=0.01, accept_new=True, out=io.StringIO(), trump=3)
    t0 = time.perf_counter()
    async with trio.open_nursery() as n:
        port = await n.start(netplay.host, h, "127.0.0.1", 0)
        result = await netplay.join(g, f"127.0.0.1:{port}")
    elapsed = time.perf_counter() - t0
    from p2ptrumps.wire.verify import verify_log

    assert result.log_path is not None
    verdict = verify_log(result.log_path.read_bytes())
    assert verdict.status == "valid", verdict.reason
    record = verdict.to_record()
    return elapsed, sum(len(d.moves) for d in record.deals)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=20)
    ap.add_argument("--no-fsync", action="store_true")
    args = ap.parse_args()
    if args.no_fsync:
        os.fsync = lambda fd: None  # type: ignore[assignment]
    local_s, local_moves = trio.run(in_process, args.deals)
    with tempfile.TemporaryDirectory() as tmp:
        net_s, net_moves = trio.run(networked, args.deals, Path(tmp))
    print(f"deals: {args.deals} (random vs random), fsync {'off' if args.no_fsync else 'on'}")
    print(f"in one process: {local_s:.3f} s, {local_moves} moves, {1000 * local_s / local_moves:.3f} ms/move")
    net_ms, local_ms = 1000 * net_s / net_moves, 1000 * local_s / local_moves
    print(f"over loopback:  {net_s:.3f} s, {net_moves} moves, {net_ms:.3f} ms/move (both peers, one CPU)")
    print(f"ratio networked / in-process per move: {net_ms / local_ms:.1f}x")


if __name__ == "__main__":
    main()
