"""The one rule for text a person types for others to see: display names and chat lines.

Source: ``protocol/wire.md`` §5.1 (also ``protocol/files.md``, the name file).

Lengths are counted in Unicode code points.  The refused code points are a
fixed list (control characters, line and paragraph separators, bidirectional
formatting characters, noncharacters), so the rule gives the same answer
whatever Unicode version Python ships: letters of every script, emoji with
zero-width joiners and variation selectors, flag tag sequences and unassigned
code points are all allowed.
"""

from __future__ import annotations

from collections.abc import Sequence

from .message import N_, Message, Nn_

#: The longest display name, in code points (hello ``name``, the name file, ``--name``).
MAX_NAME_CHARS = 40
#: The longest chat line, in code points.
MAX_CHAT_CHARS = 500

#: The AI's levels, weakest first, as typed after ``--ai`` and shown in a record (:mod:`p2ptrumps.ai`).
AI_LEVELS: tuple[str, ...] = ("random", "greedy", "normal", "strong")

_CONTROL = N_("a control character")
_BIDI = N_("a bidirectional formatting character")
_NONCHARACTER = N_("a noncharacter")

#: Refused code point ranges (inclusive), each with what it is (a lazy message).
REFUSED_RANGES: tuple[tuple[int, int, str], ...] = (
    (0x0000, 0x001F, _CONTROL),
    (0x007F, 0x009F, _CONTROL),
    (0x061C, 0x061C, _BIDI),
    (0x200E, 0x200F, _BIDI),
    (0x2028, 0x2029, N_("a line or paragraph separator")),
    (0x202A, 0x202E, _BIDI),
    (0x2066, 0x2069, _BIDI),
    (0xFDD0, 0xFDEF, _NONCHARACTER),
)

#: What :func:`text_problem` and :func:`refused_in` call the texts they check (lazy messages).
A_NAME = N_("a name")
A_CHAT_LINE = N_("a chat line")


def refused_char(ch: str) -> str | None:
    """What the single character ``ch`` is if the text rule refuses it (a lazy message:
    ``"a control character"``), else None."""
    cp = ord(ch)
    if cp & 0xFFFE == 0xFFFE:  # U+FFFE, U+FFFF, U+1FFFE, ... U+10FFFF
        return _NONCHARACTER
    if 0xD800 <= cp <= 0xDFFF:
        return N_("a surrogate")
    for lo, hi, what in REFUSED_RANGES:
        if lo <= cp <= hi:
            return what
    return None


def text_problem(text: object, what: str, max_chars: int) -> str | None:
    """None if ``text`` is a str of 1..``max_chars`` code points with no refused code point,
    else a sentence saying why not (a lazy message), naming the field as ``what`` (e.g. :data:`A_NAME`)."""
    if not isinstance(text, str):
        return N_("%(what)s must be text", what=what)
    if not 1 <= len(text) <= max_chars:
        return N_("%(what)s must be 1..%(most)d characters, not %(length)d", what=what, most=max_chars,
                  length=len(text))
    return refused_in(text, what)


def refused_in(text: str, what: str) -> str | None:
    """None if no code point of ``text`` is refused by the text rule (protocol/wire.md §5.1), else a
    sentence naming the first, as :func:`text_problem` does (``"a name contains U+000A, a control
    character"``, a lazy message).  For text as typed, checked before any spaces are tidied: a line break is refused,
    never turned into a space."""
    for ch in text:
        kind = refused_char(ch)
        if kind is not None:
            code = format(ord(ch), "04X")
            return N_("%(what)s contains U+%(code)s, %(kind)s", what=what, code=code, kind=kind)
    return None


def check_name(name: object) -> None:
    """``ValueError`` (naming the fault) unless ``name`` is a valid display name:
    1..:data:`MAX_NAME_CHARS` code points, none refused (protocol/wire.md §5.1)."""
    why = text_problem(name, A_NAME, MAX_NAME_CHARS)
    if why:
        raise ValueError(why)


def check_chat(text: object) -> None:
    """``ValueError`` unless ``text`` is a valid chat line: 1..:data:`MAX_CHAT_CHARS` code
    points, none refused (protocol/wire.md §5.1)."""
    why = text_problem(text, A_CHAT_LINE, MAX_CHAT_CHARS)
    if why:
        raise ValueError(why)


def quoted(text: str) -> str:
    """``text`` in single quotes for a line of output (``'Аня 👩‍👩‍👧'``): every code point the text rule
    refuses is written as its escape (``\\x1b``, ``\\u202e``), so the line is safe for a terminal
    whatever the text came from; letters of every script and emoji with joiners stay as they are
    (unlike ``repr``, which escapes joiners too)."""
    return "'" + "".join(ch.encode("unicode_escape").decode("ascii") if refused_char(ch) else ch
                         for ch in text) + "'"


