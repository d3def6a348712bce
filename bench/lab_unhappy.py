"""The unhappy paths of meeting, in the network lab, as users would meet them.

Each trial runs the real ``p2ptrumps host`` / ``join`` (headless, greedy AI) inside the lab's homes, with
a mailbox server and a transit relay of the lab's own in its internet namespace, and reports how it
ended: each side's exit status and last line, and ``verify`` of the logs (a pair that is one chain, or
each log alone when the match could not finish).  Every trial must end with one clear line on each side
and its logs intact.

* ``reboot``   -- the host's router (UPnP) grants the mapping, then reboots (miniupnpd restarted, every
  rule forgotten) while the host waits; a guest from another home joins the mapped address once the
  host has mapped again (it asks every ``portmap.CHECK_S`` seconds);
* ``expiry``   -- mid-match the router stops hearing the host (it drops what the host sends to it), so the
  lease runs out and miniupnpd removes the mapping: the match goes on over the open connection; the
  router hears the host again, the host maps again, then the guest's connection is reset and both
  reconnect through the mapping;
* ``relay-back`` -- a match by code between two carrier-grade-NAT homes (through the relay); mid-match the
  relay stops, and starts again 6 s later on the same port: both reconnect through it;
* ``relay-gone`` -- the same, but the relay stays away: each side gives up after ``--reconnect-wait``
  with one line and an unfinished, valid log; the relay comes back, both run ``p2ptrumps resume`` and
  finish the match;
* ``wrong-code`` -- a guest types the code with a wrong word: one line, the host offers a new code, the
  real guest plays with it;
* ``code-twice`` -- the code of a finished match used again;
* ``no-mailbox`` -- host and join with a mailbox that does not answer (nothing listens there).

    sudo python bench/lab_unhappy.py [--only reboot,expiry,...]

Needs root, ``ip``, ``nft`` and ``miniupnpd``.  ``P2PTRUMPS_LAB_PREFIX`` names the lab's namespaces.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from netlab import Peer, lab_ready

from p2ptrumps.net import lab
from p2ptrumps.net.lab import until
from p2ptrumps.net.testing import _twistd, free_port, peer_command, rendezvous_servers

PLAY = ["--headless", "--ai", "greedy", "--ascii"]
#: Seats that take their time (0.5 s a move): a match that outlasts a lease.
SLOW = ["--headless", "--ai", "normal", "--think", "0.5", "--ascii"]
TELL = "Tell your opponent: p2ptrumps join "
TRIALS = ("reboot", "expiry", "relay-back", "relay-gone", "wrong-code", "code-twice", "no-mailbox")


def verify(*logs: Path) -> str:
    """``p2ptrumps verify`` of one log or a pair: its first line."""
    if not all(p.exists() for p in logs):
        return f"missing log: {[str(p) for p in logs if not p.exists()]}"
    r = subprocess.run(peer_command("verify", *map(str, logs)), capture_output=True, text=True, timeout=120)
    return (r.stdout.splitlines() or [r.stderr.strip()])[0]


def last(p: Peer) -> str:
    """What ``p`` said last: its last line, and before it the line of its command's voice (the one line
    saying why it ended: ``p2ptrumps join: ...``) when there is one."""
    lines = [ln for ln in p.text().splitlines() if ln.strip()]
    why = [ln for ln in lines if ln.startswith("p2ptrumps ")]
    return " || ".join(dict.fromkeys([*why[-1:], *lines[-1:]]))


def ended(p: Peer, timeout_s: float) -> int | None:
    try:
        return p.proc.wait(timeout_s)
    except subprocess.TimeoutExpired:
        return None


def cut(net: lab.Lab, home: str, seconds: float) -> None:
    """``home``'s router forwards nothing for ``seconds`` (the link of its machine is cut)."""
    router = f"{home}-r"
    net.run(router, ["nft", "-f", "-"], input="table inet homescut {\n chain f {\n  type filter hook forward "
            "priority -10; policy drop;\n }\n}\n")
    time.sleep(seconds)
    net.run(router, ["nft", "delete", "table", "inet", "homescut"])


