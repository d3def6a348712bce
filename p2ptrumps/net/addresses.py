"""Network addresses as the user types them and as the host gives them out.

Source: README.md "Playing over the network" (``join HOST:PORT``, ``--port P``,
``--fingerprint FP``, IPv6 in brackets, IDN names and names with ``_``, both address families, global
addresses first) and ``protocol/wire.md`` §4.3 (how a typed fingerprint is compared).

The parsing functions open no socket (the command line checks its arguments with them
before anything starts); :func:`local_addresses` asks the operating system for this
machine's interface addresses (the ``ifaddr`` library) and sends nothing.
"""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import re
import socket
import sys

import idna
import ifaddr

from ..message import N_

DEFAULT_PORT = 4816

#: An ASCII label of a host name: letters, digits, ``-`` inside, and ``_`` anywhere (names
#: such as ``my_host`` are common on home networks and resolvers take them).
_LABEL = r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
_HOSTNAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*\.?")
MAX_HOST_NAME_CHARS = 253
_FP_SEPARATORS = " \t\r\n:-_"


class AddressError(ValueError):
    """A typed address, port or fingerprint is malformed; the message says how."""


def parse_port(text: str, *, allow_zero: bool = True) -> int:
    """A TCP port as typed -> int.  ``allow_zero``: 0 means "any free port" (``--port 0``).
    Only the ASCII digits 0-9 count (not ``+``, ``²`` or other scripts' digits); spaces around
    the number are ignored.

    Raises:
        AddressError: not a whole number, or outside 0..65535 (1..65535 without ``allow_zero``),
            e.g. ``"port must be a number 1..65535, not '0' (0 is a host's "any free port": use
            the port the host shows)"``.
    """
    low = 0 if allow_zero else 1
    t = text.strip()
    if not re.fullmatch(r"[0-9]{1,5}", t) or not low <= int(t) <= 65535:
        why = ""
        if not allow_zero and re.fullmatch(r"0+", t):
            why = " (0 is a host's \"any free port\": use the port the host shows)"
        raise AddressError(f"port must be a number {low}..65535, not {text!r}{why}")
    return int(t)


#: An IPv6 zone (scope) as typed after ``%``: an interface's name or number (``eth0``, ``2``): no space,
#: ``:``, ``%``, ``/`` or brackets.
_ZONE = re.compile(r"[^\s:%/\[\]]{1,64}")


def _is_ipv4(text: str) -> bool:
    try:
        ipaddress.IPv4Address(text)
    except ValueError:
        return False
    return True


def _v6_with_port(text: str) -> tuple[str, str] | None:
    """``("::1", "4000")`` when ``text`` reads as an IPv6 address, ``:``, and a port (``::1:4000``);
    else None.  Such a text is either that address and port without brackets, or (when the whole is
    an IPv6 address too) another address: the reader cannot tell."""
    head, colon, tail = text.rpartition(":")
    if not colon or not re.fullmatch(r"[0-9]{1,5}", tail) or not 1 <= int(tail) <= 65535:
        return None
    return (head, tail) if is_ipv6(head) else None


def _check_typed(text: str, what: str, form: str, example: str) -> str:
    """The typed ``text`` with spaces around it removed, refused when empty, with a space or
    control character inside, or a URL.  ``what`` names the field, ``form`` and ``example`` show
    what to type."""
    s = text.strip()
    if not s:
        raise AddressError(f"{what} is empty (expected {form}, e.g. {example})")
    if any(ch.isspace() or ord(ch) < 0x20 or ch == "\x7f" for ch in s):
        raise AddressError(f"{what} {text!r} has a space or control character inside: write it with none "
                           f"(expected {form}, e.g. {example})")
    if "://" in s or "/" in s:
        raise AddressError(f"{what} {text!r}: give {form}, not a URL (e.g. {example})")
    return s


