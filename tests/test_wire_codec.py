"""Canonical msgpack, framing, identity keys and fingerprints (protocol/wire.md §2-§4)."""

from __future__ import annotations

import msgpack  # type: ignore[import-untyped]
import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2ptrumps.wire import encoding, framing
from p2ptrumps.wire.errors import RemoteProtocolError
from p2ptrumps.wire.identity import SMALL_ORDER_Y, Identity, IdentityError, P, PublicKey, fingerprint


@pytest.mark.parametrize(
    ("data", "code", "words"),
    [
        (b"\xcc\x05", "non-canonical", "the integer 5 at byte 0 does not use the shortest form"),  # uint8 for 5
        (b"\xd0\x05", "non-canonical", "the integer 5 at byte 0"),  # int8 for a positive value
        (b"\xd0\xff", "non-canonical", "the integer -1 at byte 0"),  # int8 for a negative fixint
        (b"\xd9\x03abc", "non-canonical", "the str of length 3 at byte 0"),  # str8 for a fixstr
        (b"\xc5\x00\x01\x00", "non-canonical", "the bin of length 1 at byte 0"),  # bin16 for bin8
        (b"\x81\x01\x02", "non-canonical", "a map is not allowed (byte 0)"),
        (b"\x80", "non-canonical", "a map is not allowed"),
        (b"\xcb" + bytes(8), "non-canonical", "a float is not allowed"),
        (b"\xd4\x01\x00", "non-canonical", "an ext is not allowed"),
        (b"\x01\x02", "non-canonical", "trailing bytes"),
        (b"\xc1", "garbage-frame", "byte 0 is c1 (never used)"),
        (b"\x92\x01", "garbage-frame", "cut short at byte 2"),
        (b"\xcd\x01", "garbage-frame", "the header at byte 0 is cut short"),
        (b"\xa5ab", "garbage-frame", "the str at byte 0 is cut short"),
        (b"\xc5\x01\x00" + bytes(256), "garbage-frame", "a bin of 256 bytes is over the limit of 64"),
        (b"\xa2\xff\xfe", "garbage-frame", "not valid UTF-8"),
        (b"\xa3\xed\xa0\x80", "garbage-frame", "not valid UTF-8"),  # a surrogate
        (b"\xa2\xc0\x80", "garbage-frame", "not valid UTF-8"),  # an overlong NUL
        (b"\x91" * 6 + b"\x01", "garbage-frame", "nesting deeper than 4"),
        (b"\x91" * 4 + b"\x91\x01", "garbage-frame", "a value at depth 5"),  # a leaf counts
        # One pass, first defect wins (protocol/wire.md §3.5):
        (b"\x92\x81\x01\x02\xa5ab", "non-canonical", "a map"),  # a map, then a str cut short
        (b"\x92\xa2\xff\xfe\x80", "garbage-frame", "UTF-8"),  # bad UTF-8, then a map
        (b"\x92\xcc\x05\xa2\xff\xfe", "non-canonical", "integer 5"),  # non-minimal, then bad UTF-8
        (b"\xdb\x00\x00\x10\x00", "non-canonical", "str of length 4096"),  # str32 not shortest, and too long
        (b"\xda\x10\x00", "garbage-frame", "a str of 4096 bytes is over the limit"),  # shortest, but too long
    ],
)
def test_unpack_refuses(data: bytes, code: str, words: str) -> None:
    for decode in (encoding.unpack, encoding.unpack_stepwise):
        with pytest.raises(RemoteProtocolError) as info:
            decode(data)
        assert info.value.code == code
        assert words in str(info.value)


def test_depth_four_holds_an_empty_array_only() -> None:
    assert encoding.unpack(b"\x91" * 4 + b"\x90") == [[[[[]]]]]
    assert encoding.unpack(b"\x92\x01" + b"\x91" * 3 + b"\x05") == [1, [[[5]]]]


def _outcome(decode: object, data: bytes) -> object:
    try:
        return ("value", decode(data))  # type: ignore[operator]
    except RemoteProtocolError as exc:
        return ("fault", exc.code, exc.reason)


_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=40) | st.binary(max_size=70),
    lambda inner: st.lists(inner, max_size=17),
    max_leaves=20,
)


