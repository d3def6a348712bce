"""From home to home in the network lab: every guest home x host home, and resume across a NAT.

For each pair (host in a home of one kind, guest in a second home of a kind, ``"<kind>-2"``; see
``p2ptrumps/net/lab.py``) it starts ``p2ptrumps host --headless --ai random`` on port 4816 in the host's
home (port mapping on), reads the addresses it gives out and what it says about its router, then has
the guest ``join`` each given address in order (loopback ones left out; ``--timeout 3`` each) as a
person would, until one plays a first move.  It reports whether a match got going, the path both sides
named, the time from ``join`` to the first move (median of ``--runs``), and what miniupnpd's table held
once the host had stopped (it must be empty).

``--resume`` adds two trials across a NAT: the guest's router drops everything for a while (a cut:
both sides reconnect) and the host is killed with ``kill -9`` mid-match and taken up with
``p2ptrumps resume`` (which maps the port again); each must end with both sides' status 0.

Usage: python bench/netlab.py [--hosts K,K] [--guests K,K] [--runs N] [--resume] [--json]
(as root, with ``ip``, ``nft`` and ``miniupnpd``: ``apt-get install -y miniupnpd nftables``).
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from p2ptrumps.net import lab
from p2ptrumps.net.testing import peer_command, peer_env

PORT = 4816


def lab_ready(homes: list[str] | None = None) -> bool:
    """Before a bench of the network lab: when a lab with ``homes`` (default every kind) cannot be made
    here, say why on stderr ("no lab here: ...") and return False (the bench exits 2); else remove the
    labs a bench that died left behind, make SIGTERM leave through the lab's clean-up (status 143), and
    return True."""
    why = lab.unavailable(lab.HOMES if homes is None else homes)
    if why is not None:
        print(f"no lab here: {why}", file=sys.stderr)
        return False
    lab.sweep()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a stopped bench still removes its lab
    return True

COMMON = ["--headless", "--ai", "random", "--think", "0.05", "--ascii"]
FIRST_MOVE = re.compile(r"^\s+1\. ")


class Peer:
    """A p2ptrumps process in a lab namespace whose output lines are collected (with their times) by a thread."""

    def __init__(self, net: lab.Lab, home: str, args: list[str], data: Path) -> None:
        env = peer_env(data)
        env.pop("P2PTRUMPS_NO_MAP", None)  # the lab's routers are there to be asked
        self.t0 = time.monotonic()
        self.proc = net.popen(home, peer_command(*args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
        self.lines: list[tuple[float, str]] = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.append((time.monotonic(), raw.decode(errors="replace").rstrip("\n")))

    def wait_for(self, pattern: re.Pattern[str] | str, timeout_s: float) -> tuple[float, str] | None:
        """The first line matching ``pattern`` (its time, text) within ``timeout_s``; None if the process
        ended or the time ran out first."""
        rx = re.compile(pattern) if isinstance(pattern, str) else pattern
        deadline = time.monotonic() + timeout_s
        seen = 0
        while time.monotonic() < deadline:
            for t, line in self.lines[seen:]:
                if rx.search(line):
                    return t, line
            seen = len(self.lines)
            if self.proc.poll() is not None and seen == len(self.lines):
                self.thread.join(1)
                if len(self.lines) == seen:
                    return None
            time.sleep(0.02)
        return None

    def said(self, prefix: str) -> str:
        return next((line[len(prefix):] for _, line in self.lines if line.startswith(prefix)), "")

    def stop(self, sig: int = signal.SIGTERM, timeout_s: float = 10.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.thread.join(2)
        return int(self.proc.returncode)

    def text(self) -> str:
        return "\n".join(line for _, line in self.lines)


@dataclass
class Pair:
    host: str
    guest: str
    reached: bool = False
    path_guest: str = ""
    path_host: str = ""
    address: str = ""
    router: list[str] = field(default_factory=list)  # what the host said of its router
    first_move_s: list[float] = field(default_factory=list)
    start_up_s: list[float] = field(default_factory=list)  # "hosting as" to "waiting for a guest": the router asked
    left_on_router: list[str] = field(default_factory=list)
    why: str = ""
    tries: list[str] = field(default_factory=list)  # each address that failed, and how

    @property
    def median_s(self) -> float | None:
        return statistics.median(self.first_move_s) if self.first_move_s else None


def start_host(net: lab.Lab, home: str, data: Path, extra: list[str] | None = None) -> tuple[Peer, list[str]]:
    host = Peer(net, home, ["host", *COMMON, "--deals", "1", "--port", str(PORT), "--timeout", "5", "--name", "Hana",
                            *(extra or [])], data)
    got = host.wait_for(r"^waiting for a guest on port", 20)
    if got is None:
        raise RuntimeError(f"the host in {home} did not start:\n{host.text()}")
    return host, given_out(host)


def given_out(host: Peer) -> list[str]:
    """The addresses a host gives out, in its order: the one of ``Tell your opponent: p2ptrumps join A``,
    then those of the ``(or: B, C; a guest in your home: D; ...)`` line after it; loopback left out."""
    given = [host.said("Tell your opponent: p2ptrumps join ")]
    for _, line in host.lines:
        if line.startswith("(") and ": " in line:
            for part in line.strip("()").split("; "):
                label, _, rest = part.partition(": ")
                if label in ("or", "a guest in your home"):
                    given += rest.split(", ")
    return [a for a in dict.fromkeys(given) if a and not a.startswith(("127.", "[::1]"))]


def one_run(net: lab.Lab, pair: Pair, data: Path, run: int) -> bool:
    host, given = start_host(net, pair.host, data / pair.host)
    began, ready = host.wait_for(r"^hosting as ", 1), host.wait_for(r"^waiting for a guest", 1)
    if began is not None and ready is not None:  # what asking the router cost the start-up
        pair.start_up_s.append(round(ready[0] - began[0], 3))
    pair.router = [line for _, line in host.lines if line.startswith(("port mapping:", "IPv6:"))]
    try:
        for address in given:
            guest = Peer(net, pair.guest, ["join", address, *COMMON, "--accept-new", "--timeout", "3", "--name", "Gus"],
                         data / f"{pair.host}-{pair.guest}-{run}")  # a new guest each time: each host is a new key
            first = guest.wait_for(FIRST_MOVE, 30)
            if first is None:
                guest.stop()
                last = guest.text().splitlines()[-1] if guest.lines else "no output"
                pair.tries.append(f"{address}: {last.removeprefix('p2ptrumps join: ')}")
                pair.why = last
                continue
            pair.reached, pair.address = True, address
            pair.first_move_s.append(round(first[0] - guest.t0, 3))
            pair.path_guest = guest.said("path: ")
            pair.path_host = host.said("path: ")
            # SIGTERM to both at once: each leaves the match (the host removes its mapping on the way out)
            for p in (guest, host):
                if p.proc.poll() is None:
                    p.proc.send_signal(signal.SIGTERM)
            guest.stop()
            break
    finally:
        host.stop()
    pair.left_on_router = net.mappings(pair.host)
    return pair.reached


def matrix(net: lab.Lab, hosts: list[str], guests: list[str], runs: int, data: Path) -> list[Pair]:
    pairs = []
    for h in hosts:
        for g in guests:
            pair = Pair(h, f"{g}-2")
            for run in range(runs):
                if not one_run(net, pair, data, run) and run == 0:
                    break  # an unreachable pair is tried once
            pairs.append(pair)
            print(f"  {h:>6} <- {g:<6} {'yes' if pair.reached else 'no ':3} "
                  f"{(str(pair.median_s) + ' s') if pair.reached else '':>8}  {pair.path_guest or pair.why}",
                  file=sys.stderr, flush=True)
    return pairs


def resume_trial(net: lab.Lab, host_home: str, guest_home: str, how: str, data: Path) -> dict[str, object]:
    """One match across the guest's NAT that is cut (``how="cut"``: the guest's router drops all for 8 s)
    or whose host is killed with SIGKILL and resumed (``how="kill"``); both sides must end with status 0."""
    log = data / f"resume-{how}.p2plog"
    host, given = start_host(net, host_home, data / f"{host_home}-r{how}",
                             ["--log", str(log), "--reconnect-wait", "60", "--deals", "2",
                              "--turn-limit", "120"])  # random play may run a deal to 1000 turns
    guest = Peer(net, guest_home, ["join", given[0], *COMMON, "--accept-new", "--timeout", "4",
                                   "--reconnect-wait", "60", "--name", "Gus"], data / f"{guest_home}-r{how}")
    out: dict[str, object] = {"how": how, "host": host_home, "guest": guest_home, "address": given[0]}
    resumed: Peer | None = None
    try:
        if guest.wait_for(r"^\s+10\. ", 40) is None:
            out["error"] = "no tenth move: " + guest.text()[-300:]
            return out
        if how == "cut":
            router = f"{guest_home}-r"
            net.run(router, ["nft", "-f", "-"], input="table inet netlabcut {\n chain f {\n  type filter hook forward "
                    "priority -10; policy drop;\n }\n}\n")
            time.sleep(8)
            net.run(router, ["nft", "delete", "table", "inet", "netlabcut"])
        else:
            host.stop(signal.SIGKILL)
            out["left_after_kill"] = net.mappings(host_home)
            resumed = Peer(net, host_home, ["resume", str(log), *COMMON, "--reconnect-wait", "60"],
                           data / f"{host_home}-r{how}")
        t = time.monotonic()
        for _ in range(600):
            if guest.proc.poll() is not None or time.monotonic() - t > 90:
                break
            time.sleep(0.1)
        out["guest_status"] = guest.stop()
        end = resumed if resumed is not None else host
        end.wait_for(r"(?!)", 15)
        out["host_status"] = end.stop()
        out["host_said"] = [line for _, line in end.lines if "port mapping" in line or "again" in line][:3]
        out["guest_tail"] = guest.text().splitlines()[-2:]
        out["guest_lost_link"] = [line for _, line in guest.lines if line.startswith("connection lost")][:1]
    finally:
        for p in (guest, host, resumed):
            if p is not None:
                p.stop()
    out["left_on_router"] = net.mappings(host_home)
    return out


LEASE_SCRIPT = """
import sys, trio
from p2ptrumps.net import portmap
from p2ptrumps.net.addresses import local_addresses
portmap.LEASE_S = int(sys.argv[1])

