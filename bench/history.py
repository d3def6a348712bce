"""``p2ptrumps history`` on a thousand matches: the first call (every log verified, the index
written) and the next (read from the index).

Run: ``python bench/history.py [--matches N] [--deals D]``

N/2 match logs (copies of one D-deal match between two scripted in-memory peers, under
different default file names) and N/2 offline records (copies of the shipped sample record)
are written to a temporary data directory; then :func:`load_history` runs three times: cold
(no index), warm (index fresh) and after one file changed.  Times are wall seconds of this
process (``time.perf_counter``); the index size is in bytes.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from p2ptrumps.commands.history import INDEX_NAME, load_history
from p2ptrumps.rules import RuleSet
from p2ptrumps.wire.testing import ConnectionPair

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--matches", type=int, default=1000)
    ap.add_argument("--deals", type=int, default=3)
    args = ap.parse_args()
    pair = ConnectionPair(RuleSet(deals=args.deals))
    pair.run()
    log = pair.host.log_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        (data / "logs").mkdir()
        (data / "records").mkdir()
        for i in range(args.matches // 2):
            day, minute = divmod(i, 60 * 24)
            name = f"2026-{1 + day // 28:02d}-{1 + day % 28:02d}_{minute // 60:02d}{minute % 60:02d}"
            (data / "logs" / f"{name}_host_vs-guest.p2plog").write_bytes(log)
            shutil.copy(VECTORS / "record-sample.json", data / "records" / f"{name}_vs-greedy.json")
        for label in ("cold (no index)", "warm (index fresh)"):
            t0 = time.perf_counter()
            h = load_history(data)
            dt = time.perf_counter() - t0
            print(f"{label:20} {len(h.entries)} matches, {h.read} files read, {dt:.3f} s")
        victim = next((data / "logs").iterdir())
        victim.write_bytes(log + b"")
        victim.touch()
        t0 = time.perf_counter()
        h = load_history(data)
        print(f"{'one file touched':20} {len(h.entries)} matches, {h.read} files read, "
              f"{time.perf_counter() - t0:.3f} s")
        print(f"log size {len(log)} bytes; index {(data / INDEX_NAME).stat().st_size} bytes")


if __name__ == "__main__":
    main()
