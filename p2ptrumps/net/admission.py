"""Admission to a host: the join ticket, network prefixes and a room that a crowd cannot steer.

Source: ``protocol/wire.md`` §7.3 (the doorway, the join ticket, an expected guest key, refusals,
room by network prefix) and §17 (the caps).
"""

from __future__ import annotations

import base64
import ipaddress
import os
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from ..text import counted

#: Bytes of a join ticket drawn by the reference host (protocol/wire.md §7.3: 8..32 allowed).
TICKET_BYTES = 10
#: Prefix length an IPv6 address is counted by (protocol/wire.md §7.3).
IPV6_PREFIX = 64
#: Default prefix length an IPv4 address is counted by (``host --ipv4-prefix``).
IPV4_PREFIX = 32


class TicketError(ValueError):
    """A join ticket's text that does not read (one line for the user)."""


def new_ticket() -> bytes:
    """A fresh join ticket: :data:`TICKET_BYTES` random bytes."""
    return os.urandom(TICKET_BYTES)


def ticket_text(ticket: bytes) -> str:
    """The ticket as the user types it: lowercase base32, no padding, groups of four joined by ``-``
    (protocol/wire.md §7.3), e.g. ``"mfrg-gzdf-mztw-q2lk"`` for ``b"abcdefghij"``."""
    text = base64.b32encode(ticket).decode("ascii").rstrip("=").lower()
    return "-".join(text[i:i + 4] for i in range(0, len(text), 4))


#: Characters of a ticket's text: one base32 character per 5 bits of 8..32 bytes (protocol/wire.md §7.3).
MIN_TICKET_CHARS, MAX_TICKET_CHARS = 13, 52
_B32 = "abcdefghijklmnopqrstuvwxyz234567"
#: The text lengths base32 gives for whole bytes, by length mod 8 (RFC 4648 §6).
_WHOLE_BYTES = {0, 2, 4, 5, 7}
_EXAMPLE = "mfrg-gzdf-mztw-q2lk"


def parse_ticket(text: str) -> bytes:
    """The bytes of a ticket typed as :func:`ticket_text` shows it (protocol/wire.md §7.3): its
    characters are counted as typed, ``-`` and spaces between groups not counted, case ignored.

    Raises:
        TicketError: a character other than a-z and 2-7; fewer than :data:`MIN_TICKET_CHARS` or more
            than :data:`MAX_TICKET_CHARS` characters; a count no whole number of bytes gives (a
            character missing or one too many); or a last character the host never shows there
            (its spare bits not zero).  E.g. ``"the join ticket 'short' has 5 characters; a ticket
            has 13 to 52 ..."``.
    """
    clean = "".join(ch for ch in text if ch not in "- ").lower()
    shown = f"the join ticket {text!r}"
    form = f"letters a-z and digits 2-7 in groups of four, as the host shows it, e.g. {_EXAMPLE}"
    bad = next((ch for ch in clean if ch not in _B32), None)
    if bad is not None:
        raise TicketError(f"{shown} has {bad!r}, which no ticket has: a ticket is {form}")
    n = len(clean)
    if not MIN_TICKET_CHARS <= n <= MAX_TICKET_CHARS:
        raise TicketError(f"{shown} has {counted(n, 'character')}; a ticket has "
                          f"{MIN_TICKET_CHARS} to {MAX_TICKET_CHARS} (dashes not counted): {form}")
    if n % 8 not in _WHOLE_BYTES:
        raise TicketError(f"{shown} has {n} characters, a count no ticket has: a character is missing or one "
                          f"too many: a ticket is {form}")
    raw = base64.b32decode(clean.upper() + "=" * (-n % 8))
    if ticket_text(raw).replace("-", "") != clean:
        raise TicketError(f"{shown} ends in {clean[-1]!r}, which the host never shows there: check the last "
                          f"group: a ticket is {form}")
    return raw


