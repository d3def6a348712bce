"""Meet by code: ``host --code`` and ``join CODE`` (``protocol/rendezvous.md``).

The two peers swap one message each through the mailbox (:mod:`.mailbox`): the host's offer (its
key, its addresses, a transit relay and a channel on it) and the guest's answer (its key).  Then
the guest connects to the host's addresses at once and, after :data:`RELAY_AFTER_S` seconds
without a connection, through the relay too; the host accepts on its port and waits at the
relay (:class:`RelayListener`).  From there the match is the usual one (``wire.md``) with both
keys pinned by the code: ``cfg.code_fingerprint`` (see :mod:`.driver`).

Every connection made here is a plain ``trio.SocketStream`` from :func:`.dial.connect` or a
listener's ``accept``, as for a match by address, so whatever the transport puts on such a stream
covers these too.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import trio

from ..text import quoted
from ..wire.identity import fingerprint
from . import addresses, mailbox
from .config import EXIT_CONNECT, EXIT_KEY_REFUSED, EXIT_PEER_FAULT, NetConfig, NetplayError, NetResult, say
from .dial import ConnectError, client_handshake, connect, turn_away_blocked
from .driver import GUEST_BACKOFF_S, play_over
from .lobby import Lobby, PortInUse, addresses_to_give, open_listeners
from .logfile import check_log_free
from .portmap import describe_path, mapping_wanted, order_given, port_mapping
from .secure import SecureError, SecureStream
from .transport import Link

#: The version of protocol/rendezvous.md spoken here.
MEET_VERSION = 1
#: The public transit relay the ``wormhole`` tools use.
DEFAULT_RELAY_URL = "tcp:transit.magic-wormhole.io:4001"
DEFAULT_MAILBOX_URL = mailbox.DEFAULT_MAILBOX_URL
#: Seconds without a direct connection before the relay is tried too (rendezvous.md §4).
RELAY_AFTER_S = 3.0
#: Seconds between starting connections to successive candidates (RFC 8305 pacing).
ATTEMPT_DELAY_S = 0.25
#: Most bytes of one mailbox message, most candidates in an offer (rendezvous.md §2).
MAX_MESSAGE_BYTES = 4096
MAX_CANDIDATES = 16
#: Codes a host allocates in one run when wrong codes spend them (rendezvous.md §1).
MAX_CODES = 5
#: Longest answer line of the relay before ``ok``, bytes.
MAX_RELAY_LINE = 64
#: Pause before the host waits at the relay again after a failed try, seconds.
RELAY_RETRY_S = 1.0

CODE_RE = re.compile(r"[0-9]+(-[a-z]+)+")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def as_typed(text: str) -> str:
    """``text`` read as a code is typed (rendezvous.md §1, "a code as people type it"): spaces and line
    ends around it dropped, letters in lower case, each run of spaces or dashes inside one ``-``:
    ``" 7 Crossover-Clockwork\n"`` -> ``"7-crossover-clockwork"``.  (Whether that is a code at all is
    :func:`is_code`'s.)"""
    return re.sub(r"[\s-]+", "-", text.strip().lower())


def is_code(text: str) -> bool:
    """True when ``join`` reads ``text`` as a code, not an address: :func:`as_typed` has the form of
    one (rendezvous.md §1)."""
    return CODE_RE.fullmatch(as_typed(text)) is not None


def check_code(text: str) -> str:
    """A code as typed (:func:`is_code` holds) -> the code to open (:func:`as_typed`), checked before
    anything is sent: a number and :data:`mailbox.CODE_WORDS` words, each a word of the PGP word list
    in its place (rendezvous.md §1), so that a slip is caught here and never spends the host's code.

    Raises:
        ValueError: one line saying what is wrong (``"the code '7-crossovr-clockwork': 'crossovr' is not
            one of the code words (check its spelling with the host)"``).
    """
    code = as_typed(text)
    number, *words = code.split("-")
    example = "7-crossover-clockwork"
    if len(words) != mailbox.CODE_WORDS:
        raise ValueError(f"the code {text.strip()!r} has {len(words)} word{'s' if len(words) != 1 else ''}: a code "
                         f"is a number and {mailbox.CODE_WORDS} words, as the host printed it (e.g. {example})")
    lists = mailbox.code_words()
    if lists is not None:
        for place, (word, known) in enumerate(zip(words, lists, strict=True)):
            if word in known:
                continue
            elsewhere = lists[1 - place] if len(lists) == 2 else set()
            why = (f"{word!r} is a code word, but never the {('first', 'second')[place]} one (are the words "
                   "swapped?)" if word in elsewhere else f"{word!r} is not one of the code words (check its "
                   "spelling with the host)")
            raise ValueError(f"the code {text.strip()!r}: {why}")
    return f"{int(number)}-{'-'.join(words)}"


def parse_relay_url(url: str) -> tuple[str, int]:
    """``tcp:HOST:PORT`` (HOST:PORT as ``join`` reads it, IPv6 in brackets, the port required) ->
    ``(host, port)``.  Raises ValueError with the reason."""
    if not url.startswith("tcp:"):
        raise ValueError(f"not a relay URL {url!r} (expected tcp:HOST:PORT)")
    try:
        return addresses.parse_address(url[4:], default_port=None)
    except addresses.AddressError as exc:
        raise ValueError(f"not a relay URL {url!r} (expected tcp:HOST:PORT): {exc}") from None


def check_mailbox_url(url: str) -> str:
    """A mailbox server URL as typed (``--rendezvous``): ``ws://HOST[:PORT][/PATH]`` or ``wss://...``,
    HOST[:PORT] as ``join`` reads an address (IPv6 in brackets) -> the URL unchanged.  Raises
    ValueError with the reason."""
    scheme, sep, rest = url.partition("://")
    where = rest.split("/", 1)[0]
    if not sep or scheme.lower() not in ("ws", "wss") or not where:
        raise ValueError(f"not a mailbox URL {url!r} (expected ws://HOST:PORT/v1, e.g. {DEFAULT_MAILBOX_URL})")
    try:
        addresses.parse_address(where, default_port=80 if scheme.lower() == "ws" else 443)
    except addresses.AddressError as exc:
        raise ValueError(f"not a mailbox URL {url!r} (expected ws://HOST:PORT/v1): {exc}") from None
    return url


def relay_host(url: str) -> str:
    """The ``HOST:PORT`` of a relay URL, for the user."""
    return addresses.format_address(*parse_relay_url(url))


@dataclass
class Relay:
    """A transit relay and our channel on it (rendezvous.md §2, §4)."""

    url: str
    channel: bytes

    def to_json(self) -> dict[str, str]:
        return {"url": self.url, "channel": self.channel.hex()}


@dataclass
class Offer:
    """One side's mailbox message (rendezvous.md §2): ``key`` the raw 32-byte Ed25519 public key;
    the host's also ``candidates`` (``HOST:PORT`` texts) and ``relay``."""

    role: str
    key: bytes
    candidates: list[str] = field(default_factory=list)
    relay: Relay | None = None

    def encode(self) -> bytes:
        doc: dict[str, Any] = {"p2ptrumps-meet": MEET_VERSION, "role": self.role, "key": self.key.hex()}
        if self.role == "host":
            doc["candidates"] = self.candidates
            doc["relay"] = self.relay.to_json() if self.relay else None
        return json.dumps(doc, separators=(",", ":")).encode()


def relay_from_json(value: object) -> Relay | None:
    """A ``relay`` field (rendezvous.md §2) -> :class:`Relay` or None.  Raises ValueError."""
    if value is None:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("url"), str) \
            or not isinstance(value.get("channel"), str) or not _HEX64.match(value["channel"]):
        raise ValueError("a malformed relay")
    parse_relay_url(value["url"])
    return Relay(value["url"], bytes.fromhex(value["channel"]))


