"""The person's language: choosing it, and saying things in it.

Where translation happens (the rule; also ``ARCHITECTURE.md`` and ``p2ptrumps/locale/README.md``):

* Only the layers that show text to a person translate: ``ui/``, ``commands/``, ``net/`` and the
  command line, with :func:`_` (a text), :func:`ngettext` (a counted text) and :func:`pgettext` (a
  short word in a context, such as a rank letter) at the moment they show it.
* The pure layers (the core, ``record``/``match``, ``wire/``) never import this module: they make
  lazy messages (:mod:`p2ptrumps.message`: ``N_``, ``Nn_``), English strings that keep their template
  and arguments; a display renders them in the person's language with :func:`tr` (an exception
  raised with one, too).  So match logs, records, verdict reasons, ``--json`` outputs, exit
  statuses, position texts, card codes and the wire stay English and byte-identical in every
  language: they are written from the English value, never through :func:`tr`.

The runtime is the standard library's :mod:`gettext`, with the catalogs compiled into
``p2ptrumps/locale/<code>/LC_MESSAGES/p2ptrumps.mo`` (shipped in the package; the ``.po`` sources
beside them).  :func:`use` also makes this package's catalog the global gettext domain and puts
the chosen language first in ``LANGUAGE``, so that argparse, which asks the standard library's
:func:`gettext.gettext` for its own words ("usage: ", "options", ...: :data:`ARGPARSE_WORDS`), and
any program we start (the pager) speak the same language.

Choosing the language (:func:`choose`): ``--lang CODE`` on any command, else the saved choice
(``p2ptrumps id --lang CODE``, the ``language`` file of protocol/files.md), else the environment
(``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``, the first set one, as gettext reads them;
on Windows then the user's interface language), else English.  A language without a catalog,
or one the output cannot encode, is English, without a word of error.
"""

from __future__ import annotations

import gettext
import os
import sys
import unicodedata
from collections.abc import Mapping, Sequence
from pathlib import Path

import platformdirs

from .cards import RANK_LABELS, SUIT_LETTERS, SUIT_SYMBOLS
from .message import N_, Message, message_of
from .system.uilanguage import ui_languages

#: The gettext domain: ``p2ptrumps.mo`` in each language's ``LC_MESSAGES``.
DOMAIN = "p2ptrumps"
#: The source language (the catalogs' ``msgid``\s are English).
SOURCE = "en"
#: Every language with a catalog in the package, by code, with its name in itself (``--lang help``).
LANGUAGES: dict[str, str] = {
    "en": "English",
    "ru": "Русский",
    "vi": "Tiếng Việt",
    "ca": "Català",
    "lt": "Lietuvių",
}
#: The saved choice, one line in the data directory (protocol/files.md, ``language``).
LANGUAGE_FILE = "language"
#: An environment variable naming another directory of catalogs (``<code>/LC_MESSAGES/p2ptrumps.mo``):
#: a translator trying a catalog, the tests' pseudo-language.  Not for players.
LOCALEDIR_VARIABLE = "P2PTRUMPS_LOCALEDIR"
#: The environment variables that name the language, in gettext's order.
ENVIRONMENT = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")

#: argparse's own words in a help text or a usage line, which it translates through the global
#: gettext domain (:func:`use` binds it to this catalog).  argparse's error messages are not here:
#: :func:`p2ptrumps.commands.main.tidy_message` turns them into this package's own, then translated.
ARGPARSE_WORDS = (
    N_("usage: "),
    N_("options"),
    N_("positional arguments"),
    N_("show this help message and exit"),
)

_translation: gettext.NullTranslations = gettext.NullTranslations()
_current = SOURCE
_ranks: dict[str, tuple[str, ...]] = {}


def locale_dir() -> Path:
    """The directory of the catalogs: :data:`LOCALEDIR_VARIABLE` if set, else the package's ``locale``."""
    other = os.environ.get(LOCALEDIR_VARIABLE)
    return Path(other) if other else Path(__file__).resolve().parent / "locale"


def available() -> list[str]:
    """The codes of the languages that can be used: English and each with a compiled catalog."""
    root = locale_dir()
    found = {p.parent.parent.name for p in root.glob(f"*/LC_MESSAGES/{DOMAIN}.mo")}
    return [SOURCE, *sorted(found - {SOURCE})]


