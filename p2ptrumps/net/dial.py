"""``p2ptrumps join``: reach the host at a typed address and play as the guest.

Source: README.md "Playing over the network" (any host name, every address it resolves to).
"""

from __future__ import annotations

import contextlib
import errno
import socket

import trio

from ..message import N_, joined, message_of
from ..wire import framing, messages
from . import addresses
from .addresses import DEFAULT_PORT, family_missing, format_address, sockaddr_text
from .admission import TicketError, split_ticket
from .blocked import blocked_key, refusal_note
from .config import (
    EXIT_CONNECT,
    EXIT_KEY_REFUSED,
    EXIT_PEER_FAULT,
    EXIT_USAGE,
    NetConfig,
    NetplayError,
    NetResult,
    say,
    shared_key_hint,
)
from .driver import GUEST_BACKOFF_S, UnheardError, play_over
from .logfile import check_log_free
from .portmap import describe_path, next_step
from .secure import HANDSHAKE_TIME_S, SecureError, SecureStream, secure
from .transport import Link


def parse_address(text: str, default_port: int = DEFAULT_PORT) -> tuple[str, int]:
    """``"HOST:PORT"``, ``"[v6addr]:PORT"`` or ``"HOST"`` -> ``(host, port)``
    (see :func:`p2ptrumps.net.addresses.parse_address`).

    Raises:
        NetplayError: (status 2) empty host, a URL, stray colons, bad or out-of-range port.
    """
    try:
        return addresses.parse_address(text, default_port)
    except addresses.AddressError as exc:
        raise NetplayError(EXIT_USAGE, str(exc)) from None


#: Seconds between starting connection attempts to successive addresses (RFC 8305 §5
#: recommends 250 ms): a slow first address does not hold up the next one.
ATTEMPT_DELAY_S = 0.25


class ConnectError(OSError):
    """No address of a host name took the connection; ``attempts`` lists each address
    tried and why it failed, ``message`` is the one line for the user."""

    def __init__(self, message: str, attempts: list[tuple[str, str]]) -> None:
        super().__init__(message)
        self.message = message
        self.attempts = attempts


#: Why an address did not connect, in the words :func:`~p2ptrumps.net.portmap.next_step` reads.
REFUSED, UNREACHABLE = N_("connection refused"), N_("network unreachable")


def _why_failed(exc: BaseException) -> str:
    code = getattr(exc, "errno", None)
    for known, text in ((errno.ECONNREFUSED, REFUSED), (errno.ETIMEDOUT, N_("timed out")),
                        (errno.EHOSTUNREACH, N_("no route to the host")), (errno.ENETUNREACH, UNREACHABLE),
                        (errno.EADDRNOTAVAIL, N_("address not available here")),
                        (errno.EAFNOSUPPORT, N_("address family not supported here"))):
        if code == known:
            return text
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


