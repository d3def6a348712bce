"""Length-prefixed frames over a byte stream.

Source: ``protocol/wire.md`` §2.

A frame is a 4-byte big-endian length ``L`` followed by ``L`` bytes of payload,
``1 <= L <= max_frame_bytes``.  The decoder checks the length *before* it
buffers the payload, so a hostile length never makes it allocate.
"""

from __future__ import annotations

from ..message import N_
from .errors import RemoteProtocolError

#: The largest payload accepted, bytes (protocol/wire.md §2).  No message comes near it.
MAX_FRAME_BYTES = 16384
HEADER_BYTES = 4


def frame(payload: bytes) -> bytes:
    """``payload`` with its 4-byte big-endian length prefix.  ``ValueError`` if empty or
    longer than :data:`MAX_FRAME_BYTES`."""
    if not 1 <= len(payload) <= MAX_FRAME_BYTES:
        raise ValueError(f"frame payload of {len(payload)} bytes is outside 1..{MAX_FRAME_BYTES}")
    return len(payload).to_bytes(4, "big") + payload


class FrameDecoder:
    """Splits a byte stream into frame payloads.

    Args:
        max_frame_bytes: the largest payload accepted, bytes.

    ``feed(data)`` adds bytes (any split); ``next_frame()`` returns the next
    whole frame as ``(frame_with_prefix, payload)`` or None.  There a length of 0 raises
    ``RemoteProtocolError("garbage-frame")``, a length above the maximum
    ``RemoteProtocolError("oversized-frame")``, as soon as the 4 prefix bytes are in.
    """

    def __init__(self, max_frame_bytes: int = MAX_FRAME_BYTES) -> None:
        if not 1 <= max_frame_bytes <= (1 << 32) - 1:
            raise ValueError("max_frame_bytes out of range")
        self.max_frame_bytes = max_frame_bytes
        self._buf = bytearray()
        self.offset = 0  # stream offset of the start of _buf (for messages)

    def feed(self, data: bytes) -> None:
        """Append received bytes."""
        self._buf += data

    @property
    def buffered(self) -> bytes:
        """Bytes received but not yet returned as a frame."""
        return bytes(self._buf)

    @property
    def partial(self) -> tuple[int, int] | None:
        """The frame being received, incomplete: ``(stream offset of its first byte, bytes of it
        buffered)``; None when no byte of an unfinished frame is buffered."""
        return (self.offset, len(self._buf)) if self._buf else None

    def next_frame(self) -> tuple[bytes, bytes] | None:
        """The next complete ``(frame, payload)``, or None if more bytes are needed."""
        if len(self._buf) < HEADER_BYTES:
            return None
        n = int.from_bytes(self._buf[:HEADER_BYTES], "big")
        if n == 0:
            raise RemoteProtocolError("garbage-frame", N_("frame at stream byte %(at)d has length 0", at=self.offset))
        if n > self.max_frame_bytes:
            raise RemoteProtocolError(
                "oversized-frame",
                N_("frame at stream byte %(at)d announces %(n)d bytes, more than the maximum %(most)d", at=self.offset,
                   n=n, most=self.max_frame_bytes),
            )
        end = HEADER_BYTES + n
        if len(self._buf) < end:
            return None
        whole = bytes(self._buf[:end])
        del self._buf[:end]
        self.offset += end
        return whole, whole[HEADER_BYTES:]
