"""The person's seat of a networked match in the full-screen table (``host`` / ``join`` without ``--ai``).

Source: README.md "Playing over the network" (the same terminal UI as offline, showing the opponent's
name and fingerprint, chat, resign, draw offer, connection state, and at the
end the path of the match log).

Design: prompt_toolkit runs on asyncio; the whole networked match
(:func:`p2ptrumps.net.lobby.host` / :func:`~p2ptrumps.net.dial.join`) runs in trio
as a guest on the same loop (:class:`p2ptrumps.ui.bridge.TrioGuest`).  The
full-screen table starts only once the peer's key and the rules are accepted
(``SeatHooks.on_ready``): until then plain line prompts (the host-key question)
work on the terminal.  The person plays through :class:`~p2ptrumps.ui.app.HumanPlayer`;
chat lines they type (:class:`~p2ptrumps.ui.app.ChatSend`) go to the session.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TextIO

import trio
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from ..command import say, typed
from ..i18n import _, ngettext, tr
from ..message import N_, message_of
from ..record import PlayerInfo, match_winner
from ..text import names_apart
from ..ui.app import ChatSend, HumanPlayer, Intent, Mode, QuitResult, TableApp, UIOptions, describe_score
from ..ui.bridge import GuestCancelled, TrioGuest
from ..ui.terminal import LEAVING_SIGNALS, Termination
from ..ui.view import CLOCK_WARN_S, cut_to_width, session_score_lines, wants_color
from .config import EXIT_LEFT, EXIT_OK, MatchView, NetConfig, NetplayError, NetResult, log_paths
from .dial import join
from .driver import LogWriteError
from .lobby import host
from .race import single_errors
from .resumefile import kept_lines

#: Peer names are cut to this many terminal columns on the table (a long full-width name
#: would push the opponent's trump and card count off their row).
MAX_NAME_COLUMNS = 20
#: Seconds without a byte from the peer (heartbeats come every few seconds) before the table says so.
SILENT_AFTER_S = 8.0


def display_name(name: str, columns: int = MAX_NAME_COLUMNS) -> str:
    """``name`` cut to ``columns`` terminal columns (wide characters count 2), with ``…`` if cut."""
    return cut_to_width(name, columns)


def table_names(mine: str, my_fingerprint: str, theirs: str, their_fingerprint: str) -> tuple[str, str]:
    """The display names of us and the peer (:func:`display_name`); when they are the same, each
    followed by its key's first four characters, ``("root (K7QX)", "root (3HAG)")`` (names are
    labels, keys are identities)."""
    me, peer = display_name(mine), display_name(theirs)
    if me == peer:
        short = MAX_NAME_COLUMNS - 7
        return names_apart((display_name(mine, short), display_name(theirs, short)),
                           (my_fingerprint, their_fingerprint))
    return me, peer


def run_with_ui(cfg: NetConfig, args: argparse.Namespace, role: str,
                main: Callable[[], Awaitable[NetResult]] | None = None) -> int:
    """Play our seat in the full-screen table; returns the exit status of :mod:`p2ptrumps.net.config`
    (130 when the person quit the match; 128 + the signal's number when SIGINT, SIGTERM or SIGHUP ended
    it: 130, 143, 129).  ``main``: the trio side to
    run instead of hosting or joining (``p2ptrumps resume``).  Messages name ``args.command``."""
    command = str(getattr(args, "command", None) or ("host" if role == "host" else "join"))
    if main is not None:
        return asyncio.run(play_in_table(cfg, role, main=main, command=command))
    if role == "host":
        return asyncio.run(play_in_table(cfg, role, bind=args.bind, port=args.port, command=command))
    return asyncio.run(play_in_table(cfg, role, address=args.address, command=command))


async def play_in_table(
    cfg: NetConfig,
    role: str,
    *,
    bind: str | None = None,
    port: int = 0,
    address: str = "",
    input: Input | None = None,
    output: Output | None = None,
    on_table: Callable[[TableApp], None] | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    main: Callable[[], Awaitable[NetResult]] | None = None,
    command: str | None = None,
) -> int:
    """Host (``role="host"``, on ``bind``:``port``) or join (``address``) with our seat in the
    full-screen table, on the running asyncio loop.

    Args:
        input / output: the table's prompt_toolkit input and output (default: the terminal;
            tests pass ``create_pipe_input()`` and ``DummyOutput()``).
        on_table: called with the table once it exists (tests drive it).
        stdout / stderr: where the closing lines go (default ``sys.stdout`` / ``sys.stderr``).
        main: run this in trio instead of hosting or joining (a match resumed after a restart).
        command: the subcommand that error lines name (``p2ptrumps host: ...``; default from ``role``).
    Returns:
        the exit status of :mod:`p2ptrumps.net.config` (0 the match was played; 130 the person quit;
        128 + the signal's number when SIGINT, SIGTERM or SIGHUP ended the run: 130, 143, 129).

    SIGINT, SIGTERM and SIGHUP (``kill``, a closed terminal window) end the run as ``q`` then ``y`` does
    (:class:`~p2ptrumps.ui.terminal.Termination`): at the table the match is left with a signed
    ``leave`` (protocol/wire.md §15) and the terminal restored; before the table (waiting for a
    guest, at a question) the run stops at once.  The signal is named on stderr.
    """
    seat = TableSeat(cfg, command or ("host" if role == "host" else "join"), input=input, output=output,
                     out=stdout or sys.stdout, err=stderr or sys.stderr)
    if on_table is not None:
        on_table(seat.table)

    async def trio_main() -> NetResult:
        cfg.hooks.leave_requested = trio.Event()
        with single_errors():  # one failure is reported as itself, as the headless run does, never as a group
            if main is not None:
                return await main()
            if role == "host":
                return await host(cfg, bind, port)
            return await join(cfg, address)

    return await seat.run(trio_main)


class TableSeat:
    """Our seat of a networked match at the full-screen table (see :func:`play_in_table`).

    The run, step by step (:meth:`run`):

    1. **start**: the trio side (host, join or resume) runs as a guest of the asyncio loop; the
       match calls the hooks below through :class:`NetConfig`;
    2. **wait for the table** (:meth:`wait_for_table`): until the peer's key and the rules are
       accepted (:meth:`on_ready`), the trio side ends, or Ctrl-C or a signal stops the run first;
    3. **play** (:meth:`play`): the table runs until the match is over and the person leaves it, the
       person quits (``q`` then ``y``), a signal comes or the terminal is lost;
    4. **leave** (:meth:`leave`, after a quit): a signed ``leave`` (protocol/wire.md §15), a short
       wait for the closing signatures, then the trio side is cancelled;
    5. **report** (:meth:`report_played`, :meth:`report_left`, :meth:`report_failure`): the closing
       lines and the exit status.

    The hooks the match calls: :meth:`on_ready` (the table starts), :meth:`on_rematch`,
    :meth:`ask_rematch`, :meth:`ask_claim` (the peer's move clock ran out), :meth:`choose_trump`,
    :meth:`on_link` (the reconnection's countdown); when the trio side ends with the connection lost
    mid-match, :meth:`connection_lost` keeps the table up until the person leaves.
    """

    def __init__(self, cfg: NetConfig, command: str, *, input: Input | None, output: Output | None,
                 out: TextIO, err: TextIO) -> None:
        self.cfg = cfg
        self.command = command  # the subcommand that error lines name
        self.out, self.err = out, err
        self.table = TableApp(UIOptions(ascii_only=cfg.ascii_only, color=wants_color(), allow_undo=False,
                                        allow_hint=False, allow_draw_offer=True, allow_chat=True,
                                        waiting_text="{name} is thinking…",
                                        leave_resigns=True,
                                        match_end_enter="rematch or leave"),
                              input=input, output=output)
        self.table.record_label = N_("Match log saved")
        self.ui_wanted = asyncio.Event()
        self.human: HumanPlayer | None = None  # our seat, once the table started (on_ready)
        self.games: list[MatchView] = []  # the current match is the last (a rematch adds one)
        self.log_files: list[str] = []  # each match's log, in order (a rematch adds one)
        self.app_done = False  # the person left the table
        self.pending: list[Callable[[bool], None]] = []  # open questions that leaving answers "no"
        self.lost: NetplayError | None = None  # the connection was lost mid-match
        self.quit_result = QuitResult.FINISHED
        self.terminal_lost: OSError | None = None  # the table's terminal failed under it (it was closed)
        self.guest: TrioGuest[NetResult] | None = None
        self.term: Termination | None = None
        self.peer_shown: dict[str, str] = {}  # the peer's name -> as the table shows it ("root (K7QX)")

    def shown(self, who: str) -> str:
        """The peer's name ``who`` as the table shows it: told apart from ours by its key when the two
        are the same (:func:`table_names`), else cut (:func:`display_name`)."""
        return self.peer_shown.get(who) or display_name(who)

    # ----- the run -------------------------------------------------------------------

    async def run(self, trio_main: Callable[[], Awaitable[NetResult]]) -> int:
        """Run the match (``trio_main``, in trio) with our seat at the table; the exit status: after a
        signal, 128 + its number (130 SIGINT, 143 SIGTERM, 129 SIGHUP), as ``play`` exits."""
        status = await self._run(trio_main)
        signalled = self.term.exit_status if self.term is not None else None
        return status if signalled is None else signalled

    async def _run(self, trio_main: Callable[[], Awaitable[NetResult]]) -> int:
        self._install()
        guest = self.guest = TrioGuest(trio_main)
        guest.start(on_done=self.on_trio_done)
        with Termination(self.on_signal, LEAVING_SIGNALS) as term:
            self.term = term
            try:
                await self.wait_for_table()
                if self.quit_result is not QuitResult.QUIT and (guest.running or self.lost):
                    await self.play()
            finally:
                if self.quit_result is QuitResult.QUIT:
                    await self.leave()
                elif self.quit_result is QuitResult.ADJOURN:  # no message: the match stays resumable (§15)
                    guest.cancel()
                self.app_done = True
                for reply in list(self.pending):  # the person left the end screen: no rematch
                    reply(False)
                cause = self._cause()
                try:
                    result = await guest.wait()
                except GuestCancelled:
                    if self.quit_result is QuitResult.ADJOURN:
                        return self.report_adjourned()
                    return self.report_left(cause)
                except NetplayError as exc:
                    return self.report_failure(cause, exc)
        return self.report_played(result)

    def _install(self) -> None:
        """Hand the match our hooks (:class:`NetConfig`): from :meth:`on_ready` on, the table owns the
        terminal and the person plays there."""
        cfg = self.cfg
        cfg.hooks.on_ready = self.on_ready
        cfg.hooks.on_rematch = self.on_rematch
        cfg.hooks.ask_rematch = self.ask_rematch
        cfg.hooks.choose_trump = self.choose_trump
        cfg.hooks.ask_claim = self.ask_claim
        cfg.hooks.make_player = self._our_player
        cfg.hooks.on_link = self.on_link
        cfg.hooks.on_log_moved = self.on_log_moved
        cfg.headless = False

    async def wait_for_table(self) -> None:
        """Step 2: wait until the table is wanted (:meth:`on_ready`, or the trio side ended); Ctrl-C or a
        signal before it stops the run (:attr:`quit_result` QUIT)."""
        assert self.term is not None
        try:
            await self.ui_wanted.wait()
        except asyncio.CancelledError:
            # Ctrl-C (asyncio.run cancels the main task) while waiting for a guest or at a question
            # before the table: stop the match now, on a fresh line; the exit status is 130.
            _line("", self.err)
            self.quit_result = QuitResult.QUIT
        if self.term.signal is not None:
            self.quit_result = QuitResult.QUIT
            if self.human is None and sys.stdin.isatty():
                _line("", self.err)  # a question may be open on the line (the host's key, the rules)

    async def play(self) -> None:
        """Step 3: run the table until the person leaves it (or a signal, or a lost terminal, ends it)."""
        term = self.term
        assert term is not None
        try:
            # A signal between the wait and the start: the table leaves as soon as it runs.
            self.quit_result = await self.table.application.run_async(  # SIGINT too: the Termination's
                pre_run=lambda: self.on_signal() if term.signal is not None else None, handle_sigint=False)
        except OSError as exc:
            # The terminal went away (a closed window: EIO, often before SIGHUP arrives): nobody
            # can play on here, so leave the match as q does -- never stay on, holding the seat.
            self.quit_result = QuitResult.QUIT
            if term.signal is None:
                self.terminal_lost = exc

    async def leave(self) -> None:
        """Step 4: resign the rest of the match with a signed message, wait briefly for the closing
        signatures (protocol/wire.md §15); cancel the trio side when that does not end it."""
        guest, cfg = self.guest, self.cfg
        assert guest is not None
        if self.human is not None and guest.running:
            leave = cfg.hooks.leave_requested
            guest.run_sync_soon(lambda: leave.set() if leave is not None else None)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(_ended(guest)), cfg.leave_wait_s + 3.0)
        guest.cancel()

    def _cause(self) -> str:
        """What ended the run from outside, as the start of the closing line ("" for nothing)."""
        term = self.term
        assert term is not None
        if term.signal is not None:
            return _("stopped by %(signal)s: ", signal=term.name)
        if self.terminal_lost is not None:
            return _("the terminal was lost (%(why)s): ", why=self.terminal_lost.strerror or str(self.terminal_lost))
        return ""

    # ----- step 5: the closing lines -----------------------------------------------------

    def report_played(self, result: NetResult) -> int:
        """The match ended (or the connection, after it): the end note, the score, the logs; status 0."""
        assert self.term is not None
        if self.term.signal is not None:
            say(self.command, _("stopped by %(signal)s", signal=self.term.name), self.err)
        if self.table.state.end_note:
            _line(self.table.state.end_note, self.out)
        self.report_score(result)
        for done_log in log_paths(result):
            _line(_("match log: %(path)s", path=str(done_log)), self.out)
        return EXIT_OK

    def report_score(self, result: NetResult) -> None:
        """The closing ``Score:`` line(s) of the connection's matches (``result`` and its rematches): the
        whole session after rematches, as `play` after "play again"."""
        last = result.rematches[-1] if result.rematches else result
        if last.score_halves is not None:  # the signed score: the table never saw a peer that left before a deal
            self.table.state.score_halves = last.score_halves
        s = self.table.state
        session = [(r.score_halves[r.seat], r.score_halves[1 - r.seat], _undecided(r))
                   for r in (result, *result.rematches) if r.score_halves is not None]
        if len(session) > 1:  # rematches: the whole session, each match, as `play` after "play again"
            for line in session_score_lines((s.names[s.my_seat], s.names[1 - s.my_seat]), session,
                                            self.table.options.ascii_only):
                _line(line, self.out)
        else:
            _line(_("Score: %(score)s", score=describe_score(self.table)), self.out)

    def report_left(self, cause: str) -> int:
        """We left the match, or stopped before it began (status 130); the logs written are kept."""
        assert self.term is not None
        kept = [p for p in self.log_files if p and p != "None"]
        what = cause + _("you left the match") if self.human is not None else (
            _("stopped by %(signal)s before the match began", signal=self.term.name) if cause
            else _("stopped before the match began"))
        if kept:
            what += (_("; its log is kept") if len(kept) == 1
                     else ngettext("; its %(n)d log is kept", "; its %(n)d logs are kept", len(kept)))
        say(self.command, what, self.err)
        for path in kept:
            _line(_("match log (kept): %(path)s", path=path), self.err)
        return EXIT_LEFT

    def report_adjourned(self) -> int:
        """We adjourned the match (``a`` at the leave question): nothing signed, the match unfinished and
        resumable (protocol/wire.md §15); status 130, as any stop by the person."""
        say(self.command, "you adjourned the match: nothing was resigned, and it stays unfinished", self.err)
        for line in kept_lines([Path(p) for p in self.log_files if p and p != "None"]):
            _line(line, self.err)
        return EXIT_LEFT

    def report_failure(self, cause: str, exc: NetplayError) -> int:
        """The match could not start or go on: the reason and its exit status."""
        say(self.command, cause + tr(exc), self.err)
        result: NetResult | None = getattr(exc, "result", None)
        if (exc.status == EXIT_LEFT and result is not None and self.human is not None
                and any(r.score_halves is not None for r in (result, *result.rematches))):
            self.report_score(result)  # we left, and both signed the final score: it counts, as after `q` in play
        for line in kept_lines(log_paths(result)):  # and how to take it up, as the headless run says
            _line(line, self.err)
        return exc.status

    # ----- what the trio side and the signals tell us --------------------------------------

    def on_trio_done(self) -> None:
        """The trio side ended: close the table, or say why when the connection was lost mid-match."""
        self.ui_wanted.set()
        failure = _failure(self.guest) if self.guest is not None else None
        if failure is not None and self.human is not None and not self.app_done:
            self.connection_lost(failure)
            return
        self.table.exit(QuitResult.FINISHED)

    def connection_lost(self, failure: NetplayError) -> None:
        """The connection was lost mid-match: say why on the table, leave when the person says so."""
        self.lost = failure
        table = self.table
        kept = ", ".join(str(p) for p in log_paths(getattr(failure, "result", None)))
        table.set_connection(N_("disconnected"))
        table.options.allow_chat = False  # nobody to talk to, offer a draw or a rematch any more
        table.options.allow_draw_offer = False
        table.options.quit_question = ""  # q leaves at once: there is nothing left to resign
        table.close_question()
        if isinstance(failure, LogWriteError):  # not the connection: our disk (a line that stays)
            table.options.waiting_text = N_("The match log cannot be written: the match stops here.")
            table.set_fault(N_("%(fault)s. The match stops here; everything played so far is kept in that log. Free "
                               "some space, then `%(command)s` goes on with it.", fault=message_of(failure),
                               command=f"{typed('resume')} {failure.path}"))
            table.show_message(N_("Press q to leave."), "error")
            return
        table.options.waiting_text = N_("The connection is lost: the match stops here.")
        if kept:
            table.show_message(N_("Connection lost: %(fault)s. Match log kept: %(logs)s. Press q to leave.",
                                  fault=message_of(failure), logs=kept), "error")
        else:
            table.show_message(N_("Connection lost: %(fault)s. No match log kept. Press q to leave.",
                                  fault=message_of(failure)), "error")

    def on_signal(self) -> None:
        """SIGINT / SIGTERM / SIGHUP: as q then y at the table, or stop before it."""
        self.ui_wanted.set()
        self.table.exit(QuitResult.QUIT)

    # ----- the hooks the match calls (NetConfig), in the trio run ------------------------------

    def on_ready(self, game: MatchView, result: NetResult) -> None:
        """The peer's key and the rules are accepted: the table takes the terminal, our seat is the person."""
        cfg, table = self.cfg, self.table
        me, peer = table_names(cfg.name, cfg.identity.fingerprint, result.peer_name or "peer",
                               result.peer_fingerprint or "")
        table.set_players((me, peer) if game.seat == 0 else (peer, me), game.seat)
        self.peer_shown = {result.peer_name or "peer": peer}
        # the key, and which path the match took (direct, mapped port, relay)
        path = cfg.report.path
        key = result.peer_fingerprint or ""
        table.set_opponent_detail(N_("key %(key)s · %(path)s", key=key, path=path) if path
                                  else N_("key %(key)s", key=key))
        table.set_connection(CONNECTED)
        table.record_path = str(result.log_path)
        self.log_files.append(str(result.log_path))
        player = HumanPlayer(table, PlayerInfo(cfg.name, "human"))
        self._route_chat(me)
        self.games.append(game)
        self._hook(game)
        self.human = player
        cfg.out = io.StringIO()  # the full screen owns the terminal from now on
        trio.lowlevel.spawn_system_task(_watch_silence, self.games, table, not cfg.no_bell)
        self.ui_wanted.set()

    def _route_chat(self, me: str) -> None:
        """Chat lines the person types go to the current match's session; the rest to the table's sink."""
        table = self.table
        sink = table.intent_sink
        trio_token = trio.lowlevel.current_trio_token()

        def route(intent: Intent) -> None:
            if isinstance(intent, ChatSend):
                if self.lost is not None or self.guest is None or not self.guest.running:
                    table.show_message(CHAT_OFF, "error")
                    return
                try:  # shown once the session took it (a refused line is never shown as said)
                    trio_token.run_sync_soon(_chat, self.games[-1], intent.text, table, me)
                except trio.RunFinishedError:
                    table.show_message(CHAT_OFF, "error")
            elif sink is not None:
                sink(intent)

        table.intent_sink = route

    def _hook(self, game: MatchView) -> None:
        table = self.table
        game.on_chat = lambda who, text: table.add_chat(self.shown(who), text)
        game.on_note = lambda text: table.show_message(text, "info")
        game.on_draw_unanswered = self._draw_unanswered
        game.on_left = lambda who: table.peer_left(N_("%(name)s resigned and left the match", name=self.shown(who)))
        game.on_closed = lambda clean: _closed_after_end(table, game, clean,
                                                         self.shown(game.peer_name or tr(N_("the peer"))))

    def _draw_unanswered(self, text: str) -> None:
        """Our draw offer waited its time unanswered (protocol/wire.md §16): say so -- not "declined"."""
        if self.human is not None:
            self.human.draw_unanswered(text)
        else:
            self.table.show_message(text, "info")

    def on_rematch(self, game: MatchView, result: NetResult) -> None:
        """A rematch was agreed (protocol/wire.md §9.4): the table shows the new match and its log."""
        self.games.append(game)
        self._hook(game)
        self.table.record_path = str(result.log_path)
        self.log_files.append(str(result.log_path))
        self.table.new_match()
        self.table.show_message(N_("Rematch agreed: a new match, logged to %(path)s", path=str(result.log_path)))

    async def ask_rematch(self, peer: str, offered: bool) -> bool:
        """Whether the person wants a rematch (``offered``: the peer offered one); leaving the table is no."""
        if self.app_done or self.table.state.end_note:  # the person left the table, or the peer left the match
            return False
        # TRANSLATORS: the keys y and n stay as they are.
        question = (_("%(name)s offers a rematch. Play again? (y rematch, n leave)", name=self.shown(tr(peer)))
                    if offered else _("Offer %(name)s a rematch? (y rematch, n leave)", name=self.shown(tr(peer))))
        return await self._ask(question, no_on_leaving=True)

    async def ask_claim(self, text: str) -> bool:
        """The peer's move clock ran out: ask whether to claim the deal (protocol/wire.md §16)."""
        if self.app_done:
            return False
        return await self._ask(f"{text} (y claim, n wait)", no_on_leaving=False)

    async def _ask(self, question: str, *, no_on_leaving: bool) -> bool:
        """Ask ``question`` on the table; True for y.  A question cancelled meanwhile (the peer left, the
        move came) is closed; ``no_on_leaving``: the person leaving the table answers no."""
        answer: list[bool] = []
        answered = trio.Event()
        token = trio.lowlevel.current_trio_token()

        def reply(value: bool) -> None:  # runs on the UI side (a key) or at the app's end
            if not answer:
                answer.append(value)
                with contextlib.suppress(trio.RunFinishedError):
                    token.run_sync_soon(answered.set)

        if no_on_leaving:
            self.pending.append(reply)
        self.table.ask_question(question, lambda: reply(True), lambda: reply(False))
        try:
            await answered.wait()
        finally:
            if not answer:
                self.table.close_question()
            if no_on_leaving:
                self.pending.remove(reply)
        return answer[0]

    async def choose_trump(self, taken: int | None) -> int:
        """Our trump, chosen by the person at the table (RULES.md §2)."""
        return await self._our_player(self.cfg, 0).choose_trump(taken)

    def _our_player(self, cfg: NetConfig, seat: int) -> HumanPlayer:
        assert self.human is not None  # on_ready comes before the trumps and the deals
        return self.human

    def on_log_moved(self, old: Path, new: Path, line: str) -> None:
        """The match log's disk failed and the match moved to the temporary directory (``protocol/files.md``):
        ``line`` says so on the table's fault line, where it stays; the end screen and the closing lines
        name the log where it is now."""
        self.table.set_fault(line)
        if self.table.record_path == str(old):
            self.table.record_path = str(new)
        self.log_files = [str(new) if p == str(old) else p for p in self.log_files]

    def on_link(self, text: str) -> None:
        """A line about the connection while it is down (the reconnection's countdown)."""
        self.table.set_connection(text)
        self.table.options.waiting_text = (N_("The connection is lost: reconnecting…") if "lost" in text
                                           else N_("{name} is thinking…"))


def _undecided(result: NetResult) -> str:
    """``"undecided"`` for a match whose deals without a result (a claim disputed, deals not played) could
    change who won -- it counts as no match won (protocol/verify.md §5, ``decided``); else ``""``."""
    if result.score_halves is None or result.rules is None:
        return ""
    return "" if match_winner(result.score_halves, result.rules.deals)[0] else "undecided"


def _line(text: str, file: TextIO) -> None:
    """Print one closing line; the terminal may be gone after SIGHUP."""
    with contextlib.suppress(OSError):
        print(text, file=file, flush=True)


async def _ended(guest: TrioGuest[NetResult]) -> None:
    """Wait for the trio run to end, whatever its outcome."""
    with contextlib.suppress(BaseException):
        await guest.wait()


def _failure(guest: TrioGuest[NetResult]) -> NetplayError | None:
    """The NetplayError the finished trio run raised, if that is how it ended."""
    done = guest._done  # the bridge keeps the outcome here; read it without waiting
    if done is None or not done.done():
        return None
    result = done.result()
    error = getattr(result, "error", None)
    return error if isinstance(error, NetplayError) else None


def _closed_after_end(table: TableApp, game: MatchView, clean: bool, shown: str | None = None) -> None:
    """The peer closed the connection after the match's end: no rematch any more, so the end
    screen's Enter only leaves and says so (not "Enter rematch or leave");
    ``shown``: the peer's name as the table shows it (default: its name, cut)."""
    if not clean or table.state.mode != Mode.MATCH_END or table.options.match_end_enter == "leave":
        return
    table.options.match_end_enter = "leave"
    table.options.allow_chat = False
    name = shown or display_name(game.peer_name or tr(N_("the peer")))
    table.show_message(N_("%(name)s left: no rematch", name=name))


#: Why the chat cannot send a line.
CHAT_OFF = N_("chat is off: the connection is lost")
#: The link is up and the peer heard from (the table's connection line; the status line says nothing then).
CONNECTED = N_("connected")


async def _watch_silence(games: list[MatchView], table: TableApp, bell: bool = True) -> None:
    """Show the link and the move clock on the table: "connected", "peer silent for N s" while no byte
    (not even a heartbeat) arrives; the running move clock on the line of the seat it runs against
    (protocol/wire.md §16), and the terminal bell once when our own clock reaches its last 10 seconds
    (``bell``).  While the link is down the reconnection's countdown is shown instead, and no clock."""
    shown = ""
    clock: tuple[int, float] | None = None
    for _tick in range(10**7):  # ends with the run (system tasks are cancelled then)
        await trio.sleep(0.5)
        game = games[-1]
        link = game.link_state()
        if link.failed:
            return
        now = None if link.clock_left_s is None or link.clock_seat is None or not link.up \
            else (link.clock_seat, link.clock_left_s)
        # The bell rings once as our own clock crosses into its last 10 s (from above them).
        crossed = (now is not None and clock is not None and now[0] == clock[0] == game.seat
                   and 0 < now[1] <= CLOCK_WARN_S < clock[1])
        if bell and crossed:
            table.bell()
        if now != clock:
            table.set_clock(now)
            clock = now
        if not link.up:
            shown = ""
            continue  # the reconnection's countdown owns the line (SeatHooks.on_link)
        silent = link.silent_s
        text = N_("peer silent for %(seconds)s s", seconds=f"{silent:.0f}") if silent >= SILENT_AFTER_S else CONNECTED
        if text != shown:
            table.set_connection(text)
            shown = text


def _chat(game: MatchView, text: str, table: TableApp, me: str) -> None:
    """Send a chat line (called in the trio run) and show it in the chat panel as said by ``me``; a
    line the session refuses (protocol/wire.md §5.1, §9.7) is not shown as said: the refusal is
    (:meth:`TableApp.chat_refused`), never raised."""
    try:
        game.chat(text)
    except Exception as exc:  # LocalProtocolError / ValueError (bad text): tell the person
        table.chat_refused(str(exc))
        return
    table.add_chat(me, text)
