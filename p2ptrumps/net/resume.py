"""``p2ptrumps resume``: take up an unfinished match from its log after this side's process died.

Source: ``protocol/wire.md`` §14.4 (after a restart), ``protocol/files.md`` (the resume file,
resuming).  The log is checked as ``verify`` checks it, the session rebuilt from it
(:meth:`~p2ptrumps.wire.session.Session.restore`) with the deal secrets of the resume file, the
log reopened (an incomplete last frame cut off) and locked; then a host listens again on its
port and a guest connects again to the address it joined, and the match goes on from the last
message both sides hold.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import trio

from ..files import UnreadableFileError, read_limited
from ..system import locks
from ..text import counted, halves_text
from ..wire import messages
from ..wire.errors import RemoteProtocolError
from ..wire.log import LOG_MAGIC, read_log
from ..wire.session import Session
from ..wire.verify import Verdict, verify_log
from . import meet
from .addresses import local_addresses
from .config import EXIT_ERROR, NetConfig, NetplayError, NetResult, say
from .dial import dial_secure, parse_address
from .driver import GUEST_BACKOFF_S, Restored, play_over
from .lobby import Lobby, addresses_to_give, open_listeners
from .logfile import LogBusyError, MatchLogFile, is_busy
from .matchlock import hold_match, match_lock_path, taken
from .portmap import mapping_wanted, order_given, port_mapping
from .resumefile import ResumeFile, ResumeFileError, path_for
from .transport import Link

#: The largest match log read for resuming, bytes (as ``verify``).
MAX_LOG_BYTES = 256 << 20


def resumable_logs(data: Path) -> list[Path]:
    """The logs under ``data``/logs that have a resume file and no running process writing them,
    newest first (``protocol/files.md``: resuming)."""
    logs = data / "logs"
    found: list[tuple[float, Path]] = []
    with contextlib.suppress(OSError):
        for p in logs.glob("*.p2plog"):
            if path_for(p).exists() and not is_busy(p):
                with contextlib.suppress(OSError):
                    found.append((p.stat().st_mtime, p))
    return [p for _, p in sorted(found, key=lambda x: (-x[0], str(x[1])))]


def describe(log_path: Path) -> str | None:
    """One line about an unfinished match log for the question ``resume`` asks ("Bob, as host,
    deal 2, ..."), or None when the log cannot be resumed (complete, damaged, unreadable)."""
    try:
        data = read_limited(log_path, MAX_LOG_BYTES)
    except UnreadableFileError:
        return None
    v = verify_log(data)
    seat = _owner_seat(read_log(data).frames)
    if v.status not in ("unfinished", "valid") or len(v.players) < 2 or seat is None:
        return None
    peer = v.players[1 - seat][0]
    where = stopped_where(v, seat) if v.status == "unfinished" else (
        "complete, but its end may not have reached both of you")
    return f"your match with {peer} (you were the {'host' if seat == 0 else 'guest'}): {where}"


def stopped_where(v: Verdict, seat: int) -> str:
    """Where an unfinished match stopped, in the players' words (no message numbers or seats):
    ``"stopped in deal 2 of 3 (1 : 0), your move"``; ``seat`` is ours (0 host, 1 guest)."""
    peer = v.players[1 - seat][0] if len(v.players) == 2 else "the peer"
    waiting_seat, what = v.waiting or (None, "nothing")
    who = "either of you" if waiting_seat is None else ("you" if waiting_seat == seat else peer)
    whose = "your" if who == "you" else f"{who}'s"
    doing = {
        "rules": "agreeing the rules", "agree": "agreeing the rules",
        "trump": f"{who} choosing a trump",
        "commit": "shuffling the deal", "reveal": "shuffling the deal",
        "move": f"{whose} move",
        "deal-end": "the deal over, its result not yet signed",
        "match-end": "the match over, its result not yet signed",
    }.get(what, "after the match")
    if not v.deals or v.rules is None:
        return f"stopped before the first deal, {doing}"
    a, b = v.score_halves[seat], v.score_halves[1 - seat]
    score = f"{halves_text(a, True)} : {halves_text(b, True)}"
    return f"stopped in deal {len(v.deals)} of {v.rules.deals} (you {score} {peer}), {doing}"


def _owner_seat(frames: list[bytes]) -> int | None:
    """The seat of a log's first hello (its owner), None if it has none."""
    try:
        first = messages.decode(frames[0][4:]) if frames else None
    except RemoteProtocolError:
        return None
    return first.seat if isinstance(first, messages.Hello) else None


def check_resumable(log_path: Path) -> tuple[bytes, ResumeFile]:
    """The checks of :func:`load` that read only (``resume LOG`` makes them before it asks for a
    terminal: a complete log is "nothing to resume" whatever stdin is): the log's bytes and its
    resume file.

    Raises:
        NetplayError: (status 1) the log cannot be read, is complete, ends on a protocol
            fault, or has no usable resume file (or one of another match).
    """
    if not log_path.exists():
        raise NetplayError(EXIT_ERROR, f"no such match log: {log_path}")
    try:  # a regular file of at most MAX_LOG_BYTES: never a device, a pipe or a directory
        data = read_limited(log_path, MAX_LOG_BYTES)
    except UnreadableFileError as exc:
        raise NetplayError(EXIT_ERROR, str(exc)) from None
    verdict = verify_log(data)
    if verdict.status == "valid" and not path_for(log_path).exists():
        raise NetplayError(EXIT_ERROR, f"{log_path}: the match is complete; there is nothing to resume")
    if verdict.status not in ("unfinished", "valid"):
        raise NetplayError(EXIT_ERROR, f"{log_path} cannot be resumed: {verdict.status}: {verdict.reason}")
    try:
        resume = ResumeFile.load(path_for(log_path))
    except ResumeFileError as exc:
        raise NetplayError(EXIT_ERROR, str(exc)) from None
    if resume.game_id.hex() != verdict.game_id:
        raise NetplayError(EXIT_ERROR, f"{resume.path} belongs to another match than {log_path} (game id "
                           f"{resume.game_id.hex()[:16]}…, the log's {verdict.game_id[:16]}…)")
    return data, resume


def load(cfg: NetConfig, log_path: Path) -> Restored:
    """Everything needed to take up the match of ``log_path`` as ``cfg.identity``.

    Raises:
        NetplayError: (status 1) the log cannot be read, is complete, ends on a protocol
            fault, was written with another key, has no usable resume file (or one of
            another match), or another process is writing it -- or is playing its match from
            another copy of it (the lock of the match, :func:`hold_match`).
    """
    data, resume = check_resumable(log_path)
    match_lock = hold_match(cfg, resume.game_id, resume.role, log_path)
    try:
        restored = _restore(cfg, log_path, data, resume)
    except BaseException:
        match_lock.release()
        raise
    restored.log.hold_also(match_lock)
    return restored


def check_not_running(data: Path, log_path: Path, resume: ResumeFile) -> None:
    """Read-only (nothing is created or locked): the checks of :func:`load` that a running match
    fails -- ``resume LOG`` makes them, after :func:`check_resumable`, before it asks for a terminal,
    so "nothing to resume" (status 1) comes first whatever stdin is.  ``data`` is the data directory,
    ``resume`` the log's resume file.

    Raises:
        NetplayError: (status 1) another process is writing ``log_path``, or holds the lock of its
            match (:func:`match_lock_path`: it resumed the match from a copy of this log).
    """
    if is_busy(log_path):
        raise NetplayError(EXIT_ERROR, f"{log_path}: another p2ptrumps process is writing this match log (the "
                           "match is running there)")
    lock = match_lock_path(data, resume.game_id, resume.role)
    if locks.is_locked(lock):
        raise NetplayError(EXIT_ERROR, f"{taken(lock)}; {log_path} is left as it was")


def _restore(cfg: NetConfig, log_path: Path, data: bytes, resume: ResumeFile) -> Restored:
    """The session of ``log_path`` (its bytes ``data``) rebuilt, the log reopened (see :func:`load`)."""
    contents = read_log(data)
    opened: list[MatchLogFile] = []

    def on_message(frame: bytes, direction: str) -> None:  # what comes next goes to the reopened log
        opened[0].append(frame)

    try:
        session = Session.restore(cfg.identity, contents.frames, resume.secrets, on_message=on_message)
    except ValueError as exc:
        hint = (f" (your key is {cfg.identity.fingerprint}: was the match played with another XDG_DATA_HOME?)"
                if "another identity key" in str(exc) else "")
        raise NetplayError(EXIT_ERROR, f"{log_path} cannot be resumed: {exc}{hint}") from None
    if session.role != resume.role:
        raise NetplayError(EXIT_ERROR, f"{resume.path} says {resume.role}, the log was written by the {session.role}")
    length = len(LOG_MAGIC) + sum(len(f) for f in contents.frames)
    try:
        log = MatchLogFile.reopen(log_path, length)
    except LogBusyError as exc:
        raise NetplayError(EXIT_ERROR, f"{log_path}: {exc}") from None
    except OSError as exc:
        raise NetplayError(EXIT_ERROR, f"cannot reopen {log_path}: {exc.strerror or exc}") from None
    opened.append(log)
    if contents.truncated_bytes:
        tail = counted(contents.truncated_bytes, 'byte')
        say(cfg, f"the log ended with {tail} of an unfinished frame; cut {'it' if tail == '1 byte' else 'them'} off")
    result = NetResult(log_path, session.seat, peer_name=session.peer_name,
                       peer_fingerprint=session.peer_fingerprint, rules=session.rules,
                       move_time=session.move_time)
    return Restored(session, log, resume, result)


async def resume_match(cfg: NetConfig, restored: Restored,
                       task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> NetResult:
    """Take up the match: as the host, listen again on the resume file's address and port and
    wait for the guest's proven ``resume``; as the guest, connect again to the address it joined
    (with the usual back-off) until the reconnect wait runs out.  ``task_status.started(port)``
    reports the host's port (0 for a guest).

    Raises:
        NetplayError: as :func:`~p2ptrumps.net.driver.play_over` (status 3 when the host cannot
            listen on its port).
    """
    resume = restored.resume
    peer = restored.session.peer_name or "the peer"
    if resume.role == "host":
        listeners = await open_listeners(resume.bind, resume.port)
        try:
            bound = int(listeners[0].socket.getsockname()[1])
            cfg.bind, cfg.port = resume.bind, bound
            wanted = mapping_wanted(resume.bind, cfg.port_map)
            async with port_mapping(bound, local_addresses(), wanted=wanted, note=lambda line: say(cfg, line)) as reach:
                for line in reach.lines():
                    say(cfg, line)
                given = order_given(addresses_to_give(listeners), reach)
                say(cfg, f"listening again on port {bound} ({', '.join(given)}); "
                       f"waiting for {peer} to come back for up to {cfg.reconnect_wait_s:g} s ...")
                task_status.started(bound)
                lobby = Lobby(cfg, mapped=reach.mapped is not None)
                every: list[trio.abc.Listener[trio.SocketStream]] = list(listeners)
                relay = meet.relay_from_json((resume.meet or {}).get("relay"))
                if relay is not None:  # a match met by code: wait at its relay too (protocol/rendezvous.md §5)
                    say(cfg, f"waiting at relay {meet.relay_host(relay.url)} too")
                    every.append(meet.RelayListener(cfg, relay, meet.new_side()))
                return await lobby.serve_restored(every, restored)
        finally:
            for lst in listeners:
                with contextlib.suppress(Exception):
                    await lst.aclose()
    if resume.meet is not None:  # a match met by code: its candidates and relay (protocol/rendezvous.md §5)
        try:
            offer = meet.offer_from_meet(resume.meet)
        except ValueError as exc:
            raise NetplayError(EXIT_ERROR, f"{resume.path}: a malformed meet field ({exc})") from None
        cfg.meet = resume.meet
        say(cfg, f"connecting again to the host met by code to resume the match with {peer} "
               f"(for up to {cfg.reconnect_wait_s:g} s) ...")
        task_status.started(0)
        return await meet.play_offer(cfg, offer, restored)
    address = resume.address
    if address is None:
        raise NetplayError(EXIT_ERROR, f"{resume.path} holds no address to reach the host at")
    cfg.address = address
    try:
        host_name, port = parse_address(address)
    except NetplayError as exc:
        raise NetplayError(EXIT_ERROR, f"{resume.path}: the host's address does not read ({exc})") from None
    say(cfg, f"connecting again to {address} to resume the match with {peer} "
           f"(for up to {cfg.reconnect_wait_s:g} s) ...")
    task_status.started(0)

    chain = restored.session.chain
    host_key = chain.keys[0].raw if chain is not None else None

    async def redial(seconds_left: float) -> Link | None:
        try:  # the host must prove the key of the match at the handshake (protocol/wire.md §18.3)
            return Link(await dial_secure(cfg, host_name, port, min(seconds_left, cfg.timeout_s), expect=host_key))
        except (OSError, trio.BrokenResourceError):
            return None

    return await play_over(None, cfg, address, redial=redial, backoff_s=GUEST_BACKOFF_S, restored=restored)
