"""One writer per file: an exclusive lock that another process can test, on any file system.

Tried in order (:func:`lock_fd`):

1. POSIX: ``flock`` (released by the kernel when the process ends, also by ``kill -9``).
   Windows: an ``msvcrt`` byte lock on one byte at :data:`MSVCRT_OFFSET`, far past the end of any
   file we lock, so that readers of the file are never refused (Windows byte locks are
   mandatory); Windows releases it when the process ends.
2. Where the file system has no locks (``flock`` fails with ENOLCK, EOPNOTSUPP, ENOSYS or
   EINVAL: NFS without lockd, some CIFS and FUSE mounts), a **lock file** beside it,
   ``NAME.lock``, created with ``O_EXCL`` and holding ``p2ptrumps-lock PID HOST``.  It is
   removed on release.  One left by a process that died (same host, no such process) is
   stale and taken over; one from another host, or on Windows from a process that may still
   run, is respected, and the message names it so that the user can remove it.

Both keep the one guarantee callers need: while one process holds the lock, another one's
:func:`lock_fd` raises :class:`LockBusy` and :func:`is_locked` says True.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..message import N_

#: errno values meaning "this file system cannot lock", not "someone holds it".
UNSUPPORTED = frozenset(e for e in (errno.ENOLCK, errno.EOPNOTSUPP, getattr(errno, "ENOTSUP", errno.EOPNOTSUPP),
                                    errno.ENOSYS, errno.EINVAL) if e is not None)
#: errno values meaning "held by another".
HELD = frozenset((errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES, getattr(errno, "EDEADLOCK", errno.EDEADLK)))
#: Where the Windows byte lock sits (the C runtime's ``_locking`` takes a 32-bit position).
MSVCRT_OFFSET = 2**31 - 2
LOCK_SUFFIX = ".lock"
LOCK_FILE_TAG = "p2ptrumps-lock"
#: A lock file with no owner written (its creator died at once) counts as stale after this long, seconds.
UNWRITTEN_STALE_S = 10.0


class LockBusy(OSError):
    """Another process holds the lock; ``str()`` says so (and names a lock file, if one)."""


class _Unsupported(Exception):
    """The file system cannot lock this way: try the next."""


class Lock:
    """A lock held: ``kind`` is ``"flock"``, ``"msvcrt"`` or ``"lockfile"``; :meth:`release`
    frees it (idempotent; closing the locked descriptor frees the first two as well)."""

    def __init__(self, kind: str, release: Callable[[], None]) -> None:
        self.kind = kind
        self._release: Callable[[], None] | None = release

    def release(self) -> None:
        if self._release is not None:
            done, self._release = self._release, None
            with contextlib.suppress(OSError):
                done()


def lock_path(path: Path) -> Path:
    """The lock file of ``path`` when the file system has no locks: ``NAME.lock`` beside it."""
    return path.with_name(path.name + LOCK_SUFFIX)


def lock_fd(fd: int, path: Path) -> Lock:
    """Lock the open file ``fd`` (the file ``path``) for this process alone, without waiting.

    Raises:
        LockBusy: another process holds it.
        OSError: the lock file of the fallback cannot be created (its directory not writable).
    """
    try:
        if sys.platform == "win32":
            import msvcrt

            return lock_msvcrt(fd, msvcrt)
        import fcntl

        return lock_flock(fd, fcntl)
    except _Unsupported:
        return lock_file(path)


def lock_flock(fd: int, fcntl: Any) -> Lock:
    """``flock(LOCK_EX | LOCK_NB)`` with the module ``fcntl`` (a stand-in in tests)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in UNSUPPORTED:
            raise _Unsupported from None
        raise LockBusy(N_("another process holds the lock")) from None
    return Lock("flock", lambda: fcntl.flock(fd, fcntl.LOCK_UN))


def lock_msvcrt(fd: int, msvcrt: Any) -> Lock:
    """(Windows) lock one byte at :data:`MSVCRT_OFFSET` with ``msvcrt.locking`` (``msvcrt`` may be a
    stand-in in tests); the file position is kept."""

    def at_offset(mode: int) -> None:
        here = os.lseek(fd, 0, os.SEEK_CUR)
        os.lseek(fd, MSVCRT_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, mode, 1)
        finally:
            os.lseek(fd, here, os.SEEK_SET)

    try:
        at_offset(msvcrt.LK_NBLCK)
    except OSError as exc:
        if exc.errno in HELD:
            raise LockBusy(N_("another process holds the lock")) from None
        raise _Unsupported from None
    return Lock("msvcrt", lambda: at_offset(msvcrt.LK_UNLCK))


