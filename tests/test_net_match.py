"""Whole networked matches over loopback TCP: in one trio run, and as two processes."""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio

from p2ptrumps.net import addresses, config, dial, keystore, lobby
from p2ptrumps.rules import RuleSet
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.testing import fixed_bytes
from p2ptrumps.wire.verify import verify_log

HOST_KEY = Identity.from_seed(fixed_bytes("net-test/host"))
GUEST_KEY = Identity.from_seed(fixed_bytes("net-test/guest"))


def configs(tmp_path: Path, deals: int = 2, **guest: object) -> tuple[config.NetConfig, config.NetConfig]:
    # A turn limit of 120: random play may run a deal to the default 1000 turns, and no test here is about that.
    h = config.NetConfig(role="host", identity=HOST_KEY, name="Hana", data=tmp_path / "h",
                          rules=RuleSet(deals=deals, turn_limit=120), ai="random", think_s=0.01, out=io.StringIO(),
                          timeout_s=10)
    g = config.NetConfig(role="guest", identity=GUEST_KEY, name="Gus", data=tmp_path / "g", ai="random",
                          think_s=0.01, accept_new=True, out=io.StringIO(), timeout_s=10)
    for k, v in guest.items():
        setattr(g, k, v)
    return h, g


async def play_pair(h: config.NetConfig, g: config.NetConfig, port: int = 0,
                    address: str = "127.0.0.1") -> tuple[object, object]:
    """Host (on ``port``, 0: any free one) and join over ``address`` (a loopback one); returns each side's
    NetResult or NetplayError."""
    results: dict[str, object] = {}

    async def run_host(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        try:
            results["h"] = await lobby.host(h, address, port, task_status=task_status)
        except config.NetplayError as exc:
            results["h"] = exc

    with trio.fail_after(60):
        async with trio.open_nursery() as n:
            port = await n.start(run_host)
            try:
                results["g"] = await dial.join(g, f"{address}:{port}")
            except config.NetplayError as exc:
                results["g"] = exc
                # A guest that leaves before the rules does not end the hosting: the host waits on.
                with trio.move_on_after(30):
                    while "waiting for another guest" not in h.out.getvalue():  # type: ignore[attr-defined]
                        await trio.sleep(0.01)
                    results["h"] = WAITING
                    n.cancel_scope.cancel()
    return results["h"], results["g"]


WAITING = "the host waits for another guest"


async def test_ai_match_over_loopback_both_logs_valid(tmp_path: Path) -> None:
    h, g = configs(tmp_path, deals=2)
    rh, rg = await play_pair(h, g)
    assert isinstance(rh, config.NetResult) and isinstance(rg, config.NetResult)
    assert rh.score_halves == rg.score_halves and sum(rh.score_halves or ()) == 4
    assert rh.log_path is not None and rg.log_path is not None
    assert rh.log_path.name.endswith("_host_vs-Gus.p2plog") and rh.log_path.parent == tmp_path / "h" / "logs"
    assert rg.log_path.name.endswith("_guest_vs-Hana.p2plog")
    for path in (rh.log_path, rg.log_path):
        v = verify_log(path.read_bytes())
        assert (v.status, v.reason) == ("valid", "")
        assert len(v.deals) == 2
    assert rh.peer_fingerprint == GUEST_KEY.fingerprint and rg.peer_fingerprint == HOST_KEY.fingerprint
    # Both sides pinned each other.
    assert GUEST_KEY.fingerprint in (tmp_path / "h" / "known_peers.json").read_text()
    assert HOST_KEY.fingerprint in (tmp_path / "g" / "known_peers.json").read_text()
    out = h.out.getvalue()  # type: ignore[attr-defined]
    assert "deal 1: " in out and "match over: Hana " in out


async def test_join_with_fingerprint_match_and_mismatch(tmp_path: Path) -> None:
    h, g = configs(tmp_path, deals=1, accept_new=False, fingerprint=HOST_KEY.fingerprint.lower().replace("-", " "))
    rh, rg = await play_pair(h, g)
    assert isinstance(rg, config.NetResult)

    h, g = configs(tmp_path / "2", deals=1, accept_new=False, fingerprint=GUEST_KEY.fingerprint)
    rh, rg = await play_pair(h, g)
    assert isinstance(rg, config.NetplayError) and rg.status == config.EXIT_KEY_REFUSED
    assert str(rg) == (f"fingerprint mismatch: 'Hana' shows key {HOST_KEY.fingerprint}, "
                       f"but you expected {GUEST_KEY.fingerprint}. Refused.")
    assert rh == WAITING  # the host is told why the guest left, and waits on
    assert "'Gus' left during the handshake, before accepting the rules (" in h.out.getvalue()  # type: ignore
    assert "it may have refused your key; waiting for another guest" in h.out.getvalue()  # type: ignore
    # A refused handshake leaves no log file on either side.
    assert not (tmp_path / "2" / "h" / "logs").exists() or not list((tmp_path / "2" / "h" / "logs").iterdir())
    assert not (tmp_path / "2" / "g" / "logs").exists() or not list((tmp_path / "2" / "g" / "logs").iterdir())


async def test_unknown_host_without_confirmation_refused(tmp_path: Path) -> None:
    h, g = configs(tmp_path, deals=1, accept_new=False)
    _, rg = await play_pair(h, g)
    assert isinstance(rg, config.NetplayError) and rg.status == config.EXIT_KEY_REFUSED
    assert "not confirmed" in str(rg)
    asked: list[str] = []

    def yes(question: str) -> bool:
        asked.append(question)
        return True

    h, g = configs(tmp_path / "2", deals=1, accept_new=False, hooks=config.SeatHooks(confirm=yes))
    _, rg = await play_pair(h, g)
    assert isinstance(rg, config.NetResult) and len(asked) == 1 and HOST_KEY.fingerprint in asked[0]


#: A loopback address of this module's own: nothing else on the machine binds it, so a port found free
#: there stays free for the second host at the same address (on 127.0.0.1 any outgoing connection of
#: another process could take it in between).
OWN_LOOPBACK = f"127.{os.getpid() % 200 + 20}.{os.getpid() // 200 % 250 + 1}.7"


def free_port(address: str = OWN_LOOPBACK) -> int:
    with socket.socket() as s:
        s.bind((address, 0))
        return int(s.getsockname()[1])


async def test_changed_host_key_refused(tmp_path: Path) -> None:
    h, g = configs(tmp_path, deals=1)
    port = free_port()
    await play_pair(h, g, port, OWN_LOOPBACK)
    h.identity = Identity.from_seed(fixed_bytes("net-test/impostor"))
    rh, rg = await play_pair(h, g, port, OWN_LOOPBACK)  # the same address now shows another key
    assert isinstance(rg, config.NetplayError) and rg.status == config.EXIT_KEY_REFUSED
    assert str(rg).startswith(f"KEY CHANGED: 'Hana' at {OWN_LOOPBACK}:")
    assert HOST_KEY.fingerprint in str(rg) and h.identity.fingerprint in str(rg)
    # The refused attempt leaves no log (the handshake never reached the rules).
    assert rh == WAITING
    assert rg.result.log_path is None  # type: ignore[attr-defined]


async def test_two_hosts_of_one_name_are_both_joined_and_pinned(tmp_path: Path) -> None:
    """Names are labels (protocol/files.md): a second host called 'root' with another key, at another
    address, is a new peer (its --fingerprint accepted), never KEY CHANGED; both stay pinned."""
    other = Identity.from_seed(fixed_bytes("net-test/second-root"))
    fps = []
    for key in (HOST_KEY, other):
        h, g = configs(tmp_path, deals=1, accept_new=False, fingerprint=key.fingerprint)
        h.name, h.identity = "root", key
        _, rg = await play_pair(h, g)
        assert isinstance(rg, config.NetResult), rg
        fps.append(key.fingerprint)
    note = (f"peer: new peer 'root' pinned ({other.fingerprint}); not the same peer: another peer named 'root' is "
            f"pinned with key {HOST_KEY.fingerprint} (at ")
    assert note in g.out.getvalue()  # type: ignore[attr-defined]
    pinned = keystore.KnownPeers.open(tmp_path / "g").peers
    assert [(p.name, p.fingerprint) for p in pinned] == [("root", fps[0]), ("root", fps[1])]


def test_parse_address() -> None:
    assert dial.parse_address("example.org:5000") == ("example.org", 5000)
    assert dial.parse_address("[::1]:4816") == ("::1", 4816)
    assert dial.parse_address("10.0.0.2") == ("10.0.0.2", 4816)
    assert dial.parse_address("::1") == ("::1", 4816)
    bad_ones = ((":80", "has no host"), ("h:0", "port must be"), ("h:99999", "port must be"), ("h:x", "port must"))
    for bad, why in bad_ones:
        with pytest.raises(config.NetplayError, match=why):
            dial.parse_address(bad)
    assert addresses.format_address("::1", 5) == "[::1]:5"


async def test_connection_refused_and_address_in_use(tmp_path: Path) -> None:
    h, g = configs(tmp_path)
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    port = listener.socket.getsockname()[1]
    with pytest.raises(config.NetplayError) as info:
        await lobby.host(h, "127.0.0.1", port)
    assert info.value.status == config.EXIT_CONNECT
    assert str(info.value) == f"address 127.0.0.1:{port} is in use (another host running? choose another --port)"
    await listener.aclose()
    with pytest.raises(config.NetplayError) as info:
        await dial.join(g, f"127.0.0.1:{port}")
    assert info.value.status == config.EXIT_CONNECT
    assert str(info.value).startswith(f"cannot connect to 127.0.0.1:{port}: ")


# ----- two real processes ------------------------------------------------------------


def _env(tmp_path: Path, who: str) -> dict[str, str]:
    env = dict(os.environ)
    env["XDG_DATA_HOME"] = str(tmp_path / who)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def host_port(out_path: Path, host: subprocess.Popen[str], timeout_s: float = 20) -> int:
    """The port a host process says it waits on (``waiting for a guest on port P`` in its output file
    ``out_path``), read until ``timeout_s`` seconds have passed or the host ended."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and host.poll() is None:
        for line in out_path.read_text().splitlines():
            if line.startswith("waiting for a guest on port "):
                return int(line.split("port ")[1].split()[0])
        time.sleep(0.05)
    raise AssertionError(f"no port in the host's output: {out_path.read_text()!r}")


def test_two_processes_play_a_match(tmp_path: Path) -> None:
    common = ["--headless", "--ai", "random", "--think", "0.01", "--timeout", "10", "--ascii"]
    # The host's progress goes to a file, not a pipe: a pipe nobody drains while the
    # guest runs would fill up and stall the host mid-match.
    host_out_path = tmp_path / "host.out"
    with host_out_path.open("w") as host_out_file:
        host = subprocess.Popen(
            [sys.executable, "-m", "p2ptrumps", "host", "--bind", "127.0.0.1", "--port", "0", "--deals", "2",
             "--turn-limit", "120", "--name", "procHost", *common],
            stdout=host_out_file, stderr=subprocess.PIPE, text=True, env=_env(tmp_path, "h"),
        )
    try:
        port = host_port(host_out_path, host)
        guest = subprocess.run(
            [sys.executable, "-m", "p2ptrumps", "join", f"127.0.0.1:{port}", "--accept-new", "--name", "procGuest",
             *common],
            capture_output=True, text=True, env=_env(tmp_path, "g"), timeout=60,
        )
        _, host_err = host.communicate(timeout=30)
        host_out = host_out_path.read_text()
    finally:
        if host.poll() is None:
            host.kill()
            host.wait(timeout=10)
    assert guest.returncode == 0, guest.stderr
    assert host.returncode == 0, host_err
    logs = {}
    for who, out in (("h", host_out), ("g", guest.stdout)):
        log_line = [x for x in out.splitlines() if x.startswith("match log: ")]
        assert len(log_line) == 1, out
        logs[who] = Path(log_line[0].removeprefix("match log: "))
        assert logs[who].parent == tmp_path / who / "p2ptrumps" / "logs"
        v = verify_log(logs[who].read_bytes())
        assert (v.status, len(v.deals)) == ("valid", 2)
    check = subprocess.run([sys.executable, "-m", "p2ptrumps", "verify", str(logs["h"])],
                           capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "match over: procHost " in host_out and "match over: procHost " in guest.stdout


async def test_the_guest_is_told_that_the_host_is_choosing_a_trump(tmp_path: Path) -> None:
    """While the host chooses its trump, the guest is told why it waits."""
    h, g = configs(tmp_path, deals=1)
    told: list[bool] = []

    async def slow_choice(taken: int | None) -> int:
        with trio.move_on_after(10):
            while "Hana is choosing a trump; you choose yours next" not in g.out.getvalue():  # type: ignore[attr-defined]
                await trio.sleep(0.01)
            told.append(True)
        return 0

    h.hooks.choose_trump = slow_choice
    _, rg = await play_pair(h, g)
    assert told == [True] and isinstance(rg, config.NetResult)


async def test_headless_output_tells_equal_names_apart_by_their_keys(tmp_path: Path) -> None:
    # Two players called root read "root (XXXX)", the first characters of each key, not "root 0, root 1"
    h, g = configs(tmp_path, deals=1, name="root")
    h.name = "root"
    rh, rg = await play_pair(h, g)
    assert isinstance(rh, config.NetResult) and isinstance(rg, config.NetResult) and rh.score_halves is not None
    host_tag, guest_tag = f"root ({HOST_KEY.fingerprint[:4]})", f"root ({GUEST_KEY.fingerprint[:4]})"
    assert host_tag != guest_tag
    x, y = rh.score_halves
    for out in (h.out.getvalue(), g.out.getvalue()):  # type: ignore[attr-defined]
        lines = out.splitlines()
        assert f"match over: {host_tag} {x / 2:g}, {guest_tag} {y / 2:g}" in lines
        deal = next(line for line in lines if line.startswith("deal 1: ") and " deals; " in line)
        assert deal.startswith((f"deal 1: {host_tag} deals; {guest_tag} (trump ",
                                f"deal 1: {guest_tag} deals; {host_tag} (trump "))


async def test_host_and_join_hold_the_lock_of_their_match_while_they_play_it(tmp_path: Path) -> None:
    """files.md "Resuming": ``host`` and ``join`` lock their match (``resuming/<game id>-<role>``, holding
    the log's path) from the moment they create its log, as ``resume`` does: a ``resume`` of a copy of
    the log while they play stopped only once the copy was sent back a message it never signed, after it
    had taken the guest's seat on the host; now it is refused at once, naming the log being played.
    Both locks are let go (emptied) when the match is over."""
    from p2ptrumps.net import matchlock
    from p2ptrumps.system import locks

    h, g = configs(tmp_path, deals=1)
    seen: dict[str, tuple[Path, str, bool, str]] = {}

    def watch(cfg: config.NetConfig, role: str) -> None:
        def on_ready(match: object, result: config.NetResult) -> None:  # never raises: it would stop the match
            game_id = match.session.game_id  # type: ignore[attr-defined]
            lock = matchlock.match_lock_path(cfg.data, game_id, role)
            was_locked = locks.is_locked(lock)
            try:
                matchlock.hold_match(cfg, game_id, role, tmp_path / "copy.p2plog").release()  # a resume of a copy
                refusal = ""
            except config.NetplayError as exc:
                refusal = str(exc)
            seen[role] = (lock, str(Path(result.log_path or '').absolute()), was_locked, refusal)
        cfg.hooks.on_ready = on_ready

    watch(h, "host")
    watch(g, "guest")
    rh, rg = await play_pair(h, g)
    assert isinstance(rh, config.NetResult) and isinstance(rg, config.NetResult)
    for role in ("host", "guest"):
        lock, log, was_locked, refusal = seen[role]
        assert was_locked
        assert refusal == (f"stopped: another copy of this side is running (the same match resumed twice, or two "
                           f"processes sharing one identity key): another p2ptrumps process plays this match with "
                           f"the log {log} and holds {lock}; {tmp_path / 'copy.p2plog'} is left as it was")
        assert (locks.is_locked(lock), lock.read_bytes()) == (False, b"")
