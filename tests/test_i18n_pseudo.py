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
import functools
import io
import os
import re
import shlex
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from p2ptrumps import i18n
from p2ptrumps.commands.main import main
from p2ptrumps.text import AI_LEVELS
from tests.test_ui_tmux import Tmux, wait_for

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "p2ptrumps"
PSEUDO = "en_XA"

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


@pytest.fixture
def pseudo_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = make_pseudo(tmp_path / "locale")
    monkeypatch.setenv(i18n.LOCALEDIR_VARIABLE, str(root))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
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


def unmarked(text: str, allowed: tuple[str, ...] = ()) -> list[str]:
    """The English left unmarked in ``text`` (runs of ASCII words of two letters or more), each with
    where it comes from; ``allowed`` are texts that are no words of ours (names, paths, fingerprints)."""
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
]


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
    try:
        assert main(argv) == status
    except SystemExit as exc:
        assert exc.code == status
    assert i18n.current() == PSEUDO
    out = capsys.readouterr()
    from p2ptrumps.net.keystore import load_name, load_or_create_key

    theirs = (load_or_create_key(data)[0].fingerprint, load_name(data), str(data / "identity.key"),
              *i18n.available())  # the language codes
    argparse_words = _parser_words() if "--help" in argv or status == 2 else ()
    assert unmarked(out.out + out.err, (*theirs, *argparse_words, *argv)) == []


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
