"""``verify`` on hostile and on long logs: seconds and peak memory against the log's size.

Logs (written to a temporary directory):

- ``frames-N``: the two hellos of a real match, then N MiB of 5-byte frames (a length of 1 and an
  empty array): INVALID at frame #2 -- what a reader must not spend gigabytes of memory on;
- ``match-D``: a whole match of D deals (32 cards) played by two scripted in-memory peers (the
  first legal move), the host's log: VALID;
- ``withdrawals-W``: the guest's log of a whole match (52 cards, as many deals as it takes) in which
  a guest ``claim`` crossed W of the host's messages: each is logged, then withdrawn by the host's
  message for its place and dropped (protocol/wire.md §8.3 row g, §16): VALID -- the log that made
  the verifier quadratic (a copy per withdrawal).

Each log is verified by ``p2ptrumps verify LOG`` in a child process under GNU ``/usr/bin/time``: wall
seconds, and the peak resident memory (``%M``) less that of verifying the smallest log (the
interpreter and the imports), against the log's size.  The stated bound (:data:`BOUND`, protocol/verify.md
§1 "Cost"): the reference verifier's memory beyond its start-up is at most 8x the log's size.

Run::

    python bench/verify_bombs.py                       # frames 16/64/255 MiB, a 500-deal match
    python bench/verify_bombs.py --frames 16 --deals 50
    python bench/verify_bombs.py --frames --deals --withdrawals 16000 64000
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from p2ptrumps.net.testing import peer_command
from p2ptrumps.rules import RuleSet
from p2ptrumps.wire import framing
from p2ptrumps.wire import messages as m
from p2ptrumps.wire.chain import JointChain
from p2ptrumps.wire.log import LOG_MAGIC, read_log
from p2ptrumps.wire.testing import ConnectionPair

#: The memory bound stated for the reference verifier, in multiples of the log's size: a file of tiny
#: frames costs 1x (the file itself); a whole match about 7x (the file, and the chain and the signed
#: messages kept for the two-log check as Python objects: about 1.1 KiB of resident memory per message
#: of about 170 bytes).
BOUND = 8


def match_log(deals: int) -> bytes:
    """The host's log of a whole match of ``deals`` deals (32 cards), two scripted peers in memory."""
    pair = ConnectionPair(RuleSet(pack_size=32, deals=deals))
    pair.run()
    return pair.host.log_bytes()


def withdrawals_log(count: int) -> bytes:
    """The guest's log of a whole match (52 cards) with a withdrawn guest ``claim`` logged right before
    ``count`` of the host's messages (each one the match waited for: the claim is allowed there, and the
    host's message takes its place, wire.md §8.3 row g).  ``ValueError`` if 1000 deals hold fewer."""
    per_deal = 150  # places a deal gives at least (52 cards, first legal move: about 215)
    deals = min(1000, max(1, count // per_deal + 2))
    pair = ConnectionPair(RuleSet(pack_size=52, deals=deals, turn_limit=1000))
    pair.run()
    guest = pair.guest.session
    chain = guest.chain
    assert chain is not None
    frames = read_log(pair.guest.log_bytes()).frames
    out = list(frames[:2])
    ref = JointChain(chain.game_id, chain.keys, None).referee
    placed = 0
    for frame in frames[2:]:
        msg = m.decode(frame[4:])
        assert isinstance(msg, m.Signed)
        seat, what = ref.waiting_for()
        if placed < count and msg.seat == 0 and seat == 0 and what in ("trump", "commit", "reveal", "move"):
            claim = m.build_signed(chain.game_id, 1, msg.seq, msg.prev, m.ClaimMsg(max(ref.deal, 1)),
                                   guest.identity.sign)
            out.append(framing.frame(claim.payload))
            placed += 1
        ref.apply(msg.seat, msg.body)
        out.append(frame)
    if placed < count:
        raise ValueError(f"only {placed} places for a withdrawn claim in {deals} deals")
    return LOG_MAGIC + b"".join(out)


def frames_bomb(mib: int, hellos: bytes) -> bytes:
    """The two hellos of ``hellos`` (a log), then ``mib`` MiB of 5-byte frames."""
    contents = read_log(hellos)
    head = hellos[:16] + b"".join(contents.frames[:2])
    return head + b"\x00\x00\x00\x01\x90" * (mib * (1 << 20) // 5)


def measure(path: Path) -> tuple[float, float, int]:
    """(wall seconds, peak RSS in MiB, exit status) of ``p2ptrumps verify PATH``."""
    began = time.monotonic()
    # GNU time's %M: the child's own high-water mark (a child of this big process would inherit ours).
    run = subprocess.run(["/usr/bin/time", "-f", "%M", *peer_command("verify", str(path))], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, timeout=3600)
    peak_kib = int(run.stderr.strip().splitlines()[-1])
    return time.monotonic() - began, peak_kib / 1024, run.returncode


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, nargs="*", default=[16, 64, 255],
                    help="MiB of 5-byte frames (verify reads at most 256 MiB)")
    ap.add_argument("--deals", type=int, nargs="*", default=[500], help="deals of a whole match")
    ap.add_argument("--withdrawals", type=int, nargs="*", default=[], help="withdrawn guest claims in a guest log")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="p2ptrumps-verify-bombs-") as tmp:
        work = Path(tmp)
        small = match_log(1)
        logs: list[tuple[str, Path]] = []
        (work / "small.p2plog").write_bytes(small)
        for deals in args.deals:
            path = work / f"match-{deals}.p2plog"
            path.write_bytes(match_log(deals))
            logs.append((f"match, {deals} deals", path))
        for count in args.withdrawals:
            path = work / f"withdrawals-{count}.p2plog"
            path.write_bytes(withdrawals_log(count))
            logs.append((f"{count} withdrawals", path))
        for mib in args.frames:
            path = work / f"frames-{mib}.p2plog"
            path.write_bytes(frames_bomb(mib, small))
            logs.append((f"5-byte frames, {mib} MiB", path))
        _, base_mib, _ = measure(work / "small.p2plog")
        print(f"start-up (a 1-deal log): {base_mib:.1f} MiB peak RSS")
        print(f"{'log':28} {'size MiB':>9} {'seconds':>8} {'peak MiB':>9} {'above start':>12} {'x size':>7} exit")
        failed = False
        for name, path in logs:
            size = path.stat().st_size / (1 << 20)
            secs, peak, code = measure(path)
            above = max(0.0, peak - base_mib)
            ratio = above / size if size else 0.0
            failed = failed or ratio > BOUND
            print(f"{name:28} {size:9.1f} {secs:8.1f} {peak:9.1f} {above:12.1f} {ratio:7.2f} {code}")
        print(f"bound: memory above start-up <= {BOUND}x the log's size: " + ("EXCEEDED" if failed else "kept"))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
