"""``p2ptrumps resume`` (protocol/wire.md §14.4, files.md "the resume file"): what it refuses,
and a match taken up whose peer never comes back (the claim it then keeps)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from p2ptrumps.commands.main import main
from p2ptrumps.net import keystore
from p2ptrumps.net.logfile import MatchLogFile
from p2ptrumps.net.resumefile import ResumeFile, path_for
from p2ptrumps.rules import RuleSet
from p2ptrumps.wire.log import LOG_MAGIC, read_log
from p2ptrumps.wire.testing import Script, exchange, make_side
from p2ptrumps.wire.verify import verify_log

RULES = RuleSet(pack_size=32, deals=2, turn_limit=40)


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    return keystore.data_dir()


def _match_log(data: Path, messages: int, name: str = "2026-11-30_1200_host_vs-guest") -> Path:
    """A host's log cut after ``messages`` chained messages, with its resume file, as a crash leaves them."""
    ident, _ = keystore.load_or_create_key(data)
    host = make_side("host", "host", RULES, identity=ident, move_time=30)
    guest = make_side("guest", "guest", None)
    exchange(host, guest)
    frames = read_log(host.log_bytes()).frames[: messages + 2]
    log = data / "logs" / f"{name}.p2plog"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_bytes(LOG_MAGIC + b"".join(frames))
    gid = host.session.game_id
    assert gid is not None
    ResumeFile(path_for(log), gid, "host", bind="127.0.0.1", port=0,
               secrets={d: Script("host").secret(d) for d in (1, 2)}).save()
    return log


