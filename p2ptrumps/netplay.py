"""``p2ptrumps host``, ``join`` and ``id``: a networked match, peer to peer over TCP.

Source: issue 3 §2-§3, ``protocol/wire.md`` (the session), :mod:`p2ptrumps.keystore`
(keys and pinning), :mod:`p2ptrumps.transport` (the connection) and
:mod:`p2ptrumps.remote` (the peer as a player).

The host listens, prints the address to give the opponent and its key
fingerprint, and plays one match with the first guest.  The guest connects,
checks the host's key against its known peers (``--fingerprint``,
``--accept-new`` or a y/N question), accepts the host's rules, and plays.  Each
side writes its own match log (``--log PATH`` or
``<data dir>/logs/2026-11-29_1805_host_vs-<peer>.p2plog``), every message
fsynced before it is sent.

A seat is played by the AI (``--ai LEVEL``), by the person in the full-screen
table (default), or by the person at a plain line prompt (``--headless``
without ``--ai``).  ``--headless`` prints the progress: deal starts, moves,
results, the final score and the log path.

Exit statuses (each with a one-line message on stderr, and the log path when a
log was started):

====  ===================================================================
0     the match was played to the end
1     another error (disk full, unusable key file, ...)
2     bad command-line value (address, port, trump)
3     cannot connect / cannot listen (connection refused, address in use)
4     the peer vanished (closed, reset, or silent past ``--timeout``)
5     the peer broke the protocol (the fault is named; the log keeps the evidence)
6     the peer's key was refused (unknown and not confirmed, mismatch, changed)
7     the rules were refused
130   interrupted (Ctrl-C)
====  ===================================================================
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import math
import os
import random
import re
import socket
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TextIO

import trio

from . import keystore, netaddr
from .cards import suit_label
from .files import unused_path
from .match import Action, DealEnded, DealStarted, Event, MatchEnded, MatchRunner, MovePlayed, OfferDraw, Player, Resign
from .record import MatchRecord, PlayerInfo
from .remote import LocalSeat, NetGame, NetGameError, RemotePlayer
from .rules import Position, RuleSet
from .transport import Connection, MatchLogFile, PeerFault, PeerGone, PeerTimeout, TransportError, single_errors
from .wire import events as wev
from .wire.identity import Identity
from .wire.log import LOG_MAGIC
from .wire.session import Session

DEFAULT_PORT = netaddr.DEFAULT_PORT
#: Seconds a new connection has to deliver its hello (the host then drops it and waits on).
HELLO_TIMEOUT_S = 10.0
#: Connections the host lets say hello at once; more are closed at once (a flood).
MAX_WAITING_CONNECTIONS = 64
#: Connections from one address that may be saying hello at once.  When a cap is
#: reached the *oldest* waiting connection (of that address, or of all) is dropped,
#: never the new one: a real guest says hello at once, so strays that only hold
#: connections open cannot lock it out.
MAX_WAITING_PER_ADDRESS = 4
#: Dropped connections the host tells about (a scanner could fill the screen otherwise).
MAX_DROP_NOTES = 20
#: A bound on the rematches played on one connection (each needs both sides' consent anyway).
MAX_MATCHES_PER_CONNECTION = 1000

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_CONNECT = 3
EXIT_PEER_GONE = 4
EXIT_PEER_FAULT = 5
EXIT_KEY_REFUSED = 6
EXIT_RULES_REFUSED = 7


class NetplayError(Exception):
    """A networked match could not start or go on; ``status`` is the exit status, the
    message one line for the user."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


# ----- addresses ------------------------------------------------------------------


def parse_address(text: str, default_port: int = DEFAULT_PORT) -> tuple[str, int]:
    """``"HOST:PORT"``, ``"[v6addr]:PORT"`` or ``"HOST"`` -> ``(host, port)``
    (see :func:`p2ptrumps.netaddr.parse_address`).

    Raises:
        NetplayError: (status 2) empty host, a URL, stray colons, bad or out-of-range port.
    """
    try:
        return netaddr.parse_address(text, default_port)
    except netaddr.AddressError as exc:
        raise NetplayError(EXIT_USAGE, str(exc)) from None


format_address = netaddr.format_address


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


