"""Meet by code between every pair of lab homes: the matrix of paths and times.

A network lab (:mod:`p2ptrumps.net.lab`: homes behind NAT, carrier-grade NAT, IPv6 firewalls, on a
lab-only internet) with a real magic-wormhole mailbox server and transit relay in its internet
namespace (:func:`p2ptrumps.net.testing.rendezvous_servers`).  For each pair of homes the host runs
``host --code`` in the first, the guest ``join CODE`` in the second (both headless, the random AI),
``--reps`` times.  Each run: the match completes, both logs verify as one chain, the path used
(``direct`` / ``mapped`` / ``relay``, from the host's and the guest's own words) and the time from
starting ``join`` to the guest seeing the first move.  Prints one row a pair: the paths seen, the
median and range of join -> first move, and the runs that failed (with why).

    sudo python bench/net_meet_lab.py [--reps 5] [--homes open,upnp,plain,cgnat,cgnat-2,v6,v6pin]

Needs root, ``ip`` and ``miniupnpd`` (see ``lab.unavailable()``).  Sends nothing outside the lab.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from netlab import lab_ready

from p2ptrumps.net import lab
from p2ptrumps.net.testing import peer_command, rendezvous_servers

HOMES = ("open", "upnp", "plain", "cgnat", "cgnat-2", "v6", "v6pin")
PLAY = ("--headless", "--ai", "random", "--think", "0.01", "--timeout", "20")
RULES = ("--deals", "1", "--pack", "32", "--turn-limit", "120")
RUN_TIMEOUT_S = 90.0


@dataclass
class Run:
    """One match by code from ``host`` to ``guest``."""

    host: str
    guest: str
    path: str = "?"
    first_move_s: float | None = None
    verdict: str = ""
    problems: list[str] = field(default_factory=list)
    said: list[str] = field(default_factory=list)  # the host's lines, then the guest's

    @property
    def ok(self) -> bool:
        return not self.problems


def _env(home: Path) -> dict[str, str]:
    import os

    return {**os.environ, "XDG_DATA_HOME": str(home), "PYTHONUNBUFFERED": "1"}


def _lines(proc: subprocess.Popen[bytes], into: list[tuple[float, str]]) -> threading.Thread:
    """Collect ``proc``'s output lines with the time each arrived (a daemon thread)."""
    def read() -> None:
        assert proc.stdout is not None
        for raw in proc.stdout:
            into.append((time.monotonic(), raw.decode(errors="replace").rstrip("\n")))

    t = threading.Thread(target=read, daemon=True)
    t.start()
    return t


def _path(host_lines: list[str], guest_lines: list[str]) -> str:
    """``relay``, ``mapped`` (through the host router's port mapping) or ``direct`` (with the host's words)."""
    if any(ln.startswith("connected through relay") for ln in guest_lines):
        return "relay"
    said = [ln.removeprefix("path: ") for ln in host_lines if ln.startswith("path: ")]
    if said and "port mapping" in said[0]:
        return "mapped"
    return f"direct ({said[0]})" if said else "direct"


