"""The shuffle and the deal as pure functions of a seed.

Source: ``protocol/shuffle.md`` (the algorithm, byte for byte) and RULES.md §3
(dealing alternately, elder first; the sixes rule).

The offline game feeds it random bytes from ``os.urandom``; the networked game
feeds it the commit-reveal result.  Python's ``random`` is not used: its
shuffle is not stable across versions.
"""

from __future__ import annotations

import hashlib

from .cards import SIX, card_index, card_list, pack_mask
from .rules import Position, RuleSet

SHUFFLE_TAG = b"p2ptrumps/shuffle/v1"
FIRST_DEALER_TAG = b"p2ptrumps/first-dealer/v1"


class ByteStream:
    """The DRBG of protocol/shuffle.md §2: SHA-256 in counter mode.

    Block ``i`` (i = 0, 1, ...) is ``SHA-256(SHUFFLE_TAG || len(seed) as u16 BE || seed || i as u64 BE)``;
    the stream is the blocks concatenated.
    """

    def __init__(self, seed: bytes) -> None:
        if not isinstance(seed, (bytes, bytearray)) or not 1 <= len(seed) <= 65535:
            raise ValueError("seed must be 1..65535 bytes")
        self._prefix = SHUFFLE_TAG + len(seed).to_bytes(2, "big") + bytes(seed)
        self._counter = 0
        self._buf = b""

    def read(self, n: int) -> bytes:
        """The next ``n`` bytes of the stream."""
        while len(self._buf) < n:
            self._buf += hashlib.sha256(self._prefix + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
        out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def below(self, n: int) -> int:
        """An unbiased integer in ``[0, n)`` by rejection sampling on 32-bit big-endian words
        (protocol/shuffle.md §3). ``n`` must be 1..2**32."""
        if not 1 <= n <= 1 << 32:
            raise ValueError("n out of range")
        limit = (1 << 32) - (1 << 32) % n
        while True:
            x = int.from_bytes(self.read(4), "big")
            if x < limit:
                return x % n


def shuffled_pack(seed: bytes, pack_size: int) -> list[int]:
    """The pack of ``pack_size`` cards in ascending card order, shuffled by Fisher–Yates
    (i from n-1 down to 1, j = below(i+1), swap) driven by :class:`ByteStream` (protocol/shuffle.md §3).

    Returns card ints, index 0 = first card dealt.
    """
    cards = card_list(pack_mask(pack_size))
    stream = ByteStream(seed)
    for i in range(len(cards) - 1, 0, -1):
        j = stream.below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def deal_hands(seed: bytes, rules: RuleSet, trumps: tuple[int, int], dealer: int) -> tuple[int, int]:
    """Both hands (card bitmasks of seat 0 and seat 1) dealt from ``seed``.

    The shuffled pack is dealt one card at a time, alternately, the elder
    (``1 - dealer``) first; then, with the sixes rule, a player holding the six
    of the opponent's trump gives it to the opponent (RULES.md §3,
    protocol/shuffle.md §4).  Raises ``ValueError`` on a bad dealer or trumps.
    """
    if dealer not in (0, 1):
        raise ValueError(f"dealer must be 0 or 1, not {dealer!r}")
    if len(trumps) != 2 or not all(isinstance(t, int) and 0 <= t <= 3 for t in trumps):
        raise ValueError(f"trumps must be two suits 0..3, not {trumps!r}")
    if trumps[0] == trumps[1]:
        raise ValueError("the two trumps must differ")
    elder = 1 - dealer
    hands = [0, 0]
    for i, c in enumerate(shuffled_pack(seed, rules.pack_size)):
        hands[elder if i % 2 == 0 else dealer] |= 1 << c
    if rules.sixes and rules.pack_size != 32:
        for seat in (0, 1):
            six = 1 << card_index(SIX, trumps[seat])
            other = 1 - seat
            if hands[other] & six:
                hands[other] &= ~six
                hands[seat] |= six
    return hands[0], hands[1]


def start_position(seed: bytes, rules: RuleSet, trumps: tuple[int, int], dealer: int) -> Position:
    """The starting :class:`Position` of the deal from ``seed`` (elder to move)."""
    return Position.start(rules, trumps, deal_hands(seed, rules, trumps, dealer), dealer)


def first_dealer(seed: bytes) -> int:
    """The first deal's dealer drawn from ``seed`` (RULES.md §3; protocol/shuffle.md §5):
    the low bit of the first byte of ``SHA-256(FIRST_DEALER_TAG || seed)``."""
    return hashlib.sha256(FIRST_DEALER_TAG + bytes(seed)).digest()[0] & 1


def stream_bytes(seed: bytes, n: int) -> bytes:
    """The first ``n`` bytes of the DRBG stream of ``seed`` (for test vectors)."""
    return ByteStream(seed).read(n)

