"""The ``p2ptrumps`` command line: parses arguments and hands them to the command's module.

Each subcommand's work lives in the module named in :data:`COMMANDS`
(``"module:function"``, called with the parsed ``argparse.Namespace`` and
returning the exit status); modules are imported only when their command runs,
so ``--help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import math
import os
import re
import sys
from collections.abc import Sequence

from . import __version__
from .cards import CardParseError, parse_suit
from .rules import RuleSet, RuleSetError

COMMANDS = {
    "play": "p2ptrumps.ui.play:run",
    "replay": "p2ptrumps.replay_cli:run",
    "arena": "p2ptrumps.arena:run",
    "host": "p2ptrumps.net.commands:run_host",
    "join": "p2ptrumps.net.commands:run_join",
    "verify": "p2ptrumps.verify_cli:run",
    "solve": "p2ptrumps.solve_cli:run",
    "analyse": "p2ptrumps.analyse_cli:run",
    "id": "p2ptrumps.net.commands:run_id",
}

AI_LEVELS = ("random", "greedy", "normal", "strong")


def suit_arg(text: str) -> int:
    """argparse type: a suit (``H``, ``♥``, ``hearts``) -> 0..3."""
    try:
        return parse_suit(text)
    except CardParseError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive number of seconds")
    return value


def nonnegative_float(text: str) -> float:
    """argparse type: a number of seconds, 0 or more (finite)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} must be 0 or a positive number of seconds")
    return value


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def nodes_arg(text: str) -> int:
    """argparse type: a node budget per move, a whole number of at least 1000 (``200000`` or ``200k``, ``2m``)."""
    raw = text.strip().lower()
    scale = {"k": 1000, "m": 1_000_000}.get(raw[-1:], 1)
    digits = raw[:-1] if scale != 1 else raw
    try:
        value = int(digits) * scale
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of nodes (like 200000 or 200k)") from None
    if value < 1000:
        raise argparse.ArgumentTypeError(f"{text!r}: a node budget must be at least 1000")
    return value


def node_pair_arg(text: str) -> tuple[int, int]:
    """argparse type: ``N`` (both sides) or ``N,M`` (A then B) node budgets, each as :func:`nodes_arg`."""
    parts = text.split(",")
    if len(parts) > 2:
        raise argparse.ArgumentTypeError(f"{text!r}: give N for both sides or N,M for A and B")
    values = [nodes_arg(part) for part in parts]
    return (values[0], values[-1])


