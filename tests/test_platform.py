"""The platform-specific code (p2ptrumps/system/) and each failure it was written for, as a
test.  Faults the kernel here cannot produce are made by stand-ins (monkeypatching one call:
``flock`` failing with ENOLCK as on NFS without lockd, ``link`` with EPERM as on exFAT, a socket
family missing as with ``ipv6.disable=1``, ``msvcrt`` for the Windows lock); a full disk is a small
tmpfs, mounted and unmounted here when root (a skip line otherwise)."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import types
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio

from p2ptrumps.net import keystore, logfile
from p2ptrumps.net.testing import peer_command, peer_env
from p2ptrumps.system import keyfile, locks, signals
from p2ptrumps.ui.terminal import Termination
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.verify import verify_log

SEED = bytes(range(32))


# ----- signals ------------------------------------------------------------------------------


def test_the_leaving_signals_of_each_platform() -> None:
    posix = types.SimpleNamespace(SIGTERM=signal.SIGTERM, SIGHUP=signal.SIGHUP)
    windows = types.SimpleNamespace(SIGTERM=signal.SIGTERM, SIGBREAK=signal.SIGUSR1)  # a stand-in number
    assert signals.terminating_signals(posix) == (signal.SIGTERM, signal.SIGHUP)
    assert signals.terminating_signals(windows) == (signal.SIGTERM, signal.SIGUSR1)
    assert signals.LEAVING_SIGNALS == (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    assert (signals.hangup_signal(), signals.exit_status(signal.SIGTERM)) == (signal.SIGHUP, 143)


def test_the_commands_import_where_there_is_no_sighup() -> None:
    """Windows has no SIGHUP: it was read at import time by net/commands.py and ui/replay.py."""
    code = ("import signal; del signal.SIGHUP; signal.Signals._member_map_.pop('SIGHUP')\n"
            "import p2ptrumps.net.commands as c, p2ptrumps.ui.replay, p2ptrumps.ui.terminal as t\n"
            "print([s.name for s in c.LEAVING_SIGNALS], [s.name for s in t.TERMINATING_SIGNALS])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (out.returncode, out.stdout, out.stderr) == (0, "['SIGINT', 'SIGTERM'] ['SIGTERM']\n", "")


def test_termination_without_add_signal_handler() -> None:
    """Asyncio's loops on Windows have no add_signal_handler: the handlers go through signal.signal."""
    got: list[str] = []
    found = signal.getsignal(signal.SIGUSR1)

    async def run() -> Termination:
        loop = asyncio.get_running_loop()

        def refuse(*args: object) -> None:
            raise NotImplementedError

        loop.add_signal_handler = refuse  # type: ignore[method-assign]
        with Termination(lambda: got.append("left"), (signal.SIGUSR1,)) as term:
            assert signal.getsignal(signal.SIGUSR1) not in (signal.SIG_DFL, signal.SIG_IGN, None)
            os.kill(os.getpid(), signal.SIGUSR1)
            for _ in range(100):
                if got:
                    break
                await asyncio.sleep(0.01)
        return term

    term = asyncio.run(run())
    assert (got, term.signal, term.exit_status) == (["left"], signal.SIGUSR1, 128 + signal.SIGUSR1)
    assert signal.getsignal(signal.SIGUSR1) == found  # handed back as found


# ----- locks ----------------------------------------------------------------------------------


def _no_flock(monkeypatch: pytest.MonkeyPatch) -> None:
    """NFS without lockd: flock fails with ENOLCK."""
    import fcntl

    def flock(fd: int, op: int) -> None:
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", flock)