def decode_offer(data: bytes, role: str) -> Offer:
    """The peer's mailbox message -> :class:`Offer` of ``role`` (rendezvous.md §2).

    Raises:
        NetplayError: status 3, another version of rendezvous.md; status 5, anything malformed.
    """
    def bad(why: str) -> NetplayError:
        return NetplayError(EXIT_PEER_FAULT, f"the peer's message through the mailbox is malformed: {why}")

    if len(data) > MAX_MESSAGE_BYTES:
        raise bad(f"{len(data)} bytes, more than {MAX_MESSAGE_BYTES}")
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise bad("not UTF-8 JSON") from None
    if not isinstance(doc, dict):
        raise bad("not a JSON object")
    version = doc.get("p2ptrumps-meet")
    if version != MEET_VERSION:
        raise NetplayError(EXIT_CONNECT, f"the peer's p2ptrumps meets by code version {version!r}; this one speaks "
                           f"{MEET_VERSION} (update one of them)")
    if doc.get("role") != role:
        raise bad(f"role {doc.get('role')!r}, expected {role!r}")
    key = doc.get("key")
    if not isinstance(key, str) or not _HEX64.match(key):
        raise bad("the key is not 64 hex digits")
    raw = bytes.fromhex(key)
    try:
        fingerprint(raw)
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

        Ed25519PublicKey.from_public_bytes(raw)
    except ValueError:
        raise bad("the key is not an Ed25519 public key") from None
    if role == "guest":
        return Offer(role, raw)
    cands = doc.get("candidates")
    if not isinstance(cands, list) or len(cands) > MAX_CANDIDATES or not all(isinstance(c, str) for c in cands):
        raise bad(f"candidates are not a list of at most {MAX_CANDIDATES} addresses")
    try:
        for c in cands:
            addresses.parse_address(c)
        relay = relay_from_json(doc.get("relay"))
    except ValueError as exc:
        raise bad(str(exc)) from None
    return Offer(role, raw, list(cands), relay)


