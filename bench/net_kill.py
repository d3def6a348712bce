"""The kill -9 trial: two headless AI peers over loopback, one killed at a chosen or random
moment, taken up again with ``p2ptrumps resume``; the match must complete with both logs valid and
no message lost.

Each trial:

1. starts ``p2ptrumps host --headless --ai random`` and ``p2ptrumps join`` (each its own
   ``XDG_DATA_HOME``, ``--log`` in a temporary directory) over 127.0.0.1;
2. watches the victim's log (host or guest) and, when it ends with a message of the target kind
   (``trump``, ``commit``, ``reveal``, ``move``, ``deal-end``, ``match-end``) of the target deal,
   or is complete but may still owe or await the last acknowledgement (``ack``, wire.md §14.5),
   freezes the victim (SIGSTOP), checks its log again, and kills it (SIGKILL) -- so the phase at
   death is exact; target ``random`` kills as soon as the victim's log holds a random number
   (3..250) of frames instead, wherever that falls;
3. runs ``p2ptrumps resume LOG --headless --ai random`` for the victim after a random pause;
4. checks: both processes exit 0, both logs verify ``valid``, both hold the same chain (message
   for message), and the victim's log before the kill is the start of its final log (nothing it
   had written was lost; a torn last frame may be cut).

Run (figures for the report)::

    python bench/net_kill.py --trials 24          # both roles, every phase, in rotation
    python bench/net_kill.py --trials 4 --seed 7  # a quick look

It prints one line per trial and a summary: phases at death per role, the time from the kill to
the survivor logging the victim's proven ``resume`` (play going on again; it includes starting a
new Python process and, for a killed host, the guest's back-off), and failures.  Exit status 1 if
any trial failed.  ``tests/test_net_kill.py`` runs the same trial (2 in CI, more marked slow).
"""

from __future__ import annotations

import argparse
import random
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from p2ptrumps.net.meet import is_code
from p2ptrumps.net.testing import peer_command, peer_env
from p2ptrumps.wire import messages as m
from p2ptrumps.wire.log import read_log
from p2ptrumps.wire.verify import verify_log

TARGETS = ("trump", "commit", "reveal", "move", "deal-end", "match-end", "ack")
#: Seconds one trial may take at most (the match, the kill, the resume, the rest of the match).
TRIAL_TIMEOUT_S = 120.0
#: Rules of the trial matches: short deals keep a trial to a few seconds.
RULE_ARGS = ("--deals", "3", "--pack", "32", "--turn-limit", "120")


@dataclass
class TrialResult:
    """What one trial found; ``ok`` when the match completed and both logs agree and verify."""

    victim: str
    target: str
    deal: int
    phase_at_death: str = ""
    last_at_death: str = ""  # the kind of the last message in the victim's log
    deal_at_death: int = 0
    resume_s: float | None = None
    restart_s: float | None = None
    ok: bool = False
    missed: bool = False  # the match ended before the victim's log stood at the target: aim again
    attempts: int = 1
    lost: int = 0  # frames cut off the victim's log after the kill (``--lose``)
    problems: list[str] = field(default_factory=list)

    def line(self) -> str:
        took = (f"{self.resume_s:.2f} s ({self.restart_s:.2f} s after the restart)"
                if self.resume_s is not None and self.restart_s is not None else "-")
        verdict = ("ok" if self.ok else "FAILED: " + "; ".join(self.problems)) + (
            f" (aimed {self.attempts} times)" if self.attempts > 1 else "")
        lost = f", {self.lost} frames lost from its log" if self.lost else ""
        return (f"kill {self.victim:5}{lost} aiming at {self.target:9} of deal {self.deal}: died after a "
                f"{self.last_at_death or '?':9} waiting for {self.phase_at_death or '?':9} "
                f"(deal {self.deal_at_death}), back in play after {took}: {verdict}")


