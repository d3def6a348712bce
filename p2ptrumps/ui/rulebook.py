"""The rule book inside the installed package: ``p2ptrumps rules`` and the help overlay's ``r``.

``RULES.md`` beside this module is a copy of ``protocol/RULES.md`` (the rule
book of record) without its first comment line; ``tests/test_docs.py`` keeps the
two equal, and ``pyproject.toml`` installs it as package data, so an installed
p2ptrumps can show its rules without the source tree.  Each language of
:data:`p2ptrumps.i18n.LANGUAGES` has its translation in ``p2ptrumps/locale/<code>/RULES.md``
(the same sections and examples, in its players' words), shown in that language.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
from importlib import resources
from pathlib import Path

from ..i18n import SOURCE, _, current, locale_dir
from .terminal import wants_ascii
from .view import asciify, wrapped_lines


def rule_book(language: str | None = None) -> str:
    """The text of RULES.md (Markdown, UTF-8) as installed with the package, in ``language``
    (default: the language spoken now, :func:`p2ptrumps.i18n.current`) when it has a translation.

    Raises ``OSError`` if the installation lost the file."""
    translated = rule_book_path(language or current())
    if translated is not None:
        return translated.read_text(encoding="utf-8")
    return resources.files(__package__).joinpath("RULES.md").read_text(encoding="utf-8")


def rule_book_path(language: str) -> Path | None:
    """The translated rule book of ``language`` (``p2ptrumps/locale/<code>/RULES.md``), None for
    English or a language without one."""
    if language == SOURCE or not language.replace("_", "").isalnum():
        return None
    path = locale_dir() / language / "RULES.md"
    return path if path.is_file() else None


def run(args: argparse.Namespace) -> int:
    """``p2ptrumps rules [--no-pager]``: print the rule book, through the pager (``$PAGER``,
    else ``less``; :func:`pydoc.pager`) and laid out for the terminal's width when stdout is a
    terminal, else as written.  Suit symbols become
    letters where the output cannot show them.  Returns 0."""
    text = rule_book()
    if wants_ascii(getattr(sys.stdout, "encoding", None)):
        text = asciify(text)
    if args.no_pager or not sys.stdout.isatty() or not sys.stdin.isatty() or not _pager_found():
        sys.stdout.write(text)
    else:  # laid out for the terminal's width (paragraphs joined and wrapped again)
        import pydoc  # here, not at the top: only the pager needs it

        columns = shutil.get_terminal_size().columns
        pydoc.pager("\n".join(wrapped_lines(text.splitlines(), max(40, columns - 1))) + "\n")
    return 0


def _pager_found() -> bool:
    """Whether the pager :func:`pydoc.pager` would run (``$MANPAGER`` or ``$PAGER``'s first word) can
    be found; when not, a line says so on stderr and the rules are printed as they are (a broken
    ``PAGER`` used to show only the shell's "not found" and no rules)."""
    command = os.environ.get("MANPAGER") or os.environ.get("PAGER")
    if not command:
        return True  # pydoc finds less or more itself, else prints
    try:
        words = shlex.split(command)
    except ValueError:
        words = []
    if words and shutil.which(words[0]):
        return True
    print("p2ptrumps rules: " + _("the pager %(pager)s is not found; printing the rules", pager=repr(command)),
          file=sys.stderr)
    return False
