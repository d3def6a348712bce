"""The ``host``, ``join`` and ``id`` commands: arguments in, an exit status out.

Source: issue 3 §3.  The person's seat plays in the full-screen table
(:mod:`p2ptrumps.net.table`) unless ``--ai`` or ``--headless``; then the match runs in
plain trio and prints its progress.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TextIO

import trio

from . import keystore
from .config import EXIT_ERROR, EXIT_OK, EXIT_USAGE, NetConfig, NetplayError, NetResult, log_paths
from .dial import join, parse_address
from .lobby import host


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

    from ..ui.view import wants_ascii

    return NetConfig(
        role=role,
        identity=identity,
        name=name,
        data=data,
        rules=getattr(args, "rules", None) if role == "host" else None,
        ai=args.ai,
        think_s=args.think,
        nodes=getattr(args, "nodes", 0) or 0,
        headless=bool(args.headless),
        trump=args.trump,
        log_path=Path(args.log) if args.log else None,
        timeout_s=args.timeout,
        fingerprint=getattr(args, "fingerprint", None),
        accept_new=bool(getattr(args, "accept_new", False)),
        confirm=confirm if interactive else None,
        ascii_only=bool(args.ascii) or wants_ascii(getattr(sys.stdout, "encoding", None)),
        rematches=max(0, int(getattr(args, "rematch", 0) or 0)),
        reconnect_wait_s=float(getattr(args, "reconnect_wait", 120.0)),
    )


def _finish(cfg_out: TextIO, call: Callable[[], NetResult], cfg: NetConfig | None = None) -> int:
    try:
        result = call()
    except KeyboardInterrupt:
        # A question may have been open: end its line first, so the shell prompt starts clean.
        print("\ninterrupted" if sys.stdin.isatty() else "interrupted", file=sys.stderr)
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


def _run(args: argparse.Namespace, role: str) -> int:
    from ..ui.replay import terminal_problem

    if not args.headless and (why := terminal_problem(sys.stdin, sys.stdout)):
        command = "host" if role == "host" else "join"
        print(f"p2ptrumps {command}: the table needs a terminal: {why} (for a match without one, add "
              "--headless, with --ai LEVEL to let the AI play)", file=sys.stderr)
        return EXIT_USAGE
    try:
        cfg = _config(args, role)
    except NetplayError as exc:
        print(f"p2ptrumps: {exc}", file=sys.stderr)
        return exc.status
    except keystore.KeyStoreError as exc:
        print(f"p2ptrumps: {exc}", file=sys.stderr)
        return EXIT_ERROR
    if not cfg.headless and cfg.ai is None:
        from .table import run_with_ui

        status: int = run_with_ui(cfg, args, role)
        return status
    if role == "host":
        return _finish(cfg.out, lambda: trio.run(until_signalled, cfg, lambda: host(cfg, args.bind, args.port)), cfg)
    return _finish(cfg.out, lambda: trio.run(until_signalled, cfg, lambda: join(cfg, args.address)), cfg)


async def until_signalled(cfg: NetConfig, main: Callable[[], Awaitable[NetResult]]) -> NetResult:
    """Run ``main()``; SIGTERM or SIGHUP (``kill``, a closed terminal) leave the match as ``q``
    does: ``leave`` is sent (protocol/wire.md §15), the closing signatures awaited
    (``cfg.leave_wait_s``), and the run ends (status 130); a run with no match yet ends at once.

    Raises whatever ``main`` raises; :class:`KeyboardInterrupt` when a signal ended a run that
    had no match to leave."""
    cfg.leave_requested = trio.Event()
    got: list[NetResult] = []
    signalled: list[int] = []
    async with trio.open_nursery() as nursery:

        async def run() -> None:
            got.append(await main())
            nursery.cancel_scope.cancel()

        async def watch() -> None:
            with trio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP) as signals:
                async for signum in signals:
                    signalled.append(signum)
                    assert cfg.leave_requested is not None
                    cfg.leave_requested.set()
                    await trio.sleep(cfg.leave_wait_s + 2.0)  # the leaving match ends by itself before
                    nursery.cancel_scope.cancel()
                    return

        nursery.start_soon(watch)
        nursery.start_soon(run)
    if not got:
        raise KeyboardInterrupt(f"signal {signalled[0] if signalled else '?'}")
    return got[0]


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