def names_apart(names: tuple[str, str], fingerprints: tuple[str, str]) -> tuple[str, str]:
    """The two players' names as shown side by side: as they are when they differ; when they are
    the same, each followed by the first four characters of its key fingerprint
    (``("root (K7QX)", "root (3HAG)")``), or by its seat when a fingerprint is missing or both
    begin alike (``("You (seat 0)", "You (seat 1)")``, lazy messages).  Names are labels, keys are
    identities."""
    if names[0] != names[1]:
        return names
    a, b = fingerprints[0][:4], fingerprints[1][:4]
    if not a or not b or a == b:
        return (N_("%(name)s (seat %(seat)d)", name=names[0], seat=0),
                N_("%(name)s (seat %(seat)d)", name=names[1], seat=1))
    return f"{names[0]} ({a})", f"{names[1]} ({b})"


def counted_words(singular: str, plural: str) -> tuple[str, str]:
    """A marker for the catalog (its extractor reads the keyword ``counted_words``): the two English
    forms of a counted phrase, ``("%(n)d byte", "%(n)d bytes")``, returned as they are."""
    return singular, plural


#: The phrases :func:`counted` says, by word: the English singular and plural, with ``%(n)d`` for the
#: number (each language has its own plural forms in its catalog: three in Russian and Lithuanian).
COUNTED: dict[str, tuple[str, str]] = {
    "byte": counted_words("%(n)d byte", "%(n)d bytes"),
    "zero byte": counted_words("%(n)d zero byte", "%(n)d zero bytes"),
    "card": counted_words("%(n)d card", "%(n)d cards"),
    "move": counted_words("%(n)d move", "%(n)d moves"),
    "game": counted_words("%(n)d game", "%(n)d games"),
    "pair": counted_words("%(n)d pair", "%(n)d pairs"),
    "deal pair": counted_words("%(n)d deal pair", "%(n)d deal pairs"),
    "deal": counted_words("%(n)d deal", "%(n)d deals"),
    "match": counted_words("%(n)d match", "%(n)d matches"),
    "ply": counted_words("%(n)d ply", "%(n)d plies"),
    "character": counted_words("%(n)d character", "%(n)d characters"),
    "element": counted_words("%(n)d element", "%(n)d elements"),
    "blunder": counted_words("%(n)d blunder", "%(n)d blunders"),
    "mistake": counted_words("%(n)d mistake", "%(n)d mistakes"),
    "inaccuracy": counted_words("%(n)d inaccuracy", "%(n)d inaccuracies"),
    "reconnection": counted_words("%(n)d reconnection", "%(n)d reconnections"),
    "tentative guest message": counted_words("%(n)d tentative guest message", "%(n)d tentative guest messages"),
}


def counted(n: int, word: str, plural: str = "") -> Message:
    """``n`` and ``word`` for a line, the word plural unless ``n`` is 1: ``counted(1, "byte")`` ->
    ``"1 byte"``, ``counted(3, "zero byte")`` -> ``"3 zero bytes"``; ``plural`` when it is not ``word``
    and an "s" (``counted(2, "match", "matches")`` -> ``"2 matches"``).  A lazy message
    (:mod:`p2ptrumps.message`): shown through the catalog, it takes the language's plural form
    (``"3 байта"``, ``"5 байт"``).  ``word`` is one of :data:`COUNTED` (another is said in English)."""
    forms = COUNTED.get(word, (f"%(n)d {word}", f"%(n)d {plural or word + 's'}"))
    return Nn_(forms[0], forms[1], n)


#: The words :func:`numbered` says, singular and plural, with ``%(numbers)s`` for the numbers.
NUMBERED: dict[str, tuple[str, str]] = {
    "deal": counted_words("deal %(numbers)s", "deals %(numbers)s"),
}


def numbered(word: str, numbers: Sequence[int]) -> Message:
    """``word`` and one number, or the plural (``word`` and an "s") and several: ``"deal 3"``,
    ``"deals 3, 4"``; a lazy message, in the language's plural form for ``word`` of :data:`NUMBERED`
    (another is said in English)."""
    forms = NUMBERED.get(word, (f"{word} %(numbers)s", f"{word}s %(numbers)s"))
    return Nn_(forms[0], forms[1], len(numbers), numbers=", ".join(map(str, numbers)))


def clock_text(seconds: float) -> str:
    """A move clock's time for a line: ``"1:05"`` for 65 seconds (whole seconds rounded up, never
    below ``"0:00"``)."""
    whole = max(0, int(-(-seconds // 1)))
    return f"{whole // 60}:{whole % 60:02d}"


def halves_text(halves: int, ascii_only: bool = False) -> str:
    """A score kept in half points (a drawn deal is one half each), as points: ``3`` -> ``"1½"``
    (``"1.5"`` in ASCII), ``1`` -> ``"½"`` (``"0.5"``), ``4`` -> ``"2"``."""
    whole, half = divmod(halves, 2)
    if not half:
        return str(whole)
    if ascii_only:
        return f"{whole}.5"
    return f"{whole}½" if whole else "½"
