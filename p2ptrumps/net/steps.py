"""One networked match as named steps, from the hellos to the rematch question.

Source: ``protocol/wire.md`` §7 (the handshake), §9 (the match), §9.4 (rematch), §12 (the log),
§14.4-§14.5 (a restarted side, the last statement), §15 (leave), §16 (the move clock and claims),
§17 (deadlines).  One :class:`MatchSteps` is one match on a connection: its
:class:`~p2ptrumps.wire.session.Session`, its log and its result; :func:`~p2ptrumps.net.driver.play_over`
runs the matches of one connection (the first, then each rematch) and says how the connection ended.

The steps, in the order :meth:`MatchSteps.run` takes them:

1. **agree** (:meth:`~MatchSteps.agree`, running :class:`~p2ptrumps.net.agreement.Agreement`): our hello
   out, the peer's in (``Agreement.hello``; the guest pins the host's key there); the rules: the host
   proposes and waits for the answer (``Agreement.host_rules``; the guest's signed ``agree`` takes the
   match, its key is pinned, the log file created: :meth:`~MatchSteps.begin_hosted`), the guest accepts
   or refuses (``Agreement.guest_rules``).  A match taken up after a restart has all this in its chain.
2. **ready** (:meth:`~MatchSteps.ready`): the rules noted; the table starts (``on_ready`` /
   ``on_rematch``); our seat (:class:`~p2ptrumps.net.seat.NetSeat`) takes its player.
3. **play** (:meth:`~MatchSteps.play`): our seat plays the trumps and the deals -- the match machine
   in the session's referee decides them, our player acts for our seat, the peer's messages are the
   other seat's -- up to the signed end, or the early one, raced against our leaving
   (:meth:`~MatchSteps.play_or_leave`: ``cfg.hooks.leave_requested``).
4. **rejoin** (:meth:`MatchEnd.rejoined <p2ptrumps.net.ending.MatchEnd.rejoined>`, a restarted side): wait
   until the peer is back.
5. **acknowledgement** (``MatchEnd.acknowledged``): ping until the peer holds our last statement.
6. **rematch** (``MatchEnd.rematch``): offer or accept a rematch, or close.

Beside the steps, for the whole match: the event pump (:meth:`~p2ptrumps.net.seat.NetMatch.pump`), the
move clock and the claims it gives (:meth:`~p2ptrumps.net.seat.NetSeat.run_clock`,
:meth:`~p2ptrumps.net.claims.Claims.watch`).  Reconnecting is the connection's
(:func:`~p2ptrumps.net.driver.make_reconnect`), and so is the claim signed when the peer stays away
(:func:`~p2ptrumps.net.driver.claim_on_leaving`).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import trio

from ..files import unused_path
from ..message import N_
from ..rules import RuleSet
from ..text import names_apart
from ..wire.log import LOG_MAGIC
from ..wire.referee import ABANDONED, DONE, REMATCHED
from ..wire.session import Session
from .agreement import Agreement, pin_guest
from .claims import Claims
from .config import (
    ABANDON_CONTINUE_S,
    EXIT_ERROR,
    EXIT_LEFT,
    NetConfig,
    NetplayError,
    NetResult,
    say,
)
from .ending import MatchEnd
from .logfile import MatchLogFile, create_log
from .matchlock import hold_match
from .prompts import ProgressPrinter, choose_trump, our_player
from .race import first_of
from .resumefile import ResumeFile, path_for
from .seat import NetGameError, NetMatch, NetSeat, machine_of, referee_of
from .transport import Connection


def open_match(cfg: NetConfig, number: int) -> tuple[MatchLogFile, Session, NetResult]:
    """The log, session and result of match ``number`` on a connection (0: the first, 1..: rematches).
    The log file is created only when the rules are agreed (protocol/wire.md §12,
    :func:`~p2ptrumps.net.logfile.create_log`); until then the log is kept in memory, so a refused or
    abandoned handshake leaves no file.  Raises :class:`NetplayError` (status 1) if the session cannot
    be made."""
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


def abandoned_by_us(session: Session) -> bool:
    """Whether the match in ``session`` stands abandoned by our seat (protocol/wire.md §15.1): its resume
    file stays, for ``resume`` to take it back if the peer comes back."""
    chain = session.chain
    ref = None if chain is None else chain.referee
    return ref is not None and ref.phase == ABANDONED and ref.abandoned is not None and \
        ref.abandoned[3] == session.seat


def match_complete(session: Session) -> bool:
    """True when the match in ``session`` is complete: both signed the end (its log verifies as valid)."""
    chain = session.chain
    return session.violation is None and chain is not None and chain.referee.phase in (DONE, REMATCHED, ABANDONED)


def note_disputed(cfg: NetConfig, session: Session, result: NetResult) -> None:
    """The match in ``session`` has deals settled as disputed (protocol/wire.md §16: two claims on time,
    each refused by the claimed seat's own clock): set ``result`` and say which (once)."""
    chain = session.chain
    match = None if chain is None else chain.referee.match
    if match is None or result.disputed:
        return
    settled = sorted(n for n, why in match.no_result.items() if why == "disputed")
    if not settled:
        return
    result.disputed = True
    deals = ", ".join(map(str, settled))
    say(cfg, f"{'deal' if len(settled) == 1 else 'deals'} {deals}: no result -- claimed on time and disputed twice "
        "(wire.md §16: a log cannot tell whose clock was right); the decided deals stand")


@dataclass
class MatchSteps:
    """One match on a connection and what it needs besides its session (see
    :func:`~p2ptrumps.net.driver.play_over`); the steps of the module's table are its methods.

    Attributes:
        cfg: our side's configuration.
        session / log / result: the match's session, its log (in memory until the rules are agreed)
            and what it leaves.
        now: when the match started (the connection, or the rematch's agreement): the log's name.
        number: 0 for the first match on the connection, 1.. for the rematches.
        peer_address: the peer's address for the known peers.
        rematch_of: the first match's result (None for the first match): a rematch must show the
            same key, rules and move clock.
        hello_deadline: trio time by which the peer's hello must arrive (None: no limit).
        claim: (host, first match) the lobby's "is the match still free?" (protocol/wire.md §7.1).
        restored: the match was taken up from its log after a restart (protocol/wire.md §14.4).
        resume: the match's resume file, once the log file exists (``protocol/files.md``).
    """

    cfg: NetConfig
    session: Session
    log: MatchLogFile
    result: NetResult
    now: datetime
    number: int
    peer_address: str
    rematch_of: NetResult | None
    hello_deadline: float | None
    claim: Callable[[NetResult], bool] | None
    restored: bool = False
    resume: ResumeFile | None = None
    _game: NetMatch | None = field(default=None, repr=False)
    _seat: NetSeat | None = field(default=None, repr=False)
    _claims: Claims | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.log.relocate = self.relocate

    def relocate(self, exc: OSError) -> None:
        """The match log or its resume file cannot be written any more (``exc``): move both to the
        temporary directory (``protocol/files.md``: a disk that fails mid-match) -- the resume file
        first, then the log, then the old ones removed -- and say so at once (``cfg.hooks.on_log_moved`` for
        the table, else a line of progress).  Raises OSError when the match cannot go there either; the
        log and the resume file then stay where they were."""
        log, old = self.log, self.log.path
        new = unused_path(Path(tempfile.gettempdir()), old.stem, old.suffix, also=path_for)
        old_resume = self.resume.path if self.resume is not None else None
        if self.resume is not None and old_resume is not None:
            self.resume.path = path_for(new)
            try:
                self.resume.save()
            except OSError:
                self.resume.path = old_resume
                raise
        try:
            log.move_to(new)
        except OSError:
            if self.resume is not None and old_resume is not None:
                with contextlib.suppress(OSError):
                    self.resume.path.unlink()
                self.resume.path = old_resume
            raise
        if old_resume is not None:
            with contextlib.suppress(OSError):
                old_resume.unlink()
        self.result.log_path = new
        line = (f"cannot write the match log {old}: {exc.strerror or exc}; it is saved to {new} instead, "
                "and the match goes on")
        if self.cfg.hooks.on_log_moved is not None:
            self.cfg.hooks.on_log_moved(old, new, line)
        else:
            self.say(f"note: {line}")

    def add_secret(self, deal: int, secret: bytes) -> None:
        """Our commit secret of ``deal`` to the resume file before the commitment is signed (protocol/wire.md
        §14.4); a resume file that cannot be written moves with the log (:meth:`relocate`).  Raises
        OSError when it cannot be kept anywhere (nothing is signed then)."""
        assert self.resume is not None
        try:
            self.resume.add_secret(deal, secret)
        except OSError as exc:
            self.relocate(exc)  # the secret is in the resume file saved there

    @property
    def game(self) -> NetMatch:
        """The match as the steps and the table see it (exists while :meth:`run` runs)."""
        assert self._game is not None, "the steps run inside MatchSteps.run"
        return self._game

    @property
    def seat(self) -> NetSeat:
        """Our seat (exists from :meth:`ready` on)."""
        assert self._seat is not None, "our seat is made when the rules are agreed"
        return self._seat

    def say(self, text: str) -> None:
        """A line of progress (``cfg.out``)."""
        say(self.cfg, text)

    def tell(self, text: str) -> None:
        """A note for the user: on the table when the UI runs, else printed (``game.on_note``)."""
        self.game.note(text)

    # ----- the match, step by step -------------------------------------------------------

    async def run(self, conn: Connection, rematches_left: int) -> bool:
        """Play the match on ``conn``: the steps in order, with the event pump, the move clock and the
        claims beside them.  Returns True when a rematch was agreed after it (``rematches_left``: how
        many more the AI accepts)."""
        cfg, session = self.cfg, self.session
        game = self._game = NetMatch(
            conn, session, on_chat=lambda who, text: self.say(N_("[chat] %(name)s: %(text)s", name=who, text=text)),
            on_note=lambda text: self.say(N_("note: %(note)s", note=text)))
        game.clock.no_clock_limit_s = cfg.no_clock_limit_s
        try:
            _, again = await first_of(lambda: self._steps(conn, rematches_left), game.pump)
        finally:
            if self.resume is not None and session.violation is not None:
                self.resume.delete()  # ended on the peer's fault: nothing left to resume
        return bool(again)

    async def _steps(self, conn: Connection, rematches_left: int) -> bool:
        """The steps in order: the match agreed, then (with the move clock and its claims beside them)
        played, acknowledged, and the rematch question."""
        name, rules = await self.agree()
        self.ready(rules, name)
        assert self._claims is not None
        _, again = await first_of(lambda: self._after_ready(conn, rematches_left), self.game.run_clock,
                                  self._claims.watch)
        return bool(again)

    async def _after_ready(self, conn: Connection, rematches_left: int) -> bool:
        session = self.session
        if self.restored:
            await self.take_back_abandonment()
        await self.play()
        end = MatchEnd(self.cfg, self.game, self.result.peer_name)
        if self.restored:
            await end.rejoined()
        await end.acknowledged()
        if self.resume is not None and match_complete(session) and session.delivered and not abandoned_by_us(session):
            # Nothing left to resume (files.md): gone now, not when the process ends -- a person
            # may quit at the end screen, which cancels this side before it ends on its own.
            self.resume.delete()
        again = False if self.result.left else await end.rematch(rematches_left)
        if not again:
            conn.closing_ok = True
        return again

    async def take_back_abandonment(self) -> None:
        """(a match taken up after we ended it as abandoned by the peer) Once the peer is back and proven,
        send ``continue`` -- within 24 hours of the abandonment; after them the match stays abandoned
        (protocol/wire.md §15.1; the resume file's ``abandoned_at``, files.md)."""
        session, resume = self.session, self.resume
        ref = referee_of(session)
        if ref.phase != ABANDONED or ref.abandoned is None or ref.abandoned[3] != session.seat:
            return
        at = None if resume is None else resume.abandoned_at
        since = None
        with contextlib.suppress(ValueError, TypeError):
            since = (datetime.now(UTC) - datetime.strptime(at or "", "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC))
        if since is None or since.total_seconds() > ABANDON_CONTINUE_S:
            self.say(f"you ended this match as abandoned by the opponent {'at ' + at if at else ''} -- more than "
                     f"{ABANDON_CONTINUE_S // 3600} hours ago: it stays abandoned")
            return
        while not self.game.conn.link_up or session.catching_up:  # the peer is back, and proven (§14.2)
            await trio.sleep(0.05)
        await self.game.act(session.floor.take_back_abandonment)
        assert resume is not None
        resume.abandoned_at = None
        resume.save()
        self.say("the opponent is back: you took your abandonment back, and the match goes on where it stood")

    async def agree(self) -> tuple[str, RuleSet]:
        """Hellos, pinning and the rules (protocol/wire.md §7, §9.1); the log file is created when the
        rules are agreed.  A restored match has them in its chain already (it is replayed from there).
        Returns the peer's name and the agreed rules."""
        session = self.session
        if self.restored:  # what our log lost comes back from the peer first (protocol/wire.md §14.2 step 5)
            await self.game.caught_up(self.cfg.reconnect_wait_s + self.cfg.hello_timeout_s + self.cfg.timeout_s)
            session.end_replay()  # its events from here on; the seat starts from what the chain holds
            name = session.peer_name or "peer"
            self.say(f"resuming the match with {name} ({session.peer_fingerprint}); its log: {self.result.log_path}")
            rules = session.rules
            assert rules is not None
            return name, rules
        agreement = Agreement(self.cfg, self.game, self.result, self.rematch_of, self.hello_deadline, self.peer_address,
                              self.claim is not None, self.begin_hosted, self._create_log)
        hello = await agreement.hello()
        if self.cfg.role == "host":
            return hello.name, await agreement.host_rules(hello)
        return hello.name, await agreement.guest_rules(hello)

    def _create_log(self, peer_name: str) -> None:
        """Create the match's log file (its resume file and lock first: :meth:`_resume_first`)."""
        self.result.log_path = create_log(self.cfg, self.log, self.now, self.number, peer_name,
                                          before=self._resume_first)

    def begin_hosted(self) -> bool:
        """(host) The guest's accepting ``agree`` -- its first signed message, which proves its key -- is in
        the chain: the match is its unless another guest took the match first (:attr:`claim`, the lobby;
        protocol/wire.md §7.1).  Then pin its key (the first match on the connection) and create the log
        file, its resume file first (§12, ``files.md``).  Returns False when another guest came first
        (nothing is written); True at once when the log exists already.  Synchronous, so that it runs to
        the end even when the connection fails just after the ``agree`` (see :func:`play_over`).

        Raises:
            NetplayError: status 1, the known-peers file, the resume file or the log cannot be written,
                or ``--log`` exists.
        """
        if self.log.created:
            return True
        if self.claim is not None and not self.claim(self.result):
            return False
        session = self.session
        name, fingerprint = session.peer_name or "", session.peer_fingerprint or ""
        if self.rematch_of is None:
            pin_guest(self.cfg, name, fingerprint, self.peer_address)
        self._create_log(name)
        return True

    def _resume_first(self, log_path: Path) -> None:
        """Lock the match (held with the log, :func:`~p2ptrumps.net.matchlock.hold_match`) and create the
        resume file beside a new log, before the log (``protocol/files.md``).  NetplayError (status 1) if
        either cannot be made (another process holds the lock of this match)."""
        cfg, session = self.cfg, self.session
        assert session.game_id is not None
        resume = ResumeFile(path_for(log_path), session.game_id, cfg.role,
                            address=cfg.address if cfg.role == "guest" else None,
                            bind=cfg.bind if cfg.role == "host" else None,
                            port=cfg.port if cfg.role == "host" else 0, meet=cfg.meet)
        # the lock of the match first (files.md "Resuming"): a resume of a copy of this log stops at once
        self.log.hold_also(hold_match(cfg, session.game_id, session.role, log_path))
        try:
            resume.save()
        except OSError as exc:
            raise NetplayError(EXIT_ERROR, f"cannot write the resume file {resume.path}: {exc.strerror or exc}"
                               ) from None
        self.resume = resume

    def ready(self, rules: RuleSet, name: str) -> None:
        """The rules are agreed: note them (the result, a line of progress), let the resume file keep our
        deal secrets, start the table (``cfg.hooks.on_ready``; ``cfg.hooks.on_rematch`` for a rematch), and seat our
        player (the AI, a line prompt or the table's person; headless, its progress printed).  ``name``:
        the peer's."""
        cfg, game, result, session = self.cfg, self.game, self.result, self.session
        result.rules, result.move_time = rules, session.move_time
        if self.resume is not None:
            game.before_commit = self.add_secret
        if session.move_time:
            self.say(N_("rules: %(rules)s; move clock %(seconds)d s", rules=rules.describe(),
                        seconds=session.move_time))
        else:
            self.say(N_("rules: %(rules)s", rules=rules.describe()))
        if self.rematch_of is None and cfg.hooks.on_ready is not None:
            cfg.hooks.on_ready(game, result)
        elif self.rematch_of is not None and cfg.hooks.on_rematch is not None:
            cfg.hooks.on_rematch(game, result)
        seat = session.seat
        player = our_player(cfg, seat)
        if cfg.headless:  # equal names told apart by their keys: "root (K7QX)"
            keys = (cfg.identity.fingerprint, session.peer_fingerprint or "")
            mine_then_theirs = names_apart((cfg.name, name), keys)
            names = mine_then_theirs if seat == 0 else (mine_then_theirs[1], mine_then_theirs[0])
            player = ProgressPrinter(player, cfg, names)
        self._seat = NetSeat(game, cfg, player, lambda taken: choose_trump(cfg, taken))
        self._seat.start()
        self._claims = Claims(game, cfg)

    async def play(self) -> None:
        """The trumps and the deals, played by our seat up to the signed end, or the match's early end:
        we left, the peer left, a seat claimed the rest between deals, or a seat abandoned it
        (:meth:`play_or_leave`)."""
        how = await self.play_or_leave()
        result, session = self.result, self.session
        result.record = machine_of(session).record
        complete = match_complete(session)
        if complete:
            result.score_halves = session.score_halves
            note_disputed(self.cfg, session, result)
        if how != "we-left":
            return
        if complete:  # the match is complete: close the connection as usual, then report (status 130)
            result.left = "you resigned and left the match (both signed the final score)"
            return
        raise NetplayError(EXIT_LEFT, "you resigned and left the match (the peer did not sign the end in time)")

    async def play_or_leave(self) -> str:
        """Run our seat until the match is decided and signed, or our user leaves (``cfg.hooks.leave_requested``
        is set: we send ``leave`` and let the seat run up to ``cfg.leave_wait_s`` seconds more for the
        closing signatures, protocol/wire.md §15).  Returns how the match ended (:meth:`how`)."""
        cfg, game, seat = self.cfg, self.game, self.seat
        leave = cfg.hooks.leave_requested
        if leave is None:
            await seat.run()
            return self.how()
        index, _ = await first_of(seat.run, leave.wait)
        if index == 0:
            return self.how()
        try:
            await game.act(self.session.floor.leave)
        except NetGameError:
            return "we-left"  # nothing to resign now (e.g. the match is decided)
        with trio.move_on_after(cfg.leave_wait_s):  # the closing signatures (§15); we show nothing more
            await seat.until_over()
        return "we-left"

    def how(self) -> str:
        """How the match ended, as its chain says: ``"played"`` (every deal, some perhaps settled as
        disputed, §16), ``"abandoned"`` (a seat ended it as abandoned by the other, §15.1), ``"we-left"`` /
        ``"peer-left"`` (a seat left, §15, or the peer claimed the rest between deals, §16) or ``"claimed"``
        (we did)."""
        match, seat = machine_of(self.session), self.session.seat
        if match.phase == "abandoned":
            return "abandoned"
        if match.left is not None:
            return "we-left" if match.left == seat else "peer-left"
        dealt = {d.number for d in match.deals}
        for claimant, won in match.claims:
            if won and won[0] not in dealt:
                return "claimed" if claimant == seat else "peer-left"
        return "played"

