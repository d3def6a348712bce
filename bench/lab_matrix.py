"""Every host home x every guest home, as users would meet, to a complete match that verifies as a pair.

The network lab (:mod:`p2ptrumps.net.lab`: homes behind a UPnP router, a plain NAT, carrier-grade NAT,
IPv6 firewalls with and without pinholes, an open host) with a real magic-wormhole mailbox server and
transit relay in its internet namespace (never a public one).  For each host home kind H and each guest
home kind G (the guest in a second home of that kind, ``G-2``; ``lan``: a second machine on the host's
own network) and each way of meeting:

* ``address`` -- ``p2ptrumps host`` in H; the guest runs ``p2ptrumps join ADDRESS`` with the address the
  host told it to give (its ``Tell your opponent:`` line), then, as a person would, each other address
  the host listed, until one plays (``--timeout 3`` each);
* ``code`` -- ``p2ptrumps host --code`` in H; the guest runs ``p2ptrumps join CODE``; direct paths first,
  the relay when none answers.

Both seats are the greedy AI (one deal of 32 cards).  A run is ``ok`` when both processes exit 0 and
``p2ptrumps verify HOST_LOG GUEST_LOG`` says the two logs are one chain of a complete match.  Reported
per cell: the path used (``mapped`` port, ``IPv6`` direct or through a pinhole, ``direct`` over IPv4 to
a public address, ``LAN``, ``relay``), the time from starting ``join`` to the guest's connection line
and to its first move (median over ``--reps``), and the outcome (``5/5``; or the guest's last line).
By address, a host no guest outside its home can reach is expected to fail: the cell shows the guest's
one-line reason.

    sudo python bench/lab_matrix.py [--reps 3] [--ways address,code] [--hosts K,K] [--guests K,K,lan]
                                    [--parallel 1] [--json FILE]

Needs root, ``ip``, ``nft`` and ``miniupnpd`` (see ``lab.unavailable()``).  Set
``P2PTRUMPS_LAB_PREFIX`` to name the lab's namespaces.  Sends nothing outside the lab.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from netlab import Peer, given_out, lab_ready

from p2ptrumps.net import lab
from p2ptrumps.net.testing import peer_command, rendezvous_servers

KINDS = lab.HOMES
GUESTS = (*lab.HOMES, "lan")
PLAY = ["--headless", "--ai", "greedy", "--think", "0.01", "--ascii"]
RULES = ["--deals", "1", "--pack", "32"]
FIRST_MOVE = re.compile(r"^\s+1\. ")
RUN_TIMEOUT_S = 120.0
TELL = "Tell your opponent: p2ptrumps join "


@dataclass
class Run:
    """One match from a host in ``host`` to a guest in ``guest`` met by ``way``."""

    way: str
    host: str
    guest: str
    path: str = ""
    connect_s: float | None = None
    first_move_s: float | None = None
    ok: bool = False
    why: str = ""
    tries: list[str] = field(default_factory=list)
    host_said: list[str] = field(default_factory=list)
    guest_said: list[str] = field(default_factory=list)


def path_kind(guest_lines: list[str], host_lines: list[str]) -> str:
    """The path in one word from both sides' own words: relay, mapped, IPv6 pinhole, IPv6, LAN, direct."""
    text = " | ".join(ln for ln in guest_lines + host_lines if ln.startswith(("path: ", "connected ", "reconnected ")))
    if "through relay" in text:
        return "relay"
    if "port mapping" in text:
        return "mapped"
    if "local network" in text:
        return "LAN"
    if "IPv6" in text:
        pin = any("pinhole" in ln for ln in host_lines if ln.startswith("IPv6:") and "lets guests reach" in ln)
        return "IPv6 pinhole" if pin else "IPv6"
    return "direct" if text else "?"


