"""The claim race, repeated: a hostile host claims at once as the guest's trump falls
due (the claim crosses the guest's trump, protocol/wire.md §16 races); the honest guest disputes.
Counts the runs in which the two logs do not reach the same verdict -- before the transport's write
was shielded from its caller, the guest's dispute was lost in about 1 run in 4 (the task sending it
was cancelled by the match's early end, and the pong of the next ping acknowledged it).

Each run is one trio run on the mock clock (no real seconds pass); trio's scheduling order varies
from run to run, which is what makes the race.  Prints the runs that disagree and the count.

Usage: python bench/claim_race.py [--runs N] [--step trump|commit|reveal]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import trio
import trio.testing

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from p2ptrumps.wire.log import LOG_MAGIC
from p2ptrumps.wire.verify import verify_log
from tests import test_net_clock_claims as claims


def one(step: str) -> bool:
    """One race; True when both logs verify to the same match (the claimant's holds the dispute)."""
    with tempfile.TemporaryDirectory() as d:

        async def main() -> tuple[object, list[bytes], str]:
            return await claims.run(Path(d), 0.0, step)

        result, log, _ = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
        honest = verify_log(result.log_path.read_bytes()).to_json()  # type: ignore[attr-defined]
        hostile = verify_log(LOG_MAGIC + b"".join(log)).to_json()
        return claims._same_match(honest) == claims._same_match(hostile)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--step", choices=("trump", "commit", "reveal"), default="trump")
    args = parser.parse_args()
    bad = [i for i in range(args.runs) if not one(args.step)]
    print(f"{args.step}: {len(bad)} of {args.runs} runs with logs that disagree" + (f" (runs {bad})" if bad else ""))


if __name__ == "__main__":
    main()
