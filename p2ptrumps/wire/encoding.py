"""Canonical msgpack: pack, and unpack with limits and a re-encoding check.

Source: ``protocol/wire.md`` §3.

Only these msgpack types may appear: nil, true/false, integers (in
``-2**63 .. 2**64-1``), str (UTF-8), bin and arrays.  Maps, floats and ext
types are refused.  A value's canonical encoding is the one
:func:`pack` produces (the shortest form of every integer, string, bin and
array header; str for text, bin for bytes).  :func:`unpack` accepts exactly
those bytes, and for anything else names the first defect of the one-pass
decoding of protocol/wire.md §3.5 (:func:`unpack_stepwise`): ``garbage-frame``
for bytes that are not a value within the limits, and
:class:`~p2ptrumps.wire.errors.NonCanonical` for maps, floats, ext types,
headers that are not the shortest and trailing bytes.
"""

from __future__ import annotations

from typing import Any

import msgpack  # type: ignore[import-untyped]

from ..message import N_, Nn_
from ..text import counted
from .errors import NonCanonical, RemoteProtocolError

#: Decoding limits (protocol/wire.md §3.2).
MAX_STR_BYTES = 2048
MAX_BIN_BYTES = 64
MAX_ARRAY_LEN = 16
MAX_DEPTH = 4

Value = None | bool | int | str | bytes | list[Any]


def _no_ext(code: int, data: bytes) -> Any:
    raise NonCanonical(N_("ext type %(code)d is not allowed", code=code))


def _no_map(pairs: Any) -> Any:
    raise NonCanonical(N_("a map is not allowed (messages are arrays)"))


def pack(value: Any) -> bytes:
    """The canonical msgpack bytes of ``value`` (None, bool, int, str, bytes, list/tuple, nested).

    Raises ``TypeError`` for any other type (floats and dicts included) and
    ``OverflowError`` for integers outside ``-2**63 .. 2**64-1``.
    """
    _check_types(value, 0, local=True)
    return msgpack.packb(value, use_bin_type=True, strict_types=False)  # type: ignore[no-any-return]


def unpack(data: bytes) -> Any:
    """Decode one canonical msgpack value from ``data`` (all of it).

    Returns nested ``list`` / ``int`` / ``bool`` / ``None`` / ``str`` / ``bytes``.

    Raises ``RemoteProtocolError`` naming the first defect of the one-pass decoding
    of protocol/wire.md §3.5: ``garbage-frame`` (cut short, byte ``c1``, over a size
    or depth limit, invalid UTF-8) or :class:`NonCanonical` (a map, float or ext, a
    header that is not the shortest, trailing bytes).
    """
    # Fast road: the C decoder, then the re-encoding check.  Whatever it accepts,
    # the step-by-step pass accepts too (tests/test_wire_codec.py checks this);
    # anything it refuses is decoded step by step to name the first defect.
    try:
        value = msgpack.unpackb(
            data,
            raw=False,
            use_list=True,
            strict_map_key=False,
            object_pairs_hook=_no_map,
            ext_hook=_no_ext,
            max_str_len=MAX_STR_BYTES,
            max_bin_len=MAX_BIN_BYTES,
            max_array_len=MAX_ARRAY_LEN,
            max_map_len=MAX_ARRAY_LEN,
            max_ext_len=MAX_BIN_BYTES,
        )
    except Exception:  # any refusal at all (hostile bytes): the step-by-step pass names it
        return unpack_stepwise(data)
    # Packing the value back finds every header that is not the shortest and any trailing byte, but
    # not a float (a float64 packs back the same), a timestamp (an ext the C decoder hands back
    # without calling ext_hook) or an array too deep: one walk over the arrays finds those.
    if not (_items_ok(value, 0) if type(value) is list else type(value) in _SCALARS) \
            or msgpack.packb(value, use_bin_type=True) != data:
        return unpack_stepwise(data)
    return value


