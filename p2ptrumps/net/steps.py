"""One networked match as named steps, from the hellos to the rematch question.

Source: ``protocol/wire.md`` §7 (the handshake), §9 (the match), §9.4 (rematch), §12 (the log),
§14.4-§14.5 (a restarted side, the last statement), §15 (leave), §16 (the move clock and claims),
§17 (deadlines).  One :class:`MatchSteps` is one match on a connection: its
:class:`~p2ptrumps.wire.session.Session`, its log and its result; :func:`~p2ptrumps.net.driver.play_over`
runs the matches of one connection (the first, then each rematch) and says how the connection ended.

The steps, in the order :meth:`MatchSteps.run` takes them (each a method of :class:`MatchSteps`):

1. **agree** (:meth:`~MatchSteps.agree`): our hello out, the peer's in (:meth:`~MatchSteps.hello`;
   the guest pins the host's key there); the rules: the host proposes and waits for the answer
   (:meth:`~MatchSteps.host_rules`; the guest's signed ``agree`` takes the match, its key is pinned,
   the log file created: :meth:`~MatchSteps.begin_hosted`), the guest accepts or refuses
   (:meth:`~MatchSteps.guest_rules`).  A match taken up after a restart has all this in its chain.
2. **ready** (:meth:`~MatchSteps.ready`): the rules noted; the table starts (``on_ready`` /
   ``on_rematch``); our seat (:class:`~p2ptrumps.net.seat.NetSeat`) takes its player.
3. **play** (:meth:`~MatchSteps.play`): our seat plays the trumps and the deals -- the match machine
   in the session's referee decides them, our player acts for our seat, the peer's messages are the
   other seat's -- up to the signed end, or the early one, raced against our leaving
   (:meth:`~MatchSteps.play_or_leave`: ``cfg.hooks.leave_requested``).
4. **rejoin** (:meth:`~MatchSteps.rejoined`, a restarted side): wait until the peer is back.
5. **acknowledgement** (:meth:`~MatchSteps.acknowledged`): ping until the peer holds our last statement.
6. **rematch** (:meth:`~MatchSteps.rematch`): offer or accept a rematch, or close.

Beside the steps, for the whole match: the event pump (:meth:`~p2ptrumps.net.seat.NetMatch.pump`), the
move clock and the claims it gives (:meth:`~p2ptrumps.net.seat.NetSeat.run_clock`,
:meth:`~p2ptrumps.net.claims.Claims.watch`).  Reconnecting is the connection's
(:func:`~p2ptrumps.net.driver.make_reconnect`), and so is the claim signed when the peer stays away
(:func:`~p2ptrumps.net.driver.claim_on_leaving`).
"""

from __future__ import annotations

import contextlib
import math
import os
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import trio

from ..events import ConnectionClosed, PeerHello, RematchAgreed, RulesAgreed, RulesProposed, RulesRefused
from ..files import unused_path
from ..rules import RuleSet
from ..text import names_apart, quoted
from ..wire.log import LOG_MAGIC
from ..wire.referee import ABANDONED, DONE, REMATCHED
from ..wire.session import Session
from . import keystore
from .claims import Claims
from .config import (
    EXIT_ERROR,
    EXIT_KEY_REFUSED,
    EXIT_LEFT,
    EXIT_PEER_GONE,
    EXIT_RULES_REFUSED,
    NetConfig,
    NetplayError,
    NetResult,
    say,
)
from .logfile import MatchLogFile, create_log
from .matchlock import hold_match
from .prompts import ProgressPrinter, choose_trump, our_player, rules_refusal
from .race import first_of
from .resumefile import ResumeFile, path_for
from .seat import NetGameError, NetMatch, NetSeat, machine_of
from .transport import Connection, TransportError


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


def match_complete(session: Session) -> bool:
    """True when the match in ``session`` is complete: both signed the end (its log verifies as valid)."""
    chain = session.chain
    return session.violation is None and chain is not None and chain.referee.phase in (DONE, REMATCHED, ABANDONED)


