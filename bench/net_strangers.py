"""Strangers at the door: a host under a crowd of stray connections while a real guest
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
import errno
import functools
import json
import os
import socket
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
              guest_ai: str = "normal", guest_think_s: float = 0.2, sample_s: float = 0.02,
              turn_limit: int = 1000) -> Report:
    """One run in the empty directory ``work``; see the module docstring (the keyword arguments are its
    options, seconds in ``*_s``).  Returns the :class:`Report`."""
    rep = Report(strays=strays)
    homes = {r: work / r for r in ("host", "guest")}
    host = Child(peer_command("host", "--headless", "--ai", "random", "--think", "0.01", "--bind", "127.0.0.1",
                          "--port", "0", "--deals", str(deals), "--pack", str(pack), "--turn-limit", str(turn_limit),
                          "--name", "Hana"),
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
                                                                               "name")
                  and not f.startswith("resuming/")]
        held = [f for f in files if f.startswith("resuming/")]  # the lock of the real match only (files.md)
        if len(held) > 1:
            others += held
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


# ----- a crowd that tries to decide who plays ----------------------------------------------------------------

#: The attacks (``--attack NAME``): see :func:`run_attack`.
ATTACKS = ("person", "fast", "same-address", "ipv6-64", "resume-squat", "all")
#: The join ticket the attacked host requires (``host --ticket``; a person host draws its own).
BENCH_TICKET = "mfrg-gzdf-mztw-q2lk"
#: The network namespace of the IPv6 attack (named after the branch; created and removed by the bench).
NETNS = "admit2-strangers"
V6_HOST = "2001:db8:1::1"
V6_CROWD = "2001:db8:2::"  # the crowd's /64: 1000 addresses of it
#: Linux's IP_BIND_ADDRESS_NO_PORT (not in Python's socket module): bind an address, pick the port at connect.
IP_BIND_ADDRESS_NO_PORT = 24
#: Most attack connections open at once in one attacker process.
MAX_ATTACK_OPEN = 4000


@dataclass
class AttackReport:
    """One attack's tries: how each ended for the invited guest, and what the host spent."""

    name: str
    settings: str = ""
    tries: list[dict[str, object]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def text(self) -> str:
        out = [f"attack {self.name}: {self.settings}"]
        for i, t in enumerate(self.tries, 1):
            out.append(f"  try {i}: guest exit {t['guest']}, host exit {t['host']}, match done after "
                       f"{t['seconds']:.1f} s; crowd {t['made']} connections at {t['rate']:.0f}/s "
                       f"({t['failed']} failed to connect); host peak RSS {t['rss_mib']:.1f} MiB, "
                       f"CPU {t['cpu_s']:.1f} s"
                       + (f"; {t['note']}" if t.get("note") else ""))
        out.append("OK: the invited guest got the match every time" if self.ok
                   else "FAILED: " + "; ".join(self.problems))
        return "\n".join(out)


def _hello_frame() -> bytes:
    """A valid guest hello (one random key for the whole crowd: it never signs anything)."""
    from p2ptrumps.wire.identity import Identity
    from p2ptrumps.wire.session import Session

    return Session("guest", Identity.from_seed(os.urandom(32)), "crowd", os.urandom(32)).data_to_send()


async def _crowd(host: str, port: int, rate: float, duration_s: float, kind: str, sources: list[str],
                 hold_s: float, progress: bool = False) -> dict[str, float]:
    """Open connections to ``host``:``port`` at ``rate`` per second for ``duration_s`` seconds, from
    ``sources`` in turn; each says nothing (``idle``), or a hello without the ticket (``hello``), or
    either in turn (``mixed``), then holds until the host closes it or ``hold_s`` passes."""
    hello = _hello_frame()
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    made, failed, open_now = [0], [0], [0]

    async def one(k: int) -> None:
        open_now[0] += 1
        sock = trio.socket.socket(family, socket.SOCK_STREAM)
        try:
            with trio.move_on_after(hold_s):
                await sock.bind((sources[k % len(sources)], 0))
                await sock.connect((host, port))
                made[0] += 1
                if kind == "hello" or (kind == "mixed" and k % 2):
                    await sock.send(hello)
                while await sock.recv(4096):
                    pass
        except OSError:
            failed[0] += 1
        finally:
            sock.close()
            open_now[0] -= 1

    start = trio.current_time()
    k = 0
    shown = 0
    async with trio.open_nursery() as nursery:
        while (now := trio.current_time() - start) < duration_s:
            if progress and int(now) > shown:  # the parent may kill us: what we made so far, each second
                shown = int(now)
                print(json.dumps({"made": made[0], "failed": failed[0], "seconds": now}), flush=True)
            due = int(now * rate) + 1
            while k < due and open_now[0] < MAX_ATTACK_OPEN:
                nursery.start_soon(one, k)
                k += 1
            await trio.sleep(0.001)
        took = trio.current_time() - start
        nursery.cancel_scope.cancel()
    return {"made": made[0], "failed": failed[0], "seconds": took}


def _flood(host: str, port: int, rate: float, duration_s: float, sources: list[str], hold_s: float) -> None:
    """The fastest crowd (``kind`` ``idle``, for resume-slot squatting): non-blocking connects from
    ``sources`` in turn at ``rate`` per second, each held silent (the host may close it) for ``hold_s``
    seconds or until :data:`MAX_ATTACK_OPEN` are open (then the oldest is closed); prints what it made
    as a JSON line each second."""
    import collections

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    held: collections.deque[tuple[float, socket.socket]] = collections.deque()
    made = failed = k = 0
    start = time.monotonic()
    shown = 0
    while (now := time.monotonic() - start) < duration_s:
        due = int(now * rate) + 1
        while k < due:
            s = socket.socket(family, socket.SOCK_STREAM)
            s.setblocking(False)
            s.setsockopt(socket.IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, 1)  # the port at connect: bind stays fast
            try:
                s.bind((sources[k % len(sources)], 0))
                err = s.connect_ex((host, port))
            except OSError:
                err = -1
            k += 1
            if err not in (0, errno.EINPROGRESS):
                failed += 1
                s.close()
                continue
            made += 1
            held.append((now, s))
            while held and (len(held) > MAX_ATTACK_OPEN or held[0][0] < now - hold_s):
                held.popleft()[1].close()
        if int(now) > shown:
            shown = int(now)
            print(json.dumps({"made": made, "failed": failed, "seconds": now}), flush=True)
        time.sleep(0.0005)
    for _, s in held:
        s.close()
    print(json.dumps({"made": made, "failed": failed, "seconds": time.monotonic() - start}), flush=True)


def _sources(spec: str) -> list[str]:
    """``"127.0.0.2-17"`` (a range of the last byte), ``"v6:PREFIX:N"`` (N random addresses of a /64),
    or a comma-separated list."""
    if spec.startswith("v6:"):
        _, rest = spec.split(":", 1)
        prefix, n = rest.rsplit(":", 1)
        return [f"{prefix}{os.urandom(2).hex()}:{os.urandom(2).hex()}:{os.urandom(2).hex()}:{i:x}"
                for i in range(int(n))]
    if "-" in spec:
        base, span = spec.rsplit(".", 1)
        lo, hi = span.split("-")
        return [f"{base}.{i}" for i in range(int(lo), int(hi) + 1)]
    return spec.split(",")


def _helper(argv: list[str]) -> None:
    """The child processes of an attack: ``--attacker HOST PORT RATE SECONDS KIND SOURCES HOLD`` prints
    what it made as one JSON line; ``--person-guest ADDRESS AGREE_AFTER_S DATA`` joins as a person who
    reads the fingerprint for that long before agreeing (the AI plays the moves)."""

    if argv[0] == "--attacker":
        host, port, rate, seconds, kind, sources, hold = argv[1:8]
        if kind == "idle":
            _flood(host, int(port), float(rate), float(seconds), _sources(sources), float(hold))
            return
        got = trio.run(_crowd, host, int(port), float(rate), float(seconds), kind, _sources(sources), float(hold),
                       True)
        print(json.dumps(got), flush=True)
        return
    import io

    from p2ptrumps.net import config, dial
    from p2ptrumps.wire.identity import Identity

    address, agree_after_s, data = argv[1], float(argv[2]), Path(argv[3])

    def person_confirm(question: str) -> bool:
        time.sleep(agree_after_s)  # reading the fingerprint with the host (runs in a thread)
        return True

    cfg = config.NetConfig(role="guest", identity=Identity.from_seed(os.urandom(32)), name="Person", data=data,
                           ai="random", think_s=0.05, headless=True, hooks=config.SeatHooks(confirm=person_confirm),
                           out=io.StringIO(),
                           reconnect_wait_s=60)
    try:
        trio.run(dial.join, cfg, address)
    except config.NetplayError as exc:
        print(f"person guest: {exc}", flush=True)
        sys.exit(exc.status)


def _resumed(log: Path) -> bool:
    """The log holds a ``resume`` frame (a proven reconnection, protocol/wire.md §14.3)."""
    from p2ptrumps.wire import messages as m
    from p2ptrumps.wire.log import read_log

    data = log.read_bytes()
    frames = read_log(data).frames if data.startswith(b"p2ptrumps-log/1\n") else []
    return any(isinstance(m.decode(f[4:]), m.Resume) for f in frames[2:])


def _start_crowd(ns: str | None, bind: str, port: int, rate: float, crowd_s: float, kind: str,
                 sources: str) -> list[subprocess.Popen[str]]:
    """The attacker processes (two from 1000 connections/s: one Python process makes about 2000/s)."""
    per = 2 if rate >= 1000 else 1
    return [subprocess.Popen(_in_ns(ns, [sys.executable, __file__, "--attacker", bind, str(port), str(rate / per),
                                         str(crowd_s), kind, sources, "30"]),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for _ in range(per)]


def _address(bind: str, port: int) -> str:
    return f"[{bind}]:{port}" if ":" in bind else f"{bind}:{port}"


def _netns(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=20)


def _in_ns(ns: str | None, argv: list[str]) -> list[str]:
    return argv if ns is None else ["ip", "netns", "exec", ns, *argv]


async def run_attack(work: Path, name: str, *, rate: float | None = None, tries: int | None = None,
                     open_host: bool = False) -> AttackReport:
    """One admission attack against ``p2ptrumps host --headless --ai random --ticket T`` (or ``--open``):

    - ``person``: a guest that reads the fingerprint for 20 s before agreeing, while a crowd from 16
      other addresses (127.0.0.2-17) connects at 8/s (idle connections and hellos without the ticket);
    - ``fast``: an AI guest that joins at once while the crowd connects at 100/s (4 tries);
    - ``same-address``: the crowd on the guest's own address (127.0.0.1, one NAT) at 200/s;
    - ``ipv6-64``: in a network namespace (``admit2-strangers``, created and removed here), a crowd
      from 1000 addresses of one IPv6 /64 at 300/s; the guest from the host's /64;
    - ``resume-squat``: a match in play; the crowd holds idle connections from the guest's own address
      at 3000/s (two attacker processes); the guest is killed (``kill -9``) and ``p2ptrumps resume``d.

    Every try must end with both exiting 0 (the invited guest played the whole match), and for
    ``resume-squat`` with both logs verifying as one chain."""

    defaults = {"person": (8.0, 1), "fast": (100.0, 4), "same-address": (200.0, 2), "ipv6-64": (300.0, 2),
                "resume-squat": (3000.0, 2)}
    rate = rate if rate is not None else defaults[name][0]
    tries = tries if tries is not None else defaults[name][1]
    rep = AttackReport(name, f"crowd at {rate:g} connections/s, {'an open host' if open_host else 'a ticket host'}"
                       f", {tries} tries")
    ns = NETNS if name == "ipv6-64" else None
    bind, sources, kind = "127.0.0.1", "127.0.0.2-17", "mixed"
    if name == "same-address":
        sources = "127.0.0.1"
    if name == "resume-squat":
        sources, kind = "127.0.0.1", "idle"
    if ns is not None:
        bind, sources = V6_HOST, f"v6:{V6_CROWD}:1000"
        subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=20)
        _netns("netns", "add", ns)
        _netns("-n", ns, "link", "set", "lo", "up")
        _netns("-n", ns, "-6", "addr", "add", f"{V6_HOST}/64", "dev", "lo", "nodad")
        _netns("-n", ns, "-6", "route", "add", "local", f"{V6_CROWD}/64", "dev", "lo", "table", "local")
        subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv6.ip_nonlocal_bind=1"],
                       check=True, timeout=20)
    ticket_args = ["--open"] if open_host else ["--ticket", BENCH_TICKET]
    suffix = "" if open_host else "/" + BENCH_TICKET
    try:
        for i in range(tries):
            home = work / f"try{i}"
            (home / "guest").mkdir(parents=True)
            deals = "3" if name == "resume-squat" else "1"
            host = Child(_in_ns(ns, peer_command("host", "--headless", "--ai", "random", "--think", "0.01", "--bind",
                                                 bind, "--port", "0", "--deals", deals, "--pack", "32", "--name",
                                                 "Hana", "--reconnect-wait", "60", *ticket_args)),
                         home / "host.out", home / "host")
            attackers: list[subprocess.Popen[str]] = []
            guest: Child | None = None
            note = ""
            t0 = time.monotonic()
            try:
                with trio.fail_after(RUN_TIMEOUT_S):
                    port = await _port_of(host)
                    crowd_s = {"person": 40.0, "resume-squat": 25.0}.get(name, 20.0)
                    crowd = (ns, bind, port, rate, crowd_s, kind, sources)

                    join_args = ["--headless", "--accept-new", "--ai", "random", "--think", "0.01",
                                 "--reconnect-wait", "60"]
                    guest_log = home / "guest.p2plog"
                    if name == "resume-squat":
                        guest = Child(peer_command("join", _address(bind, port) + suffix, *join_args[:-4], "--think",
                                                   "0.3", "--reconnect-wait", "60", "--log", str(guest_log)),
                                      home / "guest.out", home / "guest")
                        while not guest_log.exists() or guest_log.stat().st_size < 2000:
                            await trio.sleep(0.05)
                        attackers = _start_crowd(*crowd)
                        await trio.sleep(2.0)  # the crowd in full swing
                        guest.proc.kill()
                        guest.poll()
                        for _ in range(200):
                            if guest.poll():
                                break
                            await trio.sleep(0.01)
                        killed = time.monotonic()
                        guest = Child(peer_command("resume", str(guest_log), "--headless", "--ai", "random", "--think",
                                                   "0.3", "--reconnect-wait", "60"),
                                      home / "resumed.out", home / "guest")
                        note = "guest killed -9 and resumed"
                        while not guest.poll() and not host.poll():  # the host logs the guest's proven resume
                            if any(_resumed(f) for f in (home / "host" / "p2ptrumps" / "logs").glob("*.p2plog")):
                                note += f", back in play {time.monotonic() - killed:.1f} s after the kill"
                                break
                            await trio.sleep(0.05)
                    else:
                        attackers = _start_crowd(*crowd)
                        await trio.sleep(1.0)  # the crowd in full swing
                        if name == "person":
                            guest = Child(_in_ns(ns, [sys.executable, __file__, "--person-guest",
                                                      _address(bind, port) + suffix, "20", str(home / "guest")]),
                                          home / "guest.out", home / "guest")
                        else:
                            guest = Child(_in_ns(ns, peer_command("join", _address(bind, port) + suffix, *join_args)),
                                          home / "guest.out", home / "guest")
                    while not (host.poll() and guest.poll()):
                        await trio.sleep(0.05)
                    if name == "resume-squat":
                        note += f" (match done {time.monotonic() - killed:.1f} s after the kill)"
            except trio.TooSlowError:
                rep.problems.append(f"try {i + 1} took more than {RUN_TIMEOUT_S:g} s")
            finally:
                host.kill()
                if guest is not None:
                    guest.kill()
                made = failed = 0
                seconds = 0.0
                for a in attackers:
                    a.kill()
                    out, _ = a.communicate(timeout=30)
                    lines = [ln for ln in (out or "").splitlines() if ln.startswith("{")]
                    other = [ln for ln in (out or "").splitlines() if not ln.startswith("{")]
                    if other:
                        note += f"; an attacker said: {other[-1][:200]}"
                    if lines:
                        got = json.loads(lines[-1])
                        made, failed = made + int(got["made"]), failed + int(got["failed"])
                        seconds = max(seconds, float(got["seconds"]))
            seconds_done = time.monotonic() - t0
            rep.tries.append({"guest": None if guest is None else guest.code, "host": host.code,
                              "seconds": seconds_done, "made": made, "failed": failed,
                              "rate": made / seconds if seconds else 0.0, "rss_mib": host.maxrss_kib / 1024,
                              "cpu_s": host.cpu_s, "note": note})
            if host.code != 0 or guest is None or guest.code != 0:
                rep.problems.append(f"try {i + 1}: host exit {host.code}, guest exit "
                                    f"{None if guest is None else guest.code}: {(guest.text() if guest else '')[-300:]}"
                                    f" / host: {host.text()[-300:]}")
            elif name == "resume-squat":
                logs = sorted((home / "host" / "p2ptrumps" / "logs").glob("*.p2plog"))
                code = subprocess.run(peer_command("verify", str(logs[0]), str(guest_log)), capture_output=True,
                                      timeout=120).returncode if logs else -1
                if code != 0:
                    rep.problems.append(f"try {i + 1}: verify of both logs exited {code}")
    finally:
        if ns is not None:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=20)
    return rep


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] in ("--attacker", "--person-guest"):
        _helper(sys.argv[1:])
        return
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
    ap.add_argument("--attack", choices=ATTACKS, action="append", default=None,
                    help="instead: one of the admission attacks (repeatable; 'all' runs each)")
    ap.add_argument("--rate", type=float, default=None, help="attack connections per second (default per attack)")
    ap.add_argument("--tries", type=int, default=None, help="tries per attack (default per attack)")
    ap.add_argument("--open", action="store_true", help="attack an open host (no join ticket): the fair rooms alone")
    args = ap.parse_args()
    if args.attack:
        names = [a for a in ATTACKS if a != "all"] if "all" in args.attack else args.attack
        ok = True
        for name in names:
            with tempfile.TemporaryDirectory(prefix="p2ptrumps-attack-") as tmp:
                att = trio.run(functools.partial(run_attack, Path(tmp), name, rate=args.rate, tries=args.tries,
                                                 open_host=args.open))
            print(att.text(), flush=True)
            ok = ok and att.ok
        sys.exit(0 if ok else 1)
    with tempfile.TemporaryDirectory(prefix="p2ptrumps-strangers-") as tmp:
        rep = trio.run(lambda: run(Path(tmp), strays=args.strays, concurrency=args.concurrency,
                                   spread_s=args.spread, hold_s=args.hold, addresses=args.addresses,
                                   guest_after_s=args.guest_after, deals=args.deals, pack=args.pack,
                                   guest_ai=args.guest_ai, guest_think_s=args.guest_think))
    print(rep.text())
    sys.exit(0 if rep.ok else 1)


if __name__ == "__main__":
    main()
