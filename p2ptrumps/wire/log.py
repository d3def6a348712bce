"""The match log file: the handshake and every chained message, exactly as framed on the wire.

Source: ``protocol/wire.md`` §12.

A log is the 16-byte header :data:`LOG_MAGIC` followed by frames (4-byte
big-endian length + payload) in the order the logging side handled them: its
own hello and the peer's, then each message it sent (logged before sending)
or received (logged once it checked out).  Pings and pongs are never logged.
The writer (:mod:`p2ptrumps.net.logfile`) appends and fsyncs :data:`LOG_MAGIC` once, then each
frame handed to the session's log hook, unchanged (:func:`log_header` and :func:`log_entry` name
those bytes; this module does no file I/O itself).  Reading is tolerant of a torn tail (a crash mid-write: an
incomplete final frame, or a run of zero bytes a file system may leave): the
whole frames before it are returned and the tail reported (protocol/verify.md §1).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..message import N_
from .errors import RemoteProtocolError
from .framing import HEADER_BYTES, MAX_FRAME_BYTES

LOG_MAGIC = b"p2ptrumps-log/1\n"
_LENGTH = struct.Struct(">I")  # a frame's length prefix (protocol/wire.md §2)


def log_header() -> bytes:
    """The bytes a new log file starts with (:data:`LOG_MAGIC`, 16 bytes)."""
    return LOG_MAGIC


def log_entry(frame: bytes, direction: str = "") -> bytes:
    """The bytes to append for one frame handed to the session's log hook: the frame itself,
    unchanged (the direction is not stored; protocol/wire.md §12)."""
    return frame


class LogUnreadable(ValueError):
    """Not a match log at all (no header, wrong version); the message says why."""


@dataclass
class LogContents:
    """A log split into frames.

    Attributes:
        frames: each whole frame, length prefix included, in file order.
        offsets: byte offset of each frame in the file.
        truncated_bytes: bytes of the torn tail: an incomplete final frame or a run of zero
            bytes after the last whole frame (0 if none).
        zero_tail: the torn tail is all zero bytes.
        error: a fault that stopped the reading (an oversized or zero length), at ``error_offset``.
    """

    frames: list[bytes] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)
    truncated_bytes: int = 0
    zero_tail: bool = False
    error: RemoteProtocolError | None = None
    error_offset: int = 0
    error_evidence: bytes = b""


def read_log(data: bytes, max_frame_bytes: int = MAX_FRAME_BYTES) -> LogContents:
    """Split log bytes into frames (protocol/verify.md §1).  :class:`LogUnreadable` without the header."""
    out = LogContents()
    for i, end in walk_log(data, out, max_frame_bytes):
        out.frames.append(data[i:end])
        out.offsets.append(i)
    return out


def walk_log(data: bytes, out: LogContents, max_frame_bytes: int = MAX_FRAME_BYTES) -> Iterator[tuple[int, int]]:
    """The ``(start, end)`` byte offsets of each whole frame of a log, in file order, without copying
    any (so a reader's memory does not grow with the frame count); once exhausted,
    ``out`` holds the torn tail and a length fault (its ``frames`` and ``offsets`` stay as they were).

    Raises:
        LogUnreadable: (at the first step) not a match log, or another version.
    """
    if not data:
        raise LogUnreadable(N_("the file is empty (0 bytes): not a p2ptrumps match log"))
    if not data.startswith(LOG_MAGIC):
        if data[: len(LOG_MAGIC) - 2] == LOG_MAGIC[:-2]:
            raise LogUnreadable(N_("unsupported match log version (header %(header)s)",
                                   header=repr(data[: len(LOG_MAGIC)])))
        raise LogUnreadable(N_("not a p2ptrumps match log (the header '%(header)s' is missing)",
                               header=LOG_MAGIC.decode().strip()))
    i = len(LOG_MAGIC)
    n_total = len(data)
    count = 0
    length = _LENGTH.unpack_from
    while i < n_total:
        n = length(data, i)[0] if n_total - i >= HEADER_BYTES else int.from_bytes(data[i:], "big")
        if (n == 0 or n_total - i < HEADER_BYTES) and data.count(0, i) == n_total - i:
            out.truncated_bytes, out.zero_tail = n_total - i, True
            break
        if n_total - i < HEADER_BYTES:
            out.truncated_bytes = n_total - i
            break
        if n == 0 or n > max_frame_bytes:
            code = "garbage-frame" if n == 0 else "oversized-frame"
            out.error = RemoteProtocolError(code, (
                N_("frame #%(index)d (at byte %(at)d) has length 0", index=count, at=i) if n == 0
                else N_("frame #%(index)d (at byte %(at)d) announces %(n)d bytes, more than the maximum %(most)d",
                        index=count, at=i, n=n, most=max_frame_bytes)))
            out.error_offset = i
            out.error_evidence = data[i : i + HEADER_BYTES + 64]
            break
        end = i + HEADER_BYTES + n
        if end > n_total:
            out.truncated_bytes = n_total - i
            break
        yield i, end
        count += 1
        i = end
