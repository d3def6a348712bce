"""The pseudo-language: every text of the catalog, and nothing else, is marked; a surface run in it
must show no English word left unmarked.

The pseudo-language ``en_XA`` is made here from the template (``p2ptrumps/locale/p2ptrumps.pot``):
each translation is its English text with every Latin letter outside a placeholder turned into a
look-alike with a mark (``Pile`` -> ``Ƥïĺë``), one column wide as before, so the screens keep
their layout.  A command run in it (in-process, or in tmux for the table) prints marked text for
everything that went through the catalog; a plain ASCII word left on the screen came from a text
that did not, and the test names the source line of the literal it came from.

The surface checked (:data:`SURFACE`, and the table in tmux) is what is marked so far; marking a
module means adding its commands here.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from p2ptrumps import i18n
from p2ptrumps.command import typed
from p2ptrumps.commands.main import main
from p2ptrumps.rules import RuleSet
from p2ptrumps.text import AI_LEVELS
from p2ptrumps.wire import messages
from p2ptrumps.wire.errors import FAULT_CODES
from tests.test_ui_tmux import Tmux, wait_for

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "p2ptrumps"
PSEUDO = "en_XA"
VECTORS = ROOT / "protocol" / "vectors"
RECORD = VECTORS / "record-sample.json"
UNFINISHED = VECTORS / "record-unfinished.json"
MATCH_LOG = VECTORS / "wire" / "valid-guest.log"
HOST_LOG = VECTORS / "wire" / "valid-host.log"
CLAIMED_LOG = VECTORS / "clock" / "claim-between-deals.log"
UNFINISHED_LOG = VECTORS / "wire" / "pair-guest-cut.log"
#: A position the solver wins in three turns, and one whose deal is over.
SOLVABLE = "v1/SH/TS9DKD7C/QD/8C/0/0"

_MARKED = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "àƀçďëƒĝĥïĵķĺɱñöƥǫŕšţüṽŵẋýžÀƁÇĎËƑĜĤÏĴĶĹṀÑÖƤǪŔŠŢÜṼŴẊÝŽ",
)
_PLACEHOLDER = re.compile(r"(%%\([a-z_]+\)[sd]|%\([a-z_]+\)[sd]|%%|\{[a-z_]+\})")


def pseudo(text: str) -> str:
    """``text`` with its letters marked, its placeholders kept: ``"%(n)d cards"`` -> ``"%(n)d çàŕďš"``."""
    return "".join(part if _PLACEHOLDER.fullmatch(part) else part.translate(_MARKED)
                   for part in _PLACEHOLDER.split(text))


def make_pseudo(root: Path) -> Path:
    """The pseudo-language's catalog and rule book under ``root`` (a ``P2PTRUMPS_LOCALEDIR``)."""
    with (PACKAGE / "locale" / "p2ptrumps.pot").open("rb") as f:
        template = read_po(f)
    catalog = Catalog(locale="en", fuzzy=False)
    for m in template:
        if m.id:
            strings = tuple(pseudo(x) for x in m.id) if isinstance(m.id, tuple) else pseudo(m.id)
            catalog.add(m.id, strings, context=m.context, flags=m.flags - {"fuzzy"})
    folder = root / PSEUDO / "LC_MESSAGES"
    folder.mkdir(parents=True)
    out = io.BytesIO()
    write_mo(out, catalog)
    (folder / "p2ptrumps.mo").write_bytes(out.getvalue())
    rules = (PACKAGE / "ui" / "RULES.md").read_text(encoding="utf-8")
    (root / PSEUDO / "RULES.md").write_text(pseudo(rules), encoding="utf-8")
    return root


#: Bytes of MATCH_LOG changed by one bit for ``verify`` (each names another fault): a bin over its limit, a
#: frame's type, a frame's length, a message's kind, a message of the owner's seat, the host's signature,
#: a str that is not UTF-8.
DAMAGED = (35, 112, 189, 245, 336, 483, 931)


