"""Bad command-line values and unusable local files give one clear line, never a traceback
(tester's defects 8, 9, 15 and the address / fingerprint / --forget notes)."""

from __future__ import annotations

import asyncio
import io
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2ptrumps.commands.main import main
from p2ptrumps.net import commands, config, keystore, resume
from p2ptrumps.net.addresses import AddressError, check_fingerprint, parse_address
from p2ptrumps.net.table import play_in_table
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.verify import verify_log


@pytest.mark.parametrize("port", ["99999", "-1", "65536", "x"])
def test_bad_host_port_is_a_usage_error(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["host", "--port", port, "--headless", "--ai", "random"])
    assert info.value.code == 2
    assert f"p2ptrumps host: --port: port must be a number 0..65535, not {port!r}\n" in capsys.readouterr().err


@pytest.mark.parametrize(("address", "why"), [
    ("127.0.0.1:1:2", "has too many ':' (write IPv6 addresses as [::1]:4816)"),
    ("http://127.0.0.1:4816", "give HOST:PORT, not a URL"),
    ("127.0.0.1:99999", "port must be a number 1..65535"),
    ("[nothost]:5", "is not an IPv6 address"),
    ("bad_host!:5", "is not a host name or IP address"),
])
def test_bad_join_address_is_a_usage_error(address: str, why: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["join", address, "--headless", "--ai", "random"])
    assert info.value.code == 2
    assert why in capsys.readouterr().err


