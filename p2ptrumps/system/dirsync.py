"""Making a write last: a file's bytes and a directory's entries on the disk.

* :func:`sync_file` -- ``fsync``; on macOS ``fcntl(F_FULLFSYNC)``, because macOS's ``fsync``
  leaves the data in the drive's cache (``fsync`` again where the file system refuses it).
* :func:`sync_dir` -- ``fsync`` of the directory, so a new or renamed entry survives a crash
  (POSIX).  Windows cannot open a directory as a file; NTFS journals its entries, so nothing is
  done there.  A file system that refuses a directory ``fsync`` (some network ones) is not an
  error: the file's own bytes were synced.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Any


def sync_file(fd: int) -> None:
    """Put the bytes written to ``fd`` on the disk.  Raises OSError (a disk error, ENOSPC on NFS)."""
    if sys.platform == "darwin":
        import fcntl

        full_sync(fd, fcntl)
        return
    os.fsync(fd)


def full_sync(fd: int, fcntl: Any) -> None:
    """(macOS) ``fcntl(fd, F_FULLFSYNC)`` with the module ``fcntl`` (a stand-in in tests), and
    ``fsync`` where the file system refuses it (some network and FUSE ones)."""
    try:
        fcntl.fcntl(fd, fcntl.F_FULLFSYNC)
    except OSError:
        os.fsync(fd)


def sync_dir(directory: Path) -> None:
    """Put ``directory``'s entries on the disk (best effort: see the module docstring)."""
    if sys.platform == "win32":
        return
    with contextlib.suppress(OSError):
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
