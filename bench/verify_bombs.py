"""``verify`` on hostile and on long logs: seconds and peak memory against the log's size (issue 17 item 3).

Logs (written to a temporary directory):

- ``frames-N``: the two hellos of a real match, then N MiB of 5-byte frames (a length of 1 and an
  empty array): INVALID at frame #2 -- what a reader must not spend gigabytes of memory on;
- ``match-D``: a whole match of D deals (32 cards) played by two scripted in-memory peers (the
  first legal move), the host's log: VALID.

Each log is verified by ``p2ptrumps verify LOG`` in a child process under GNU ``/usr/bin/time``: wall
seconds, and the peak resident memory (``%M``) less that of verifying the smallest log (the
interpreter and the imports), against the log's size.  The stated bound (:data:`BOUND`): the
reference verifier's memory beyond its start-up is at most 10x the log's size.

Run::

    python bench/verify_bombs.py                       # frames 16/64/255 MiB, a 500-deal match
    python bench/verify_bombs.py --frames 16 --deals 50
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
from p2ptrumps.wire.log import read_log
from p2ptrumps.wire.testing import ConnectionPair

#: The memory bound stated for the reference verifier, in multiples of the log's size: a file of tiny
#: frames costs 1x (the file itself); a whole match about 9x (the chain and the signed messages kept for
#: the two-log check, as Python objects: about 1 KiB per message of about 120 bytes).
BOUND = 10


def match_log(deals: int) -> bytes:
    """The host's log of a whole match of ``deals`` deals (32 cards), two scripted peers in memory."""
    pair = ConnectionPair(RuleSet(pack_size=32, deals=deals))
    pair.run()
    return pair.host.log_bytes()


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