def fill_data_dir(data: Path) -> None:
    """A data directory for ``history`` and the faults of ``replay``: two offline records (one finished, one
    not), a networked match log, a record whose fourth move is illegal, one cut short, a JSON file that is
    no record and a text that is no JSON."""
    (data / "records").mkdir(parents=True)
    (data / "logs").mkdir()
    shutil.copy2(RECORD, data / "records" / RECORD.name)
    shutil.copy2(UNFINISHED, data / "records" / UNFINISHED.name)
    shutil.copy2(MATCH_LOG, data / "logs" / "2026-01-01_1200_guest_vs-host.p2plog")
    bad = json.loads(RECORD.read_text(encoding="utf-8"))
    bad["deals"][0]["moves"][3] = "7S"
    (data / "records" / "bad.json").write_text(json.dumps(bad), encoding="utf-8")
    (data / "records" / "cut.json").write_text(RECORD.read_text(encoding="utf-8")[:200], encoding="utf-8")
    (data / "records" / "list.json").write_text("[1, 2]", encoding="utf-8")
    (data / "records" / "notes.json").write_text("hello", encoding="utf-8")
    log = MATCH_LOG.read_bytes()
    for at in DAMAGED:
        (data / f"damaged-{at}.p2plog").write_bytes(log[:at] + bytes([log[at] ^ 1]) + log[at + 1:])


@pytest.fixture
def pseudo_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = make_pseudo(tmp_path / "locale")
    monkeypatch.setenv(i18n.LOCALEDIR_VARIABLE, str(root))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    fill_data_dir(tmp_path / "data" / "p2ptrumps")
    yield root


# ----- finding what was left unmarked, and where it comes from ----------------------------------

_WORD = re.compile(r"[A-Za-z]{2,}(?:'[a-z]+)?(?:[ -][A-Za-z]{2,}(?:'[a-z]+)?)*")


