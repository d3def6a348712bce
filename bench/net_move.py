"""The CPU of one networked move against a bare Ed25519 sign + verify, measured side by side.

A networked match between two ``random``-level AIs (whose own thinking is next to nothing) is
played over loopback TCP in this process, both peers, with ``os.fsync`` off (the disk is not
the protocol's cost); the CPU time of the process (``time.process_time``: both peers, any worker
threads included) is divided by the moves played.  Beside it, in the same run, one Ed25519
signature plus one verification of a 100-byte message with ``cryptography``.  Prints both and
their ratio: what one move costs both peers, in bare sign + verify operations.

Usage: python bench/net_move.py [--deals N] [--repeat R]   (the best of R runs of each)
"""

from __future__ import annotations

import argparse
import io
import os
import tempfile
import time
from pathlib import Path

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2ptrumps.net import config, dial, lobby
from p2ptrumps.rules import RuleSet
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.verify import verify_log


def sign_verify_s(rounds: int = 3000) -> float:
    """CPU seconds of one Ed25519 sign plus one verify of a 100-byte message."""
    key = Ed25519PrivateKey.generate()
    public = key.public_key()
    message = bytes(100)
    t0 = time.process_time()
    for _ in range(rounds):
        public.verify(key.sign(message), message)
    return (time.process_time() - t0) / rounds


async def networked(deals: int, data: Path) -> tuple[float, int]:
    """CPU seconds of one networked match of ``deals`` deals (both peers), and its moves."""
    h = config.NetConfig(role="host", identity=Identity.from_seed(b"h" * 32), name="H", data=data / "h",
                         rules=RuleSet(deals=deals), ai="random", think_s=0.01, out=io.StringIO(), trump=2)
    g = config.NetConfig(role="guest", identity=Identity.from_seed(b"g" * 32), name="G", data=data / "g",
                         ai="random", think_s=0.01, accept_new=True, out=io.StringIO(), trump=3)
    c0 = time.process_time()
    async with trio.open_nursery() as n:
        port = await n.start(lobby.host, h, "127.0.0.1", 0)
        result = await dial.join(g, f"127.0.0.1:{port}")
    cpu = time.process_time() - c0
    assert result.log_path is not None
    verdict = verify_log(result.log_path.read_bytes())
    assert verdict.status == "valid", verdict.reason
    return cpu, sum(len(d.moves) for d in verdict.to_record().deals)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    os.fsync = lambda fd: None  # type: ignore[assignment]
    per_move = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            cpu, moves = trio.run(networked, args.deals, Path(tmp))
        per_move.append(cpu / moves)
    bare = min(sign_verify_s() for _ in range(args.repeat))
    best = min(per_move)
    print(f"networked move (both peers' CPU, fsync off, {args.deals} deals, random vs random, best of "
          f"{args.repeat}): {1e6 * best:.0f} us")
    print(f"bare Ed25519 sign + verify (100 bytes): {1e6 * bare:.0f} us")
    print(f"ratio: {best / bare:.1f}x")


if __name__ == "__main__":
    main()
