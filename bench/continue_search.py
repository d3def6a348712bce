"""``p2ptrumps play --continue``'s search at its worst: N finished records newer than the one
unfinished game, so every file is looked at before the game is found.

Run: ``python bench/continue_search.py [--records N]``

The records are one-deal games between a person and ``random`` moves, finished ones played to
their end, the unfinished one stopped after 10 moves (its file made the oldest), written to a
temporary directory; :func:`~p2ptrumps.ui.play.newest_unfinished` then runs once.  The time is
wall seconds of this process (``time.perf_counter``).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import tempfile
import time
from pathlib import Path

from p2ptrumps.record import DealRecord, MatchRecord, PlayerInfo
from p2ptrumps.rules import RuleSet
from p2ptrumps.shuffle import deal_hands
from p2ptrumps.ui.play import deal_seed, newest_unfinished


def record(number: int, finish: bool) -> MatchRecord:
    """Game ``number``: random legal moves, to the end or for 10 moves."""
    rec = MatchRecord(RuleSet(), (2, 0), (PlayerInfo("Tess"), PlayerInfo("AI random", "ai:random")), started="x")
    seed = deal_seed(number, 1)
    deal = DealRecord(1, 0, seed, deal_hands(seed, rec.rules, rec.trumps, 0))
    pos = rec.start_of(deal)
    rng = random.Random(number)
    while pos.outcome is None and (finish or len(deal.moves) < 10):
        move = rng.choice(pos.legal_moves())
        pos.push(move)
        deal.moves.append(move)
    deal.outcome = pos.outcome
    rec.deals.append(deal)
    return rec


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=1000)
    n = ap.parse_args().records
    folder = Path(tempfile.mkdtemp(prefix="p2ptrumps-continue-"))
    try:
        record(0, False).save(folder / "unfinished.json")
        os.utime(folder / "unfinished.json", (1, 1))
        for i in range(1, n + 1):
            record(i, True).save(folder / f"finished-{i}.json")
        start = time.perf_counter()
        found = newest_unfinished(folder)
        seconds = time.perf_counter() - start
        assert found is not None and found[0].name == "unfinished.json"
        print(f"{n} finished records newer than the unfinished game: found in {seconds:.2f} s")
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