class LogWatcher:
    """Reads a growing match log and decodes its new frames (never the same bytes twice)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data = b""
        self.last: m.Frame | None = None
        self.frames = 0
        self.match_ends = 0  # match-end statements in the log
        self._at = 0  # where the next frame starts in ``data``

    def poll(self) -> m.Frame | None:
        """The last whole frame of the log now (None before the file exists); reads and decodes only
        what was appended since the last call."""
        try:
            with open(self.path, "rb") as f:
                f.seek(len(self.data))
                self.data += f.read()
        except FileNotFoundError:
            return None
        at = self._at or len(b"p2ptrumps-log/1\n")
        while len(self.data) >= at + 4:
            end = at + 4 + int.from_bytes(self.data[at:at + 4], "big")
            if len(self.data) < end:
                break
            self.last = m.decode(self.data[at + 4:end])
            self.frames += 1
            if isinstance(self.last, m.Signed) and self.last.kind == "match-end":
                self.match_ends += 1
            at = end
        self._at = at
        return self.last


def matches(frame: m.Frame | None, target: str, deal: int, match_ends: int = 0) -> bool:
    """Whether a log that ends with ``frame`` (holding ``match_ends`` match-end statements) stands at
    ``target`` of ``deal``; ``ack``: complete, ended by the second ``match-end`` (wire.md §14.5: its
    acknowledgement may still be owed)."""
    if not isinstance(frame, m.Signed):
        return False
    kind = frame.kind
    if target == "ack":
        return kind == "match-end" and match_ends == 2
    if kind != target:
        return False
    if target == "match-end":
        return match_ends >= 1
    if target in ("commit", "reveal", "move", "deal-end"):
        return getattr(frame.body, "deal", 0) == deal
    return True


def _wait_port(out: Path, proc: subprocess.Popen[bytes], timeout_s: float = 20.0) -> int | str:
    """The host's port (a match by address), or its code (``host --code``), once it prints it."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        text = out.read_text(errors="replace") if out.exists() else ""
        for line in text.splitlines():
            if line.startswith("waiting for a guest on port "):
                return int(line.split()[-2])
            told = line.removeprefix("Tell your opponent: p2ptrumps join ").split()[-1] if line.startswith(
                "Tell your opponent: p2ptrumps join ") else ""
            if is_code(told):  # a host by address tells an address, then says its port
                return told
        if proc.poll() is not None:
            break
        time.sleep(0.02)
    raise RuntimeError(f"the host did not start: {out.read_text(errors='replace') if out.exists() else ''}")


def _chain(data: bytes) -> list[bytes]:
    v = verify_log(data)
    chain = v._chain
    return [] if chain is None else [e.hash for e in chain.entries]


def lose_tail(path: Path, frames: int) -> int:
    """Cut the log at ``path`` back by its last ``frames`` whole frames (a restored backup, a disk that dropped
    written data), never into the hellos, the rules and the agreement (the first 4 frames);
    returns how many frames it cut."""
    data = path.read_bytes()
    whole = read_log(data).frames
    keep = max(4, len(whole) - frames)
    path.write_bytes(b"p2ptrumps-log/1\n" + b"".join(whole[:keep]))
    return len(whole) - keep


