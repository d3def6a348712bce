"""The person's seat of a networked match in the full-screen table (``host`` / ``join`` without ``--ai``).

Source: issue 3 §3 (the same terminal UI as offline, showing the opponent's
name and fingerprint, chat, resign, draw offer, connection state, and at the
end the path of the match log).

Design: prompt_toolkit runs on asyncio; the whole networked match
(:func:`p2ptrumps.netplay.host` / :func:`~p2ptrumps.netplay.join`) runs in trio
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
from collections.abc import Callable

import trio

from .netplay import EXIT_OK, NetConfig, NetplayError, NetResult, host, join, log_paths
from .record import PlayerInfo
from .remote import NetGame
from .transport import TransportError
from .ui.app import ChatSend, HumanPlayer, Intent, QuitResult, TableApp, UIOptions, describe_score
from .ui.bridge import GuestCancelled, TrioGuest
from .ui.view import wants_color


def run_with_ui(cfg: NetConfig, args: argparse.Namespace, role: str) -> int:
    """Play our seat in the full-screen table; returns the exit status of :mod:`p2ptrumps.netplay`
    (130 when the person quit the match)."""
    return asyncio.run(_main(cfg, args, role))


async def _main(cfg: NetConfig, args: argparse.Namespace, role: str) -> int:
    table = TableApp(UIOptions(ascii_only=cfg.ascii_only, color=wants_color(), allow_undo=False,
                               allow_hint=False, allow_draw_offer=True, allow_chat=True,
                               waiting_text="{name} is thinking…"))
    ui_wanted = asyncio.Event()
    human: list[HumanPlayer] = []
    games: list[NetGame] = []  # the current match's game (a rematch replaces it)
    app_done: list[bool] = []
    log_files: list[str] = []  # each match's log, in order (a rematch adds one)
    pending: list[Callable[[bool], None]] = []

    def on_ready(game: NetGame, result: NetResult) -> None:
        me, peer = cfg.name, result.peer_name or "peer"
        seat = game.seat
        table.set_players((me, peer) if seat == 0 else (peer, me), seat)
        table.set_opponent_detail(f"key {result.peer_fingerprint}")
        table.set_connection("connected")
        table.record_path = str(result.log_path)
        log_files.append(str(result.log_path))
        player = HumanPlayer(table, PlayerInfo(me, "human"))
        sink = table.intent_sink
        trio_token = trio.lowlevel.current_trio_token()

        def route(intent: Intent) -> None:
            if isinstance(intent, ChatSend):
                trio_token.run_sync_soon(_chat, games[-1], intent.text)
                table.add_chat(me, intent.text)
            elif sink is not None:
                sink(intent)

        table.intent_sink = route
        games.append(game)
        _hook(game)
        human.append(player)
        cfg.out = io.StringIO()  # the full screen owns the terminal from now on
        ui_wanted.set()

    def _hook(game: NetGame) -> None:
        game.on_chat = table.add_chat
        game.on_note = lambda text: table.show_message(text, "info")

    def on_rematch(game: NetGame, result: NetResult) -> None:
        games.append(game)
        _hook(game)
        table.record_path = str(result.log_path)
        log_files.append(str(result.log_path))
        table.new_match()
        table.show_message(f"Rematch agreed: a new match, logged to {result.log_path}")

    async def ask_rematch(peer: str, offered: bool) -> bool:
        if app_done:
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
        question = f"{peer} offers a rematch. Play again?" if offered else f"Offer {peer} a rematch?"
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

    cfg.on_ready = on_ready
    cfg.on_rematch = on_rematch
    cfg.ask_rematch = ask_rematch
    cfg.choose_trump_fn = choose_trump
    cfg.make_player = lambda c, seat: human[0]
    cfg.headless = False

    async def trio_main() -> NetResult:
        if role == "host":
            return await host(cfg, args.bind, args.port)
        return await join(cfg, args.address)

    guest: TrioGuest[NetResult] = TrioGuest(trio_main)

    def done() -> None:
        ui_wanted.set()
        table.exit(QuitResult.FINISHED)

    guest.start(on_done=done)
    quit_result = QuitResult.FINISHED
    try:
        await ui_wanted.wait()
        if guest.running:
            quit_result = await table.application.run_async()
    finally:
        if quit_result is QuitResult.QUIT:
            guest.cancel()
        app_done.append(True)
        for reply in list(pending):  # the person left the end screen: no rematch
            reply(False)
        try:
            result = await guest.wait()
        except GuestCancelled:
            print("you left the match; the match logs are kept", file=sys.stderr)
            for path in log_files:
                print(f"match log (kept): {path}", file=sys.stderr)
            return 130
        except NetplayError as exc:
            print(f"p2ptrumps: {exc}", file=sys.stderr)
            for kept in log_paths(getattr(exc, "result", None)):
                print(f"match log (kept): {kept}", file=sys.stderr)
            return exc.status
    print(f"Score: {describe_score(table)}")
    for done_log in log_paths(result):
        print(f"match log: {done_log}")
    return EXIT_OK


def _chat(game: NetGame, text: str) -> None:
    """Send a chat line (called in the trio run); a refused or failed send is shown, not raised."""
    try:
        game.session.chat(text)
    except Exception as exc:  # LocalProtocolError / ValueError (bad text): tell the person
        if game.on_note is not None:
            game.on_note(f"chat not sent: {exc}")
        return

    async def flush() -> None:
        with contextlib.suppress(TransportError):
            await game.conn.send_pending()

    trio.lowlevel.spawn_system_task(flush)