def finish(run: Run, net: lab.Lab, host: Peer, guest: Peer, started: float, work: Path) -> None:
    """Wait for both ends, then verify the pair of logs; fill in ``run``."""
    for p, who in ((guest, "guest"), (host, "host")):
        try:
            status = p.proc.wait(max(1.0, started + RUN_TIMEOUT_S - time.monotonic()))
        except subprocess.TimeoutExpired:
            run.why = run.why or f"the {who} did not finish in {RUN_TIMEOUT_S:g} s"
            p.stop()
            continue
        p.thread.join(2)
        if status != 0 and not run.why:
            run.why = f"the {who} exited {status}: {(p.text().splitlines() or [''])[-1]}"
    gl, hl = [ln for _, ln in guest.lines], [ln for _, ln in host.lines]
    run.guest_said, run.host_said = gl[:6], hl[:8]
    run.path = path_kind(gl, hl)
    con = next((t for t, ln in guest.lines if ln.startswith(("connected ", "path: "))), None)
    first = next((t for t, ln in guest.lines if FIRST_MOVE.match(ln)), None)
    run.connect_s = None if con is None else round(con - started, 2)
    run.first_move_s = None if first is None else round(first - started, 2)
    logs = [str(work / "host.p2plog"), str(work / "guest.p2plog")]
    if all(Path(x).exists() for x in logs):
        check = subprocess.run(peer_command("verify", *logs), capture_output=True, text=True, timeout=120)
        verdict = (check.stdout.splitlines() or [check.stderr.strip()])[0]
        if check.returncode != 0 or "one chain" not in verdict or "complete" not in verdict:
            run.why = run.why or f"verify: {verdict}"
    else:
        run.why = run.why or "no pair of logs"
    run.ok = not run.why


def by_address(net: lab.Lab, host_home: str, guest_home: str, work: Path) -> Run:
    run = Run("address", host_home, guest_home)
    host = Peer(net, host_home, ["host", *PLAY, *RULES, "--port", "4816", "--timeout", "10", "--name", "Hana",
                                 "--log", str(work / "host.p2plog")], work / "h")
    try:
        if host.wait_for(r"^waiting for a guest on port", 30) is None:
            run.why = "the host did not start: " + host.text()[-200:]
            return run
        candidates = given_out(host)
        started = time.monotonic()
        guest: Peer | None = None
        for address in candidates:
            guest = Peer(net, guest_home, ["join", address, *PLAY, "--accept-new", "--timeout", "3", "--name", "Gus",
                                           "--log", str(work / "guest.p2plog")], work / "g")
            if guest.wait_for(FIRST_MOVE, 40) is not None:
                break
            guest.stop()
            last = (guest.text().splitlines() or ["no output"])[-1]
            run.tries.append(f"{address}: {last.removeprefix('p2ptrumps join: ')}")
            guest = None
        if guest is None:
            run.why = run.tries[0] if run.tries else "the host gave no address"
            run.path = "-"
            return run
        finish(run, net, host, guest, started, work)
        return run
    finally:
        host.stop()
        left = net.mappings(host_home) if host_home in net.homes else []
        if left:
            run.why = run.why or f"{len(left)} mapping rules left on the router"
            run.ok = False


def by_code(net: lab.Lab, urls: tuple[str, str], host_home: str, guest_home: str, work: Path) -> Run:
    run = Run("code", host_home, guest_home)
    host = Peer(net, host_home, ["host", "--code", "--rendezvous", urls[0], "--relay", urls[1], *PLAY, *RULES,
                                 "--port", "4816", "--timeout", "10", "--name", "Hana", "--log",
                                 str(work / "host.p2plog")], work / "h")
    try:
        got = host.wait_for(r"^Tell your opponent: p2ptrumps join ", 40)
        if got is None:
            run.why = "the host printed no code: " + host.text()[-200:]
            return run
        said = got[1].removeprefix(TELL).split()
        started = time.monotonic()
        guest = Peer(net, guest_home, ["join", *said, *([] if "--rendezvous" in said else ["--rendezvous", urls[0]]),
                                       *PLAY, "--timeout", "10", "--name", "Gus", "--log", str(work / "guest.p2plog")],
                     work / "g")
        finish(run, net, host, guest, started, work)
        guest.stop()
        return run
    finally:
        host.stop()


def one(net: lab.Lab, urls: tuple[str, str], way: str, host_kind: str, guest_kind: str, work: Path) -> Run:
    host_home = host_kind
    guest_home = net.neighbour(host_home) if guest_kind == "lan" else f"{guest_kind}-2"
    work.mkdir(parents=True)
    try:
        if way == "address":
            return by_address(net, host_home, guest_home, work)
        return by_code(net, urls, host_home, guest_home, work)
    except Exception as exc:  # a run that broke is a result too: the table is still printed
        return Run(way, host_home, guest_home, why=f"bench error: {exc!r}")