def normalise(tag: str) -> list[str]:
    """The catalog codes a language tag may mean, most precise first: ``"ru_RU.UTF-8"`` ->
    ``["ru_RU", "ru"]``, ``"pt-BR"`` -> ``["pt_BR", "pt"]``; ``"C"``, ``"POSIX"`` -> ``["en"]``."""
    tag = tag.strip().split(".")[0].split("@")[0].replace("-", "_")
    if tag in ("C", "POSIX"):
        return [SOURCE]
    language, _sep, region = tag.partition("_")
    language = language.lower()
    if not language.isascii() or not language.isalpha():
        return []
    return [f"{language}_{region.upper()}", language] if region else [language]


def environment_languages(environ: Mapping[str, str] | None = None) -> list[str]:
    """The languages the environment asks for, in order: the first set of :data:`ENVIRONMENT`
    (``LANGUAGE`` may list several, ``ru:en``), then on Windows the user's interface language."""
    env = os.environ if environ is None else environ
    for name in ENVIRONMENT:
        value = env.get(name)
        if value:
            return value.split(":")
    return ui_languages()


#: The ``--lang`` value that follows the environment (and, for ``id --lang``, forgets the saved choice).
AUTO = "auto"


def choose(option: str | None, saved: str | None, asked: Sequence[str], codes: Sequence[str],
           encoding: str | None = "utf-8") -> str:
    """The language to speak: the first of ``option`` (``--lang``), ``saved`` (the saved choice) and
    ``asked`` (:func:`environment_languages`) that has a catalog among ``codes``, else English;
    ``option`` :data:`AUTO` passes the saved choice over.  A language whose own name the output's
    ``encoding`` cannot write is passed over (a terminal that cannot show its letters).  Never raises."""
    if option == AUTO:
        option = saved = None
    for tag in [t for t in (option, saved) if t] + list(asked):
        for code in normalise(tag):
            if code == SOURCE:
                return SOURCE
            if code in codes and _writable(code, encoding):
                return code
    return SOURCE


