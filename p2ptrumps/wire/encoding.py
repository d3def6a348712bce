"""Canonical msgpack: pack, and unpack with limits and a re-encoding check.

Source: ``protocol/wire.md`` §3.

Only these msgpack types may appear: nil, true/false, integers (in
``-2**63 .. 2**64-1``), str (UTF-8), bin and arrays.  Maps, floats and ext
types are refused.  A value's canonical encoding is the one
:func:`pack` produces (the shortest form of every integer, string, bin and
array header; str for text, bin for bytes).  :func:`unpack` decodes with hard
limits and then re-encodes: any difference (a non-minimal integer, a str8 where
fixstr fits, ...) raises :class:`~p2ptrumps.wire.errors.NonCanonical`, as do
trailing bytes.
"""

from __future__ import annotations

from typing import Any

import msgpack  # type: ignore[import-untyped]

from .errors import NonCanonical, RemoteProtocolError

#: Decoding limits (protocol/wire.md §3.2).
MAX_STR_BYTES = 2048
MAX_BIN_BYTES = 64
MAX_ARRAY_LEN = 16
MAX_DEPTH = 4

Value = None | bool | int | str | bytes | list[Any]


def _no_ext(code: int, data: bytes) -> Any:
    raise NonCanonical(f"ext type {code} is not allowed")


def _no_map(pairs: Any) -> Any:
    raise NonCanonical("a map is not allowed (messages are arrays)")


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

    Raises:
        RemoteProtocolError("garbage-frame"): not msgpack, truncated, or over the limits.
        NonCanonical: trailing bytes, a map, a float, an ext type, nesting deeper than
            :data:`MAX_DEPTH`, or any encoding that differs from :func:`pack`'s.
    """
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
    except NonCanonical:
        raise
    except msgpack.ExtraData:
        raise NonCanonical("trailing bytes after the msgpack value") from None
    except UnicodeDecodeError:
        raise RemoteProtocolError("garbage-frame", "a msgpack str is not valid UTF-8") from None
    except (ValueError, TypeError, msgpack.UnpackException, RecursionError) as exc:
        raise RemoteProtocolError("garbage-frame", f"not a msgpack value ({exc.__class__.__name__}: {exc})") from None
    _check_received(value, 0)
    again = msgpack.packb(value, use_bin_type=True)
    if again != data:
        raise NonCanonical(_first_difference(data, again))
    return value


_SCALARS = (type(None), bool, int, str, bytes)


def _check_received(value: Any, depth: int) -> None:
    """:func:`_check_types` for decoded values, faster: exact types only (what msgpack returns)."""
    if type(value) is not list:
        _check_types(value, depth, local=False)
        return
    if depth > MAX_DEPTH:
        raise NonCanonical(f"nesting deeper than {MAX_DEPTH} is not allowed")
    inner = depth + 1
    for v in value:
        t = type(v)
        if t is list:
            _check_received(v, inner)
        elif t not in _SCALARS or inner > MAX_DEPTH:
            _check_types(v, inner, local=False)  # raises, naming what is wrong


def _check_types(value: Any, depth: int, local: bool) -> None:
    if depth > MAX_DEPTH:
        _fail(local, f"nesting deeper than {MAX_DEPTH}")
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
        _fail(local, "a map (messages are arrays)")
    if isinstance(value, float):
        _fail(local, "a float")
    _fail(local, f"a value of type {type(value).__name__}")


def _fail(local: bool, what: str) -> None:
    if local:
        raise TypeError(f"cannot pack {what}")
    raise NonCanonical(f"{what} is not allowed")


def _first_difference(got: bytes, canonical: bytes) -> str:
    n = min(len(got), len(canonical))
    i = next((k for k in range(n) if got[k] != canonical[k]), n)
    return (
        f"not the canonical encoding: byte {i} is {got[i : i + 1].hex() or 'missing'}, "
        f"canonical is {canonical[i : i + 1].hex() or 'missing'} (e.g. a non-minimal integer or string header)"
    )