_SCALARS = frozenset({type(None), bool, int, str, bytes})


def _items_ok(items: list[Any], depth: int) -> bool:
    """The elements of the decoded array ``items`` (itself at ``depth``) are of allowed types (no
    float, no timestamp: the re-encoding check cannot see them) and none is deeper than
    :data:`MAX_DEPTH` (protocol/wire.md §3.1, §3.2).  One call per array, not per element."""
    if depth >= MAX_DEPTH:
        return not items
    for v in items:
        t = type(v)
        if t is list:
            if not _items_ok(v, depth + 1):
                return False
        elif t not in _SCALARS:
            return False
    return True


# ----- the step-by-step decoding of protocol/wire.md §3.5 ------------------------------

_A_FLOAT, _A_MAP, _AN_EXT = N_("a float"), N_("a map"), N_("an ext")
_MAP_FLOAT_EXT = {0xCA: _A_FLOAT, 0xCB: _A_FLOAT, 0xDE: _A_MAP, 0xDF: _A_MAP}
_MAP_FLOAT_EXT.update({b: _A_MAP for b in range(0x80, 0x90)})
_MAP_FLOAT_EXT.update({b: _AN_EXT for b in (0xC7, 0xC8, 0xC9, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8)})
#: first byte -> (kind, size of the length or value bytes that follow)
_SIZED = {
    0xCC: ("uint", 1), 0xCD: ("uint", 2), 0xCE: ("uint", 4), 0xCF: ("uint", 8),
    0xD0: ("int", 1), 0xD1: ("int", 2), 0xD2: ("int", 4), 0xD3: ("int", 8),
    0xD9: ("str", 1), 0xDA: ("str", 2), 0xDB: ("str", 4),
    0xC4: ("bin", 1), 0xC5: ("bin", 2), 0xC6: ("bin", 4),
    0xDC: ("array", 2), 0xDD: ("array", 4),
}
_LIMITS = {"str": MAX_STR_BYTES, "bin": MAX_BIN_BYTES, "array": MAX_ARRAY_LEN}


def _garbage(why: str) -> RemoteProtocolError:
    return RemoteProtocolError("garbage-frame", why)


def _int_size(v: int) -> int:
    """Bytes after the first byte in the shortest form of integer ``v`` (0 for a fixint)."""
    if -32 <= v <= 127:
        return 0
    if v > 0:
        return 1 if v < 1 << 8 else 2 if v < 1 << 16 else 4 if v < 1 << 32 else 8
    return 1 if v >= -(1 << 7) else 2 if v >= -(1 << 15) else 4 if v >= -(1 << 31) else 8


def _len_size(kind: str, n: int) -> int:
    """Length bytes of the shortest header of a str/bin/array of ``n`` bytes/elements (0: fix form)."""
    if (kind == "str" and n < 32) or (kind == "array" and n < 16):
        return 0
    if n < 1 << 8 and kind != "array":
        return 1
    return 2 if n < 1 << 16 else 4


def unpack_stepwise(data: bytes) -> Any:
    """:func:`unpack`, one pass from the first byte exactly as protocol/wire.md §3.5 lists the
    checks: the first defect met names the fault.  Slower; same results."""
    value, end = _read(data, 0, 0)
    if end != len(data):
        extra = counted(len(data) - end, "byte")
        raise NonCanonical(N_("trailing bytes after the msgpack value (%(extra)s from byte %(end)d)", extra=extra,
                              end=end))
    return value