def _interleave(infos: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The resolved addresses with the families alternating, the first family first (RFC 8305 §4)."""
    if not infos:
        return []
    first = infos[0][0]
    a = [x for x in infos if x[0] == first]
    b = [x for x in infos if x[0] != first]
    out: list[tuple[int, str]] = []
    for i in range(max(len(a), len(b))):
        out += a[i:i + 1] + b[i:i + 1]
    return out


async def connect(host_name: str, port: int, timeout_s: float,
                  attempt_delay_s: float = ATTEMPT_DELAY_S) -> trio.SocketStream:
    """A TCP connection to ``host_name`` (a name, IDN or not, or an IP literal) at ``port``.

    Every address the name resolves to is tried, the families alternating, a new attempt
    starting every ``attempt_delay_s`` seconds (or at once when the one before failed)
    while earlier ones go on; the first to connect wins and the others are cancelled
    (happy eyeballs, RFC 8305).  ``trio.open_tcp_stream`` does the same but does not say
    which address failed how; this does, so the user can tell an IPv6 route problem from
    a host that is not running.

    Raises:
        ConnectError: the name does not resolve, or no address connected within
            ``timeout_s`` seconds; the message names each address tried and why it failed.
    """
    where = format_address(host_name, port)
    try:
        with trio.fail_after(timeout_s):
            infos = await trio.socket.getaddrinfo(host_name, port, type=socket.SOCK_STREAM)
    except trio.TooSlowError:
        raise ConnectError(N_("cannot connect to %(address)s: the name %(name)s did not resolve in %(seconds)s s",
                              address=where, name=repr(host_name), seconds=f"{timeout_s:g}"), []) from None
    except (OSError, UnicodeError) as exc:
        raise ConnectError(N_("cannot connect to %(address)s: unknown host name %(name)s (%(why)s; check the address)",
                              address=where, name=repr(host_name), why=getattr(exc, "strerror", None) or str(exc)),
                           []) from None
    # The whole socket address is kept: an IPv6 scope id (fe80::1%eth0) is needed to connect.
    sockaddrs = {sockaddr_text(addr): (int(family), tuple(addr)) for family, _, _, _, addr in infos
                 if family in (socket.AF_INET, socket.AF_INET6)}
    targets = _interleave([(family, text) for text, (family, _) in sockaddrs.items()])
    if not targets:
        raise ConnectError(N_("cannot connect to %(address)s: %(name)s has no IPv4 or IPv6 address", address=where,
                              name=repr(host_name)), [])
    failed: dict[str, str] = {}
    winner: list[trio.SocketStream] = []

    async def attempt(family: int, address: str, gave_up: trio.Event) -> None:
        try:
            sock = trio.socket.socket(family, socket.SOCK_STREAM)
        except OSError as exc:  # the family is missing here (IPv6 disabled in the kernel): try the others
            failed[address] = family_missing(family, exc)
            gave_up.set()
            return
        try:
            await sock.connect(sockaddrs[address][1])
        except OSError as exc:
            sock.close()
            failed[address] = _why_failed(exc)
            gave_up.set()
            return
        except BaseException:
            sock.close()
            raise
        if winner:
            sock.close()
            return
        winner.append(trio.SocketStream(sock))
        nursery.cancel_scope.cancel()

    with trio.move_on_after(timeout_s):
        async with trio.open_nursery() as nursery:
            for family, address in targets:
                gave_up = trio.Event()
                nursery.start_soon(attempt, family, address, gave_up)
                with trio.move_on_after(attempt_delay_s):
                    await gave_up.wait()
    if winner:
        return winner[0]
    attempts = [(a, failed.get(a, N_("no answer in %(seconds)s s", seconds=f"{timeout_s:g}"))) for _, a in targets]
    detail = joined([N_("%(address)s %(why)s", address=format_address(a, port), why=why) for a, why in attempts])
    hint = N_("is the host running? is the port right?") if any(
        why == REFUSED for _, why in attempts) else next_step([a for a, _ in attempts], [why for _, why in attempts])
    if len(attempts) == 1 and attempts[0][0] == host_name:
        return_text = N_("cannot connect to %(address)s: %(why)s (%(hint)s)", address=where, why=attempts[0][1],
                         hint=hint)
    else:
        return_text = N_("cannot connect to %(address)s: tried %(detail)s (%(hint)s)", address=where, detail=detail,
                         hint=hint)
    raise ConnectError(return_text, attempts)


async def dial_secure(cfg: NetConfig, host_name: str, port: int, timeout_s: float,
                      expect: bytes | None = None) -> SecureStream:
    """:func:`connect`, then the encrypted handshake as the TLS client (protocol/wire.md §18), within
    ``timeout_s`` seconds in all (the handshake within 10 s of them); ``expect``: the host's key when
    known (any other is refused).

    Raises:
        ConnectError: no connection (see :func:`connect`).
        SecureError: the handshake failed or the key is refused (the message is the line to show).
        NetplayError: status 5, the host proved our own key (two processes share one data directory).
    """
    deadline = trio.current_time() + timeout_s
    return await client_handshake(cfg, await connect(host_name, port, timeout_s), deadline, expect)


async def client_handshake(cfg: NetConfig, raw: trio.abc.Stream, deadline: float,
                           expect: bytes | None = None) -> SecureStream:
    """The encrypted handshake as the TLS client (protocol/wire.md §18) over ``raw``, done by
    ``deadline`` (trio time, seconds; at most 10 s of it); ``expect``: the host's key when known.
    ``raw`` is closed on failure.

    Raises:
        SecureError: the handshake failed or the key is refused (the message is the line to show).
        NetplayError: status 5, the host proved our own key (two processes share one data directory).
    """
    stream = secure(raw, cfg.identity, server=False, expect=expect,
                    handshake_time_s=min(HANDSHAKE_TIME_S, max(0.0, deadline - trio.current_time())))
    try:
        await stream.handshake()
    except SecureError:
        await trio.aclose_forcefully(stream)
        raise
    if stream.peer_key == cfg.identity.public_bytes:  # known before any hello: one data directory, two processes
        await trio.aclose_forcefully(stream)
        raise NetplayError(EXIT_PEER_FAULT, N_("the peer broke the protocol: the peer uses our own public key "
                                               "[%(code)s]%(hint)s", code="bad-key", hint=shared_key_hint(cfg.data)))
    return stream


async def join(cfg: NetConfig, address: str) -> NetResult:
    """Connect to ``address`` (``HOST:PORT``; see :func:`connect`) and play one match as the guest.

    Raises :class:`NetplayError` (status 3 when the connection cannot be made
    within ``cfg.timeout_s`` seconds: refused, unknown host name, ..., each address
    named; status 1 when ``--log`` exists).
    """
    try:
        address, ticket = split_ticket(address)
    except TicketError as exc:
        raise NetplayError(EXIT_USAGE, str(exc)) from None
    ticket = ticket if ticket is not None else cfg.ticket
    host_name, port = parse_address(address)
    where = format_address(host_name, port)
    check_log_free(cfg)
    cfg.address = address  # for the resume file (protocol/files.md); a resume needs no ticket (wire.md §7.3)
    say(cfg, N_("trying the host directly at %(address)s ...", address=where))
    for pause in (*JOIN_AGAIN_S, None):
        try:
            return await _join_once(cfg, host_name, port, where, ticket)
        except (UnheardError, _Unheard) as exc:  # dropped unheard from a crowded doorway: again (wire.md §7.3)
            if pause is None:
                raise NetplayError(EXIT_CONNECT if isinstance(exc, _Unheard) else exc.status, message_of(exc)) from None
            say(cfg, N_("%(fault)s; connecting again in %(seconds)s s ...", fault=message_of(exc),
                        seconds=f"{pause:g}"))
            await trio.sleep(pause)
    raise AssertionError("unreachable")


#: Seconds a guest gives its ``refuse`` frame to a host whose key it blocked (protocol/wire.md §7.3).
REFUSE_SEND_S = 2.0


async def turn_away_blocked(cfg: NetConfig, stream: SecureStream, where: str) -> None:
    """(guest) When this user blocked the key the host's handshake proved (protocol/wire.md §7.3),
    send ``["refuse", "blocked"]`` as the first frame (for at most :data:`REFUSE_SEND_S` seconds), close
    the connection and raise; nothing is written.  ``where``: ``"at HOST:PORT"``, for the line.

    Raises:
        NetplayError: status 6 (a key refused), one line naming the key and how to unblock it.
    """
    key = stream.peer_key
    if key is None:
        return
    entry, trouble = blocked_key(cfg.data, key)
    if trouble:
        say(cfg, trouble)
    if entry is None:
        return
    with trio.move_on_after(REFUSE_SEND_S), contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError,
                                                                 OSError):
        await stream.send_all(framing.frame(messages.Refuse("blocked").encode()))
    await trio.aclose_forcefully(stream)
    raise NetplayError(EXIT_KEY_REFUSED, N_("%(note)s; nothing was written",
                                            note=refusal_note(entry, "", where, N_("the host"))))


class _Unheard(Exception):
    """The encrypted handshake of a join was cut short by the host (closed, not refused)."""


#: Seconds between the tries of a join whose connection the host closed unheard (protocol/wire.md §7.3):
#: four tries in all.
JOIN_AGAIN_S = (1.0, 2.0, 4.0)


async def _join_once(cfg: NetConfig, host_name: str, port: int, where: str, ticket: bytes | None) -> NetResult:
    """One try of :func:`join`: connect, send the ticket, play."""
    try:
        stream = await dial_secure(cfg, host_name, port, cfg.timeout_s)
    except ConnectError as exc:
        raise NetplayError(EXIT_CONNECT, exc.message) from None
    except SecureError as exc:
        if exc.kind == "closed":
            raise _Unheard(N_("cannot connect to %(address)s: %(why)s", address=where, why=message_of(exc))) from None
        raise NetplayError(EXIT_KEY_REFUSED if exc.kind == "key" else EXIT_CONNECT,
                           N_("cannot connect to %(address)s: %(why)s", address=where, why=message_of(exc))) from None
    await turn_away_blocked(cfg, stream, N_("at %(address)s", address=where))
    say(cfg, N_("connected to %(address)s; your key fingerprint %(fingerprint)s", address=where,
                fingerprint=cfg.identity.fingerprint))
    if ticket is not None:  # the first frame, right before the hello (protocol/wire.md §7.3)
        try:
            await stream.send_all(framing.frame(messages.Ticket(ticket).encode()))
        except (trio.BrokenResourceError, OSError) as exc:
            raise NetplayError(EXIT_CONNECT, N_("the connection to %(address)s ended at once (%(why)s)", address=where,
                                                why=str(exc))) from None
    sock = getattr(stream.transport, "socket", None)  # the TCP socket below the encryption
    with contextlib.suppress(OSError, AttributeError):
        cfg.report.path = describe_path(str(sock.getsockname()[0]), str(sock.getpeername()[0]))  # type: ignore[union-attr]
        say(cfg, N_("path: %(path)s", path=cfg.report.path))

    async def redial(seconds_left: float) -> Link | None:
        try:
            return Link(await dial_secure(cfg, host_name, port, min(seconds_left, cfg.timeout_s)))
        except ConnectError as exc:
            cfg.report.last_try = exc.message
            return None
        except SecureError as exc:
            cfg.report.last_try = str(exc)
            return None

    return await play_over(stream, cfg, where, redial=redial, backoff_s=GUEST_BACKOFF_S)