def _alive(pid: int) -> bool:
    """Whether process ``pid`` of this host may still run (Windows: always assumed)."""
    if pid == os.getpid():
        return True
    if sys.platform == "win32":  # os.kill(pid, 0) would end it there
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it runs, as another user
        return True
    return True


def _owner(lock: Path) -> tuple[int, str] | None:
    """``(pid, host)`` written in a lock file, or None when it holds none (yet)."""
    try:
        words = lock.read_text(encoding="utf-8", errors="replace").split()
    except OSError:
        return None
    if len(words) == 3 and words[0] == LOCK_FILE_TAG and words[1].isdigit():
        return int(words[1]), words[2]
    return None


def _stale(lock: Path) -> bool:
    owner = _owner(lock)
    if owner is None:
        try:
            return time.time() - lock.stat().st_mtime > UNWRITTEN_STALE_S
        except OSError:
            return True  # gone meanwhile: try again
    pid, host = owner
    return host == socket.gethostname() and not _alive(pid)


def lock_file(path: Path) -> Lock:
    """The lock-file fallback: create ``NAME.lock`` with ``O_EXCL``; a stale one is taken over.

    Raises:
        LockBusy: a live process holds it (the message names the lock file and the owner).
        OSError: the lock file cannot be created.
    """
    lock = lock_path(path)
    for _ in range(3):
        try:
            fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            if _stale(lock):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(lock)
                continue
            owner = _owner(lock)
            if owner:
                raise LockBusy(N_("process %(pid)s on %(host)s holds the lock file %(lock)s (remove it if no "
                                  "p2ptrumps process runs there)", pid=str(owner[0]), host=owner[1],
                                  lock=str(lock))) from None
            raise LockBusy(N_("a process starting holds the lock file %(lock)s (remove it if no p2ptrumps process "
                              "runs there)", lock=str(lock))) from None
        try:
            os.write(fd, f"{LOCK_FILE_TAG} {os.getpid()} {socket.gethostname()}\n".encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        return Lock("lockfile", lambda: os.unlink(lock))
    raise LockBusy(N_("the lock file %(lock)s keeps coming back", lock=str(lock)))


def is_locked(path: Path) -> bool:
    """True when another process holds ``path`` locked (:func:`lock_fd`), by either way."""
    lock = lock_path(path)
    if lock.exists() and not _stale(lock):
        return True
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except OSError:
        return False
    try:
        if sys.platform == "win32":
            import msvcrt

            try:
                lock_msvcrt(fd, msvcrt).release()
            except LockBusy:
                return True
            except _Unsupported:
                return False
            return False
        import fcntl

        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError as exc:
            return exc.errno not in UNSUPPORTED
        return False
    finally:
        os.close(fd)


@contextlib.contextmanager
def hold(path: Path, timeout_s: float = 10.0, poll_s: float = 0.05) -> Iterator[Lock]:
    """Hold an exclusive lock for updating ``path`` (read, change, write atomically by a rename),
    waiting up to ``timeout_s`` seconds for another process to finish.

    POSIX: ``flock`` on the directory of ``path`` (a file replaced by a rename cannot carry the lock
    itself, and no lock file is left behind); where the file system has no locks, the lock file
    ``NAME.lock`` (:func:`lock_file`).  Windows: an ``msvcrt`` byte lock on a hidden ``.NAME.lock``
    beside it (kept; it holds nothing), or the lock file.

    Raises:
        LockBusy: still held after ``timeout_s``.
        OSError: the lock cannot be taken (the directory is missing or not writable).
    """
    deadline = time.monotonic() + timeout_s
    if sys.platform == "win32":
        target = path.with_name(f".{path.name}{LOCK_SUFFIX}")
        fd = os.open(target, os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o600)

        def take() -> Lock:
            return lock_fd(fd, target)
    else:
        fd = os.open(path.parent, os.O_RDONLY)

        def take() -> Lock:
            import fcntl

            try:
                return lock_flock(fd, fcntl)
            except _Unsupported:
                return lock_file(path)
    try:
        while True:
            try:
                held = take()
                break
            except LockBusy:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(poll_s)
        try:
            yield held
        finally:
            held.release()
    finally:
        os.close(fd)