# ----- the relay ---------------------------------------------------------------------------------


class RelayRefused(OSError):
    """The relay answered something else than ``ok`` (or closed)."""


async def open_relay(relay: Relay, side: bytes, timeout_s: float | None) -> trio.SocketStream:
    """Connect to ``relay`` and wait until it joins us with the other side of our channel
    (rendezvous.md §4); ``timeout_s`` bounds the connection (None: the wait for the other side is
    not bounded either -- the host waiting at the relay).

    Raises:
        OSError: (``ConnectError``, ``RelayRefused``, ...) the relay cannot be reached, or refused.
        trio.TooSlowError: ``timeout_s`` passed before ``ok``.
    """
    host, port = parse_relay_url(relay.url)
    stream = await connect(host, port, timeout_s if timeout_s is not None else 30.0)
    try:
        with trio.fail_after(timeout_s if timeout_s is not None else float("inf")):
            await stream.send_all(b"please relay %s for side %s\n" % (relay.channel.hex().encode(),
                                                                        side.hex().encode()))
            line = b""
            while not line.endswith(b"\n"):
                if len(line) >= MAX_RELAY_LINE:
                    raise RelayRefused(f"the relay {relay_host(relay.url)} said {line[:40]!r}...")
                byte = await stream.receive_some(1)
                if not byte:
                    raise RelayRefused(f"the relay {relay_host(relay.url)} closed the connection"
                                       + (f" after {line!r}" if line else ""))
                line += byte
        if line != b"ok\n":
            raise RelayRefused(f"the relay {relay_host(relay.url)} said {line.strip()!r}")
    except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:  # reset while it answered (it went away)
        await trio.aclose_forcefully(stream)
        why = exc.__cause__ if isinstance(exc.__cause__, OSError) else exc
        raise RelayRefused(f"the relay {relay_host(relay.url)} broke the connection ({_why(why)})") from None
    except BaseException:
        await trio.aclose_forcefully(stream)
        raise
    return stream


class RelayListener(trio.abc.Listener[trio.SocketStream]):
    """(host) A listener whose connections come through the relay: each :meth:`accept` waits at the
    relay on our channel until a guest joins it (rendezvous.md §4)."""

    def __init__(self, cfg: NetConfig, relay: Relay, side: bytes) -> None:
        self.cfg = cfg
        self.relay = relay
        self.side = side
        self._warned = False
        #: The path of its connections in words (the lobby and the table show it; the port left out, short).
        self.path = f"through relay {parse_relay_url(relay.url)[0]}"

    async def accept(self) -> trio.SocketStream:
        for _ in range(1 << 30):
            try:
                stream = await open_relay(self.relay, self.side, None)
            except (OSError, ValueError) as exc:
                if not self._warned:
                    self._warned = True
                    say(self.cfg, f"the relay {relay_host(self.relay.url)} is out of reach ({_why(exc)}); "
                        "waiting there again every few seconds")
                await trio.sleep(RELAY_RETRY_S)
                continue
            say(self.cfg, f"a guest connected through relay {relay_host(self.relay.url)}")
            return stream
        raise OSError("the relay gave up")

    async def aclose(self) -> None:
        return None


