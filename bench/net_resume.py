"""Time from a network cut to play going on again, over loopback (protocol/wire.md §14).

Two AI peers (host and guest, ``random`` level, in one trio run) play through a TCP proxy
(:class:`p2ptrumps.net.testing.CuttingProxy`) that resets every open connection at random moments.
For each cut it measures the time from the reset until the host's log holds the next chained
message after the guest's proven ``resume`` -- the guest noticed the loss, redialled, both proved
their keys, the missing messages were sent again and the match moved on.  At the end both logs
must verify as valid with as many reconnections as cuts.

Run::

    python bench/net_resume.py --cuts 40            # one 40-deal match, 40 cuts
    python bench/net_resume.py --cuts 10 --deals 2  # a quick look

Prints each cut's time and the median, p95 and max (milliseconds).
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import sys
import tempfile
from pathlib import Path

import trio

from p2ptrumps.net import config, dial, lobby
from p2ptrumps.net.testing import CuttingProxy
from p2ptrumps.rules import RuleSet
from p2ptrumps.wire import messages as m
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.log import LOG_MAGIC
from p2ptrumps.wire.testing import fixed_bytes
from p2ptrumps.wire.verify import verify_log


class Tail:
    """Follows a growing match log, decoding only what was appended: how many frames, how many
    ``resume`` frames, and how many chained messages came after the last ``resume``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data = b""
        self.at = len(LOG_MAGIC)
        self.frames = self.resumes = self.after_resume = 0

    def poll(self) -> None:
        try:
            with open(self.path, "rb") as f:
                f.seek(len(self.data))
                self.data += f.read()
        except FileNotFoundError:
            return
        while len(self.data) >= self.at + 4:
            end = self.at + 4 + int.from_bytes(self.data[self.at:self.at + 4], "big")
            if len(self.data) < end:
                return
            frame = m.decode(self.data[self.at + 4:end])
            self.frames += 1
            if isinstance(frame, m.Resume):
                self.resumes, self.after_resume = self.resumes + 1, 0
            elif isinstance(frame, m.Signed):
                self.after_resume += 1
            self.at = end


async def run(work: Path, cuts: int, deals: int, rng: random.Random) -> list[float]:
    """One match with ``cuts`` cuts; returns the seconds from each cut to play going on."""
    h = config.NetConfig(role="host", identity=Identity.from_seed(fixed_bytes("bench/host")), name="Hana",
                         data=work / "h", rules=RuleSet(pack_size=36, deals=deals, turn_limit=1000), ai="random",
                         think_s=0.01, out=io.StringIO(), timeout_s=10, reconnect_wait_s=30,
                         log_path=work / "host.p2plog")
    g = config.NetConfig(role="guest", identity=Identity.from_seed(fixed_bytes("bench/guest")), name="Gus",
                         data=work / "g", ai="random", think_s=0.01, accept_new=True, out=io.StringIO(),
                         timeout_s=10, reconnect_wait_s=30, log_path=work / "guest.p2plog")
    times: list[float] = []
    done: dict[str, config.NetResult] = {}

    async def host(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        done["h"] = await lobby.host(h, "127.0.0.1", 0, task_status=task_status)

    async def cutter(proxy: CuttingProxy) -> None:
        log = Tail(work / "host.p2plog")
        while log.frames < 8:
            await trio.sleep(0.01)
            log.poll()
        for _ in range(cuts):
            await trio.sleep(rng.uniform(0.05, 0.3))
            if "h" in done:
                return
            log.poll()
            before = log.resumes
            cut_at = trio.current_time()
            proxy.cut()
            for _ in range(100_000):  # every pass sleeps 1 ms; bounded by the reconnect wait anyway
                log.poll()
                if log.resumes > before and log.after_resume > 0:
                    times.append(trio.current_time() - cut_at)
                    break
                if "h" in done:
                    return
                await trio.sleep(0.001)

    with trio.fail_after(600):
        async with trio.open_nursery() as n:
            port = await n.start(host)
            proxy = CuttingProxy(port)
            await n.start(proxy.serve)
            n.start_soon(cutter, proxy)
            done["g"] = await dial.join(g, f"127.0.0.1:{proxy.port}")
            while "h" not in done:
                await trio.sleep(0.01)
            n.cancel_scope.cancel()
    for side, path in (("host", work / "host.p2plog"), ("guest", work / "guest.p2plog")):
        v = verify_log(path.read_bytes())
        if v.status != "valid" or v.reconnections != len(times):
            raise SystemExit(f"the {side}'s log: {v.status}, {v.reconnections} reconnections for {len(times)} "
                             f"cuts: {v.reason}")
    return times


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cuts", type=int, default=40)
    ap.add_argument("--deals", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="p2p-cut-") as tmp:
        times = trio.run(run, Path(tmp), args.cuts, args.deals, random.Random(args.seed))
    if not times:
        print("the match ended before the first cut")
        return 1
    ms = sorted(t * 1000 for t in times)
    print("cut -> play goes on (ms):", " ".join(f"{x:.0f}" for x in ms))
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    print(f"{len(ms)} cuts: median {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms, max {ms[-1]:.1f} ms; "
          "both logs valid, one reconnection per cut")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
