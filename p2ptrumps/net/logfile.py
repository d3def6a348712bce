"""The match log on disk: an append-only, fsynced file per match, and its name.

Source: ``protocol/wire.md`` §12 (what a log holds, when it is created) and
``protocol/files.md`` (where logs go, their names, never overwriting).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import unicodedata
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from ..files import probe_dir, unused_path
from ..message import N_, Message, message_of
from ..system import locks
from ..system.dirsync import sync_dir, sync_file
from . import resumefile
from .config import EXIT_ERROR, NetConfig, NetplayError


class MatchLogFile:
    """An append-only match log file: every :meth:`append` is written and fsynced
    before it returns.

    The file is written through its descriptor, with no buffer in between: a failed write
    (the disk full) raises from :meth:`append`, cuts the file back to the frames written
    whole before it, and leaves nothing for :meth:`close` to write again.  While open, the
    file is locked for this process (:func:`p2ptrumps.system.locks.lock_fd`: ``flock``, a byte
    lock on Windows, or a ``.lock`` file where the file system has no locks).

    Args:
        path: the file; created with ``O_EXCL`` (an existing file is never
            overwritten) and mode 0600, its parent directories as needed.
        defer: do not create the file yet: :meth:`append` keeps the bytes in memory
            until :meth:`create` names the file (a handshake that ends before the
            peer's hello leaves no file; protocol/wire.md §12).
    Raises:
        FileExistsError: ``path`` exists.
        OSError: it cannot be created.
    """

    def __init__(self, path: str | os.PathLike[str], *, defer: bool = False) -> None:
        self.path = Path(path)
        self._pending: bytearray | None = bytearray() if defer else None
        self._fd: int | None = None
        self._lock: locks.Lock | None = None
        self._also: list[locks.Lock] = []  # held with the file, released by close (hold_also)
        self._created = False
        self.bytes_written = 0
        #: Called with the OSError of a failed write (the disk full, EIO, a read-only file system): it may
        #: move the log elsewhere (:meth:`move_to`), and the write is then tried once more there; when it
        #: raises OSError too (or is None), :meth:`append` raises the first one.
        self.relocate: Callable[[OSError], None] | None = None
        if not defer:
            self._open()

    @property
    def created(self) -> bool:
        """True once the file exists on disk (always, unless made with ``defer=True``; also after
        :meth:`close`)."""
        return self._created

    def _open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
        try:
            self._lock = _lock(fd, self.path)
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(self.path)  # ours, empty: never leave it behind
            raise
        self._fd, self._created = fd, True
        sync_dir(self.path.parent)

    @classmethod
    def reopen(cls, path: str | os.PathLike[str], length: int) -> MatchLogFile:
        """Open an existing log to go on appending (a match resumed after a restart,
        protocol/wire.md §14.4): cut it to ``length`` bytes (its whole frames: an incomplete
        last frame is dropped) and take the lock.

        Raises:
            LogBusyError: another process is writing it.
            OSError: it cannot be opened or cut.
        """
        log = cls(path, defer=True)
        fd = os.open(log.path, os.O_WRONLY | getattr(os, "O_BINARY", 0))
        held: locks.Lock | None = None
        try:
            held = _lock(fd, log.path)
            os.ftruncate(fd, length)
            os.lseek(fd, 0, os.SEEK_END)
            sync_file(fd)
        except BaseException:
            if held is not None:
                held.release()
            os.close(fd)
            raise
        log._fd, log._lock, log._created = fd, held, True
        log._pending = None
        log.bytes_written = length
        return log

    def create(self, path: str | os.PathLike[str]) -> None:
        """(deferred log) Create the file at ``path`` and write the bytes held so far
        (fsynced).  No-op if the file exists already.  Raises FileExistsError / OSError."""
        if self._created:
            return
        self.path = Path(path)
        self._open()
        held, self._pending = bytes(self._pending or b""), None
        if held:
            self.append(held)

    def append(self, data: bytes) -> None:
        """Write ``data`` at the end and ``fsync`` (held in memory while a deferred log has no
        file yet).  Raises OSError (the disk full, ...); the file then holds what it held before."""
        if self._fd is None:
            if self._pending is None:
                raise OSError(f"the match log {self.path} is closed")
            self._pending += data
            return
        try:
            self._write(data)
        except OSError as exc:
            if self.relocate is None:
                raise
            try:
                self.relocate(exc)  # moved: the frame goes after the bytes it held, in the new file
                self._write(data)
            except OSError:
                raise exc from None
        self.bytes_written += len(data)

    def _write(self, data: bytes) -> None:
        """Write ``data`` at the end and ``fsync``; on failure cut the file back to :attr:`bytes_written`
        (no half frame in the log: a reader drops one anyway) and raise the OSError."""
        assert self._fd is not None
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view):]
            sync_file(self._fd)
        except OSError:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, self.bytes_written)
                os.lseek(self._fd, self.bytes_written, os.SEEK_SET)
            raise

    def move_to(self, new_path: Path) -> None:
        """Move the open log to ``new_path`` (``protocol/files.md``: a disk that fails mid-match): a new
        file (``O_EXCL``, mode 0600, locked) gets the :attr:`bytes_written` bytes read back from the old
        one, flushed to the disk with its directory; then the old file is closed, unlocked and removed
        (left where it cannot be).  Raises OSError when the old bytes cannot be read or the new file
        cannot be written: the log then stays where it was, as it was."""
        assert self._fd is not None, "only an open log moves"
        with open(self.path, "rb") as f:
            held = f.read(self.bytes_written)
        if len(held) != self.bytes_written:
            raise OSError(f"{self.path} holds {len(held)} of the {self.bytes_written} bytes written to it")
        fd = os.open(new_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
        lock: locks.Lock | None = None
        try:
            lock = _lock(fd, new_path)
            view = memoryview(held)
            while view:
                view = view[os.write(fd, view):]
            sync_file(fd)
            sync_dir(new_path.parent)
        except BaseException:
            if lock is not None:
                lock.release()
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(new_path)
            raise
        old_fd, old_lock, old_path = self._fd, self._lock, self.path
        self._fd, self._lock, self.path = fd, lock, new_path
        if old_lock is not None:
            old_lock.release()
        with contextlib.suppress(OSError):
            os.close(old_fd)
        with contextlib.suppress(OSError):
            os.unlink(old_path)

    def rename(self, new_path: Path) -> None:
        """Move the (open) file to ``new_path`` if that name is free; keeps the old name otherwise."""
        if self._fd is None:
            if not self._created:
                self.path = new_path
            return
        if new_path.exists():
            return
        if self._lock is not None and self._lock.kind == "lockfile":
            return  # its lock file is named after the old name: keep the name
        try:
            os.rename(self.path, new_path)
        except OSError:
            return
        self.path = new_path
        sync_dir(self.path.parent)

    def hold_also(self, lock: locks.Lock) -> None:
        """Keep ``lock`` (e.g. the lock of the match a resumed log belongs to, ``protocol/files.md``)
        for as long as this log is open: :meth:`close` releases it."""
        self._also.append(lock)

    def close(self) -> None:
        """Close the file and release its lock and those of :meth:`hold_also` (idempotent; never raises:
        every byte was written by :meth:`append`); a deferred log never created drops what it held."""
        while self._also:
            self._also.pop().release()
        if self._fd is not None:
            fd, self._fd = self._fd, None
            if self._lock is not None:
                self._lock.release()
                self._lock = None
            with contextlib.suppress(OSError):
                os.close(fd)
        self._pending = None


class LogBusyError(OSError):
    """Another process holds the match log open for writing (the match is running there)."""


#: Why a log cannot be opened to write: it is being written.
BUSY = N_("another p2ptrumps process is writing this match log (the match is running there)")


def _lock(fd: int, path: Path) -> locks.Lock:
    """Lock an open log for this process (released when the process ends, also by ``kill -9``,
    except a lock file, which a later run finds stale): ``p2ptrumps resume`` refuses a log that
    a running match is writing.  :class:`LogBusyError` if held."""
    try:
        return locks.lock_fd(fd, path)
    except locks.LockBusy as exc:
        raise LogBusyError(N_("%(busy)s; %(detail)s", busy=BUSY, detail=message_of(exc)) if "lock file" in str(exc)
                           else BUSY) from None


def is_busy(path: Path) -> bool:
    """True when a running p2ptrumps process holds ``path`` (a match log) open for writing."""
    return locks.is_locked(path)


#: The peer's name in a log file name is cut to this many characters.
MAX_NAME_STEM_CHARS = 32


def safe_stem(text: str) -> str:
    """``text`` made safe as part of a file name, readable in any script: letters and digits
    of any alphabet (NFC), ``_``, ``.`` and ``-`` are kept, every other run of characters
    (``/``, spaces, controls, symbols) becomes one ``-``; no leading or trailing ``-`` or
    ``.``; at most :data:`MAX_NAME_STEM_CHARS` characters; ``"peer"`` if nothing is left."""
    text = unicodedata.normalize("NFC", text)
    kept = "".join(ch if (ch.isalnum() or ch in "_.-") else "-" for ch in text)
    return re.sub(r"-{2,}", "-", kept).strip("-.")[:MAX_NAME_STEM_CHARS].strip("-.") or "peer"


def default_log_path(directory: Path, role: str, now: datetime, peer: str | None = None) -> Path:
    """An unused readable log name: ``2026-11-29_1805_host_vs-bob.p2plog`` (``-2``, ``-3`` ... if taken).
    Without ``peer`` (not known yet): ``2026-11-29_1805_host.p2plog``."""
    stem = f"{now:%Y-%m-%d_%H%M}_{role}" + (f"_vs-{safe_stem(peer)}" if peer else "")
    return unused_path(directory, stem, ".p2plog")


#: Free bytes the log's disk must have at start-up: room for a whole match and its rematches (a
#: complete 7-deal match log is about 140 KB; a frame is at most 16 KiB).
MIN_FREE_BYTES = 1 << 20
#: What the longest file written beside a log adds to its name: ``.resume`` and the resume file's
#: temporary name (``.resume.XXXXXXXX.tmp``, :mod:`.resumefile`); a lock file (``.lock``) is shorter.
SIDE_NAME_EXTRA = len(".resume") + len(".XXXXXXXX.tmp")
#: The longest file name where the file system cannot say (bytes).
DEFAULT_NAME_MAX = 255


def _existing(path: Path) -> Path:
    """``path`` or its nearest ancestor that exists."""
    for p in (path, *path.parents):
        if p.exists():
            return p
    return path


def name_max(directory: Path) -> int:
    """The longest file name (bytes) the file system of ``directory`` (or its nearest existing
    ancestor) takes: ``pathconf(PC_NAME_MAX)``, :data:`DEFAULT_NAME_MAX` where it cannot say."""
    if sys.platform == "win32":  # NTFS, FAT and exFAT: 255 UTF-16 units
        return DEFAULT_NAME_MAX
    try:
        return int(os.pathconf(_existing(directory), "PC_NAME_MAX"))
    except (OSError, ValueError):
        return DEFAULT_NAME_MAX


def longest_names(cfg: NetConfig) -> list[str]:
    """The names of ``--log`` and its rematch logs (``NAME-rematchN``), each with the longest
    side file added (:data:`SIDE_NAME_EXTRA`): what must fit the file system's name length."""
    if cfg.log_path is None:
        return []
    path = cfg.log_path
    names = [path.name]
    if cfg.rematches:
        names.append(f"{path.stem}-rematch{cfg.rematches}{path.suffix}")
    return names


def check_log_place(cfg: NetConfig) -> None:
    """Refuse, before a guest is admitted, what would fail when the match's log is created: a
    ``--log`` name (or a rematch's, or a file beside it) too long for the file system, a log
    directory that cannot be written, or less than :data:`MIN_FREE_BYTES` free there.  Raises
    :class:`NetplayError` (status 1) with one line naming the fault."""
    directory = cfg.log_path.parent if cfg.log_path is not None else cfg.data / "logs"
    limit = name_max(directory)
    for name in longest_names(cfg):
        size = len(os.fsencode(name)) + SIDE_NAME_EXTRA
        if size > limit:
            raise NetplayError(EXIT_ERROR, N_("log file name %(name)s is too long: with the resume file beside it it "
                                              "needs %(size)d bytes, and this file system takes %(limit)d (choose a "
                                              "shorter %(option)s)", name=repr(name), size=size, limit=limit,
                                              option="--log"))
    check_place(directory)


def check_place(directory: Path) -> None:
    """Refuse a log directory (or its nearest existing ancestor) where no file can be written, or
    with less than :data:`MIN_FREE_BYTES` free.  Raises :class:`NetplayError` (status 1)."""
    place = _existing(directory)
    try:
        probe_dir(place)
    except OSError as exc:
        raise NetplayError(EXIT_ERROR, N_("cannot write match logs in %(path)s: %(why)s (choose another %(option)s, or "
                                          "set %(variable)s)", path=str(place), why=exc.strerror or str(exc),
                                          option="--log", variable="XDG_DATA_HOME")) from None
    try:
        free = shutil.disk_usage(place).free
    except OSError:
        return
    if free < MIN_FREE_BYTES:
        raise NetplayError(EXIT_ERROR, N_("only %(free)d KiB free on the disk of %(path)s: a match log needs up to "
                                          "%(need)d KiB (free some space, or choose another %(option)s)",
                                          free=free // 1024, path=str(place), need=MIN_FREE_BYTES // 1024,
                                          option="--log"))


def check_log_free(cfg: NetConfig) -> None:
    """Refuse an existing ``--log`` file (or an unusable place for it) before listening or
    connecting, and whatever :func:`check_log_place` refuses.  Raises :class:`NetplayError`
    (status 1)."""
    if cfg.log_path is not None:
        path = cfg.log_path
        if path.is_dir():
            raise NetplayError(EXIT_ERROR, N_("log file %(path)s is a directory: give the path of a new file (e.g. "
                                              "%(example)s)", path=str(path), example=str(path / "match.p2plog")))
        if path.exists() or path.is_symlink():
            raise NetplayError(EXIT_ERROR, _exists(path))
        parent = path.parent
        for p in (parent, *parent.parents):
            if p.exists():
                if not p.is_dir():
                    raise NetplayError(EXIT_ERROR, N_("cannot create log file %(path)s: %(parent)s is not a directory",
                                                      path=str(path), parent=str(p)))
                break
    check_log_place(cfg)


def create_log(cfg: NetConfig, log: MatchLogFile, now: datetime, number: int, peer: str,
               before: Callable[[Path], None] | None = None) -> Path:
    """Create the file of match ``number``'s log (``--log PATH``, ``PATH-rematchN``, or a
    readable default name with the peer's name) and write what it held; ``before(path)`` runs
    first (it writes the resume file, so that no log exists without one).  Raises
    :class:`NetplayError` (status 1) when it exists or cannot be written."""
    if cfg.log_path is None:
        path = default_log_path(cfg.data / "logs", cfg.role, now, peer)
    elif number == 0:
        path = cfg.log_path
    else:
        path = cfg.log_path.with_name(f"{cfg.log_path.stem}-rematch{number}{cfg.log_path.suffix}")
    if path.exists():
        raise NetplayError(EXIT_ERROR, _exists(path))
    if before is not None:
        before(path)
    try:
        log.create(path)
    except OSError as exc:
        if before is not None:  # no resume file without its log: `resume` could not read it
            with contextlib.suppress(OSError):
                resumefile.path_for(path).unlink()
        if isinstance(exc, FileExistsError):
            raise NetplayError(EXIT_ERROR, _exists(path)) from None
        raise NetplayError(EXIT_ERROR, N_("cannot create log file %(path)s: %(why)s", path=str(path),
                                          why=exc.strerror or str(exc))) from None
    return path


def _exists(path: Path) -> Message:
    """The fault of a log file that is there already."""
    return N_("log file %(path)s exists; not overwriting it (choose another %(option)s)", path=str(path),
              option="--log")