class Relay:
    """A transit relay of our own in the lab's internet, that can be stopped and started on its port."""

    def __init__(self, net: lab.Lab, work: Path) -> None:
        self.net, self.work = net, work
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = f"tcp:{net.service_address}:{self.port}"

    def start(self) -> None:
        log = self.work / "relay.log"
        log.unlink(missing_ok=True)
        self.proc = _twistd(self.work, "relay", ["transitrelay"], self.port, self.net.service_address,
                            ["ip", "netns", "exec", self.net.ns("inet")])
        if not until(lambda: log.exists() and "starting on" in log.read_text(errors="replace"), 60):
            raise RuntimeError(f"the relay did not start: {log.read_text(errors='replace')[-300:]}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


def host_by_code(net: lab.Lab, home: str, mailbox: str, relay: str, work: Path, *extra: str) -> tuple[Peer, str]:
    host = Peer(net, home, ["host", "--code", "--rendezvous", mailbox, "--relay", relay, *PLAY, "--name", "Hana",
                            "--log", str(work / "host.p2plog"), *extra], work / "h")
    got = host.wait_for(f"^{TELL}", 60)
    if got is None:
        raise RuntimeError(f"no code from the host: {host.text()[-300:]}")
    return host, got[1].removeprefix(TELL).split()[-1]


def join(net: lab.Lab, home: str, code_or_address: str, mailbox: str, work: Path, *extra: str,
         name: str = "guest") -> Peer:
    return Peer(net, home, ["join", code_or_address, "--rendezvous", mailbox, *PLAY, "--name", "Gus",
                            "--log", str(work / f"{name}.p2plog"), *extra], work / name[0])


def both_end(host: Peer, guest: Peer, timeout_s: float = 180) -> dict[str, object]:
    g, h = ended(guest, timeout_s), ended(host, 30)
    guest.stop()
    host.stop()
    return {"guest": [g, last(guest)], "host": [h, last(host)]}


def t_reboot(net: lab.Lab, urls: tuple[str, str], work: Path) -> dict[str, object]:
    host = Peer(net, "upnp", ["host", *PLAY, "--think", "0.01", "--deals", "1", "--pack", "32", "--name", "Hana",
                              "--log", str(work / "host.p2plog")], work / "h")
    if host.wait_for(r"^waiting for a guest", 40) is None:
        return {"error": host.text()[-300:]}
    address = host.said(TELL)
    held = net.mappings("upnp")
    net.reboot_router("upnp")
    gone = net.mappings("upnp")
    t = time.monotonic()
    back = until(lambda: len(net.mappings("upnp")) == len(held), 60)
    back_s = round(time.monotonic() - t, 1)
    guest = join(net, "plain-2", address, urls[0], work, "--think", "0.01", "--accept-new")
    out = both_end(host, guest)
    return {"told": address, "rules": [len(held), len(gone), len(net.mappings("upnp"))], "mapped_again_s": back_s,
            "back": back, **out, "verify": verify(work / "host.p2plog", work / "guest.p2plog"),
            "host_said": [ln for _, ln in host.lines if ln.startswith("port mapping")]}


def reset(net: lab.Lab, home: str, seconds: float) -> None:
    """``home``'s router answers every forwarded TCP segment with a reset for ``seconds``: the match's
    connection breaks at once on both sides (a cut they must reconnect after)."""
    router = f"{home}-r"
    net.run(router, ["nft", "-f", "-"], input="table inet homesreset {\n chain f {\n  type filter hook forward "
            "priority -10; policy accept;\n  meta l4proto tcp reject with tcp reset\n }\n}\n")
    time.sleep(seconds)
    net.run(router, ["nft", "delete", "table", "inet", "homesreset"])


#: A host that asks for a lease of 40 s (the product asks for an hour): its lease can run out in a trial.
SHORT_LEASE = ("import sys; from p2ptrumps.net import portmap; portmap.LEASE_S = 40; "
               "from p2ptrumps.commands.main import main; sys.exit(main(sys.argv[1:]))")


def t_expiry(net: lab.Lab, urls: tuple[str, str], work: Path) -> dict[str, object]:
    import netlab

    plain = netlab.peer_command
    netlab.peer_command = lambda *args: [sys.executable, "-c", SHORT_LEASE, *args]
    try:
        host = Peer(net, "upnp", ["host", *SLOW, "--deals", "4", "--name", "Hana",
                                  "--reconnect-wait", "60", "--log", str(work / "host.p2plog")], work / "h")
    finally:
        netlab.peer_command = plain
    if host.wait_for(r"^waiting for a guest", 40) is None:
        return {"error": host.text()[-300:]}
    address = host.said(TELL)
    guest = Peer(net, "plain-2", ["join", address, *SLOW, "--accept-new", "--reconnect-wait", "60", "--name", "Gus",
                                  "--log", str(work / "guest.p2plog")], work / "g")
    if guest.wait_for(r"^\s+5\. ", 60) is None:
        return {"error": "no fifth move: " + guest.text()[-300:]}
    # The host's renewals do not reach the router (it drops what the host sends to it, not what it
    # forwards): the lease runs out and miniupnpd removes the mapping, mid-match.
    net.run("upnp-r", ["nft", "-f", "-"], input="table inet homesdeaf {\n chain i {\n  type filter hook input "
            f"priority -10; policy accept;\n  ip saddr {net.address('upnp')} drop\n }}\n}}\n")
    t = time.monotonic()
    expired = until(lambda: net.mappings("upnp") == [], 120)
    expired_s = round(time.monotonic() - t, 1)
    moves_then = len(guest.lines)
    net.run("upnp-r", ["nft", "delete", "table", "inet", "homesdeaf"])
    t = time.monotonic()
    back = until(lambda: len(net.mappings("upnp")) == 2, 60)
    back_s = round(time.monotonic() - t, 1)
    went_on = len(guest.lines) > moves_then
    host_there = host.proc.poll() is None
    reset(net, "plain-2", 3)  # now the guest must come back through the mapping
    out = both_end(host, guest, 600)
    out["host_still_hosting"] = host_there
    return {"expired_after_s": expired_s, "expired": expired, "mapped_again_s": back_s, "back": back,
            "match_went_on": went_on, **out,
            "guest_reconnected": [ln for _, ln in guest.lines if "reconnect" in ln or "lost" in ln][:3],
            "host_said": [ln for _, ln in host.lines if ln.startswith("port mapping")],
            "verify": verify(work / "host.p2plog", work / "guest.p2plog")}


def t_relay(net: lab.Lab, urls: tuple[str, str], work: Path, back_after_s: float | None) -> dict[str, object]:
    relay = Relay(net, work)
    relay.start()
    try:
        host, code = host_by_code(net, "cgnat", urls[0], relay.url, work, "--think", "0.15", "--deals", "2",
                                  "--reconnect-wait", "20")
        guest = join(net, "cgnat-2", code, urls[0], work, "--think", "0.15", "--reconnect-wait", "20")
        if guest.wait_for(r"^\s+5\. ", 90) is None:
            return {"error": "no fifth move: " + guest.text()[-300:] + host.text()[-300:]}
        relay.stop()
        out: dict[str, object] = {}
        if back_after_s is not None:
            time.sleep(back_after_s)
            relay.start()
            out.update(both_end(host, guest))
            out["verify"] = verify(work / "host.p2plog", work / "guest.p2plog")
            out["said"] = [ln for _, ln in guest.lines if "reconnect" in ln or "lost" in ln][:3]
            return out
        g, h = ended(guest, 120), ended(host, 60)
        out["gave_up"] = {"guest": [g, last(guest)], "host": [h, last(host)]}
        out["alone"] = [verify(work / "host.p2plog"), verify(work / "guest.p2plog")]
        relay.start()
        rh = Peer(net, "cgnat", ["resume", str(work / "host.p2plog"), *PLAY, "--think", "0.05",
                                 "--reconnect-wait", "60"], work / "h")
        rg = Peer(net, "cgnat-2", ["resume", str(work / "guest.p2plog"), *PLAY, "--think", "0.05",
                                   "--reconnect-wait", "60"], work / "g")
        out["resumed"] = both_end(rh, rg)
        out["verify"] = verify(work / "host.p2plog", work / "guest.p2plog")
        return out
    finally:
        relay.stop()


def t_wrong_code(net: lab.Lab, urls: tuple[str, str], work: Path) -> dict[str, object]:
    host, code = host_by_code(net, "plain", urls[0], urls[1], work, "--think", "0.01", "--deals", "1", "--pack", "32")
    number, *words = code.split("-")
    wrong = "-".join([number, *words[:-1], "zulu" if words[-1] != "zulu" else "yankee"])
    bad = join(net, "cgnat-2", wrong, urls[0], work, "--think", "0.01", name="stranger")
    status = ended(bad, 60)
    new = host.wait_for(f"^{TELL}(?!{code})", 30)
    out: dict[str, object] = {"wrong": [status, last(bad)], "host_said": [ln for _, ln in host.lines
                                                                          if "wrong code" in ln]}
    if new is None:
        host.stop()
        return {**out, "error": "no new code: " + host.text()[-300:]}
    guest = join(net, "cgnat-2", new[1].removeprefix(TELL).split()[-1], urls[0], work, "--think", "0.01")
    out.update(both_end(host, guest))
    out["stranger_log"] = (work / "stranger.p2plog").exists()
    out["verify"] = verify(work / "host.p2plog", work / "guest.p2plog")
    return out


def t_code_twice(net: lab.Lab, urls: tuple[str, str], work: Path) -> dict[str, object]:
    host, code = host_by_code(net, "plain", urls[0], urls[1], work, "--think", "0.01", "--deals", "1", "--pack", "32")
    guest = join(net, "cgnat-2", code, urls[0], work, "--think", "0.01")
    out = both_end(host, guest)
    again = join(net, "cgnat-2", code, urls[0], work, "--think", "0.01", "--timeout", "10", name="again")
    return {**out, "again": [ended(again, 60), last(again)], "again_log": (work / "again.p2plog").exists(),
            "verify": verify(work / "host.p2plog", work / "guest.p2plog")}


def t_no_mailbox(net: lab.Lab, urls: tuple[str, str], work: Path) -> dict[str, object]:
    dead = f"ws://{net.service_address}:{free_port()}/v1"
    t = time.monotonic()
    host = Peer(net, "plain", ["host", "--code", "--rendezvous", dead, *PLAY, "--name", "Hana"], work / "h")
    hs = ended(host, 60)
    host_s = round(time.monotonic() - t, 1)
    t = time.monotonic()
    guest = join(net, "cgnat-2", "7-crossover-clockwork", dead, work, "--timeout", "10")
    gs = ended(guest, 60)
    return {"host": [hs, last(host), host_s], "guest": [gs, last(guest), round(time.monotonic() - t, 1)]}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default=",".join(TRIALS))
    args = ap.parse_args(argv)
    if not lab_ready():
        return 2
    print(f"# python bench/lab_unhappy.py {' '.join(argv)}   ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})")
    with tempfile.TemporaryDirectory(prefix="lab-unhappy-") as tmp, \
            lab.Lab(("upnp", "plain", "cgnat", "plain-2", "cgnat-2"), lease_s=lab.MIN_LEASE_S + 10) as net:
        servers = Path(tmp) / "servers"
        servers.mkdir()
        with rendezvous_servers(servers, host=net.service_address,
                                prefix=("ip", "netns", "exec", net.ns("inet"))) as urls:
            for name in args.only.split(","):
                work = Path(tmp) / name
                work.mkdir()
                t = time.monotonic()
                try:
                    trial = {"reboot": t_reboot, "expiry": t_expiry, "wrong-code": t_wrong_code,
                             "code-twice": t_code_twice, "no-mailbox": t_no_mailbox,
                             "relay-back": lambda n, u, w: t_relay(n, u, w, 6.0),
                             "relay-gone": lambda n, u, w: t_relay(n, u, w, None)}[name]
                    got = trial(net, urls, work)
                except Exception as exc:
                    got = {"error": repr(exc)}
                print(f"{name} ({time.monotonic() - t:.0f} s): {json.dumps(got, indent=1)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