def test_a_log_on_a_file_system_without_locks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Report: `join` said another process was writing a log it had just created, and left an empty log."""
    _no_flock(monkeypatch)
    path = tmp_path / "m.p2plog"
    log = logfile.MatchLogFile(path)
    log.append(b"p2ptrumps-log/1\n")
    lock = locks.lock_path(path)
    assert lock.read_text().split()[:2] == ["p2ptrumps-lock", str(os.getpid())]
    assert logfile.is_busy(path)
    with pytest.raises(logfile.LogBusyError) as info:
        logfile.MatchLogFile.reopen(path, 16)
    assert str(info.value) == (f"another p2ptrumps process is writing this match log (the match is running there); "
                               f"process {os.getpid()} on {socket.gethostname()} holds the lock file {lock} "
                               "(remove it if no p2ptrumps process runs there)")
    log.close()
    assert (lock.exists(), logfile.is_busy(path), path.read_bytes()) == (False, False, b"p2ptrumps-log/1\n")
    again = logfile.MatchLogFile.reopen(path, 16)  # resume takes it
    again.append(b"x")
    again.close()
    assert path.read_bytes() == b"p2ptrumps-log/1\nx"


def test_a_stale_lock_file_is_taken_over_and_another_hosts_is_not(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    _no_flock(monkeypatch)
    path = tmp_path / "m.p2plog"
    path.write_bytes(b"p2ptrumps-log/1\n")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          timeout=30)
    lock = locks.lock_path(path)
    lock.write_text(f"p2ptrumps-lock {int(dead.stdout)} {socket.gethostname()}\n")  # killed -9 meanwhile
    assert not logfile.is_busy(path)
    log = logfile.MatchLogFile.reopen(path, 16)
    assert lock.read_text().split()[1] == str(os.getpid())
    log.close()
    lock.write_text(f"p2ptrumps-lock {int(dead.stdout)} platform-elsewhere\n")  # another host: may still run
    assert logfile.is_busy(path)
    with pytest.raises(logfile.LogBusyError, match="on platform-elsewhere holds the lock file"):
        logfile.MatchLogFile.reopen(path, 16)


class FakeMsvcrt:
    """A stand-in for Windows' msvcrt: byte locks per (file, position), refused when another descriptor holds one."""

    LK_UNLCK, LK_NBLCK = 0, 2

    def __init__(self) -> None:
        self.held: dict[tuple[int, int], int] = {}
        self.calls: list[tuple[int, int, int]] = []

    def locking(self, fd: int, mode: int, nbytes: int) -> None:
        where = (os.fstat(fd).st_ino, os.lseek(fd, 0, os.SEEK_CUR))
        self.calls.append((mode, where[1], nbytes))
        if mode == self.LK_NBLCK:
            if self.held.get(where, fd) != fd:
                raise PermissionError(errno.EACCES, "Permission denied")
            self.held[where] = fd
        else:
            self.held.pop(where, None)


def test_the_windows_byte_lock(tmp_path: Path) -> None:
    path = tmp_path / "m.p2plog"
    path.write_bytes(b"0123456789")
    ms = FakeMsvcrt()
    a, b = os.open(path, os.O_RDWR), os.open(path, os.O_RDONLY)
    try:
        os.lseek(a, 10, os.SEEK_SET)
        held = locks.lock_msvcrt(a, ms)
        assert (os.lseek(a, 0, os.SEEK_CUR), held.kind) == (10, "msvcrt")  # the position is kept
        with pytest.raises(locks.LockBusy):
            locks.lock_msvcrt(b, ms)
        held.release()
        locks.lock_msvcrt(b, ms).release()
    finally:
        os.close(a)
        os.close(b)
    off = locks.MSVCRT_OFFSET
    assert ms.calls == [(2, off, 1), (2, off, 1), (0, off, 1), (2, off, 1), (0, off, 1)]


def test_hold_waits_then_refuses(tmp_path: Path) -> None:
    path = tmp_path / "known_peers.json"
    with locks.hold(path):
        other = subprocess.run(
            [sys.executable, "-c", "import sys; from pathlib import Path; from p2ptrumps.system import locks\n"
             "try:\n with locks.hold(Path(sys.argv[1]), 0.2): print('got it')\n"
             "except locks.LockBusy: print('busy')", str(path)], capture_output=True, text=True, timeout=60)
        assert other.stdout == "busy\n"


def test_the_macos_full_sync_and_its_fallback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from p2ptrumps.system import dirsync

    calls: list[str] = []
    monkeypatch.setattr(os, "fsync", lambda fd: calls.append("fsync"))

    class Fcntl:
        F_FULLFSYNC = 51

        def __init__(self, refuse: bool) -> None:
            self.refuse = refuse

        def fcntl(self, fd: int, op: int) -> None:
            calls.append(f"fcntl {op}")
            if self.refuse:
                raise OSError(errno.ENOTTY, "Inappropriate ioctl for device")

    dirsync.full_sync(3, Fcntl(False))
    dirsync.full_sync(3, Fcntl(True))
    assert calls == ["fcntl 51", "fcntl 51", "fsync"]


# ----- the match log on a full disk ----------------------------------------------------------