@functools.cache
def _literals() -> list[tuple[str, int, str]]:
    """Every string literal of the package (f-string parts too) with its file and line, docstrings left out."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        rel = path.relative_to(ROOT).as_posix()
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
                found.append((rel, node.lineno, node.value))
    return found


def source_of(phrase: str) -> str:
    """Where an unmarked phrase comes from: ``"p2ptrumps/ui/view.py:512"`` for each literal holding it
    (its first word when no literal holds it whole), or ``"?"``."""
    literals = _literals()
    for needle in (phrase, phrase.split()[0]):
        places = [f"{path}:{line}" for path, line, text in literals if needle in text]
        if places:
            return ", ".join(places[:3])
    return "?"


#: What a machine reads, shown as it is in every language: position texts (and the lines of one broken
#: after its "/"), seeds in hex, key fingerprints (and the start of one beside a name).
_NOT_WORDS = re.compile(r"v1/[0-9A-Za-z/.-]*|(?m:^ [0-9A-Z][0-9A-Z/-]*/(?:[0-9a-z.]*)$)"
                        r"|\b\d+\.(?:no)?sixes\.\w+\.r\d+\.t\d+\b|\b[0-9a-f]{16,}\b"
                        r"|\b[A-Z2-7]{4}(?:-[A-Z2-7]{4}){7}\b|\([A-Z2-7]{4}\)")


def unmarked(text: str, allowed: tuple[str, ...] = ()) -> list[str]:
    """The English left unmarked in ``text`` (runs of ASCII words of two letters or more), each with
    where it comes from; ``allowed`` are texts that are no words of ours (names, paths, fingerprints),
    and so are position texts, seeds and fingerprints (:data:`_NOT_WORDS`)."""
    text = _NOT_WORDS.sub(" ", text)
    for item in sorted(allowed, key=len, reverse=True):
        text = text.replace(item, " ")
    return [f"{m[0]!r} from {source_of(m[0])}" for m in _WORD.finditer(text)]


def test_the_pseudo_language_marks_every_letter_and_keeps_placeholders() -> None:
    assert pseudo("Deal %(number)d of %(deals)d: {name} leads, 95%%") == (
        "Ďëàĺ %(number)d öƒ %(deals)d: {name} ĺëàďš, 95%%")
    assert unmarked("Ƥïĺë (3): 7♠ ţöƥ ▶ J♠ ◀") == []
    assert unmarked("hand hidden (o shows it)") == [
        "'hand hidden' from p2ptrumps/ui/view.py:" + source_of("hand hidden").split("view.py:")[1],
        "'shows it' from " + source_of("shows it")]
    assert source_of("hand hidden").startswith("p2ptrumps/ui/view.py:")


# ----- the surface run in the pseudo-language ---------------------------------------------------

COMMANDS = ["", "play", "replay", "arena", "host", "join", "resume", "verify", "solve", "analyse", "history", "id",
            "rules"]

#: Commands run in-process in the pseudo-language: the arguments and the exit status.  Their output may
#: hold unmarked only what is no word of ours: the data directory's paths, the key's fingerprint, the
#: person's name, and in a help text or a usage line argparse's own listing (options, metavars, command
#: names, default values).  The next phase adds its commands here.
SURFACE: list[tuple[list[str], int]] = [
    (["id"], 0),
    (["id", "--name", "Ωμέγα"], 0),
    (["rules", "--no-pager"], 0),
    *(([command, "--help"] if command else ["--help"], 0) for command in COMMANDS),
    (["play", "--seed", "x"], 2),  # a bad value: the usage line and its error
    (["play", "--ascii", "--unicode"], 2),
    (["arena", "normal"], 2),
    (["id", "--frobnicate"], 2),
    (["--lang", PSEUDO, "solve", "--threads", "0", "v1/SH/6S/9D/9C/0/1"], 2),
    (["nosuchcommand"], 2),
    # history's report, replay --text of a record and of a match log, and their faults ("{data}": the data
    # directory of fill_data_dir)
    (["history"], 0),
    (["history", "--opponent", "greedy"], 0),
    (["history", "--since", "2100-01-01"], 0),
    (["replay", "--text", str(RECORD)], 0),
    (["replay", "--text", str(UNFINISHED)], 0),
    (["replay", "--text", str(MATCH_LOG)], 0),
    (["replay", "--text", "{data}/records/bad.json"], 2),
    (["replay", "--text", "{data}/records/cut.json"], 2),
    (["replay", "--text", "{data}/records/list.json"], 2),
    (["replay", "--text", "{data}/records/none.json"], 2),
    (["replay", "--text", "{data}"], 2),
    (["replay", str(RECORD)], 2),  # the viewer without a terminal
    (["play", "--position", "v1/SH/6S7SKS/9D6H"], 2),
    (["play", "--position", "v1/SH/6S7SXS/9D6H/9CTC/0/12"], 2),
    (["play", "--position", "v1/SH/6S7SKS/9D6H/9CTC/0/12/36.sixes.must.r1.t1000"], 2),
    (["play", "--repetition", "1"], 2),
    (["play", "--repetition", "0", "--turn-limit", "0"], 2),
    (["play", "--trump", "x"], 2),
    (["play", "--name", "a\tb"], 2),
    # verify's reports and faults, solve's and arena's reports
    (["verify", str(MATCH_LOG)], 0),
    (["verify", str(CLAIMED_LOG)], 0),
    (["verify", str(UNFINISHED_LOG)], 3),
    (["verify", str(MATCH_LOG), str(HOST_LOG)], 0),
    (["verify", str(HOST_LOG), str(UNFINISHED_LOG)], 0),
    (["verify", str(RECORD)], 2),
    (["verify", "{data}/records/notes.json"], 2),
    (["verify", "{data}/none.p2plog"], 2),
    *((["verify", f"{{data}}/damaged-{at}.p2plog"], 1) for at in DAMAGED),
    (["analyse", "--nodes", "2000", "--estimate-nodes", "1000", "--depth", "2", str(RECORD)], 0),
    (["analyse", "--nodes", "2000", "--estimate-nodes", "1000", "--depth", "2", "--ascii", str(MATCH_LOG)], 0),
    (["analyse", "{data}/records/cut.json"], 2),
    (["resume", "{data}/none.p2plog"], 1),
    (["resume", str(MATCH_LOG)], 1),  # complete: nothing to resume
    *((["resume", f"{{data}}/damaged-{at}.p2plog"], 1) for at in DAMAGED[-2:]),
    (["join", "127.0.0.1:1", "--timeout", "3", "--headless", "--ai", "random"], 3),  # nobody listens on port 1
    (["solve", "--nodes", "5000", SOLVABLE], 0),
    (["solve", "--nodes", "1000", "v1/SH/6S7SKS/9D6H/9CTC/0/12"], 0),
    (["solve", "--nodes", "1000", "--threads", "2", SOLVABLE], 2),
    (["solve", "v1/SH/6S7SKS/9D6H/x/0/12"], 2),
    (["arena", "random", "random", "--deals", "2", "--seed", "5", "--think", "0.01", "--jobs", "1"], 0),
]

#: The kinds of the wire's messages (protocol/wire.md §9), names a verdict shows as they are in parentheses
#: after a message's number: "message 38 (move)", "(message 3, move)".
KINDS = tuple(sorted({cls.KIND for cls in vars(messages).values() if isinstance(getattr(cls, "KIND", None), str)
                      and cls.KIND}, key=len, reverse=True))

#: What others wrote that the surface shows as it is: the players' names in the files of fill_data_dir,
#: Python's own words for a JSON text that does not parse, a stream's name, a name quoted with its
#: escapes, the rules' names and the format's name in a record (protocol/record.md), the files' names, the
#: wire's message kinds.
THEIR_WORDS = ("greedy AI", "Ann", "host", "guest", "Expecting ',' delimiter", "Expecting value", "line", "column",
               "char", "stdin", "a\\tb", *(f.name for f in dataclasses.fields(RuleSet)), "p2ptrumps-record",
               *(f"records/{name}.json" for name in ("bad", "cut", "list", "notes")),
               *(f"({kind})" for kind in KINDS), *(f", {kind})" for kind in KINDS),
               *FAULT_CODES, *messages.FRAME_TYPES, "bin", "'helmo'", "'sules'", "XDG_DATA_HOME")


def _parser_words() -> tuple[str, ...]:
    """What argparse prints of its own in a help text or a usage line: option strings, metavars,
    command names, default values, the program's name."""
    from p2ptrumps.commands.main import build_parser, subparser

    parser = build_parser()
    words: set[str] = {"p2ptrumps", "COMMAND", "-h", "--help", *AI_LEVELS}  # the levels: values of --ai
    for command in COMMANDS:
        for action in subparser(parser, command or None)._actions:
            words.update(action.option_strings)
            words.update(str(x) for x in (action.metavar, action.dest, action.dest.upper(), action.default)
                         if x not in (None, ""))
            words.update(getattr(action, "choices", None) or ())
    return tuple(sorted(words, key=len, reverse=True))