@given(_values, st.data())
def test_fast_and_stepwise_decoding_agree(value: object, data: st.DataObject) -> None:
    """``unpack`` takes the C decoder when it can; whatever it says, the one-pass decoding of
    protocol/wire.md §3.5 says the same (on canonical bytes and on mutated ones)."""
    raw = _mutated(msgpack.packb(value, use_bin_type=True), data)  # not encoding.pack: deep values too
    assert _outcome(encoding.unpack, raw) == _outcome(encoding.unpack_stepwise, raw)


def _mutated(packed: bytes, data: st.DataObject) -> bytes:
    """``packed`` as it is, or with one byte changed, cut short, or a few bytes added or inserted."""
    raw = bytearray(packed)
    mutation = data.draw(st.sampled_from(["none", "flip", "cut", "append", "insert"]))
    if mutation == "flip" and raw:
        i = data.draw(st.integers(0, len(raw) - 1))
        raw[i] = data.draw(st.integers(0, 255))
    elif mutation == "cut":
        del raw[data.draw(st.integers(0, len(raw))) :]
    elif mutation == "append":
        raw += data.draw(st.binary(min_size=1, max_size=3))
    elif mutation == "insert":
        i = data.draw(st.integers(0, len(raw)))
        raw[i:i] = data.draw(st.binary(min_size=1, max_size=3))
    return bytes(raw)


#: Values of every kind msgpack packs: the allowed types, and floats, timestamps (an ext of
#: type -1, which the C decoder hands back without calling ``ext_hook``) and arrays nested
#: deeper than the limit -- all of which the re-encoding check alone would let through.
_any_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=4) | st.binary(max_size=4)
    | st.floats(allow_nan=False) | st.builds(msgpack.Timestamp, st.integers(0, 2**32 - 1)),
    lambda inner: st.lists(inner, max_size=4),
    max_leaves=12,
)


@given(_any_values, st.data())
def test_fast_and_stepwise_agree_on_floats_timestamps_and_depth(value: object, data: st.DataObject) -> None:
    raw = _mutated(msgpack.packb(value, use_bin_type=True), data)
    assert _outcome(encoding.unpack, raw) == _outcome(encoding.unpack_stepwise, raw)


@given(st.binary(max_size=40))
def test_fast_and_stepwise_agree_on_any_bytes(raw: bytes) -> None:
    assert _outcome(encoding.unpack, raw) == _outcome(encoding.unpack_stepwise, raw)


def test_pack_exact_bytes() -> None:
    assert encoding.pack(["msg", 5, -1, b"\x00", None, True, 300]).hex() == "97a36d736705ffc40100c0c3cd012c"
    assert encoding.unpack(bytes.fromhex("97a36d736705ffc40100c0c3cd012c")) == ["msg", 5, -1, b"\x00", None, True, 300]


def test_pack_refuses_maps_and_floats() -> None:
    with pytest.raises(TypeError):
        encoding.pack({"a": 1})
    with pytest.raises(TypeError):
        encoding.pack([1.5])


_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=20) | st.binary(max_size=40),
    lambda inner: st.lists(inner, max_size=5),
    max_leaves=12,
)


@given(_values)
def test_pack_unpack_round_trip(value: object) -> None:
    data = encoding.pack(value)
    assert encoding.pack(encoding.unpack(data)) == data


def test_frame_decoder_partial_and_merged() -> None:
    a, b = framing.frame(b"\x01"), framing.frame(b"\x92\x01\x02")
    assert a == b"\x00\x00\x00\x01\x01"
    dec = framing.FrameDecoder()
    stream = a + b
    out = []
    for i in range(len(stream)):  # one byte at a time
        dec.feed(stream[i : i + 1])
        while (got := dec.next_frame()) is not None:
            out.append(got[1])
    assert out == [b"\x01", b"\x92\x01\x02"]
    assert dec.buffered == b""


def test_frame_decoder_refuses_oversized_before_payload() -> None:
    dec = framing.FrameDecoder(max_frame_bytes=16384)
    dec.feed((16385).to_bytes(4, "big"))  # no payload at all yet: refused on the prefix alone
    with pytest.raises(RemoteProtocolError) as info:
        dec.next_frame()
    assert info.value.code == "oversized-frame"
    assert "announces 16385 bytes, more than the maximum 16384" in str(info.value)


def test_frame_decoder_refuses_zero_length() -> None:
    dec = framing.FrameDecoder()
    dec.feed(bytes(4))
    with pytest.raises(RemoteProtocolError) as info:
        dec.next_frame()
    assert info.value.code == "garbage-frame"