def parse_address(text: str, default_port: int | None = DEFAULT_PORT) -> tuple[str, int]:
    """``"HOST:PORT"``, ``"[v6addr]:PORT"``, ``"HOST"``, ``"[v6addr]"`` or a bare IPv6 address -> ``(host, port)``.

    HOST is a host name (letters, digits, ``-``, ``_``, dots; IDN), an IPv4 address, or an IPv6
    address (a zone such as ``%eth0`` allowed) in brackets (``[::1]:4816``).  Without a port
    (no ``:PORT`` at all) the default port is used.  A bare IPv6 address (no brackets) is taken
    only when it cannot be read as an address and a port: ``::1:4000`` is refused with both ways
    to write what was meant (``[::1]:4000``, or ``[::1:4000]``); ``::1`` and ``fe80::1%eth0`` are
    taken.  Spaces around the text are ignored.  ``default_port`` None: the port must be given.

    Raises:
        AddressError: empty, a space inside, a URL (``http://...``), no host, an ambiguous
            bare IPv6 address with a port, stray colons, bad characters, ``HOST:`` with no port
            after the colon, or a port that is not a number 1..65535.
    """
    s = _check_typed(text, "address", "HOST:PORT", "192.168.1.5:4816")
    m = re.fullmatch(r"\[([^\]]*)\](?::(.*))?", s)
    port_text: str | None
    if m:
        host, port_text = m.group(1), m.group(2)
        if not is_ipv6(host):
            v4 = " (IPv4 addresses go without brackets)" if _is_ipv4(host) else ""
            raise AddressError(f"address {text!r}: {host!r} in brackets is not an IPv6 address{v4}")
    elif s.count(":") == 1:
        host, _, port_text = s.partition(":")
    elif s.count(":") > 1:
        split = _v6_with_port(s)
        if split is not None:
            head, tail = split
            default = f" on the default port {default_port}" if default_port is not None else ""
            other = f", or [{s}] for the IPv6 address {s} itself{default}" if is_ipv6(s) else ""
            raise AddressError(f"address {text!r}: write an IPv6 address with its port in brackets: "
                               f"[{head}]:{tail}{other}")
        if not is_ipv6(s):
            raise AddressError(f"address {text!r} has too many ':' (write IPv6 addresses as [::1]:4816)")
        host, port_text = s, None
    else:
        host, port_text = s, None
    if not host:
        raise AddressError(f"address {text!r} has no host (expected HOST:PORT)")
    if port_text is None and re.fullmatch(r"[0-9]{1,5}", host):
        raise AddressError(f"address {text!r} is a port alone: write the host's address before it "
                           f"(HOST:{host}, as the host printed it), or give the host's code (7-crossover-clockwork)")
    if ":" not in host:
        check_host_name(host, text)
    if port_text is None:
        if default_port is None:
            raise AddressError(f"address {text!r} has no port (expected HOST:PORT)")
        return host, default_port
    if port_text == "":
        if default_port is None:
            raise AddressError(f"address {text!r} has no port after the ':' (expected HOST:PORT)")
        raise AddressError(f"address {text!r} has no port after the ':': write {format_address(host, default_port)} "
                           f"(the port the host shows), or leave out the ':' for the default port {default_port}")
    try:
        return host, parse_port(port_text, allow_zero=False)
    except AddressError as exc:
        raise AddressError(f"address {text!r}: {exc}") from None


def parse_bind(text: str) -> str:
    """A ``host --bind`` value as typed -> the address or name to listen on (``[v6]`` brackets
    kept, spaces around removed): an IPv4 address, an IPv6 address (bare or in brackets, a zone
    allowed) or a host name -- never a port, which ``--port`` gives.

    Raises:
        AddressError: empty, a space inside, a URL, a port in it (``127.0.0.1:4000``,
            ``[::1]:4000``; also ``::1:4000``, which reads as an address and a port), or not an
            address or host name.
    """
    s = _check_typed(text, "--bind", "an address or host name", "192.168.1.5 or ::1")
    m = re.fullmatch(r"\[([^\]]*)\](?::(.*))?", s)
    if m:
        host = m.group(1)
        if not is_ipv6(host):
            v4 = " (IPv4 addresses go without brackets)" if _is_ipv4(host) else ""
            raise AddressError(f"--bind {text!r}: {host!r} in brackets is not an IPv6 address{v4}")
        if m.group(2) is not None:
            raise AddressError(f"--bind {text!r}: --bind takes an address only; give the port with --port "
                               f"(--bind {host} --port {m.group(2) or 'P'})")
        return s
    if s.count(":") == 1:
        host, _, port = s.partition(":")
        raise AddressError(f"--bind {text!r}: --bind takes an address only; give the port with --port "
                           f"(--bind {host or 'ADDR'} --port {port or 'P'})")
    if s.count(":") > 1:
        split = _v6_with_port(s)
        if split is not None:
            other = f", or --bind '[{s}]' for the IPv6 address {s} itself" if is_ipv6(s) else ""
            raise AddressError(f"--bind {text!r} reads as an address and a port: write --bind {split[0]} "
                               f"--port {split[1]}{other}")
        if not is_ipv6(s):
            raise AddressError(f"--bind {text!r} is not an IPv4 or IPv6 address or a host name")
        return s
    check_host_name(s, text)
    return s


