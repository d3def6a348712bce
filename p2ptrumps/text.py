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

from .message import Message, Nn_

#: The longest display name, in code points (hello ``name``, the name file, ``--name``).
MAX_NAME_CHARS = 40
#: The longest chat line, in code points.
MAX_CHAT_CHARS = 500

#: The AI's levels, weakest first, as typed after ``--ai`` and shown in a record (:mod:`p2ptrumps.ai`).
AI_LEVELS: tuple[str, ...] = ("random", "greedy", "normal", "strong")

#: Refused code point ranges (inclusive), each with what it is.
REFUSED_RANGES: tuple[tuple[int, int, str], ...] = (
    (0x0000, 0x001F, "a control character"),
    (0x007F, 0x009F, "a control character"),
    (0x061C, 0x061C, "a bidirectional formatting character"),
    (0x200E, 0x200F, "a bidirectional formatting character"),
    (0x2028, 0x2029, "a line or paragraph separator"),
    (0x202A, 0x202E, "a bidirectional formatting character"),
    (0x2066, 0x2069, "a bidirectional formatting character"),
    (0xFDD0, 0xFDEF, "a noncharacter"),
)


def refused_char(ch: str) -> str | None:
    """What the single character ``ch`` is if the text rule refuses it, else None."""
    cp = ord(ch)
    if cp & 0xFFFE == 0xFFFE:  # U+FFFE, U+FFFF, U+1FFFE, ... U+10FFFF
        return "a noncharacter"
    if 0xD800 <= cp <= 0xDFFF:
        return "a surrogate"
    for lo, hi, what in REFUSED_RANGES:
        if lo <= cp <= hi:
            return what
    return None


def text_problem(text: object, what: str, max_chars: int) -> str | None:
    """None if ``text`` is a str of 1..``max_chars`` code points with no refused code point,
    else a sentence saying why not, naming the field as ``what`` (e.g. ``"a name"``)."""
    if not isinstance(text, str):
        return f"{what} must be text"
    if not 1 <= len(text) <= max_chars:
        return f"{what} must be 1..{max_chars} characters, not {len(text)}"
    return refused_in(text, what)


def refused_in(text: str, what: str) -> str | None:
    """None if no code point of ``text`` is refused by the text rule (protocol/wire.md §5.1), else a
    sentence naming the first, as :func:`text_problem` does (``"a name contains U+000A, a control
    character"``).  For text as typed, checked before any spaces are tidied: a line break is refused,
    never turned into a space."""
    for ch in text:
        kind = refused_char(ch)
        if kind is not None:
            return f"{what} contains U+{ord(ch):04X}, {kind}"
    return None


def check_name(name: object) -> None:
    """``ValueError`` (naming the fault) unless ``name`` is a valid display name:
    1..:data:`MAX_NAME_CHARS` code points, none refused (protocol/wire.md §5.1)."""
    why = text_problem(name, "a name", MAX_NAME_CHARS)
    if why:
        raise ValueError(why)


def check_chat(text: object) -> None:
    """``ValueError`` unless ``text`` is a valid chat line: 1..:data:`MAX_CHAT_CHARS` code
    points, none refused (protocol/wire.md §5.1)."""
    why = text_problem(text, "a chat line", MAX_CHAT_CHARS)
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
    begin alike (``("You (seat 0)", "You (seat 1)")``).  Names are labels, keys are identities."""
    if names[0] != names[1]:
        return names
    a, b = fingerprints[0][:4], fingerprints[1][:4]
    if not a or not b or a == b:
        a, b = "seat 0", "seat 1"
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


def numbered(word: str, numbers: Sequence[int]) -> str:
    """``word`` and one number, or the plural (``word`` and an "s") and several: ``"deal 3"``,
    ``"deals 3, 4"``."""
    return f"{word} {numbers[0]}" if len(numbers) == 1 else f"{word}s " + ", ".join(map(str, numbers))


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