def trial(work: Path, victim: str, target: str, deal: int, rng: random.Random,
          meet: tuple[str, str] | None = None, lose: int = 0) -> TrialResult:
    """One kill -9 trial in the empty directory ``work``; see the module docstring.  ``meet``: the
    peers meet by code on this (mailbox URL, relay URL), the host offering only the relay
    (protocol/rendezvous.md), so the match and its resumption run through the relay.  ``lose``: after
    the kill, the victim's log loses its last ``lose`` frames (:func:`lose_tail`) before it is resumed:
    its own messages that the survivor holds must come back from the survivor (protocol/wire.md §14.2
    step 5), never be signed again."""
    res = TrialResult(victim, target, deal)
    homes = {r: work / r for r in ("host", "guest")}
    logs = {r: work / f"{r}.p2plog" for r in ("host", "guest")}
    outs = {r: work / f"{r}.out" for r in ("host", "guest")}
    procs: dict[str, subprocess.Popen[bytes]] = {}
    common = ("--headless", "--ai", "random", "--think", "0.01", "--reconnect-wait", "60", "--timeout", "20")
    deadline = time.monotonic() + TRIAL_TIMEOUT_S
    try:
        with open(outs["host"], "wb") as ho:
            by_code = ("--code", "--no-direct", "--rendezvous", meet[0], "--relay", meet[1]) if meet else ()
            procs["host"] = subprocess.Popen(
                peer_command("host", *common, "--bind", "127.0.0.1", "--port", "0", "--log", str(logs["host"]),
                             *by_code, *RULE_ARGS), stdout=ho, stderr=subprocess.STDOUT, env=peer_env(homes["host"]))
        port = _wait_port(outs["host"], procs["host"])
        where = ((str(port), "--rendezvous", meet[0]) if meet else (f"127.0.0.1:{port}", "--accept-new"))
        with open(outs["guest"], "wb") as go:
            procs["guest"] = subprocess.Popen(
                peer_command("join", *where, *common, "--log", str(logs["guest"])),
                stdout=go, stderr=subprocess.STDOUT, env=peer_env(homes["guest"]))
        proc = procs[victim]
        watch = LogWatcher(logs[victim])
        kill_after = rng.randint(3, 250) if target == "random" else None  # frames in the victim's log
        killed = False
        while time.monotonic() < deadline and proc.poll() is None:
            if kill_after is not None:
                watch.poll()
                if watch.frames >= kill_after:
                    proc.send_signal(signal.SIGKILL)
                    killed = True
                    break
            elif matches(watch.poll(), target, deal, watch.match_ends):
                proc.send_signal(signal.SIGSTOP)
                if matches(watch.poll(), target, deal, watch.match_ends):
                    proc.send_signal(signal.SIGKILL)
                    killed = True
                    break
                proc.send_signal(signal.SIGCONT)
            time.sleep(0.0005)
        if not killed:
            res.missed = True
            res.problems.append("the victim finished (or hung) before the target was reached")
            return res
        killed_at = time.monotonic()
        proc.wait(10)
        survivor = "guest" if victim == "host" else "host"
        survivor_open = verify_log(logs[survivor].read_bytes()).status == "unfinished"
        before = logs[victim].read_bytes()
        v = verify_log(before)
        if v.waiting is not None:
            res.phase_at_death = v.waiting[1]
        elif v.status == "valid":
            res.phase_at_death = "ack"  # complete, its last statement not yet acknowledged (wire.md §14.5)
        res.deal_at_death = v._chain.referee.deal if v._chain is not None else 0
        if v._chain is not None and v._chain.entries:
            res.last_at_death = v._chain.entries[-1].kind
        if v.status not in ("unfinished", "valid") or not (work / f"{victim}.p2plog.resume").exists():
            res.problems.append(f"the victim's log at death is {v.status} ({v.reason}), with no resume file")
            return res
        if lose:
            res.lost = lose_tail(logs[victim], lose)
            before = logs[victim].read_bytes()
        time.sleep(rng.uniform(0.0, 0.5))
        restarted_at = time.monotonic()
        with open(outs[victim], "ab") as out:
            procs[victim] = subprocess.Popen(
                peer_command("resume", str(logs[victim]), "--headless", "--ai", "random", "--think", "0.01",
                         "--reconnect-wait", "20", "--timeout", "20"),
                stdout=out, stderr=subprocess.STDOUT, env=peer_env(homes[victim]))
        resumes_before = _resumes(logs[survivor].read_bytes())
        while time.monotonic() < deadline and res.resume_s is None and (survivor_open or v.status != "valid"):
            if _resumes(logs[survivor].read_bytes()) > resumes_before:
                res.resume_s = time.monotonic() - killed_at
                res.restart_s = time.monotonic() - restarted_at
            if procs[victim].poll() is not None and procs[survivor].poll() is not None:
                break
            time.sleep(0.005)
        for r in ("host", "guest"):
            left = max(0.1, deadline - time.monotonic())
            try:
                code = procs[r].wait(left)
            except subprocess.TimeoutExpired:
                res.problems.append(f"the {r} did not finish in time")
                continue
            if code != 0:
                tail = outs[r].read_text(errors="replace").strip().splitlines()[-1:]
                res.problems.append(f"the {r} exited {code}: {' '.join(tail)}")
        finals = {r: logs[r].read_bytes() for r in ("host", "guest")}
        for r, data in finals.items():
            fv = verify_log(data)
            if fv.status != "valid":
                res.problems.append(f"the {r}'s log is {fv.status}: {fv.reason}")
            if fv.reconnections < 1 and (survivor_open or v.status != "valid"):
                res.problems.append(f"the {r}'s log shows no reconnection")
        if _chain(finals["host"]) != _chain(finals["guest"]):
            res.problems.append("the two logs hold different chains")
        whole = len(b"p2ptrumps-log/1\n") + sum(len(f) for f in read_log(before).frames)
        if not finals[victim].startswith(before[:whole]):
            res.problems.append("the victim's final log does not start with its log at death (a message lost)")
        res.ok = not res.problems
        return res
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.wait(5)