@pytest.mark.parametrize("command", [["host", "--bind", "999.1.1.1"], ["join", "999.1.1.1:4816"]])
def test_a_bad_address_is_named_before_the_missing_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str],
                                                             command: list[str]) -> None:
    """The last note: ``host --bind 999.1.1.1`` without a terminal named the terminal first (and with one,
    created the key before the listener found the name did not resolve).  Four numbers are an IPv4 address
    or nothing: the option is named, status 2, nothing written (as ``play --position x``)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    with pytest.raises(SystemExit) as info:
        main(command)
    assert info.value.code == 2
    option = "--bind: " if command[0] == "host" else "CODE|HOST:PORT[/TICKET]: "
    typed = command[-1]
    assert capsys.readouterr().err.splitlines()[1] == (
        f"p2ptrumps {command[0]}: {option}address {typed!r}: '999.1.1.1' is not an IPv4 address: its four numbers "
        "are each 0 to 255, without leading zeros")
    assert list(tmp_path.iterdir()) == []


def test_a_bind_name_that_does_not_resolve_is_named_before_the_missing_terminal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    def no_such_name(host: object, *args: object, **kwargs: object) -> object:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setattr(socket, "getaddrinfo", no_such_name)  # no resolver asked: .invalid never resolves anyway
    assert main(["host", "--bind", "nosuch.invalid"]) == 2
    assert capsys.readouterr().err == (
        "p2ptrumps host: --bind 'nosuch.invalid': the name does not resolve (Name or service not known)\n")
    assert list(tmp_path.iterdir()) == []


def test_good_addresses() -> None:
    assert parse_address("[::1]:4816") == ("::1", 4816)
    assert parse_address("::1") == ("::1", 4816)
    assert parse_address("example.org") == ("example.org", 4816)
    assert parse_address(" 10.0.0.2:5000 ") == ("10.0.0.2", 5000)


@pytest.mark.parametrize("fp", ["", "7F4Z", "FUGV-REOI-FFMR-732D-2R4T-KNXL-BRUX-7JN1"])
def test_malformed_fingerprint_refused_up_front(fp: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(AddressError):
        check_fingerprint(fp)
    with pytest.raises(SystemExit) as info:
        main(["join", "127.0.0.1:1", "--fingerprint", fp])
    assert info.value.code == 2
    assert "is malformed: expected 32 characters A-Z 2-7" in capsys.readouterr().err
    assert check_fingerprint("fugv reoi ffmr 732d 2r4t knxl brux 7jns") == "fugv reoi ffmr 732d 2r4t knxl brux 7jns"


@pytest.mark.parametrize("command", [["id"], ["host", "--headless", "--ai", "random", "--port", "0"],
                                     ["join", "127.0.0.1:1", "--headless", "--ai", "random"]])
def test_data_dir_is_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                            command: list[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    (tmp_path / "p2ptrumps").write_text("in the way")
    assert main(command) == 1
    err = capsys.readouterr().err
    assert err == (f"p2ptrumps {command[0]}: data directory {tmp_path / 'p2ptrumps'} is not a directory (a file is "
                   "in the way); move it away or set XDG_DATA_HOME\n")


def test_key_file_is_a_directory(tmp_path: Path) -> None:
    (tmp_path / keystore.KEY_FILE).mkdir()
    with pytest.raises(keystore.KeyStoreError) as info:
        keystore.load_or_create_key(tmp_path)
    assert str(info.value) == (f"key file {tmp_path / keystore.KEY_FILE} is not a regular file (a directory or a "
                               "broken link?); move it away to create a new key")


def test_key_file_with_an_extra_line(tmp_path: Path) -> None:
    keystore.load_or_create_key(tmp_path)
    path = tmp_path / keystore.KEY_FILE
    with open(path, "ab") as f:
        f.write(b"something else\n")
    with pytest.raises(keystore.KeyStoreError) as info:
        keystore.load_or_create_key(tmp_path)
    assert str(info.value) == (f"key file {path} is unusable: identity key: unexpected text after the key line "
                               "(the file holds one line)")
    os.truncate(path, 87)  # back to the one line: usable again
    assert keystore.load_or_create_key(tmp_path)[1] is False


def test_id_forget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    known = keystore.KnownPeers.open(keystore.data_dir())
    known.add("AAAA-BBBB-CCCC-DDDD-EEEE-FFFF-GGGG-HHHH", "bob", "10.0.0.2:4816")
    known.add("2222-3333-4444-5555-6666-7777-AAAA-BBBB", "ann", "10.0.0.3:4816")
    assert main(["id", "--forget", "aaaabbbbccccddddeeeeffffgggghhhh"]) == 0
    assert capsys.readouterr().out.startswith("forgot 'bob' at 10.0.0.2:4816 (AAAA-BBBB-CCCC-DDDD-EEEE-FFFF-GGGG-HHHH)")
    assert [p.name for p in keystore.KnownPeers.open(keystore.data_dir()).peers] == ["ann"]
    assert main(["id", "--forget", "bob"]) == 1
    assert capsys.readouterr().err == "p2ptrumps id: no known peer has the fingerprint, name or address 'bob'\n"


def test_a_headless_run_that_fails_says_one_line_not_a_traceback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The run under the signal watcher raises the match's own error, so its exit status and one line
    come out (it used to escape as a trio exception group with a traceback)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert main(["join", "127.0.0.1:1", "--headless", "--ai", "random"]) == 3
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == ("p2ptrumps join: cannot connect to 127.0.0.1:1: connection refused (is the host running? "
                       "is the port right?)")


def test_unicode_wins_on_the_network_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under the C locale suits are letters unless --unicode asks for symbols: ``host``/``join``/``resume``
    take the command line's choice as it is, not OR-ed with the locale."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setenv("LC_ALL", "C")
    seen: list[tuple[str, bool]] = []

    async def fake_join(cfg: config.NetConfig, address: str) -> config.NetResult:
        seen.append(("join", cfg.ascii_only))
        return config.NetResult(None, 1)

    def fake_load(cfg: config.NetConfig, path: Path) -> object:
        seen.append(("resume", cfg.ascii_only))
        raise config.NetplayError(config.EXIT_ERROR, "not really")

    monkeypatch.setattr(commands, "join", fake_join)
    monkeypatch.setattr(resume, "load", fake_load)
    keystore.load_or_create_key(keystore.data_dir())
    for flags in ([], ["--unicode"], ["--ascii"]):
        assert main(["join", "127.0.0.1:1", "--headless", "--ai", "random", *flags]) == 0
        assert main(["resume", str(tmp_path / "x.p2plog"), "--headless", "--ai", "random", *flags]) == 1
    assert seen == [("join", True), ("resume", True), ("join", False), ("resume", False),
                    ("join", True), ("resume", True)]


def test_the_table_names_its_command_in_an_error(tmp_path: Path) -> None:
    """``join`` with the table, to a port where nobody listens: one line in the command's voice, status 3."""
    cfg = config.NetConfig(role="guest", identity=Identity.from_seed(bytes(32)), name="Tess", data=tmp_path,
                           accept_new=True, out=io.StringIO(), timeout_s=5)
    err = io.StringIO()

    async def run() -> int:
        with create_pipe_input() as inp:
            return await play_in_table(cfg, "guest", address="127.0.0.1:1", input=inp, output=DummyOutput(),
                                       stdout=io.StringIO(), stderr=err, command="join")

    assert asyncio.run(run()) == config.EXIT_CONNECT
    assert err.getvalue() == ("p2ptrumps join: cannot connect to 127.0.0.1:1: connection refused (is the host "
                              "running? is the port right?)\n")