def check_host_name(host: str, typed: str | None = None) -> str:
    """A host name or IPv4 address as typed -> unchanged, or :class:`AddressError`.

    ASCII names are labels of letters, digits, ``-`` and ``_`` joined by dots; a name
    with other letters (``игра.рф``) must encode as an internationalized domain name
    (IDNA 2008 with UTS #46 mapping, as the resolver will encode it).  Four numbers joined by dots
    are an IPv4 address or nothing (``999.1.1.1`` is refused here, not left to the resolver).
    """
    where = f"address {typed!r}: " if typed is not None else ""
    if not host:
        raise AddressError(f"{where}no host name")
    if len(host) > MAX_HOST_NAME_CHARS:
        raise AddressError(f"{where}the host name is over {MAX_HOST_NAME_CHARS} characters")
    if host.isascii():
        if not _HOSTNAME.fullmatch(host):
            raise AddressError(f"{where}{host!r} is not a host name or IP address")
        if re.fullmatch(r"[0-9.]+", host) and not _is_ipv4(host.rstrip(".")):
            # A resolver reads numbers as an address of its own (``12.34`` is 12.0.0.34): never a name.
            raise AddressError(f"{where}{host!r} is not an IPv4 address: its four numbers are each 0 to 255, "
                               "without leading zeros" if host.rstrip(".").count(".") == 3 else
                               f"{where}{host!r} is not an IPv4 address: four numbers joined by dots, each 0 to "
                               "255, without leading zeros")
        return host
    try:
        idna.encode(host, uts46=True)
    except idna.IDNAError as exc:
        raise AddressError(f"{where}{host!r} is not a host name or IP address ({exc})") from None
    return host