def split_ticket(address: str) -> tuple[str, bytes | None]:
    """``"HOST:PORT/TICKET"`` -> ``("HOST:PORT", ticket)``; an address without one ``/`` (none, or a URL's
    several) -> ``(address, None)``.

    Raises:
        TicketError: the part after ``/`` is not a ticket.
    """
    where, slash, ticket = address.rpartition("/")
    if not slash or "/" in where or not where:  # a URL or a path: the address check names it
        return address, None
    return where, parse_ticket(ticket)


def network_prefix(ip: str, ipv4_prefix: int = IPV4_PREFIX) -> str:
    """The network an address is counted by (protocol/wire.md §7.3): its /64 for IPv6, its
    /``ipv4_prefix`` for IPv4 (also written IPv4-mapped, ``::ffff:a.b.c.d``); text that is no
    address (a test's memory stream) counts as itself.  Returns the network in CIDR form."""
    try:
        addr = ipaddress.ip_address(ip.split("%", 1)[0])
    except ValueError:
        return ip
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    bits = IPV6_PREFIX if isinstance(addr, ipaddress.IPv6Address) else ipv4_prefix
    return str(ipaddress.ip_network(f"{addr}/{bits}", strict=False))


K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class FairRoom(Generic[K, V]):
    """A room of at most ``cap`` members, at most ``share`` from one network prefix (protocol/wire.md
    §7.3).  :meth:`make_room` says whom a newcomer from a prefix replaces: the oldest member of its own
    prefix when that one holds its share, else (the room full) the oldest member of the prefix holding
    the most -- so a crowd from few networks only ever replaces itself.  ``rank(value)`` (optional): how
    far a member got (e.g. 0: it has sent nothing yet, 1: it has); within the prefix chosen, the oldest
    member of the lowest rank goes first, so a connection that sent nothing never pushes out one that
    did.  Costs: O(1) per member added or removed, O(number of prefixes + share) when one must go."""

    def __init__(self, cap: int, share: int, rank: Callable[[V], int] | None = None) -> None:
        self.cap = cap
        self.share = share
        self.rank = rank
        self.by_prefix: dict[str, dict[K, V]] = {}  # each prefix's members, oldest first
        self.size = 0

    def __len__(self) -> int:
        return self.size

    def count(self, prefix: str) -> int:
        """Members from ``prefix``."""
        return len(self.by_prefix.get(prefix, ()))

    def make_room(self, prefix: str) -> list[tuple[K, V]]:
        """Remove and return the members a newcomer from ``prefix`` replaces (none while there is room)."""
        out: list[tuple[K, V]] = []
        while self.count(prefix) >= self.share or self.size >= self.cap:
            if self.count(prefix) >= self.share:
                victim_prefix = prefix
            else:
                victim_prefix = max(self.by_prefix, key=lambda p: len(self.by_prefix[p]))
            members = self.by_prefix[victim_prefix]
            if self.rank is None:
                key = next(iter(members))
            else:  # the oldest of the lowest rank (min keeps the first of equals: the oldest)
                rank = self.rank
                key = min(members.items(), key=lambda kv: rank(kv[1]))[0]
            out.append((key, self.remove(key, victim_prefix)))  # type: ignore[arg-type]
        return out

    def add(self, key: K, prefix: str, value: V) -> None:
        """Add ``key`` (call :meth:`make_room` first)."""
        self.by_prefix.setdefault(prefix, {})[key] = value
        self.size += 1

    def remove(self, key: K, prefix: str) -> V | None:
        """Remove ``key`` if present; its value, or None."""
        members = self.by_prefix.get(prefix)
        if members is None or key not in members:
            return None
        value = members.pop(key)
        self.size -= 1
        if not members:
            del self.by_prefix[prefix]
        return value

    def values(self) -> list[V]:
        """Every member's value (any order)."""
        return [v for members in self.by_prefix.values() for v in members.values()]
