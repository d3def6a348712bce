"""The ``p2ptrumps`` command line: parses arguments and hands them to the command's module.

Each subcommand's work lives in the module named in :data:`COMMANDS`
(``"module:function"``, called with the parsed ``argparse.Namespace`` and
returning the exit status); modules are imported only when their command runs,
so ``--help`` stays fast.

One voice (:mod:`p2ptrumps.command`): a bad value shows the subcommand's usage
line and one line of error, ``p2ptrumps play: --seed: 'abc' is not a whole
number``, with the same words for the same option in every subcommand (each
option's value is checked by one ``*_arg`` type below); an unknown option is
reported by the subcommand it was given to.  A command that finds a fault
itself raises :class:`~p2ptrumps.command.CommandError` (or prints with
:func:`~p2ptrumps.command.say`).  ``--help`` shows every default.
"""

from __future__ import annotations

import argparse
import importlib
import math
import os
import re
import sys
from collections.abc import Callable, Sequence
from datetime import date
from typing import TYPE_CHECKING, NoReturn, TypeVar

from .. import __version__, i18n
from ..cards import PACK_SIZES, CardParseError, parse_suit
from ..command import PROG, CommandError, say, tolerant_streams
from ..i18n import _
from ..message import Message, message_of
from ..rules import RULE_NAME, RULE_PAIR, RuleSet, RuleSetError
from ..text import AI_LEVELS

COMMANDS = {
    "play": "p2ptrumps.ui.play:run",
    "replay": "p2ptrumps.commands.replay:run",
    "arena": "p2ptrumps.commands.arena:run",
    "host": "p2ptrumps.net.commands:run_host",
    "join": "p2ptrumps.net.commands:run_join",
    "verify": "p2ptrumps.commands.verify:run",
    "solve": "p2ptrumps.commands.solve:run",
    "analyse": "p2ptrumps.commands.analyse:run",
    "id": "p2ptrumps.net.commands:run_id",
    "block": "p2ptrumps.net.commands:run_block",
    "unblock": "p2ptrumps.net.commands:run_unblock",
    "rules": "p2ptrumps.ui.rulebook:run",
    "resume": "p2ptrumps.net.commands:run_resume",
    "history": "p2ptrumps.commands.history:run",
}

#: The networked commands, whose table (unless ``--headless`` or ``--ai``) the command line prepares.
_TABLE_COMMANDS = ("host", "join", "resume")


# ----- the parser and its voice ---------------------------------------------------------


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help with every option's default: ``(default 0.5)`` is added to an option's
    help unless it already says it, or the default is None or False (a flag, or "not given");
    a help ending in a parenthesis takes it inside: ``(0 = any free port; default 4816)``."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        # TRANSLATORS: the word of a help text that names an option's default value ("default: you play");
        # a help text with it gets no "(default X)" added, so the translations use this same word there.
        said = _("default")
        if "default" in text or said in text or not action.option_strings or action.default in (
                None, False, argparse.SUPPRESS):
            return text
        if text.endswith(")") and not text.endswith("))"):
            return _("%(help)s; default %%(default)s)", help=text[:-1])
        return _("%(help)s (default %%(default)s)", help=text)

    def _expand_help(self, action: argparse.Action) -> str:
        try:
            return super()._expand_help(action)
        except (KeyError, ValueError, TypeError):  # a translation that broke a placeholder: its text as written
            return (action.help or "").replace("%%", "%")


def tidy_message(message: str) -> str:
    """An argparse error message in the words the rest of p2ptrumps uses:
    ``"argument --seed: 'x' is not a whole number"`` -> ``"--seed: 'x' is not a whole number"``."""
    message = re.sub(r"^argument ", "", message)
    if m := re.match(r"^(\S+): not allowed with argument (\S+)$", message):
        return _("%(option)s: cannot be used with %(other)s", option=m[1], other=m[2])
    if m := re.match(r"^(\S+): expected one argument$", message):
        return _("%(what)s needs a value", what=m[1])
    if m := re.match(r"^(?:(\S+): )?invalid choice: (.*?) \(choose from (.*)\)$", message):
        choices = m[3].replace(chr(39), "")
        if m[1] == "COMMAND":
            return _("%(value)s is not a command (one of %(choices)s)", value=m[2], choices=choices)
        return _("%(value)s is not one of %(choices)s", value=m[2], choices=choices)
    if m := re.match(r"^the following arguments are required: (.*)$", message):
        return _("missing %(what)s", what=m[1])
    return message