def _safe_stem(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.")[:32] or "peer"


def default_log_path(directory: Path, role: str, now: datetime, peer: str | None = None) -> Path:
    """An unused readable log name: ``2026-11-29_1805_host_vs-bob.p2plog`` (``-2``, ``-3`` ... if taken).
    Without ``peer`` (not known yet): ``2026-11-29_1805_host.p2plog``."""
    stem = f"{now:%Y-%m-%d_%H%M}_{role}" + (f"_vs-{_safe_stem(peer)}" if peer else "")
    return unused_path(directory, stem, ".p2plog")


# ----- the match log on disk -----------------------------------------------------------


def _log_codec() -> tuple[bytes, Callable[[bytes, str], bytes]]:
    """The file header and the per-message bytes of the match log (protocol/wire.md §12):
    :data:`~p2ptrumps.wire.log.LOG_MAGIC`, then each frame as on the wire (direction not stored)."""
    return LOG_MAGIC, lambda frame, direction: frame


# ----- configuration ----------------------------------------------------------------


@dataclass
class NetConfig:
    """Everything one side of a networked match needs.

    Attributes:
        role: ``"host"`` or ``"guest"``.
        identity: our key; ``name`` our display name.
        rules: the host's proposed rules (None for the guest).
        ai: AI level for our seat, or None for the person.
        think_s: the AI's time per move, seconds.
        headless: no full-screen UI; print progress to ``out``.
        trump: our wished trump (0..3) or None (asked, or the AI picks).
        log_path: ``--log PATH``, or None for a default name under ``data``/logs.
        timeout_s: seconds of silence before the peer is declared gone.
        fingerprint / accept_new: the guest's answer for an unknown host key.
        confirm: asks a y/N question (None: nobody to ask).
        data: the data directory (keys, known peers, logs).
        ascii_only: ASCII suits in printed progress.
        out: where progress goes (stdout).
        heartbeat_s: seconds between heartbeats (default from the timeout).
        make_player: builds our seat's player (default: the AI or a line prompt).
        choose_trump_fn: asks for our trump given the taken suit (default: ``trump``,
            the AI, or a line prompt).
        on_ready: called once the peer's key and the rules are accepted, before
            the trumps (the full-screen UI starts there).
        rematches: how many rematches the AI offers / accepts (``--rematch N``).
        ask_rematch: ``await ask_rematch(peer_name, peer_offered)`` asks the person
            whether to play a rematch (the full-screen UI); None: the AI's
            ``rematches``, or a line prompt, or no.
        on_rematch: like ``on_ready``, for each rematch (the UI shows the new match).
        hello_timeout_s: seconds a new connection has to deliver its hello.
        started_at: when the run started (``time.time()``; an interrupted run lists the
            logs written since).
    """

    role: str
    identity: Identity
    name: str
    data: Path
    rules: RuleSet | None = None
    ai: str | None = None
    think_s: float = 0.5
    headless: bool = True
    trump: int | None = None
    log_path: Path | None = None
    timeout_s: float = 30.0
    fingerprint: str | None = None
    accept_new: bool = False
    confirm: Callable[[str], bool] | None = None
    ascii_only: bool = False
    out: TextIO = field(default_factory=lambda: sys.stdout)
    heartbeat_s: float | None = None
    make_player: Callable[[NetConfig, int], Player] | None = None
    choose_trump_fn: Callable[[int | None], Awaitable[int]] | None = None
    on_ready: Callable[[NetGame, NetResult], None] | None = None
    rematches: int = 0
    ask_rematch: Callable[[str, bool], Awaitable[bool]] | None = None
    on_rematch: Callable[[NetGame, NetResult], None] | None = None
    hello_timeout_s: float = HELLO_TIMEOUT_S
    started_at: float = field(default_factory=time.time)


@dataclass
class NetResult:
    """What a finished (or stopped) networked match leaves: the log path, the score
    (half-points, seat 0 / seat 1) if it ended, our seat, the peer's name and key
    fingerprint, and the match loop's :class:`~p2ptrumps.record.MatchRecord` (settled
    against the signed chain deal by deal, so it equals the log's record)."""

    log_path: Path | None
    seat: int
    score_halves: tuple[int, int] | None = None
    peer_name: str | None = None
    peer_fingerprint: str | None = None
    record: MatchRecord | None = None
    rules: RuleSet | None = None
    rematches: list[NetResult] = field(default_factory=list)


def _print(cfg: NetConfig, text: str) -> None:
    print(text, file=cfg.out, flush=True)


# ----- players of our seat -------------------------------------------------------------


class ProgressPrinter:
    """Wraps our player and prints the match events (``--headless``)."""

    def __init__(self, inner: Player, cfg: NetConfig, names: tuple[str, str]) -> None:
        self.inner = inner
        self.info = inner.info
        self.cfg = cfg
        self.names = names

    async def choose_move(self, position: Position, seat: int) -> Action:
        return await self.inner.choose_move(position, seat)

    async def accept_draw(self, position: Position, seat: int) -> bool:
        return await self.inner.accept_draw(position, seat)

    async def observe(self, event: Event) -> None:
        a = self.cfg.ascii_only
        if isinstance(event, DealStarted):
            p = event.position
            _print(self.cfg, f"deal {event.number}: {self.names[event.dealer]} deals; "
                   f"{self.names[p.to_move]} (trump {suit_label(p.trumps[p.to_move], a)}) starts")
        elif isinstance(event, MovePlayed):
            _print(self.cfg, f"  {event.position.turn:3d}. {self.names[event.seat]}: {event.move.label(a)}")
        elif isinstance(event, DealEnded):
            x, y = event.score_halves
            _print(self.cfg, f"deal {event.number}: {event.outcome.describe(self.names)}; "
                   f"score {x / 2:g}-{y / 2:g}")
        elif isinstance(event, MatchEnded):
            x, y = event.score_halves
            _print(self.cfg, f"match over: {self.names[0]} {x / 2:g}, {self.names[1]} {y / 2:g}")
        await self.inner.observe(event)


class LinePlayer:
    """The person at a plain line prompt (``--headless`` without ``--ai``)."""

    def __init__(self, info: PlayerInfo, cfg: NetConfig) -> None:
        self.info = info
        self.cfg = cfg
        self.eof = False  # stdin ended: we resigned once and stop at the next question

    async def _ask(self, prompt: str) -> str:
        def read() -> str | None:
            try:
                return input(prompt)
            except EOFError:
                return None

        if self.eof:
            raise NetplayError(EXIT_ERROR, "the input ended (EOF): you resigned the deal and left the match")
        text = await trio.to_thread.run_sync(read, abandon_on_cancel=True)
        if text is None:
            self.eof = True
            _print(self.cfg, "the input ended (EOF): resigning this deal and leaving")
            return "resign"
        return text

    async def choose_move(self, position: Position, seat: int) -> Action:
        _print(self.cfg, str(position))
        for _ in range(1000):
            text = (await self._ask("your move (e.g. QS, TS/7H, p; 'draw', 'resign'): ")).strip()
            if text == "resign":
                return Resign()
            if text == "draw":
                return OfferDraw()
            try:
                return position.parse_move(text)
            except ValueError as exc:
                _print(self.cfg, str(exc))
        return Resign()

    async def accept_draw(self, position: Position, seat: int) -> bool:
        return (await self._ask("the opponent offers a draw; accept? [y/N] ")).strip().lower() in ("y", "yes")

    async def observe(self, event: Event) -> None:
        return None


def _our_player(cfg: NetConfig, seat: int) -> Player:
    if cfg.make_player is not None:
        return cfg.make_player(cfg, seat)
    if cfg.ai is not None:
        from .ai import AIPlayer

        return AIPlayer(cfg.ai, cfg.think_s, name=cfg.name)
    return LinePlayer(PlayerInfo(cfg.name, "human"), cfg)


async def _choose_trump(cfg: NetConfig, taken: int | None) -> int:
    if cfg.trump is not None and cfg.trump != taken:
        return cfg.trump
    if cfg.trump is not None:
        _print(cfg, f"your trump {suit_label(cfg.trump, cfg.ascii_only)} is taken by the host; choosing another")
    if cfg.choose_trump_fn is not None:
        return await cfg.choose_trump_fn(taken)
    if cfg.ai is not None or cfg.confirm is None:
        from .ai import choose_trump

        return choose_trump(taken, random.Random())
    from .cards import parse_suit

    for _ in range(100):
        text = await trio.to_thread.run_sync(input, "your trump (C D H S): ", abandon_on_cancel=True)
        try:
            suit = parse_suit(text.strip())
        except ValueError as exc:
            _print(cfg, str(exc))
            continue
        if suit != taken:
            return suit
        _print(cfg, "that suit is the host's trump; choose another")
    raise NetplayError(EXIT_USAGE, "no trump chosen")


# ----- one match over one stream ---------------------------------------------------------


async def play_over(stream: trio.abc.Stream, cfg: NetConfig, peer_address: str, *,
                    claim: Callable[[NetResult], bool] | None = None) -> NetResult:
    """Play one match as ``cfg.role`` over a connected ``stream``, then any rematches agreed
    (protocol/wire.md §9.4: each one a new session, new game id and new log on the same stream).

    Args:
        stream: the TCP (or memory, in tests) stream to the peer.
        cfg: our side's :class:`NetConfig`.
        peer_address: the peer's address for known peers (``host:port`` we joined,
            or the guest's IP).
        claim: (host) called with the result once the peer's hello checks out, before
            anything is written to disk; returning False drops this connection
            (another guest came first).  The peer's hello must arrive within
            ``cfg.hello_timeout_s`` seconds of the start.
    Returns:
        the :class:`NetResult` of the first match, played to the end; its
        ``rematches`` list holds the results of the rematches played after it.
    Raises:
        NetplayError: everything that stops a match, with its exit status;
            ``error.result`` is the first match's :class:`NetResult` (log paths so
            far: its own and its ``rematches'``; None where no log file was
            written because the handshake ended before the peer's hello).
    """
    now = datetime.now()
    hello_deadline = trio.current_time() + cfg.hello_timeout_s
    first = _open_match(cfg, 0)
    log, session, result = first
    results = [result]
    logs = [log]
    current: list[Session] = [session]
    try:
        conn = Connection(
            stream,
            session,
            timeout_s=cfg.timeout_s,
            heartbeat_s=cfg.heartbeat_s,
            fault_of=lambda ev: f"{ev.reason} [{ev.code}]" if isinstance(ev, wev.ProtocolViolation) else None,
            is_finished=lambda: current[0].finished,
        )

        async def body(c: Connection) -> None:
            match_log, match_session, match_result = first
            for number in range(MAX_MATCHES_PER_CONNECTION):
                steps = _Steps(cfg, now, number, peer_address, rematch_of=results[0] if number else None,
                               hello_deadline=hello_deadline if number == 0 else None,
                               claim=claim if number == 0 else None)
                again = await _match(c, match_session, steps, match_result, match_log,
                                     rematches_left=cfg.rematches - number)
                if not again:
                    return
                match_log.close()
                _print(cfg, "rematch agreed: a new match on the same connection")
                trailing = match_session.trailing_data
                match_session.trailing_data = b""
                match_log, match_session, match_result = _open_match(cfg, number + 1)
                logs.append(match_log)
                results[0].rematches.append(match_result)
                current[0] = match_session
                c.switch_session(match_session, trailing)

        try:
            await conn.run(body)
        except PeerFault as exc:  # the session logged the offending frame last, as evidence
            raise NetplayError(EXIT_PEER_FAULT, f"the peer broke the protocol: {exc}") from None
        except (PeerGone, PeerTimeout) as exc:
            raise NetplayError(EXIT_PEER_GONE, _gone_message(cfg, results[0], exc) + _forfeit_note(current[0])
                               ) from None
        except TransportError as exc:
            raise NetplayError(EXIT_PEER_GONE, str(exc)) from None
        except NetGameError as exc:
            raise NetplayError(EXIT_ERROR, str(exc)) from None
        except OSError as exc:
            raise NetplayError(EXIT_ERROR, f"cannot write the match log {logs[-1].path}: "
                               f"{exc.strerror or exc}") from None
    except NetplayError as exc:
        _sync_paths(results[0], logs)
        exc.result = results[0]  # type: ignore[attr-defined]
        raise
    finally:
        for lg in logs:
            lg.close()
    _sync_paths(results[0], logs)
    return results[0]


def _forfeit_note(session: Session) -> str:
    """If the peer stopped after committing and before revealing (protocol/wire.md §9.3), say
    that this forfeits the match; else ""."""
    chain = session.chain
    if chain is None:
        return ""
    ref = chain.referee
    peer = 1 - session.seat
    if ref.phase == "reveal" and ref.waiting_for()[0] == peer and peer in ref.commits:
        who = "host" if peer == 0 else "guest"
        return (f"; the {who} committed but did not reveal: by the protocol it forfeits the match "
                "(the log proves it)")
    return ""


def _gone_message(cfg: NetConfig, first: NetResult, exc: TransportError) -> str:
    """Why the peer is gone, saying how far the handshake got when it ended early."""
    if first.rematches or first.rules is not None:
        return f"the peer is gone: {exc}"
    if first.peer_name is None:
        if isinstance(exc, PeerTimeout):
            return f"no hello from the peer within {cfg.timeout_s:g} s (not a p2ptrumps peer?)"
        if cfg.role == "guest":
            return (f"the host ended the connection before its hello ({exc}): it may be busy with "
                    "another guest, or it is not a p2ptrumps host")
        return f"the connection ended before the guest's hello ({exc})"
    if cfg.role == "host":
        return (f"{first.peer_name!r} left during the handshake, before accepting the rules ({exc}); "
                "it may have refused your key")
    return f"{first.peer_name!r} ended the connection during the handshake ({exc})"


def _sync_paths(first: NetResult, logs: list[MatchLogFile]) -> None:
    for res, lg in zip([first, *first.rematches], logs, strict=False):
        res.log_path = lg.path if lg.created else None


def _open_match(cfg: NetConfig, number: int) -> tuple[MatchLogFile, Session, NetResult]:
    """The log, session and result of match ``number`` on this connection (0: the first,
    1..: rematches).  The log file is created only when the peer's hello checks out
    (:func:`_create_log`); until then the log keeps our hello in memory.  Raises
    :class:`NetplayError` (status 1) if the session cannot be made."""
    log = MatchLogFile(cfg.log_path or cfg.data / "logs", defer=True)
    header, entry = _log_codec()
    try:
        log.append(header)

        def on_message(frame: bytes, direction: str) -> None:
            log.append(entry(frame, direction))

        session = Session(
            "host" if cfg.role == "host" else "guest",
            cfg.identity,
            cfg.name,
            os.urandom(32),
            rules=cfg.rules if cfg.role == "host" else None,
            on_message=on_message,
        )
    except OSError as exc:
        log.close()
        raise NetplayError(EXIT_ERROR, f"cannot write the match log: {exc.strerror or exc}") from None
    return log, session, NetResult(None, 0 if cfg.role == "host" else 1)


def _create_log(cfg: NetConfig, log: MatchLogFile, now: datetime, number: int, peer: str) -> Path:
    """Create the file of match ``number``'s log (``--log PATH``, ``PATH-rematchN``, or a
    readable default name with the peer's name) and write what it held.  Raises
    :class:`NetplayError` (status 1) when it exists or cannot be written."""
    if cfg.log_path is None:
        path = default_log_path(cfg.data / "logs", cfg.role, now, peer)
    elif number == 0:
        path = cfg.log_path
    else:
        path = cfg.log_path.with_name(f"{cfg.log_path.stem}-rematch{number}{cfg.log_path.suffix}")
    try:
        log.create(path)
    except FileExistsError:
        raise NetplayError(EXIT_ERROR, f"log file {path} exists; not overwriting it (choose another --log)") from None
    except OSError as exc:
        raise NetplayError(EXIT_ERROR, f"cannot create log file {path}: {exc.strerror or exc}") from None
    return path


@dataclass
class _Steps:
    """What one match on a connection needs besides the session: see :func:`play_over`."""

    cfg: NetConfig
    now: datetime
    number: int
    peer_address: str
    rematch_of: NetResult | None
    hello_deadline: float | None
    claim: Callable[[NetResult], bool] | None


async def _match(conn: Connection, session: Session, steps: _Steps, result: NetResult, log: MatchLogFile,
                 rematches_left: int) -> bool:
    """One match on ``session``; returns True when a rematch was agreed after it."""
    cfg = steps.cfg
    game = NetGame(conn, session, on_chat=lambda who, text: _print(cfg, f"[chat] {who}: {text}"),
                   on_note=lambda text: _print(cfg, f"note: {text}"))
    with single_errors():
        async with trio.open_nursery() as nursery:
            nursery.start_soon(game.pump)
            await _match_steps(conn, session, steps, result, log, game)
            again = await _rematch(game, cfg, result, rematches_left)
            if not again:
                conn.closing_ok = True
            nursery.cancel_scope.cancel()
    return again


async def _rematch(game: NetGame, cfg: NetConfig, result: NetResult, rematches_left: int) -> bool:
    """After the match: offer / accept a rematch (protocol/wire.md §9.4).

    The AI (``--ai``) says yes while ``cfg.rematches`` allows, a person is asked
    (``cfg.ask_rematch``, else a line prompt when there is a terminal), nobody else
    wants one.  Declining is closing the connection.  Returns True once both sides
    sent ``rematch`` (the session's ``RematchAgreed``), False if we declined or the
    peer left (or declined) first.
    """
    session = game.session
    peer = result.peer_name or "the peer"
    peer_offered = session.chain is not None and (1 - session.seat) in session.chain.referee.rematch
    closed = session.waiting_for()[1] == "nothing"
    if closed:
        return False

    async def ask() -> bool:
        if cfg.ask_rematch is not None:
            return await cfg.ask_rematch(peer, peer_offered)
        if cfg.ai is not None:
            return rematches_left > 0
        if cfg.confirm is None:
            return False
        question = f"{peer} offers a rematch; play again? [y/N] " if peer_offered else "rematch? [y/N] "
        return await trio.to_thread.run_sync(cfg.confirm, question, abandon_on_cancel=True)

    want = await _unless_closed(game, ask)
    if not want:
        if want is None:
            _tell(game, cfg, f"{peer} left: no rematch")
        return False
    try:
        await game.send(session.offer_rematch)
    except (NetGameError, TransportError):
        _tell(game, cfg, f"{peer} left: no rematch")
        return False
    if (1 - session.seat) not in (session.chain.referee.rematch if session.chain else ()):
        _tell(game, cfg, f"rematch offered; waiting for {peer} (they may decline by leaving)")

    async def agreed() -> bool:
        await game.take(wev.RematchAgreed)
        return True

    got = await _unless_closed(game, agreed)
    if not got:
        _tell(game, cfg, f"{peer} declined the rematch")
        return False
    return True


def _tell(game: NetGame, cfg: NetConfig, text: str) -> None:
    """A note for the user: on the table when the UI runs (``game.on_note``), else printed."""
    if game.on_note is not None:
        game.on_note(text)
    else:
        _print(cfg, text)


async def _unless_closed(game: NetGame, fn: Callable[[], Awaitable[bool]]) -> bool | None:
    """``await fn()``, or None if the peer closes the connection first."""
    got: list[bool | None] = []
    with single_errors():
        async with trio.open_nursery() as nursery:

            async def run() -> None:
                got.append(await fn())
                nursery.cancel_scope.cancel()

            async def closed() -> None:
                await game.take(wev.ConnectionClosed)
                got.append(None)
                nursery.cancel_scope.cancel()

            nursery.start_soon(run)
            nursery.start_soon(closed)
    return got[0] if got else None


async def _match_steps(conn: Connection, session: Session, steps: _Steps, result: NetResult,
                       log: MatchLogFile, game: NetGame) -> None:
    """The match in order: handshake and pinning, rules, trumps, the deals, the signed end."""
    cfg, rematch_of = steps.cfg, steps.rematch_of
    seat = session.seat
    await conn.send_pending()  # our hello

    got: wev.PeerHello | None = None
    with trio.move_on_at(steps.hello_deadline if steps.hello_deadline is not None else math.inf):
        got = await game.take(wev.PeerHello)
    if got is None:
        raise NetplayError(EXIT_PEER_GONE, f"no hello from the peer within {cfg.hello_timeout_s:g} s "
                           "(not a p2ptrumps peer?)")
    hello = got
    result.peer_name, result.peer_fingerprint = hello.name, hello.fingerprint
    if steps.claim is not None and not steps.claim(result):
        raise NetplayError(EXIT_PEER_GONE, "another guest came first")
    result.log_path = _create_log(cfg, log, steps.now, steps.number, hello.name)
    if rematch_of is None:
        await _pin(cfg, hello, steps.peer_address)
    elif hello.fingerprint != rematch_of.peer_fingerprint:
        raise NetplayError(EXIT_KEY_REFUSED, f"the rematch hello shows another key ({hello.fingerprint}) than "
                           f"the match before ({rematch_of.peer_fingerprint}). Refused.")
    await game.send(session.accept_key)

    if cfg.role == "host":
        if rematch_of is None:
            _print(cfg, f"proposed: {cfg.rules.describe() if cfg.rules else '?'}; waiting for {hello.name} "
                   "to accept the rules ...")
        answer = await game.take(wev.RulesAgreed, wev.RulesRefused)
        if isinstance(answer, wev.RulesRefused):
            raise NetplayError(EXIT_RULES_REFUSED, f"{hello.name} refused the rules")
        assert isinstance(answer, wev.RulesAgreed)
        rules = answer.rules
    else:
        proposed = await game.take(wev.RulesProposed)
        if rematch_of is not None:
            ok = rematch_of.rules is not None and proposed.rules == rematch_of.rules
        else:
            ok = await _accept_rules(cfg, proposed.rules, hello.name)
        if not ok:
            await game.send(session.refuse_rules)
            why = "other rules than the match before" if rematch_of is not None else "the rules"
            raise NetplayError(EXIT_RULES_REFUSED, f"you refused {why} of {hello.name}")
        await game.send(session.accept_rules)
        rules = (await game.take(wev.RulesAgreed)).rules
    result.rules = rules
    _print(cfg, f"rules: {rules.describe()}")
    if rematch_of is None and cfg.on_ready is not None:
        cfg.on_ready(game, result)
    elif rematch_of is not None and cfg.on_rematch is not None:
        cfg.on_rematch(game, result)

    if seat == 0:
        mine = await _choose_trump(cfg, None)
        await game.send(lambda: session.choose_trump(mine))
        theirs = (await game.take(wev.TrumpChosen, where=lambda e: e.seat == 1)).suit
        trumps = (mine, theirs)
    else:
        theirs = (await game.take(wev.TrumpChosen, where=lambda e: e.seat == 0)).suit
        mine = await _choose_trump(cfg, theirs)
        await game.send(lambda: session.choose_trump(mine))
        trumps = (theirs, mine)
    a = cfg.ascii_only
    _print(cfg, f"trumps: you {suit_label(mine, a)}, {hello.name} {suit_label(theirs, a)}")

    ours: Player = _our_player(cfg, seat)
    names = (cfg.name, hello.name) if seat == 0 else (hello.name, cfg.name)
    if cfg.headless:
        ours = ProgressPrinter(ours, cfg, names)
    remote = RemotePlayer(game, PlayerInfo(hello.name, "remote", hello.fingerprint))
    local = LocalSeat(ours, game)
    players = (local, remote) if seat == 0 else (remote, local)
    runner = MatchRunner(rules, trumps, players, seed_source=game.seed, settle_deal=game.settle)
    result.record = runner.record
    record = await runner.run()
    ended = await game.take(wev.MatchEnded)
    if ended.score_halves != record.score_halves():
        _print(cfg, f"note: the signed score {ended.score_halves} differs from the engine's "
               f"{record.score_halves()}; the signed one counts")
    result.score_halves = ended.score_halves


async def _pin(cfg: NetConfig, hello: wev.PeerHello, peer_address: str) -> None:
    """Check the peer's key against the known peers.  The host knows guests by their key
    alone (any guest may play; a known name with a new key is only a warning); the guest
    applies ssh's rules to the host (``--fingerprint``, ``--accept-new``, a question).

    Raises:
        NetplayError: status 6 (the key is refused), 1 (the known-peers file is unusable).
    """
    try:
        known = keystore.KnownPeers.open(cfg.data)
    except keystore.KeyStoreError as exc:
        raise NetplayError(EXIT_ERROR, str(exc)) from None
    if cfg.role == "host":
        try:
            note = known.pin_guest(hello.fingerprint, hello.name, peer_address)
        except keystore.KeyStoreError as exc:
            raise NetplayError(EXIT_ERROR, str(exc)) from None
        _print(cfg, note)
        return
    check = known.check(hello.fingerprint, hello.name, peer_address)

    def decide() -> str:
        return keystore.decide_pin(check, known, expected_fingerprint=cfg.fingerprint,
                                   accept_new=cfg.accept_new, confirm=cfg.confirm)

    try:
        note = await trio.to_thread.run_sync(decide, abandon_on_cancel=True)
    except keystore.PinningError as exc:
        raise NetplayError(EXIT_KEY_REFUSED, str(exc)) from None
    except keystore.KeyStoreError as exc:
        raise NetplayError(EXIT_ERROR, str(exc)) from None
    _print(cfg, f"peer: {note}")


async def _accept_rules(cfg: NetConfig, rules: RuleSet, host_name: str) -> bool:
    _print(cfg, f"{host_name} proposes: {rules.describe()}")
    if cfg.ai is not None or cfg.confirm is None:
        return True
    question = "accept these rules? [Y/n] "
    answer = await trio.to_thread.run_sync(input, question, abandon_on_cancel=True)
    return answer.strip().lower() not in ("n", "no")


# ----- host and join -------------------------------------------------------------------


def check_log_free(cfg: NetConfig) -> None:
    """Refuse an existing ``--log`` file (or an unusable place for it) before listening or
    connecting.  Raises :class:`NetplayError` (status 1)."""
    if cfg.log_path is None:
        return
    path = cfg.log_path
    if path.exists() or path.is_symlink():
        raise NetplayError(EXIT_ERROR, f"log file {path} exists; not overwriting it (choose another --log)")
    parent = path.parent
    for p in (parent, *parent.parents):
        if p.exists():
            if not p.is_dir():
                raise NetplayError(EXIT_ERROR, f"cannot create log file {path}: {p} is not a directory")
            break


async def host(cfg: NetConfig, bind: str, port: int,
               task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> NetResult:
    """Listen on ``bind``:``port`` (0: any free port), print the address and our
    fingerprint, and play one match with the first guest that says a valid hello.

    Connections that send junk, close, reset, or say no hello within
    ``cfg.hello_timeout_s`` seconds are dropped with a note and the host waits on;
    so is a guest that leaves before accepting the rules (it may have refused our
    key).  Up to :data:`MAX_WAITING_CONNECTIONS` connections may be saying hello at
    once; more, and any connection once a guest is playing, are closed at once.

    ``task_status.started(port)`` reports the port actually bound (for tests).
    Raises :class:`NetplayError` (status 3 when the address cannot be bound, 1 when
    ``--log`` exists, else the match's status).
    """
    check_log_free(cfg)
    try:
        listeners = await trio.open_tcp_listeners(port, host=bind)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise NetplayError(EXIT_CONNECT, f"address {format_address(bind, port)} is in use "
                               "(another host running? choose another --port)") from None
        raise NetplayError(EXIT_CONNECT, f"cannot listen on {format_address(bind, port)}: "
                           f"{exc.strerror or exc}") from None
    try:
        bound = int(listeners[0].socket.getsockname()[1])
        addresses = local_addresses() if bind in ("0.0.0.0", "::", "") else [bind]
        _print(cfg, f"hosting as {cfg.name!r}, key fingerprint {cfg.identity.fingerprint}")
        _print(cfg, "give your opponent one of: " + ", ".join(format_address(a, bound) for a in addresses))
        _print(cfg, f"waiting for a guest on port {bound} ...")
        task_status.started(bound)
        return await _Lobby(cfg).serve(listeners)
    finally:
        for lst in listeners:
            with contextlib.suppress(Exception):
                await lst.aclose()


class _Lobby:
    """The host's waiting room: accepts connections, lets each say hello (one match runs
    per connection via :func:`play_over`), gives the match to the first valid hello and
    drops the rest; goes back to waiting if that guest leaves before the rules."""

    def __init__(self, cfg: NetConfig) -> None:
        self.cfg = cfg
        self.owner: object | None = None  # the connection holding the match
        self.waiting: dict[object, tuple[trio.CancelScope, str]] = {}  # oldest first
        self.waiting_from: dict[str, int] = {}  # address -> connections saying hello
        self.notes = 0
        self.done: list[NetResult] = []
        self.fatal: list[NetplayError] = []

    def note(self, text: str) -> None:
        if self.owner is not None:
            return  # the match is on (maybe on the full screen): say nothing more
        self.notes += 1
        if self.notes <= MAX_DROP_NOTES:
            _print(self.cfg, text)
        elif self.notes == MAX_DROP_NOTES + 1:
            _print(self.cfg, "(more dropped connections are not shown)")

    def claim(self, token: object, result: NetResult) -> bool:
        if self.owner is not None:
            return False
        self.owner = token
        for other, (scope, _) in list(self.waiting.items()):
            if other is not token:
                scope.cancel()
        _print(self.cfg, f"guest {result.peer_name!r} said hello")
        return True

    async def serve(self, listeners: list[trio.SocketListener]) -> NetResult:
        with single_errors():
            async with trio.open_nursery() as nursery:
                for lst in listeners:
                    nursery.start_soon(self._accept_loop, lst, nursery)
        if self.fatal:
            raise self.fatal[0]
        return self.done[0]

    async def _accept_loop(self, lst: trio.SocketListener, nursery: trio.Nursery) -> None:
        while True:
            try:
                stream = await lst.accept()
            except OSError as exc:  # e.g. out of file descriptors under a flood: breathe, go on
                self.note(f"cannot accept a connection: {exc.strerror or exc}")
                await trio.sleep(0.1)
                continue
            try:
                ip = str(stream.socket.getpeername()[0])
            except OSError:
                self.note("dropped a connection that was reset at once")
                await trio.aclose_forcefully(stream)
                continue
            if self.owner is not None:
                await trio.aclose_forcefully(stream)
                continue
            if self.waiting_from.get(ip, 0) >= MAX_WAITING_PER_ADDRESS:
                self._drop_oldest(ip, f"{MAX_WAITING_PER_ADDRESS} connections from there were saying hello")
            if len(self.waiting) >= MAX_WAITING_CONNECTIONS:
                self._drop_oldest(None, f"{MAX_WAITING_CONNECTIONS} connections were saying hello")
            self._enter(object(), stream, ip, nursery)

    def _enter(self, token: object, stream: trio.SocketStream, ip: str, nursery: trio.Nursery) -> None:
        scope = trio.CancelScope()
        self.waiting[token] = (scope, ip)
        self.waiting_from[ip] = self.waiting_from.get(ip, 0) + 1
        nursery.start_soon(self._candidate, token, scope, stream, ip, nursery)

    def _leave(self, token: object) -> None:
        entry = self.waiting.pop(token, None)
        if entry is None:
            return
        ip = entry[1]
        left = self.waiting_from.get(ip, 1) - 1
        if left > 0:
            self.waiting_from[ip] = left
        else:
            self.waiting_from.pop(ip, None)

    def _drop_oldest(self, ip: str | None, why: str) -> None:
        """Cancel the longest-waiting connection (from ``ip``, or from anywhere when None)."""
        for token, (scope, from_ip) in self.waiting.items():
            if ip is None or from_ip == ip:
                self._leave(token)
                scope.cancel()
                self.note(f"dropped the oldest waiting connection from {from_ip}: {why}")
                return

    async def _candidate(self, token: object, scope: trio.CancelScope, stream: trio.SocketStream, ip: str,
                         nursery: trio.Nursery) -> None:
        cfg = self.cfg
        with scope:
            try:
                result = await play_over(stream, cfg, ip, claim=lambda res: self.claim(token, res))
            except NetplayError as exc:
                if self.owner is not token:
                    self.note(f"dropped a connection from {ip}: {exc}; still waiting for a guest")
                    return
                res: NetResult | None = getattr(exc, "result", None)
                if res is not None and res.rules is None and exc.status in (EXIT_PEER_GONE, EXIT_PEER_FAULT):
                    self.owner = None
                    kept = f"; its log: {res.log_path}" if res.log_path else ""
                    self.note(f"{exc}{kept}; waiting for another guest ...")
                    return
                self.fatal.append(exc)
                nursery.cancel_scope.cancel()
                return
            finally:
                self._leave(token)
                with contextlib.suppress(Exception):
                    await trio.aclose_forcefully(stream)
            self.done.append(result)
            nursery.cancel_scope.cancel()


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
    _print(cfg, f"connected to {where}; your key fingerprint {cfg.identity.fingerprint}")
    return await play_over(stream, cfg, where)


# ----- the commands --------------------------------------------------------------------


def _config(args: argparse.Namespace, role: str) -> NetConfig:
    data = keystore.data_dir()
    identity, created = keystore.load_or_create_key(data)
    if created:
        print(f"created your identity key in {data / keystore.KEY_FILE}", file=sys.stderr)
    try:
        name = keystore.clean_name(args.name) if args.name else keystore.load_name(data)
    except ValueError as exc:
        raise NetplayError(EXIT_USAGE, str(exc)) from None
    interactive = sys.stdin.isatty()

    def confirm(question: str) -> bool:
        try:
            return input(question).strip().lower() in ("y", "yes")
        except EOFError:
            return False

    from .ui.view import wants_ascii

    return NetConfig(
        role=role,
        identity=identity,
        name=name,
        data=data,
        rules=getattr(args, "rules", None) if role == "host" else None,
        ai=args.ai,
        think_s=args.think,
        headless=bool(args.headless),
        trump=args.trump,
        log_path=Path(args.log) if args.log else None,
        timeout_s=args.timeout,
        fingerprint=getattr(args, "fingerprint", None),
        accept_new=bool(getattr(args, "accept_new", False)),
        confirm=confirm if interactive else None,
        ascii_only=bool(args.ascii) or wants_ascii(getattr(sys.stdout, "encoding", None)),
        rematches=max(0, int(getattr(args, "rematch", 0) or 0)),
    )


def _finish(cfg_out: TextIO, call: Callable[[], NetResult], cfg: NetConfig | None = None) -> int:
    try:
        result = call()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        for path in sorted(_logs_since(cfg)):
            print(f"match log (kept): {path}", file=sys.stderr)
        return 130
    except NetplayError as exc:
        print(f"p2ptrumps: {exc}", file=sys.stderr)
        res: NetResult | None = getattr(exc, "result", None)
        for path in log_paths(res):
            print(f"match log (kept): {path}", file=sys.stderr)
        return exc.status
    except keystore.KeyStoreError as exc:
        print(f"p2ptrumps: {exc}", file=sys.stderr)
        return EXIT_ERROR
    for path in log_paths(result):
        print(f"match log: {path}", file=cfg_out, flush=True)
    return EXIT_OK


def _logs_since(cfg: NetConfig | None) -> list[Path]:
    """Log files this run wrote (``--log PATH`` and its rematch logs, or new files in the data
    directory's logs since the run started): what an interrupted run tells the user it kept."""
    if cfg is None:
        return []
    if cfg.log_path is not None:
        p = cfg.log_path
        return [x for x in [p, *p.parent.glob(f"{p.stem}-rematch*{p.suffix}")] if x.exists()]
    logs = cfg.data / "logs"
    started = cfg.started_at
    with contextlib.suppress(OSError):
        return [x for x in logs.glob("*.p2plog") if x.stat().st_mtime >= started]
    return []


def log_paths(result: NetResult | None) -> list[Path]:
    """The log files of a connection: the first match's, then each rematch's (none known: [])."""
    if result is None:
        return []
    return [r.log_path for r in [result, *result.rematches] if r.log_path is not None]


def _run(args: argparse.Namespace, role: str) -> int:
    try:
        cfg = _config(args, role)
    except NetplayError as exc:
        print(f"p2ptrumps: {exc}", file=sys.stderr)
        return exc.status
    except keystore.KeyStoreError as exc:
        print(f"p2ptrumps: {exc}", file=sys.stderr)
        return EXIT_ERROR
    if not cfg.headless and cfg.ai is None:
        from .netui import run_with_ui

        status: int = run_with_ui(cfg, args, role)
        return status
    if role == "host":
        return _finish(cfg.out, lambda: trio.run(host, cfg, args.bind, args.port), cfg)
    return _finish(cfg.out, lambda: trio.run(join, cfg, args.address), cfg)


def run_host(args: argparse.Namespace) -> int:
    """``p2ptrumps host``: listen, print the address and fingerprint, play one match.
    Returns the exit status (see the module docstring)."""
    return _run(args, "host")


def run_join(args: argparse.Namespace) -> int:
    """``p2ptrumps join HOST:PORT``: connect, check the host's key, play one match.
    Returns the exit status (see the module docstring)."""
    try:
        parse_address(args.address)
    except NetplayError as exc:
        print(f"p2ptrumps: {exc}", file=sys.stderr)
        return exc.status
    return _run(args, "guest")


def run_id(args: argparse.Namespace) -> int:
    """``p2ptrumps id [--name N] [--forget NAME_OR_FP]``: print our key fingerprint and name
    (creating the key on first use; ``--name`` stores a new display name; ``--forget`` unpins
    known peers by fingerprint, name or address).  Returns 0, or 1 with a message."""
    try:
        data = keystore.data_dir()
        forget = getattr(args, "forget", None)
        if forget:
            gone = keystore.KnownPeers.open(data).forget(forget)
            if not gone:
                print(f"p2ptrumps: no known peer has the fingerprint, name or address {forget!r}", file=sys.stderr)
                return EXIT_ERROR
            for p in gone:
                print(f"forgot {p.name!r} at {p.address} ({p.fingerprint}), pinned {p.first_seen}")
            return EXIT_OK
        identity, created = keystore.load_or_create_key(data)
        name = keystore.save_name(args.name, data) if args.name else keystore.load_name(data)
    except (keystore.KeyStoreError, ValueError) as exc:
        print(f"p2ptrumps: {exc}", file=sys.stderr)
        return EXIT_ERROR
    if created:
        print(f"created a new identity key: {data / keystore.KEY_FILE}")
    print(f"name:        {name}")
    print(f"fingerprint: {identity.fingerprint}")
    return EXIT_OK