def test_a_failed_write_leaves_whole_frames_and_a_quiet_close(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Report: the side that hit ENOSPC died with a raw traceback (close() flushing again)."""
    log = logfile.MatchLogFile(tmp_path / "m.p2plog")
    log.append(b"A" * 100)
    real_write = os.write

    def full(fd: int, data: Any) -> int:  # half the bytes go in, then the disk is full
        if len(data) > 10:
            return real_write(fd, bytes(data[:10]))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(OSError) as info:
        log.append(b"B" * 50)
    assert info.value.errno == errno.ENOSPC
    monkeypatch.undo()
    assert ((tmp_path / "m.p2plog").read_bytes(), log.bytes_written) == (b"A" * 100, 100)
    log.close()  # nothing held back: no second failure
    log.close()


def test_a_resume_file_that_cannot_take_a_secret_moves_with_its_log(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """files.md, a disk that fails mid-match: the deal secret cannot be written before our commitment
    (the resume file's disk is full): the resume file, the secret in it, and the log move to the temporary
    directory, the old ones go, the user is told, and the log takes the next frame there."""
    import tempfile
    from datetime import datetime

    from p2ptrumps.net import config
    from p2ptrumps.net.resumefile import ResumeFile, path_for
    from p2ptrumps.net.steps import MatchSteps

    logs, spare = tmp_path / "logs", tmp_path / "spare"
    logs.mkdir()
    spare.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spare))
    log = logfile.MatchLogFile(logs / "m.p2plog")
    log.append(b"A" * 100)
    resume = ResumeFile(path_for(log.path), bytes([1]) * 32, "guest", address="127.0.0.1:1")
    resume.save()
    told: list[str] = []
    cfg = config.NetConfig(role="guest", identity=Identity.from_seed(bytes(32)), name="t", data=tmp_path,
                           hooks=config.SeatHooks(on_log_moved=lambda old, new, line: told.append(line)))
    steps = MatchSteps(cfg, None, log, config.NetResult(None, 1), datetime.now(), 0, "", None,  # type: ignore[arg-type]
                       None, None, resume=resume)
    real_save = ResumeFile.save

    def save(self: ResumeFile) -> None:
        if self.path.parent == logs:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_save(self)

    monkeypatch.setattr(ResumeFile, "save", save)
    steps.add_secret(1, bytes([2]) * 32)
    assert told == [f"cannot write the match log {logs / 'm.p2plog'}: No space left on device; it is saved to "
                    f"{spare / 'm.p2plog'} instead, and the match goes on"]
    assert ResumeFile.load(spare / "m.p2plog.resume").secrets == {1: bytes([2]) * 32}
    assert list(logs.iterdir()) == []
    log.append(b"B" * 10)
    log.close()
    assert (spare / "m.p2plog").read_bytes() == b"A" * 100 + b"B" * 10


# ----- the identity key and the known peers --------------------------------------------------


def test_a_key_on_a_file_system_without_hard_links(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Report: on exFAT the identity key could never be created."""
    def no_link(src: object, dst: object) -> None:
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_link)
    ident, created = keystore.load_or_create_key(tmp_path, SEED)
    assert (created, ident.fingerprint) == (True, Identity.from_seed(SEED).fingerprint)
    assert (tmp_path / keystore.KEY_FILE).stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == [keystore.KEY_FILE]  # no temporary left
    again, created = keystore.load_or_create_key(tmp_path, bytes(32))  # never replaced
    assert (created, again.fingerprint) == (False, ident.fingerprint)


def test_publishing_without_links_never_replaces(tmp_path: Path) -> None:
    tmp, path = tmp_path / "new", tmp_path / "key"
    tmp.write_bytes(b"second")
    path.write_bytes(b"first")
    assert keyfile.publish_without_link(tmp, path) is False
    assert (path.read_bytes(), tmp.exists()) == (b"first", True)


def test_an_interrupted_key_placeholder_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / keystore.KEY_FILE).touch(mode=0o600)
    monkeypatch.setattr(keystore, "KEY_PUBLISH_WAIT_S", 0.1)
    with pytest.raises(keystore.KeyStoreError) as info:
        keystore.load_or_create_key(tmp_path)
    assert str(info.value) == (f"key file {tmp_path / keystore.KEY_FILE} is empty: creating it was interrupted. "
                               "Remove it and run again to create a new key")


FP_A = Identity.from_seed(bytes([1] * 32)).fingerprint
FP_B = Identity.from_seed(bytes([2] * 32)).fingerprint