class Parser(argparse.ArgumentParser):
    """argparse in p2ptrumps' voice: on a bad argument, the (sub)command's usage line and one
    line of error (:func:`tidy_message`), exit status 2; help shows defaults (:class:`HelpFormatter`)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        # Every command takes --lang (read before the parser is built: language_option); a command's own
        # leaves no default behind, so one given before the command's name stays.
        self.add_argument("--lang", metavar="CODE", default=argparse.SUPPRESS,
                          help=_("the language to speak: %(codes)s (default: as `p2ptrumps id --lang` saved "
                                 "it, else the environment's)", codes=" ".join(i18n.available())))

    def short_usage(self) -> str:
        """``usage: p2ptrumps arena LEVEL_A LEVEL_B [options]  (--help lists them)``: one line."""
        words = [f"[{a.metavar or a.dest}]" if a.nargs == "?" else str(a.metavar or a.dest) for a in self._actions
                 if not a.option_strings and not isinstance(a, argparse._SubParsersAction)]
        if any(isinstance(a, argparse._SubParsersAction) for a in self._actions):
            words.insert(0, "COMMAND")
        return _("usage: ") + " ".join([self.prog, *words]) + " " + _("[options]  (%(prog)s --help lists them)",
                                                                       prog=self.prog)

    def error(self, message: str) -> NoReturn:
        self.fail(tidy_message(message))

    def fail(self, message: str, status: int = 2) -> NoReturn:
        """Print the short usage line and ``prog: message``, and exit with ``status``."""
        self._print_message(self.short_usage() + "\n", sys.stderr)
        self.exit(status, f"{self.prog}: {message}\n")


# ----- value types: one check, one wording, per kind of value -------------------------------


def suit_arg(text: str) -> int:
    """argparse type: a suit (``H``, ``♥``, ``hearts``) -> 0..3."""
    try:
        return parse_suit(text)
    except CardParseError as exc:
        raise argparse.ArgumentTypeError(i18n.tr(exc)) from None


def positive_float(text: str) -> float:
    """argparse type: a positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_("%(text)s is not a number", text=repr(text))) from None
    if not value > 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(_("%(text)s must be a positive number of seconds", text=repr(text)))
    return value


