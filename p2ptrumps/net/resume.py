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
from ..message import N_, Nn_, message_of
from ..system import locks
from ..text import halves_text
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
from .logfile import BUSY, LogBusyError, MatchLogFile, is_busy
from .matchlock import hold_match, left_as_it_was, match_lock_path, taken
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
        N_("complete, but its end may not have reached both of you"))
    if seat == 0:
        return N_("your match with %(name)s (you were the host): %(where)s", name=peer, where=where)
    return N_("your match with %(name)s (you were the guest): %(where)s", name=peer, where=where)


def stopped_where(v: Verdict, seat: int) -> str:
    """Where an unfinished match stopped, in the players' words (no message numbers or seats):
    ``"stopped in deal 2 of 3 (1 : 0), your move"``; ``seat`` is ours (0 host, 1 guest)."""
    peer = v.players[1 - seat][0] if len(v.players) == 2 else N_("the peer")
    waiting_seat, what = v.waiting or (None, "nothing")
    ours = waiting_seat == seat
    who = N_("either of you") if waiting_seat is None else peer
    agreeing, shuffling = N_("agreeing the rules"), N_("shuffling the deal")
    doing = {
        "rules": agreeing, "agree": agreeing,
        "trump": N_("you choosing a trump") if ours else N_("%(name)s choosing a trump", name=who),
        "commit": shuffling, "reveal": shuffling,
        "move": N_("your move") if ours else N_("%(name)s's move", name=who),
        "deal-end": N_("the deal over, its result not yet signed"),
        "match-end": N_("the match over, its result not yet signed"),
    }.get(what, N_("after the match"))
    if not v.deals or v.rules is None:
        return N_("stopped before the first deal, %(doing)s", doing=doing)
    a, b = v.score_halves[seat], v.score_halves[1 - seat]
    return N_("stopped in deal %(deal)d of %(deals)d (you %(ours)s : %(theirs)s %(name)s), %(doing)s",
              deal=len(v.deals), deals=v.rules.deals, ours=halves_text(a, True), theirs=halves_text(b, True),
              name=peer, doing=doing)


def _owner_seat(frames: list[bytes]) -> int | None:
    """The seat of a log's first hello (its owner), None if it has none."""
    try:
        first = messages.decode(frames[0][4:]) if frames else None
    except RemoteProtocolError:
        return None
    return first.seat if isinstance(first, messages.Hello) else None


#: A verdict's status (protocol/verify.md) in a fault for people.
_STATUS_WORDS = {"invalid": N_("invalid"), "unreadable": N_("unreadable")}


def check_resumable(log_path: Path) -> tuple[bytes, ResumeFile]:
    """The checks of :func:`load` that read only (``resume LOG`` makes them before it asks for a
    terminal: a complete log is "nothing to resume" whatever stdin is): the log's bytes and its
    resume file.

    Raises:
        NetplayError: (status 1) the log cannot be read, is complete, ends on a protocol
            fault, or has no usable resume file (or one of another match).
    """
    if not log_path.exists():
        raise NetplayError(EXIT_ERROR, N_("no such match log: %(path)s", path=str(log_path)))
    try:  # a regular file of at most MAX_LOG_BYTES: never a device, a pipe or a directory
        data = read_limited(log_path, MAX_LOG_BYTES)
    except UnreadableFileError as exc:
        raise NetplayError(EXIT_ERROR, message_of(exc)) from None
    verdict = verify_log(data)
    if verdict.status == "valid" and not path_for(log_path).exists():
        raise NetplayError(EXIT_ERROR, N_("%(path)s: the match is complete; there is nothing to resume",
                                          path=str(log_path)))
    if verdict.status not in ("unfinished", "valid"):
        raise NetplayError(EXIT_ERROR, N_("%(path)s cannot be resumed: %(status)s: %(reason)s", path=str(log_path),
                                          status=_STATUS_WORDS.get(verdict.status, verdict.status),
                                          reason=verdict.reason))
    try:
        resume = ResumeFile.load(path_for(log_path))
    except ResumeFileError as exc:
        raise NetplayError(EXIT_ERROR, message_of(exc)) from None
    if resume.game_id.hex() != verdict.game_id:
        raise NetplayError(EXIT_ERROR, N_("%(path)s belongs to another match than %(log)s (game id %(id)s…, the log's "
                                          "%(log_id)s…)", path=str(resume.path), log=str(log_path),
                                          id=resume.game_id.hex()[:16], log_id=verdict.game_id[:16]))
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
        raise NetplayError(EXIT_ERROR, N_("%(path)s: %(busy)s", path=str(log_path), busy=BUSY))
    lock = match_lock_path(data, resume.game_id, resume.role)
    if locks.is_locked(lock):
        raise NetplayError(EXIT_ERROR, left_as_it_was(taken(lock), log_path))