def _why(exc: BaseException) -> str:
    if isinstance(exc, ConnectError):
        return exc.message
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


# ----- the guest's connection -------------------------------------------------------------------


async def connect_offer(offer: Offer, side: bytes, timeout_s: float,
                        relay_after_s: float = RELAY_AFTER_S,
                        note: Callable[[str], None] | None = None) -> tuple[trio.SocketStream, str]:
    """Connect to the host of ``offer``: every candidate at once (paced), the relay too after
    ``relay_after_s`` seconds without a connection or once every candidate failed
    (rendezvous.md §4).  Returns the stream and the path in words (``"192.0.2.7:4816 (direct over the
    internet (IPv4))"``, as :func:`.portmap.describe_path` says it, or ``"through relay HOST:PORT"``).
    ``note`` (if given) is called with one line when the direct tries start and when the relay is
    tried: what the user waits for (:func:`trying_words`).

    Raises:
        ConnectError: nothing connected within ``timeout_s`` seconds; the message names each try.
    """
    winner: list[tuple[trio.SocketStream, str]] = []
    failed: dict[str, str] = {}
    all_failed = trio.Event()
    left = [len(offer.candidates)]

    async def direct(address: str) -> None:
        host, port = addresses.parse_address(address)
        try:
            stream = await connect(host, port, timeout_s)
        except OSError as exc:
            failed[address] = _why(exc)
            left[0] -= 1
            if left[0] == 0:
                all_failed.set()
            return
        try:
            how = describe_path(str(stream.socket.getsockname()[0]), str(stream.socket.getpeername()[0]))
        except OSError:
            how = "direct"
        won(stream, f"{address} ({how})")

    async def relayed(relay: Relay) -> None:
        with trio.move_on_after(relay_after_s):
            await all_failed.wait()
        if note is not None:
            note(trying_words(offer, relay_now=True, relay_after_s=relay_after_s))
        try:
            stream = await open_relay(relay, side, timeout_s)
        except (OSError, ValueError, trio.TooSlowError) as exc:
            failed[f"relay {relay_host(relay.url)}"] = _why(exc) if not isinstance(exc, trio.TooSlowError) \
                else "the host was not there"
            return
        won(stream, f"through relay {relay_host(relay.url)}")

    def won(stream: trio.SocketStream, path: str) -> None:
        if winner:
            stream.socket.close()
            return
        winner.append((stream, path))
        nursery.cancel_scope.cancel()

    if not offer.candidates:
        all_failed.set()
    elif note is not None:
        note(trying_words(offer, relay_now=False, relay_after_s=relay_after_s))
    with trio.move_on_after(timeout_s):
        async with trio.open_nursery() as nursery:
            if offer.relay is not None:
                nursery.start_soon(relayed, offer.relay)
            for i, address in enumerate(offer.candidates):
                if i:
                    with trio.move_on_after(ATTEMPT_DELAY_S):
                        await all_failed.wait()
                nursery.start_soon(direct, address)
    if winner:
        return winner[0]
    tried = [*offer.candidates] + ([f"relay {relay_host(offer.relay.url)}"] if offer.relay else [])
    detail = "; ".join(f"{t} {failed.get(t, f'no answer in {timeout_s:g} s')}" for t in tried)
    raise ConnectError(f"cannot reach the host: tried {detail or 'nothing (the host offered no address and no relay)'}",
                       [(t, failed.get(t, "no answer")) for t in tried])