def nonnegative_float(text: str) -> float:
    """argparse type: a number of seconds, 0 or more (finite)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_("%(text)s is not a number", text=repr(text))) from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(_("%(text)s must be 0 or a positive number of seconds", text=repr(text)))
    return value


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_("%(text)s is not a whole number", text=repr(text))) from None


def positive_int(text: str) -> int:
    """argparse type: a whole number, at least 1."""
    value = _whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(_("%(text)s must be at least 1", text=repr(text)))
    return value


def count_arg(text: str) -> int:
    """argparse type: a whole number, 0 or more (a count that may be zero)."""
    value = _whole(text)
    if value < 0:
        raise argparse.ArgumentTypeError(_("%(text)s must be 0 or more", text=repr(text)))
    return value


def int64_arg(text: str) -> int:
    """argparse type: a whole number that fits in a signed 64-bit integer (seeds)."""
    value = _whole(text)
    if not -(2**63) <= value < 2**63:
        raise argparse.ArgumentTypeError(_("%(text)s is out of range (a signed 64-bit number)", text=repr(text)))
    return value


def one_of(*values: object) -> Callable[[str], object]:
    """argparse type factory: one of ``values`` (ints compared as numbers), else
    ``"'x' is not one of a, b, c"``."""

    def check(text: str) -> object:
        for v in values:
            if text == str(v):
                return v
        raise argparse.ArgumentTypeError(_("%(text)s is not one of %(values)s",
                                           text=repr(text), values=', '.join(map(str, values))))

    check.__name__ = "one_of"
    return check


#: The largest node budget :func:`nodes_arg` takes: far beyond any useful search, well inside the core's
#: signed 64-bit position counter (a larger one was an OverflowError).
MAX_NODES = 10**12


def nodes_arg(text: str) -> int:
    """argparse type: a node budget per move, a whole number from 1000 to :data:`MAX_NODES` (``200000``,
    ``200k``, ``2m``); else :class:`argparse.ArgumentTypeError`."""
    raw = text.strip().lower()
    scale = {"k": 1000, "m": 1_000_000}.get(raw[-1:], 1)
    digits = raw[:-1] if scale != 1 else raw
    try:
        value = int(digits) * scale
    except ValueError:
        raise argparse.ArgumentTypeError(_("%(text)s is not a number of nodes (like 200000 or 200k)",
                                           text=repr(text))) from None
    if value < 1000:
        raise argparse.ArgumentTypeError(_("%(text)s: a node budget must be at least 1000", text=repr(text)))
    if value > MAX_NODES:  # the core counts positions in a signed 64-bit number
        raise argparse.ArgumentTypeError(_("%(text)s: a node budget must be at most %(most)s (1e12)",
                                           text=repr(text), most=MAX_NODES))
    return value


def threads_arg(text: str) -> int:
    """argparse type: a number of solver threads, a whole number from 1 to
    :data:`p2ptrumps.ai.parallel.MAX_THREADS`; else :class:`argparse.ArgumentTypeError`."""
    from ..ai.parallel import MAX_THREADS

    value = _whole(text)
    if not 1 <= value <= MAX_THREADS:
        raise argparse.ArgumentTypeError(_("%(text)s: the number of threads must be 1 to %(most)s",
                                           text=repr(text), most=MAX_THREADS))
    return value


T = TypeVar("T")


def _pair(text: str, one: Callable[[str], T], what: str) -> tuple[T, T]:
    """``X`` (both sides) or ``X,Y`` (A then B), each read by ``one``; ``what`` names the forms in the error."""
    parts = text.split(",")
    if len(parts) > 2:
        raise argparse.ArgumentTypeError(_("%(text)s: give %(what)s", text=repr(text), what=what))
    values = [one(part) for part in parts]
    return (values[0], values[-1])


def think_pair_arg(text: str) -> tuple[float, float]:
    """argparse type: ``S`` (both sides) or ``S,T`` (A then B) seconds per move, each as :func:`positive_float`."""
    return _pair(text, positive_float, _("S for both sides or S,T for A and B"))


def node_pair_arg(text: str) -> tuple[int, int]:
    """argparse type: ``N`` (both sides) or ``N,M`` (A then B) node budgets, each as :func:`nodes_arg`."""
    return _pair(text, nodes_arg, _("N for both sides or N,M for A and B"))


def sprt_arg(text: str) -> tuple[float, float]:
    """argparse type: ``ELO0,ELO1`` with ELO0 < ELO1 (the two Elo hypotheses of the SPRT)."""
    parts = text.split(",")
    try:
        elo0, elo1 = (float(x) for x in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(_("%(text)s: give two Elo differences, like 0,50", text=repr(text))) from None
    if not (math.isfinite(elo0) and math.isfinite(elo1)) or not elo0 < elo1 or max(abs(elo0), abs(elo1)) > 1000:
        raise argparse.ArgumentTypeError(_("%(text)s: need ELO0 < ELO1, each between -1000 and 1000", text=repr(text)))
    return elo0, elo1


def level_arg(text: str) -> str:
    """argparse type: an AI level, one of :data:`AI_LEVELS`."""
    if text not in AI_LEVELS:
        raise argparse.ArgumentTypeError(_("%(text)s is not an AI level (one of %(levels)s)",
                                           text=repr(text), levels=', '.join(AI_LEVELS)))
    return text


def name_arg(text: str) -> str:
    """argparse type: a player's name as shown to the opponent and stored in records and logs.

    Refused (never cut, never tidied) when it holds a code point the text rule refuses
    (protocol/wire.md §5.1: control characters such as a line break or a tab, line separators,
    bidirectional formatting, noncharacters); then runs of spaces become one and the ends are
    trimmed; refused when nothing is left or when it is longer than the protocol's limit
    (``MAX_NAME_CHARS`` of :mod:`p2ptrumps.text`, the one constant for names).  The same rule
    as the name file's (:func:`p2ptrumps.net.keystore.clean_name`).
    """
    from ..net.keystore import is_blank
    from ..text import A_NAME, MAX_NAME_CHARS, check_name, quoted, refused_in

    why = refused_in(text, A_NAME)
    if why:
        raise argparse.ArgumentTypeError(f"{quoted(text)}: {i18n.tr(why)}")
    name = " ".join(text.split())
    if not name:
        raise argparse.ArgumentTypeError(_("%(text)s is empty: a name needs at least one visible character",
                                           text=repr(text)))
    if len(name) > MAX_NAME_CHARS:
        shown = name[:20] + "…"
        raise argparse.ArgumentTypeError(
            _("%(shown)s is %(length)s characters long; a name has at most %(most)s",
              shown=repr(shown), length=len(name), most=MAX_NAME_CHARS))
    try:
        check_name(name)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{name!r}: {i18n.tr(exc)}") from None
    if is_blank(name):
        raise argparse.ArgumentTypeError(_("%(name)s draws nothing: a name needs at least one visible character",
                                           name=repr(name)))
    return name


def move_time_arg(text: str) -> int:
    """argparse type: the move clock, whole seconds per move: 0 (none) or 5..3600 (protocol/wire.md §16)."""
    from ..wire.messages import MAX_MOVE_TIME_S, MIN_MOVE_TIME_S

    value = _whole(text)
    if not (value == 0 or MIN_MOVE_TIME_S <= value <= MAX_MOVE_TIME_S):
        raise argparse.ArgumentTypeError(
            _("%(text)s must be 0 (no clock) or %(least)s..%(most)s seconds",
              text=repr(text), least=MIN_MOVE_TIME_S, most=MAX_MOVE_TIME_S))
    return value


def port_arg(text: str) -> int:
    """argparse type: a TCP port 0..65535 (0: any free port)."""
    from ..net.addresses import AddressError, parse_port

    try:
        return parse_port(text)
    except AddressError as exc:
        raise argparse.ArgumentTypeError(i18n.tr(exc)) from None


def bind_arg(text: str) -> str:
    """argparse type: ``host --bind``: an IPv4 or IPv6 address (``[v6]`` too) or a host name, no port
    (:func:`p2ptrumps.net.addresses.parse_bind`)."""
    from ..net.addresses import AddressError, parse_bind

    try:
        return parse_bind(text)
    except AddressError as exc:
        raise argparse.ArgumentTypeError(i18n.tr(exc)) from None


def address_arg(text: str) -> str:
    """argparse type: a code (``7-crossover-clockwork``, protocol/rendezvous.md §1) or ``HOST:PORT`` /
    ``[v6]:PORT`` / ``HOST``, each maybe with ``/TICKET`` (the host's join ticket, protocol/wire.md §7.3)
    (checked; an address is returned as typed, a code as read: lower case, one dash between its parts)."""
    from ..net.addresses import AddressError, parse_address
    from ..net.admission import TicketError, split_ticket
    from ..net.meet import check_code, is_code

    if is_code(text):  # as typed: a newline, spaces, capitals (protocol/rendezvous.md §1)
        try:
            return check_code(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    try:
        parse_address(split_ticket(text)[0])
    except (AddressError, TicketError) as exc:
        raise argparse.ArgumentTypeError(i18n.tr(exc)) from None
    return text


def ticket_arg(text: str) -> bytes:
    """argparse type: a join ticket as the host shows it (protocol/wire.md §7.3)."""
    from ..net.admission import TicketError, parse_ticket

    try:
        return parse_ticket(text)
    except TicketError as exc:
        raise argparse.ArgumentTypeError(i18n.tr(exc)) from None


def ipv4_prefix_arg(text: str) -> int:
    """argparse type: an IPv4 prefix length, 8..32."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 8 <= value <= 32:
        raise argparse.ArgumentTypeError(_("%(text)s must be a whole number from 8 to 32", text=repr(text)))
    return value


def relay_arg(text: str) -> str:
    """argparse type: a transit relay URL ``tcp:HOST:PORT``, or ``none``."""
    from ..net.meet import parse_relay_url

    if text == "none":
        return text
    try:
        parse_relay_url(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(i18n.tr(exc)) from None
    return text


def rendezvous_arg(text: str) -> str:
    """argparse type: a mailbox server URL, ``ws://HOST[:PORT]/PATH`` or ``wss://...`` (HOST:PORT as
    ``join`` reads an address), returned as typed."""
    from ..net.meet import check_mailbox_url

    try:
        return check_mailbox_url(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(i18n.tr(exc)) from None


def fingerprint_arg(text: str) -> str:
    """argparse type: a key fingerprint as ``p2ptrumps id`` shows it (separators and case free)."""
    from ..net.addresses import AddressError, check_fingerprint

    try:
        return check_fingerprint(text)
    except AddressError as exc:
        raise argparse.ArgumentTypeError(i18n.tr(exc)) from None


def add_rule_options(p: argparse.ArgumentParser) -> None:
    """The rule-set options of RULES.md (defaults as there)."""
    g = p.add_argument_group(_("rules (RULES.md variants; both players must agree)"))
    g.add_argument("--deals", type=positive_int, default=1, metavar="N", help=_("deals in the match"))
    g.add_argument("--pack", type=one_of(*PACK_SIZES), default=36, metavar="|".join(map(str, PACK_SIZES)),
                   help=_("pack size"))
    g.add_argument("--no-sixes", action="store_true", help=_("turn off the sixes rule"))
    g.add_argument(
        "--voluntary-pickup", action="store_true", help=_("allow picking up even when you could beat")
    )
    g.add_argument("--repetition", type=count_arg, default=3, metavar="N",
                   help=_("draw on the N-th occurrence of a position; 0 = off"))
    g.add_argument("--turn-limit", type=count_arg, default=1000, metavar="N", help=_("draw after N turns; 0 = off"))


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


def add_suit_options(p: argparse.ArgumentParser) -> None:
    """``--ascii`` / ``--unicode``: how suits are drawn (else chosen from the terminal, see
    :func:`p2ptrumps.ui.terminal.choose_ascii`)."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--ascii", action="store_true", help=_("suits as letters S H D C (default: symbols if the "
                   "terminal can draw them one column wide)"))
    g.add_argument("--unicode", action="store_true", help=_("suits as symbols ♠ ♥ ♦ ♣ even if the terminal "
                   "does not seem to manage them"))


def add_ai_options(p: argparse.ArgumentParser, *, level: str | None, think_s: float, think_help: str) -> None:
    """``--ai LEVEL`` and ``--think S``: the AI's level (``level`` None: the AI plays only if
    asked) and its time per move."""
    if level is None:
        ai_help = _("let the AI play this seat, at this level (%(levels)s; default: you play)",
                    levels=", ".join(AI_LEVELS))
    else:
        ai_help = _("the AI's level: %(levels)s", levels=", ".join(AI_LEVELS))
    p.add_argument("--ai", type=level_arg, default=level, metavar="LEVEL", help=ai_help)
    p.add_argument("--think", type=positive_float, default=think_s, metavar="S", help=think_help)
    p.add_argument("--nodes", type=nodes_arg, default=0, metavar="N",
                   help=_("the AI's positions searched per move instead of --think: the same moves on any machine "
                   "(normal and strong; 200k or 2m are read too; default: use --think)"))


def add_analysis_options(p: argparse.ArgumentParser) -> None:
    """How hard ``analyse`` and ``replay``'s analysis work: ``--budget``, ``--nodes``, ``--depth``,
    ``--estimate-nodes`` (the same options, so both judge a move alike)."""
    p.add_argument("--budget", type=positive_float, default=0.5, metavar="S",
                   help=_("analysis: seconds to solve each position"))
    p.add_argument("--nodes", type=nodes_arg, default=0, metavar="N",
                   help=_("analysis: solve each position with N nodes instead of --budget (the same verdicts on every "
                   "machine; 200k or 2m are read too)"))
    p.add_argument("--depth", type=positive_int, default=6, metavar="PLIES",
                   help=_("analysis: how far the estimate of a move the solver leaves unknown looks ahead"))
    p.add_argument("--estimate-nodes", type=positive_int, default=1_000_000, metavar="N",
                   help=_("analysis: nodes at most of each estimate (the same on every machine)"))


def _since_arg(text: str) -> date:
    """``--since``: a day as ``YYYY-MM-DD``."""
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(_("%(text)s is not a day as YYYY-MM-DD", text=repr(text))) from None


if TYPE_CHECKING:
    #: The subcommands of the parser, as ``add_subparsers`` gives them.
    Commands = argparse._SubParsersAction[Parser]


def _add_play(sub: Commands) -> None:
    """``p2ptrumps play``: its options."""
    play = sub.add_parser("play", help=_("play the AI in the terminal"), description=_("Play a match against the AI."))
    add_ai_options(play, level="normal", think_s=0.5, think_help=_("the AI's time per move, seconds"))
    play.add_argument("--seed", type=int64_arg, default=None, metavar="N",
                      help=_("seed the deals (repeatable matches; default: random)"))
    play.add_argument("--trump", type=suit_arg, default=None, metavar="SUIT",
                      help=_("your own trump: C D H S, ♣ ♦ ♥ ♠ or clubs ... spades (default: asked)"))
    play.add_argument("--name", type=name_arg, default=None, help=_("your name in the record (default: You)"))
    add_suit_options(play)
    play.add_argument("--log-dir", default=None, metavar="DIR",
                      help=_("where records go (default: <data dir>/records)"))
    play.add_argument("--position", default=None, metavar="TEXT",
                      help=_("play one deal from this position text (as replay shows it; protocol/position.md): "
                      "you take seat 0, the rules and trumps come from the text (default: dealt deals)"))
    play.add_argument("--continue", dest="continue_", action="store_true",
                      help=_("go on with the newest unfinished game in the records directory where it stopped "
                      "(its AI level, rules, trumps and name: an option asking for others is refused; "
                      "the record is saved in place)"))
    add_rule_options(play)


def _add_replay(sub: Commands) -> None:
    """``p2ptrumps replay``: its options."""
    replay = sub.add_parser(
        "replay", help=_("step through a saved match"), description=_("Replay a saved record or match log.")
    )
    replay.add_argument("file", metavar="FILE", help=_("a game record (.json) or a networked match log"))
    replay.add_argument("--text", action="store_true", help=_("print the match as plain text"))
    replay.add_argument("--analyse", action="store_true",
                        help=_("analysis mode from the start (key a in the viewer): does each move keep the value?"))
    add_analysis_options(replay)
    add_suit_options(replay)


def _add_arena(sub: Commands) -> None:
    """``p2ptrumps arena``: its options."""
    arena = sub.add_parser(
        "arena",
        help=_("AI against AI, headless"),
        description=_("Play duplicate deals between two AI levels and report the score with a %(level)d%% interval.",
                      level=95),
    )
    levels = _("one of %(levels)s", levels=", ".join(AI_LEVELS))
    arena.add_argument("level_a", type=level_arg, metavar="LEVEL_A", help=levels)
    arena.add_argument("level_b", type=level_arg, metavar="LEVEL_B", help=levels)
    arena.add_argument("--deals", type=positive_int, default=50, metavar="N", help=_("deal pairs to play"))
    arena.add_argument("--seed", type=int64_arg, default=0, metavar="N", help=_("seed of the deals"))
    arena.add_argument("--think", type=think_pair_arg, default=(0.1, 0.1), metavar="S[,T]",
                       help=_("each AI's time per move, seconds (default 0.1, shorter than play's 0.5: an arena plays "
                       "hundreds of games, and the levels are compared at equal time); S,T: S for A and T for B"))
    arena.add_argument("--nodes", type=node_pair_arg, default=None, metavar="N[,M]",
                       help=_("positions searched per move instead of --think (N,M: N for A, M for B): results that "
                       "do not depend on the machine or its load (default: use --think)"))
    arena.add_argument("--sprt", type=sprt_arg, default=None, metavar="ELO0,ELO1",
                       help=_("stop as soon as a sequential test decides between A stronger by ELO0 and by ELO1 "
                       "(5%% error rates); --deals is then the most pairs played (default: play them all)"))
    arena.add_argument("--jobs", type=positive_int, default=1, metavar="J", help=_("processes"))
    arena.add_argument("--log-dir", default=None, metavar="DIR",
                       help=_("write each game's record here (default: none)"))


def _add_host(sub: Commands) -> None:
    """``p2ptrumps host``: its options."""
    host = sub.add_parser("host", help=_("host a networked match"), description=_("Wait for a guest and play a match."))
    host.add_argument("--bind", type=bind_arg, default=None, metavar="ADDR",
                      help=_("address to listen on: an IPv4 or IPv6 address or a host name "
                      "(default: every address, IPv6 and IPv4)"))
    host.add_argument("--port", type=port_arg, default=4816, metavar="P", help=_("TCP port (0 = any free port)"))
    host.add_argument("--no-map", action="store_true",
                      help=_("do not ask the home router to forward the port (UPnP-IGD, NAT-PMP); never asked for "
                      "a loopback --bind, nor with P2PTRUMPS_NO_MAP=1"))
    _add_net_options(host)
    door = host.add_mutually_exclusive_group()
    door.add_argument("--open", action="store_true",
                      help=_("admit any guest without a join ticket (the default with --ai: anyone may play the AI)"))
    door.add_argument("--ticket", type=ticket_arg, default=None, metavar="TICKET",
                      help=_("the join ticket to require (default: a new one, shown with the address, unless --ai)"))
    host.add_argument("--ipv4-prefix", type=ipv4_prefix_arg, default=32, metavar="N",
                      help=_("count IPv4 guests by their /N network for the host's caps (8..32; IPv6: /64)"))
    meet = host.add_argument_group(_("meet by code (protocol/rendezvous.md)"))
    meet.add_argument("--code", action="store_true",
                      help=_("print a one-use code for your opponent (p2ptrumps join 7-crossover-clockwork): no "
                             "address or fingerprint to pass on, and a relay when no direct connection can be made"))
    meet.add_argument("--rendezvous", type=rendezvous_arg, default=None, metavar="URL",
                      help=_("the mailbox server for --code (default: the public one of magic-wormhole, "
                      "ws://relay.magic-wormhole.io:4000/v1)"))
    meet.add_argument("--relay", default=None, metavar="URL", type=relay_arg,
                      help=_("the transit relay for --code, tcp:HOST:PORT (default: the public one of "
                      "magic-wormhole, tcp:transit.magic-wormhole.io:4001; 'none': no relay)"))
    meet.add_argument("--no-direct", action="store_true", help=argparse.SUPPRESS)  # tests: offer only the relay
    host.add_argument("--trump", type=suit_arg, default=None, metavar="SUIT",
                      help=_("your own trump (the host chooses first; default: asked)"))
    add_rule_options(host)
    host.add_argument("--move-time", type=move_time_arg, default=60, metavar="S",
                      help=_("the move clock, agreed with the rules: seconds per move (5..3600), after which the "
                      "waiting side may claim the deal; 0 = no clock"))


def _add_join(sub: Commands) -> None:
    """``p2ptrumps join``: its options."""
    join = sub.add_parser("join", help=_("join a networked match"), description=_("Connect to a host and play."))
    join.add_argument("address", metavar="CODE|HOST:PORT[/TICKET]", type=address_arg,
                      help=_("the code the host gave you (7-crossover-clockwork), or the address it printed with "
                      "its join ticket (IPv6: [::1]:4816/abcd-efgh-...)"))
    join.add_argument("--rendezvous", type=rendezvous_arg, default=None, metavar="URL",
                      help=_("the mailbox server for a code (default: the public one of magic-wormhole)"))
    fp = join.add_mutually_exclusive_group()
    fp.add_argument("--fingerprint", metavar="FP", type=fingerprint_arg,
                    help=_("the host's key fingerprint, as it gave it to you"))
    fp.add_argument("--accept-new", action="store_true", help=_("accept an unknown host's key (not a changed one)"))
    _add_net_options(join)
    join.add_argument("--trump", type=suit_arg, default=None, metavar="SUIT", help=_("your own trump (default: asked)"))
    policy = join.add_argument_group(_("the rules accepted without asking (with --ai, or without a terminal)"))
    policy.add_argument("--max-deals", type=positive_int, default=50, metavar="N",
                        help=_("refuse a match of more deals"))
    policy.add_argument("--max-turn-limit", type=positive_int, default=1000, metavar="N",
                        help=_("refuse a turn limit above N, or none (rules with repetition off are refused too)"))


def _add_resume(sub: Commands) -> None:
    """``p2ptrumps resume``: its options."""
    resume = sub.add_parser(
        "resume", help=_("take up an unfinished networked match after a crash"),
        description=_("Take up an unfinished networked match from its log after this side's process died "
        "(a crash, kill, reboot): a host listens again on its port, a guest connects to the host again; the "
        "match goes on from the last message both hold."))
    resume.add_argument("log", metavar="LOG", nargs="?", default=None,
                        help=_("the match log (default: the newest unfinished one, after asking)"))
    add_ai_options(resume, level=None, think_s=0.5, think_help=_("the AI's time per move, seconds (with --ai)"))
    resume.add_argument("--headless", action="store_true", help=_("no terminal UI: print progress and the result"))
    resume.add_argument("--no-map", action="store_true",
                        help=_("(a host) do not ask the home router to forward the port again"))
    resume.add_argument("--rematch", type=count_arg, default=0, metavar="N",
                        help=_("with --ai: offer/accept up to N rematches (default 0; a person is asked instead)"))
    add_suit_options(resume)
    resume.add_argument("--reconnect-wait", type=nonnegative_float, default=120.0, metavar="S",
                        help=_("seconds to wait for the peer to come back, then keep the match unfinished"))
    resume.add_argument("--timeout", type=positive_float, default=30.0, metavar="S",
                        help=_("seconds of silence (no heartbeat) before the peer is declared gone"))


def _add_verify(sub: Commands) -> None:
    """``p2ptrumps verify``: its options."""
    verify = sub.add_parser(
        "verify",
        help=_("check a match log, or the two logs of one match against each other"),
        description=_("Check a match log: signatures, hash chain, commitments, deals, moves, result. "
        "Exit 0 valid and complete, 1 invalid, 2 unreadable, 3 valid so far but unfinished. "
        "Given the two logs of one match (the host's and the guest's, in either order), also check that they "
        "hold one chain and that no key signed two histories: exit 0 one chain and complete, 1 invalid "
        "(equivocation, or a fault in either log), 2 unreadable, logs of different games, or two logs of one "
        "seat (not a pair), 3 unfinished."),
    )
    verify.add_argument("log", metavar="LOG", help=_("the match log file"))
    verify.add_argument("other_log", metavar="OTHER_LOG", nargs="?", default=None,
                        help=_("the other seat's log of the same match, to check against LOG"))
    verify.add_argument("--json", action="store_true", help=_("print the verdict as JSON"))


def _add_solve(sub: Commands) -> None:
    """``p2ptrumps solve``: its options."""
    solve = sub.add_parser(
        "solve", help=_("the exact value of a position"),
        description=_("Solve a position exactly: win, draw or loss against best play and in how many turns, "
        "for the position and for each legal move (or unknown within the budget). POSITION is a position "
        "text (protocol/position.md), as replay shows it."),
    )
    solve.add_argument("position", metavar="POSITION", help=_("a position text, e.g. v1/SH/6S7SKS/9D6H/9CTC/0/12"))
    solve.add_argument("--budget", type=positive_float, default=10.0, metavar="S", help=_("seconds to think"))
    solve.add_argument("--nodes", type=nodes_arg, default=0, metavar="N",
                       help=_("solve with N positions instead of --budget: the same answer and output on every "
                       "machine (200k or 2m are read too); on one thread"))
    solve.add_argument("--threads", type=threads_arg, default=None, metavar="N",
                       help=_("with --budget: solve on N threads sharing one table (default: the cores, at most 8; "
                       "1: one thread); the same exact values, sooner"))
    solve.add_argument("--json", action="store_true", help=_("print the result as JSON"))
    add_suit_options(solve)


def _add_analyse(sub: Commands) -> None:
    """``p2ptrumps analyse``: its options."""
    analyse = sub.add_parser(
        "analyse", help=_("judge every move of a saved match"),
        description=_("Solve the positions of a game record or match log and say which moves kept the value "
        "(a forced win, a draw) and which threw it, with a summary per player."),
    )
    analyse.add_argument("file", metavar="RECORD_OR_LOG", help=_("a game record (.json) or a networked match log"))
    add_analysis_options(analyse)
    analyse.add_argument("--svg", default=None, metavar="FILE", help=_("also write the value graph as an SVG file"))
    analyse.add_argument("--json", action="store_true", help=_("print the analysis as JSON"))
    add_suit_options(analyse)


def _add_history(sub: Commands) -> None:
    """``p2ptrumps history``: its options."""
    history = sub.add_parser(
        "history", help=_("the matches you played and your score against each opponent"),
        description=_("List every match of your data directory (offline records and networked match logs): "
        "date, opponent, rules, result and whether the file checks; then a summary per opponent and AI level "
        "(played, won, drawn, lost, current streak). Networked results count only from logs that verify."),
    )
    history.add_argument("--opponent", default=None, metavar="TEXT",
                         help=_("only matches against an opponent whose name, fingerprint or AI level contains TEXT"))
    history.add_argument("--since", type=_since_arg, default=None, metavar="YYYY-MM-DD",
                         help=_("only matches started on or after this day"))
    history.add_argument("--json", action="store_true", help=_("print the list and summary as JSON"))


def _add_id(sub: Commands) -> None:
    """``p2ptrumps id``: its options."""
    ident = sub.add_parser(
        "id", help=_("show your key fingerprint"), description=_("Show (creating on first use) your identity.")
    )
    ident.add_argument("--name", type=name_arg, default=None, help=_("set the name you show to peers"))
    ident.add_argument("--forget", default=None, metavar="NAME_OR_FP",
                       help=_("unpin a known peer (by fingerprint, name or address), e.g. after it made a new key"))
    own = next(a for a in ident._actions if "--lang" in a.option_strings)  # id's --lang saves the choice
    own.dest = "save_lang"
    own.help = _("speak this language from now on, in every command: %(codes)s, or auto (the environment's "
                 "again); saved beside your key", codes=" ".join(i18n.available()))


def _add_block(sub: Commands) -> None:
    """``p2ptrumps block``: its argument (protocol/files.md, "blocked_peers.json")."""
    block = sub.add_parser(
        "block", help=_("refuse a key for good"),
        description=_("Refuse a key for good: a host turns it away at the doorway, and you never join it, by "
                      "address or by code; each side is told in one line and nothing is written.  Undo with "
                      "unblock."))
    block.add_argument("key", metavar="NAME_OR_FP",
                       help=_("a key fingerprint, or the name (or address) of one known peer"))


def _add_unblock(sub: Commands) -> None:
    """``p2ptrumps unblock``: its argument."""
    unblock = sub.add_parser("unblock", help=_("take back a block"),
                             description=_("Take back the blocks of a key, by its fingerprint or the name it was "
                                           "blocked under."))
    unblock.add_argument("key", metavar="NAME_OR_FP", help=_("the fingerprint, or the name shown by block"))


def _add_rules(sub: Commands) -> None:
    """``p2ptrumps rules``: its options."""
    rules = sub.add_parser("rules", help=_("read the rules of the game"),
                           description=_("Show the rule book (RULES.md), through a pager on a terminal."))
    rules.add_argument("--no-pager", action="store_true", help=_("print the rules without a pager"))


#: One builder per command, in the order ``p2ptrumps --help`` lists them.
BUILDERS: tuple[Callable[[Commands], None], ...] = (
    _add_play,
    _add_replay,
    _add_arena,
    _add_host,
    _add_join,
    _add_resume,
    _add_verify,
    _add_solve,
    _add_analyse,
    _add_history,
    _add_id,
    _add_block,
    _add_unblock,
    _add_rules,
)


def build_parser() -> argparse.ArgumentParser:
    """The whole command line: the top level (``--version``) and one subparser per command, each made
    by its builder in :data:`BUILDERS` (the order of ``--help``)."""
    parser = Parser(
        prog=PROG,
        description=_("Svoi Kozyri (your own trumps), the card duel: play the AI, or a person "
        "over the network with no server between you."),
    )
    parser.add_argument("--version", action="version", version=f"p2ptrumps {__version__}",
                        help=_("show program's version number and exit"))
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in BUILDERS:
        add(sub)
    return parser


def _add_net_options(p: argparse.ArgumentParser) -> None:
    add_ai_options(p, level=None, think_s=0.5, think_help=_("the AI's time per move, seconds (with --ai)"))
    p.add_argument("--headless", action="store_true", help=_("no terminal UI: print progress and the result"))
    p.add_argument("--log", default=None, metavar="PATH", help=_("match log path (default: <data dir>/logs/...)"))
    p.add_argument("--rematch", type=count_arg, default=0, metavar="N",
                   help=_("with --ai: offer/accept up to N rematches (default 0; a person is asked instead)"))
    p.add_argument("--name", type=name_arg, default=None,
                   help=_("your name shown to the opponent (default: as set by `p2ptrumps id --name`)"))
    add_suit_options(p)
    p.add_argument("--no-bell", action="store_true",
                   help=_("no terminal bell when your move clock reaches its last 10 seconds"))
    p.add_argument("--reconnect-wait", type=nonnegative_float, default=120.0, metavar="S",
                   help=_("seconds to wait for the peer to come back after the connection drops, then keep the "
                   "match unfinished (0 = do not wait)"))
    p.add_argument("--timeout", type=positive_float, default=30.0, metavar="S",
                   help=_("seconds of silence (no heartbeat) before the peer is declared gone"))


_OPTION_OF_RULE = {
    "pack_size": "--pack",
    "sixes": "--no-sixes",
    "voluntary_pickup": "--voluntary-pickup",
    "repetition": "--repetition",
    "turn_limit": "--turn-limit",
    "deals": "--deals",
}


def _option_words(exc: RuleSetError) -> str:
    """A :class:`RuleSetError` in the words of the command line, in the person's language: each rule
    named by its option (``--turn-limit``, not ``rule turn_limit``)."""
    message = message_of(exc)
    if not isinstance(message, Message):
        return message

    def option(value: object) -> object:
        if isinstance(value, Message) and value.template == RULE_NAME:
            return _OPTION_OF_RULE.get(str(value.args["name"]), value)
        if isinstance(value, Message) and value.template == RULE_PAIR:
            # TRANSLATORS: two options of the command line, in an error ("--repetition and --turn-limit").
            return _("%(first)s and %(second)s", first=option(value.args["first"]), second=option(value.args["second"]))
        return _OPTION_OF_RULE.get(value, value) if isinstance(value, str) else value

    return i18n.tr(message.with_args(**{name: option(value) for name, value in message.args.items()}))


def _prepare_table(args: argparse.Namespace) -> None:
    """For ``host``/``join``: settle ``args.ascii`` from ``--ascii``/``--unicode``, the output's
    encoding and, for the table (no ``--headless``, no ``--ai``) on a full-screen terminal, the
    terminal's width of the suit symbols (:func:`p2ptrumps.ui.terminal.choose_ascii`), as
    ``play`` and ``replay`` do; a note says so when the terminal decided."""
    from ..ui.terminal import choose_ascii, std_fds, terminal_problem

    table = not args.headless and args.ai is None and terminal_problem(sys.stdin, sys.stdout) is None
    args.ascii, note = choose_ascii(bool(args.ascii), bool(args.unicode), probe_fds=std_fds() if table else None)
    if note:
        say(args, note)


def subparser(parser: argparse.ArgumentParser, command: str | None) -> Parser:
    """The parser of subcommand ``command`` (the top-level parser for None)."""
    if command is not None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction) and command in action.choices:
                return action.choices[command]  # type: ignore[no-any-return]
    assert isinstance(parser, Parser)
    return parser


_UNSET = object()


def given_options(command: argparse.ArgumentParser, words: Sequence[str]) -> frozenset[str]:
    """The ``dest`` of each option of subcommand ``command`` written in ``words`` (the words after
    the subcommand's name; already parsed once, so they parse), e.g. ``{"ai", "deals"}`` for
    ``--ai greedy --deals 3``: what the person asked for, told from what a default filled in."""
    probe = argparse.Namespace(**{a.dest: _UNSET for a in command._actions if a.dest != argparse.SUPPRESS})
    command.parse_known_args(list(words), probe)
    return frozenset(dest for dest, value in vars(probe).items() if value is not _UNSET)


def _unrecognized(extras: Sequence[str]) -> str:
    options = [x for x in extras if x.startswith("-")]
    if options:
        return _("unknown option %(option)s", option=options[0])
    return _("unexpected argument %(argument)s", argument=repr(extras[0]))


def language_option(words: Sequence[str]) -> str | None:
    """The value of ``--lang`` among the command line's ``words`` (``--lang ru``, ``--lang=ru``, before
    a ``--``; the last one given), read before the parser is built so that its help is in that
    language; None when it is not given."""
    found = None
    for i, word in enumerate(words):
        if word == "--":
            break
        name, sep, value = word.partition("=")
        if name in ("--lang", "--lan", "--la"):
            if sep:
                found = value
            elif i + 1 < len(words):
                found = words[i + 1]
    return found


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``p2ptrumps`` command; returns the exit status.

    Bad arguments exit (``SystemExit(2)``) after the usage line and one line of error;
    a :class:`~p2ptrumps.command.CommandError` from the command is printed in the same
    voice and its status returned."""
    tolerant_streams()  # a peer's name the terminal cannot encode is escaped, never a crash
    words = list(sys.argv[1:] if argv is None else argv)
    language = language_option(words)
    i18n.setup(language)
    if language == "help":
        print("\n".join(i18n.listing()))
        return 0
    parser = build_parser()
    args, extras = parser.parse_known_args(argv)
    command = subparser(parser, args.command)
    if extras:
        command.fail(_unrecognized(extras))
    if args.command is None:
        parser.print_help()
        return 2
    if args.command == "play":  # --continue compares what was asked for with the saved game
        args.given = given_options(command, words[words.index("play") + 1:] if "play" in words else words)
    if hasattr(args, "repetition"):
        try:
            args.rules = rules_from_args(args)
        except RuleSetError as exc:
            command.fail(_option_words(exc))
    module_name, func_name = COMMANDS[args.command].split(":")
    func = getattr(importlib.import_module(module_name), func_name)
    try:
        if args.command in _TABLE_COMMANDS:
            _prepare_table(args)
        status: int = func(args)
        sys.stdout.flush()
    except CommandError as exc:
        if exc.usage:
            command._print_message(command.short_usage() + "\n", sys.stderr)
        say(args, i18n.tr(exc.message))
        return exc.status
    except KeyboardInterrupt:
        say(args, _("interrupted"))
        return 130
    except BrokenPipeError:
        # The reader went away (`p2ptrumps verify LOG | head -1`): not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    return status
