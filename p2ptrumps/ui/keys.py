"""Keys that work whatever keyboard layout is active, and cards typed in Russian.

Key bindings: :func:`add_layout_aliases` binds, beside each single-letter key,
the letter the same physical key gives in the Russian ЙЦУКЕН layout
(:data:`CYRILLIC_OF_LATIN`): with that layout active ``з`` is ``p`` (pick up),
``й`` is ``q``, ``ш`` is ``i``, ``щ`` is ``o``, ``в`` is ``d``, ``г`` is ``u``,
``К`` is ``R``, ``Ж`` is ``:``.

Typed moves: :func:`latin_move_text` reads the Russian card letters — ranks
В Д К Т (валет, дама, король, туз) for J Q K A, suits П Ч Б Т (пики, черви,
бубны, трефы) for S H D C — and also Latin card letters typed by position in
the Russian layout (``ЙЫ`` for ``QS``), then hands Latin text to the parser of
RULES.md §1.  The two readings never collide: no Russian card letter sits on
the key of a Latin card letter of the same slot (rank or suit).
"""

from __future__ import annotations

from prompt_toolkit.key_binding import KeyBindings

_LATIN_KEYS = "qwertyuiop[]asdfghjkl;'zxcvbnm,.`"
_CYRILLIC_KEYS = "йцукенгшщзхъфывапролджэячсмитьбюё"
_SHIFTED = {"[": "{", "]": "}", ";": ":", "'": '"', ",": "<", ".": ">", "`": "~"}

#: The Russian (ЙЦУКЕН) letter on the key of each Latin letter or sign: ``"p"`` -> ``"з"``, ``"R"`` -> ``"К"``.
CYRILLIC_OF_LATIN: dict[str, str] = {}
for _latin, _cyrillic in zip(_LATIN_KEYS, _CYRILLIC_KEYS, strict=True):
    CYRILLIC_OF_LATIN[_latin] = _cyrillic
    CYRILLIC_OF_LATIN[_latin.upper() if _latin.isalpha() else _SHIFTED[_latin]] = _cyrillic.upper()

#: The Latin key of each Russian letter (the inverse of :data:`CYRILLIC_OF_LATIN`).
LATIN_OF_CYRILLIC: dict[str, str] = {c: latin for latin, c in CYRILLIC_OF_LATIN.items()}


def add_layout_aliases(kb: KeyBindings) -> KeyBindings:
    """Bind, for each binding of ``kb`` to one Latin letter or sign key, the Russian letter of
    the same physical key (:data:`CYRILLIC_OF_LATIN`) to the same handler with the same filter.
    Returns ``kb`` (changed in place)."""
    for binding in list(kb.bindings):
        if len(binding.keys) != 1:
            continue
        key = binding.keys[0]
        cyrillic = CYRILLIC_OF_LATIN.get(key) if isinstance(key, str) else None
        if cyrillic is None:
            continue
        kb.add(cyrillic, filter=binding.filter, eager=binding.eager, is_global=binding.is_global,
               save_before=binding.save_before, record_in_macro=binding.record_in_macro)(binding.handler)
    return kb


def key_name(key: str) -> str:
    """A key as people write it: ``'x'``, ``Space``, ``Tab``, ``Ctrl-X``, ``F5``, ``Esc``."""
    if key == " ":
        return "Space"
    if len(key) == 1:
        return repr(key)
    named = _KEY_NAMES.get(key)  # first: a terminal sends Tab as Ctrl-I and Backspace as Ctrl-H
    if named is not None:
        return named
    if key.startswith("c-"):
        return "Ctrl-" + key[2:].upper()
    return key[:1].upper() + key[1:]


#: Keys whose prompt_toolkit name is not what people call them.
_KEY_NAMES = {"escape": "Esc", "c-i": "Tab", "tab": "Tab", "s-tab": "Shift-Tab", "c-h": "Backspace",
              "backspace": "Backspace", "c-m": "Enter", "delete": "Delete", "insert": "Insert",
              "pageup": "PgUp", "pagedown": "PgDn"}


#: Russian rank letters (валет, дама, король, туз) and the Russian-layout keys of T J Q K A.
_RANKS = {"в": "J", "д": "Q", "к": "K", "т": "A",
          **{CYRILLIC_OF_LATIN[r]: r.upper() for r in "tjqka"}}
#: Russian suit letters (пики, черви, бубны, трефы) and the Russian-layout keys of S H D C.
_SUITS = {"п": "S", "ч": "H", "б": "D", "т": "C",
          **{CYRILLIC_OF_LATIN[s]: s.upper() for s in "shdc"}}
#: Words that pick up: ``з`` (the key of ``p``), ``беру`` ("I take"), ``взять`` ("take").
_PICK_UP_WORDS = ("з", "беру", "взять")


def _latin_word(word: str) -> str:
    low = word.lower()
    if low in _PICK_UP_WORDS:
        return "p"
    if not any("а" <= ch <= "я" or ch == "ё" for ch in low):
        return word
    if len(low) == 1:
        return _RANKS.get(low, word)
    rank, suit = low[:-1], low[-1]
    return _RANKS.get(rank, rank) + _SUITS.get(suit, suit)


def latin_move_text(text: str) -> str:
    """A typed move with its Russian card letters and Russian-layout keys read as Latin
    card names: ``"Дп"`` -> ``"QS"``, ``"10ч вт"`` -> ``"10H JC"``, ``"ЙЫ"`` -> ``"QS"``,
    ``"з"`` -> ``"p"``.  Text without Cyrillic letters comes back as it was; words are
    split at spaces, commas and ``/`` and joined by one space."""
    if not any("а" <= ch <= "я" or ch == "ё" for ch in text.lower()):
        return text
    return " ".join(_latin_word(w) for w in text.replace("/", " ").replace(",", " ").split())
