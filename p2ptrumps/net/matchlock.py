"""The lock of a match (``protocol/files.md``, "Resuming"): ``resuming/<game id>-<role>`` in the data
directory, held by the one process that plays that match in that seat -- ``host`` and ``join`` from the
moment they create its log, ``resume`` before it reopens it -- so that a ``resume`` of a copy of the log
stops at once, naming the log the other process writes."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from ..message import N_, Message, message_of
from ..system import locks
from ..text import quoted
from ..wire.chain import OTHER_COPY
from .config import EXIT_ERROR, NetConfig, NetplayError


def match_lock_path(data: Path, game_id: bytes, role: str) -> Path:
    """The lock of the match ``game_id`` in seat ``role`` ("host" or "guest") in the data directory
    ``data``: ``resuming/<game id in hex>-<role>`` (``protocol/files.md``, "Resuming")."""
    return data / "resuming" / f"{game_id.hex()}-{role}"


#: The most bytes of the lock of a match read for the path it holds (a hint, ``protocol/files.md``).
MAX_LOCK_HINT_BYTES = 4096


def taken(lock: Path) -> Message:
    """What a ``resume`` of a match that ``lock`` (held) shows running says: the log the other process
    plays it with (``host``, ``join`` or ``resume``), as the lock holds it (:func:`resumed_from`), else
    "this log or a copy of it"."""
    other = resumed_from(lock)
    where = N_("with the log %(path)s", path=other) if other else N_("(with this log or a copy of it)")
    return N_("stopped: %(why)s: another p2ptrumps process plays this match %(where)s and holds %(lock)s",
              why=OTHER_COPY, where=where, lock=str(lock))


def left_as_it_was(taken: str, log_path: Path, detail: str = "") -> Message:
    """``taken`` (:func:`taken`), the lock's own ``detail`` if any, and that ``log_path`` is left as it was."""
    if detail:
        return N_("%(taken)s; %(detail)s; %(path)s is left as it was", taken=taken, detail=detail, path=str(log_path))
    return N_("%(taken)s; %(path)s is left as it was", taken=taken, path=str(log_path))


def resumed_from(lock: Path) -> str:
    """The path of the log that the holder of the match lock ``lock`` plays the match with, for a message: what the
    file holds (UTF-8, at most :data:`MAX_LOCK_HINT_BYTES` bytes, one line), control characters
    escaped (:func:`~p2ptrumps.text.quoted`, then in quotes); "" when it is empty, unreadable or not
    one line.  A hint only (``protocol/files.md``, "Resuming"): it may be stale; never opened."""
    try:
        with open(lock, "rb") as f:
            raw = f.read(MAX_LOCK_HINT_BYTES + 1)
    except OSError:
        return ""
    text = raw.decode("utf-8", "replace")
    if not text or len(raw) > MAX_LOCK_HINT_BYTES or "\n" in text:
        return ""
    shown = quoted(text)
    return text if shown == f"'{text}'" else shown


def hold_match(cfg: NetConfig, game_id: bytes, role: str, log_path: Path) -> locks.Lock:
    """Lock the match ``game_id`` in seat ``role`` for this process: the file
    ``resuming/<game id>-<role>`` in the data directory (``protocol/files.md``, "Resuming"), so
    that a second ``resume`` of the same match -- from a copy of ``log_path`` -- stops before it signs
    for places this one signs for, naming ``log_path`` (written into the file, absolute, while held).
    Returns the lock (release it when the match is over here: the file is emptied).

    Raises:
        NetplayError: (status 1) another process holds it: another copy of this side runs
            (:data:`~p2ptrumps.wire.chain.OTHER_COPY`); or the file cannot be created.
    """
    path = match_lock_path(cfg.data, game_id, role)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o600)
    except OSError as exc:
        raise NetplayError(EXIT_ERROR, N_("cannot create the lock of the match %(path)s: %(why)s", path=str(path),
                                          why=exc.strerror or str(exc))) from None
    try:
        held = locks.lock_fd(fd, path)
    except locks.LockBusy as exc:
        os.close(fd)
        raise NetplayError(EXIT_ERROR, left_as_it_was(taken(path), log_path, message_of(exc) if "lock file" in str(exc)
                                                      else "")) from None
    except BaseException:
        os.close(fd)
        raise

    with contextlib.suppress(OSError):  # the log resumed, for a second resume's line: a hint only (files.md)
        os.ftruncate(fd, 0)
        os.write(fd, os.fsencode(log_path.absolute()))

    def release() -> None:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)  # no stale hint left behind
        held.release()
        os.close(fd)

    return locks.Lock(held.kind, release)
