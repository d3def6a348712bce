"""One networked match over one connected stream, from the hellos to the signed end, and
the rematches agreed on the same stream.

Source: ``protocol/wire.md`` §7 (the handshake), §9 (the match), §9.4 (rematch), §12 (the
log), issue 3 §2-§3.  The driver runs a :class:`~p2ptrumps.wire.session.Session` over a
:class:`~p2ptrumps.net.transport.Connection`, pins the peer's key
(:mod:`p2ptrumps.net.keystore`), creates the match log (:mod:`p2ptrumps.net.logfile`)
once the peer's hello checks out, and plays the match loop with the peer's seat as a
:class:`~p2ptrumps.net.remote.RemotePlayer`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import trio

from ..cards import suit_label
from ..match import MatchEnded as MatchOver
from ..match import MatchRunner, Player
from ..record import PlayerInfo
from ..rules import RuleSet
from ..text import quoted
from ..wire import events as wev
from ..wire.chain import DONE, PLAY, REMATCHED
from ..wire.errors import LocalProtocolError
from ..wire.log import LOG_MAGIC
from ..wire.session import Session
from . import keystore, remote
from .config import (
    EXIT_ERROR,
    EXIT_KEY_REFUSED,
    EXIT_LEFT,
    EXIT_PEER_FAULT,
    EXIT_PEER_GONE,
    EXIT_RULES_REFUSED,
    NetConfig,
    NetplayError,
    NetResult,
    say,
)
from .logfile import MatchLogFile, create_log
from .prompts import ProgressPrinter, choose_trump, our_player, rules_refusal
from .remote import ClockKey, LocalSeat, NetGame, NetGameError, RemotePlayer, clock_text
from .resumefile import ResumeFile, path_for
from .transport import (
    MAX_PENDING_BYTES,
    Connection,
    Link,
    PeerFault,
    PeerFlood,
    PeerGone,
    PeerTimeout,
    Reconnect,
    TransportError,
    single_errors,
)

#: A bound on the rematches played on one connection (each needs both sides' consent anyway).
MAX_MATCHES_PER_CONNECTION = 1000

Redial = Callable[[float], Awaitable["Link | None"]]
#: Why a match taken up after a restart starts with no link (protocol/wire.md §14.4).
RESTARTED = "this side restarted"
#: Seconds the guest waits between reconnection attempts (then the last, again and again).
GUEST_BACKOFF_S = (1.0, 2.0, 4.0, 8.0, 10.0)


@dataclass
class Restored:
    """A match taken up from its log after this side's process died (protocol/wire.md §14.4):
    the session rebuilt from the log (:meth:`~p2ptrumps.wire.session.Session.restore`), the log
    reopened for appending, its resume file, and the result so far (peer, rules, log path)."""

    session: Session
    log: MatchLogFile
    resume: ResumeFile
    result: NetResult


def _clock(seconds: float) -> str:
    whole = max(0, math.ceil(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


def make_reconnect(cfg: NetConfig, redial: Redial, backoff_s: tuple[float, ...]) -> Reconnect:
    """The ``reconnect`` of a :class:`~p2ptrumps.net.transport.Connection`: calls ``redial(seconds
    left)`` (a new :class:`~p2ptrumps.net.transport.Link`, or None for "not now") with
    ``backoff_s`` between tries, until ``cfg.reconnect_wait_s`` seconds after the link went
    down; meanwhile ``cfg.on_link`` shows "connection lost — reconnecting (1:42 left)" each
    second.  Raises :class:`PeerGone` when the wait runs out (protocol/wire.md §14)."""

    async def reconnect(conn: Connection, why: TransportError) -> Link:
        started = conn.down_since if conn.down_since is not None else trio.current_time()
        deadline = started + cfg.reconnect_wait_s
        if str(why) != RESTARTED and (conn.reconnections == 0 or trio.current_time() - started < 0.5):
            say(cfg, f"connection lost ({why}); reconnecting for up to {cfg.reconnect_wait_s:g} s ...")
        got: list[Link] = []
        async with trio.open_nursery() as nursery:

            async def countdown() -> None:
                while True:
                    if cfg.on_link is not None:
                        cfg.on_link(f"connection lost — reconnecting ({_clock(deadline - trio.current_time())} left)")
                    await trio.sleep(1.0)

            async def tries() -> None:
                for i in range(1_000_000):
                    left = deadline - trio.current_time()
                    if left <= 0:
                        break
                    with trio.move_on_after(left):
                        stream = await redial(left)
                        if stream is not None:
                            got.append(stream)
                            break
                        await trio.sleep(backoff_s[min(i, len(backoff_s) - 1)])
                nursery.cancel_scope.cancel()

            nursery.start_soon(countdown)
            nursery.start_soon(tries)
        if not got:
            if str(why) == RESTARTED:
                raise PeerGone(f"the peer did not come back within {cfg.reconnect_wait_s:g} s of this side's restart")
            raise PeerGone(f"{why}; the peer did not come back within {cfg.reconnect_wait_s:g} s")
        if cfg.on_link is not None:
            cfg.on_link("reconnecting: checking the peer's key")
        return got[0]

    return reconnect


async def play_over(stream: trio.abc.Stream | None, cfg: NetConfig, peer_address: str, *,
                    claim: Callable[[NetResult], bool] | None = None,
                    redial: Redial | None = None, backoff_s: tuple[float, ...] = (0.0,),
                    restored: Restored | None = None,
                    on_connection: Callable[[Connection], None] | None = None,
                    max_pending_bytes: int = MAX_PENDING_BYTES) -> NetResult:
    """Play one match as ``cfg.role`` over a connected ``stream``, then any rematches agreed
    (protocol/wire.md §9.4: each one a new session, new game id and new log on the same stream).

    Args:
        stream: the TCP (or memory, in tests) stream to the peer.
        cfg: our side's :class:`NetConfig`.
        peer_address: the peer's address for known peers (``host:port`` we joined,
            or the guest's IP).
        claim: (host) called with the result once the guest's accepting ``agree`` -- its first
            signed message -- checks out, before anything is written to disk (the pin, the log);
            returning False drops this connection (another guest came first; protocol/wire.md
            §7.1).  The peer's hello must arrive within ``cfg.hello_timeout_s`` seconds of the
            start, the guest's answer to the rules within ``cfg.agree_wait_s`` of the proposal.
        redial: how to reach the peer again after the connection drops (the guest dials the
            host, the host takes a connection that resumes this match from its lobby); None:
            a dropped connection ends the match.  ``backoff_s``: pauses between tries.
        restored: the match is taken up after a restart: ``stream`` is None and the first link
            comes from ``redial`` (protocol/wire.md §14.4).
        on_connection: called with the :class:`Connection` once it exists (the host's lobby
            hands it resuming connections, and drops its link for a proven one).
        max_pending_bytes: most bytes queued for a peer that does not read them (the lobby keeps
            it small until the guest has signed, then raises ``conn.max_pending_bytes``).
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
    first = _open_match(cfg, 0) if restored is None else (restored.log, restored.session, restored.result)
    log, session, result = first
    results = [result]
    logs = [log]
    current: list[Session] = [session]

    def rejoining() -> bool:
        """A restarted side waits for the peer to come back even with its match complete (wire.md §14.5)."""
        return restored is not None and conn.reconnections == 0

    try:
        conn = Connection(
            stream,
            session,
            timeout_s=cfg.timeout_s,
            heartbeat_s=cfg.heartbeat_s,
            fault_of=lambda ev: f"{ev.reason} [{ev.code}]" if isinstance(ev, wev.ProtocolViolation) else None,
            is_finished=lambda: current[0].finished and current[0].delivered,
            reconnect=make_reconnect(cfg, redial, backoff_s) if redial is not None and cfg.reconnect_wait_s > 0
            else None,
            can_resume=lambda: (current[0].rules is not None and current[0].violation is None
                                and (rejoining() or not (current[0].finished and current[0].delivered))),
            down=PeerGone(RESTARTED) if restored is not None else None,
            close_first=cfg.role == "guest",  # the guest sends the last statement (protocol/wire.md §14.5)
            max_pending_bytes=max_pending_bytes,
            frame_time_s=cfg.frame_time_s,
        )
        if on_connection is not None:
            on_connection(conn)

        all_steps: list[_Steps] = []
        sessions: list[Session] = []

        def forget_complete() -> None:
            """Delete the resume files of the complete matches: called once the connection closed
            properly, or the peer stayed away (protocol/wire.md §14.5; files.md)."""
            for st, s in zip(all_steps, sessions, strict=False):
                if st.resume is not None and _complete(s):
                    st.resume.delete()

        async def body(c: Connection) -> None:
            match_log, match_session, match_result = first
            for number in range(MAX_MATCHES_PER_CONNECTION):
                steps = _Steps(cfg, now, number, peer_address, rematch_of=results[0] if number else None,
                               hello_deadline=hello_deadline if number == 0
                               else trio.current_time() + cfg.hello_timeout_s,
                               claim=claim if number == 0 else None,
                               restored=restored if number == 0 else None,
                               resume=restored.resume if restored is not None and number == 0 else None)
                all_steps.append(steps)
                sessions.append(match_session)
                again = await _match(c, match_session, steps, match_result, match_log,
                                     rematches_left=cfg.rematches - number)
                if not again:
                    return
                match_log.close()
                say(cfg, "rematch agreed: a new match on the same connection")
                trailing = match_session.trailing_data
                match_session.trailing_data = b""
                match_log, match_session, match_result = _open_match(cfg, number + 1)
                logs.append(match_log)
                results[0].rematches.append(match_result)
                current[0] = match_session
                c.switch_session(match_session, trailing)

        def ended_early() -> None:
            """The connection ended (a fault, a flood, the peer gone) before the handshake task saw how
            far the session got: what the session read counts all the same.  The peer's hello names it;
            (host) a guest whose accepting ``agree`` checked out took the match (protocol/wire.md §7.1),
            so its log holds the ``agree`` and what came after (a fault's evidence, §11)."""
            session, first_result = current[0], results[0]
            if first_result.rematches or not all_steps:
                return
            if first_result.peer_name is None and session.peer_name is not None:
                first_result.peer_name, first_result.peer_fingerprint = session.peer_name, session.peer_fingerprint
            steps = all_steps[0]
            if cfg.role == "host" and steps.restored is None and session.rules is not None:
                _begin_hosted(steps, session, first_result, logs[0])

        try:
            try:
                await conn.run(body)
            except TransportError:
                ended_early()
                raise
            forget_complete()
            left = [r.left for r in [results[0], *results[0].rematches] if r.left]
            if left:
                raise NetplayError(EXIT_LEFT, left[0])
        except PeerFault as exc:  # the session logged the offending frame last, as evidence
            violation = current[0].violation
            hint = ""
            if violation is not None and violation.code == "bad-key" and "our own public key" in violation.reason:
                hint = (" -- both sides use one identity key: are two p2ptrumps processes sharing one data "
                        f"directory ({cfg.data})? Give each its own with XDG_DATA_HOME=/some/other/dir")
            raise NetplayError(EXIT_PEER_FAULT, f"the peer broke the protocol: {exc}{hint}") from None
        except (PeerGone, PeerTimeout, PeerFlood) as exc:
            if _complete(current[0]):
                if current[0].delivered:
                    say(cfg, f"note: the match is complete; then the connection ended: {exc}")
                else:  # our log is complete; only the peer may lack our last statement (wire.md §14.5)
                    say(cfg, f"note: the match is complete, but the peer may not have your last statement ({exc})")
                forget_complete()
                if results[0].left:
                    raise NetplayError(EXIT_LEFT, results[0].left) from None
                _sync_paths(results[0], logs)
                return results[0]
            started = logs[-1].created  # the match began: its log exists (protocol/wire.md §12)
            claimed = _claim_on_leaving(current[0]) if started else ""
            if isinstance(exc, PeerFlood):
                raise NetplayError(EXIT_PEER_FAULT, f"the peer flooded the connection: {exc} (not in the log: no "
                                   "log can show it)" + claimed) from None
            raise NetplayError(EXIT_PEER_GONE, _gone_message(cfg, results[0], current[0], exc, started)
                               + _forfeit_note(current[0]) + claimed) from None
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