def note_disputed(cfg: NetConfig, session: Session, result: NetResult) -> None:
    """The match in ``session`` ended disputed (protocol/wire.md §16): set ``result`` and say so (once)."""
    chain = session.chain
    if chain is None or chain.referee.match is None or not chain.referee.match.disputes or result.disputed:
        return
    ref = chain.referee
    result.score_halves = ref.score()
    result.disputed = True
    assert ref.match is not None
    who = "you" if ref.match.disputes[-1][1] == session.seat else "the opponent"
    say(cfg, f"the match ended disputed: {who} disputed a claim on time that the own clock contradicted "
        "(wire.md §16); no one wins it")


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
    #: (guest) pins the host's key once it has signed its rules (protocol/wire.md §7.1), or None.
    _pin_host: Callable[[], None] | None = field(default=None, repr=False)

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
        game = self._game = NetMatch(conn, session, on_chat=lambda who, text: self.say(f"[chat] {who}: {text}"),
                                     on_note=lambda text: self.say(f"note: {text}"))
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
        await self.play()
        if self.restored:
            await self.rejoined()
        await self.acknowledged()
        if self.resume is not None and match_complete(session) and session.delivered:
            # Nothing left to resume (files.md): gone now, not when the process ends -- a person
            # may quit at the end screen, which cancels this side before it ends on its own.
            self.resume.delete()
        again = False if self.result.left else await self.rematch(rematches_left)
        if not again:
            conn.closing_ok = True
        return again

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
        hello = await self.hello()
        if self.cfg.role == "host":
            return hello.name, await self.host_rules(hello)
        return hello.name, await self.guest_rules(hello)

    async def hello(self) -> PeerHello:
        """Our hello out, the peer's in by :attr:`hello_deadline` (a rematch's must show the key of the
        match before); (guest) the host's key is pinned here -- (host) the guest's only once it has
        signed (:meth:`begin_hosted`).  Then we accept the peer's key."""
        cfg, game, result, rematch_of = self.cfg, self.game, self.result, self.rematch_of
        await game.conn.send_pending()  # our hello
        got: PeerHello | None = None
        with trio.move_on_at(self.hello_deadline if self.hello_deadline is not None else math.inf):
            got = await game.take(PeerHello)
        if got is None:
            raise NetplayError(EXIT_PEER_GONE, f"no hello from the peer within {cfg.hello_timeout_s:g} s "
                               "(not a p2ptrumps peer?)")
        result.peer_name, result.peer_fingerprint = got.name, got.fingerprint
        if rematch_of is not None and got.fingerprint != rematch_of.peer_fingerprint:
            raise NetplayError(EXIT_KEY_REFUSED, f"the rematch hello shows another key ({got.fingerprint}) than "
                               f"the match before ({rematch_of.peer_fingerprint}). Refused.")
        if rematch_of is None and cfg.code_fingerprint is not None:  # keys pinned by the code (rendezvous.md §3)
            _check_code_key(cfg, got)
        elif rematch_of is None and cfg.role == "guest":
            self._pin_host = await _pin(cfg, got, self.peer_address)  # decided now, written once the host signed
        await game.act(self.session.accept_key)
        return got

    async def host_rules(self, hello: PeerHello) -> RuleSet:
        """(host) Our rules were proposed with our hello: wait ``cfg.agree_wait_s`` for the guest's answer;
        an accepting ``agree`` makes the match the guest's (:meth:`begin_hosted`).  Returns the rules."""
        cfg = self.cfg
        if self.rematch_of is None and self.claim is None:
            clock = f", move clock {cfg.move_time} s" if cfg.move_time else ""
            self.say(f"proposed: {cfg.rules.describe() if cfg.rules else '?'}{clock}; waiting for {hello.name} "
                     "to accept the rules ...")
        answer: RulesAgreed | RulesRefused | None = None
        with trio.move_on_after(cfg.agree_wait_s):
            answer = await self.game.take(RulesAgreed, RulesRefused)
        if answer is None:
            raise NetplayError(EXIT_PEER_GONE, f"{quoted(hello.name)} did not answer the rules within "
                               f"{cfg.agree_wait_s:g} s")
        if isinstance(answer, RulesRefused):
            raise NetplayError(EXIT_RULES_REFUSED, f"{quoted(hello.name)} refused the rules")
        if not self.begin_hosted():
            raise NetplayError(EXIT_PEER_GONE, "another guest came first")
        return answer.rules

    async def guest_rules(self, hello: PeerHello) -> RuleSet:
        """(guest) Take the host's proposal (it comes at once: ``cfg.hello_timeout_s``), accept or refuse
        it (a rematch's must be the rules of the match before); on accepting, create the log file.
        Returns the rules."""
        cfg, game, session, rematch_of = self.cfg, self.game, self.session, self.rematch_of
        proposed: RulesProposed | None = None
        with trio.move_on_after(cfg.hello_timeout_s):  # the host proposes at once (protocol/wire.md §17)
            proposed = await game.take(RulesProposed)
        if proposed is None:
            raise NetplayError(EXIT_PEER_GONE, f"{quoted(hello.name)} proposed no rules within "
                               f"{cfg.hello_timeout_s:g} s")
        if self._pin_host is not None:  # its signed proposal proves the key of its hello (protocol/wire.md §7.1)
            self._pin_host()
            self._pin_host = None
        if rematch_of is not None:
            ok = (rematch_of.rules is not None and proposed.rules == rematch_of.rules
                  and proposed.move_time == rematch_of.move_time)
            why = "" if ok else "other rules than the match before"
        else:
            refusal = await rules_refusal(cfg, proposed.rules, hello.name, proposed.move_time)
            ok, why = refusal is None, refusal or ""
        if not ok:
            await game.act(session.floor.refuse_rules)
            raise NetplayError(EXIT_RULES_REFUSED,
                               f"you refused the rules of {hello.name}" + (f": {why}" if why else ""))
        self.result.log_path = create_log(cfg, self.log, self.now, self.number, hello.name, before=self._resume_first)
        await game.act(session.floor.accept_rules)
        return (await game.take(RulesAgreed)).rules

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
            _pin_guest(self.cfg, name, fingerprint, self.peer_address)
        self.result.log_path = create_log(self.cfg, self.log, self.now, self.number, name, before=self._resume_first)
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
        clock = f"; move clock {session.move_time} s" if session.move_time else ""
        self.say(f"rules: {rules.describe()}{clock}")
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
        we left, the peer left, a seat claimed the rest between deals, or a claim was disputed
        (:meth:`play_or_leave`)."""
        how = await self.play_or_leave()
        result, session = self.result, self.session
        result.record = machine_of(session).record
        if how == "disputed":
            note_disputed(self.cfg, session, result)
            return
        complete = match_complete(session)
        if complete:
            result.score_halves = session.score_halves
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
        """How the match ended, as its chain says: ``"played"`` (every deal), ``"disputed"`` (a claim was
        disputed, §16), ``"we-left"`` / ``"peer-left"`` (a seat left, §15, or the peer claimed the rest
        between deals, §16) or ``"claimed"`` (we did)."""
        match, seat = machine_of(self.session), self.session.seat
        if match.disputes:
            return "disputed"
        if match.left is not None:
            return "we-left" if match.left == seat else "peer-left"
        dealt = {d.number for d in match.deals}
        for claimant, won in match.claims:
            if won and won[0] not in dealt:
                return "claimed" if claimant == seat else "peer-left"
        return "played"

    async def rejoined(self) -> None:
        """(a restarted side) Wait until the peer is back and proven, so that our last statement, or
        the acknowledgement of the peer's, can reach it (protocol/wire.md §14.5).  The reconnect wait
        bounds it."""
        while not self.game.conn.link_up:
            await trio.sleep(0.05)

    async def acknowledged(self) -> None:
        """Wait until the peer holds our last statement for sure (protocol/wire.md §14.5): ping after it
        and wait for the pong, again after any reconnection.  Returns at once when a message of the
        peer came after it (the host's case).  A peer that never answers holds us at most the reconnect
        wait plus the timeout (§17): then the match is complete, its acknowledgement unknown."""
        cfg, game = self.cfg, self.game
        session = game.session
        if game.conn.link_up and session.pending_bytes:
            await game.conn.send_pending()  # e.g. a dispute signed as the peer's statement came in (§16)
        with trio.move_on_after(cfg.reconnect_wait_s + cfg.timeout_s):
            while not session.delivered:
                if game.conn.link_up:
                    session.ping()
                    await game.conn.send_pending()
                with trio.move_on_after(1.0):
                    while not session.delivered:
                        await trio.sleep(0.01)
        if not session.delivered:
            self.say("note: the match is complete, but the peer did not acknowledge your last statement")

    async def rematch(self, rematches_left: int) -> bool:
        """After the match: offer / accept a rematch (protocol/wire.md §9.4).

        The AI (``--ai``) says yes while ``rematches_left`` allows, a person is asked
        (``cfg.hooks.ask_rematch``, else a line prompt when there is a terminal), nobody else
        wants one.  Declining is closing the connection.  Returns True once both sides
        sent ``rematch`` (the session's ``RematchAgreed``), False if we declined or the
        peer left (or declined) first.
        """
        cfg, game = self.cfg, self.game
        session = game.session
        peer = self.result.peer_name or "the peer"
        peer_offered = session.chain is not None and (1 - session.seat) in session.chain.referee.rematch
        closed = session.waiting_for()[1] == "nothing"
        if closed:
            return False

        async def ask() -> bool:
            if cfg.hooks.ask_rematch is not None:
                return await cfg.hooks.ask_rematch(peer, peer_offered)
            if cfg.ai is not None:
                return rematches_left > 0
            if cfg.hooks.confirm is None:
                return False
            question = f"{peer} offers a rematch; play again? [y/N] " if peer_offered else "rematch? [y/N] "
            return await trio.to_thread.run_sync(cfg.hooks.confirm, question, abandon_on_cancel=True)

        want = await _unless_closed(game, ask)
        if not want:
            if want is None:
                self.tell(f"{peer} left: no rematch")
            return False
        try:
            await game.act(session.floor.offer_rematch)
        except (NetGameError, TransportError):
            self.tell(f"{peer} left: no rematch")
            return False
        if (1 - session.seat) not in (session.chain.referee.rematch if session.chain else ()):
            self.tell(f"rematch offered; waiting for {peer} (they may decline by leaving)")

        async def agreed() -> bool:
            await game.take(RematchAgreed)
            return True

        got: bool | None = None
        with trio.move_on_after(cfg.rematch_wait_s) as wait:
            got = await _unless_closed(game, agreed)
        if wait.cancelled_caught:
            self.tell(f"{peer} did not answer the rematch offer within {cfg.rematch_wait_s:g} s")
            return False
        if not got:
            self.tell(f"{peer} declined the rematch")
            return False
        return True


async def _unless_closed(game: NetMatch, fn: Callable[[], Awaitable[bool]]) -> bool | None:
    """``await fn()``, or None if the peer closes the connection first."""
    index, value = await first_of(fn, lambda: game.take(ConnectionClosed))
    return value if index == 0 else None


def _pin_guest(cfg: NetConfig, name: str, fingerprint: str, peer_address: str) -> None:
    """(host) Pin a guest that has signed (protocol/wire.md §7.1): guests are known by their key alone
    (any guest may play; a known name with a new key is only a warning).  Raises NetplayError
    (status 1) when the known-peers file is unusable."""
    try:
        note = keystore.KnownPeers.open(cfg.data).pin_guest(fingerprint, name, peer_address)
    except keystore.KeyStoreError as exc:
        raise NetplayError(EXIT_ERROR, str(exc)) from None
    say(cfg, note)


class _PinLater:
    """Stands in for the known-peers file while the guest decides on the host's key: a new key is
    remembered, and written by :meth:`write` only once the host has signed (protocol/wire.md §7.1)."""

    def __init__(self, known: keystore.KnownPeers) -> None:
        self.known = known
        self.path = known.path
        self.entry: tuple[str, str, str] | None = None

    def add(self, fingerprint: str, name: str, address: str) -> None:
        self.entry = (fingerprint, name, address)

    def write(self) -> None:
        if self.entry is not None:
            self.known.add(*self.entry)


def _check_code_key(cfg: NetConfig, hello: PeerHello) -> None:
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


async def _pin(cfg: NetConfig, hello: PeerHello, peer_address: str) -> Callable[[], None]:
    """(guest) Check the host's key against the known peers: ssh's rules (``--fingerprint``,
    ``--accept-new``, a question).  Nothing is written yet: returns the call that pins a new key,
    made once the host has signed (its ``rules``; protocol/wire.md §7.1, files.md).

    Raises:
        NetplayError: status 6 (the key is refused), 1 (the known-peers file is unusable; also from
            the returned call).
    """
    try:
        known = keystore.KnownPeers.open(cfg.data)
    except keystore.KeyStoreError as exc:
        raise NetplayError(EXIT_ERROR, str(exc)) from None
    check = known.check(hello.fingerprint, hello.name, peer_address)
    later = _PinLater(known)

    def decide() -> str:
        return keystore.decide_pin(check, later, expected_fingerprint=cfg.fingerprint,  # type: ignore[arg-type]
                                   accept_new=cfg.accept_new, confirm=cfg.hooks.confirm)

    def write() -> None:
        try:
            later.write()
        except keystore.KeyStoreError as exc:
            raise NetplayError(EXIT_ERROR, str(exc)) from None
        except OSError as exc:
            raise NetplayError(EXIT_ERROR, f"cannot write {known.path}: {exc.strerror or exc}") from None

    try:
        note = await trio.to_thread.run_sync(decide, abandon_on_cancel=True)
    except keystore.PinningError as exc:
        raise NetplayError(EXIT_KEY_REFUSED, str(exc)) from None
    except keystore.KeyStoreError as exc:
        raise NetplayError(EXIT_ERROR, str(exc)) from None
    say(cfg, f"peer: {note}")
    return write