def cell(runs: list[Run]) -> str:
    """``path  connect / first move  k/n`` for a table cell."""
    oks = [r for r in runs if r.ok]
    paths = sorted({r.path for r in oks}) or sorted({r.path for r in runs})
    path = "+".join(paths)
    if not oks:
        return f"{'-':<12} {'':>13}  0/{len(runs)}  {runs[0].why[:90]}"
    con = statistics.median(r.connect_s for r in oks if r.connect_s is not None) \
        if any(r.connect_s is not None for r in oks) else float("nan")
    first = statistics.median(r.first_move_s for r in oks if r.first_move_s is not None) \
        if any(r.first_move_s is not None for r in oks) else float("nan")
    bad = [r.why for r in runs if not r.ok]
    return f"{path:<12} {con:5.2f} / {first:5.2f} s  {len(oks)}/{len(runs)}" + (f"  [{bad[0][:80]}]" if bad else "")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--ways", default="address,code")
    ap.add_argument("--hosts", default=",".join(KINDS))
    ap.add_argument("--guests", default=",".join(GUESTS))
    ap.add_argument("--parallel", type=int, default=1, help="cells run at once (each in its own homes)")
    ap.add_argument("--json", metavar="FILE", help="write every run's details there")
    args = ap.parse_args(argv)
    hosts, guests, ways = args.hosts.split(","), args.guests.split(","), args.ways.split(",")
    if not lab_ready():
        return 2
    homes = list(dict.fromkeys(hosts + [f"{g}-2" for g in guests if g != "lan"]))
    cells = [(w, h, g) for h in hosts for g in guests for w in ways if not (g == "lan" and h == "open")]
    print(f"# python bench/lab_matrix.py {' '.join(argv)}   ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})")
    print(f"# {len(cells)} cells x {args.reps} runs; each: host + join to a complete match (greedy AI, 1 deal of 32 "
          "cards), both logs verified as one chain")
    print("# times: join start -> guest connected / -> its first move, median of the good runs")
    out: dict[tuple[str, str, str], list[Run]] = {}
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="lab-matrix-") as tmp, lab.Lab(homes) as net:
        for h in hosts:
            if h != "open" and "lan" in guests:
                net.neighbour(h)
        servers = Path(tmp) / "servers"
        servers.mkdir()
        with rendezvous_servers(servers, host=net.service_address,
                                prefix=("ip", "netns", "exec", net.ns("inet"))) as urls:
            for rep in range(args.reps):
                # cells that share no home may run at once: one host kind per worker at a time
                by_host = {h: [c for c in cells if c[1] == h] for h in hosts}
                with concurrent.futures.ThreadPoolExecutor(max(1, args.parallel)) as pool:
                    def column(h: str, rep: int = rep, by_host: dict[str, list[tuple[str, str, str]]] = by_host
                               ) -> None:
                        for w, hh, g in by_host[h]:
                            r = one(net, urls, w, hh, g, Path(tmp) / f"{w}-{hh}-{g}-{rep}")
                            out.setdefault((w, hh, g), []).append(r)
                            print(f"  [{time.monotonic() - t0:6.0f} s] {w:<7} {hh:>6} <- {g:<6} "
                                  f"{'ok' if r.ok else 'FAIL'} {r.path} {r.first_move_s} {r.why[:100]}",
                                  file=sys.stderr, flush=True)
                    list(pool.map(column, hosts)) if args.parallel > 1 else [column(h) for h in hosts]
    print(f"{'way':<8} {'host':<6} {'guest':<6} {'path':<12} {'connect / 1st move':>18}  ok   (why not)")
    for key in cells:
        runs = out.get(key, [])
        if runs:
            print(f"{key[0]:<8} {key[1]:<6} {key[2]:<6} {cell(runs)}")
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(r) for rs in out.values() for r in rs], indent=1))
    print(f"# {time.monotonic() - t0:.0f} s")
    expected_fail = {("address", h) for h in ("plain", "cgnat", "v6")}
    bad = [k for k, rs in out.items() if not all(r.ok for r in rs)
           and not ((k[0], k[1]) in expected_fail and k[2] != "lan")]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
