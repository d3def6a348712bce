"""Network addresses and fingerprints as the user types them (no sockets, no trio: the
command line checks them before anything starts).

Source: issue 3 §3 (``join HOST:PORT``, ``--port P``, ``--fingerprint FP``) and
``protocol/wire.md`` §4.3 (how a typed fingerprint is compared).
"""

from __future__ import annotations

import contextlib
import ipaddress
import re
import socket

DEFAULT_PORT = 4816

_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOSTNAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*\.?")
_FP_SEPARATORS = " \t\r\n:-_"


class AddressError(ValueError):
    """A typed address, port or fingerprint is malformed; the message says how."""


def parse_port(text: str, *, allow_zero: bool = True) -> int:
    """A TCP port as typed -> int.  ``allow_zero``: 0 means "any free port" (``--port 0``).

    Raises:
        AddressError: not a whole number, or outside 0..65535 (1..65535 without ``allow_zero``).
    """
    low = 0 if allow_zero else 1
    t = text.strip()
    if not t.isdigit() or not low <= int(t) <= 65535:
        raise AddressError(f"port must be a number {low}..65535, not {text!r}")
    return int(t)


def parse_address(text: str, default_port: int = DEFAULT_PORT) -> tuple[str, int]:
    """``"HOST:PORT"``, ``"[v6addr]:PORT"``, ``"HOST"`` or a bare IPv6 address -> ``(host, port)``.

    HOST is a host name (letters, digits, ``-``, dots), an IPv4 address, or an IPv6
    address in brackets (``[::1]:4816``); a bare IPv6 address takes the default port.

    Raises:
        AddressError: empty host, a URL (``http://...``), stray colons, bad characters,
            or a port outside 1..65535.
    """
    s = text.strip()
    if "://" in s or "/" in s:
        raise AddressError(f"address {text!r}: give HOST:PORT, not a URL (e.g. 192.168.1.5:4816)")
    m = re.fullmatch(r"\[([^\]]+)\](?::(\d*))?", s)
    port_text: str | None
    if m:
        host, port_text = m.group(1), m.group(2)
        try:
            ipaddress.IPv6Address(host.split("%")[0])
        except ValueError:
            raise AddressError(f"address {text!r}: {host!r} in brackets is not an IPv6 address") from None
    elif s.count(":") == 1:
        host, _, port_text = s.partition(":")
    elif s.count(":") > 1:
        try:
            ipaddress.IPv6Address(s.split("%")[0])
        except ValueError:
            raise AddressError(f"address {text!r} has too many ':' (write IPv6 addresses as [::1]:4816)") from None
        host, port_text = s, None
    else:
        host, port_text = s, None
    if not host:
        raise AddressError(f"address {text!r} has no host (expected HOST:PORT)")
    if ":" not in host and not _HOSTNAME.fullmatch(host):
        raise AddressError(f"address {text!r}: {host!r} is not a host name or IP address")
    if port_text is None or port_text == "":
        return host, default_port
    try:
        return host, parse_port(port_text, allow_zero=False)
    except AddressError:
        raise AddressError(f"address {text!r}: port must be a number 1..65535") from None


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


def local_addresses() -> list[str]:
    """This machine's non-loopback IP addresses (best effort, no packet sent), then 127.0.0.1."""
    found: list[str] = []
    with contextlib.suppress(OSError):
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.append(str(info[4][0]))
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("192.0.2.1", 9))  # TEST-NET-1: nothing is sent, it only picks the outgoing interface
        found.append(str(s.getsockname()[0]))
    out = [a for a in dict.fromkeys(found) if not a.startswith("127.") and a != "0.0.0.0"]
    return [*out, "127.0.0.1"]