def trying_words(offer: Offer, *, relay_now: bool, relay_after_s: float = RELAY_AFTER_S) -> str:
    """The line a waiting guest reads: the host's addresses tried directly (``relay_now`` False), or the
    relay tried now (``relay_now`` True: after ``relay_after_s`` seconds, or every address failed)."""
    relay = relay_host(offer.relay.url) if offer.relay is not None else None
    if not relay_now:
        return (f"trying the host directly at {', '.join(offer.candidates)}"
                + (f"; through relay {relay} if no answer in {relay_after_s:g} s" if relay else "") + " ...")
    if not offer.candidates:
        return f"the host offered no address: trying through relay {relay} ..."
    return f"no direct answer yet: trying through relay {relay} too ..."


def new_side() -> bytes:
    """Our side on a relay: 8 random bytes, once per process (rendezvous.md §4)."""
    return _SIDE


_SIDE = os.urandom(8)


# ----- host and join ----------------------------------------------------------------------------


def _mailbox_error(exc: Exception, code: str | None) -> NetplayError:
    if isinstance(exc, mailbox.WrongCode):
        return NetplayError(EXIT_CONNECT, f"the code {code} is wrong, or was used already: ask the host for a new one")
    return NetplayError(EXIT_CONNECT, str(exc))


async def host_by_code(cfg: NetConfig, bind: str | None, port: int, *, rendezvous: str = DEFAULT_MAILBOX_URL,
                       relay_url: str | None = DEFAULT_RELAY_URL, direct: bool = True,
                       task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED) -> NetResult:
    """``host --code``: listen as :func:`.lobby.host` does, allocate a code on the mailbox at
    ``rendezvous``, print ``hosting as ...`` and ``Tell your opponent: p2ptrumps join CODE`` (with
    ``--rendezvous URL`` before the code when it is not the default) once the
    mailbox gave the code (not before: a mailbox that cannot be reached is one line and nothing
    else), take the guest's key from the
    mailbox and play one match with the guest holding that key, by a direct connection or through
    the relay at ``relay_url`` (None: no relay).  ``direct`` False offers no address (only the
    relay; for tests on one machine).  ``task_status.started(code)`` reports the first code.

    Raises:
        NetplayError: status 3 (cannot listen; the mailbox cannot be reached; :data:`MAX_CODES`
            codes spent by wrong tries), else as :func:`.lobby.host`.
    """
    check_log_free(cfg)
    listeners = await _listen_for_code(cfg, bind, port)
    try:
        bound = int(listeners[0].socket.getsockname()[1])
        cfg.bind, cfg.port = bind, bound
        relay = Relay(relay_url, os.urandom(32)) if relay_url is not None else None
        wanted = direct and mapping_wanted(bind, cfg.port_map)
        async with port_mapping(bound, addresses.local_addresses(), wanted=wanted,
                                note=lambda line: say(cfg, line)) as reach:
            for line in (reach.code_lines() if relay is not None else reach.lines()):
                say(cfg, line)
            given = order_given(addresses_to_give(listeners), reach)
            # A guest elsewhere would reach its own machine at a loopback address: offered only when the
            # host listens on nothing else (--bind 127.0.0.1: a match on one machine).
            candidates = ([c for c in given if not _is_loopback(c)] or given)[:MAX_CANDIDATES] if direct else []
            offer = Offer("host", cfg.identity.public_bytes, candidates, relay)
            cfg.meet = {"candidates": [], "relay": relay.to_json() if relay else None}
            answer: bytes | None = None
            started = False
            for attempt in range(MAX_CODES):
                def on_code(code: str) -> None:
                    nonlocal started
                    if not started:  # the mailbox answered: now there is something to host by
                        say(cfg, f"hosting as {quoted(cfg.name)}; addresses offered: "
                            f"{', '.join(candidates) or 'none'}; relay: {relay_host(relay.url) if relay else 'none'}")
                    # the opponent needs our mailbox too: a bare code would open the public one
                    where = f"--rendezvous {rendezvous} " if rendezvous != DEFAULT_MAILBOX_URL else ""
                    say(cfg, f"Tell your opponent: p2ptrumps join {where}{code}")
                    if not started:
                        started = True
                        task_status.started(code)
                try:
                    answer = await mailbox.exchange(rendezvous, None, offer.encode(), on_code)
                    break
                except mailbox.WrongCode:
                    say(cfg, "someone tried a wrong code: that code is spent" +
                        ("; a new one:" if attempt + 1 < MAX_CODES else ""))
                except mailbox.MailboxError as exc:
                    raise NetplayError(EXIT_CONNECT, str(exc)) from None
            if answer is None:
                raise NetplayError(EXIT_CONNECT, f"{MAX_CODES} codes were spent by wrong tries; stopped")
            guest = decode_offer(answer, "guest")
            cfg.code_fingerprint = fingerprint(guest.key)
            # The code stands in for the join ticket: the doorway admits this key alone (wire.md §7.3).
            cfg.ticket, cfg.guest_key = None, bytes(guest.key)
            say(cfg, f"the guest's key came with the code ({cfg.code_fingerprint}); waiting for it to connect ...")
            all_listeners: list[trio.abc.Listener[trio.SocketStream]] = list(listeners)
            if relay is not None:
                all_listeners.append(RelayListener(cfg, relay, new_side()))
            return await Lobby(cfg, mapped=reach.mapped is not None).serve(all_listeners)
    finally:
        for lst in listeners:
            with contextlib.suppress(Exception):
                await lst.aclose()


