"""Private files (the identity key, deal secrets) and publishing a new one without replacing.

* :func:`private_problem` -- on POSIX a file the group or others may read (mode bits ``0o077``)
  is refused.  On Windows mode bits mean nothing; the data directory is in the user's profile
  (``%LOCALAPPDATA%``), whose ACLs let only the user, SYSTEM and Administrators in.  p2ptrumps
  neither checks nor sets ACLs there: a stated limitation (README, "Platforms").
* :func:`publish` -- give a complete, fsynced temporary file its final name only if that name is
  free: a hard link (fails if the name exists).  Where the file system has no hard links (exFAT,
  FAT, SMB without unix extensions, some cluster file systems), an empty placeholder is created
  with ``O_EXCL`` and our own placeholder is then replaced by the temporary file in one rename.
  Either way a key is never replaced; the placeholder is the one state a reader may see that is
  not a whole file, and it is empty (:data:`PLACEHOLDER_SIZE`), never half a key.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from pathlib import Path

from ..message import N_
from .dirsync import sync_dir

#: The size of the placeholder a reader may meet while a key is published without hard links.
PLACEHOLDER_SIZE = 0
#: errno values of ``link()`` meaning "no hard links here" (exFAT/FAT give EPERM).
NO_LINKS = frozenset((errno.EPERM, errno.EOPNOTSUPP, getattr(errno, "ENOTSUP", errno.EOPNOTSUPP), errno.ENOSYS,
                      errno.EMLINK, errno.EXDEV, errno.EACCES))


def private_problem(path: Path) -> str | None:
    """Why ``path`` is not private to its user (``"mode 0644"``), or None.  Always None on Windows
    (see the module docstring).  Raises OSError when it cannot be examined."""
    if sys.platform == "win32":
        return None
    mode = stat.S_IMODE(path.stat().st_mode)
    return N_("mode %(mode)s", mode=format(mode, "04o")) if mode & 0o077 else None


def publish(tmp: Path, path: Path) -> bool:
    """Give the complete file ``tmp`` the name ``path`` if no file has it; True when done, False
    when ``path`` exists (``tmp`` is left for the caller to remove either way).

    Raises:
        OSError: neither a hard link nor the placeholder can be made (the directory is not
            writable, the disk is full).
    """
    try:
        os.link(tmp, path)
    except FileExistsError:
        return False
    except OSError as exc:
        if exc.errno not in NO_LINKS:
            raise
        return publish_without_link(tmp, path)
    sync_dir(path.parent)
    return True


def publish_without_link(tmp: Path, path: Path) -> bool:
    """:func:`publish` where hard links fail: an ``O_EXCL`` placeholder, then ``tmp`` renamed over it."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    os.close(fd)
    os.replace(tmp, path)
    sync_dir(path.parent)
    return True
