"""``p2ptrumps join``: reach the host at a typed address and play as the guest.

Source: issue 3 §3, issue 6 §1 (any host name, every address it resolves to).
"""

from __future__ import annotations

import errno
import socket

import trio

from . import addresses
from .addresses import DEFAULT_PORT, format_address
from .config import EXIT_CONNECT, EXIT_USAGE, NetConfig, NetplayError, NetResult, say
from .driver import play_over
from .logfile import check_log_free


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


def _connect_error(where: str, host_name: str, exc: OSError) -> str:
    """A one-line reason why connecting to ``where`` failed (refused, unknown name, ...)."""
    errors: list[BaseException] = [exc]
    for _ in range(4):  # trio wraps each attempt's error in the cause (an exception group)
        cause = errors[-1].__cause__
        if cause is None:
            break
        errors.append(cause)
    leaves: list[BaseException] = []
    for e in errors:
        if isinstance(e, BaseExceptionGroup):
            leaves.extend(e.exceptions)
        else:
            leaves.append(e)
    if any(isinstance(e, socket.gaierror) for e in leaves):
        return f"cannot connect to {where}: unknown host name {host_name!r} (check the address)"
    codes = {getattr(e, "errno", None) for e in leaves}
    if errno.ECONNREFUSED in codes:
        return f"cannot connect to {where}: connection refused (is the host running? is the port right?)"
    for code, text in ((errno.ETIMEDOUT, "timed out"), (errno.EHOSTUNREACH, "no route to the host"),
                       (errno.ENETUNREACH, "network unreachable")):
        if code in codes:
            return f"cannot connect to {where}: {text}"
    real = [e for e in leaves if isinstance(e, OSError) and e.strerror]
    return f"cannot connect to {where}: {real[0].strerror if real else exc}"


async def join(cfg: NetConfig, address: str) -> NetResult:
    """Connect to ``address`` (``HOST:PORT``) and play one match as the guest.

    Raises :class:`NetplayError` (status 3 when the connection cannot be made
    within ``cfg.timeout_s`` seconds: refused, unknown host name, ...; status 1
    when ``--log`` exists).
    """
    host_name, port = parse_address(address)
    where = format_address(host_name, port)
    check_log_free(cfg)
    try:
        with trio.fail_after(cfg.timeout_s):
            stream = await trio.open_tcp_stream(host_name, port)
    except trio.TooSlowError:
        raise NetplayError(EXIT_CONNECT, f"cannot connect to {where}: no answer in {cfg.timeout_s:g} s") from None
    except OSError as exc:
        raise NetplayError(EXIT_CONNECT, _connect_error(where, host_name, exc)) from None
    say(cfg, f"connected to {where}; your key fingerprint {cfg.identity.fingerprint}")
    return await play_over(stream, cfg, where)

