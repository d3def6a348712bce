"""NAT-PMP (RFC 6886): the few bytes that ask a home router for a TCP port mapping and for its public
IPv4 address, over UDP to the default gateway's port 5351.

Why our own: PyPI's NAT-PMP clients are ``nat-pmp`` 1.3.2 (2021), which needs ``netifaces`` 0.11.0,
built from source on every Python from 3.11 (no wheel: a C compiler at install), and ``py-natpmp``
0.2.5 (2023), the same 2008 code, which finds the gateway by running ``netstat -rn``; neither is
maintained.  The protocol is three fixed-size messages; the default gateway comes from
``netifaces-plus`` (maintained, wheels for Windows, macOS and Linux), which reads the system's
routing table.

Everything here blocks (a UDP socket with a timeout): :mod:`.portmap` runs it in a worker thread, as
it runs the UPnP library.  Each request is sent at most :data:`TRIES_S` times, waiting that long for
the answer each time (RFC 6886 §3.1 starts at 250 ms and doubles), and only an answer from the
gateway's own port 5351 counts.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import struct
from dataclasses import dataclass

#: The gateway's NAT-PMP port (RFC 6886 §3.1).
PORT = 5351
#: Seconds waited for the answer to each send of one request (two sends: 0.75 s at most).
TRIES_S = (0.25, 0.5)
#: Opcodes (RFC 6886 §3.2, §3.3): the public address, a TCP mapping; an answer's is 128 + the request's.
OP_ADDRESS = 0
OP_MAP_TCP = 2
#: Result codes (RFC 6886 §3.5), in words.
RESULTS = {
    0: "success",
    1: "unsupported version",
    2: "not authorized (port mapping is turned off on the router)",
    3: "network failure (the router has no public address yet)",
    4: "out of resources (the router has no mapping left)",
    5: "unsupported opcode",
}


class NatPmpError(Exception):
    """No usable answer: none came (``code`` None), or the gateway answered with a result code other than
    0 (``code``); ``str()`` says which in a few words."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Mapping:
    """A TCP mapping the gateway granted: ``internal_port`` on this machine is reachable at the gateway's
    public address on ``external_port`` for ``lifetime_s`` seconds (0: the mapping was removed)."""

    internal_port: int
    external_port: int
    lifetime_s: int


def address_request() -> bytes:
    """The public-address request: version 0, opcode 0 (RFC 6886 §3.2): ``00 00``."""
    return bytes([0, OP_ADDRESS])


def map_request(internal_port: int, external_port: int, lifetime_s: int) -> bytes:
    """A TCP mapping request (RFC 6886 §3.3), 12 bytes: version 0, opcode 2, 2 reserved bytes, the
    internal port, the suggested external port, the lifetime in seconds (big-endian).  A lifetime of 0
    with external port 0 removes the mapping of ``internal_port`` (§3.4)."""
    return struct.pack("!BBHHHI", 0, OP_MAP_TCP, 0, internal_port, external_port, lifetime_s)


def parse_address_answer(data: bytes) -> str:
    """The public IPv4 address (text) of a public-address answer (RFC 6886 §3.2: 12 bytes).

    Raises:
        NatPmpError: not that answer (length, version, opcode), or a result code other than 0.
    """
    _check_head(data, OP_ADDRESS, 12)
    return str(ipaddress.IPv4Address(data[8:12]))


def parse_map_answer(data: bytes) -> Mapping:
    """The mapping of a TCP mapping answer (RFC 6886 §3.3: 16 bytes).

    Raises:
        NatPmpError: not that answer (length, version, opcode), or a result code other than 0.
    """
    _check_head(data, OP_MAP_TCP, 16)
    internal, external, lifetime = struct.unpack("!HHI", data[8:16])
    return Mapping(internal, external, lifetime)


def _check_head(data: bytes, op: int, size: int) -> None:
    if len(data) < size or data[0] != 0 or data[1] != 128 + op:
        raise NatPmpError(f"the gateway's answer is not a NAT-PMP answer ({data[:4].hex() or 'empty'})")
    code = int.from_bytes(data[2:4], "big")
    if code != 0:
        raise NatPmpError(f"NAT-PMP result {code}: {RESULTS.get(code, 'unknown')}", code)


def ask(gateway: str, request: bytes, *, port: int = PORT) -> bytes:
    """Send ``request`` to ``gateway`` (IPv4 text) and return the first answer from its ``port``, sending
    again after each wait of :data:`TRIES_S`.

    Raises:
        NatPmpError: no answer in time (or no route to the gateway).
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        try:
            sock.connect((gateway, port))  # only the gateway's port delivers answers to this socket
            for wait_s in TRIES_S:
                sock.send(request)
                sock.settimeout(wait_s)
                with contextlib.suppress(TimeoutError):
                    return sock.recv(64)
        except OSError as exc:
            raise NatPmpError(f"no answer from {gateway} ({exc.strerror or exc})") from None
    raise NatPmpError(f"no NAT-PMP answer from {gateway} in {sum(TRIES_S):g} s")


def public_address(gateway: str, *, port: int = PORT) -> str:
    """The gateway's public IPv4 address (text).  Raises :class:`NatPmpError`."""
    return parse_address_answer(ask(gateway, address_request(), port=port))


def map_tcp(gateway: str, internal_port: int, external_port: int, lifetime_s: int, *, port: int = PORT) -> Mapping:
    """Ask ``gateway`` to forward TCP ``external_port`` (a suggestion: the gateway may grant another, which
    the answer says) to ``internal_port`` on this machine for ``lifetime_s`` seconds.
    Raises :class:`NatPmpError`."""
    got = parse_map_answer(ask(gateway, map_request(internal_port, external_port, lifetime_s), port=port))
    if got.internal_port != internal_port:
        raise NatPmpError(f"the gateway answered for port {got.internal_port}, not {internal_port}")
    return got


def unmap_tcp(gateway: str, internal_port: int, *, port: int = PORT) -> None:
    """Remove our TCP mapping of ``internal_port`` (RFC 6886 §3.4: the internal port names it, whatever
    external port it was given).  Raises :class:`NatPmpError`."""
    parse_map_answer(ask(gateway, map_request(internal_port, 0, 0), port=port))


def default_gateway() -> str | None:
    """The IPv4 default gateway of this machine (``netifaces-plus``, from the system's routing table), or
    None when there is none (or it cannot be read)."""
    try:
        import netifaces

        found = netifaces.gateways().get("default", {})
    except (ImportError, OSError, ValueError):
        return None
    entry = found.get(netifaces.AF_INET) if isinstance(found, dict) else None
    return str(entry[0]) if entry else None