@pytest.mark.parametrize(("argv", "status"), SURFACE, ids=[" ".join(a) or "top" for a, _ in SURFACE])
def test_a_command_leaves_no_english_unmarked(pseudo_dir: Path, argv: list[str], status: int,
                                               capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    data = Path(os.environ["XDG_DATA_HOME"]) / "p2ptrumps"
    monkeypatch.setenv("LANGUAGE", PSEUDO)
    argv = [word.replace("{data}", str(data)) for word in argv]
    try:
        assert main(argv) == status
    except SystemExit as exc:
        assert exc.code == status
    assert i18n.current() == PSEUDO
    out = capsys.readouterr()
    from p2ptrumps.net.keystore import load_name, load_or_create_key

    theirs = (load_or_create_key(data)[0].fingerprint, load_name(data), str(data / "identity.key"), str(data),
              *i18n.available(), *THEIR_WORDS, typed("id --name NAME"), "p2ptrumps")  # the language codes; the program
    argparse_words = _parser_words() if "--help" in argv or status == 2 else ()
    problems = unmarked(out.out + out.err, (*theirs, *argparse_words, *argv))
    assert problems == [], "\n".join(problems)


def _screens(tmux: Tmux, keys: list[tuple[str, str]]) -> Iterator[str]:
    """The screen after each key of ``keys`` (key, a text of the pseudo-language the screen then shows)."""
    for key, shown in keys:
        if key:
            tmux.run("send-keys", "-t", "t", key)
        wait_for(f"{shown!r} after {key!r}", lambda shown=shown: pseudo(shown) in tmux.screen())
        yield tmux.screen()


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize("size", [(100, 32), (60, 20)])
def test_the_table_leaves_no_english_unmarked(pseudo_dir: Path, tmux: Tmux, tmp_path: Path,
                                              size: tuple[int, int]) -> None:
    play = shlex.join([sys.executable, "-m", "p2ptrumps", "play", "--seed", "3", "--ai", "random",
                       "--log-dir", str(tmp_path / "records")])
    env = (f"env LANGUAGE={PSEUDO} {i18n.LOCALEDIR_VARIABLE}={shlex.quote(str(pseudo_dir))} "
           f"XDG_DATA_HOME={shlex.quote(os.environ['XDG_DATA_HOME'])} LANG=C.UTF-8 TERM=xterm-256color")
    tmux.run("new-session", "-d", "-s", "t", "-x", str(size[0]), "-y", str(size[1]),
             f"{env} sh -c {shlex.quote(play + '; sleep 30')}")
    steps = [("", "Choose your own trump"), ("?", "any other key closes"), ("x", "Choose your own trump"),
             ("Enter", "Pile"), ("?", "any other key closes"), ("x", "Pile"), ("o", "Pile"), ("z", "does nothing here"),
             ("q", "Quit?")]
    problems = []
    for screen in _screens(tmux, steps):
        problems += unmarked(screen)
    assert problems == []


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize("size", [(100, 32), (60, 20)])
def test_the_replay_viewer_leaves_no_english_unmarked(pseudo_dir: Path, tmux: Tmux, size: tuple[int, int]) -> None:
    """``p2ptrumps replay RECORD``: a deal's start, a move, its end (the result), a key that does nothing, the
    next deal, back past the first deal and the first move (the notes); the players' names are the record's."""
    replay = shlex.join([sys.executable, "-m", "p2ptrumps", "replay", str(RECORD)])
    env = (f"env LANGUAGE={PSEUDO} {i18n.LOCALEDIR_VARIABLE}={shlex.quote(str(pseudo_dir))} "
           f"XDG_DATA_HOME={shlex.quote(os.environ['XDG_DATA_HOME'])} LANG=C.UTF-8 TERM=xterm-256color")
    tmux.run("new-session", "-d", "-s", "t", "-x", str(size[0]), "-y", str(size[1]),
             f"{env} sh -c {shlex.quote(replay + '; sleep 30')}")
    steps = [("", "move 0/20"), ("n", "move 1/20"), ("End", "Result:"), ("z", "does nothing"), ("]", "Deal 2/3"),
             ("[", "Deal 1/3"), ("[", "This is the first deal."), ("p", "This is the start of the match.")]
    problems = []
    for screen in _screens(tmux, steps):
        problems += unmarked(screen, ("greedy AI", "greed", "Ann", "'z'"))  # the Moves panel cuts names
    assert problems == []


def _port_of(out: Path, host: subprocess.Popen[str], timeout_s: float = 30) -> int:
    """The port the host waits on, read from its pseudo-language output file ``out``."""
    waiting = pseudo("waiting for a guest on port %(port)d ...").split("%(port)d")[0]
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and host.poll() is None:
        for line in out.read_text(encoding="utf-8").splitlines():
            if line.startswith(waiting):
                return int(line.removeprefix(waiting).split()[0])
        time.sleep(0.05)
    raise AssertionError(f"no port in the host's output: {out.read_text(encoding='utf-8')!r}")


def test_a_headless_match_leaves_no_english_unmarked(pseudo_dir: Path, tmp_path: Path) -> None:
    """``host --headless`` and ``join --headless`` (each ``--ai random``, one deal of 6 turns) in two processes
    in the pseudo-language: the host's address line, the guest's connection, each move, the deal's end, the
    match's end and its log, all marked; the players' names, keys, addresses and paths are theirs."""
    common = ["--headless", "--ai", "random", "--think", "0.01", "--timeout", "10", "--ascii"]
    env = {**os.environ, "LANGUAGE": PSEUDO, i18n.LOCALEDIR_VARIABLE: str(pseudo_dir), "P2PTRUMPS_NO_MAP": "1"}
    out = tmp_path / "host.out"
    with out.open("w", encoding="utf-8") as host_out:
        host = subprocess.Popen(
            [sys.executable, "-m", "p2ptrumps", "host", "--bind", "127.0.0.1", "--port", "0", "--open", "--deals",
             "1", "--turn-limit", "6", "--name", "Hosta", *common], stdout=host_out, stderr=subprocess.STDOUT,
            text=True, env={**env, "XDG_DATA_HOME": str(tmp_path / "h")})
    try:
        port = _port_of(out, host)
        guest = subprocess.run([sys.executable, "-m", "p2ptrumps", "join", f"127.0.0.1:{port}", "--accept-new",
                                "--name", "Guesto", *common], capture_output=True, text=True, timeout=60,
                               env={**env, "XDG_DATA_HOME": str(tmp_path / "g")})
        host.wait(timeout=30)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait(timeout=10)
    text = out.read_text(encoding="utf-8") + guest.stdout + guest.stderr
    assert (host.returncode, guest.returncode) == (0, 0), text
    assert pseudo("match over: %(first)s").split("%(first)s")[0] in text
    shown = re.sub(re.escape(str(tmp_path)) + r"\S*", " ", text)  # the match logs' and the keys' paths
    problems = unmarked(shown, ("Hosta", "Guesto", "p2ptrumps join"))
    assert problems == [], "\n".join(problems)
