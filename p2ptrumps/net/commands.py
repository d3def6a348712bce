"""The ``host``, ``join`` and ``id`` commands: arguments in, an exit status out.

Source: README.md "Playing over the network".  The person's seat plays in the full-screen table
(:mod:`p2ptrumps.net.table`) unless ``--ai`` or ``--headless``; then the match runs in
plain trio and prints its progress (``--headless``) or each match's score at the end.
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

from .. import i18n
from ..command import say
from ..i18n import _, tr
from ..message import N_, message_of
from ..system import signals as system_signals
from ..text import halves_text, quoted
from . import blocked, config, keystore, resumefile
from .admission import TicketError, new_ticket, split_ticket
from .config import EXIT_ERROR, EXIT_LEFT, EXIT_OK, EXIT_USAGE, NetConfig, NetplayError, NetResult, SeatHooks, log_paths
from .dial import join, parse_address
from .lobby import host
from .logfile import check_place
from .prompts import read_line
from .race import first_of, single_errors


def _config(args: argparse.Namespace, role: str) -> NetConfig:
    data = keystore.data_dir()
    keystore.check_ready(data)  # before a guest is admitted: pins and logs can be written there
    blocked.BlockedPeers.open(data)  # a damaged block list stops here, not after a blocked key was let in
    identity, created = keystore.load_or_create_key(data)
    if created:
        print(_("created your identity key in %(path)s", path=data / keystore.KEY_FILE), file=sys.stderr)
    interactive = sys.stdin.isatty()
    try:
        if args.name:
            name = keystore.clean_name(args.name)
        else:
            name, note = keystore.first_name(data, read_line if interactive else None)
            if note:
                say(args, tr(note))
    except ValueError as exc:
        raise NetplayError(EXIT_USAGE, message_of(exc)) from None

    def confirm(question: str) -> bool:
        answer = read_line(question)
        return answer is not None and answer.strip().lower() in ("y", "yes")

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
        hooks=SeatHooks(confirm=confirm if interactive else None),
        ascii_only=bool(args.ascii),  # settled by the command line (--ascii / --unicode / the terminal)
        no_bell=bool(getattr(args, "no_bell", False)),
        rematches=max(0, int(getattr(args, "rematch", 0) or 0)),
        reconnect_wait_s=float(getattr(args, "reconnect_wait", 120.0)),
        move_time=int(getattr(args, "move_time", 0) or 0) if role == "host" else 0,
        max_deals=int(getattr(args, "max_deals", None) or config.MAX_DEALS),
        max_turn_limit=int(getattr(args, "max_turn_limit", None) or config.MAX_TURN_LIMIT),
        ticket=_host_ticket(args) if role == "host" else None,
        ipv4_prefix=int(getattr(args, "ipv4_prefix", 32) or 32),
        port_map=role == "host" and not getattr(args, "no_map", False),
    )


def _host_ticket(args: argparse.Namespace) -> bytes | None:
    """The host's join ticket (protocol/wire.md §7.3): ``--ticket``, none with ``--open`` or (by default)
    for an AI that anyone may play, else a new one."""
    if getattr(args, "ticket", None) is not None:
        return bytes(args.ticket)
    if getattr(args, "open", False) or args.ai:
        return None
    return new_ticket()


def _finish(args: argparse.Namespace, cfg_out: TextIO, call: Callable[[], NetResult],
            cfg: NetConfig | None = None) -> int:
    """Run ``call`` (a headless match) and report its end in the command's voice
    (``p2ptrumps host: ...``); returns the exit status."""
    try:
        result = call()
    except KeyboardInterrupt as exc:
        # A question may have been open: end its line first, so the shell prompt starts clean.
        if sys.stdin.isatty():
            _tell("", sys.stderr)
        why = str(exc)
        say(args, _("stopped by %(signal)s", signal=why) if why.startswith("SIG") else _("interrupted"))
        for path in sorted(_logs_since(cfg)):
            _tell(_("match log (kept): %(path)s", path=path), sys.stderr)
        sig = getattr(signal.Signals, why, None) if why.startswith("SIG") else None
        return system_signals.exit_status(sig) if sig is not None else EXIT_LEFT  # 128 + n, as `play` exits
    except NetplayError as exc:
        say(args, tr(exc))
        res: NetResult | None = getattr(exc, "result", None)
        for line in resumefile.kept_lines(log_paths(res)):
            _tell(tr(line), sys.stderr)
        return exc.status
    except keystore.KeyStoreError as exc:
        say(args, tr(exc))
        return EXIT_ERROR
    if not args.headless and cfg is not None:  # --ai at a terminal prints no progress: at least each score
        for done in (result, *result.rematches):
            if done.score_halves is not None:
                names = (cfg.name, done.peer_name or "peer")
                if done.seat == 1:
                    names = names[::-1]
                x, y = done.score_halves
                _tell(_("match over: %(first)s %(first_score)s, %(second)s %(second_score)s", first=names[0],
                        first_score=halves_text(x, True), second=names[1], second_score=halves_text(y, True)), cfg_out)
    for path in log_paths(result):
        _tell(_("match log: %(path)s", path=path), cfg_out)
    return EXIT_OK


def _tell(text: str, file: TextIO) -> None:
    """Print a line that is not an error (a log path); a terminal gone after SIGHUP is not an error."""
    with contextlib.suppress(OSError):
        print(text, file=file, flush=True)


def _logs_since(cfg: NetConfig | None) -> list[Path]:
    """Log files this run wrote (``--log PATH`` and its rematch logs, or new files in the data
    directory's logs since the run started): what an interrupted run tells the user it kept."""
    if cfg is None:
        return []
    if cfg.log_path is not None:
        p = cfg.log_path
        return [x for x in [p, *p.parent.glob(f"{p.stem}-rematch*{p.suffix}")] if x.exists()]
    logs = cfg.data / "logs"
    started = cfg.report.started_at
    with contextlib.suppress(OSError):
        return [x for x in logs.glob("*.p2plog") if x.stat().st_mtime >= started]
    return []


def _local_tls_fault() -> str | None:
    """Why this machine's own TLS library cannot make the encrypted connection (a local policy), said
    before anything is written or dialled (:mod:`.tlscheck`); None when it can."""
    from .tlscheck import local_tls_problem

    return local_tls_problem()


def _run(args: argparse.Namespace, role: str) -> int:
    from ..ui.terminal import terminal_problem
    from .addresses import unresolved_bind

    if role == "host" and (fault := unresolved_bind(getattr(args, "bind", None))):
        say(args, tr(fault))  # an option's fault first, before the terminal's or the key's (nothing written)
        return EXIT_USAGE
    if not args.headless and (why := terminal_problem(sys.stdin, sys.stdout)):
        say(args, _("the table needs a terminal: %(why)s (for a match without one, add %(headless)s, with %(ai)s "
                    "to let the AI play)", why=why, headless="--headless", ai="--ai LEVEL"))
        return EXIT_USAGE
    if (fault := _local_tls_fault()) is not None:
        say(args, tr(fault))
        return EXIT_ERROR
    try:
        cfg = _config(args, role)
    except NetplayError as exc:
        say(args, tr(exc))
        return exc.status
    except keystore.KeyStoreError as exc:
        say(args, tr(exc))
        return EXIT_ERROR
    by_code = _meet_by_code(args, cfg, role)
    if not cfg.headless and cfg.ai is None:
        from .table import run_with_ui

        status: int = run_with_ui(cfg, args, role, main=by_code)
        return status
    if by_code is not None:
        return _finish(args, cfg.out, lambda: trio.run(until_signalled, cfg, by_code), cfg)
    if role == "host":
        return _finish(args, cfg.out, lambda: trio.run(until_signalled, cfg, lambda: host(cfg, args.bind, args.port)),
                       cfg)
    return _finish(args, cfg.out, lambda: trio.run(until_signalled, cfg, lambda: join(cfg, args.address)), cfg)


def _meet_by_code(args: argparse.Namespace, cfg: NetConfig,
                  role: str) -> Callable[[], Awaitable[NetResult]] | None:
    """``host --code`` / ``join CODE`` (protocol/rendezvous.md): the trio main that meets by code, or
    None for a match by address."""
    from . import meet

    rendezvous = getattr(args, "rendezvous", None) or meet.DEFAULT_MAILBOX_URL
    if role == "host" and getattr(args, "code", False):
        relay = getattr(args, "relay", None) or meet.DEFAULT_RELAY_URL
        return lambda: meet.host_by_code(cfg, args.bind, args.port, rendezvous=rendezvous,
                                         relay_url=None if relay == "none" else relay,
                                         direct=not getattr(args, "no_direct", False))
    if role == "guest" and meet.is_code(args.address):
        return lambda: meet.join_by_code(cfg, args.address, rendezvous=rendezvous)
    return None


#: Signals that leave a headless match as ``q`` does at the table: Ctrl-C, ``kill``, a closed terminal
#: (SIGHUP; on Windows a closed console window, SIGBREAK: :mod:`p2ptrumps.system.signals`).
LEAVING_SIGNALS: tuple[signal.Signals, ...] = system_signals.LEAVING_SIGNALS


async def until_signalled(cfg: NetConfig, main: Callable[[], Awaitable[NetResult]]) -> NetResult:
    """Run ``main()``; SIGINT, SIGTERM or SIGHUP (Ctrl-C, ``kill``, a closed terminal) leave the match
    as ``q`` does: ``leave`` is sent (protocol/wire.md §15), the closing signatures awaited
    (``cfg.leave_wait_s``), and the run ends (status 128 + the signal's number: 130 SIGINT, 143
    SIGTERM, 129 SIGHUP); a run with no match yet ends at once; a second signal ends it at once.

    Raises whatever ``main`` raises (a :class:`NetplayError` it raised after a signal says first
    ``stopped by SIGTERM: ``); :class:`KeyboardInterrupt` with the signal's name (``"SIGTERM"``)
    when a signal ended a run that had no match to leave."""
    cfg.hooks.leave_requested = trio.Event()
    got: list[NetResult] = []
    signalled: list[int] = []
    try:
        with single_errors():
            await _run_watched(cfg, main, got, signalled)
    except NetplayError as exc:
        if signalled:
            exc.args = (N_("stopped by %(signal)s: %(fault)s", signal=signal.Signals(signalled[0]).name,
                           fault=message_of(exc)),)
            exc.status = system_signals.exit_status(signalled[0])  # 128 + n (143 SIGTERM), as `play` exits
        raise
    if not got:
        raise KeyboardInterrupt(signal.Signals(signalled[0]).name if signalled else "")
    return got[0]


async def _run_watched(cfg: NetConfig, main: Callable[[], Awaitable[NetResult]], got: list[NetResult],
                       signalled: list[int]) -> None:

    async def watch() -> None:
        with trio.open_signal_receiver(*LEAVING_SIGNALS) as signals:
            async for signum in signals:
                signalled.append(signum)
                if not _logs_since(cfg):  # no match begun (its log is made when the rules are agreed)
                    return
                assert cfg.hooks.leave_requested is not None
                cfg.hooks.leave_requested.set()
                with trio.move_on_after(cfg.leave_wait_s + 2.0):  # the leaving match ends by itself before
                    async for _ in signals:  # a second signal (Ctrl-C again): stop now, without waiting
                        return
                return

    index, result = await first_of(main, watch)
    if index == 0:
        got.append(result)


def run_host(args: argparse.Namespace) -> int:
    """``p2ptrumps host``: listen, print the address and fingerprint, play one match.
    Returns the exit status (see the module docstring)."""
    return _run(args, "host")


def run_join(args: argparse.Namespace) -> int:
    """``p2ptrumps join HOST:PORT[/TICKET]``: connect, check the host's key, play one match.
    Returns the exit status (see the module docstring)."""
    from .meet import is_code

    try:
        if not is_code(args.address):
            parse_address(split_ticket(args.address)[0])
    except TicketError as exc:
        say(args, tr(exc))
        return EXIT_USAGE
    except NetplayError as exc:
        say(args, tr(exc))
        return exc.status
    return _run(args, "guest")


def run_resume(args: argparse.Namespace) -> int:
    """``p2ptrumps resume [LOG]``: take up an unfinished networked match after this side's process
    died (protocol/wire.md §14.4).  Without LOG: the newest unfinished match log that has a resume
    file, after asking.  Returns the exit status of :mod:`p2ptrumps.net.config` (2: no LOG and no
    terminal to ask, or no terminal for the table; 1: nothing to resume, or the log cannot be --
    said first, whatever stdin is)."""
    from . import resume

    no_table = ""  # why the table cannot run here: said once we know there is something to resume
    if not args.headless and args.ai is None:
        from ..ui.terminal import terminal_problem

        no_table = terminal_problem(sys.stdin, sys.stdout) or ""
    try:
        data = keystore.data_dir()
        keystore.check_ready(data)
        identity, created = keystore.load_or_create_key(data)
    except keystore.KeyStoreError as exc:
        say(args, tr(exc))
        return EXIT_ERROR
    if created:
        say(args, _("there was no identity key in %(path)s, so no match of yours to resume (a new key was made); "
                    "set %(variable)s to the data directory of the match", path=data, variable="XDG_DATA_HOME"))
        return EXIT_ERROR
    path = Path(args.log) if args.log else None
    if path is None:
        candidates = [(p, d) for p in resume.resumable_logs(data) if (d := resume.describe(p)) is not None]
        if not candidates:
            say(args, _("no unfinished match to resume in %(path)s", path=data / "logs"))
            return EXIT_ERROR
        newest, about = candidates[0]
        if not sys.stdin.isatty():
            say(args, _("no LOG given and no terminal to ask; the newest unfinished match is %(path)s", path=newest))
            return EXIT_USAGE
        try:
            # TRANSLATORS: the answers typed stay y and N (y or yes resumes).
            answer = input(_("resume %(match)s\n  log %(path)s\nresume it? [y/N] ", match=tr(about), path=newest))
        except EOFError:
            answer = ""
        except KeyboardInterrupt:  # Ctrl-C at the question: end its line, so the shell's prompt starts clean
            _tell("", sys.stderr)
            say(args, _("interrupted"))
            return EXIT_LEFT
        if answer.strip().lower() not in ("y", "yes"):
            return EXIT_ERROR
        path = newest
    if (fault := _local_tls_fault()) is not None:
        say(args, tr(fault))
        return EXIT_ERROR
    if no_table:
        try:
            resume_file = resume.check_resumable(path)[1]
            resume.check_not_running(data, path, resume_file)
        except NetplayError as exc:
            say(args, tr(exc))
            return exc.status
        say(args, _("the table needs a terminal: %(why)s (add %(headless)s, with %(ai)s to let the AI play)",
                    why=no_table, headless="--headless", ai="--ai LEVEL"))
        return EXIT_USAGE
    cfg = NetConfig(role="host", identity=identity, name="-", data=data, ai=args.ai, think_s=args.think,
                    headless=bool(args.headless), timeout_s=args.timeout,
                    ascii_only=bool(args.ascii),
                    rematches=max(0, int(args.rematch or 0)), reconnect_wait_s=float(args.reconnect_wait),
                    port_map=not getattr(args, "no_map", False))
    try:
        check_place(path.parent)  # room for the frames still to come, before the peer is reached
        restored = resume.load(cfg, path)
    except NetplayError as exc:
        say(args, tr(exc))
        return exc.status
    cfg.role = restored.resume.role
    cfg.name = restored.session.name
    cfg.rules = restored.session.rules
    cfg.move_time = restored.session.move_time
    cfg.log_path = None  # rematches after the resumed match get default names
    if not cfg.headless and cfg.ai is None:
        from .table import run_with_ui

        status: int = run_with_ui(cfg, args, cfg.role, main=lambda: resume.resume_match(cfg, restored))
        return status
    return _finish(args, cfg.out,
                   lambda: trio.run(until_signalled, cfg, lambda: resume.resume_match(cfg, restored)), cfg)


def _save_language(args: argparse.Namespace, data: Path) -> str:
    """``id --lang CODE``: save the language every command speaks (protocol/files.md, ``language``;
    ``auto`` forgets the choice); returns the line that says so, ``""`` without ``--lang``.
    Raises ValueError for a language without a catalog (nothing is saved), OSError."""
    wanted = getattr(args, "save_lang", None)
    if wanted is None:
        return ""
    if wanted == i18n.AUTO:
        i18n.save_language(None, data)
        return _("the language follows the environment again (LANGUAGE, LC_ALL, LC_MESSAGES, LANG)")
    code = i18n.code_of(wanted)
    if code is None:
        raise ValueError(_("--lang: no catalog for %(lang)s (one of %(codes)s, or auto); nothing saved",
                           lang=repr(wanted), codes=", ".join(i18n.available())))
    i18n.save_language(code, data)
    return _("every command now speaks %(language)s (p2ptrumps id --lang auto follows the environment again)",
             language=i18n.LANGUAGES.get(code, code))


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
                say(args, _("no known peer has the fingerprint, name or address %(what)s", what=repr(forget)))
                return EXIT_ERROR
            for p in gone:
                print(_("forgot %(name)s at %(address)s (%(fingerprint)s), pinned %(when)s", name=quoted(p.name),
                        address=p.address, fingerprint=p.fingerprint, when=p.first_seen))
            return EXIT_OK
        identity, created = keystore.load_or_create_key(data)
        name = keystore.save_name(args.name, data) if args.name else keystore.load_name(data)
        saved = _save_language(args, data)
    except (keystore.KeyStoreError, ValueError, OSError) as exc:
        say(args, tr(exc))
        return EXIT_ERROR
    if created:
        print(_("created a new identity key: %(path)s", path=data / keystore.KEY_FILE))
    if saved:
        print(saved)
    rows = [(_("name:"), name), (_("fingerprint:"), identity.fingerprint)]
    code = i18n.current()
    if code != i18n.SOURCE or i18n.saved_language(data):  # English by default says nothing more
        rows.append((_("language:"), f"{i18n.LANGUAGES.get(code, code)} ({code})"))
    width = max(i18n.columns(label) for label, _value in rows) + 1
    for label, value in rows:
        print(label + " " * (width - i18n.columns(label)) + value)
    return EXIT_OK


def run_block(args: argparse.Namespace) -> int:
    """``p2ptrumps block NAME_OR_FP``: refuse a key for good (protocol/files.md, "blocked_peers.json"):
    a fingerprint as typed, or the one pinned key of that name or address.  Prints one line; returns 0,
    or 1 with the line saying what to type instead (a name of several keys, or of none) or why the
    peers files cannot be read or written."""
    return _peers_change(args, blocked.block)


def run_unblock(args: argparse.Namespace) -> int:
    """``p2ptrumps unblock NAME_OR_FP``: take back the blocks of that fingerprint or name.  Prints one
    line; returns 0, or 1 when none matched or the file cannot be read or written."""
    return _peers_change(args, blocked.unblock)


def _peers_change(args: argparse.Namespace, change: Callable[[Path, str], str]) -> int:
    try:
        print(tr(change(keystore.data_dir(), args.key)))
    except (blocked.BlockError, keystore.KeyStoreError) as exc:
        say(args, tr(exc))
        return EXIT_ERROR
    return EXIT_OK