def _read(data: bytes, pos: int, depth: int) -> tuple[Any, int]:
    if pos >= len(data):
        raise _garbage(N_("not a msgpack value: cut short at byte %(pos)d", pos=pos))
    if depth > MAX_DEPTH:
        raise _garbage(N_("nesting deeper than %(most)d (a value at depth %(depth)d, byte %(pos)d)", most=MAX_DEPTH,
                          depth=depth, pos=pos))
    b = data[pos]
    if b == 0xC1:
        raise _garbage(N_("not a msgpack value: byte %(pos)d is c1 (never used)", pos=pos))
    if b in _MAP_FLOAT_EXT:
        raise NonCanonical(N_("%(what)s is not allowed (byte %(pos)d)", what=_MAP_FLOAT_EXT[b], pos=pos))
    if b <= 0x7F:
        return b, pos + 1
    if b >= 0xE0:
        return b - 0x100, pos + 1
    if b == 0xC0:
        return None, pos + 1
    if b in (0xC2, 0xC3):
        return b == 0xC3, pos + 1
    if 0x90 <= b <= 0x9F:
        kind, n, start = "array", b & 0x0F, pos + 1
    elif 0xA0 <= b <= 0xBF:
        kind, n, start = "str", b & 0x1F, pos + 1
    else:
        kind, size = _SIZED[b]
        start = pos + 1 + size
        if start > len(data):
            raise _garbage(N_("not a msgpack value: the header at byte %(pos)d is cut short", pos=pos))
        raw = data[pos + 1 : start]
        if kind in ("uint", "int"):
            v = int.from_bytes(raw, "big", signed=kind == "int")
            if _int_size(v) != size or (kind == "int" and v >= 0):
                raise NonCanonical(_not_shortest(pos, N_("integer %(value)d", value=v)))
            return v, start
        n = int.from_bytes(raw, "big")
        if _len_size(kind, n) != size:
            raise NonCanonical(_not_shortest(pos, N_("%(kind)s of length %(n)d", kind=kind, n=n)))
    if n > _LIMITS[kind]:
        raise _garbage(
            Nn_("an array of %(n)d element is over the limit of %(most)d (byte %(pos)d)",
                "an array of %(n)d elements is over the limit of %(most)d (byte %(pos)d)", n, most=_LIMITS[kind],
                pos=pos)
            if kind == "array" else
            Nn_("a %(kind)s of %(n)d byte is over the limit of %(most)d (byte %(pos)d)",
                "a %(kind)s of %(n)d bytes is over the limit of %(most)d (byte %(pos)d)", n, kind=kind,
                most=_LIMITS[kind], pos=pos))
    if kind == "array":
        items = []
        at = start
        for _ in range(n):
            item, at = _read(data, at, depth + 1)
            items.append(item)
        return items, at
    end = start + n
    if end > len(data):
        raise _garbage(N_("not a msgpack value: the %(kind)s at byte %(pos)d is cut short", kind=kind, pos=pos))
    if kind == "bin":
        return data[start:end], end
    try:
        return data[start:end].decode("utf-8"), end
    except UnicodeDecodeError:
        raise _garbage(N_("a msgpack str is not valid UTF-8 (byte %(pos)d)", pos=pos)) from None


def _not_shortest(pos: int, what: str) -> str:
    return N_("not the canonical encoding: the %(what)s at byte %(pos)d does not use the shortest form", what=what,
              pos=pos)


def _check_types(value: Any, depth: int, local: bool) -> None:
    if depth > MAX_DEPTH:
        _fail(local, N_("nesting deeper than %(most)d", most=MAX_DEPTH))
    if value is None or isinstance(value, (bool, str, bytes)):
        return
    if isinstance(value, int):
        if local and not -(1 << 63) <= value < (1 << 64):
            raise OverflowError(f"integer {value} does not fit msgpack")
        return
    if isinstance(value, (list, tuple)):
        for v in value:
            _check_types(v, depth + 1, local)
        return
    if isinstance(value, dict):
        _fail(local, N_("a map (messages are arrays)"))
    if isinstance(value, float):
        _fail(local, _A_FLOAT)
    _fail(local, N_("a value of type %(type)s", type=type(value).__name__))


def _fail(local: bool, what: str) -> None:
    if local:
        raise TypeError(f"cannot pack {what}")
    raise NonCanonical(N_("%(what)s is not allowed", what=what))