def one_run(net: lab.Lab, urls: tuple[str, str], host: str, guest: str, work: Path) -> Run:
    """One match by code from ``host`` to ``guest`` in ``net`` (see the module docstring)."""
    r = Run(host, guest)
    hl: list[tuple[float, str]] = []
    gl: list[tuple[float, str]] = []
    procs: list[subprocess.Popen[bytes]] = []
    try:
        hp = net.popen(host, peer_command("host", "--code", "--rendezvous", urls[0], "--relay", urls[1], "--port", "0",
                                          "--log", str(work / "host.p2plog"), *PLAY, *RULES),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=_env(work / "h"))
        procs.append(hp)
        _lines(hp, hl)
        deadline = time.monotonic() + 30
        code = ""
        while not code and time.monotonic() < deadline and hp.poll() is None:
            code = next((ln.removeprefix("Tell your opponent: p2ptrumps join ").split()[-1] for _, ln in list(hl)
                         if ln.startswith("Tell your opponent: p2ptrumps join ")), "")
            time.sleep(0.02)
        if not code:
            r.problems.append("the host printed no code: " + " | ".join(ln for _, ln in hl[-3:]))
            return r
        started = time.monotonic()
        gp = net.popen(guest, peer_command("join", code, "--rendezvous", urls[0], "--log",
                                           str(work / "guest.p2plog"), *PLAY),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=_env(work / "g"))
        procs.append(gp)
        reader = _lines(gp, gl)
        for p, who in ((gp, "guest"), (hp, "host")):
            try:
                status = p.wait(max(1.0, started + RUN_TIMEOUT_S - time.monotonic()))
            except subprocess.TimeoutExpired:
                r.problems.append(f"the {who} did not finish in {RUN_TIMEOUT_S:g} s")
                continue
            if status != 0:
                tail = (gl if who == "guest" else hl)[-1:]
                r.problems.append(f"the {who} exited {status}: {tail[0][1] if tail else ''}")
        reader.join(2)
        first = next((t for t, ln in gl if ln.startswith("    1. ")), None)
        r.first_move_s = None if first is None else first - started
        r.path = _path([ln for _, ln in hl], [ln for _, ln in gl])
        r.said = [f"host: {ln}" for _, ln in hl[:8]] + [f"guest: {ln}" for _, ln in gl[:8]]
        check = subprocess.run(peer_command("verify", str(work / "host.p2plog"), str(work / "guest.p2plog")),
                               capture_output=True, text=True, timeout=60)
        r.verdict = check.stdout.splitlines()[0] if check.stdout else check.stderr.strip()
        if check.returncode != 0:
            r.problems.append(f"verify: {r.verdict}")
        return r
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(5)


def pairs(homes: list[str]) -> list[tuple[str, str]]:
    """Every pair of distinct homes, the first hosting."""
    return list(itertools.combinations(homes, 2))


def matrix(homes: list[str], reps: int, work: Path, only: list[tuple[str, str]] | None = None,
           say: bool = True) -> list[list[Run]]:
    """Build a lab of ``homes``, start the mailbox and relay in its internet, and play ``reps`` matches
    for each pair (``only``: just these pairs).  Returns the runs, one list a pair."""
    out: list[list[Run]] = []
    with lab.Lab(homes=homes) as net:
        servers = work / "servers"
        servers.mkdir()
        with rendezvous_servers(servers, host=net.service_address, prefix=("ip", "netns", "exec", net.ns("inet"))) \
                as urls:
            for host, guest in only or pairs(homes):
                runs = []
                for i in range(reps):
                    sub = work / f"{host}_{guest}_{i}"
                    sub.mkdir()
                    runs.append(one_run(net, urls, host, guest, sub))
                out.append(runs)
                if say:
                    print(row(runs), flush=True)
    return out


def row(runs: list[Run]) -> str:
    """``host -> guest  path  median (min-max) s  failures``."""
    times = [r.first_move_s for r in runs if r.ok and r.first_move_s is not None]
    seen = [r.path for r in runs]
    paths = [f"{p} {seen.count(p)}" if len(set(seen)) > 1 else p for p in sorted(set(seen))]
    med = f"{statistics.median(times):5.2f} s ({min(times):.2f}-{max(times):.2f})" if times else "    -"
    bad = [f"{r.problems[0]}" for r in runs if not r.ok]
    return (f"{runs[0].host:>8} -> {runs[0].guest:<8} {', '.join(paths):<40} {med}  "
            f"{len(runs) - len(bad)}/{len(runs)} ok" + (f"  [{bad[0]}]" if bad else ""))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--homes", default=",".join(HOMES))
    args = ap.parse_args(argv)
    if not lab_ready():
        return 2
    homes = args.homes.split(",")
    print(f"meet by code, lab homes {', '.join(homes)}; {args.reps} matches a pair; join -> first move (guest)")
    with tempfile.TemporaryDirectory(prefix="wormhole-lab-") as tmp:
        runs = matrix(homes, args.reps, Path(tmp))
    return 0 if all(r.ok for rs in runs for r in rs) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