def _claim_on_leaving(session: Session) -> str:
    """The peer did not come back within the reconnect wait (protocol/wire.md §16): if the match waits
    for it in a phase where that may be claimed, sign the claim (it is logged, never sent) and say
    so; else ""."""
    chain = session.chain
    if chain is None or session.violation is not None or session.rules is None:
        return ""
    ref = chain.referee
    seat, _ = ref.waiting_for()
    if seat != 1 - session.seat or ref.phase not in ("trump", "commit", "reveal", PLAY):
        return ""
    try:
        session.claim()
    except (LocalProtocolError, OSError):
        return ""
    won = ref.claims[-1][1] if ref.claims else []
    what = f"deal {won[0]}" if len(won) == 1 else "deals " + ", ".join(map(str, won))
    return f"; you claimed {what} on time (your log keeps the signed claim)"


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


def _gone_message(cfg: NetConfig, first: NetResult, session: Session, exc: TransportError, started: bool) -> str:
    """Why the peer is gone, saying how far the handshake got when it ended early (``session``: the
    current match's; its chain says whether the rules were agreed, even before we saw the event;
    ``started``: the match's log exists)."""
    if first.rematches or started:
        return f"the peer is gone: {exc}"
    if session.rules is not None:  # the guest agreed, but the match was not ours / not begun
        if cfg.role == "host":
            return (f"{quoted(first.peer_name or '')} accepted the rules, then the connection ended before the "
                    f"match began ({exc})")
        return f"the connection ended as the match began ({exc})"
    if first.peer_name is None:
        if isinstance(exc, PeerTimeout):  # silent, or its first frame never ends (protocol/wire.md §17)
            return f"no hello from the peer: {exc} (not a p2ptrumps peer?)"
        if cfg.role == "guest":  # a busy host closes a new connection without a word (protocol/wire.md §7.1)
            return "the host is busy with another match (it closed the connection without a hello); try again later"
        return f"the connection ended before the guest's hello ({exc})"
    if cfg.role == "host":
        if isinstance(exc, PeerTimeout):  # it is there, but does not read or does not finish a frame
            return f"dropped {quoted(first.peer_name)} during the handshake, before it accepted the rules ({exc})"
        return (f"{quoted(first.peer_name)} left during the handshake, before accepting the rules ({exc}); "
                "it may have refused your key")
    return (f"{quoted(first.peer_name)} ended the connection before the rules were agreed ({exc}): the host "
            "is busy with another match (another guest accepted first), or it stopped")


