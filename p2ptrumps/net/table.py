"""The person's seat of a networked match in the full-screen table (``host`` / ``join`` without ``--ai``).

Source: issue 3 §3 (the same terminal UI as offline, showing the opponent's
name and fingerprint, chat, resign, draw offer, connection state, and at the
end the path of the match log).

Design: prompt_toolkit runs on asyncio; the whole networked match
(:func:`p2ptrumps.net.lobby.host` / :func:`~p2ptrumps.net.dial.join`) runs in trio
as a guest on the same loop (:class:`p2ptrumps.ui.bridge.TrioGuest`).  The
full-screen table starts only once the peer's key and the rules are accepted
(``NetConfig.on_ready``): until then plain line prompts (the host-key question)
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
from typing import TextIO

import trio
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from ..command import say
from ..match import DealEnded, Event
from ..record import PlayerInfo
from ..ui.app import ChatSend, HumanPlayer, Intent, QuitResult, TableApp, UIOptions, describe_score
from ..ui.bridge import GuestCancelled, TrioGuest
from ..ui.terminal import Termination
from ..ui.view import cut_to_width, wants_color
from .config import EXIT_LEFT, EXIT_OK, NetConfig, NetplayError, NetResult, log_paths
from .dial import join
from .lobby import host
from .remote import NetGame, clock_text
from .transport import TransportError

#: Peer names are cut to this many terminal columns on the table (a long full-width name
#: would push the opponent's trump and card count off their row).
MAX_NAME_COLUMNS = 20
#: Seconds without a byte from the peer (heartbeats come every few seconds) before the table says so.
SILENT_AFTER_S = 8.0


def display_name(name: str, columns: int = MAX_NAME_COLUMNS) -> str:
    """``name`` cut to ``columns`` terminal columns (wide characters count 2), with ``…`` if cut."""
    return cut_to_width(name, columns)


def run_with_ui(cfg: NetConfig, args: argparse.Namespace, role: str,
                main: Callable[[], Awaitable[NetResult]] | None = None) -> int:
    """Play our seat in the full-screen table; returns the exit status of :mod:`p2ptrumps.net.config`
    (130 when the person quit the match, or SIGTERM / SIGHUP ended it).  ``main``: the trio side to
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
        the exit status of :mod:`p2ptrumps.net.config` (0 the match was played; 130 the person quit,
        or SIGTERM / SIGHUP ended the run).

    SIGTERM and SIGHUP (``kill``, a closed terminal window) end the run as ``q`` then ``y`` does
    (:class:`~p2ptrumps.ui.terminal.Termination`): at the table the match is left with a signed
    ``leave`` (protocol/wire.md §15) and the terminal restored; before the table (waiting for a
    guest, at a question) the run stops at once.  The signal is named on stderr.
    """
    name = command or ("host" if role == "host" else "join")
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    table = TableApp(UIOptions(ascii_only=cfg.ascii_only, color=wants_color(), allow_undo=False,
                               allow_hint=False, allow_draw_offer=True, allow_chat=True,
                               waiting_text="{name} is thinking…",
                               quit_question="Leave? You resign the rest of the match (signed); its log is kept.",
                               match_end_enter="rematch or leave"),
                      input=input, output=output)
    table.record_label = "Match log saved"
    if on_table is not None:
        on_table(table)
    ui_wanted = asyncio.Event()
    human: list[HumanPlayer] = []
    games: list[NetGame] = []  # the current match's game (a rematch replaces it)
    app_done: list[bool] = []
    log_files: list[str] = []  # each match's log, in order (a rematch adds one)
    pending: list[Callable[[bool], None]] = []

    def on_ready(game: NetGame, result: NetResult) -> None:
        me, peer = display_name(cfg.name), display_name(result.peer_name or "peer")
        seat = game.seat
        table.set_players((me, peer) if seat == 0 else (peer, me), seat)
        table.set_opponent_detail(f"key {result.peer_fingerprint}")
        table.set_connection(_connected(cfg))
        table.record_path = str(result.log_path)
        log_files.append(str(result.log_path))
        player = _NetHuman(table, PlayerInfo(cfg.name, "human"), game)
        sink = table.intent_sink
        trio_token = trio.lowlevel.current_trio_token()

        def route(intent: Intent) -> None:
            if isinstance(intent, ChatSend):
                if lost or not guest.running:
                    table.show_message("chat is off: the connection is lost", "error")
                    return
                try:  # shown once the session took it (a refused line is never shown as said)
                    trio_token.run_sync_soon(_chat, games[-1], intent.text, table, me)
                except trio.RunFinishedError:
                    table.show_message("chat is off: the connection is lost", "error")
            elif sink is not None:
                sink(intent)

        table.intent_sink = route
        games.append(game)
        _hook(game)
        human.append(player)
        cfg.out = io.StringIO()  # the full screen owns the terminal from now on
        trio.lowlevel.spawn_system_task(_watch_silence, games, table, cfg)
        ui_wanted.set()

    def _hook(game: NetGame) -> None:
        game.on_chat = lambda who, text: table.add_chat(display_name(who), text)
        game.on_note = lambda text: table.show_message(text, "info")
        game.on_left = lambda who: table.peer_left(f"{display_name(who)} resigned and left the match")

    def on_rematch(game: NetGame, result: NetResult) -> None:
        games.append(game)
        _hook(game)
        table.record_path = str(result.log_path)
        log_files.append(str(result.log_path))
        table.new_match()
        table.show_message(f"Rematch agreed: a new match, logged to {result.log_path}")

    async def ask_rematch(peer: str, offered: bool) -> bool:
        if app_done or table.state.end_note:  # the person left the table, or the peer left the match
            return False
        answer: list[bool] = []
        answered = trio.Event()
        token = trio.lowlevel.current_trio_token()

        def reply(value: bool) -> None:  # runs on the UI side (a key) or at the app's end
            if not answer:
                answer.append(value)
                with contextlib.suppress(trio.RunFinishedError):
                    token.run_sync_soon(answered.set)

        pending.append(reply)
        question = (f"{display_name(peer)} offers a rematch. Play again? (y rematch, n leave)" if offered
                    else f"Offer {display_name(peer)} a rematch? (y rematch, n leave)")
        table.ask_question(question, lambda: reply(True), lambda: reply(False))
        try:
            await answered.wait()
        finally:
            if not answer:
                table.close_question()  # cancelled: e.g. the peer left meanwhile
            pending.remove(reply)
        return answer[0]

    async def choose_trump(taken: int | None) -> int:
        return await human[0].choose_trump(taken)

    async def ask_claim(text: str) -> bool:
        """The peer's move clock ran out: ask whether to claim the deal (protocol/wire.md §16)."""
        if app_done:
            return False
        answer: list[bool] = []
        answered = trio.Event()
        token = trio.lowlevel.current_trio_token()

        def reply(value: bool) -> None:  # runs on the UI side (a key)
            if not answer:
                answer.append(value)
                with contextlib.suppress(trio.RunFinishedError):
                    token.run_sync_soon(answered.set)

        table.ask_question(f"{text} (y claim, n wait)", lambda: reply(True), lambda: reply(False))
        try:
            await answered.wait()
        finally:
            if not answer:
                table.close_question()  # cancelled: the move came meanwhile
        return answer[0]

    cfg.on_ready = on_ready
    cfg.on_rematch = on_rematch
    cfg.ask_rematch = ask_rematch
    cfg.choose_trump_fn = choose_trump
    cfg.ask_claim = ask_claim
    cfg.make_player = lambda c, seat: human[0]
    cfg.headless = False

    def on_link(text: str) -> None:
        table.set_connection(text)
        table.options.waiting_text = "The connection is lost: reconnecting…" if "lost" in text \
            else "{name} is thinking…"

    cfg.on_link = on_link

    async def trio_main() -> NetResult:
        cfg.leave_requested = trio.Event()
        if main is not None:
            return await main()
        if role == "host":
            return await host(cfg, bind, port)
        return await join(cfg, address)

    guest: TrioGuest[NetResult] = TrioGuest(trio_main)
    lost: list[NetplayError] = []

    def done() -> None:
        ui_wanted.set()
        failure = _failure(guest)
        if failure is not None and human and not app_done:
            # The connection was lost mid-match: say why on the table, leave when the person says so.
            lost.append(failure)
            kept = ", ".join(str(p) for p in log_paths(getattr(failure, "result", None)))
            table.set_connection("disconnected")
            table.options.allow_chat = False  # nobody to talk to, offer a draw or a rematch any more
            table.options.allow_draw_offer = False
            table.close_question()
            table.options.waiting_text = "The connection is lost: the match stops here."
            table.show_message(f"Connection lost: {failure}. Match log kept: {kept or 'none'}. "
                               "Press q to leave.", "error")
            return
        table.exit(QuitResult.FINISHED)

    def on_signal() -> None:  # SIGTERM / SIGHUP: as q then y at the table, or stop before it
        ui_wanted.set()
        table.exit(QuitResult.QUIT)

    def tell(text: str, file: TextIO) -> None:  # the terminal may be gone after SIGHUP
        with contextlib.suppress(OSError):
            print(text, file=file, flush=True)

    guest.start(on_done=done)
    quit_result = QuitResult.FINISHED
    terminal_lost: list[OSError] = []  # the table's terminal failed under it (it was closed)
    with Termination(on_signal) as term:
        try:
            try:
                await ui_wanted.wait()
            except asyncio.CancelledError:
                # Ctrl-C (asyncio.run cancels the main task) while waiting for a guest or at a question
                # before the table: stop the match now, on a fresh line; the exit status is 130.
                tell("", err)
                quit_result = QuitResult.QUIT
            if term.signal is not None:
                quit_result = QuitResult.QUIT
                if not human and sys.stdin.isatty():
                    tell("", err)  # a question may be open on the line (the host's key, the rules)
            if quit_result is not QuitResult.QUIT and (guest.running or lost):
                try:
                    # A signal between the wait and the start: the table leaves as soon as it runs.
                    quit_result = await table.application.run_async(
                        pre_run=lambda: on_signal() if term.signal is not None else None)
                except OSError as exc:
                    # The terminal went away (a closed window: EIO, often before SIGHUP arrives): nobody
                    # can play on here, so leave the match as q does -- never stay on, holding the seat.
                    quit_result = QuitResult.QUIT
                    if term.signal is None:
                        terminal_lost.append(exc)
        finally:
            if quit_result is QuitResult.QUIT:
                if human and guest.running:
                    # Leave: resign the rest of the match with a signed message, wait briefly for the
                    # closing signatures (protocol/wire.md §15); cancel only if that does not end it.
                    guest.run_sync_soon(
                        lambda: cfg.leave_requested.set() if cfg.leave_requested is not None else None)
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(asyncio.shield(_ended(guest)), cfg.leave_wait_s + 3.0)
                guest.cancel()
            app_done.append(True)
            for reply in list(pending):  # the person left the end screen: no rematch
                reply(False)
            cause = (f"stopped by {term.name}: " if term.signal is not None else
                     f"the terminal was lost ({terminal_lost[0].strerror or terminal_lost[0]}): " if terminal_lost
                     else "")
            try:
                result = await guest.wait()
            except GuestCancelled:
                kept = [p for p in log_files if p and p != "None"]
                what = f"{cause}you left the match" if human else (
                    f"stopped by {term.name} before the match began" if cause else "stopped before the match began")
                if kept:
                    what += "; its log is kept" if len(kept) == 1 else f"; its {len(kept)} logs are kept"
                say(name, what, err)
                for path in kept:
                    tell(f"match log (kept): {path}", err)
                return EXIT_LEFT
            except NetplayError as exc:
                say(name, f"{cause}{exc}", err)
                for kept_path in log_paths(getattr(exc, "result", None)):
                    tell(f"match log (kept): {kept_path}", err)
                return exc.status
    if term.signal is not None:
        say(name, f"stopped by {term.name}", err)
    if table.state.end_note:
        tell(table.state.end_note, out)
    tell(f"Score: {describe_score(table)}", out)
    for done_log in log_paths(result):
        tell(f"match log: {done_log}", out)
    return EXIT_OK


