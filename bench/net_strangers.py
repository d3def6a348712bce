"""Strangers at the door (issue 7): a host under a crowd of stray connections while a real guest
joins and plays a whole match.  Loopback only; every wait bounded; it stops by itself.

What it does:

1. starts ``p2ptrumps host --headless --ai random --bind 127.0.0.1 --port 0`` (its own
   ``XDG_DATA_HOME``; the reference peer's default deadlines and caps, protocol/wire.md §17) and
   reads its port;
2. samples the host's memory (``VmRSS`` in ``/proc/PID/status``) every 20 ms: *before* (the
   host listening, no connection yet), the *peak* (the kernel's exact high-water mark of the
   process, from ``wait4``), and *after* (once every stray has ended, while the match still runs);
3. opens ``--strays`` connections (200), the kinds of :data:`p2ptrumps.net.testing.STRAY_KINDS`
   in rotation (idle, junk, oversized length, reset, hellos with random keys that leave, stall
   with heartbeats only, refuse the key, refuse the rules, dribble a frame, flood pings without
   reading, a stranger's resume, garbage after a hello, heartbeats with no hello, a thousand
   signed chats out of turn, a run of crossing (superseded) messages beyond the cap, two signed
   messages for one place), from the addresses ``127.0.0.1`` .. ``127.0.0.<--addresses>`` (the
   real guest's address among them), started evenly over ``--spread`` seconds, at most
   ``--concurrency`` open at once, each giving up after ``--hold`` seconds;
4. ``--guest-after`` seconds after the first stray, starts the real guest: ``p2ptrumps join
   --headless --accept-new --ai normal --think T`` (its own data directory);
5. checks: both exit 0; ``p2ptrumps verify`` of each log and of the two together exits 0; the host's
   data directory holds its key, ``known_peers.json`` naming the guest alone and one log (nothing
   for any stray); the guest's holds its key, the host's pin and one log.

Run (figures for the report)::

    python bench/net_strangers.py                        # 200 strays over 2 s, 8 deals
    python bench/net_strangers.py --strays 40 --deals 1  # a quick look

It prints how each kind of stray ended (``closed`` by the host, ``held`` until it gave up,
``refused``), the longest any stray was kept, the host's notes, memory and the checks; exit status
1 if any check failed.  ``tests/test_net_strangers.py`` runs a small version (CI) and a larger one
(marked ``slow``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import trio

from p2ptrumps.net.testing import STRAY_KINDS, peer_command, peer_env, stray

#: Seconds the whole run may take at most (the host and the guest are killed then).
RUN_TIMEOUT_S = 300.0


@dataclass
class Report:
    """What one run found; ``problems`` empty when every check passed."""

    strays: int = 0
    ends: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    longest_s: dict[str, float] = field(default_factory=dict)
    rss_before_kib: int = 0
    rss_peak_kib: int = 0  # the kernel's high-water mark of the host process (wait4), or a higher sample
    rss_sampled_peak_kib: int = 0
    rss_after_kib: int | None = None  # once every stray ended, the host still playing
    strays_done_s: float = 0.0
    match_done_s: float = 0.0
    host_cpu_s: float = 0.0
    exit_codes: dict[str, int | None] = field(default_factory=dict)
    verify_codes: dict[str, int] = field(default_factory=dict)
    files: dict[str, list[str]] = field(default_factory=dict)
    host_notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def text(self) -> str:
        out = [f"strays: {self.strays}, all ended after {self.strays_done_s:.1f} s; the match ended after "
               f"{self.match_done_s:.1f} s (host CPU {self.host_cpu_s:.1f} s)"]
        for kind in STRAY_KINDS:
            if kind in self.ends:
                ends = ", ".join(f"{n} {how}" for how, n in sorted(self.ends[kind].items()))
                out.append(f"  {kind:20} {ends}; longest kept {self.longest_s[kind]:.2f} s")
        after = "-" if self.rss_after_kib is None else f"{self.rss_after_kib / 1024:.1f} MiB"
        out.append(f"host RSS: before {self.rss_before_kib / 1024:.1f} MiB, peak {self.rss_peak_kib / 1024:.1f} MiB "
                   f"(sampled {self.rss_sampled_peak_kib / 1024:.1f} MiB), after the strays {after}")
        out.append(f"exit: host {self.exit_codes.get('host')}, guest {self.exit_codes.get('guest')}; verify: "
                   + ", ".join(f"{k} {v}" for k, v in self.verify_codes.items()))
        for who, files in self.files.items():
            out.append(f"files of the {who}: " + ", ".join(files))
        out.append(f"host notes ({len(self.host_notes)}):")
        out.extend(f"  {line}" for line in self.host_notes)
        out.append("OK" if self.ok else "FAILED: " + "; ".join(self.problems))
        return "\n".join(out)


def _rss_kib(pid: int) -> int | None:
    """The resident set of process ``pid`` in KiB (None once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        return None
    return None


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


class Child:
    """A child process reaped with ``wait4`` (its exit status, CPU time and peak RSS)."""

    def __init__(self, args: list[str], out: Path, home: Path) -> None:
        self.out = out
        with open(out, "wb") as f:
            self.proc = subprocess.Popen(args, stdout=f, stderr=subprocess.STDOUT, env=peer_env(home))
        self.code: int | None = None
        self.maxrss_kib = 0
        self.cpu_s = 0.0

    def poll(self) -> bool:
        """True once the process has ended (and is reaped)."""
        if self.code is not None:
            return True
        pid, status, usage = os.wait4(self.proc.pid, os.WNOHANG)
        if pid == 0:
            return False
        self.code = os.waitstatus_to_exitcode(status)
        self.proc.returncode = self.code
        self.maxrss_kib = usage.ru_maxrss  # KiB on Linux
        self.cpu_s = usage.ru_utime + usage.ru_stime
        return True

    def kill(self) -> None:
        if not self.poll():
            self.proc.kill()
            for _ in range(500):
                if self.poll():
                    break
                time.sleep(0.01)

    def text(self) -> str:
        return self.out.read_text(errors="replace") if self.out.exists() else ""


async def _port_of(host: Child, timeout_s: float = 30.0) -> int:
    with trio.fail_after(timeout_s):
        while True:
            for line in host.text().splitlines():
                if line.startswith("waiting for a guest on port "):
                    return int(line.split()[-2])
            if host.poll():
                raise RuntimeError(f"the host did not start: {host.text()}")
            await trio.sleep(0.02)


async def run(work: Path, *, strays: int = 200, concurrency: int = 200, spread_s: float = 2.0, hold_s: float = 12.0,
              addresses: int = 16, guest_after_s: float = 1.0, deals: int = 8, pack: int = 36,
              guest_ai: str = "normal", guest_think_s: float = 0.2, sample_s: float = 0.02) -> Report:
    """One run in the empty directory ``work``; see the module docstring (the keyword arguments are its
    options, seconds in ``*_s``).  Returns the :class:`Report`."""
    rep = Report(strays=strays)
    homes = {r: work / r for r in ("host", "guest")}
    host = Child(peer_command("host", "--headless", "--ai", "random", "--think", "0.01", "--bind", "127.0.0.1",
                          "--port", "0", "--deals", str(deals), "--pack", str(pack), "--name", "Hana"),
                 work / "host.out", homes["host"])
    join = ("--headless", "--accept-new", "--ai", guest_ai, "--think", str(guest_think_s), "--name", "Gus")
    guest: Child | None = None
    t0 = time.monotonic()
    try:
        with trio.fail_after(RUN_TIMEOUT_S):
            port = await _port_of(host)
            await trio.sleep(0.3)  # settled: listening, nothing else
            rep.rss_before_kib = _rss_kib(host.proc.pid) or 0
            limiter = trio.CapacityLimiter(concurrency)
            done = trio.Event()
            left = [strays]

            async def one(k: int) -> None:
                kind = STRAY_KINDS[k % len(STRAY_KINDS)]
                async with limiter:
                    began = time.monotonic()
                    source = f"127.0.0.{1 + (k + k // len(STRAY_KINDS)) % addresses}"  # kinds rotate over them
                    how = await stray(kind, port, source=source, hold_s=hold_s, name=f"stray{k}")
                    took = time.monotonic() - began
                rep.ends[kind][how] += 1
                rep.longest_s[kind] = max(rep.longest_s.get(kind, 0.0), took)
                left[0] -= 1
                if not left[0]:
                    rep.strays_done_s = time.monotonic() - t0
                    done.set()

            async def sampler() -> None:
                while not host.poll():
                    rss = _rss_kib(host.proc.pid)
                    if rss is not None:
                        rep.rss_sampled_peak_kib = max(rep.rss_sampled_peak_kib, rss)
                    if done.is_set() and rep.rss_after_kib is None and rss is not None:
                        await trio.sleep(0.5)  # let the last closes settle
                        if not host.poll():
                            rep.rss_after_kib = _rss_kib(host.proc.pid)
                    await trio.sleep(sample_s)

            async with trio.open_nursery() as nursery:
                nursery.start_soon(sampler)
                start = trio.current_time()
                joiner = peer_command("join", f"127.0.0.1:{port}", *join)
                for k in range(strays):
                    nursery.start_soon(one, k)
                    if guest is None and trio.current_time() - start >= guest_after_s:
                        guest = Child(joiner, work / "guest.out", homes["guest"])
                    await trio.sleep(spread_s / strays)
                if guest is None:
                    await trio.sleep(max(0.0, guest_after_s - (trio.current_time() - start)))
                    guest = Child(joiner, work / "guest.out", homes["guest"])
                await done.wait()
                while not (host.poll() and guest.poll()):
                    await trio.sleep(0.05)
            rep.match_done_s = time.monotonic() - t0
    except trio.TooSlowError:
        rep.problems.append(f"the run took more than {RUN_TIMEOUT_S:g} s")
    finally:
        host.kill()
        if guest is not None:
            guest.kill()
    rep.rss_peak_kib, rep.host_cpu_s = max(host.maxrss_kib, rep.rss_sampled_peak_kib), host.cpu_s
    rep.exit_codes = {"host": host.code, "guest": None if guest is None else guest.code}
    rep.host_notes = [line for line in host.text().splitlines()
                      if "waiting for another guest" in line or "still waiting for a guest" in line
                      or line.startswith("dropped") or line.startswith("(more dropped")]
    _check(rep, homes, host, guest)
    return rep


def _check(rep: Report, homes: dict[str, Path], host: Child, guest: Child | None) -> None:
    for who, child in (("host", host), ("guest", guest)):
        if child is None or child.code != 0:
            tail = "" if child is None else child.text()[-600:]
            rep.problems.append(f"the {who} exited {None if child is None else child.code}: {tail}")
    logs: dict[str, Path] = {}
    for who, home in homes.items():
        data = home / "p2ptrumps"
        files = _files(data) if data.exists() else []
        rep.files[who] = files
        found = [data / f for f in files if f.endswith(".p2plog")]
        if len(found) != 1:
            rep.problems.append(f"the {who} holds {len(found)} logs, not 1: {files}")
        else:
            logs[who] = found[0]
        others = [f for f in files if not f.endswith(".p2plog") and f not in ("known_peers.json", "identity.key",
                                                                               "name")]
        if others:
            rep.problems.append(f"unexpected files of the {who}: {others}")
    peers = homes["host"] / "p2ptrumps" / "known_peers.json"
    if peers.exists() and peers.read_text().count('"fingerprint"') != 1:
        rep.problems.append(f"the host pinned more than the guest: {peers.read_text()[:400]}")
    if len(logs) == 2:
        for name, args in (("host log", [logs["host"]]), ("guest log", [logs["guest"]]),
                           ("both logs", [logs["host"], logs["guest"]])):
            code = subprocess.run(peer_command("verify", *map(str, args)), capture_output=True, timeout=120).returncode
            rep.verify_codes[name] = code
            if code != 0:
                rep.problems.append(f"verify of the {name} exited {code}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strays", type=int, default=200, help="stray connections in all (default 200)")
    ap.add_argument("--concurrency", type=int, default=200, help="most strays open at once (default 200)")
    ap.add_argument("--spread", type=float, default=2.0, help="seconds over which the strays start (default 2)")
    ap.add_argument("--hold", type=float, default=12.0, help="seconds after which a stray gives up (default 12)")
    ap.add_argument("--addresses", type=int, default=16, help="strays come from 127.0.0.1..N (default 16)")
    ap.add_argument("--guest-after", type=float, default=1.0, help="seconds before the guest joins (default 1)")
    ap.add_argument("--deals", type=int, default=8, help="deals in the match (default 8)")
    ap.add_argument("--pack", type=int, default=36, choices=(32, 36, 52), help="pack size (default 36)")
    ap.add_argument("--guest-ai", default="normal", help="the guest AI's level (default normal)")
    ap.add_argument("--guest-think", type=float, default=0.2, help="the guest AI's seconds per move (default 0.2)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="p2ptrumps-strangers-") as tmp:
        rep = trio.run(lambda: run(Path(tmp), strays=args.strays, concurrency=args.concurrency,
                                   spread_s=args.spread, hold_s=args.hold, addresses=args.addresses,
                                   guest_after_s=args.guest_after, deals=args.deals, pack=args.pack,
                                   guest_ai=args.guest_ai, guest_think_s=args.guest_think))
    print(rep.text())
    sys.exit(0 if rep.ok else 1)


if __name__ == "__main__":
    main()