def _peer(data: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "XDG_DATA_HOME": str(data), "LANG": "C.UTF-8"}
    return subprocess.Popen([sys.executable, "-m", "p2ptrumps", *args], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _port_of(host: subprocess.Popen[str]) -> int:
    """The port a headless host says it waits on; if it ends first (or says 200 other lines), an error
    holding all it said, stderr too (a host that died says why there)."""
    assert host.stdout is not None
    said: list[str] = []
    for line in host.stdout:  # until the host's stdout ends
        said.append(line)
        if m := re.search(r"waiting for a guest on port (\d+)", line):
            return int(m[1])
        if len(said) > 200:
            break
    host.kill()
    _, err = host.communicate(timeout=10)
    raise AssertionError(f"the host never said its port (status {host.returncode}):\n{''.join(said)}{err}")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_headless_run_stopped_by_a_signal_says_so_in_its_commands_voice(tmp_path: Path,
                                                                          sig: signal.Signals) -> None:
    """A headless AI guest stopped by SIGTERM or Ctrl-C (SIGINT) mid-match leaves it (signed) and says
    why, status 128 + the signal's number (143, 130; SIGTERM gave 130 where `play` gives 143)."""
    host = _peer(tmp_path / "h", "host", "--port", "0", "--headless", "--ai", "random", "--think", "0.05",
                 "--deals", "3", "--name", "Hana")
    guest: subprocess.Popen[str] | None = None
    try:
        port = _port_of(host)
        guest = _peer(tmp_path / "g", "join", f"127.0.0.1:{port}", "--headless", "--ai", "random", "--think", "0.3",
                      "--accept-new", "--name", "Gus")
        assert guest.stdout is not None
        for _ in range(100):
            if re.match(r"\s+2\. ", guest.stdout.readline()):
                break
        guest.send_signal(sig)
        _, err = guest.communicate(timeout=20)
        assert guest.returncode == 128 + sig
        lines = err.splitlines()[1:]  # after "created your identity key in ..."
        assert lines[0] == (f"p2ptrumps join: stopped by {sig.name}: you resigned and left the match (both signed the "
                            "final score)")
        assert lines[1].startswith("match log (kept): ") and len(lines) == 2
        v = verify_log(Path(lines[1].removeprefix("match log (kept): ")).read_bytes())
        assert (v.status, v.left is not None and v.left[0], v.forfeited) == ("valid", 1, [2, 3])
        assert host.wait(20) == 0
    finally:
        for proc in (host, guest):
            if proc is not None:
                if proc.poll() is None:
                    proc.kill()
                proc.communicate(timeout=10)  # and close its pipes


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_waiting_for_a_guest_stops_at_once(tmp_path: Path, sig: signal.Signals) -> None:
    """No match begun (no log yet): Ctrl-C or SIGTERM ends a headless host at once, status 130 or 143, no log."""
    host = _peer(tmp_path, "host", "--port", "0", "--headless", "--ai", "random", "--name", "Hana")
    try:
        _port_of(host)
        host.send_signal(sig)
        # No leave to wait for: that it ends at once, not by the give-up of a leaving run, is told apart by
        # test_a_signal_before_any_match_ends_the_run_not_by_the_give_up (a give-up of 600 s there).
        _, err = host.communicate(timeout=60)
        assert host.returncode == 128 + sig
        assert err.splitlines()[1:] == [f"p2ptrumps host: stopped by {sig.name}"]
        assert not list((tmp_path / "p2ptrumps").glob("logs/*"))
    finally:
        if host.poll() is None:
            host.kill()
            host.communicate(timeout=10)


def test_id_keeps_a_joined_emoji_name_and_refuses_a_bad_stored_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    family = "Ann \U0001f469\u200d\U0001f469\u200d\U0001f467"
    assert main(["id", "--name", family]) == 0
    assert capsys.readouterr().out.splitlines()[-2] == f"name:        {family}"
    assert main(["id"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == f"name:        {family}"
    path = keystore.data_dir() / keystore.NAME_FILE
    path.write_text("Ann\x1b[31m\n", encoding="utf-8")
    for command in (["id"], ["host", "--headless", "--ai", "random", "--port", "0"]):
        assert main(command) == 1
        assert capsys.readouterr().err == (f"p2ptrumps {command[0]}: the name file {path} holds no usable name: a name "
                                           "contains U+001B, a control character; set your name again with "
                                           "`p2ptrumps id --name NAME`\n")


def test_the_end_of_a_headless_persons_input_leaves_the_match(tmp_path: Path) -> None:
    """A person at the headless line prompt whose input ends (EOF) has gone: the match is left with a
    signed ``leave`` (protocol/wire.md §15), as ``q`` leaves it; both logs are complete, status 130."""
    host = _peer(tmp_path / "h", "host", "--port", "0", "--headless", "--ai", "random", "--deals", "3",
                 "--name", "Hana")
    try:
        port = _port_of(host)
        env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "g"), "LANG": "C.UTF-8"}
        guest = subprocess.run([sys.executable, "-m", "p2ptrumps", "join", f"127.0.0.1:{port}", "--headless",
                                "--accept-new", "--name", "Tess"], input="garbage\n", capture_output=True,
                               text=True, env=env, timeout=60)
        assert guest.returncode == config.EXIT_LEFT, guest.stderr
        assert "'garbage' is not a card" in guest.stdout
        assert guest.stdout.rstrip().endswith("the input ended (EOF): leaving the match (the rest of it is resigned)")
        lines = guest.stderr.splitlines()[1:]
        assert lines[0] == "p2ptrumps join: you resigned and left the match (both signed the final score)"
        out, _ = host.communicate(timeout=20)
        assert host.returncode == 0 and "note: Tess resigned and left the match" in out
        for log in [Path(lines[1].removeprefix("match log (kept): ")),
                    *(tmp_path / "h" / "p2ptrumps" / "logs").glob("*.p2plog")]:
            v = verify_log(log.read_bytes())
            assert (v.status, v.left is not None and v.left[0], v.forfeited) == ("valid", 1, [2, 3])
    finally:
        if host.poll() is None:
            host.kill()
            host.communicate(timeout=10)


def test_read_line_takes_lines_from_one_read_and_a_last_line_without_its_end(
        capsys: pytest.CaptureFixture[str]) -> None:
    from p2ptrumps.net import prompts

    r, w = os.pipe()
    os.write(w, "QS\r\nдва\nlast".encode())
    os.close(w)
    saved = os.dup(0)
    try:
        os.dup2(r, 0)
        got = [prompts.read_line(f"q{i}? ") for i in range(4)]
    finally:
        os.dup2(saved, 0)
        os.close(saved)
        os.close(r)
    assert got == ["QS", "два", "last", None]
    assert capsys.readouterr().out == "q0? q1? q2? q3? "


def test_progress_to_a_reader_that_went_away_is_dropped() -> None:
    """``join --headless ... | head -3``: the pipe breaks; progress lines are dropped, never an error
    (it used to end the match as "cannot write the match log ...: Broken pipe")."""

    class Broken(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    cfg = config.NetConfig(role="guest", identity=Identity.from_seed(bytes(32)), name="Tess", data=Path("/nonexistent"),
                           out=Broken())
    config.say(cfg, "deal 1: Hana deals")  # no exception


@pytest.mark.parametrize("headless", [False, True])
def test_an_ai_seat_at_a_terminal_ends_with_each_match_s_score(headless: bool) -> None:
    """``host --ai normal`` without ``--headless`` prints no progress: its end said only the log paths,
    never who won.  Now each match on the connection (a rematch too) ends with its score, as the
    headless progress says it; a headless run has said it already."""
    import argparse

    out = io.StringIO()
    cfg = config.NetConfig(role="guest", identity=Identity.from_seed(bytes(32)), name="Tess", data=Path("/nonexistent"),
                           out=out)
    again = config.NetResult(Path("b.p2plog"), seat=1, score_halves=(1, 1), peer_name="Hana")
    first = config.NetResult(Path("a.p2plog"), seat=1, score_halves=(0, 2), peer_name="Hana", rematches=[again])
    args = argparse.Namespace(command="join", headless=headless)
    assert commands._finish(args, out, lambda: first, cfg) == config.EXIT_OK
    scores = [] if headless else ["match over: Hana 0, Tess 1", "match over: Hana 0.5, Tess 0.5"]
    assert out.getvalue().splitlines() == [*scores, "match log: a.p2plog", "match log: b.p2plog"]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
async def test_a_signal_before_any_match_ends_the_run_not_by_the_give_up(tmp_path: Path, sig: signal.Signals) -> None:
    """``until_signalled`` with no match begun (no log): the signal ends the run at once.  The give-up of a
    leaving run is set to 600 s here, ten times the bound: a run that waited for it could not end in time."""
    import trio

    cfg = config.NetConfig(role="host", identity=Identity.from_seed(bytes(32)), name="Hana", data=tmp_path)
    cfg.leave_wait_s = 600.0
    outer = signal.getsignal(sig)  # trio's own for SIGINT (KeyboardInterrupt), the default for SIGTERM

    async def waiting_for_a_guest() -> config.NetResult:
        for _ in range(6000):  # until the run's signal receiver is in place (a state, not a time)
            if signal.getsignal(sig) is not outer:
                break
            await trio.sleep(0.01)
        os.kill(os.getpid(), sig)
        await trio.sleep_forever()
        raise AssertionError("not reached")

    with trio.fail_after(60), pytest.raises(KeyboardInterrupt) as info:
        await commands.until_signalled(cfg, waiting_for_a_guest)
    assert str(info.value) == sig.name
    assert not cfg.hooks.leave_requested.is_set()  # type: ignore[union-attr]  # nothing to leave: no leave asked for