def _restore(cfg: NetConfig, log_path: Path, data: bytes, resume: ResumeFile) -> Restored:
    """The session of ``log_path`` (its bytes ``data``) rebuilt, the log reopened (see :func:`load`)."""
    contents = read_log(data)
    opened: list[MatchLogFile] = []

    def on_message(frame: bytes, direction: str) -> None:  # what comes next goes to the reopened log
        opened[0].append(frame)

    try:
        session = Session.restore(cfg.identity, contents.frames, resume.secrets, on_message=on_message)
    except ValueError as exc:
        if "another identity key" in str(exc):
            raise NetplayError(EXIT_ERROR, N_("%(path)s cannot be resumed: %(why)s (your key is %(key)s: was the match "
                                              "played with another %(variable)s?)", path=str(log_path),
                                              why=message_of(exc), key=cfg.identity.fingerprint,
                                              variable="XDG_DATA_HOME")) from None
        raise NetplayError(EXIT_ERROR, N_("%(path)s cannot be resumed: %(why)s", path=str(log_path),
                                          why=message_of(exc))) from None
    if session.role != resume.role:
        raise NetplayError(EXIT_ERROR, N_("%(path)s says %(role)s, the log was written by the %(log_role)s",
                                          path=str(resume.path), role=resume.role, log_role=session.role))
    length = len(LOG_MAGIC) + sum(len(f) for f in contents.frames)
    try:
        log = MatchLogFile.reopen(log_path, length)
    except LogBusyError as exc:
        raise NetplayError(EXIT_ERROR, N_("%(path)s: %(busy)s", path=str(log_path), busy=message_of(exc))) from None
    except OSError as exc:
        raise NetplayError(EXIT_ERROR, N_("cannot reopen %(path)s: %(why)s", path=str(log_path),
                                          why=exc.strerror or str(exc))) from None
    opened.append(log)
    if contents.truncated_bytes:
        say(cfg, Nn_("the log ended with %(n)d byte of an unfinished frame; cut it off",
                     "the log ended with %(n)d bytes of an unfinished frame; cut them off", contents.truncated_bytes))
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
    peer = restored.session.peer_name or N_("the peer")
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
                say(cfg, N_("listening again on port %(port)d (%(addresses)s); waiting for %(name)s to come back for "
                            "up to %(seconds)s s ...", port=bound, addresses=", ".join(given), name=peer,
                            seconds=f"{cfg.reconnect_wait_s:g}"))
                task_status.started(bound)
                lobby = Lobby(cfg, mapped=reach.mapped is not None)
                every: list[trio.abc.Listener[trio.SocketStream]] = list(listeners)
                relay = meet.relay_from_json((resume.meet or {}).get("relay"))
                if relay is not None:  # a match met by code: wait at its relay too (protocol/rendezvous.md §5)
                    say(cfg, N_("waiting at relay %(relay)s too", relay=meet.relay_host(relay.url)))
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
            raise NetplayError(EXIT_ERROR, N_("%(path)s: a malformed meet field (%(why)s)", path=str(resume.path),
                                              why=message_of(exc))) from None
        cfg.meet = resume.meet
        say(cfg, N_("connecting again to the host met by code to resume the match with %(name)s (for up to "
                    "%(seconds)s s) ...", name=peer, seconds=f"{cfg.reconnect_wait_s:g}"))
        task_status.started(0)
        return await meet.play_offer(cfg, offer, restored)
    address = resume.address
    if address is None:
        raise NetplayError(EXIT_ERROR, N_("%(path)s holds no address to reach the host at", path=str(resume.path)))
    cfg.address = address
    try:
        host_name, port = parse_address(address)
    except NetplayError as exc:
        raise NetplayError(EXIT_ERROR, N_("%(path)s: the host's address does not read (%(why)s)", path=str(resume.path),
                                          why=message_of(exc))) from None
    say(cfg, N_("connecting again to %(address)s to resume the match with %(name)s (for up to %(seconds)s s) ...",
                address=address, name=peer, seconds=f"{cfg.reconnect_wait_s:g}"))
    task_status.started(0)

    chain = restored.session.chain
    host_key = chain.keys[0].raw if chain is not None else None

    async def redial(seconds_left: float) -> Link | None:
        try:  # the host must prove the key of the match at the handshake (protocol/wire.md §18.3)
            return Link(await dial_secure(cfg, host_name, port, min(seconds_left, cfg.timeout_s), expect=host_key))
        except (OSError, trio.BrokenResourceError):
            return None

    return await play_over(None, cfg, address, redial=redial, backoff_s=GUEST_BACKOFF_S, restored=restored)