def _sync_paths(first: NetResult, logs: list[MatchLogFile]) -> None:
    for res, lg in zip([first, *first.rematches], logs, strict=False):
        res.log_path = lg.path if lg.created else None


def _open_match(cfg: NetConfig, number: int) -> tuple[MatchLogFile, Session, NetResult]:
    """The log, session and result of match ``number`` on this connection (0: the first,
    1..: rematches).  The log file is created only when the rules are agreed (protocol/wire.md
    §12, :func:`~p2ptrumps.net.logfile.create_log`); until then the log is kept in memory, so a
    refused or abandoned handshake leaves no file.  Raises
    :class:`NetplayError` (status 1) if the session cannot be made."""
    log = MatchLogFile(cfg.log_path or cfg.data / "logs", defer=True)
    try:
        log.append(LOG_MAGIC)

        def on_message(frame: bytes, direction: str) -> None:
            log.append(frame)  # protocol/wire.md §12: each frame as on the wire

        session = Session(
            "host" if cfg.role == "host" else "guest",
            cfg.identity,
            cfg.name,
            os.urandom(32),
            rules=cfg.rules if cfg.role == "host" else None,
            on_message=on_message,
            move_time=cfg.move_time if cfg.role == "host" else 0,
        )
    except OSError as exc:
        log.close()
        raise NetplayError(EXIT_ERROR, f"cannot write the match log: {exc.strerror or exc}") from None
    return log, session, NetResult(None, 0 if cfg.role == "host" else 1)


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
    restored: Restored | None = None
    #: The match's resume file, once the log file exists (``protocol/files.md``).
    resume: ResumeFile | None = None


