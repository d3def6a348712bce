"""One networked connection: the matches played on it (the first, then each rematch agreed on the
same stream), reconnecting when the link drops, and how the connection ended (the exit status).

Source: ``protocol/wire.md`` §7 (the handshake), §9.4 (rematch), §12 (the log), §14 (reconnecting),
§16 (claims).  :func:`play_over` runs a :class:`~p2ptrumps.wire.session.Session` over
a :class:`~p2ptrumps.net.transport.Connection`; each match on it is a
:class:`~p2ptrumps.net.steps.MatchSteps` (its steps, from the hellos to the rematch question, are
listed in :mod:`p2ptrumps.net.steps`).  Here:

* **the matches on one connection** (:class:`_Matches`): open the first match, run each in turn, open a
  rematch's session, log and result on the same stream (``_Matches.body``);
* **reconnect** (:func:`make_reconnect`): redial or wait for the peer after the link drops, with a
  countdown on the table, until ``cfg.reconnect_wait_s``;
* **how it ended** (``_Matches.play``): the transport's errors become :class:`NetplayError` with their
  exit status and message (:func:`_gone_message`), and when the peer stayed away, the claim we sign
  (:func:`abandon_on_leaving`, §15.1: the match ended as abandoned by the peer, never a claim on time)
  or the forfeit it made (:func:`_forfeit_note`, §9.3).
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import trio

from ..events import ProtocolViolation
from ..message import N_, message_of
from ..text import clock_text, halves_text, quoted
from ..wire.chain import OTHER_COPY
from ..wire.errors import LocalProtocolError
from ..wire.referee import PLAY
from ..wire.session import Session
from .config import (
    ABANDON_CONTINUE_S,
    EXIT_ERROR,
    EXIT_LEFT,
    EXIT_PEER_FAULT,
    EXIT_PEER_GONE,
    EXIT_REFUSED,
    NetConfig,
    NetplayError,
    NetResult,
    say,
    shared_key_hint,
)
from .logfile import MatchLogFile
from .race import first_of
from .resumefile import ResumeFile
from .seat import NetGameError
from .steps import MatchSteps, abandoned_by_us, match_complete, note_disputed, open_match
from .transport import (
    MAX_PENDING_BYTES,
    Connection,
    Link,
    PeerFault,
    PeerFlood,
    PeerGone,
    PeerRefused,
    PeerTimeout,
    Reconnect,
    TransportError,
)

#: A bound on the rematches played on one connection (each needs both sides' consent anyway).
MAX_MATCHES_PER_CONNECTION = 1000

Redial = Callable[[float], Awaitable["Link | None"]]
#: Why a match taken up after a restart starts with no link (protocol/wire.md §14.4).
RESTARTED = "this side restarted"
#: Seconds the guest waits between reconnection attempts (then the last, again and again).
GUEST_BACKOFF_S = (1.0, 2.0, 4.0, 8.0, 10.0)


class UnheardError(NetplayError):
    """(guest) The host closed a new connection before sending anything at all -- not a refusal (that
    is a ``refuse`` frame, protocol/wire.md §7.3), but a connection dropped unheard from a crowded
    doorway (or not a p2ptrumps host): worth connecting again (:func:`~p2ptrumps.net.dial.join`)."""


class LogWriteError(NetplayError):
    """The match log (or the resume file beside it) could not be written mid-match (the disk full,
    EIO, a read-only file system): the match stops, since every message is on disk before it is sent
    (protocol/wire.md §12).  ``path`` is the log: it keeps every message written whole before the
    fault, and ``p2ptrumps resume PATH`` goes on with the match once the disk takes writes again
    (§14.4).  Status 1."""

    def __init__(self, path: Path, exc: OSError) -> None:
        super().__init__(EXIT_ERROR, f"cannot write the match log {path}: {exc.strerror or exc}")
        self.path = path


@dataclass
class Restored:
    """A match taken up from its log after this side's process died (protocol/wire.md §14.4):
    the session rebuilt from the log (:meth:`~p2ptrumps.wire.session.Session.restore`), the log
    reopened for appending, its resume file, and the result so far (peer, rules, log path)."""

    session: Session
    log: MatchLogFile
    resume: ResumeFile
    result: NetResult


def make_reconnect(cfg: NetConfig, redial: Redial, backoff_s: tuple[float, ...]) -> Reconnect:
    """The ``reconnect`` of a :class:`~p2ptrumps.net.transport.Connection`: calls ``redial(seconds
    left)`` (a new :class:`~p2ptrumps.net.transport.Link`, or None for "not now") with
    ``backoff_s`` between tries, until ``cfg.reconnect_wait_s`` seconds after the link went
    down; meanwhile ``cfg.hooks.on_link`` shows "connection lost — reconnecting (1:42 left)" each
    second.  Raises :class:`PeerGone` when the wait runs out (protocol/wire.md §14)."""

    async def reconnect(conn: Connection, why: TransportError) -> Link:
        started = conn.down_since if conn.down_since is not None else trio.current_time()
        deadline = started + cfg.reconnect_wait_s
        if str(why) != RESTARTED and (conn.reconnections == 0 or trio.current_time() - started < 0.5):
            say(cfg, N_("connection lost (%(why)s); reconnecting for up to %(seconds)s s ...", why=message_of(why),
                        seconds=f"{cfg.reconnect_wait_s:g}"))

        async def countdown() -> None:
            while True:
                if cfg.hooks.on_link is not None:
                    left = clock_text(deadline - trio.current_time())
                    # what happens at the end of the wait, said during it (protocol/wire.md §15.1)
                    cfg.hooks.on_link(f"connection lost — reconnecting ({left} left; then the match ends as "
                                      "abandoned by the opponent)")
                await trio.sleep(1.0)

        async def tries() -> Link | None:
            for i in range(1_000_000):
                left = deadline - trio.current_time()
                if left <= 0:
                    break
                with trio.move_on_after(left):
                    stream = await redial(left)
                    if stream is not None:
                        return stream
                    await trio.sleep(backoff_s[min(i, len(backoff_s) - 1)])
            return None

        _, link = await first_of(tries, countdown)
        if link is None:
            if str(why) == RESTARTED:
                raise PeerGone(f"the peer did not come back within {cfg.reconnect_wait_s:g} s of this side's restart")
            raise PeerGone(f"{why}; the peer did not come back within {cfg.reconnect_wait_s:g} s"
                           + (f" (the last try: {cfg.report.last_try})" if cfg.report.last_try else ""))
        if cfg.hooks.on_link is not None:
            cfg.hooks.on_link("reconnecting: checking the peer's key")
        return link  # type: ignore[no-any-return]

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
    matches = _Matches(cfg, peer_address, claim, restored)
    try:
        conn = matches.connect(stream, redial, backoff_s, max_pending_bytes)
        if on_connection is not None:
            on_connection(conn)
        return await matches.play(conn)
    except NetplayError as exc:
        matches.sync_paths()
        exc.result = matches.first.result  # type: ignore[attr-defined]
        raise
    finally:
        for match in matches.matches:
            match.log.close()


class _Matches:
    """The matches played on one connection: the first (or the one taken up after a restart), then
    each rematch agreed (protocol/wire.md §9.4: a new session, game id and log on the same stream).
    See :func:`play_over`."""

    def __init__(self, cfg: NetConfig, peer_address: str, claim: Callable[[NetResult], bool] | None,
                 restored: Restored | None) -> None:
        self.cfg = cfg
        self.peer_address = peer_address
        self.restored = restored
        self.now = datetime.now()
        log, session, result = open_match(cfg, 0) if restored is None else (
            restored.log, restored.session, restored.result)
        self.first = MatchSteps(cfg, session, log, result, self.now, 0, peer_address, rematch_of=None,
                                hello_deadline=trio.current_time() + cfg.hello_timeout_s, claim=claim,
                                restored=restored is not None,
                                resume=restored.resume if restored is not None else None)
        #: Every match opened on the connection, the current one last.
        self.matches = [self.first]
        #: How many of them have begun (the connection ran their steps).
        self.begun = 0
        self.conn: Connection | None = None

    @property
    def current(self) -> Session:
        """The session of the match on the connection now."""
        return self.matches[-1].session

    def connect(self, stream: trio.abc.Stream | None, redial: Redial | None, backoff_s: tuple[float, ...],
                max_pending_bytes: int) -> Connection:
        """The :class:`Connection` of the first match's session over ``stream`` (see :func:`play_over`)."""
        cfg = self.cfg
        self.conn = Connection(
            stream,
            self.first.session,
            timeout_s=cfg.timeout_s,
            heartbeat_s=cfg.heartbeat_s,
            fault_of=lambda ev: f"{ev.reason} [{ev.code}]" if isinstance(ev, ProtocolViolation) else None,
            is_finished=lambda: self.current.finished and self.current.delivered,
            reconnect=make_reconnect(cfg, redial, backoff_s) if redial is not None and cfg.reconnect_wait_s > 0
            else None,
            can_resume=self.can_resume,
            down=PeerGone(RESTARTED) if self.restored is not None else None,
            close_first=cfg.role == "guest",  # the guest sends the last statement (protocol/wire.md §14.5)
            max_pending_bytes=max_pending_bytes,
            frame_time_s=cfg.frame_time_s,
        )
        return self.conn

    def can_resume(self) -> bool:
        """Whether a dropped link is worth reconnecting: the rules are agreed, nobody broke the protocol,
        and the match is not complete and delivered -- except that a restarted side waits for the peer
        to come back even with its match complete (wire.md §14.5)."""
        session = self.current
        rejoining = self.restored is not None and self.conn is not None and self.conn.reconnections == 0
        return (session.rules is not None and session.violation is None
                and (rejoining or not (session.finished and session.delivered)))

    async def body(self, conn: Connection) -> None:
        """Play the matches in turn: each one's steps, then, when a rematch was agreed, the next match's
        session, log and result on the same connection."""
        cfg = self.cfg
        for number in range(MAX_MATCHES_PER_CONNECTION):
            match = self.matches[-1]
            self.begun = number + 1
            if not await match.run(conn, rematches_left=cfg.rematches - number):
                return
            match.log.close()
            say(cfg, N_("rematch agreed: a new match on the same connection"))
            trailing = match.session.trailing_data
            match.session.trailing_data = b""
            log, session, result = open_match(cfg, number + 1)
            # the rematch's log is named by its own start, not the connection's: `history` dates
            # and orders matches by that name
            self.matches.append(MatchSteps(cfg, session, log, result, datetime.now(), number + 1, self.peer_address,
                                           rematch_of=self.first.result,
                                           hello_deadline=trio.current_time() + cfg.hello_timeout_s, claim=None))
            self.first.result.rematches.append(result)
            conn.switch_session(session, trailing)

    async def play(self, conn: Connection) -> NetResult:
        """Run the connection with the matches on it; the first match's result (the rematches' in its
        ``rematches``).  How the connection ended decides the rest: a :class:`NetplayError` with its
        exit status, or -- the match complete, then the peer gone -- the result after a note."""
        try:
            try:
                await conn.run(self.body)
            except TransportError:
                self.ended_early()
                raise
            self.forget_complete()
            left = [r.left for r in [self.first.result, *self.first.result.rematches] if r.left]
            if left:
                raise NetplayError(EXIT_LEFT, left[0])
        except PeerFault as exc:  # the session logged the offending frame last, as evidence
            raise self.peer_fault(exc) from None
        except PeerRefused as exc:  # no match was begun: nothing to resume (protocol/wire.md §7.3)
            raise NetplayError(EXIT_REFUSED, str(exc)) from None
        except (PeerGone, PeerTimeout, PeerFlood) as exc:
            outcome = self.peer_gone(exc)
            if isinstance(outcome, NetplayError):
                raise outcome from None
            return outcome
        except TransportError as exc:
            raise NetplayError(EXIT_PEER_GONE, str(exc)) from None
        except NetGameError as exc:
            raise NetplayError(EXIT_ERROR, str(exc)) from None
        except OSError as exc:
            raise LogWriteError(self.matches[-1].log.path, exc) from None
        self.sync_paths()
        return self.first.result

    def ended_early(self) -> None:
        """The connection ended (a fault, a flood, the peer gone) before the handshake task saw how
        far the session got: what the session read counts all the same.  The peer's hello names it;
        (host) a guest whose accepting ``agree`` checked out took the match (protocol/wire.md §7.1),
        so its log holds the ``agree`` and what came after (a fault's evidence, §11)."""
        session, first = self.current, self.first
        if first.result.rematches or not self.begun:
            return
        if first.result.peer_name is None and session.peer_name is not None:
            first.result.peer_name, first.result.peer_fingerprint = session.peer_name, session.peer_fingerprint
        if self.cfg.role == "host" and not first.restored and session.rules is not None:
            first.begin_hosted()

    def forget_complete(self) -> None:
        """Delete the resume files of the complete matches: called once the connection closed
        properly, or the peer stayed away (protocol/wire.md §14.5; files.md)."""
        for match in self.matches[:self.begun]:
            if match.resume is not None and match_complete(match.session) and not abandoned_by_us(match.session):
                match.resume.delete()  # (one we abandoned stays resumable for a while, wire.md §15.1)

    def peer_fault(self, exc: PeerFault) -> NetplayError:
        """The peer broke the protocol (status 5), with a hint when it is our own key; a message in our
        own seat signed by our own key is no fault of the peer: another copy of us runs (status 1)."""
        violation = self.current.violation
        if violation is not None and OTHER_COPY in violation.reason:  # not the peer's fault: our own key signed it
            return NetplayError(EXIT_ERROR, f"stopped: {violation.reason}; stop the other one (is the match log "
                                f"{self.matches[-1].log.path} resumed twice? do two processes share the data directory "
                                f"{self.cfg.data}?)")
        hint = ""
        if violation is not None and violation.code == "bad-key" and "our own public key" in violation.reason:
            hint = shared_key_hint(self.cfg.data)
        return NetplayError(EXIT_PEER_FAULT, f"the peer broke the protocol: {exc}{hint}")

    def peer_gone(self, exc: PeerGone | PeerTimeout | PeerFlood) -> NetResult | NetplayError:
        """The peer vanished, went silent or flooded us.  After a complete match that is a note and the
        result (status 130 if we had left); else the error to raise (status 4, or 5 for a flood),
        saying how far the match got, the claim we signed, or the forfeit the peer made."""
        cfg, session, first = self.cfg, self.current, self.first.result
        if match_complete(session):
            note_disputed(cfg, session, self.matches[-1].result)
            if session.delivered:
                say(cfg, N_("note: the match is complete; then the connection ended: %(why)s", why=message_of(exc)))
            else:  # our log is complete; only the peer may lack our last statement (wire.md §14.5)
                say(cfg, N_("note: the match is complete, but the peer may not have your last statement (%(why)s)",
                            why=message_of(exc)))
            self.forget_complete()
            if first.left:
                return NetplayError(EXIT_LEFT, first.left)
            self.sync_paths()
            return first
        started = self.matches[-1].log.created  # the match began: its log exists (protocol/wire.md §12)
        claimed = abandon_on_leaving(session, self.matches[-1].resume) if started else ""
        if isinstance(exc, PeerFlood):
            return NetplayError(EXIT_PEER_FAULT, f"the peer flooded the connection: {exc} (not in the log: no "
                                "log can show it)" + claimed)
        if (cfg.role == "guest" and not started and first.peer_name is None and session.rules is None
                and not first.rematches and not isinstance(exc, PeerTimeout)):
            return UnheardError(EXIT_PEER_GONE, _gone_message(cfg, first, session, exc, started))
        return NetplayError(EXIT_PEER_GONE, _gone_message(cfg, first, session, exc, started)
                            + _forfeit_note(session) + claimed)

    def sync_paths(self) -> None:
        """Each match's result names its log file, or None where none was written."""
        for match in self.matches:
            match.result.log_path = match.log.path if match.log.created else None