def test_a_restarted_host_whose_guest_never_comes_back_signs_nothing_and_keeps_the_match(
        data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = _match_log(data, 30)
    before = verify_log(log.read_bytes())
    assert before.status == "unfinished" and before.waiting is not None
    torn = log.read_bytes() + b"\x00\x00\x01\x20partial"  # a frame cut short by the crash
    log.write_bytes(torn)
    status = main(["resume", str(log), "--headless", "--ai", "random", "--reconnect-wait", "2"])
    out, err = capsys.readouterr()
    assert status == 4
    assert "the log ended with 11 bytes of an unfinished frame; cut them off" in out
    assert "listening again on port" in out and "waiting for guest to come back for up to 2 s" in out
    assert "did not come back within 2 s" in err
    assert err.splitlines()[0].startswith("p2ptrumps resume: ")  # one voice: the command is named
    after = verify_log(log.read_bytes())
    assert after.status == "unfinished" and after.truncated_bytes == 0
    assert after.messages >= before.messages
    # Restarted, the host never heard what the guest holds: it signs nothing, not even an abandonment --
    # its log might have lost messages the guest holds (wire.md §14.2 step 5); the match stays resumable.
    assert "abandoned" not in err and after.abandonments == [] and after.messages == before.messages
    assert "; nothing signed: after a restart nothing is signed before the peer has shown what it holds" in err
    assert path_for(log).exists()  # still unfinished: still resumable


def test_resume_refuses_what_it_cannot_take_up(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = _match_log(data, 20)
    missing = data / "logs" / "nope.p2plog"
    assert main(["resume", str(missing), "--headless"]) == 1
    assert capsys.readouterr().err == f"p2ptrumps resume: no such match log: {missing}\n"
    # A device or a pipe is refused before a byte is read (it used to read /dev/zero without end).
    fifo = data / "a-pipe.p2plog"
    os.mkfifo(fifo)
    for odd, kind in (("/dev/zero", "not a regular file (a pipe, device or socket)"),
                      (str(fifo), "not a regular file (a pipe, device or socket)"),
                      (str(data / "logs"), "a directory")):
        assert main(["resume", odd, "--headless"]) == 1
        assert capsys.readouterr().err == f"p2ptrumps resume: {odd} is {kind}: give the path of a saved file\n"

    # Another process is writing it (it holds the log's lock while the match runs).
    holder = MatchLogFile.reopen(log, log.stat().st_size)
    try:
        assert main(["resume", str(log), "--headless"]) == 1
        assert "another p2ptrumps process is writing this match log" in capsys.readouterr().err
    finally:
        holder.close()

    # No LOG and no terminal to ask (pytest's stdin is not one): name the newest.
    assert main(["resume", "--headless"]) == 2
    assert capsys.readouterr().err == (f"p2ptrumps resume: no LOG given and no terminal to ask; the newest "
                                       f"unfinished match is {log}\n")

    # The resume file is readable by others: refused (it holds deal secrets).
    os.chmod(path_for(log), 0o644)
    assert main(["resume", str(log), "--headless"]) == 1
    assert "may be read by others (mode 644)" in capsys.readouterr().err
    os.chmod(path_for(log), 0o600)

    # A complete match whose resume file is gone (its end was acknowledged): nothing to resume.
    whole = _match_log(data, 10_000, "2026-11-30_1100_host_vs-guest")
    path_for(whole).unlink()
    assert main(["resume", str(whole), "--headless"]) == 1
    assert capsys.readouterr().err.endswith("the match is complete; there is nothing to resume\n")

    # Without its resume file the match cannot be taken up.
    path_for(log).unlink()
    assert main(["resume", str(log), "--headless"]) == 1
    assert "no resume file" in capsys.readouterr().err


def test_nothing_to_resume_is_said_before_the_table_asks_for_a_terminal(data: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """``resume LOG </dev/null`` (no --headless; pytest's stdin is no terminal) said "the table needs a
    terminal" (status 2) even for a complete log, where the README says 1, nothing to resume."""
    whole = _match_log(data, 10_000, "2026-11-30_1100_host_vs-guest")
    path_for(whole).unlink()
    assert main(["resume", str(whole)]) == 1
    assert capsys.readouterr().err == (f"p2ptrumps resume: {whole}: the match is complete; there is nothing to "
                                       "resume\n")
    missing = data / "logs" / "nope.p2plog"
    assert main(["resume", str(missing)]) == 1
    assert capsys.readouterr().err == f"p2ptrumps resume: no such match log: {missing}\n"
    # Something to resume, but no terminal for the table: 2, and the log is as it was.
    log = _match_log(data, 20)
    before = log.read_bytes() + b"\x00\x00\x01\x20partial"
    log.write_bytes(before)
    assert main(["resume", str(log)]) == 2
    assert capsys.readouterr().err == ("p2ptrumps resume: the table needs a terminal: stdin is not a tty (add "
                                       "--headless, with --ai LEVEL to let the AI play)\n")
    assert log.read_bytes() == before and path_for(log).exists()


def test_resume_refuses_a_log_written_with_another_key(data: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    log = _match_log(data, 20)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "other"))
    keystore.load_or_create_key(keystore.data_dir())
    assert main(["resume", str(log), "--headless"]) == 1
    err = capsys.readouterr().err
    assert "cannot be resumed: the log was written with another identity key than ours" in err
    assert "was the match played with another XDG_DATA_HOME?" in err


def test_the_resume_question_speaks_the_players_words(data: Path) -> None:
    """Where the match stopped, without message numbers, message kinds or seats."""
    from p2ptrumps.net import resume

    log = _match_log(data, 30)
    v = verify_log(log.read_bytes())
    assert v.status == "unfinished" and v.waiting is not None and v.rules is not None
    text = resume.describe(log)
    assert text is not None
    assert v.waiting is not None and v.waiting[1] == "move" and len(v.deals) == 1 and v.rules.deals == 2
    whose = "your move" if v.waiting[0] == 0 else "guest's move"  # the deal depends on the host's new key
    assert text == f"your match with guest (you were the host): stopped in deal 1 of 2 (you 0 : 0 guest), {whose}"


def test_a_second_resume_of_one_match_stops_before_it_touches_its_log(data: Path) -> None:
    """files.md "Resuming": two copies of one log (another name, one match, one seat) resumed from one data
    directory: the second stops at once, naming another copy of this side, and leaves its copy as it was;
    once the first lets the match go, the copy can be taken up."""
    from p2ptrumps.net import config, resume
    from p2ptrumps.wire.chain import OTHER_COPY

    log = _match_log(data, 20)
    twin = log.with_name("twin.p2plog")
    twin.write_bytes(log.read_bytes() + b"\x00\x00")  # an unfinished frame at the end: a resume would cut it
    path_for(twin).write_bytes(path_for(log).read_bytes())
    os.chmod(path_for(twin), 0o600)
    ident, _ = keystore.load_or_create_key(data)
    cfg = config.NetConfig(role="host", identity=ident, name="host", data=data)
    first = resume.load(cfg, log)
    try:
        with pytest.raises(config.NetplayError) as info:
            resume.load(cfg, twin)
        gid = first.session.game_id
        assert gid is not None
        held = data / "resuming" / f"{gid.hex()}-host"
        # the other copy's log is named (the lock holds its path, files.md: a hint), not only the lock
        assert (info.value.status, str(info.value)) == (1, (
            f"stopped: {OTHER_COPY}: another p2ptrumps process plays this match with the log {log} and holds {held}; "
            f"{twin} is left as it was"))
        assert held.read_bytes() == os.fsencode(log.absolute())
        assert twin.read_bytes() == log.read_bytes() + b"\x00\x00"
        with pytest.raises(config.NetplayError, match="another p2ptrumps process plays this match"):
            resume.load(cfg, log)  # the same log a second time: the lock of the match comes first
    finally:
        first.log.close()
    assert held.read_bytes() == b""  # let go: no stale path left
    second = resume.load(cfg, twin)
    assert held.read_bytes() == os.fsencode(twin.absolute())
    second.log.close()
    assert twin.read_bytes() == log.read_bytes()  # cut to its whole frames when it was taken up
    assert sorted(p.name for p in (data / "resuming").iterdir()) == [held.name]


def test_the_path_in_the_lock_of_a_match_is_a_hint_only(tmp_path: Path) -> None:
    """files.md "Resuming": what the lock holds is named at most, escaped; anything but one line of at most
    4096 bytes is no hint (the line then says "with this log or a copy of it")."""
    from p2ptrumps.net.matchlock import resumed_from

    lock = tmp_path / "lock"
    assert resumed_from(lock) == ""  # missing
    for content, shown in [(b"", ""), (b"/d/m.p2plog", "/d/m.p2plog"), ("/d/игра.p2plog".encode(), "/d/игра.p2plog"),
                           (b"/d/\x1b[2Jm.p2plog", "'/d/\\x1b[2Jm.p2plog'"), (b"/d/a\n/d/b", ""),
                           (b"/" * 4097, ""), (b"/d/\xff.p2plog", "/d/\ufffd.p2plog")]:
        lock.write_bytes(content)
        assert resumed_from(lock) == shown, content


def test_resume_of_a_running_match_without_a_terminal_says_so_before_asking_for_one(
        data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``resume LOG </dev/null`` of a match a running process plays -- its log held, or the lock of
    the match held by a resume of a copy -- said "the table needs a terminal" (status 2); the README
    lists both as nothing to resume (status 1), said first whatever stdin is.  Nothing is changed."""
    from p2ptrumps.net import matchlock
    from p2ptrumps.net.config import NetConfig
    from p2ptrumps.system import locks

    log = _match_log(data, 20)
    before = log.read_bytes()
    fd = os.open(log, os.O_RDWR)
    held = locks.lock_fd(fd, log)  # as a running match holds its log (another open file: flock refuses us)
    try:
        assert main(["resume", str(log)]) == 1
        assert capsys.readouterr().err == (f"p2ptrumps resume: {log}: another p2ptrumps process is writing this "
                                           "match log (the match is running there)\n")
    finally:
        held.release()
        os.close(fd)
    copy = data / "elsewhere" / log.name
    copy.parent.mkdir()
    copy.write_bytes(before)
    path_for(copy).write_bytes(path_for(log).read_bytes())
    os.chmod(path_for(copy), 0o600)
    rf = ResumeFile.load(path_for(log))
    cfg = NetConfig(role="host", identity=keystore.load_or_create_key(data)[0], name="-", data=data)
    match_lock = matchlock.hold_match(cfg, rf.game_id, "host", log)  # the first resume, from the log
    try:
        assert main(["resume", str(copy)]) == 1
        lock = data / "resuming" / f"{rf.game_id.hex()}-host"
        assert capsys.readouterr().err == (
            "p2ptrumps resume: stopped: another copy of this side is running (the same match resumed twice, or two "
            f"processes sharing one identity key): another p2ptrumps process plays this match with the log {log} and "
            f"holds {lock}; {copy} is left as it was\n")
    finally:
        match_lock.release()
    assert (log.read_bytes(), copy.read_bytes()) == (before, before)
    assert main(["resume", str(copy)]) == 2  # nobody plays it now: only the terminal is missing
    assert "the table needs a terminal" in capsys.readouterr().err


def test_ctrl_c_at_the_resume_question_ends_its_line(data: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C at "resume it? [y/N]" left the shell's prompt on the question's line: now the line ends
    first, the run says it was interrupted (status 130) and nothing is touched."""
    log = _match_log(data, 30)
    before = log.read_bytes()

    def ctrl_c(prompt: str = "") -> str:
        print(prompt, end="")
        raise KeyboardInterrupt

    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("builtins.input", ctrl_c)
    assert main(["resume"]) == 130
    out, err = capsys.readouterr()
    assert out.endswith("resume it? [y/N] ") and err == "\np2ptrumps resume: interrupted\n"
    assert log.read_bytes() == before and path_for(log).exists()