async def _match(conn: Connection, session: Session, steps: _Steps, result: NetResult, log: MatchLogFile,
                 rematches_left: int) -> bool:
    """One match on ``session``; returns True when a rematch was agreed after it."""
    cfg = steps.cfg
    game = NetGame(conn, session, on_chat=lambda who, text: say(cfg, f"[chat] {who}: {text}"),
                   on_note=lambda text: say(cfg, f"note: {text}"))
    game.ask_claim = cfg.ask_claim
    game.clock.no_clock_limit_s = cfg.no_clock_limit_s
    try:
        with single_errors():
            async with trio.open_nursery() as nursery:
                nursery.start_soon(game.pump)
                nursery.start_soon(game.run_clock)
                nursery.start_soon(_deadlines, game, cfg)
                await _match_steps(conn, session, steps, result, log, game)
                if steps.restored is not None:
                    await _rejoined(game)
                await _acknowledged(game, cfg)
                again = False if result.left else await _rematch(game, cfg, result, rematches_left)
                if not again:
                    conn.closing_ok = True
                nursery.cancel_scope.cancel()
    finally:
        if steps.resume is not None and session.violation is not None:
            steps.resume.delete()  # ended on the peer's fault: nothing left to resume
    return again


async def _deadlines(game: NetGame, cfg: NetConfig) -> None:
    """The waits of protocol/wire.md §17 that the match loop does not watch itself, run beside the
    match: when the peer's trump choice, commitment or reveal has taken its move clock (or
    ``cfg.no_clock_limit_s`` without one) plus the grace, claim the rest of the match (a person is
    asked first, §16); when its deal-end or match-end statement is ``cfg.statement_wait_s`` late,
    stop (the log stays unfinished and resumable).  Only time with the
    link up counts.  (Moves are the match loop's: :class:`~p2ptrumps.net.remote.RemotePlayer`.)"""
    session, clock = game.session, game.clock
    peer = 1 - session.seat
    handled: set[ClockKey] = set()
    for _ in range(1 << 40):  # one pass per tick of the clock
        await clock.next_tick()
        key = clock.key
        if key is None or key[3] != peer or key[0] == "move" or key in handled:
            continue
        what = key[0]
        if what in ("deal-end", "match-end"):
            if clock.used_s >= cfg.statement_wait_s:
                game.conn.stop(PeerTimeout(f"the peer did not sign its {what} statement within "
                                           f"{cfg.statement_wait_s:g} s (it is due at once)"))
                return
            continue
        if clock.used_s < clock.limit_s + remote.CLAIM_GRACE_S:
            continue
        handled.add(key)
        name = session.peer_name or "the peer"
        text = f"{name}'s time is up ({clock_text(clock.limit_s)} for its {what}): claim the rest of the match?"
        if game.ask_claim is not None and not await game.ask_claim(text):
            continue
        try:
            await game.send(session.claim)
        except NetGameError:  # its message came first (or crossed ours): the match goes on
            continue
        if game.on_note is not None:
            won = session.chain.referee.claims[-1][1] if session.chain and session.chain.referee.claims else []
            game.on_note(f"{name}'s time ran out ({what}): you claimed deals {', '.join(map(str, won))}")


