"""The match log on disk: an append-only, fsynced file per match, and its name.

Source: ``protocol/wire.md`` §12 (what a log holds, when it is created) and
``protocol/files.md`` (where logs go, their names, never overwriting).
"""

from __future__ import annotations

import contextlib
import os
import re
import unicodedata
from datetime import datetime
from pathlib import Path
from typing import BinaryIO

from ..files import unused_path
from .config import EXIT_ERROR, NetConfig, NetplayError


class MatchLogFile:
    """An append-only match log file: every :meth:`append` is written, flushed and fsynced
    before it returns.

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
        self._file: BinaryIO | None = None
        self.bytes_written = 0
        if not defer:
            self._open()

    @property
    def created(self) -> bool:
        """True once the file exists on disk (always, unless made with ``defer=True``)."""
        return self._file is not None

    def _open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
        self._file = os.fdopen(fd, "wb")
        self._sync_dir()

    def create(self, path: str | os.PathLike[str]) -> None:
        """(deferred log) Create the file at ``path`` and write the bytes held so far
        (fsynced).  No-op if the file exists already.  Raises FileExistsError / OSError."""
        if self._file is not None:
            return
        self.path = Path(path)
        self._open()
        held, self._pending = bytes(self._pending or b""), None
        if held:
            self.append(held)

    def _sync_dir(self) -> None:
        if os.name != "posix":
            return
        with contextlib.suppress(OSError):
            dfd = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)

    def append(self, data: bytes) -> None:
        """Write ``data`` at the end, flush and ``os.fsync`` (held in memory while a deferred
        log has no file yet).  Raises OSError (disk full, ...)."""
        if self._file is None:
            if self._pending is None:
                raise OSError(f"the match log {self.path} is closed")
            self._pending += data
            return
        self._file.write(data)
        self._file.flush()
        os.fsync(self._file.fileno())
        self.bytes_written += len(data)

    def rename(self, new_path: Path) -> None:
        """Move the (open) file to ``new_path`` if that name is free; keeps the old name otherwise."""
        if self._file is None:
            self.path = new_path
            return
        if new_path.exists():
            return
        try:
            os.rename(self.path, new_path)
        except OSError:
            return
        self.path = new_path
        self._sync_dir()

    def close(self) -> None:
        """Close the file (idempotent); a deferred log never created drops what it held."""
        if self._file is not None and not self._file.closed:
            self._file.close()
        self._pending = None



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


def check_log_free(cfg: NetConfig) -> None:
    """Refuse an existing ``--log`` file (or an unusable place for it) before listening or
    connecting.  Raises :class:`NetplayError` (status 1)."""
    if cfg.log_path is None:
        return
    path = cfg.log_path
    if path.is_dir():
        raise NetplayError(EXIT_ERROR, f"log file {path} is a directory: give the path of a new file "
                           f"(e.g. {path / 'match.p2plog'})")
    if path.exists() or path.is_symlink():
        raise NetplayError(EXIT_ERROR, f"log file {path} exists; not overwriting it (choose another --log)")
    parent = path.parent
    for p in (parent, *parent.parents):
        if p.exists():
            if not p.is_dir():
                raise NetplayError(EXIT_ERROR, f"cannot create log file {path}: {p} is not a directory")
            break



def create_log(cfg: NetConfig, log: MatchLogFile, now: datetime, number: int, peer: str) -> Path:
    """Create the file of match ``number``'s log (``--log PATH``, ``PATH-rematchN``, or a
    readable default name with the peer's name) and write what it held.  Raises
    :class:`NetplayError` (status 1) when it exists or cannot be written."""
    if cfg.log_path is None:
        path = default_log_path(cfg.data / "logs", cfg.role, now, peer)
    elif number == 0:
        path = cfg.log_path
    else:
        path = cfg.log_path.with_name(f"{cfg.log_path.stem}-rematch{number}{cfg.log_path.suffix}")
    try:
        log.create(path)
    except FileExistsError:
        raise NetplayError(EXIT_ERROR, f"log file {path} exists; not overwriting it (choose another --log)") from None
    except OSError as exc:
        raise NetplayError(EXIT_ERROR, f"cannot create log file {path}: {exc.strerror or exc}") from None
    return path