class _NetHuman(HumanPlayer):
    """The person's :class:`~p2ptrumps.ui.app.HumanPlayer` in a networked match: a resumed match
    (protocol/wire.md §14.4) replays the deals its chain holds; the end of a deal that was over before
    the restart, with the next deal dealt already, is not shown as an end screen waiting for Enter
    (the table goes on to the deal in play, and to whose turn it is)."""

    def __init__(self, table: TableApp, info: PlayerInfo, game: NetGame) -> None:
        super().__init__(table, info)
        self._game = game

    async def observe(self, event: Event) -> None:
        if isinstance(event, DealEnded) and event.number in self._game.restored_ends and any(
                deal > event.number for deal in self._game.restored_moves):
            self._table.show_event(event)  # the score; the next deal's DealStarted follows at once
            return
        await super().observe(event)


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


def _connected(cfg: NetConfig) -> str:
    """The link's word on the table: "connected", or "through relay HOST" (a match met by code whose bytes a
    transit relay carries, protocol/rendezvous.md §4; the port left out, the line is short)."""
    if not cfg.path.startswith("through relay "):
        return "connected"
    where = cfg.path.removeprefix("through relay ")
    host, _, port = where.rpartition(":")
    return f"through relay {host if host and port.isdigit() else where}"


async def _watch_silence(games: list[NetGame], table: TableApp, cfg: NetConfig) -> None:
    """Show the link and the move clock on the table: "connected · Bob 0:42" (the seat to move and
    its time left, protocol/wire.md §16), "peer silent for N s" while no byte (not even a
    heartbeat) arrives.  While the link is down the reconnection's countdown is shown instead."""
    shown = ""
    for _ in range(10**7):  # ends with the run (system tasks are cancelled then)
        await trio.sleep(0.5)
        game = games[-1]
        conn = game.conn
        if conn.error is not None:
            return
        if not conn.link_up:
            shown = ""
            continue  # the reconnection's countdown owns the line (NetConfig.on_link)
        silent = conn.silent_s
        text = f"peer silent for {silent:.0f} s" if silent >= SILENT_AFTER_S else _connected(cfg)
        left = game.clock.remaining_s()
        if left is not None and game.clock.seat is not None:
            who = "you" if game.clock.seat == game.seat else display_name(game.session.peer_name or "peer", 10)
            text += f" · {who} {clock_text(left)}"
        if text != shown:
            table.set_connection(text)
            shown = text


def _chat(game: NetGame, text: str, table: TableApp, me: str) -> None:
    """Send a chat line (called in the trio run) and show it in the chat panel as said by ``me``; a
    line the session refuses (protocol/wire.md §5.1, §9.7) is not shown as said: the refusal is
    (:meth:`TableApp.chat_refused`), never raised."""
    try:
        game.session.chat(text)
    except Exception as exc:  # LocalProtocolError / ValueError (bad text): tell the person
        table.chat_refused(str(exc))
        return
    table.add_chat(me, text)

    async def flush() -> None:
        with contextlib.suppress(TransportError):
            await game.conn.send_pending()

    trio.lowlevel.spawn_system_task(flush)