async def _rejoined(game: NetGame) -> None:
    """(a restarted side) Wait until the peer is back and proven, so that our last statement, or
    the acknowledgement of the peer's, can reach it (protocol/wire.md §14.5).  The reconnect wait
    bounds it."""
    while not game.conn.link_up:
        await trio.sleep(0.05)


async def _acknowledged(game: NetGame, cfg: NetConfig) -> None:
    """Wait until the peer holds our last statement for sure (protocol/wire.md §14.5): ping after it
    and wait for the pong, again after any reconnection.  Returns at once when a message of the
    peer came after it (the host's case).  A peer that never answers holds us at most the reconnect
    wait plus the timeout (§17): then the match is complete, its acknowledgement unknown."""
    session = game.session
    with trio.move_on_after(cfg.reconnect_wait_s + cfg.timeout_s):
        while not session.delivered:
            if game.conn.link_up:
                session.ping()
                await game.conn.send_pending()
            with trio.move_on_after(1.0):
                while not session.delivered:
                    await trio.sleep(0.01)
    if not session.delivered:
        say(cfg, "note: the match is complete, but the peer did not acknowledge your last statement")


def _complete(session: Session) -> bool:
    """True when the match in ``session`` is complete: both signed the end (its log verifies as valid)."""
    chain = session.chain
    return session.violation is None and chain is not None and chain.referee.phase in (DONE, REMATCHED)


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

    got: bool | None = None
    with trio.move_on_after(cfg.rematch_wait_s) as wait:
        got = await _unless_closed(game, agreed)
    if wait.cancelled_caught:
        _tell(game, cfg, f"{peer} did not answer the rematch offer within {cfg.rematch_wait_s:g} s")
        return False
    if not got:
        _tell(game, cfg, f"{peer} declined the rematch")
        return False
    return True


def _tell(game: NetGame, cfg: NetConfig, text: str) -> None:
    """A note for the user: on the table when the UI runs (``game.on_note``), else printed."""
    if game.on_note is not None:
        game.on_note(text)
    else:
        say(cfg, text)


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
    """The match in order: handshake and pinning, rules, trumps, the deals, the signed end.  A
    restored match (``steps.restored``) skips what its chain holds already."""
    cfg, rematch_of = steps.cfg, steps.rematch_of
    if steps.restored is not None:
        game.restore()
        name = session.peer_name or "peer"
        say(cfg, f"resuming the match with {name} ({session.peer_fingerprint}); its log: {result.log_path}")
        rules = session.rules
        assert rules is not None
    else:
        name, rules = await _handshake(session, steps, result, log, game)
    result.rules, result.move_time = rules, session.move_time
    if steps.resume is not None:
        game.before_commit = steps.resume.add_secret
    clock = f"; move clock {session.move_time} s" if session.move_time else ""
    say(cfg, f"rules: {rules.describe()}{clock}")
    if rematch_of is None and cfg.on_ready is not None:
        cfg.on_ready(game, result)
    elif rematch_of is not None and cfg.on_rematch is not None:
        cfg.on_rematch(game, result)
    await _play_match(session, steps, result, game, name)