def _writable(code: str, encoding: str | None) -> bool:
    try:
        LANGUAGES.get(code, code).encode(encoding or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def data_dir() -> Path:
    """The user data directory (``platformdirs.user_data_dir("p2ptrumps")``, the same as
    :func:`p2ptrumps.net.keystore.data_dir` finds, without creating it)."""
    return Path(platformdirs.user_data_dir("p2ptrumps", appauthor=False))


def saved_language(directory: Path | None = None) -> str | None:
    """The saved choice (the ``language`` file of protocol/files.md in ``directory``, default the data
    directory), or None when there is none or it cannot be read (never raises)."""
    try:
        text = ((directory or data_dir()) / LANGUAGE_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    words = text.split()
    return words[0] if len(words) == 1 else None


def save_language(code: str | None, directory: Path) -> None:
    """Save ``code`` as the language of every command (one line, protocol/files.md ``language``),
    or forget the choice (``None``: the environment decides again).  Raises OSError."""
    from .files import write_atomic

    path = directory / LANGUAGE_FILE
    if code is None:
        path.unlink(missing_ok=True)
    else:
        write_atomic(path, code + "\n")


def use(code: str) -> None:
    """Speak ``code`` from now on in this process (a code of :func:`available`; anything else is
    English): this module's functions, argparse's words (the global gettext domain) and the programs
    started from here (``LANGUAGE``)."""
    global _translation, _current
    root = locale_dir()
    if code == SOURCE or not (root / code / "LC_MESSAGES" / f"{DOMAIN}.mo").is_file():
        code = SOURCE
    _translation = gettext.translation(DOMAIN, str(root), languages=[code], fallback=True)
    _current = code
    _ranks.clear()
    gettext.bindtextdomain(DOMAIN, str(root))
    gettext.textdomain(DOMAIN)
    os.environ["LANGUAGE"] = code


def code_of(tag: str) -> str | None:
    """The code of :func:`available` a language tag names (``"ru_RU.UTF-8"`` -> ``"ru"``), else None."""
    codes = available()
    return next((code for code in normalise(tag) if code in codes), None)


def listing() -> list[str]:
    """``--lang help``: one line per language that can be used, ``"ru  Русский"``."""
    return [f"{code}  {LANGUAGES.get(code, code)}" for code in available()]


def current() -> str:
    """The code of the language spoken now (``"en"`` until :func:`use` is called)."""
    return _current


def setup(option: str | None, environ: Mapping[str, str] | None = None) -> str:
    """Choose the language of this run (:func:`choose`: ``option`` is ``--lang``'s value, the saved
    choice and the environment follow) and :func:`use` it; returns its code."""
    env = os.environ if environ is None else environ
    code = choose(option, saved_language(), environment_languages(env), available(),
                  getattr(sys.stdout, "encoding", None))
    use(code)
    return code


# ----- saying things -----------------------------------------------------------------------


def _formatted(text: str, english: str, args: Mapping[str, object]) -> str:
    """``text`` (a translation) with ``args`` put in; the English ``english`` instead when the
    translation does not fit its arguments (a catalog's fault must not end the program)."""
    if not args:
        return text
    values = {k: tr(v) if isinstance(v, Message) else v for k, v in args.items()}
    try:
        return text % values
    except (KeyError, ValueError, TypeError):
        return english % values


def _(msgid: str, /, **args: object) -> str:
    """``msgid`` in the current language, with ``args`` put into its ``%(name)s`` placeholders."""
    return _formatted(_translation.gettext(msgid), msgid, args)


def ngettext(singular: str, plural: str, n: int, /, **args: object) -> str:
    """A counted text in the current language (the language's plural form for ``n``; ``n`` is also
    the argument ``%(n)d``): ``ngettext("%(n)d card", "%(n)d cards", 3)`` -> ``"3 карты"``."""
    values = {"n": n, **args}
    return _formatted(_translation.ngettext(singular, plural, n), singular if n == 1 else plural, values)


def pgettext(context: str, msgid: str, /, **args: object) -> str:
    """``msgid`` of ``context`` (a short word that means different things in different places,
    such as the rank letters: ``pgettext("rank", "Q")`` -> ``"Д"``) in the current language."""
    return _formatted(_translation.pgettext(context, msgid), msgid, args)


def tr(text: object) -> str:
    """``text`` for a person in the current language: a :class:`~p2ptrumps.message.Message` (or an
    exception raised with one) is translated, with its arguments; anything else is shown as it is
    (``str(text)``: a name, a path, a text already translated)."""
    if isinstance(text, BaseException):
        text = message_of(text)
    if not isinstance(text, Message):
        return str(text)
    if text.card_list is not None:  # drawn as the English names were: suit letters when they have no symbol
        ascii_only = not any(symbol in text for symbol in SUIT_SYMBOLS)
        return " ".join(card_label(c, ascii_only) for c in text.card_list)
    if text.plural is not None and text.n is not None:
        return _formatted(_translation.ngettext(text.template, text.plural, text.n), str(text.template if text.n == 1
                          else text.plural), text.args)
    return _formatted(_translation.gettext(text.template), text.template, text.args)


def columns(text: str) -> int:
    """The terminal columns ``text`` takes: 2 for a wide (East Asian) character, 0 for a combining
    mark, else 1 (for the command line's own aligned lines; the table counts with prompt_toolkit)."""
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def padded(text: str, width: int) -> str:
    """``text`` and spaces after it up to ``width`` terminal columns (:func:`columns`); as it is when wider."""
    return text + " " * max(0, width - columns(text))


# ----- cards in the language's letters -----------------------------------------------------

def rank_labels() -> tuple[str, ...]:
    """The rank labels of 2..A in the current language: ``"2"`` .. ``"10"`` as they are, J Q K A as
    the catalog writes them in the context ``rank`` (В Д К Т in Russian)."""
    labels = _ranks.get(_current)
    if labels is None:
        letters = (pgettext("rank", "J"), pgettext("rank", "Q"), pgettext("rank", "K"), pgettext("rank", "A"))
        labels = _ranks[_current] = RANK_LABELS[:9] + letters
    return labels


def card_label(card: int, ascii_only: bool = False) -> str:
    """A card as shown in the current language: ``"10♥"``, ``"Д♠"`` (``"ДS"`` with ``ascii_only``)."""
    suits = SUIT_LETTERS if ascii_only else SUIT_SYMBOLS
    return rank_labels()[card % 13] + suits[card // 13]