async def _listen_for_code(cfg: NetConfig, bind: str | None, port: int) -> list[trio.SocketListener]:
    """Listen as :func:`.lobby.open_listeners` does; a port in use (another host on 4816) is no reason to
    stop, since the code carries whatever port is bound: then any free port, said in one line."""
    try:
        return await open_listeners(bind, port)
    except PortInUse:
        if port == 0:
            raise
    listeners = await open_listeners(bind, 0)
    say(cfg, f"note: port {port} is in use here; listening on port {listeners[0].socket.getsockname()[1]} "
        "instead (the code tells the guest)")
    return listeners


async def join_by_code(cfg: NetConfig, code: str, *, rendezvous: str = DEFAULT_MAILBOX_URL) -> NetResult:
    """``join CODE``: open the code on the mailbox at ``rendezvous``, send our key, take the host's
    offer, connect (:func:`connect_offer`) and play one match as the guest with the host's key
    pinned by the code.

    Raises:
        NetplayError: status 3 (a wrong or spent code, nobody on the code within ``cfg.timeout_s``,
            no mailbox, no path to the host), 5 (a malformed offer), else as :func:`.dial.join`.
    """
    check_log_free(cfg)
    mine = Offer("guest", cfg.identity.public_bytes)
    got: bytes | None = None
    say(cfg, f"looking for the host of code {code} on the mailbox {_server(rendezvous)} ...")
    try:
        with trio.move_on_after(cfg.timeout_s):
            got = await mailbox.exchange(rendezvous, code, mine.encode(), lambda c: None)
    except mailbox.NobodyOnCode:
        raise NetplayError(EXIT_CONNECT, f"nobody is waiting on code {code} (the host stopped, or the number is "
                           "mistyped)") from None
    except (mailbox.WrongCode, mailbox.MailboxError) as exc:
        raise _mailbox_error(exc, code) from None
    if got is None:
        raise NetplayError(EXIT_CONNECT, f"nobody is waiting on code {code} (the host stopped, or the code is "
                           f"mistyped); gave up after {cfg.timeout_s:g} s")
    offer = decode_offer(got, "host")
    cfg.code_fingerprint = fingerprint(offer.key)
    cfg.meet = {"candidates": offer.candidates, "relay": offer.relay.to_json() if offer.relay else None}
    cfg.address = None
    return await play_offer(cfg, offer, None)