async def _handshake(session: Session, steps: _Steps, result: NetResult, log: MatchLogFile,
                     game: NetGame) -> tuple[str, RuleSet]:
    """Hellos, pinning and the rules (protocol/wire.md §7, §9.1); creates the log file when the
    rules are agreed.  Returns the peer's name and the agreed rules."""
    cfg, rematch_of = steps.cfg, steps.rematch_of
    game_take = game.take

    def resume_first(path: Path) -> None:  # the resume file exists before the log (protocol/files.md)
        steps.resume = _new_resume_file(cfg, path, session)

    await game.conn.send_pending()  # our hello

    got: wev.PeerHello | None = None
    with trio.move_on_at(steps.hello_deadline if steps.hello_deadline is not None else math.inf):
        got = await game_take(wev.PeerHello)
    if got is None:
        raise NetplayError(EXIT_PEER_GONE, f"no hello from the peer within {cfg.hello_timeout_s:g} s "
                           "(not a p2ptrumps peer?)")
    hello = got
    result.peer_name, result.peer_fingerprint = hello.name, hello.fingerprint
    if rematch_of is not None and hello.fingerprint != rematch_of.peer_fingerprint:
        raise NetplayError(EXIT_KEY_REFUSED, f"the rematch hello shows another key ({hello.fingerprint}) than "
                           f"the match before ({rematch_of.peer_fingerprint}). Refused.")
    if rematch_of is None and cfg.code_fingerprint is not None:  # keys pinned by the code (rendezvous.md §3)
        _check_code_key(cfg, hello)
    elif rematch_of is None and cfg.role == "guest":
        await _pin(cfg, hello, steps.peer_address)  # the host is pinned once the guest has signed, below
    await game.send(session.accept_key)

    if cfg.role == "host":
        if rematch_of is None and steps.claim is None:
            clock = f", move clock {cfg.move_time} s" if cfg.move_time else ""
            say(cfg, f"proposed: {cfg.rules.describe() if cfg.rules else '?'}{clock}; waiting for {hello.name} "
                   "to accept the rules ...")
        answer: wev.RulesAgreed | wev.RulesRefused | None = None
        with trio.move_on_after(cfg.agree_wait_s):
            answer = await game_take(wev.RulesAgreed, wev.RulesRefused)
        if answer is None:
            raise NetplayError(EXIT_PEER_GONE, f"{quoted(hello.name)} did not answer the rules within "
                               f"{cfg.agree_wait_s:g} s")
        if isinstance(answer, wev.RulesRefused):
            raise NetplayError(EXIT_RULES_REFUSED, f"{quoted(hello.name)} refused the rules")
        if not _begin_hosted(steps, session, result, log):
            raise NetplayError(EXIT_PEER_GONE, "another guest came first")
        return hello.name, answer.rules
    proposed: wev.RulesProposed | None = None
    with trio.move_on_after(cfg.hello_timeout_s):  # the host proposes at once (protocol/wire.md §17)
        proposed = await game_take(wev.RulesProposed)
    if proposed is None:
        raise NetplayError(EXIT_PEER_GONE, f"{quoted(hello.name)} proposed no rules within {cfg.hello_timeout_s:g} s")
    if rematch_of is not None:
        ok = (rematch_of.rules is not None and proposed.rules == rematch_of.rules
              and proposed.move_time == rematch_of.move_time)
        why = "" if ok else "other rules than the match before"
    else:
        refusal = await rules_refusal(cfg, proposed.rules, hello.name, proposed.move_time)
        ok, why = refusal is None, refusal or ""
    if not ok:
        await game.send(session.refuse_rules)
        raise NetplayError(EXIT_RULES_REFUSED, f"you refused the rules of {hello.name}" + (f": {why}" if why else ""))
    result.log_path = create_log(cfg, log, steps.now, steps.number, hello.name, before=resume_first)
    await game.send(session.accept_rules)
    return hello.name, (await game_take(wev.RulesAgreed)).rules