def aimed_trial(work: Path, victim: str, target: str, deal: int, rng: random.Random,
                attempts: int = 3, meet: tuple[str, str] | None = None, lose: int = 0) -> TrialResult:
    """:func:`trial`, played again (a new match, in a new subdirectory of ``work``) when the match went
    past the target before the watcher caught it -- a miss of the aim, not a fault -- at most
    ``attempts`` times."""
    for attempt in range(1, attempts + 1):
        sub = work / f"attempt{attempt}"
        sub.mkdir()
        res = trial(sub, victim, target, deal, rng, meet, lose)
        res.attempts = attempt
        if not res.missed:
            return res
    return res


def _resumes(data: bytes) -> int:
    """How many ``resume`` frames (proven reconnections, protocol/wire.md §14.3) a log holds."""
    frames = read_log(data).frames if data.startswith(b"p2ptrumps-log/1\n") else []
    return sum(1 for f in frames[2:] if isinstance(m.decode(f[4:]), m.Resume))


def plan(trials: int, rng: random.Random) -> list[tuple[str, str, int]]:
    """``trials`` (victim, target, deal) triples: both roles and every target in rotation, then random
    moments; the deal at stake cycles 1..3 (``trump`` and ``match-end`` have one place)."""
    out: list[tuple[str, str, int]] = []
    kinds = [*TARGETS, "random"]
    for i in range(trials):
        victim = ("host", "guest")[i % 2]
        target = kinds[(i // 2) % len(kinds)]
        deal = 1 if target in ("trump", "match-end", "ack", "random") else rng.randint(1, 3)
        out.append((victim, target, deal))
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, default=24)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dir", default=None, help="work directory (default: a temporary one)")
    ap.add_argument("--lose", type=int, default=0,
                    help="frames the victim's log loses after the kill (a restored backup; default 0)")
    args = ap.parse_args(argv)
    import tempfile

    rng = random.Random(args.seed)
    results: list[TrialResult] = []
    with tempfile.TemporaryDirectory(prefix="p2p-kill-", dir=args.dir) as tmp:
        for i, (victim, target, deal) in enumerate(plan(args.trials, rng)):
            work = Path(tmp) / f"t{i}"
            work.mkdir()
            r = aimed_trial(work, victim, target, deal, rng, lose=args.lose)
            results.append(r)
            print(f"{i + 1:3d}. {r.line()}", flush=True)
    ok = [r for r in results if r.ok]
    print(f"\n{len(ok)}/{len(results)} trials completed with both logs valid and the same chain "
          f"({sum(r.attempts - 1 for r in results)} matches ended before the watcher caught the target and "
          "were played again)")
    for role in ("host", "guest"):
        for what, attr in (("after its log's last", "last_at_death"), ("while waiting for", "phase_at_death")):
            seen: dict[str, int] = {}
            for r in results:
                if r.victim == role:
                    seen[getattr(r, attr)] = seen.get(getattr(r, attr), 0) + 1
            print(f"  {role} killed {what}: " + ", ".join(f"{k or '?'} {n}" for k, n in sorted(seen.items())))
    for role in ("host", "guest"):
        for what, attr in (("kill", "resume_s"), ("restart", "restart_s")):
            times = sorted(getattr(r, attr) for r in results if r.victim == role and getattr(r, attr) is not None)
            if times:
                p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
                print(f"  {role} killed, {what} -> back in play: median {statistics.median(times):.2f} s, "
                      f"p95 {p95:.2f} s, max {times[-1]:.2f} s (n={len(times)})")
    return 0 if len(ok) == len(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
