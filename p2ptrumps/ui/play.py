"""``p2ptrumps play``: a match against the AI in the full-screen terminal UI.

The person chooses their own trump first (RULES.md §2; ``--trump`` skips the
question), the AI takes another suit, then the match machine (:class:`~p2ptrumps.match.Match`,
driven by :func:`p2ptrumps.seats.play`) plays ``--deals`` deals (RULES.md §8) between a
:class:`~.app.HumanPlayer` in seat 0 and an :class:`~p2ptrumps.ai.AIPlayer` in seat 1.  The driver
runs in trio, as a guest on prompt_toolkit's asyncio loop (:mod:`.bridge`).

The game record (``protocol/record.md``) is saved after every move to
``--log-dir`` or ``<user data dir>/records/`` under a name such as
``2026-11-29_1742_vs-normal.json`` from the first move on (a game in which no move
was made leaves no file); a game left mid-deal stays saved with that deal's result
``null``, and ``--continue`` goes on with the newest such game where it stopped
(:func:`newest_unfinished`, :class:`~p2ptrumps.match.Match`'s ``resume``).  On
the end-of-match screen ``a`` plays again: the same level, rules and trumps, a new
deal, a new record.  ``--seed N`` makes the deals, the AI's trump and the
AI's tie-breaks repeatable.  ``--nodes N`` gives the AI a node budget per move
instead of ``--think`` (the same moves on any machine).  ``--position TEXT``
plays one deal from a position text (``protocol/position.md``, as ``replay``
shows it): its rules and trumps come from the text, the person takes seat 0,
and the record keeps the start position (``protocol/record.md`` §3).  The
hint (``i``) is the ``strong`` level's move, with "wins by force in N" when
the win is proven.

Before anything is created, :func:`run` refuses (status 2, one line) when stdin
or stdout is not a full-screen terminal (:func:`.terminal.terminal_problem`:
not a tty, ``TERM=dumb``), or when the records directory cannot be written
(:func:`p2ptrumps.files.prepare_dir`); ``--name`` was checked by the command line.
If saving fails later (the disk full, EIO, a read-only file system), the record is saved at
once to a file of the same name in the temporary directory instead, a status line of its own
names the fault, the path and that file until a save to the path works again (every later
change retries it), and the closing lines name where each record is.  SIGINT (from ``kill``:
Ctrl-C at the table is a key), SIGTERM and SIGHUP end
the match as ``q`` does (:class:`.terminal.Termination`): the terminal is restored, the record
is saved, and the exit status is 128 + the signal's number (130, 143, 129).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import random
import shlex
import sys
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import platformdirs
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from ..ai import AIPlayer, Hints, choose_trump
from ..ai.core import WIN, WIN_BOUND
from ..cards import suit_label
from ..command import CommandError, say, typed
from ..files import prepare_dir, unused_path
from ..i18n import _, ngettext, pgettext, tr
from ..match import Match
from ..notation import PositionTextError, parse_position
from ..record import MatchRecord, PlayerInfo, RecordError, parse_json
from ..rules import Move, Position, RuleSet
from ..seats import play, started_now, urandom_seed
from .app import HumanPlayer, QuitResult, TableApp, UIOptions
from .bridge import GuestCancelled, TrioGuest
from .terminal import LEAVING_SIGNALS, Termination, choose_ascii, std_fds, terminal_problem
from .view import printable, session_score_lines, wants_color


@dataclass(frozen=True)
class PlayConfig:
    """Everything ``play`` needs, from the command line.

    Attributes:
        rules: the rule set (RULES.md variants).
        level: the AI level (``random``, ``greedy``, ``normal``).
        think_s: the AI's time per move, seconds.
        seed: seeds the deals, the AI's trump and its tie-breaks (None: random).
        trump: the person's own trump (0..3), or None to ask.
        name: the person's name (screen and record).
        ascii_only, color: looks (``--ascii`` / ``--unicode``, ``NO_COLOR``).
        record_path: where the record is saved.
        nodes: the AI's node budget per move instead of ``think_s`` (0: none).
        position: the position the single deal starts from (``--position``), or None.
        resume: the unfinished record to go on with (``--continue``; saved again to
            ``record_path``), or None for a new match.
    """

    rules: RuleSet
    level: str = "normal"
    think_s: float = 0.5
    seed: int | None = None
    trump: int | None = None
    name: str = "You"
    ascii_only: bool = False
    color: bool = True
    record_path: Path = Path("record.json")
    nodes: int = 0
    position: Position | None = None
    resume: MatchRecord | None = None


def records_dir(log_dir: str | None) -> Path:
    """``log_dir``, or ``<platformdirs.user_data_dir("p2ptrumps")>/records``."""
    if log_dir:
        return Path(log_dir)
    return Path(platformdirs.user_data_dir("p2ptrumps")) / "records"


def record_name(directory: Path, level: str, now: datetime) -> Path:
    """A readable, unused file name in ``directory``: ``2026-11-29_1742_vs-normal.json``
    (``…_vs-normal-2.json`` and so on if taken)."""
    return unused_path(directory, f"{now:%Y-%m-%d_%H%M}_vs-{level}", ".json")


def deal_seed(seed: int, deal_number: int, match: int = 1) -> bytes:
    """The shuffle seed of deal ``deal_number`` of match ``match`` (1: the first, 2: after one
    "play again", ...) of a ``--seed`` session: 32 bytes, ``SHA-256("p2ptrumps/play/<seed>/<deal>")``
    for the first match, ``SHA-256("p2ptrumps/play/<seed>/<match>/<deal>")`` for the later ones."""
    text = f"p2ptrumps/play/{seed}/{deal_number}" if match == 1 else f"p2ptrumps/play/{seed}/{match}/{deal_number}"
    return hashlib.sha256(text.encode()).digest()


def _unfinished(path: Path) -> MatchRecord | None:
    """The record at ``path`` if it is an offline match against the AI that can go on, else None."""
    try:
        data = parse_json(path.read_text(encoding="utf-8-sig"), str(path))
        if not isinstance(data, dict) or data.get("finished") is not False or data.get("source") != "offline":
            return None  # passed over on the stored fields alone (most records are finished)
        record = MatchRecord.from_json(data)
    except (OSError, UnicodeDecodeError, RecordError):
        return None
    if record.source != "offline" or record.finished or not record.deals:
        return None
    if record.players[0].kind != "human" or not record.players[1].kind.startswith("ai:"):
        return None
    try:
        record.check()  # replayed only for a candidate: finished records are passed over unread
    except RecordError:
        return None
    return record


def newest_unfinished(directory: Path) -> tuple[Path, MatchRecord] | None:
    """The newest (by modification time) record in ``directory`` of an unfinished offline match
    against the AI (protocol/record.md: ``finished`` false, the person in seat 0), or None.
    Files that do not read or check as records are passed over."""
    try:
        paths = sorted(directory.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return None
    for path in paths:
        record = _unfinished(path)
        if record is not None:
            return path, record
    return None


def where_stopped(record: MatchRecord) -> str:
    """Where an unfinished game stopped: ``"deal 1 of 3, after 7 moves"`` or ``"after deal 1 of 3"``."""
    last = record.deals[-1]
    if last.outcome is None:
        return ngettext("deal %(number)d of %(deals)d, after %(n)d move",
                        "deal %(number)d of %(deals)d, after %(n)d moves",
                        len(last.moves), number=last.number, deals=record.rules.deals)
    return _("after deal %(number)d of %(deals)d", number=last.number, deals=record.rules.deals)


def short_rules(rules: RuleSet) -> str:
    """The rules in a few words: ``"36 cards, 1 deal"``, and each variant that is not RULES.md's
    default (``"32 cards, 3 deals, sixes off, voluntary pick-up, repetition off, limit 200 turns"``)."""
    default = RuleSet()
    words = [ngettext("%(n)d card", "%(n)d cards", rules.pack_size), ngettext("%(n)d deal", "%(n)d deals", rules.deals)]
    if not rules.sixes:
        words.append(_("sixes off"))
    if rules.voluntary_pickup:
        words.append(_("voluntary pick-up"))
    if rules.repetition != default.repetition:
        words.append(_("repetition %(n)d", n=rules.repetition) if rules.repetition else _("repetition off"))
    if rules.turn_limit != default.turn_limit:
        words.append(_("limit %(n)d turns", n=rules.turn_limit) if rules.turn_limit else _("no turn limit"))
    return ", ".join(words)


class NoGameToContinue(Exception):
    """``play --continue`` found no unfinished offline game."""


class ContinueConflict(Exception):
    """``play --continue`` was given an option that the saved game decides otherwise (the message
    names each one)."""


#: The ``play`` options (argparse ``dest``) a saved game decides for ``--continue``: each is compared
#: with the game when given on the command line.
SAVED_GAME_OPTIONS = ("ai", "trump", "name", "position", "deals", "pack", "no_sixes", "voluntary_pickup",
                      "repetition", "turn_limit")


def continue_conflicts(args: argparse.Namespace, record: MatchRecord) -> list[str]:
    """The options given on the command line (``args.given``, the ``dest`` of each option written;
    :func:`p2ptrumps.commands.main.given_options`) that ask for something else than the saved game
    ``record`` has, each as ``"--deals 3 (the game has 1)"``; an option that repeats the game's own
    value is no conflict."""
    given: frozenset[str] = getattr(args, "given", frozenset())
    r = record.rules
    level = record.players[1].kind.removeprefix("ai:")
    saved: dict[str, tuple[object, str]] = {
        "ai": (level, level),
        "trump": (record.trumps[0], suit_label(record.trumps[0])),
        "name": (record.players[0].name, record.players[0].name),
        "deals": (r.deals, str(r.deals)),
        "pack": (r.pack_size, str(r.pack_size)),
        "no_sixes": (not r.sixes, _("the sixes rule on") if r.sixes else _("the sixes rule off")),
        "voluntary_pickup": (r.voluntary_pickup, _("voluntary pick-up") if r.voluntary_pickup else _("must beat")),
        "repetition": (r.repetition, str(r.repetition)),
        "turn_limit": (r.turn_limit, str(r.turn_limit)),
    }
    out = []
    for dest in SAVED_GAME_OPTIONS:
        if dest not in given:
            continue
        option = "--" + dest.replace("_", "-")
        value = getattr(args, dest, None)
        if dest == "position":
            out.append(_("%(option)s (the game goes on from where it stopped)", option=option))
            continue
        want, words = saved[dest]
        if dest == "name" and value is not None:
            value = printable(value)
        if value == want:
            continue
        shown = "" if isinstance(value, bool) else " " + (suit_label(value) if dest == "trump" and
                                                          isinstance(value, int) else str(value))
        out.append(_("%(option)s (the game has %(value)s)", option=option + shown, value=words))
    return out


def config_from_args(args: argparse.Namespace, now: datetime | None = None,
                     ascii_only: bool | None = None) -> PlayConfig:
    """The :class:`PlayConfig` of parsed ``play`` arguments (``args.rules`` set and ``args.name``
    checked by the CLI); ``ascii_only`` None chooses from ``--ascii``/``--unicode`` and the
    output's encoding (:func:`.terminal.choose_ascii`, without asking the terminal).

    With ``--continue`` (``args.continue_``) the newest unfinished record (:func:`newest_unfinished`)
    gives the rules, the AI level, the trumps and the name, and is saved again in place.

    Raises :class:`~p2ptrumps.notation.PositionTextError` for a bad ``--position``,
    :class:`NoGameToContinue` when ``--continue`` finds no game, :class:`ContinueConflict` when an
    option given with it asks for something else than the saved game (:func:`continue_conflicts`).
    """
    if ascii_only is None:
        ascii_only = choose_ascii(bool(args.ascii), bool(getattr(args, "unicode", False)))[0]
    if getattr(args, "continue_", False):
        found = newest_unfinished(records_dir(args.log_dir))
        if found is None:
            raise NoGameToContinue(_("no unfinished game to continue in %(dir)s", dir=records_dir(args.log_dir)))
        path, record = found
        conflicts = continue_conflicts(args, record)
        if conflicts:
            raise ContinueConflict(ngettext(
                "--continue goes on with %(file)s as it was saved, its AI level and rules included: %(options)s. "
                "Leave that option out, or start a new game without --continue",
                "--continue goes on with %(file)s as it was saved, its AI level and rules included: %(options)s. "
                "Leave those options out, or start a new game without --continue",
                len(conflicts), file=path.name, options="; ".join(conflicts)))
        return PlayConfig(
            rules=record.rules, level=record.players[1].kind.removeprefix("ai:"), think_s=args.think,
            seed=args.seed, trump=record.trumps[0], name=record.players[0].name, ascii_only=ascii_only,
            color=wants_color(), record_path=path, nodes=getattr(args, "nodes", 0) or 0, resume=record)
    path = record_name(records_dir(args.log_dir), args.ai, now or datetime.now())
    rules: RuleSet = args.rules
    trump = args.trump
    position = None
    if getattr(args, "position", None):
        position = parse_position(args.position)
        if position.outcome is not None:
            raise PositionTextError(_("the deal is already over in that position (%(result)s)",
                                      result=position.outcome.describe()))
        rules = position.rules
        trump = position.trumps[0]
    return PlayConfig(
        rules=rules, level=args.ai, think_s=args.think, seed=args.seed, trump=trump,
        name=printable(args.name) if args.name else "You", ascii_only=ascii_only, color=wants_color(),
        record_path=path, nodes=getattr(args, "nodes", 0) or 0, position=position,
    )


class PlaySession:
    """One ``play`` match: the table, the trio side and the record.

    Args:
        config: the :class:`PlayConfig`.
        input, output: prompt_toolkit input/output (tests pass a pipe input and
            a ``DummyOutput``); None uses the terminal.

    After :meth:`run`, :attr:`record` holds the last saved record (None if no
    move was made: no record file is written until the first move), :attr:`saved`
    the paths of the records written (one per match: "play again" on the end of
    the match starts another, same level and rules, a new deal), :attr:`records`
    each of those paths' last record (the session's matches, in order), :attr:`save_error`
    the last saving fault, if any, and :attr:`termination` tells whether
    SIGINT/SIGTERM/SIGHUP ended it.
    """

    def __init__(self, config: PlayConfig, *, input: Input | None = None, output: Output | None = None) -> None:
        self.config = config
        self.table = TableApp(
            UIOptions(ascii_only=config.ascii_only, color=config.color, allow_undo=True, allow_hint=True,
                      allow_draw_offer=True, allow_play_again=True),
            input=input, output=output,
        )
        self.record_path = config.record_path
        self.table.record_path = str(config.record_path)
        self.record: MatchRecord | None = config.resume  # a continued game is on disk already
        self.saved: list[Path] = [config.record_path] if config.resume is not None else []
        self.records: dict[Path, MatchRecord] = {} if config.resume is None else {config.record_path: config.resume}
        self.save_error: str | None = None
        #: The records whose last save to their path failed -> the fault ("cannot save the record to ...").
        self.faults: dict[Path, str] = {}
        #: Each record's file in the temporary directory, once its own path could not be written.
        self.fallbacks: dict[Path, Path] = {}
        #: The records that could not be saved to their file in the temporary directory either.
        self.lost: set[Path] = set()
        self._match = 1
        #: SIGINT (``kill -INT``: Ctrl-C at the table is a key), SIGTERM and SIGHUP while :meth:`run` runs
        #: end the match as a confirmed ``q`` does.
        self.termination = Termination(lambda: self.table.exit(QuitResult.QUIT), LEAVING_SIGNALS)
        self._rng = random.Random(config.seed)
        self._hints = Hints()

    def _save(self, record: MatchRecord) -> None:
        """Save after every change from the first move on (a game without a move leaves no file).
        When the record cannot be written to its path it is written at once to the temporary
        directory instead (:meth:`_save_elsewhere`) and the table's fault line says so, the fault
        and both paths, until a later change saves it to its path again."""
        path = self.record_path
        if path not in self.saved:
            if not any(d.moves or d.outcome is not None for d in record.deals):
                return
            self.saved.append(path)
        self.record = self.records[path] = record
        try:
            record.save(path)
        except OSError as exc:
            self.save_error = self._save_elsewhere(path, record, exc)
            self.table.set_fault(_("%(fault)s (retrying %(file)s after each move)", fault=self.save_error,
                                   file=path.name))
            return
        if self.faults.pop(path, None) is not None:
            self.save_error = None
            self.table.set_fault("")
            note = ""
            fallback = self.fallbacks.pop(path)
            if path not in self.lost:
                with contextlib.suppress(OSError):
                    fallback.unlink()  # an older copy: the path holds the whole game again
                    note = " " + _("(its older copy %(path)s is removed)", path=fallback)
            self.lost.discard(path)
            self.table.show_message(_("The record is saved again to %(path)s", path=path) + note + ".", "hint")

    def _save_elsewhere(self, path: Path, record: MatchRecord, exc: OSError | None = None, lost: str = "") -> str:
        """Save ``record``, which cannot be saved to ``path`` (``exc``; None: the fault already noted),
        to the temporary directory: one unused name a match (:attr:`fallbacks`), kept until the path
        takes it again.  Notes the fault (:attr:`faults`) and returns the line that says where the
        record is: ``"cannot save the record to PATH: No space left on device; saved to /tmp/NAME
        instead"``, or, when that fails too, ``"...; nor to /tmp/NAME: ...; the game is kept in memory"``
        (``lost``, when given, instead of "the game is kept in memory")."""
        if exc is not None:
            self.faults[path] = _("cannot save the record to %(path)s: %(why)s", path=path, why=exc.strerror or exc)
        fallback = self.fallbacks.get(path)
        if fallback is None:
            fallback = self.fallbacks[path] = unused_path(Path(tempfile.gettempdir()), path.stem, path.suffix)
        try:
            record.save(fallback)
        except OSError as again:
            self.lost.add(path)
            return _("%(fault)s; nor to %(path)s: %(why)s; %(lost)s", fault=self.faults[path], path=fallback,
                     why=again.strerror or again, lost=lost or _("the game is kept in memory"))
        self.lost.discard(path)
        return _("%(fault)s; saved to %(path)s instead", fault=self.faults[path], path=fallback)

    def _hint(self, position: Position) -> tuple[Move, str]:
        """The ``strong`` level's move for the person, and "wins by force in N" when the win is proven."""
        move, result = self._hints(position, self.config.think_s, self.config.nodes)
        if result.exact and result.value > WIN_BOUND:
            return move, _("wins by force in %(n)d", n=(WIN - result.value + 1) // 2)
        return move, ""

    async def _seed(self, deal_number: int) -> bytes:
        if self.config.seed is None:
            return await urandom_seed(deal_number)
        return deal_seed(self.config.seed, deal_number, self._match)

    async def _trio_main(self) -> MatchRecord:
        c = self.config
        human = HumanPlayer(self.table, PlayerInfo(c.name, "human"), hint=self._hint)
        ai = AIPlayer(c.level, budget_s=c.think_s, seed=c.seed, name=f"AI {c.level}", max_nodes=c.nodes)
        self.table.set_players((shown_name(human.info.name), shown_name(ai.info.name)), 0)
        resume = c.resume
        if resume is not None:
            my_trump, ai_trump = resume.trumps
            ai.info = resume.players[1]
        else:
            my_trump = c.trump if c.trump is not None else await human.choose_trump(None)
            ai_trump = choose_trump(my_trump, self._rng) if c.position is None else c.position.trumps[1]
        while True:
            match = Match(c.rules, trumps=(my_trump, ai_trump), players=(human.info, ai.info), started=started_now(),
                          allow_undo=True, start=c.position if resume is None else None, resume=resume)
            if resume is not None:
                self.table.state.score_halves = resume.score_halves()
                human.note_once = _("Continued where you stopped (%(where)s), with the saved game's level and rules: "
                                    "AI %(level)s, %(rules)s.", where=where_stopped(resume), level=c.level,
                                    rules=short_rules(c.rules))
            else:
                self.table.show_message(_("Your trump is %(mine)s; %(name)s takes %(theirs)s.",
                                          mine=suit_label(my_trump), name=shown_name(ai.info.name),
                                          theirs=suit_label(ai_trump)))
            record = await play(match, (human, ai), seed_source=self._seed, on_record=self._save)
            if not human.play_again:
                return record
            human.play_again = False
            resume = None
            self._match += 1
            self.record_path = record_name(self.record_path.parent, c.level, datetime.now())
            self.table.record_path = str(self.record_path)
            self.table.new_match()

    async def run(self) -> QuitResult:
        """Run the UI and the match until the match ends and the person leaves, or they quit.

        Exceptions from the match loop (a bug) propagate after the UI has closed.
        """
        guest: TrioGuest[MatchRecord] = TrioGuest(self._trio_main)
        guest.start(on_done=lambda: self.table.exit(QuitResult.FINISHED))
        with self.termination:
            try:
                result = await self.table.application.run_async(handle_sigint=False)  # SIGINT: termination
            finally:
                guest.cancel()
                with contextlib.suppress(GuestCancelled):
                    await guest.wait()
        return result


def shown_name(name: str) -> str:
    """A player's name as the table shows it: the record's ``"You"`` (the person's name when
    ``--name`` is not given) and ``"AI normal"`` in the person's language, any other as it is."""
    if name == "You":
        return _("You")
    if name.startswith("AI ") and name[3:] in ("random", "greedy", "normal", "strong"):
        return _("AI %(level)s", level=level_name(name[3:]))
    return name


def level_name(level: str) -> str:
    """An AI level (``random``, ``greedy``, ``normal``, ``strong``: the values of ``--ai``) as the table says it."""
    names = {"random": pgettext("AI level", "random"), "greedy": pgettext("AI level", "greedy"),
             "normal": pgettext("AI level", "normal"), "strong": pgettext("AI level", "strong")}
    return names.get(level, level)


def score_lines(records: list[MatchRecord], ascii_only: bool = False) -> list[str]:
    """The closing score of a ``play`` session (:func:`~.view.session_score_lines`), the person in
    seat 0 of each record (protocol/record.md): one match -> ``["Score: Ann 1 : 0 AI random"]``;
    after "play again", the matches won over all of them, then each match's score, " (unfinished)"
    marking a match not played to its end."""
    if not records:
        return []
    names = (shown_name(records[-1].players[0].name), shown_name(records[-1].players[1].name))
    return session_score_lines(names, [(*r.score_halves(), "" if r.finished else "unfinished") for r in records],
                               ascii_only)


def _print(text: str) -> None:
    """Print to stdout; a terminal that is gone (after SIGHUP) is not an error."""
    with contextlib.suppress(OSError):
        print(text, flush=True)


def _config(args: argparse.Namespace, ascii_only: bool) -> PlayConfig:
    """:func:`config_from_args`, its faults as :class:`~p2ptrumps.command.CommandError` (status 2)."""
    try:
        return config_from_args(args, ascii_only=ascii_only)
    except PositionTextError as exc:
        raise CommandError(f"--position: {tr(exc)}", usage=True) from None
    except ContinueConflict as exc:
        raise CommandError(str(exc), usage=True) from None
    except NoGameToContinue as exc:
        raise CommandError(_("%(why)s (start one with `%(command)s`)", why=exc, command=typed("play"))) from None


def run(args: argparse.Namespace) -> int:
    """Entry point of ``p2ptrumps play``; returns the exit status: 0; 1 if a record could not be
    saved to its path at the end (it is then in the temporary directory: the line says where); 128 +
    the signal's number after SIGINT, SIGTERM or SIGHUP (130, 143, 129; the record saved).  Raises
    :class:`~p2ptrumps.command.CommandError` (status 2, nothing created) without a full-screen terminal
    or with an unwritable records directory."""
    if why := terminal_problem(sys.stdin, sys.stdout):
        _config(args, bool(args.ascii))  # a fault of the options is named first (it reads, writes nothing)
        raise CommandError(_("this needs a full-screen terminal: %(why)s (for a match between AIs use "
                             "`%(arena)s`; to print a saved match, `%(replay)s`)", why=tr(why), arena=typed("arena"),
                             replay=typed("replay FILE --text")))
    ascii_only, note = choose_ascii(bool(args.ascii), bool(getattr(args, "unicode", False)),
                                    probe_fds=std_fds())
    config = _config(args, ascii_only)
    try:
        prepare_dir(config.record_path.parent)
    except OSError as exc:
        raise CommandError(_("cannot write records to %(dir)s: %(why)s (choose another directory with --log-dir)",
                             dir=config.record_path.parent, why=exc.strerror or exc)) from None
    if note:
        say(args, note)
    if config.resume is not None:
        _print(_("Continuing %(path)s (%(where)s) with the saved game's level and rules: AI %(level)s; %(rules)s",
                 path=config.record_path, where=where_stopped(config.resume), level=config.level,
                 rules=config.rules.describe()))
    session = PlaySession(config)
    try:
        asyncio.run(session.run())  # finished or quit: each record says whether its match is finished
    except OSError:
        if session.termination.signal is None:
            raise
        # the terminal went away (SIGHUP); the record was saved after every move
    return closing(args, session)


def closing(args: argparse.Namespace, session: PlaySession) -> int:
    """Print the closing lines of a ``play`` session that ran: the score (:func:`score_lines`), where
    each record is -- a record that could not be saved to its path is saved once more to its file in
    the temporary directory and named there on stderr -- how to go on with an unfinished game, and
    the signal that stopped it; returns the exit status (:func:`run`)."""
    stopped = session.termination
    status = 0
    if session.record is not None:
        for line in score_lines(list(session.records.values()), session.table.options.ascii_only):
            _print(line)
        for path in session.saved:
            if path not in session.faults:
                _print(_("Record saved: %(path)s", path=path))
                continue
            status = 1
            # once more: the last try may have failed
            say(args, session._save_elsewhere(path, session.records[path], lost=_("the record is lost")))
        if not session.record.finished and session.record_path not in session.lost:
            where = session.fallbacks[session.record_path].parent if session.record_path in session.faults else (
                args.log_dir)
            option = f" --log-dir {shlex.quote(str(where))}" if where else ""
            _print(_("Go on with it later: %(command)s", command=typed("play --continue") + option))
    elif not session.saved:
        _print(_("No move was made: no record saved."))
    if stopped.signal is not None:
        say(args, _("stopped by %(signal)s", signal=stopped.name))
        return status or stopped.exit_status or 1
    return status