# ----- identity ---------------------------------------------------------------------

# Pure-Python Edwards25519 arithmetic, only to check the small-order list independently.
_D = (-121665 * pow(121666, P - 2, P)) % P
_SQRT_M1 = pow(2, (P - 1) // 4, P)


def _recover_x(y: int, sign: int) -> int | None:
    xx = (y * y - 1) * pow(_D * y * y + 1, P - 2, P) % P
    x = pow(xx, (P + 3) // 8, P)
    if (x * x - xx) % P:
        x = x * _SQRT_M1 % P
    if (x * x - xx) % P:
        return None
    if x & 1 != sign:
        x = P - x
    return x % P


def _add(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    (x1, y1), (x2, y2) = a, b
    t = _D * x1 * x2 * y1 * y2 % P
    return ((x1 * y2 + x2 * y1) * pow(1 + t, P - 2, P) % P, (y1 * y2 + x1 * x2) * pow(1 - t, P - 2, P) % P)


def _order(pt: tuple[int, int]) -> int:
    acc = pt
    for k in range(1, 9):
        if acc == (0, 1):
            return k
        acc = _add(acc, pt)
    return 0


def test_small_order_list_is_exactly_the_torsion_points() -> None:
    orders = sorted(_order((x, y)) for y in SMALL_ORDER_Y if (x := _recover_x(y, 0)) is not None)
    assert orders == [1, 2, 4, 8, 8]


@pytest.mark.parametrize("y", sorted(SMALL_ORDER_Y))
@pytest.mark.parametrize("sign", [0, 1])
def test_small_order_keys_refused(y: int, sign: int) -> None:
    raw = (y | sign << 255).to_bytes(32, "little")
    with pytest.raises(RemoteProtocolError) as info:
        PublicKey.from_bytes(raw)
    assert info.value.code == "bad-key"
    assert "small order" in str(info.value)


def test_non_canonical_key_refused() -> None:
    raw = (P + 5).to_bytes(32, "little")  # y >= p
    with pytest.raises(RemoteProtocolError) as info:
        PublicKey.from_bytes(raw)
    assert info.value.code == "bad-key"
    assert "not canonical" in str(info.value)


def test_identity_from_rfc8032_seed() -> None:
    # RFC 8032 §7.1 TEST 1
    seed = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
    ident = Identity.from_seed(seed)
    assert ident.public_bytes.hex() == "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
    sig = ident.sign(b"")
    assert sig.hex() == (
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
    )
    pk = PublicKey.from_bytes(ident.public_bytes)
    assert pk.verify(sig, b"")
    assert not pk.verify(sig, b"x")
    assert ident.fingerprint == fingerprint(ident.public_bytes)
    assert len(ident.fingerprint) == 39 and ident.fingerprint.count("-") == 7


def test_identity_dump_load_round_trip_and_errors() -> None:
    ident = Identity.from_seed(bytes(range(32)))
    assert Identity.load(ident.dump()).public_bytes == ident.public_bytes
    with pytest.raises(IdentityError, match="header"):
        Identity.load(b"garbage")
    with pytest.raises(IdentityError, match="not hex"):
        Identity.load(b"p2ptrumps-identity-v1 zz\n")
    with pytest.raises(IdentityError, match="16 bytes, not 32"):
        Identity.load(b"p2ptrumps-identity-v1 " + bytes(16).hex().encode())


def test_keys_that_are_not_curve_points_are_bad_key() -> None:
    """protocol/wire.md §4.2: refused at the hello, not later as a bad signature."""
    from p2ptrumps.wire.identity import is_curve_point

    with pytest.raises(RemoteProtocolError) as info:
        PublicKey.from_bytes((2).to_bytes(32, "little"))
    assert info.value.code == "bad-key" and "not a point of the curve" in str(info.value)
    for i in range(50):
        assert is_curve_point(Identity.from_seed(bytes([i]) * 32).public_bytes)
    # x = 0 (y = 1 or -1: small order anyway) with the sign bit set is no encoding at all
    assert not is_curve_point(((1 << 255) | 1).to_bytes(32, "little"))
    # about half of all y have a point: count over a fixed range
    assert 40 <= sum(is_curve_point(y.to_bytes(32, "little")) for y in range(2, 102)) <= 60