def _begin_hosted(steps: _Steps, session: Session, result: NetResult, log: MatchLogFile) -> bool:
    """(host) The guest's accepting ``agree`` -- its first signed message, which proves its key -- is in
    the chain: the match is its unless another guest took the match first (``steps.claim``, the lobby;
    protocol/wire.md §7.1).  Then pin its key (the first match on the connection) and create the log
    file, its resume file first (§12, ``files.md``).  Returns False when another guest came first
    (nothing is written); True at once when the log exists already.  Synchronous, so that it runs to
    the end even when the connection fails just after the ``agree`` (see :func:`play_over`).

    Raises:
        NetplayError: status 1, the known-peers file, the resume file or the log cannot be written,
            or ``--log`` exists.
    """
    if log.created:
        return True
    cfg = steps.cfg
    if steps.claim is not None and not steps.claim(result):
        return False
    name, fingerprint = session.peer_name or "", session.peer_fingerprint or ""
    if steps.rematch_of is None:
        _pin_guest(cfg, name, fingerprint, steps.peer_address)

    def resume_first(path: Path) -> None:  # the resume file exists before the log (protocol/files.md)
        steps.resume = _new_resume_file(cfg, path, session)

    result.log_path = create_log(cfg, log, steps.now, steps.number, name, before=resume_first)
    return True


def _new_resume_file(cfg: NetConfig, log_path: Path, session: Session) -> ResumeFile:
    """Create the resume file beside a new log (``protocol/files.md``).  NetplayError (status 1) if
    it cannot be written."""
    assert session.game_id is not None
    resume = ResumeFile(path_for(log_path), session.game_id, cfg.role,
                        address=cfg.address if cfg.role == "guest" else None,
                        bind=cfg.bind if cfg.role == "host" else None,
                        port=cfg.port if cfg.role == "host" else 0, meet=cfg.meet)
    try:
        resume.save()
    except OSError as exc:
        raise NetplayError(EXIT_ERROR, f"cannot write the resume file {resume.path}: {exc.strerror or exc}"
                           ) from None
    return resume


async def _play_match(session: Session, steps: _Steps, result: NetResult, game: NetGame, name: str) -> None:
    """Trumps, the deals and the signed end, or the match's early end (a seat left or was claimed
    against between deals)."""
    cfg = steps.cfg
    seat = session.seat
    ours: list[Player] = []
    runner: list[MatchRunner] = []

    async def play() -> None:
        mine, theirs = await _trumps(game, cfg, seat)
        trumps = (mine, theirs) if seat == 0 else (theirs, mine)
        a = cfg.ascii_only
        say(cfg, f"trumps: you {suit_label(mine, a)}, {name} {suit_label(theirs, a)}")
        player: Player = our_player(cfg, seat)
        names = (cfg.name, name) if seat == 0 else (name, cfg.name)
        if cfg.headless:
            player = ProgressPrinter(player, cfg, names)
        ours.append(player)
        remote = RemotePlayer(game, PlayerInfo(name, "remote", session.peer_fingerprint))
        local = LocalSeat(player, game)
        players = (local, remote) if seat == 0 else (remote, local)
        rules = session.rules
        assert rules is not None
        runner.append(MatchRunner(rules, trumps, players, seed_source=game.seed, settle_deal=game.settle))
        result.record = runner[0].record
        await runner[0].run()

    how, early = await _play_or_leave(cfg, game, play)
    if how == "played":
        ended = await game.take(wev.MatchEnded)
        record = runner[0].record
        if ended.score_halves != record.score_halves():
            say(cfg, f"note: the signed score {ended.score_halves} differs from the engine's "
                   f"{record.score_halves()}; the signed one counts")
        result.score_halves = ended.score_halves
        return
    if early is not None:
        result.score_halves = early.score_halves
    if how in ("peer-left", "claimed"):
        if early is not None and ours and runner:
            await ours[0].observe(MatchOver(early.score_halves, runner[0].record))
        return
    if early is not None:  # the match is complete: close the connection as usual, then report (status 130)
        result.left = "you resigned and left the match (both signed the final score)"
        return
    raise NetplayError(EXIT_LEFT, "you resigned and left the match (the peer did not sign the end in time)")


async def _trumps(game: NetGame, cfg: NetConfig, seat: int) -> tuple[int, int]:
    """Our trump and the peer's (RULES.md §2): the host chooses first, the guest another suit.  A
    choice already in the chain (a restored session) is taken from there."""
    session = game.session
    chain = session.chain
    assert chain is not None
    ref = chain.referee

    async def theirs() -> int:
        peer = 1 - seat
        known = ref.trumps[peer]
        if known is not None:
            return known
        return (await game.take(wev.TrumpChosen, where=lambda e: e.seat == peer)).suit

    async def mine(taken: int | None) -> int:
        known = ref.trumps[seat]
        if known is not None:
            return known
        suit = await choose_trump(cfg, taken)
        await game.send(lambda: session.choose_trump(suit))
        return suit

    if seat == 0:
        ours = await mine(None)
        return ours, await theirs()
    other = await theirs()
    return await mine(other), other


