"""Small file helpers shared by the commands: bounded reads and unused readable names.

No game logic here; nothing in ``cards``/``rules``/``wire`` imports this module.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from .message import N_
from .system.dirsync import sync_dir


class UnreadableFileError(ValueError):
    """A file cannot be read as a saved match: missing, not a regular file, or too large.
    The message is one line and names the path (a lazy message)."""


#: The operating system's words for the faults a person meets most with a file, said in their
#: language (the English is what the C library says).
_OS_REASONS = {
    errno.ENOENT: N_("No such file or directory"),
    errno.EACCES: N_("Permission denied"),
    errno.EPERM: N_("Operation not permitted"),
    errno.EISDIR: N_("Is a directory"),
    errno.ENOTDIR: N_("Not a directory"),
    errno.ENOSPC: N_("No space left on device"),
    errno.EROFS: N_("Read-only file system"),
}


def os_reason(exc: OSError) -> str:
    """Why an operation on a file failed, for a person: the system's words for ``exc``'s errno (a lazy
    message for the common ones, :data:`_OS_REASONS`; else ``strerror`` as it is, or the exception)."""
    return _OS_REASONS.get(exc.errno or -1) or exc.strerror or str(exc)


def read_limited(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` bytes.

    Directories, FIFOs and devices (``/dev/zero``) are refused before reading;
    a file longer than ``limit`` is refused without reading more than ``limit + 1``
    bytes.  Raises :class:`UnreadableFileError`.
    """
    p = Path(path)
    try:
        info = os.stat(p)
        if not stat.S_ISREG(info.st_mode):
            if stat.S_ISDIR(info.st_mode):
                raise UnreadableFileError(N_("%(path)s is a directory: give the path of a saved file", path=str(p)))
            raise UnreadableFileError(N_("%(path)s is not a regular file (a pipe, device or socket): give the path "
                                         "of a saved file", path=str(p)))
        if info.st_size > limit:
            raise UnreadableFileError(N_("%(path)s is %(size)d bytes: too large for a match (%(most)d MiB at most)",
                                         path=str(p), size=info.st_size, most=limit // 2**20))
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):  # swapped since the stat above
                raise UnreadableFileError(N_("%(path)s is not a regular file (a pipe, device or socket)",
                                             path=str(p)))
            data = f.read(limit + 1)
    except OSError as exc:
        raise UnreadableFileError(N_("cannot read %(path)s: %(reason)s", path=str(p), reason=os_reason(exc))) from None
    if len(data) > limit:
        raise UnreadableFileError(N_("%(path)s is over %(limit)d bytes: too large for a match (%(most)d MiB at most)",
                                     path=str(p), limit=limit, most=limit // 2**20))
    return data


def unused_path(directory: Path, stem: str, suffix: str,
                also: Callable[[Path], Path] | None = None) -> Path:
    """``directory/stem+suffix``, or ``stem-2``, ``stem-3`` ... when taken (``suffix`` includes the dot);
    with ``also``, a name is taken too when the file ``also(name)`` exists (e.g. a log's resume file
    beside it)."""
    path = directory / f"{stem}{suffix}"
    n = 2
    while path.exists() or (also is not None and also(path).exists()):
        path = directory / f"{stem}-{n}{suffix}"
        n += 1
    return path


def prepare_dir(directory: Path) -> None:
    """Create ``directory`` if needed and prove a file can be written there (a probe file,
    removed at once).  Raises :class:`OSError` naming the problem otherwise."""
    directory.mkdir(parents=True, exist_ok=True)
    probe_dir(directory)


def probe_dir(directory: Path) -> None:
    """Prove a file can be created, written and synced in the existing ``directory`` (a probe
    file, removed at once): a read-only mount, a directory without write permission or a full
    disk raise :class:`OSError` here, before anything depends on it."""
    fd, probe = tempfile.mkstemp(prefix=".probe-", dir=directory)
    try:
        os.write(fd, b"p2ptrumps")
        os.fsync(fd)
    finally:
        os.close(fd)
        os.unlink(probe)


def write_atomic(path: Path, text: str, prefix: str = ".tmp-") -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically: a temporary file in the same
    directory, flushed and fsynced, then renamed over ``path``; a crash leaves the old
    file or the new one, never half of one.  Raises :class:`OSError`."""
    fd, tmp = tempfile.mkstemp(prefix=prefix, dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        sync_dir(path.parent)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