async def main():
    async with portmap.port_mapping(4816, local_addresses(), wanted=True) as reach:
        print(reach.case, flush=True)
        await trio.sleep_forever()

trio.run(main)
"""


def lease_trial(net: lab.Lab, home: str, lease_s: int) -> dict[str, object]:
    """A host holding a mapping of ``lease_s`` seconds for twice that (renewed at half), then killed with
    SIGKILL: is the mapping still there before the kill, and how long after it is it gone from the router."""
    env = peer_env(Path(tempfile.gettempdir()))
    env.pop("P2PTRUMPS_NO_MAP", None)
    p = net.popen(home, [sys.executable, "-c", LEASE_SCRIPT, str(lease_s)], stdout=subprocess.PIPE, env=env)
    assert p.stdout is not None
    case = p.stdout.readline().decode().strip()
    time.sleep(2 * lease_s)
    held = net.mappings(home)
    p.kill()
    p.wait(5)
    t = time.monotonic()
    gone_s = None
    while time.monotonic() - t < 4 * lease_s + 60:
        if not net.mappings(home):
            gone_s = round(time.monotonic() - t, 1)
            break
        time.sleep(1)
    return {"home": home, "case": case, "lease_s": lease_s, "held_after_2_leases": len(held),
            "gone_after_kill_s": gone_s}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hosts", default=",".join(lab.HOMES))
    ap.add_argument("--guests", default=",".join(lab.HOMES))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--lease", type=int, default=0, metavar="S",
                    help="only the lease trial: a mapping of S seconds kept for 2S, then the host killed")
    args = ap.parse_args()
    hosts, guests = args.hosts.split(","), args.guests.split(",")
    if not lab_ready(hosts + guests):
        return 2
    if args.lease:
        with lab.Lab(["upnp"]) as net:
            print(json.dumps(lease_trial(net, "upnp", args.lease)))
        return 0
    homes = list(dict.fromkeys(hosts + ([] if not args.resume else ["upnp"]) + [f"{g}-2" for g in guests]
                               + (["plain-2"] if args.resume else [])))
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="netlab-bench-") as tmp, lab.Lab(homes) as net:
        print(f"lab of {len(homes)} homes built in {time.monotonic() - t0:.1f} s", file=sys.stderr)
        pairs = matrix(net, hosts, guests, args.runs, Path(tmp))
        trials = []
        for how in ("cut", "kill") if args.resume else ():
            try:
                trials.append(resume_trial(net, "upnp", "plain-2", how, Path(tmp)))
            except Exception as exc:  # a trial that broke is a result too; the matrix is still printed
                trials.append({"how": how, "error": repr(exc)})
    if args.json:
        print(json.dumps({"pairs": [asdict(p) | {"median_s": p.median_s} for p in pairs], "resume": trials}, indent=1))
        return 0
    print(f"{'host home':<10} {'guest home':<10} {'match':<6} {'join->1st move':>15}  {'mapping':>8}  "
          f"{'path (guest / host)':<60} router after stop")
    for p in pairs:
        med = f"{p.median_s:.2f} s (n={len(p.first_move_s)})" if p.median_s is not None else "-"
        start = f"{statistics.median(p.start_up_s):.2f} s" if p.start_up_s else "-"
        path = f"{p.path_guest} / {p.path_host} via {p.address}" if p.reached else f"unreachable: {p.why[:70]}"
        print(f"{p.host:<10} {p.guest[:-2]:<10} {'yes' if p.reached else 'no':<6} {med:>15}  {start:>8}  {path:<60} "
              f"{len(p.left_on_router)} rules")
    print()
    for h in hosts:
        said = next((p.router for p in pairs if p.host == h), [])
        print(f"{h}: " + (" | ".join(said) if said else "(nothing said of the router)"))
    for t in trials:
        print(f"resume after a {t['how']}: host status {t.get('host_status')}, guest status {t.get('guest_status')}, "
              f"router after: {len(t.get('left_on_router', []))} rules, "  # type: ignore[arg-type]
              f"{t.get('error') or t.get('guest_tail')}")
        if "left_after_kill" in t:
            print(f"  mapping left by the killed host (until its lease ends or resume maps again): "
                  f"{t['left_after_kill']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