async def _play_or_leave(cfg: NetConfig, game: NetGame, play: Callable[[], Awaitable[None]]
                         ) -> tuple[str, wev.MatchEnded | None]:
    """Run ``play()`` (the trumps and the match loop) until it ends (``"played"``), the chain ends
    the match early (``"peer-left"``: the peer left, protocol/wire.md §15, or claimed the rest
    between deals, §16; ``"claimed"``: we did, before a restart; the signed end follows), or
    our user leaves (``"we-left"``:
    ``cfg.leave_requested`` is set; we send ``leave`` and wait up to ``cfg.leave_wait_s``
    seconds for the closing signatures).  Returns how, and the signed end when it came early."""
    how: list[str] = []
    early: list[wev.MatchEnded] = []
    leave = cfg.leave_requested
    seat = game.seat
    chain = game.session.chain
    assert chain is not None
    with single_errors():
        async with trio.open_nursery() as nursery:

            async def run() -> None:
                await play()
                how.append("played")
                nursery.cancel_scope.cancel()

            async def over_early() -> None:
                await game.until(game.match_over_early)
                end = game.early_end()
                assert end is not None
                we_left = end == ("left", seat)
                with trio.move_on_after(cfg.leave_wait_s if we_left else math.inf):
                    early.append(await game.take(wev.MatchEnded))
                how.append("we-left" if we_left else "peer-left" if end[1] != seat else "claimed")
                nursery.cancel_scope.cancel()

            async def we_leave() -> None:
                assert leave is not None
                await leave.wait()
                try:
                    await game.send(game.session.leave)
                except NetGameError:
                    how.append("we-left")
                    nursery.cancel_scope.cancel()  # nothing to resign now (e.g. the match is decided)
                    return
                with trio.move_on_after(cfg.leave_wait_s):  # the closing signatures (§15)
                    early.append(await game.take(wev.MatchEnded))
                how.append("we-left")
                nursery.cancel_scope.cancel()

            nursery.start_soon(run)
            nursery.start_soon(over_early)
            if leave is not None:
                nursery.start_soon(we_leave)
    return (how[0] if how else "played"), (early[0] if early else None)


def _pin_guest(cfg: NetConfig, name: str, fingerprint: str, peer_address: str) -> None:
    """(host) Pin a guest that has signed (protocol/wire.md §7.1): guests are known by their key alone
    (any guest may play; a known name with a new key is only a warning).  Raises NetplayError
    (status 1) when the known-peers file is unusable."""
    try:
        note = keystore.KnownPeers.open(cfg.data).pin_guest(fingerprint, name, peer_address)
    except keystore.KeyStoreError as exc:
        raise NetplayError(EXIT_ERROR, str(exc)) from None
    say(cfg, note)


def _check_code_key(cfg: NetConfig, hello: wev.PeerHello) -> None:
    """(a match by code) The peer's hello must carry the key that came with the code
    (protocol/rendezvous.md §3): the guest takes no other host, the host admits no other guest (the
    lobby drops that connection with a note; nothing was signed or written).  Raises NetplayError
    (status 6) naming both keys."""
    assert cfg.code_fingerprint is not None
    if keystore.normalise_fingerprint(hello.fingerprint) == keystore.normalise_fingerprint(cfg.code_fingerprint):
        if cfg.role == "guest":
            say(cfg, f"peer: {quoted(hello.name)}, its key pinned by the code ({hello.fingerprint})")
        return
    if cfg.role == "guest":
        raise NetplayError(EXIT_KEY_REFUSED, f"the host's key {hello.fingerprint} is not the key the code gave "
                           f"({cfg.code_fingerprint}). Refused.")
    raise NetplayError(EXIT_KEY_REFUSED, f"a guest with the key {hello.fingerprint}, not the key that came with "
                       f"the code, was turned away")


async def _pin(cfg: NetConfig, hello: wev.PeerHello, peer_address: str) -> None:
    """(guest) Check the host's key against the known peers: ssh's rules (``--fingerprint``,
    ``--accept-new``, a question).

    Raises:
        NetplayError: status 6 (the key is refused), 1 (the known-peers file is unusable).
    """
    try:
        known = keystore.KnownPeers.open(cfg.data)
    except keystore.KeyStoreError as exc:
        raise NetplayError(EXIT_ERROR, str(exc)) from None
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
    say(cfg, f"peer: {note}")