def test_two_processes_never_lose_a_pin(tmp_path: Path) -> None:
    """Report: known_peers.json was read before the key question and written whole after it."""
    first = keystore.KnownPeers.open(tmp_path)  # read, then the question is asked ...
    keystore.KnownPeers.open(tmp_path).add(FP_A, "alice", "a:1")  # ... while another join pins alice
    first.add(FP_B, "bob", "b:1")
    assert [p.name for p in keystore.KnownPeers.open(tmp_path).peers] == ["alice", "bob"]
    stale = keystore.KnownPeers.open(tmp_path)
    keystore.KnownPeers.open(tmp_path).forget("alice")  # `id --forget` meanwhile
    stale.add(FP_B, "bob", "b:2")
    assert [(p.name, p.address) for p in keystore.KnownPeers.open(tmp_path).peers] == [("bob", "b:1"),
                                                                                         ("bob", "b:2")]


def test_pins_under_no_flock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_flock(monkeypatch)
    keystore.KnownPeers.open(tmp_path).add(FP_A, "alice", "a:1")
    assert [p.name for p in keystore.KnownPeers.open(tmp_path).peers] == ["alice"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [keystore.KNOWN_PEERS_FILE]  # the lock file released


def test_a_deeply_nested_known_peers_file(tmp_path: Path) -> None:
    """Report: a RecursionError traceback."""
    (tmp_path / keystore.KNOWN_PEERS_FILE).write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(keystore.KeyStoreError) as info:
        keystore.KnownPeers.open(tmp_path)
    assert str(info.value) == (f"known peers file {tmp_path / keystore.KNOWN_PEERS_FILE} is malformed (nested too "
                               "deeply); fix or remove it by hand")


# ----- start-up: every local fault before a guest is admitted --------------------------------


@contextlib.contextmanager
def mounted_tmpfs(where: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` at ``where`` (created), unmounted after; a skip line without root."""
    if os.geteuid() != 0:
        pytest.skip("a full or read-only disk is a small tmpfs, and mounting one needs root")
    where.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "platform-tmpfs", str(where)],
                          capture_output=True, text=True, timeout=30)
    if done.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, timeout=30)


def _run(args: list[str], home: Path, timeout_s: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(peer_command(*args), capture_output=True, text=True, timeout=timeout_s, env=peer_env(home))


HOST = ["host", "--headless", "--ai", "random", "--bind", "127.0.0.1", "--port", "0"]
#: Random play may run a deal to the default 1000 turns (a minute at --think 0.05): these tests are not about that.
BOUNDED = ["--turn-limit", "120"]


def test_a_damaged_known_peers_file_stops_the_host_before_it_listens(tmp_path: Path) -> None:
    """Report: found only after the first guest agreed (the wait and that guest's match lost)."""
    data = tmp_path / "p2ptrumps"
    data.mkdir()
    (data / keystore.KNOWN_PEERS_FILE).write_text("{not json")
    done = _run(HOST, tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith(f"p2ptrumps host: known peers file {data / keystore.KNOWN_PEERS_FILE} is "
                                  "malformed (Expecting property name")
    assert (len(done.stderr.splitlines()), done.stdout) == (1, "")  # one line, never listened


def test_a_read_only_data_directory_stops_the_host_before_it_listens(tmp_path: Path) -> None:
    with mounted_tmpfs(tmp_path / "ro", "1m") as home:
        assert _run(["id"], home).returncode == 0  # the key exists
        subprocess.run(["mount", "-o", "remount,ro", str(home)], check=True, timeout=30)
        done = _run(HOST, home)
    assert done.returncode == 1
    assert done.stderr == (f"p2ptrumps host: cannot write in the data directory {home / 'p2ptrumps'}: Read-only "
                           "file system (make it writable, or set XDG_DATA_HOME)\n")


@pytest.mark.parametrize("command", [HOST, ["join", "127.0.0.1:1", "--headless", "--ai", "random"]])
def test_a_log_name_too_long_for_its_resume_file(tmp_path: Path, command: list[str]) -> None:
    """Report: a 247-character --log was accepted; after the guest agreed the host died (.resume too long)."""
    name = "x" * 240 + ".p2plog"
    done = _run([*command, "--log", str(tmp_path / name)], tmp_path)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.splitlines()[-1] == (f"p2ptrumps {command[0]}: log file name {name!r} is too long: with the "
                                            "resume file beside it it needs 267 bytes, and this file system takes 255 "
                                            "(choose a shorter --log)")


def test_too_little_free_space_for_a_log(tmp_path: Path) -> None:
    with mounted_tmpfs(tmp_path / "small", "256k") as small:
        done = _run([*HOST, "--log", str(small / "m.p2plog")], tmp_path)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.splitlines()[-1].startswith("p2ptrumps host: only ")
    assert done.stderr.endswith(f" KiB free on the disk of {small}: a match log needs up to 1024 KiB (free some "
                                "space, or choose another --log)\n")


def _wait_for(predicate: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} in {timeout_s} s")
        time.sleep(0.02)


@pytest.mark.parametrize("spare", ["on the full disk", "on another disk"])
def test_a_full_disk_mid_match_moves_the_match_or_stops_it_and_resume_finishes(tmp_path: Path, spare: str) -> None:
    """Report: the side that hit ENOSPC died with a raw traceback.  Now the match moves to the temporary
    directory and goes on (files.md: a disk that fails mid-match); where that is on the full disk too, the
    match stops in one line, nothing is lost, and `resume` finishes it."""
    common = ["--headless", "--ai", "random", "--think", "0.05", "--reconnect-wait", "60", "--timeout", "20"]
    with mounted_tmpfs(tmp_path / "disk", "1200k") as disk:
        temporary = disk / "tmp" if spare == "on the full disk" else tmp_path / "spare"
        temporary.mkdir()
        guest_log = disk / "guest.p2plog"
        host_out = tmp_path / "host.out"
        with open(host_out, "wb") as ho:
            host = subprocess.Popen(peer_command(*HOST[:-4], *common, "--bind", "127.0.0.1", "--port", "0",
                                                 "--deals", "3", *BOUNDED, "--log", str(tmp_path / "host.p2plog")),
                                    stdout=ho, stderr=subprocess.STDOUT, env=peer_env(tmp_path / "h"))
        try:
            port: list[int] = []

            def listening() -> bool:
                for line in host_out.read_text(errors="replace").splitlines():
                    if line.startswith("waiting for a guest on port "):
                        port.append(int(line.split()[-2]))
                return bool(port) or host.poll() is not None

            _wait_for(listening, 30, "host")
            guest = subprocess.Popen(peer_command("join", f"127.0.0.1:{port[0]}", *common, "--accept-new", "--log",
                                                  str(guest_log)), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env={**peer_env(tmp_path / "g"), "TMPDIR": str(temporary)})
            _wait_for(lambda: guest_log.exists() and guest_log.stat().st_size > 2000, 30, "guest log")
            guest.send_signal(signal.SIGSTOP)
            with open(disk / "filler", "wb", buffering=0) as filler, contextlib.suppress(OSError):
                for _ in range(2000):
                    filler.write(b"\0" * 4096)
            guest.send_signal(signal.SIGCONT)
            out, err = guest.communicate(timeout=60)
            if spare == "on another disk":
                moved = temporary / guest_log.name
                assert (guest.returncode, host.wait(60)) == (0, 0), err
                assert "Traceback" not in err
                assert (f"note: cannot write the match log {guest_log}: No space left on device; it is saved to "
                        f"{moved} instead, and the match goes on\n") in out
                assert not guest_log.exists() and verify_log(moved.read_bytes()).status == "valid"
                assert verify_log((tmp_path / "host.p2plog").read_bytes()).status == "valid"
                return
            kept = guest_log.read_bytes()
            assert guest.returncode == 1, err
            assert "Traceback" not in err
            assert f"p2ptrumps join: cannot write the match log {guest_log}: No space left on device\n" in err
            assert verify_log(kept).status == "unfinished"  # whole frames, the match so far
            (disk / "filler").unlink()
            resumed = _run(["resume", str(guest_log), *common], tmp_path / "g", timeout_s=120)
            assert resumed.returncode == 0, resumed.stderr
            host.wait(60)
        finally:
            if host.poll() is None:
                host.kill()
                host.wait(10)
        assert host.returncode == 0
        assert verify_log(guest_log.read_bytes()).status == "valid"
        assert guest_log.read_bytes().startswith(kept)
    assert verify_log((tmp_path / "host.p2plog").read_bytes()).status == "valid"


# ----- networks as they are --------------------------------------------------------------------


def _without_ipv6(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel booted with ipv6.disable=1: an AF_INET6 socket cannot be made."""
    real = trio.socket.socket

    def socket_(family: int = socket.AF_INET, *args: Any, **kwargs: Any) -> Any:
        if family == socket.AF_INET6:
            raise OSError(errno.EAFNOSUPPORT, "Address family not supported by protocol")
        return real(family, *args, **kwargs)

    monkeypatch.setattr(trio.socket, "socket", socket_)


async def test_host_without_ipv6_listens_on_ipv4_with_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    """Report: `host` with defaults died with a traceback (EAFNOSUPPORT in the listener set-up)."""
    from p2ptrumps.net.lobby import open_listeners

    _without_ipv6(monkeypatch)
    notes: list[str] = []
    listeners = await open_listeners(None, 0, notes)
    try:
        assert [lst.socket.family for lst in listeners] == [socket.AF_INET]
        assert notes == ["note: not listening on :: (IPv6 is not available here: address family not supported)"]
    finally:
        for lst in listeners:
            await lst.aclose()


async def test_join_without_ipv6_uses_ipv4(monkeypatch: pytest.MonkeyPatch) -> None:
    """Report: `join` to a name with both families died with a traceback instead of using IPv4."""
    from p2ptrumps.net import dial

    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    port = listener.socket.getsockname()[1]

    async def both(host: str, port_: int, **kw: Any) -> list[Any]:
        return [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("::1", port_, 0, 0)),
                (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port_))]

    monkeypatch.setattr(trio.socket, "getaddrinfo", both)
    _without_ipv6(monkeypatch)
    stream = await dial.connect("dual.platform.test", port, 5.0)
    assert stream.socket.getpeername()[:2] == ("127.0.0.1", port)
    await stream.aclose()
    await listener.aclose()


def test_a_scope_id_survives_to_the_connect(monkeypatch: pytest.MonkeyPatch) -> None:
    """Report: join '[fe80::1%eth0]:4816' failed with EINVAL, the zone dropped between resolving and connecting."""
    from p2ptrumps.net import dial
    from p2ptrumps.net.addresses import sockaddr_text

    assert sockaddr_text(("fe80::1", 4816, 0, socket.if_nametoindex("lo"))) == "fe80::1%lo"
    assert (sockaddr_text(("fe80::1", 4816, 0, 0)), sockaddr_text(("10.0.0.1", 1))) == ("fe80::1", "10.0.0.1")
    dialled: list[tuple[Any, ...]] = []

    class Sock:
        def __init__(self, family: int, kind: int) -> None:
            pass

        async def connect(self, address: tuple[Any, ...]) -> None:
            dialled.append(address)
            raise OSError(errno.ECONNREFUSED, "refused")

        def close(self) -> None:
            pass

    monkeypatch.setattr(trio.socket, "socket", Sock)
    with pytest.raises(dial.ConnectError) as info:
        trio.run(dial.connect, "fe80::1%lo", 4816, 2.0)
    assert dialled == [("fe80::1", 4816, 0, socket.if_nametoindex("lo"))]
    assert info.value.message == ("cannot connect to [fe80::1%lo]:4816: connection refused (is the host running? "
                                  "is the port right?)")


@pytest.fixture
def link_local_netns() -> Iterator[str]:
    """A network namespace of this test with a veth pair, fe80::1 on platform0; removed after."""
    if os.geteuid() != 0:
        pytest.skip("a link-local address needs a network namespace, and making one needs root")
    name = f"platform-ll-{os.getpid()}-{os.urandom(2).hex()}"  # never one a killed run left (its pid reused)
    steps = [["ip", "netns", "add", name], ["ip", "-n", name, "link", "set", "lo", "up"],
             ["ip", "-n", name, "link", "add", "platform0", "type", "veth", "peer", "name", "platform1"],
             ["ip", "-n", name, "link", "set", "platform0", "up"], ["ip", "-n", name, "link", "set", "platform1", "up"],
             ["ip", "-n", name, "addr", "add", "fe80::1/64", "dev", "platform0", "nodad"]]
    try:
        for step in steps:
            done = subprocess.run(step, capture_output=True, text=True, timeout=30)
            if done.returncode:
                pytest.skip(f"cannot make a network namespace here: {done.stderr.strip()}")
        yield name
    finally:
        subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=30)


def test_join_a_link_local_address(link_local_netns: str) -> None:
    """The same report, end to end: a real fe80:: address with its zone, inside this test's namespace."""
    code = ("import socket, trio\nfrom p2ptrumps.net.dial import connect\n"
            "async def main():\n"
            "    lst = (await trio.open_tcp_listeners(0, host='::'))[0]\n"
            "    port = lst.socket.getsockname()[1]\n"
            "    s = await connect('fe80::1%platform0', port, 5.0)\n"
            "    print(s.socket.getpeername()[0], s.socket.getpeername()[3] == socket.if_nametoindex('platform0'))\n"
            "trio.run(main)")
    done = subprocess.run(["ip", "netns", "exec", link_local_netns, sys.executable, "-c", code],
                          capture_output=True, text=True, timeout=60)
    assert (done.stdout, done.stderr) == ("fe80::1 True\n", "")


# ----- blame only what is proven ---------------------------------------------------------------


def test_a_message_in_our_seat_signed_by_our_key_names_another_copy_of_us() -> None:
    """Report: two copies of one guest log resumed at once ended with "the peer broke the protocol"
    for a message signed with our own key."""
    from p2ptrumps.events import ProtocolViolation
    from p2ptrumps.rules import RuleSet
    from p2ptrumps.wire.chain import OTHER_COPY
    from p2ptrumps.wire.testing import paused_pair, raw_msg_frame, sent_frames, side_identity

    def fed_back(frame_of: Callable[[Any], bytes]) -> str:
        pair = paused_pair(RuleSet())
        guest = pair.guest
        guest.session.receive_data(frame_of(pair))
        pair.drain(guest)
        found = [e for e in guest.events if isinstance(e, ProtocolViolation)]
        assert [e.code for e in found] == ["malformed"]
        return found[0].reason

    def by_the_other_copy(pair: Any) -> bytes:  # the same key, a message this process never signed
        chain = pair.guest.session.chain
        return raw_msg_frame(side_identity("guest"), chain.game_id, 1, len(chain), chain.head, "chat", ["hi"])

    reason = fed_back(by_the_other_copy)
    assert reason.endswith(f"in our own seat (guest) is signed by our own key, but this side never signed it: "
                           f"{OTHER_COPY}")
    echoed = fed_back(lambda pair: sent_frames(pair.guest)[-1])  # our own message sent back: the peer's doing
    assert echoed.endswith("claims to come from our own seat (guest)")


def test_one_guest_log_resumed_twice_names_the_other_copy(tmp_path: Path) -> None:
    """The same report end to end, at several cut points of one match: the guest is killed, its log and
    resume file copied, both copies resumed at once.  One takes the match up; the other stops at once
    naming another copy of itself (the lock of the match, protocol/files.md "Resuming"), never the peer,
    its log left as it was.  Then the one that plays is killed in turn, and so on; the last one finishes,
    and its log and the host's are one valid match."""
    from p2ptrumps.wire.chain import OTHER_COPY
    from p2ptrumps.wire.verify import check_log, verify_pair

    # "normal" thinks its 0.05 s a move (random chooses at once): the match outlasts a copy's start-up
    common = ["--headless", "--ai", "normal", "--think", "0.05", "--reconnect-wait", "60", "--timeout", "20"]
    host_out = tmp_path / "host.out"
    with open(host_out, "wb") as ho:
        host = subprocess.Popen(peer_command("host", *common, "--bind", "127.0.0.1", "--port", "0", "--deals", "2",
                                             "--turn-limit", "120", "--log", str(tmp_path / "host.p2plog")),
                                stdout=ho, stderr=subprocess.STDOUT, env=peer_env(tmp_path / "h"))
    running: list[subprocess.Popen[bytes]] = []
    try:
        port: list[int] = []

        def listening() -> bool:
            port.extend(int(line.split()[-2]) for line in host_out.read_text(errors="replace").splitlines()
                        if line.startswith("waiting for a guest on port "))
            return bool(port) or host.poll() is not None

        _wait_for(listening, 30, "host")
        log = tmp_path / "guest.p2plog"
        errs: dict[subprocess.Popen[bytes], Path] = {}

        def spawn(*args: str) -> subprocess.Popen[bytes]:  # its stderr in a file of its own
            errs_path = tmp_path / f"err{len(errs)}.txt"
            with open(errs_path, "wb") as err_file:
                proc = subprocess.Popen(peer_command(*args), stdout=subprocess.DEVNULL, stderr=err_file,
                                        env=peer_env(tmp_path / "g"))
            errs[proc] = errs_path
            running.append(proc)
            return proc

        guest = spawn("join", f"127.0.0.1:{port[0]}", *common, "--accept-new", "--log", str(log))
        cuts = 0
        for cut in range(1, 5):  # each cut: kill -9 the side that plays, resume two copies of its log at once
            size = log.stat().st_size if log.exists() else 0
            _wait_for(partial(_grown_or_ended, guest, log, size + 1500), 60, f"guest log growing past cut {cut}")
            if guest.poll() is not None:
                break  # the match ended before this cut
            guest.kill()
            guest.wait(10)
            cuts += 1
            twin = tmp_path / f"twin{cut}.p2plog"
            before = log.read_bytes()
            twin.write_bytes(before)
            shutil.copy2(f"{log}.resume", f"{twin}.resume")  # mode 0600 kept
            copies = [spawn("resume", str(p), *common) for p in (log, twin)]
            # One stops at once; the other plays on (it may even finish the match first, near its end).
            with contextlib.suppress(AssertionError):
                _wait_for(partial(_one_stopped, copies), 60, f"a copy stopping at cut {cut}")
            stopped = [c for c in copies if c.poll() == 1]
            assert len(stopped) == 1, [(c.poll(), errs[c].read_text()) for c in copies]
            err = errs[stopped[0]].read_text()
            lost = log if stopped[0] is copies[0] else twin
            playing = twin if lost == log else log
            assert stopped[0].returncode == 1, err
            # the other copy's log is named (files.md: the lock holds its path once taken; in the instant
            # between taking the lock and writing it, the line says "with this log or a copy of it")
            assert any(err.startswith(f"p2ptrumps resume: stopped: {OTHER_COPY}: another p2ptrumps process plays "
                                      f"this match {where} and holds ")
                       for where in (f"with the log {playing}", "(with this log or a copy of it)")), err
            assert err.endswith(f"; {lost} is left as it was\n") and "the peer" not in err, err
            assert lost.read_bytes() == before
            guest = copies[1] if stopped[0] is copies[0] else copies[0]
            log = twin if guest is copies[1] else log
        assert cuts >= 1
        assert guest.wait(120) == 0, errs[guest].read_text()
        assert host.wait(30) == 0
    finally:
        for p in (host, *running):
            if p.poll() is None:
                p.kill()
                p.wait(10)
    pair = verify_pair(check_log((tmp_path / "host.p2plog").read_bytes()), check_log(log.read_bytes()))
    assert (pair.status, pair.relation) == ("valid", "same"), pair.reason


def _grown_or_ended(proc: subprocess.Popen[bytes], log: Path, size: int) -> bool:
    return proc.poll() is not None or (log.exists() and log.stat().st_size > size)


def _one_stopped(copies: list[subprocess.Popen[bytes]]) -> bool:
    return any(c.poll() == 1 for c in copies) or all(c.poll() is not None for c in copies)


def test_a_log_that_cannot_be_created_leaves_no_resume_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Report: `join` left an empty log and a .resume that `resume` could not read."""
    from datetime import datetime

    from p2ptrumps.net.config import NetConfig, NetplayError
    from p2ptrumps.net.resumefile import path_for

    def refused(fd: int, path: Path) -> locks.Lock:
        raise OSError(errno.EIO, "Input/output error")

    cfg = NetConfig(role="guest", identity=Identity.from_seed(SEED), name="g", data=tmp_path,
                    log_path=tmp_path / "m.p2plog")
    log = logfile.MatchLogFile(tmp_path / "m.p2plog", defer=True)
    log.append(b"p2ptrumps-log/1\n")
    monkeypatch.setattr(locks, "lock_fd", refused)
    with pytest.raises(NetplayError) as info:
        logfile.create_log(cfg, log, datetime(2026, 1, 1), 0, "host",
                           before=lambda path: path_for(path).write_text("{}"))
    assert str(info.value) == f"cannot create log file {tmp_path / 'm.p2plog'}: Input/output error"
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_an_unused_path_skips_names_whose_companion_file_exists(tmp_path: Path) -> None:
    """files.unused_path: ``-2``, ``-3`` ... past a taken name; with ``also`` a name whose companion (a log's
    resume file) exists is taken too -- where a moved log goes (protocol/files.md, a disk that fails)."""
    from p2ptrumps.files import unused_path
    from p2ptrumps.net.resumefile import path_for

    assert unused_path(tmp_path, "m", ".p2plog") == tmp_path / "m.p2plog"
    (tmp_path / "m.p2plog").write_bytes(b"")
    assert unused_path(tmp_path, "m", ".p2plog") == tmp_path / "m-2.p2plog"
    path_for(tmp_path / "m-2.p2plog").write_bytes(b"")
    assert unused_path(tmp_path, "m", ".p2plog") == tmp_path / "m-2.p2plog"
    assert unused_path(tmp_path, "m", ".p2plog", also=path_for) == tmp_path / "m-3.p2plog"