async def play_offer(cfg: NetConfig, offer: Offer, restored: Any) -> NetResult:
    """(guest) Connect to the host of ``offer`` and play (or, ``restored``, take up) the match;
    a lost link is reconnected the same way (rendezvous.md §5)."""
    side = new_side()
    where = "the host"
    expect = offer.key or None  # the key the code gave (a resumed match: checked against the log's)

    async def dial(seconds_left: float, note: Callable[[str], None] | None = None) -> tuple[SecureStream, str]:
        return await dial_offer(cfg, offer, side, seconds_left, expect, note)

    async def redial(seconds_left: float) -> Link | None:
        try:
            stream, path = await dial(min(seconds_left, cfg.timeout_s))
        except ConnectError as exc:
            cfg.report.last_try = exc.message.removeprefix("cannot reach the host: ")
            return None
        except SecureError as exc:
            cfg.report.last_try = str(exc)
            return None
        say(cfg, f"reconnected {path_words(path)}")
        cfg.report.path = _how(path)
        return Link(stream)

    if restored is not None:
        return await play_over(None, cfg, where, redial=redial, backoff_s=GUEST_BACKOFF_S, restored=restored)
    try:
        stream, path = await dial(cfg.timeout_s, note=lambda line: say(cfg, line))
    except ConnectError as exc:
        raise NetplayError(EXIT_CONNECT, exc.message) from None
    except SecureError as exc:
        raise NetplayError(EXIT_KEY_REFUSED if exc.kind == "key" else EXIT_CONNECT,
                           f"cannot connect to the host: {exc}") from None
    await turn_away_blocked(cfg, stream, "on the code")
    cfg.report.path = _how(path)
    say(cfg, f"connected {path_words(path)}; the host's key came with the code ({cfg.code_fingerprint})")
    return await play_over(stream, cfg, where, redial=redial, backoff_s=GUEST_BACKOFF_S)


async def dial_offer(cfg: NetConfig, offer: Offer, side: bytes, seconds_left: float, expect: bytes | None,
                     note: Callable[[str], None] | None = None) -> tuple[SecureStream, str]:
    """(guest) A connection to the host of ``offer`` (:func:`connect_offer`) inside the encrypted layer
    (wire.md §18) with the host's key ``expect``, within ``seconds_left`` seconds.  A candidate address
    that answers but is not the host -- another machine at the same private address in the guest's own
    network, whose handshake fails or proves another key -- is left out and the others (and the relay)
    are tried again, with a ``note``; a relay's failed handshake is final.  Returns the stream and the
    path in words.

    Raises:
        ConnectError: nothing connected in time (see :func:`connect_offer`).
        SecureError: the relay's connection failed the handshake, or every candidate did.
    """
    deadline = trio.current_time() + seconds_left
    skip: list[str] = []
    for _ in range(len(offer.candidates) + 1):  # bounded: each round leaves one candidate out
        left = Offer(offer.role, offer.key, [c for c in offer.candidates if c not in skip], offer.relay)
        raw, path = await connect_offer(left, side, max(0.0, deadline - trio.current_time()), note=note)
        try:
            return await client_handshake(cfg, raw, deadline, expect), path
        except SecureError as exc:
            address = path.split(" (", 1)[0]
            if address not in left.candidates or (not left.candidates[1:] and left.relay is None):
                raise
            skip.append(address)
            if note is not None:
                note(f"{address} answered but is not the host ({exc}); trying the others ...")
    raise SecureError("no candidate of the host's was the host")


def _server(url: str) -> str:
    """``ws://HOST:PORT/v1`` -> ``HOST:PORT`` (the mailbox server, for the user)."""
    return url.split("://", 1)[-1].split("/", 1)[0]


def _is_loopback(address: str) -> bool:
    host = address.rsplit(":", 1)[0].strip("[]")
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _how(path: str) -> str:
    """The path's kind alone (for the table): ``"HOST:PORT (on this machine)"`` -> ``"on this machine"``."""
    if path.startswith("through relay "):
        return path.rsplit(":", 1)[0] if path.rsplit(":", 1)[-1].isdigit() else path
    return path[path.index(" (") + 2:-1] if " (" in path else path


def path_words(path: str) -> str:
    """``"HOST:PORT (on this machine)"`` -> ``"to HOST:PORT (on this machine)"``; ``"through relay ..."``
    as it is."""
    return path if path.startswith("through") else f"to {path}"


def offer_from_meet(meet: dict[str, Any]) -> Offer:
    """The ``meet`` object of a resume file (rendezvous.md §5) -> an :class:`Offer` to reconnect by
    (its key unused).  Raises ValueError when malformed."""
    cands = meet.get("candidates")
    if not isinstance(cands, list) or not all(isinstance(c, str) for c in cands):
        raise ValueError("meet.candidates")
    return Offer("host", b"", list(cands), relay_from_json(meet.get("relay")))