def abandon_on_leaving(session: Session, resume: ResumeFile | None) -> str:
    """The peer did not come back within the reconnect wait (protocol/wire.md §15.1): whoever's turn
    it was, end the match as abandoned by the peer -- signed and logged, never sent; the decided deals
    stand -- note when in the resume file (for 24 hours ``resume`` takes it up again and continues
    it if the peer comes back) and say so; else "".  Nothing is won on time across an outage (§16)."""
    chain = session.chain
    if chain is None or session.violation is not None or session.rules is None:
        return ""
    ref = chain.referee
    if ref.phase not in ("trump", "commit", "reveal", PLAY, "deal-end", "match-end"):
        return ""
    if session.catching_up:  # restarted, and the peer never showed what it holds (wire.md §14.2 step 5)
        return ("; nothing signed: after a restart nothing is signed before the peer has shown what it holds "
                "(your log may have lost messages it has); resume again later")
    try:
        session.floor.abandon()
    except (LocalProtocolError, OSError):
        return ""
    if resume is not None:
        resume.abandoned_at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        with contextlib.suppress(OSError):
            resume.save()
    decided = ref.score()
    return (f"; you ended the match as abandoned by the opponent (your log keeps it signed): the decided deals "
            f"stand, {halves_text(decided[session.seat])}-{halves_text(decided[1 - session.seat])}; if they come "
            f"back within {ABANDON_CONTINUE_S // 3600} hours, `p2ptrumps resume` takes the match up again")


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
        if cfg.role == "guest":  # a busy host says so (a refuse frame): this one dropped us unheard (§7.3)
            return ("the host closed the connection without a word, before its hello: a crowded host drops "
                    "connections it has not read yet (protocol/wire.md §7.3), or this is not a p2ptrumps host")
        return f"the connection ended before the guest's hello ({exc})"
    if cfg.role == "host":
        if isinstance(exc, PeerTimeout):  # it is there, but does not read or does not finish a frame
            return f"dropped {quoted(first.peer_name)} during the handshake, before it accepted the rules ({exc})"
        return (f"{quoted(first.peer_name)} left during the handshake, before accepting the rules ({exc}); "
                "it may have refused your key")
    return (f"{quoted(first.peer_name)} ended the connection before the rules were agreed ({exc}): the host "
            "is busy with another match (another guest accepted first), or it stopped")