def unresolved_bind(bind: str | None) -> str | None:
    """Why ``host --bind NAME`` cannot be listened on, asked before anything else is done (the
    terminal, the key): ``"--bind 'x.invalid': the name does not resolve (Name or service not
    known)"``; None without ``--bind``, for an address, or a name that resolves (the resolver is
    asked as the listener will ask it: ``getaddrinfo`` with ``AI_PASSIVE``)."""
    if bind is None:
        return None
    literal = bind[1:-1] if bind.startswith("[") and bind.endswith("]") else bind
    if is_ipv6(literal) or _is_ipv4(literal):
        return None
    try:
        socket.getaddrinfo(literal, None, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as exc:
        return f"--bind {bind!r}: the name does not resolve ({getattr(exc, 'strerror', None) or exc})"
    return None


def format_address(host: str, port: int) -> str:
    """``(host, port)`` -> ``"host:port"`` (``"[v6]:port"`` for IPv6)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def check_fingerprint(text: str) -> str:
    """A typed fingerprint (protocol/wire.md §4.3: 32 base32 characters, separators and
    case ignored) -> the text unchanged.

    Raises:
        AddressError: empty, wrong length or characters outside ``A-Z2-7``.
    """
    bare = "".join(ch for ch in text if ch not in _FP_SEPARATORS).upper()
    if len(bare) != 32 or not re.fullmatch(r"[A-Z2-7]{32}", bare):
        raise AddressError(
            f"fingerprint {text!r} is malformed: expected 32 characters A-Z 2-7 "
            "(as `p2ptrumps id` shows, e.g. FUGV-REOI-FFMR-732D-2R4T-KNXL-BRUX-7JNS)"
        )
    return text


def is_ipv6(host: str) -> bool:
    """True if ``host`` is an IPv6 address, maybe with a zone (``fe80::1%eth0``): the zone is an
    interface name or number, with no space, ``:``, ``%``, ``/`` or bracket (so that
    ``fe80::1%eth0:4816`` is not read as a zone ``eth0:4816``)."""
    address, pct, zone = host.partition("%")
    if pct and not _ZONE.fullmatch(zone):
        return False
    try:
        ipaddress.IPv6Address(address)
    except ValueError:
        return False
    return True


def _rank(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> int:
    """0 global, 1 private or unique-local, 2 loopback: the order addresses are given out in."""
    if address.is_loopback:
        return 2
    return 0 if address.is_global else 1


def worth_giving_out(addresses: list[str], families: set[int]) -> list[str]:
    """Of ``addresses`` (text), those of ``families`` (``socket.AF_INET``/``AF_INET6``) that a
    peer could reach: no link-local, multicast or unspecified ones, duplicates dropped;
    global addresses first, then private (RFC 1918, unique-local), then loopback, each
    group IPv6 before IPv4 and otherwise in the given order."""
    keep: list[tuple[int, int, int, str]] = []
    for i, text in enumerate(dict.fromkeys(addresses)):
        try:
            address = ipaddress.ip_address(text.split("%")[0])
        except ValueError:
            continue
        family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
        if family not in families or address.is_link_local or address.is_multicast or address.is_unspecified:
            continue
        keep.append((_rank(address), 0 if address.version == 6 else 1, i, str(address)))
    return [text for *_, text in sorted(keep)]


#: Linux's flags of an IPv6 address (``IFA_F_*``, /proc/net/if_inet6) and the BSDs' and macOS's
#: (``IN6_IFF_*``) that make an address one not to give out: temporary (RFC 8981: it changes daily and
#: vanishes, and a guest redialling it after a cut finds nobody), deprecated (its preferred lifetime is
#: over), tentative or a duplicate (not usable yet, or ever).
_LINUX_UNSTABLE = 0x01 | 0x08 | 0x20 | 0x40  # TEMPORARY, DADFAILED, DEPRECATED, TENTATIVE
_BSD_UNSTABLE = 0x02 | 0x04 | 0x08 | 0x10 | 0x80  # TENTATIVE, DUPLICATED, DETACHED, DEPRECATED, TEMPORARY


def unstable_ipv6() -> set[str]:
    """This machine's IPv6 addresses not to give out (temporary, deprecated, tentative: see
    :data:`_LINUX_UNSTABLE`), as text without a zone.  Linux: ``/proc/net/if_inet6``; macOS and the BSDs:
    the flags ``netifaces-plus`` reads (``SIOCGIFAFLAG_IN6``); elsewhere (Windows) none is known, and every
    address is given out.  Never raises."""
    found: set[str] = set()
    with contextlib.suppress(OSError, ValueError):
        with open("/proc/net/if_inet6", encoding="ascii") as f:
            for line in f.read().splitlines()[:4096]:  # bounded: one line per address
                fields = line.split()
                if len(fields) >= 5 and int(fields[4], 16) & _LINUX_UNSTABLE:
                    found.add(str(ipaddress.IPv6Address(int(fields[0], 16))))
        return found
    if sys.platform == "win32":
        return found
    with contextlib.suppress(ImportError, OSError, ValueError, TypeError, AttributeError):
        import netifaces

        temporary = int(getattr(netifaces, "IN6_IFF_TEMPORARY", 0x80))
        for per_family in netifaces.allifaddresses().values():
            for entry in per_family.get(netifaces.AF_INET6, []):
                flags = int(entry.get("flags", 0) or 0)
                if flags & (_BSD_UNSTABLE | temporary) and entry.get("addr"):
                    found.add(str(entry["addr"]).split("%")[0])
    return found


def local_addresses(families: set[int] | None = None) -> list[str]:
    """This machine's addresses worth giving out (see :func:`worth_giving_out`), of
    ``families`` (default both), from every network interface; no packet is sent.
    Loopback addresses come last (``127.0.0.1``, ``::1``), so the list is never empty
    for a family this machine has.  IPv6 addresses that are temporary or deprecated
    (:func:`unstable_ipv6`) are left out: the stable one is given, which outlives a match."""
    families = families if families is not None else {socket.AF_INET, socket.AF_INET6}
    found: list[str] = []
    with contextlib.suppress(OSError, ValueError):
        for adapter in ifaddr.get_adapters():
            for ip in adapter.ips:
                found.append(ip.ip[0] if isinstance(ip.ip, tuple) else ip.ip)
    for family, probe in ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1")):
        # Documentation addresses: connecting a UDP socket sends nothing, it only picks the
        # outgoing interface (a fallback where the interfaces cannot be listed).
        with contextlib.suppress(OSError), socket.socket(family, socket.SOCK_DGRAM) as s:
            s.connect((probe, 9))
            found.append(str(s.getsockname()[0]))
    found += ["127.0.0.1", "::1"]
    unstable = unstable_ipv6() if socket.AF_INET6 in families else set()
    return worth_giving_out([a for a in found if a.split("%")[0] not in unstable], families)


def sockaddr_text(sockaddr: tuple[object, ...]) -> str:
    """A socket address from ``getaddrinfo`` as text, an IPv6 scope kept: ``("fe80::1", 4816, 0, 2)``
    -> ``"fe80::1%eth0"`` (the interface's name, or its number where it has none)."""
    host = str(sockaddr[0])
    scope = sockaddr[3] if len(sockaddr) >= 4 else 0
    if isinstance(scope, int) and scope and "%" not in host:
        try:
            zone = socket.if_indextoname(scope)
        except (OSError, AttributeError):  # no such interface now; Windows before 3.12 has no if_indextoname
            zone = str(scope)
        host = f"{host}%{zone}"
    return host


def family_name(family: int) -> str:
    """``"IPv4"`` / ``"IPv6"`` for ``socket.AF_INET`` / ``AF_INET6``."""
    return "IPv6" if family == socket.AF_INET6 else "IPv4" if family == socket.AF_INET else f"family {family}"


def family_missing(family: int, exc: OSError) -> str:
    """Why a socket of ``family`` could not be made, for one line: ``"IPv6 is not available here:
    address family not supported"`` when the kernel lacks the family (``ipv6.disable=1``)."""
    if exc.errno in (errno.EAFNOSUPPORT, errno.EPROTONOSUPPORT, errno.EPFNOSUPPORT):
        return N_("%(family)s is not available here: address family not supported", family=family_name(family))
    return N_("no %(family)s socket: %(why)s", family=family_name(family), why=exc.strerror or str(exc))