def sprt_arg(text: str) -> tuple[float, float]:
    """argparse type: ``ELO0,ELO1`` with ELO0 < ELO1 (the two Elo hypotheses of the SPRT)."""
    parts = text.split(",")
    try:
        elo0, elo1 = (float(x) for x in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give two Elo differences, like 0,50") from None
    if not (math.isfinite(elo0) and math.isfinite(elo1)) or not elo0 < elo1 or max(abs(elo0), abs(elo1)) > 1000:
        raise argparse.ArgumentTypeError(f"{text!r}: need ELO0 < ELO1, each between -1000 and 1000")
    return elo0, elo1


def port_arg(text: str) -> int:
    """argparse type: a TCP port 0..65535 (0: any free port)."""
    from .net.addresses import AddressError, parse_port

    try:
        return parse_port(text)
    except AddressError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def address_arg(text: str) -> str:
    """argparse type: ``HOST:PORT`` / ``[v6]:PORT`` / ``HOST`` (checked, returned as typed)."""
    from .net.addresses import AddressError, parse_address

    try:
        parse_address(text)
    except AddressError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def fingerprint_arg(text: str) -> str:
    """argparse type: a key fingerprint as ``p2ptrumps id`` shows it (separators and case free)."""
    from .net.addresses import AddressError, check_fingerprint

    try:
        return check_fingerprint(text)
    except AddressError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def int64_arg(text: str) -> int:
    """argparse type: a whole number that fits in a signed 64-bit integer (seeds)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not -(2**63) <= value < 2**63:
        raise argparse.ArgumentTypeError(f"{text!r} is out of range (a signed 64-bit number)")
    return value


def add_rule_options(p: argparse.ArgumentParser) -> None:
    """The rule-set options of RULES.md (defaults as there)."""
    g = p.add_argument_group("rules (RULES.md variants; both players must agree)")
    g.add_argument("--deals", type=positive_int, default=1, help="deals in the match (default 1)")
    g.add_argument("--pack", type=int, choices=(32, 36, 52), default=36, help="pack size (default 36)")
    g.add_argument("--no-sixes", action="store_true", help="turn off the sixes rule")
    g.add_argument(
        "--voluntary-pickup", action="store_true", help="allow picking up even when you could beat"
    )
    g.add_argument(
        "--repetition", type=int, default=3, metavar="N", help="draw on the N-th repetition (0 = off; default 3)"
    )
    g.add_argument(
        "--turn-limit", type=int, default=1000, metavar="N", help="draw after N turns (0 = off; default 1000)"
    )


def rules_from_args(args: argparse.Namespace) -> RuleSet:
    """The :class:`RuleSet` of the rule options; raises :class:`RuleSetError` on bad values."""
    return RuleSet(
        pack_size=args.pack,
        sixes=not args.no_sixes,
        voluntary_pickup=args.voluntary_pickup,
        repetition=args.repetition,
        turn_limit=args.turn_limit,
        deals=args.deals,
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="p2ptrumps",
        description="Svoi Kozyri (your own trumps), the card duel: play the AI, or a person "
        "over the network with no server between you.",
    )
    parser.add_argument("--version", action="version", version=f"p2ptrumps {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    play = sub.add_parser("play", help="play the AI in the terminal", description="Play a match against the AI.")
    play.add_argument("--ai", choices=AI_LEVELS, default="normal", help="AI level (default normal)")
    play.add_argument("--think", type=positive_float, default=0.5, metavar="S", help="AI time per move, seconds")
    play.add_argument("--nodes", type=nodes_arg, default=0, metavar="N",
                      help="AI positions searched per move instead of --think (the same moves on any machine)")
    play.add_argument("--seed", type=int, default=None, metavar="N", help="seed the deals (repeatable matches)")
    play.add_argument("--trump", type=suit_arg, default=None, metavar="SUIT", help="your trump (else asked)")
    play.add_argument("--name", default=None, help="your name in the record")
    play.add_argument("--ascii", action="store_true", help="ASCII suits (S H D C) instead of ♠ ♥ ♦ ♣")
    play.add_argument("--log-dir", default=None, metavar="DIR", help="where records go (default: data dir)")
    play.add_argument("--position", default=None, metavar="TEXT",
                      help="play one deal from this position text (as replay shows it; protocol/position.md): "
                      "you take seat 0, the rules and trumps come from the text")
    add_rule_options(play)

    replay = sub.add_parser(
        "replay", help="step through a saved match", description="Replay a saved record or match log."
    )
    replay.add_argument("file", metavar="FILE", help="a game record (.json) or a networked match log")
    replay.add_argument("--text", action="store_true", help="print the match as plain text")
    replay.add_argument("--ascii", action="store_true", help="ASCII suits")
    replay.add_argument("--analyse", action="store_true",
                        help="analysis mode from the start (key a in the viewer): does each move keep the value?")
    replay.add_argument("--budget", type=positive_float, default=0.5, metavar="S",
                        help="analysis: seconds to solve each position (default 0.5)")

    arena = sub.add_parser(
        "arena",
        help="AI against AI, headless",
        description="Play duplicate deals between two AI levels and report the score with a 95% interval.",
    )
    arena.add_argument("level_a", choices=AI_LEVELS, metavar="LEVEL_A", help=f"one of {', '.join(AI_LEVELS)}")
    arena.add_argument("level_b", choices=AI_LEVELS, metavar="LEVEL_B", help=f"one of {', '.join(AI_LEVELS)}")
    arena.add_argument("--deals", type=positive_int, default=50, help="deal pairs to play (default 50)")
    arena.add_argument("--seed", type=int64_arg, default=0, help="seed of the deals (default 0)")
    arena.add_argument("--think", type=positive_float, default=0.1, metavar="S", help="think time per move, seconds")
    arena.add_argument("--nodes", type=node_pair_arg, default=None, metavar="N[,M]",
                       help="positions searched per move instead of --think (N,M: N for A, M for B); "
                       "results then do not depend on the machine or its load")
    arena.add_argument("--sprt", type=sprt_arg, default=None, metavar="ELO0,ELO1",
                       help="stop as soon as a sequential test decides between A stronger by ELO0 and by ELO1 "
                       "(5%% error rates); --deals is then the most pairs played")
    arena.add_argument("--jobs", type=positive_int, default=1, metavar="J", help="processes (default 1)")
    arena.add_argument("--log-dir", default=None, metavar="DIR", help="write each game's record here")

    host = sub.add_parser("host", help="host a networked match", description="Wait for a guest and play a match.")
    host.add_argument("--bind", default=None, metavar="ADDR",
                      help="address to listen on: an IPv4 or IPv6 address or a host name "
                      "(default: every address, IPv6 and IPv4)")
    host.add_argument("--port", type=port_arg, default=4816, metavar="P", help="TCP port (default 4816; 0 = any)")
    _add_net_options(host)
    host.add_argument("--trump", type=suit_arg, default=None, metavar="SUIT", help="your trump (host chooses first)")
    add_rule_options(host)

    join = sub.add_parser("join", help="join a networked match", description="Connect to a host and play.")
    join.add_argument("address", metavar="HOST:PORT", type=address_arg,
                      help="the address the host printed (IPv6: [::1]:4816)")
    fp = join.add_mutually_exclusive_group()
    fp.add_argument("--fingerprint", metavar="FP", type=fingerprint_arg,
                    help="the host's key fingerprint, as it gave it to you")
    fp.add_argument("--accept-new", action="store_true", help="accept an unknown host's key (not a changed one)")
    _add_net_options(join)
    join.add_argument("--trump", type=suit_arg, default=None, metavar="SUIT", help="your trump")

    verify = sub.add_parser(
        "verify",
        help="check a match log",
        description="Check a match log: signatures, hash chain, commitments, deals, moves, result. "
        "Exit 0 valid and complete, 1 invalid, 2 unreadable, 3 valid so far but unfinished.",
    )
    verify.add_argument("log", metavar="LOG", help="the match log file")
    verify.add_argument("--json", action="store_true", help="print the verdict as JSON")

    solve = sub.add_parser(
        "solve", help="the exact value of a position",
        description="Solve a position exactly: win, draw or loss against best play and in how many turns, "
        "for the position and for each legal move (or unknown within the budget). POSITION is a position "
        "text (protocol/position.md), as replay shows it.",
    )
    solve.add_argument("position", metavar="POSITION", help="a position text, e.g. v1/SH/6S7SKS/9D6H/9CTC/0/12")
    solve.add_argument("--budget", type=positive_float, default=10.0, metavar="S",
                       help="seconds to think (default 10)")
    solve.add_argument("--json", action="store_true", help="print the result as JSON")
    solve.add_argument("--ascii", action="store_true", help="ASCII suits")

    analyse = sub.add_parser(
        "analyse", help="judge every move of a saved match",
        description="Solve the positions of a game record or match log and say which moves kept the value "
        "(a forced win, a draw) and which threw it, with a summary per player.",
    )
    analyse.add_argument("file", metavar="RECORD_OR_LOG", help="a game record (.json) or a networked match log")
    analyse.add_argument("--budget", type=positive_float, default=0.5, metavar="S",
                         help="seconds to solve each position (default 0.5)")
    analyse.add_argument("--json", action="store_true", help="print the analysis as JSON")
    analyse.add_argument("--ascii", action="store_true", help="ASCII suits")

    ident = sub.add_parser(
        "id", help="show your key fingerprint", description="Show (creating on first use) your identity."
    )
    ident.add_argument("--name", default=None, help="set the name you show to peers")
    ident.add_argument("--forget", default=None, metavar="NAME_OR_FP",
                       help="unpin a known peer (by fingerprint, name or address), e.g. after it made a new key")
    return parser


def _add_net_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--ai", choices=AI_LEVELS, default=None, help="let the AI play this seat")
    p.add_argument("--think", type=positive_float, default=0.5, metavar="S", help="AI time per move, seconds")
    p.add_argument("--nodes", type=nodes_arg, default=0, metavar="N",
                   help="AI positions searched per move instead of --think (the same moves on any machine)")
    p.add_argument("--headless", action="store_true", help="no terminal UI: print progress and the result")
    p.add_argument("--log", default=None, metavar="PATH", help="match log path (default: data dir)")
    p.add_argument("--rematch", type=int, default=0, metavar="N",
                   help="with --ai: offer/accept up to N rematches (default 0; a person is asked instead)")
    p.add_argument("--name", default=None, help="your name shown to the opponent")
    p.add_argument("--ascii", action="store_true", help="ASCII suits")
    p.add_argument("--reconnect-wait", type=nonnegative_float, default=120.0, metavar="S",
                   help="seconds to wait for the peer to come back after the connection drops, then keep the "
                   "match unfinished (0 = do not wait; default 120)")
    p.add_argument("--timeout", type=positive_float, default=30.0, metavar="S",
                   help="seconds of silence (no heartbeat) before the peer is declared gone (default 30)")


_OPTION_OF_RULE = {
    "pack_size": "--pack",
    "sixes": "--no-sixes",
    "voluntary_pickup": "--voluntary-pickup",
    "repetition": "--repetition",
    "turn_limit": "--turn-limit",
    "deals": "--deals",
}


def _option_words(message: str) -> str:
    """A :class:`RuleSetError` message in the words of the command line (``--turn-limit``, not ``turn_limit``)."""
    for field_name, option in _OPTION_OF_RULE.items():
        message = re.sub(rf"\b(rules? )?{field_name}\b", option, message)
    return message


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``p2ptrumps`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    if hasattr(args, "repetition"):
        try:
            args.rules = rules_from_args(args)
        except RuleSetError as exc:
            sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
            sub.choices[args.command].error(_option_words(str(exc)))
    module_name, func_name = COMMANDS[args.command].split(":")
    func = getattr(importlib.import_module(module_name), func_name)
    try:
        status: int = func(args)
        sys.stdout.flush()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`p2ptrumps verify LOG | head -1`): not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    return status
