"""``p2ptrumps history``: every match this data directory holds, and a score per opponent.

Source: README.md "Commands"; the index file is specified in ``protocol/files.md`` ("history.json").

The sources of truth are the files themselves: the offline game records in
``<data>/records/*.json`` (``protocol/record.md``) and the match logs of networked
matches in ``<data>/logs/*.p2plog`` (``protocol/wire.md`` §12).  Reading a
thousand logs means verifying a thousand logs, so what was learnt from each file
is kept in ``<data>/history.json``, keyed by the file's name, size and
modification time; an entry whose file changed (or a missing or damaged index)
is simply read again from the file.  The index is a cache: deleting it loses
nothing.

A networked result counts in the summary only when its log verifies (``VALID``,
the match complete); an offline record counts when it replays and is finished.
Everything else is listed with what is wrong, and not counted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import platformdirs

from ..command import CommandError
from ..files import UnreadableFileError, read_limited, write_atomic
from ..i18n import _, columns, ngettext, pgettext, tr
from ..message import N_, Message, message_of
from ..record import FORMAT as RECORD_FORMAT
from ..record import MatchRecord
from ..rules import RuleSet
from ..text import counted, halves_text
from ..wire.log import LOG_MAGIC
from ..wire.verify import verify_log
from .replay import started_from_name
from .verify import MAX_LOG_BYTES

#: The index file in the data directory (``protocol/files.md``).
INDEX_NAME = "history.json"
INDEX_FORMAT = "p2ptrumps-history-index"
#: Bump when :class:`Entry` changes: an index of another version is rebuilt from the files.
INDEX_VERSION = 4  # 2: a complete log's score is the signed one; 3: results as verify decides them, disputes;
# 4: a deal's first dispute takes its claim back, its second settles it; abandonments
#: The largest offline record read (bytes): a 1000-deal record is a few MB.
MAX_RECORD_BYTES = 64 * 2**20

RESULTS = ("won", "drawn", "lost", "undecided")


@dataclass
class Entry:
    """What ``history`` knows of one match file.

    Attributes:
        path: the file, relative to the data directory (``records/…json``, ``logs/…p2plog``).
        kind: ``"offline"`` (a game record against the AI) or ``"network"`` (a match log).
        started: when the match started, ``YYYY-MM-DDTHH:MM:SSZ`` (UTC), or ``""`` if unknown.
        me: the name this data directory's player had in the match.
        opponent: the opponent's name (an AI's: ``"AI normal"``).
        opponent_id: who the opponent is: a key fingerprint (network) or ``"ai:LEVEL"``.
        rules: the rules in a few words, e.g. ``"36 cards, 3 deals"``.
        score: points of ``me`` and of the opponent: a complete match log's signed score (which
            counts the deals a leave forfeited, ``wire.md`` §15), else over the finished deals.
        result: ``"won"``, ``"drawn"``, ``"lost"`` (a complete match whose result is decided, as ``verify``
            decides it: ``protocol/verify.md`` §5, ``decided``), ``"undecided"`` (complete, but its deals
            without a result could change who won: never won or drawn), or ``"unfinished"``; from
            ``me``'s side.
        check: ``"verified"`` (a valid, complete match log), ``"record"`` (an offline record that
            replays), or one line saying what is wrong (``"invalid: …"``, ``"unreadable: …"``,
            ``"unfinished log"``).
        counts: whether the result counts in the summary (finished, and verified or a good record).
        claimed: the result rests on a claim on time that stands (``wire.md`` §16), not on play.
        disputes: the claims on time disputed in the match (by either seat: a log cannot tell who was right).
        no_result: the deals of a complete match without a result, ``[number, why]`` in order, ``why``
            ``"disputed"`` or ``"not played"`` (``protocol/files.md``, "history.json").
        abandoned: ``"me"`` or ``"opponent"``: who ended the match as abandoned by the other
            (``wire.md`` §15.1); ``""`` for neither.
        outages: the reconnections on ``me``'s steps and on the opponent's (``verify.md`` §5).
        match_id: which match of whose side the file holds, so that two copies of one are one
            match: ``"<game id>-<seat>"`` for a match log (``wire.md`` §13), ``"<started>-<first
            deal's seed>"`` for a record; ``""`` if unknown.
    """

    path: str
    kind: str
    started: str = ""
    me: str = ""
    opponent: str = ""
    opponent_id: str = ""
    rules: str = ""
    score: tuple[float, float] = (0.0, 0.0)
    result: str = "unfinished"
    check: str = ""
    counts: bool = False
    claimed: bool = False
    disputes: int = 0
    no_result: list[list[Any]] = field(default_factory=list)
    abandoned: str = ""
    outages: tuple[int, int] = (0, 0)
    match_id: str = ""

    @property
    def is_match(self) -> bool:
        """Whether the file was read as a match at all (its opponent is known); a file that is no
        record or match log, or too damaged to name the players, is listed apart, never as a row."""
        return bool(self.opponent or self.opponent_id)

    @property
    def opponent_label(self) -> str:
        """How the opponent is shown: ``"Hana (3HAG)"`` (name and the fingerprint's first group),
        or ``"AI normal"``."""
        if self.kind == "network" and self.opponent_id:
            return f"{self.opponent} ({self.opponent_id[:4]})"
        return self.opponent

    def to_json(self) -> dict[str, Any]:
        """The entry as JSON (the index and ``--json`` use this shape)."""
        d = asdict(self)
        d["score"] = list(self.score)
        d["outages"] = list(self.outages)
        return d

    @classmethod
    def from_json(cls, data: Any) -> Entry:
        """An entry from :meth:`to_json`'s shape; ``ValueError`` (or ``TypeError``) if it is not one."""
        if not isinstance(data, dict):
            raise ValueError("not an object")
        entry = cls(**data)
        score = data.get("score")
        if not (isinstance(score, list) and len(score) == 2 and all(isinstance(x, int | float) for x in score)):
            raise ValueError("bad score")
        entry.score = (float(score[0]), float(score[1]))
        outages = data.get("outages")
        if not (isinstance(outages, list) and len(outages) == 2 and all(type(x) is int for x in outages)):
            raise ValueError("bad outages")
        entry.outages = (outages[0], outages[1])
        if not (type(entry.disputes) is int and isinstance(entry.no_result, list)
                and all(isinstance(d, list) and len(d) == 2 and type(d[0]) is int and isinstance(d[1], str)
                        for d in entry.no_result)):
            raise ValueError("bad disputes or no_result")
        for name in ("path", "kind", "started", "me", "opponent", "opponent_id", "rules", "result", "check",
                     "abandoned", "match_id"):
            if not isinstance(getattr(entry, name), str):
                raise ValueError(f"bad {name}")
        return entry


def _rules_text(r: RuleSet) -> str:
    return N_("%(pack)s, %(deals)s", pack=counted(r.pack_size, "card"), deals=counted(r.deals, "deal"))


def _result(mine: float, theirs: float, finished: bool) -> str:
    if not finished:
        return "unfinished"
    return "won" if mine > theirs else "lost" if mine < theirs else "drawn"


def _score(record: MatchRecord, seat: int) -> tuple[float, float]:
    halves = record.score_halves()
    return halves[seat] / 2, halves[1 - seat] / 2


def read_record(path: Path, rel: str) -> Entry | None:
    """The entry of an offline game record; None for a record with no human seat (an arena game)."""
    entry = Entry(rel, "offline")
    try:
        data = read_limited(path, MAX_RECORD_BYTES)
        text = data.decode("utf-8")
        raw = json.loads(text)
        if not (isinstance(raw, dict) and raw.get("format") == RECORD_FORMAT):
            entry.check = N_("not a record: JSON, but not a %(format)s file", format=RECORD_FORMAT)
            return entry
        record = MatchRecord.from_json(raw)
        record.check()
    except UnreadableFileError as exc:
        entry.check = N_("unreadable: %(fault)s", fault=message_of(exc))
        return entry
    except UnicodeDecodeError:
        entry.check = N_("not a record: not UTF-8 text")
        return entry
    except json.JSONDecodeError as exc:
        where = {"line": exc.lineno, "column": exc.colno}
        if RECORD_FORMAT.encode() in data:
            if exc.pos >= len(text.rstrip()):
                entry.check = N_("damaged record: the JSON stops early at line %(line)d column %(column)d", **where)
            else:
                entry.check = N_("damaged record: %(fault)s at line %(line)d column %(column)d", fault=exc.msg, **where)
        else:
            entry.check = N_("not a record: not JSON (%(fault)s at line %(line)d column %(column)d)", fault=exc.msg,
                             **where)
        return entry
    except RecursionError:
        entry.check = N_("not a record: JSON nested too deeply")
        return entry
    except ValueError as exc:  # RecordError: a record of ours whose fields or deals do not check
        said = str(exc)
        fault = message_of(exc) if said and "\n" not in said else said.splitlines()[0] if said else type(exc).__name__
        entry.check = N_("damaged record: %(fault)s", fault=fault)
        return entry
    humans = [i for i, p in enumerate(record.players) if p.kind == "human"]
    if not humans:
        return None
    me = humans[0]
    them = record.players[1 - me]
    entry.started = record.started
    entry.me = record.players[me].name
    entry.opponent = f"AI {them.kind.removeprefix('ai:')}" if them.kind.startswith("ai:") else them.name
    entry.opponent_id = them.kind if them.kind.startswith("ai:") else them.name
    entry.rules = _rules_text(record.rules)
    entry.score = _score(record, me)
    entry.result = _result(*entry.score, record.finished)
    entry.check = "record"
    entry.counts = record.finished
    entry.match_id = f"{record.started}-{record.deals[0].seed.hex() if record.deals else ''}"
    return entry


def read_log(path: Path, rel: str) -> Entry:
    """The entry of a networked match log, checked by :func:`~p2ptrumps.wire.verify.verify_log`."""
    entry = Entry(rel, "network", started=started_from_name(path))
    try:
        data = read_limited(path, MAX_LOG_BYTES)
    except UnreadableFileError as exc:
        entry.check = N_("unreadable: %(fault)s", fault=message_of(exc))
        return entry
    if not data.startswith(LOG_MAGIC[:-2]):
        entry.check = N_("not a match log (it does not start as one)")
        return entry
    verdict = verify_log(data)
    seat = verdict.owner
    if verdict.game_id and seat is not None:
        entry.match_id = f"{verdict.game_id}-{seat}"
    if verdict.players and seat is not None:
        entry.me = verdict.players[seat][0]
        entry.opponent, entry.opponent_id = verdict.players[1 - seat]
    if verdict.status == "invalid":
        entry.check = N_("invalid: %(fault)s", fault=verdict.reason)
        return entry
    if verdict.status == "unreadable":
        entry.check = N_("unreadable: %(fault)s", fault=verdict.reason)
        return entry
    try:
        record: MatchRecord | None = verdict.to_record()
    except ValueError:  # no trumps chosen: no deal was played
        record = None
    finished = verdict.status == "valid"
    # Complete with no deal played: a side left at the trump choice and forfeited every deal (wire.md §15).
    rules = record.rules if record is not None else verdict.rules if finished else None
    if rules is None:
        entry.check = N_("unfinished log (no deal was played)")
        return entry
    entry.rules = _rules_text(rules)
    if seat is not None and finished:  # the signed score: it counts deals forfeited by a leave (wire.md §15)
        entry.score = verdict.score_halves[seat] / 2, verdict.score_halves[1 - seat] / 2
    elif seat is not None and record is not None:
        entry.score = _score(record, seat)
    winner = verdict.winner  # as verify decides it (verify.md §5): deals without a result may leave it open
    entry.result = ("unfinished" if not finished or seat is None else "undecided" if not verdict.decided
                    else "drawn" if winner is None else "won" if winner == seat else "lost")
    disputes = [x for x in verdict.disputed if x is not None]
    entry.claimed = len(verdict.claims) > len(disputes)
    entry.disputes = len(disputes)
    entry.no_result = [[n, why] for n, why in verdict.no_result()]
    ending = verdict.abandonments[-1] if finished and verdict.abandonments else None
    if ending is not None and ending[3] is None and seat is not None:  # the match ends abandoned (wire.md §15.1)
        entry.abandoned = "me" if ending[0] == seat else "opponent"
    if seat is not None:
        entry.outages = (verdict.outages[seat], verdict.outages[1 - seat])
    entry.check = "verified" if finished else "unfinished log"
    entry.counts = finished and seat is not None
    return entry


@dataclass
class History:
    """The matches of one data directory (newest first), the files of ``records/`` and ``logs/`` not
    read as a match (``others``, by path: each :class:`Entry`'s ``check`` says why) and how many files
    were read anew."""

    data: Path
    entries: list[Entry] = field(default_factory=list)
    read: int = 0
    others: list[Entry] = field(default_factory=list)


def _files(data: Path) -> Iterator[tuple[Path, str]]:
    for sub, suffix in (("records", ".json"), ("logs", ".p2plog")):
        folder = data / sub
        with contextlib.suppress(OSError):
            for p in sorted(folder.iterdir()):
                if p.name.endswith(suffix) and not p.name.startswith("."):
                    yield p, f"{sub}/{p.name}"


def _load_index(data: Path) -> dict[str, Any]:
    try:
        raw = json.loads(read_limited(data / INDEX_NAME, MAX_RECORD_BYTES).decode("utf-8"))
    except (UnreadableFileError, UnicodeDecodeError, ValueError, RecursionError):
        return {}
    if not (isinstance(raw, dict) and raw.get("format") == INDEX_FORMAT and raw.get("version") == INDEX_VERSION):
        return {}
    files = raw.get("files")
    return files if isinstance(files, dict) else {}


def read_file(path: Path, rel: str) -> Entry | None:
    """The entry of one file of ``records/`` or ``logs/`` (:func:`read_record`, :func:`read_log`)."""
    return read_record(path, rel) if rel.startswith("records/") else read_log(path, rel)


#: From this many files to read on, they are read by a pool of processes (one per core).
POOL_FROM = 16


def _read_all(files: list[tuple[Path, str]], progress: Callable[[str], None] | None) -> Iterator[Entry | None]:
    if len(files) < POOL_FROM:
        for path, rel in files:
            yield read_file(path, rel)
        return
    if progress is not None:
        progress(ngettext("reading %(n)d match file not read before (each log is verified once) ...",
                          "reading %(n)d match files not read before (each log is verified once) ...", len(files)))
    workers = max(1, min(os.cpu_count() or 1, 8))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(read_file, *zip(*files, strict=True), chunksize=8)


def load_history(data: Path, *, write_index: bool = True,
                 progress: Callable[[str], None] | None = None) -> History:
    """Every match file under ``data`` as :class:`Entry` values, newest first.

    Each file is read (and a log verified) only when the index has no entry for its name,
    size and modification time (nanoseconds); many such files are read by a process pool
    (:data:`POOL_FROM`), and ``progress`` is told so first.  The index is then rewritten
    atomically.  An
    index that cannot be written is no error (a read-only data directory still lists).
    Never raises for a bad file: its entry says what is wrong.
    """
    index = _load_index(data)
    fresh: dict[str, Any] = {}
    history = History(data)
    stale: list[tuple[Path, str, list[int]]] = []
    for path, rel in _files(data):
        try:
            info = path.stat()
        except OSError:
            continue
        stamp = [info.st_size, info.st_mtime_ns]
        cached = index.get(rel)
        if isinstance(cached, dict) and cached.get("stamp") == stamp:
            try:
                entry = None if cached.get("entry") is None else Entry.from_json(cached["entry"])
            except (ValueError, TypeError):
                pass
            else:
                fresh[rel] = cached
                if entry is not None:
                    history.entries.append(entry)
                continue
        stale.append((path, rel, stamp))
    for (_path, rel, stamp), entry in zip(stale, _read_all([(p, r) for p, r, _s in stale], progress), strict=True):
        history.read += 1
        fresh[rel] = {"stamp": stamp, "entry": None if entry is None else entry.to_json()}
        if entry is not None:
            history.entries.append(entry)
    if write_index and (history.read or fresh.keys() != index.keys()):
        with contextlib.suppress(OSError):
            text = json.dumps({"format": INDEX_FORMAT, "version": INDEX_VERSION, "files": fresh},
                              ensure_ascii=False, separators=(",", ":"))
            write_atomic(data / INDEX_NAME, text + "\n", prefix=".history-")
    history.others = sorted((e for e in history.entries if not e.is_match), key=lambda e: e.path)
    history.entries = sorted((e for e in history.entries if e.is_match), key=newest_order, reverse=True)
    _count_copies_once(history.entries)
    return history


def _count_copies_once(entries: list[Entry]) -> None:
    """Two files that count of one match (the same :attr:`Entry.match_id`: a log copied, a record
    saved twice) count once: the first by path; each other stays a row that does not count, its
    check naming the one kept.  A copy that does not count anyway (unfinished, invalid) keeps its
    own check."""
    copies: dict[str, list[Entry]] = {}
    for e in entries:
        if e.match_id and e.counts:
            copies.setdefault(e.match_id, []).append(e)
    for same in copies.values():
        kept = min(same, key=lambda e: e.path)
        for e in same:
            if e is not kept:
                e.counts = False
                e.check = N_("a copy of %(path)s (one match, counted once)", path=kept.path)


@dataclass
class Tally:
    """One opponent's line of the summary: counted matches, won/drawn/lost, the current streak."""

    opponent: str
    opponent_id: str
    played: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    undecided: int = 0
    streak: str = ""
    #: Claims on time disputed in these matches, by either seat (``wire.md`` §16: no log tells who was right).
    disputes: int = 0
    #: Reconnections on our steps and on the opponent's (``verify.md`` §5, ``outages``).
    outages: list[int] = field(default_factory=lambda: [0, 0])
    #: Matches we ended as abandoned by the opponent, and that it ended as abandoned by us (``wire.md`` §15.1).
    abandoned: list[int] = field(default_factory=lambda: [0, 0])

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


#: A file name's ``-N`` before its extension: the N-th file of one minute (``unused_path``).
_NUMBERED = re.compile(r"^(.*?)(?:-(\d+))?(\.[^./]+)$")


def newest_order(entry: Entry) -> tuple[str, str, int]:
    """A sort key, oldest to newest: the start, then the file name with its ``-N`` counted as a
    number, so that ``…_1805_host_vs-Gus-2.p2plog`` (a rematch in the same minute) comes after
    ``…_1805_host_vs-Gus.p2plog`` (plain text order put ``-`` before ``.``, and ``-10`` before ``-2``)."""
    m = _NUMBERED.match(entry.path)
    if m is None:
        return entry.started, entry.path, 1
    return entry.started, m[1] + m[3], int(m[2] or 1)


def tally(entries: Iterable[Entry]) -> list[Tally]:
    """The summary per opponent (by key for people, by level for the AI) of the entries that
    count, most played first.  ``streak`` is the run of equal results at the newest end:
    ``"W3"`` (three wins), ``"D1"``, ``"L2"``, ``"U1"`` (undecided), ``""`` for none."""
    by: dict[str, Tally] = {}
    newest_first: dict[str, list[str]] = {}
    for e in sorted(entries, key=newest_order, reverse=True):
        if not e.counts or e.result not in RESULTS:
            continue
        key = f"{e.kind}:{e.opponent_id}"
        t = by.setdefault(key, Tally(e.opponent_label, e.opponent_id))
        t.played += 1
        setattr(t, e.result, getattr(t, e.result) + 1)
        t.disputes += e.disputes
        t.outages = [t.outages[0] + e.outages[0], t.outages[1] + e.outages[1]]
        t.abandoned = [t.abandoned[0] + (e.abandoned == "me"), t.abandoned[1] + (e.abandoned == "opponent")]
        newest_first.setdefault(key, []).append(e.result)
    for key, results in newest_first.items():
        run = 0
        while run < len(results) and results[run] == results[0]:
            run += 1
        by[key].streak = f"{results[0][0].upper()}{run}"
    return sorted(by.values(), key=lambda t: (-t.played, t.opponent))


def matches(entry: Entry, opponent: str | None, since: date | None) -> bool:
    """Whether ``entry`` passes the filters: ``opponent`` a case-insensitive part of the
    opponent's name, fingerprint (spaces and dashes ignored) or AI level; ``since`` a day
    (UTC) on or before the match's start (a match of unknown date does not pass)."""
    if opponent:
        want = opponent.casefold().replace("-", "").replace(" ", "")
        hay = (entry.opponent + " " + entry.opponent_id).casefold().replace("-", "").replace(" ", "")
        if want not in hay:
            return False
    if since is not None:
        if not entry.started:
            return False
        with contextlib.suppress(ValueError):
            return datetime.strptime(entry.started, "%Y-%m-%dT%H:%M:%SZ").date() >= since
        return False
    return True


def _when(started: str) -> str:
    try:
        t = datetime.strptime(started, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).astimezone()
    except ValueError:
        return "?"
    return f"{t:%Y-%m-%d %H:%M}"


# ----- the report, in the person's language ---------------------------------------------------------
# What an entry holds is English (history.json and --json are the same in every language); the report
# says it again in the person's language: the fixed words by their English, the rules by their numbers,
# and a file's fault from a fresh reading of the file when the index gave only its English.


def result_word(result: str) -> str:
    """A result of :data:`RESULTS` (or ``unfinished``) in the person's language."""
    words = {"won": pgettext("result", "won"), "drawn": pgettext("result", "drawn"),
             "lost": pgettext("result", "lost"), "undecided": pgettext("result", "undecided"),
             "unfinished": pgettext("result", "unfinished")}
    return words.get(result, result)


_RULES_WORDS = re.compile(r"(\d+) cards?, (\d+) deals?")


def rules_words(rules: str) -> str:
    """An entry's rules (``"36 cards, 3 deals"``) in the person's language; another text as it is."""
    m = _RULES_WORDS.fullmatch(rules)
    if m is None:
        return rules
    return _("%(pack)s, %(deals)s", pack=tr(counted(int(m[1]), "card")), deals=tr(counted(int(m[2]), "deal")))


def opponent_words(opponent: str, opponent_id: str) -> str:
    """The opponent's label as the report shows it: an AI level (``ai:normal``) said in the person's
    language, a person's name (and the start of a key) as it is."""
    if opponent_id.startswith("ai:"):
        from ..ui.play import level_name

        return _("AI %(level)s", level=level_name(opponent_id.removeprefix("ai:")))
    return opponent


def check_words(entry: Entry, data: Path) -> str:
    """An entry's check in the person's language: ``verified``, ``record`` and ``unfinished log`` by
    their English; a fault as it was made (a lazy message) or, when the index gave only its English,
    from the file read again (a file that changed since says its English)."""
    check = entry.check
    fixed = {"verified": pgettext("check", "verified"), "record": pgettext("check", "record"),
             "unfinished log": pgettext("check", "unfinished log")}
    if check in fixed:
        return fixed[check]
    if not isinstance(check, Message) and not check.startswith("a copy of "):
        with contextlib.suppress(OSError, ValueError):
            again = read_file(data / entry.path, entry.path)
            if again is not None and again.check == check:
                check = again.check
    return tr(check)


def others_lines(others: Sequence[Entry], filtered: bool = False, data: Path | None = None) -> list[str]:
    """The files of ``records/`` and ``logs/`` that are no match (or too damaged to name one): a count,
    then one line per file with why (``"  records/notes.json: not a record: not JSON (…)"``); with
    ``filtered`` (``--opponent``/``--since`` given) the count only.  In the person's language
    (``data``: the data directory, where a fault is read again: :func:`check_words`)."""
    if not others:
        return []
    n = len(others)
    head = ngettext("%(n)d file in records/ and logs/ is not a match file",
                    "%(n)d files in records/ and logs/ are not match files", n)
    if filtered:
        return [_("%(files)s (listed by `p2ptrumps history` without --opponent and --since).", files=head)]
    where = data if data is not None else Path()
    return [_("%(files)s (not listed, not counted):", files=head),
            *(f"  {e.path}: {check_words(e, where)}" for e in others)]


def format_text(history: History, shown: list[Entry], ascii_only: bool = False, filtered: bool = False) -> str:
    """The report ``history`` prints, in the person's language: the list (newest first), the summary per
    opponent, then the files that are no match (:func:`others_lines`; ``filtered``: only their count)."""
    others = others_lines(history.others, filtered, history.data)
    if not shown:
        text = "\n".join([_("no matches in %(path)s (offline records in records/, match logs in logs/)",
                            path=str(history.data)), *(["", *others] if others else [])])
        return text.replace("½", ".5") if ascii_only else text
    lines = [ngettext("%(n)d match in %(path)s", "%(n)d matches in %(path)s", len(shown), path=str(history.data)),
             ""]
    # TRANSLATORS: the heads of the columns of `p2ptrumps history`: short words.
    rows = [(pgettext("history", "date"), pgettext("history", "opponent"), pgettext("history", "rules"),
             pgettext("history", "result"), pgettext("history", "check"))]
    for e in shown:
        a, b = (halves_text(round(points * 2)) for points in e.score)
        result = result_word(e.result) if e.result == "unfinished" else f"{result_word(e.result)} {a}-{b}"
        notes = result_notes(e)
        if notes:
            result += f" ({'; '.join(notes)})"
        check = check_words(e, history.data)
        if not (e.counts or e.check in ("verified", "record")):
            check = f"{check} ({e.path})"
        rows.append((_when(e.started), opponent_words(e.opponent_label, e.opponent_id) or "?",
                     rules_words(e.rules) if e.rules else "?", result, check))
    lines += _table(rows)
    not_counted = [e for e in shown if not e.counts]
    if not_counted:
        n = len(not_counted)
        if any(e.check.startswith("a copy of ") for e in not_counted):
            said = ngettext("%(n)d not counted below (unfinished, or the file does not check, or a copy of a match "
                            "counted).", "%(n)d not counted below (unfinished, or the file does not check, or a copy "
                            "of a match counted).", n)
        else:
            said = ngettext("%(n)d not counted below (unfinished, or the file does not check).",
                            "%(n)d not counted below (unfinished, or the file does not check).", n)
        lines += ["", said]
    tallies = tally(shown)
    if tallies:
        lines += ["", _("per opponent:")]
        # TRANSLATORS: the heads of the columns of the summary of `p2ptrumps history`: short words.
        lines += _table([(pgettext("history", "opponent"), pgettext("history", "played"), pgettext("history", "won"),
                          pgettext("history", "drawn"), pgettext("history", "lost"), pgettext("history", "undecided"),
                          pgettext("history", "disputes"), pgettext("history", "outages you/them"),
                          pgettext("history", "abandoned you/them"), pgettext("history", "streak"))]
                        + [(opponent_words(t.opponent, t.opponent_id), str(t.played), str(t.won), str(t.drawn),
                            str(t.lost), str(t.undecided),
                            *(("-", "-", "-") if t.opponent_id.startswith("ai:")  # offline: no clock, no link
                              else (str(t.disputes), f"{t.outages[0]}/{t.outages[1]}",
                                    f"{t.abandoned[0]}/{t.abandoned[1]}")), streak_words(t.streak))
                           for t in tallies])
    if others:
        lines += ["", *others]
    text = "\n".join(lines)
    return text.replace("½", ".5") if ascii_only else text


def streak_words(streak: str) -> str:
    """A :class:`Tally`'s streak (``"W3"``) in the person's language: its letter said in it; ``"-"`` for none."""
    if not streak:
        return "-"
    # TRANSLATORS: the mark of a streak of won (W), drawn (D), lost (L), undecided (U) matches, before its
    # length ("W3"): a letter, or two where the first letters clash.
    letters = {"W": pgettext("streak", "W"), "D": pgettext("streak", "D"), "L": pgettext("streak", "L"),
               "U": pgettext("streak", "U")}
    return letters.get(streak[0], streak[0]) + streak[1:]


def result_notes(e: Entry) -> list[str]:
    """What the result column says beside the score, in the person's language: the deals without a
    result named as such (never won or drawn), who abandoned the match, a result that rests on a claim
    on time: ``["deal 3 disputed", "deals 4-5 not played"]``."""
    notes = []
    for why in ("disputed", "abandoned", "not played"):
        numbers = [n for n, w in e.no_result if w == why]
        if not numbers:
            continue
        run = numbers == list(range(numbers[0], numbers[-1] + 1))
        listed = f"{numbers[0]}-{numbers[-1]}" if run and len(numbers) > 1 else ", ".join(map(str, numbers))
        if why == "disputed":
            notes.append(ngettext("deal %(numbers)s disputed", "deals %(numbers)s disputed", len(numbers),
                                  numbers=listed))
        elif why == "abandoned":
            notes.append(ngettext("deal %(numbers)s abandoned", "deals %(numbers)s abandoned", len(numbers),
                                  numbers=listed))
        else:
            notes.append(ngettext("deal %(numbers)s not played", "deals %(numbers)s not played", len(numbers),
                                  numbers=listed))
    if e.abandoned:
        notes.append(_("abandoned by them") if e.abandoned == "opponent" else _("you abandoned it"))
    if e.claimed:
        notes.append(_("on time"))
    return notes


def _table(rows: Sequence[tuple[str, ...]]) -> list[str]:
    """Rows of cells in columns, each as wide as its widest cell in terminal columns (:func:`i18n.columns`)."""
    widths = [max(columns(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c + " " * (w - columns(c)) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]


def run(args: argparse.Namespace) -> int:
    """Entry point of ``p2ptrumps history``: print the list and summary (``--json``: one JSON
    object with ``matches`` and ``opponents``); 0.  Raises
    :class:`~p2ptrumps.command.CommandError` when the data directory is not a directory."""
    data = Path(args.data_dir) if getattr(args, "data_dir", None) else Path(
        platformdirs.user_data_dir("p2ptrumps", appauthor=False))
    if data.exists() and not data.is_dir():
        raise CommandError(_("%(path)s is not a directory", path=str(data)))
    history = load_history(data, progress=lambda line: print(line, file=sys.stderr, flush=True))
    shown = [e for e in history.entries if matches(e, args.opponent, args.since)]
    if args.json:
        print(json.dumps({"data_dir": str(data), "matches": [{**e.to_json(), "path": str(data / e.path)}
                                                             for e in shown],
                          "opponents": [t.to_json() for t in tally(shown)],
                          "not_matches": [{"path": str(data / e.path), "why": e.check} for e in history.others]},
                         indent=1, ensure_ascii=False))
    else:
        encoding = (getattr(sys.stdout, "encoding", None) or "ascii").lower()
        print(format_text(history, shown, ascii_only="utf" not in encoding,
                          filtered=bool(args.opponent or args.since)))
    with contextlib.suppress(OSError):
        sys.stdout.flush()
    return 0

