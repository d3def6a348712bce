"""The pure renderer: a snapshot of the table in, lines of styled text out.

No prompt_toolkit application, no I/O, no clock: every function here is a pure
function of its arguments, so the screens are tested as exact text.

A *line* is a list of ``(style, text)`` fragments (prompt_toolkit's formatted
text); :func:`plain` turns lines into strings, :func:`to_formatted` into one
formatted text for a ``FormattedTextControl``.  Styles are class names
(``class:card.legal`` …) resolved by :func:`make_style`; colour is a property of
the style only, so ``NO_COLOR`` changes the style and never the text.

Screens:

* :func:`render_table` — the table (RULES.md §4: the pile and its top card,
  both trumps, the hands, the move history, the match score);
* :func:`render_status` — the three bottom lines (what is expected now, the
  last message, the keys);
* :func:`render_trump_choice` — choosing one's own trump (RULES.md §2);
* :func:`render_end` — the end of a deal or of the match (RULES.md §7, §8).

* :func:`render_too_small` — below :data:`MIN_WIDTH` x :data:`MIN_HEIGHT`, a
  note saying so instead of a cut table.

Pure helpers used by the app: :func:`expect_text` (what RULES.md §4 expects of
the player to move), :func:`hand_order` (the display order of a hand),
:func:`asciify`, :func:`printable`, :func:`wants_color`,
:func:`score_text`.

Nothing from a record or a peer reaches the terminal raw: every line goes
through :func:`_fit`, which replaces control characters (:func:`printable`).
"""

from __future__ import annotations

import os
import re
import textwrap
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.styles import Style
from prompt_toolkit.utils import get_cwidth

from ..cards import SUITS, cards_in, suit_label, suit_of
from ..i18n import _, card_label, ngettext, pgettext, tr
from ..message import N_
from ..rules import BEAT, LEAD, Move, Position
from ..text import clock_text, halves_text, refused_char

Line = list[tuple[str, str]]

#: Width of the move-history column (including its left border).
HISTORY_WIDTH = 24
#: The table shows the history column only from this many columns on.
HISTORY_MIN_WIDTH = 76
#: Cards of the pile shown below the top card.
PILE_SHOWN = 6
#: The smallest terminal the game is drawn in (columns, rows): a 13-card suit row,
#: the table with the opponent's hand hidden plus the status lines, the help box.
MIN_WIDTH = 60
MIN_HEIGHT = 20

_ASCII_MAP = str.maketrans({
    "♣": "C", "♦": "D", "♥": "H", "♠": "S", "…": "...", "—": "-", "–": "-", "½": ".5",
    "│": "|", "─": "-", "┌": "+", "┐": "+", "└": "+", "┘": "+", "▶": ">", "◀": "<",
    "←": "<", "→": ">", "↑": "^", "↓": "v", "·": "-", "✗": "x",
})


def asciify(text: str) -> str:
    """``text`` with suit symbols and the few other non-ASCII signs used here replaced by ASCII."""
    return text.translate(_ASCII_MAP)


def printable(text: str) -> str:
    """``text`` made safe to write to a terminal and drawn in the columns counted for it.

    Every code point the text rule refuses (:func:`p2ptrumps.text.refused_char`: control
    characters such as ESC, newlines and tabs, bidirectional formatting, line separators,
    noncharacters) and every private-use or unassigned one becomes ``?``; a space other than
    U+0020 becomes a space; the other invisible format characters (zero-width joiner, zero-width
    space, soft hyphen, tags) are left out, since terminals draw the sequences they make in
    differing widths (an emoji family ``👩‍👩‍👧`` is shown as its members ``👩👩👧``).
    """
    if text.isprintable():
        return text
    out: list[str] = []
    for ch in text:
        if ch.isprintable():
            out.append(ch)
        elif refused_char(ch) is not None:
            out.append("?")
        elif (kind := unicodedata.category(ch)) == "Zs":
            out.append(" ")
        elif kind != "Cf":
            out.append("?")
    return "".join(out)


#: ``TERM`` values of terminals without colours (besides the terminfo suffixes ``-mono`` and ``-m``).
MONO_TERMS = frozenset({"vt52", "vt100", "vt102", "vt220", "vt320", "xterm-mono", "xterm-m"})


def wants_color(environ: Mapping[str, str] | None = None) -> bool:
    """False when ``NO_COLOR`` is set to a non-empty value (https://no-color.org) or ``TERM`` names a
    terminal without colours (terminfo's ``-mono`` / ``-m`` names such as ``xterm-mono``, and
    :data:`MONO_TERMS`); else True."""
    env = os.environ if environ is None else environ
    term = env.get("TERM", "").lower()
    if term in MONO_TERMS or term.endswith(("-mono", "-m")):
        return False
    return not env.get("NO_COLOR")


_COLOR_RULES = {
    "header": "bold",
    "rule": "#888888",
    "dim": "#888888",
    "suit.red": "#d03030",
    "suit.black": "",
    "trump": "bold #c09000",
    "card": "",
    "card.red": "#d03030",
    "card.legal": "bold underline",
    "card.selected": "reverse bold",
    "card.pending": "reverse",
    "top": "reverse bold",
    "name": "bold",
    "expect": "bold #30a0d0",
    "message": "",
    "message.error": "bold #e04040",
    "message.hint": "bold #30b030",
    "keys": "#888888",
    "history.mine": "",
    "history.theirs": "#a0a0ff",
    "history.title": "bold",
    "result": "bold #30b030",
    "dialog": "bg:#303030 #ffffff",
    "prompt": "bold",
    "chat": "#a0a0ff",
    "clock": "reverse bold",
    "clock.warn": "reverse bold #e04040",
}

_MONO_RULES = {
    "header": "bold",
    "trump": "bold",
    "card.legal": "bold underline",
    "card.selected": "reverse bold",
    "card.pending": "reverse",
    "top": "reverse bold",
    "name": "bold",
    "expect": "bold",
    "message.error": "bold",
    "message.hint": "bold",
    "history.title": "bold",
    "result": "bold",
    "prompt": "bold",
    "dialog": "reverse",
    "clock": "reverse",
    "clock.warn": "reverse bold blink",
}


def make_style(color: bool = True) -> Style:
    """The prompt_toolkit :class:`Style` of the class names used by the renderer.

    With ``color=False`` (``NO_COLOR``) the style has no colours at all but keeps
    bold, underline and reverse, so the selection and the legal cards still show.
    """
    rules = _COLOR_RULES if color else _MONO_RULES
    return Style([(name, value) for name, value in rules.items() if value])


# ----- snapshots -------------------------------------------------------------


@dataclass(frozen=True)
class HistoryEntry:
    """One move of the current deal: ``number`` (1-based), the ``seat`` that played it,
    the :class:`Move`, and for a pick-up the number of cards ``picked``."""

    number: int
    seat: int
    move: Move
    picked: int = 0


@dataclass(frozen=True)
class TableView:
    """Everything the table screen shows, as plain values.

    Attributes:
        my_seat: the seat shown at the bottom (the person at this terminal).
        names: display names of seat 0 and seat 1.
        trumps: own trump suit of seat 0 and seat 1 (0..3).
        hands: card bitmasks of seat 0 and seat 1.
        pile: the pile, bottom to top.
        to_move: seat to move, or None when nobody is (the deal is over).
        deal_number, deals: this deal (1-based) and the deals in the match.
        score_halves: match score so far in half-points (win 2, draw 1).
        history: the moves of this deal so far.
        legal: my cards that Enter would accept now (bitmask; highlighted).
        selected: the card under the cursor, or None.
        pending_beat: my beating card waiting for its second card, or None.
        show_opponent: show the opponent's hand (else only its size).
        opponent_detail: an extra line under the opponent (fingerprint, kind).
        connection: connection state shown right of the opponent ("" = none).
        clock: the move clock that runs, ``(seat, seconds left)``, drawn on that seat's line
            (protocol/wire.md §16), in the warning style in its last :data:`CLOCK_WARN_S` seconds.
        chat: the latest chat lines, oldest first.
        ascii_only: ASCII suits and signs.
    """

    my_seat: int
    names: tuple[str, str]
    trumps: tuple[int, int]
    hands: tuple[int, int]
    pile: tuple[int, ...] = ()
    to_move: int | None = 0
    deal_number: int = 1
    deals: int = 1
    score_halves: tuple[int, int] = (0, 0)
    history: tuple[HistoryEntry, ...] = ()
    legal: int = 0
    selected: int | None = None
    pending_beat: int | None = None
    show_opponent: bool = False
    opponent_detail: str = ""
    connection: str = ""
    clock: tuple[int, float] | None = None
    chat: tuple[str, ...] = ()
    ascii_only: bool = False


@dataclass(frozen=True)
class StatusView:
    """The bottom lines: ``expect`` (what is expected now), ``fault`` (a lasting fault such as a
    record that cannot be saved, "" for none), ``message`` with its ``message_kind`` (``"info"``,
    ``"error"`` or ``"hint"``) and the ``keys`` line."""

    expect: str = ""
    fault: str = ""
    message: str = ""
    message_kind: str = "info"
    keys: str = ""
    ascii_only: bool = False


@dataclass(frozen=True)
class EndView:
    """The end-of-deal (or end-of-match) screen.

    ``title`` is the result line, ``hands`` and ``pile`` the final position,
    ``history`` the deal's moves (the Moves panel, as on the table; below
    :data:`HISTORY_MIN_WIDTH` columns the last move gets a line of its own),
    ``record_path`` is shown when the match is over (``match_over``); ``note`` (e.g. "Gus
    resigned and left the match") is a line under the title when not empty.
    """

    title: str
    names: tuple[str, str]
    trumps: tuple[int, int]
    hands: tuple[int, int]
    pile: tuple[int, ...]
    deal_number: int
    deals: int
    score_halves: tuple[int, int]
    my_seat: int = 0
    match_over: bool = False
    record_path: str | None = None
    ascii_only: bool = False
    record_label: str = N_("Record saved")
    history: tuple[HistoryEntry, ...] = ()
    note: str = ""


# ----- small text helpers ------------------------------------------------------


def score_text(names: tuple[str, str], score_halves: tuple[int, int], my_seat: int = 0,
               ascii_only: bool = False) -> str:
    """``"You 1½ : ½ AI"``: my seat first."""
    a, b = my_seat, 1 - my_seat
    return (f"{names[a]} {halves_text(score_halves[a], ascii_only)} : "
            f"{halves_text(score_halves[b], ascii_only)} {names[b]}")


def session_score_lines(names: tuple[str, str], matches: Sequence[tuple[int, int, str]],
                        ascii_only: bool = False) -> list[str]:
    """The closing score of a session of matches between the same two players (``play`` with "play
    again", a networked match and its rematches).  ``names``: mine first; ``matches``: per match, in
    order, my half-points, the other's, and ``""`` for a match played to its end or why it does not
    count (``"unfinished"``, ``"undecided"``).  One match: ``["Score: Ann 1 : 0 Bob"]``; several: the
    matches won (a drawn match ½; one that does not count, nothing) over all of them, then each
    match's score in deals::

        Score: Ann 1 : 1 Bob in 3 matches (1 won, 1 lost, 1 unfinished)
          match 1: Ann 1 : 0 Bob
          match 2: Ann 0 : 1 Bob
          match 3: Ann ½ : 0 Bob (unfinished)

    No matches, no lines."""
    rows: list[str] = []
    counts: dict[str, int] = {"won": 0, "drawn": 0, "lost": 0}
    for mine, theirs, note in matches:
        rows.append(score_text(names, (mine, theirs), 0, ascii_only) + (f" ({_match_note(note)})" if note else ""))
        what = note or ("won" if mine > theirs else "lost" if mine < theirs else "drawn")
        counts[what] = counts.get(what, 0) + 1
    if len(rows) <= 1:
        return [_("Score: %(score)s", score=row) for row in rows]
    won, drawn, lost = counts["won"], counts["drawn"], counts["lost"]
    said = ", ".join(_matches_counted(what, n) for what, n in counts.items() if n)
    total = score_text(names, (2 * won + drawn, 2 * lost + drawn), 0, ascii_only)
    return [ngettext("Score: %(score)s in %(n)d match (%(counts)s)", "Score: %(score)s in %(n)d matches (%(counts)s)",
                     len(rows), score=total, counts=said),
            *(_("  match %(number)d: %(score)s", number=i, score=row) for i, row in enumerate(rows, 1))]


def _match_note(note: str) -> str:
    """Why a match does not count (``"unfinished"``, ``"disputed"``), in the person's language."""
    if note == "unfinished":
        return _("unfinished")
    if note == "disputed":
        return _("disputed")
    return tr(note)


def _matches_counted(what: str, n: int) -> str:
    """``"2 won"``: ``n`` matches of a result (``won``, ``drawn``, ``lost`` or a note such as ``unfinished``)."""
    if what == "won":
        return ngettext("%(n)d won", "%(n)d won", n)
    if what == "drawn":
        return ngettext("%(n)d drawn", "%(n)d drawn", n)
    if what == "lost":
        return ngettext("%(n)d lost", "%(n)d lost", n)
    return f"{n} {_match_note(what)}"


def card_text(card: int, ascii_only: bool) -> str:
    """Display name of a card in the person's language: ``"10♥"`` or ``"10H"``; ``"Д♠"`` in Russian."""
    return card_label(card, ascii_only)


def pad(text: str, columns: int) -> str:
    """``text`` followed by spaces up to ``columns`` terminal columns (wide characters count 2,
    combining marks 0: :func:`prompt_toolkit.utils.get_cwidth`)."""
    return text + " " * max(0, columns - get_cwidth(text))


def hand_order(hand: int, trump: int) -> list[int]:
    """The display order of a hand: the own-trump suit first, then ♠ ♥ ♦ ♣ without
    it, each suit from low to high rank."""
    out: list[int] = []
    for suit in suit_rows(trump):
        out.extend(int(c) for c in cards_in(hand) if suit_of(c) == suit)
    return out


def suit_rows(trump: int) -> list[int]:
    """The suits in display order: ``trump`` first, then the others ♠ ♥ ♦ ♣."""
    return [trump] + [s for s in reversed(SUITS) if s != trump]


def _card_style(card: int) -> str:
    return "class:card.red" if suit_of(card) in (1, 2) else "class:card"


def _width(line: Line) -> int:
    return sum(get_cwidth(t) for _, t in line)


def _fit(line: Line, width: int) -> Line:
    """Cut ``line`` to ``width`` columns and pad it with spaces to exactly ``width``;
    control characters become ``?`` (:func:`printable`)."""
    out: Line = []
    used = 0
    for style, text in line:
        if used >= width:
            break
        text = printable(text)
        w = get_cwidth(text)
        if used + w > width:
            cut = ""
            for ch in text:
                if used + get_cwidth(cut + ch) > width:
                    break
                cut += ch
            text, w = cut, get_cwidth(cut)
        out.append((style, text))
        used += w
    if used < width:
        out.append(("", " " * (width - used)))
    return out


def _ascii_line(line: Line, ascii_only: bool) -> Line:
    return [(s, asciify(t)) for s, t in line] if ascii_only else line


def _screen(lines: Sequence[Line], width: int, height: int, ascii_only: bool = False) -> list[Line]:
    """Exactly ``height`` lines of exactly ``width`` columns: ``lines`` cut or padded with
    blank lines, each fitted (:func:`_fit`; suits as letters with ``ascii_only``)."""
    out = [_fit(_ascii_line(line, ascii_only), width) for line in lines[:height]]
    out += [[("", " " * width)] for _ in range(height - len(out))]
    return out


def plain(lines: Sequence[Line]) -> list[str]:
    """The text of each line, trailing spaces removed (for tests and ``--text``)."""
    return ["".join(t for _, t in line).rstrip() for line in lines]


def to_formatted(lines: Sequence[Line]) -> StyleAndTextTuples:
    """Lines joined by newlines, as one formatted text."""
    out: StyleAndTextTuples = []
    for i, line in enumerate(lines):
        if i:
            out.append(("", "\n"))
        out.extend(line)
    return out


# ----- the hand rows -----------------------------------------------------------


def _mark(card: int, selected: int | None, pending: int | None, bracket: str) -> str:
    if card == selected:
        return bracket
    if card == pending:
        return "*"
    return " "


def hand_rows(hand: int, trump: int, *, ascii_only: bool, legal: int = 0, selected: int | None = None,
              pending: int | None = None, mark_trump: bool = True) -> list[Line]:
    """Four lines, one per suit in :func:`suit_rows` order: ``"  ♥ trump  6♥ [10♥] K♥"``.

    The selected card is bracketed (and reversed), the legal ones styled
    ``card.legal`` (also under the cursor: ``card.selected card.legal``), the
    pending beating card ``card.pending`` with a ``*`` bracket.  An empty suit
    shows ``-``.
    """
    rows: list[Line] = []
    # TRANSLATORS: the mark of the own-trump row of a hand, "♥ trump  6♥ 10♥"; 7 columns at most.
    trump_word = _("trump")
    room = max(5, get_cwidth(trump_word))
    for suit in suit_rows(trump):
        sl = suit_label(suit, ascii_only)
        tag = trump_word if (suit == trump and mark_trump) else ""
        line: Line = [("", "  "), ("class:trump" if tag else ("class:suit.red" if suit in (1, 2) else ""), sl),
                      ("class:trump" if tag else "", f" {pad(tag, room)} ")]
        cards = [int(c) for c in cards_in(hand) if suit_of(c) == suit]
        if not cards:
            line.append(("class:dim", " -"))
        for i, c in enumerate(cards):
            # Adjacent cards share one separator column unless both want a mark ("]*", "*[").
            left = _mark(c, selected, pending, "[")
            sep = left
            if i:
                prev = _mark(cards[i - 1], selected, pending, "]")
                sep = prev + left if prev != " " and left != " " else max(prev, left, key=" *[]".index)
            line.append(("", sep))
            style = _card_style(c)
            if c == selected:
                # The cursor keeps the legal highlight: reverse for the cursor, underline for legal.
                style = "class:card.selected" + (" class:card.legal" if legal >> c & 1 else "")
            elif c == pending:
                style = "class:card.pending"
            elif legal >> c & 1:
                style += " class:card.legal"
            line.append((style, card_text(c, ascii_only)))
        if cards:
            line.append(("", _mark(cards[-1], selected, pending, "]")))
        rows.append(line)
    return rows


# ----- the table ---------------------------------------------------------------


def history_text(entry: HistoryEntry, names: tuple[str, str], ascii_only: bool = False) -> str:
    """One history line: ``"  12 You   beat 10♠ 7♥"`` — a space (so that move 100 does not
    touch the panel's border), the number, who (the first word of the name, at most 5
    columns), the move in short: at most 23 columns up to move 999."""
    who = cut_to_width((names[entry.seat].split() or ["?"])[0], 5, "")
    m = entry.move
    if m.kind == LEAD:
        # TRANSLATORS: a lead in the Moves panel ("lead 10♠"); the verb has 4 columns at most.
        what = _("lead %(card)s", card=card_text(m.card, ascii_only))
    elif m.kind == BEAT:
        cards = card_text(m.card, ascii_only) + (f" {card_text(m.second, ascii_only)}" if m.second >= 0 else "")
        # TRANSLATORS: a beat in the Moves panel ("beat 10♠ 7♥": the beating card, then the second card);
        # the verb has 4 columns at most.
        what = _("beat %(cards)s", cards=cards)
    else:
        # TRANSLATORS: a pick-up in the Moves panel, with the cards taken ("pick up 3"); 10 columns at most.
        what = _("pick up %(n)d", n=entry.picked) if entry.picked else _("pick up")
    return f" {entry.number:>3} {pad(who, 5)} {what}"


def _pile_line(view: TableView, width: int = 80) -> Line:
    """`` Pile (5): 7♠ 9♠  top ▶ J♠ ◀``; with a beating card chosen and its second card still
    to come, `` *Q♠* beats it`` (pending, as in the hand row) follows the top card.  As many cards
    below the top as fit ``width`` columns (at most :data:`PILE_SHOWN`)."""
    a = view.ascii_only
    pile = view.pile
    if not pile:
        return [("class:name", " " + _("Pile")), ("", " " + _("(empty)"))]
    head: Line = [("class:name", " " + _("Pile")), ("", f" ({len(pile)}): ")]
    # TRANSLATORS: before the top card of the pile: "top ▶ J♠ ◀".
    tail: Line = [("", _("top") + " ▶"), ("class:top", f" {card_text(pile[-1], a)} "), ("", "◀")]
    if view.pending_beat is not None:
        tail += [("", " "), ("class:card.pending", f"*{card_text(view.pending_beat, a)}*"),
                 ("class:dim", " " + _("beats it"))]
    room = width - _width(head) - _width(tail) - 2
    below: list[int] = []
    for c in reversed(pile[:-1][-PILE_SHOWN:]):
        w = get_cwidth(card_text(c, a)) + 1
        if w > room:
            break
        below.insert(0, c)
        room -= w
    line = head
    if len(pile) - 1 > len(below):
        line.append(("class:dim", "… "))
    for c in below:
        line.append((_card_style(c), card_text(c, a)))
        line.append(("", " "))
    if below:
        line.append(("", " "))
    return line + tail


def last_move_line(history: Sequence[HistoryEntry], names: tuple[str, str], seat: int,
                   ascii_only: bool = False) -> Line:
    """`` Last move of AI: beat 10♠, second 7♥`` — the last move ``seat`` made in ``history``
    (empty if none), for screens too narrow for the Moves panel."""
    entry = next((e for e in reversed(history) if e.seat == seat), None)
    if entry is None:
        return []
    what = tr(entry.move.label(ascii_only))
    if entry.picked:
        what += " (" + ngettext("%(n)d card", "%(n)d cards", entry.picked) + ")"
    return [("class:dim", " " + _("Last move of %(name)s:", name=names[seat]) + " "), ("class:history.theirs", what)]


def cut_to_width(text: str, columns: int, mark: str = "…") -> str:
    """``text`` cut to at most ``columns`` terminal columns (wide characters count 2, combining
    marks 0 and kept with their letter), ending in ``mark`` when cut (``columns`` >= 1)."""
    if get_cwidth(text) <= columns:
        return text
    out, used = "", 0
    room = columns - get_cwidth(mark)
    for ch in text:
        w = get_cwidth(ch)
        if used + w > room:
            break
        out += ch
        used += w
    return out + mark


def _player_line(view: TableView, seat: int) -> Line:
    n = bin(view.hands[seat]).count("1")
    t = suit_label(view.trumps[seat], view.ascii_only)
    mover = "▶ " if view.to_move == seat else "  "
    # TRANSLATORS: on a player's line, before the suit of their own trump: "Ann  trump ♥  18 cards".
    line: Line = [("", " " + mover), ("class:name", view.names[seat]), ("", "  " + _("trump") + " "),
                  ("class:trump", t), ("", "  " + ngettext("%(n)d card", "%(n)d cards", n))]
    if view.clock is not None and view.clock[0] == seat:
        line += [("", "  "), clock_fragment(view.clock[1])]
    return line


#: The last seconds of a move clock, drawn in the warning style (and the bell once, protocol/wire.md §16).
CLOCK_WARN_S = 10.0


def clock_fragment(left_s: float) -> tuple[str, str]:
    """The running clock as one styled fragment: ``" 0:42 "`` highlighted, ``"!0:07!"`` in the
    warning style in its last :data:`CLOCK_WARN_S` seconds (the marks keep it readable without colour)."""
    if left_s <= CLOCK_WARN_S:
        return "class:clock.warn", f"!{clock_text(left_s)}!"
    return "class:clock", f" {clock_text(left_s)} "


def render_table(view: TableView, width: int = 80, height: int = 20) -> list[Line]:
    """The table screen, exactly ``height`` lines of ``width`` columns.

    Top to bottom: the header (deal and score), the opponent (name, trump, card
    count, connection, detail line), the opponent's hand (four suit rows) or a
    one-line "hidden" note, the pile with its top card, my name line and my four
    suit rows, then the latest chat lines.  From :data:`HISTORY_MIN_WIDTH`
    columns on, the move history fills a column on the right.
    """
    a = view.ascii_only
    me, opp = view.my_seat, 1 - view.my_seat
    show_history = width >= HISTORY_MIN_WIDTH
    left_w = width - HISTORY_WIDTH if show_history else width

    header: Line = [("class:header", " " + game_name()),
                    # TRANSLATORS: the header of the table: "deal 2/3", this deal of the match's deals.
                    ("", "   " + _("deal %(number)d/%(deals)d", number=view.deal_number, deals=view.deals) + "   "),
                    ("class:name", score_text(view.names, view.score_halves, me, a))]
    left: list[Line] = [header, [("class:rule", "─" * left_w)]]

    opp_line = _player_line(view, opp)
    if view.connection:
        pad = left_w - _width(_ascii_line(opp_line, a)) - get_cwidth(view.connection) - 1
        if pad < 2:  # a long name at 60 columns: cut the name, not the clock at the end of the line
            style, name = opp_line[1]
            opp_line[1] = (style, cut_to_width(name, max(4, get_cwidth(name) + pad - 2)))
            pad = left_w - _width(_ascii_line(opp_line, a)) - get_cwidth(view.connection) - 1
        opp_line.append(("", " " * max(2, pad)))
        opp_line.append(("class:dim", view.connection))
    left.append(opp_line)
    if view.opponent_detail:
        # the key first, then the path: a narrow screen cuts the end with "…", never silently
        left.append([("class:dim", "    " + cut_to_width(view.opponent_detail, max(1, left_w - 4)))])
    if view.show_opponent:
        left.extend(hand_rows(view.hands[opp], view.trumps[opp], ascii_only=a))
    else:
        left.append([("class:dim", "    " + _("hand hidden (o shows it)"))])
    left.append([])
    left.append(_pile_line(view, left_w))
    if not show_history and (last := last_move_line(view.history, view.names, opp, a)):
        left.append(last)
    left.append([])
    left.append(_player_line(view, me))
    left.extend(hand_rows(view.hands[me], view.trumps[me], ascii_only=a, legal=view.legal,
                          selected=view.selected, pending=view.pending_beat))
    if view.chat:
        while len(left) >= height and [] in left:
            left.remove([])  # a small screen: the newest chat line instead of a blank line
        if len(left) + 2 <= height:
            left.append([])  # a blank line before the chat
        room = max(0, height - len(left))
        for text in view.chat[-room:] if room else ():
            left.append([("class:chat", " " + text)])

    left = _screen(left, left_w, height, a)
    return _with_history(left, view.history, view.names, me, a, height) if show_history else left


def _with_history(left: list[Line], history: Sequence[HistoryEntry], names: tuple[str, str], me: int,
                  ascii_only: bool, height: int) -> list[Line]:
    """``left`` (``height`` fitted lines) with the Moves panel (:data:`HISTORY_WIDTH` columns) on its right."""
    a = ascii_only
    right: list[Line] = [[("class:rule", "│"), ("class:history.title", " " + _("Moves"))]]
    room = height - 1
    entries = history[-room:] if room > 0 else ()
    for e in entries:
        style = "class:history.mine" if e.seat == me else "class:history.theirs"
        right.append([("class:rule", "│"), (style, history_text(e, names, a))])
    while len(right) < height:
        right.append([("class:rule", "│")])
    right = [_fit(_ascii_line(line, a), HISTORY_WIDTH) for line in right]
    return [lft + rgt for lft, rgt in zip(left, right, strict=True)]


def wrap_text(text: str, width: int, indent: str = " ") -> list[str]:
    """``text`` broken at spaces into lines of at most ``width`` columns, each starting
    with ``indent`` (a word longer than a line is cut into pieces)."""
    room = max(1, width - get_cwidth(indent))
    words: list[str] = []
    for word in text.split(" "):
        while get_cwidth(word) > room:
            cut = ""
            for ch in word:
                if get_cwidth(cut + ch) > room:
                    break
                cut += ch
            words.append(cut)
            word = word[len(cut):]
        words.append(word)
    lines: list[str] = []
    cur: str | None = None
    for word in words:
        if cur is None:
            cur = word
        elif get_cwidth(cur) + 1 + get_cwidth(word) <= room:
            cur = f"{cur} {word}"
        else:
            lines.append(indent + cur)
            cur = word
    lines.append(indent + (cur or ""))
    return lines


def status_height(view: StatusView, width: int = 80) -> int:
    """How many lines :func:`render_status` takes at ``width`` columns (3 or more)."""
    return len(render_status(view, width))


def render_status(view: StatusView, width: int = 80) -> list[Line]:
    """The bottom lines, each ``width`` columns: expect, the lasting fault (if any, marked ✗ as an
    error), message, keys — at least three.

    The expect and message texts wrap at spaces (indented by one column) rather
    than being cut; the keys line is already fitted by the caller.
    """
    kind = {"error": "class:message.error", "hint": "class:message.hint"}.get(view.message_kind, "class:message")
    mark = "✗ " if view.message_kind == "error" and view.message else ""
    a = view.ascii_only
    expect = asciify(view.expect) if a else view.expect
    message = asciify(mark + view.message) if a else mark + view.message
    lines: list[Line] = [[("class:expect", t)] for t in wrap_text(expect, width)]
    if view.fault:
        fault = "✗ " + view.fault
        lines += [[("class:message.error", t)] for t in wrap_text(asciify(fault) if a else fault, width)]
    lines += [[(kind, t)] for t in wrap_text(message, width)]
    lines.append([("class:keys", " " + view.keys)])
    return [_fit(_ascii_line(line, a), width) for line in lines]


def render_too_small(width: int, height: int, need: tuple[int, int] = (MIN_WIDTH, MIN_HEIGHT)) -> list[Line]:
    """The screen shown instead of the game when the terminal is smaller than ``need``
    (columns, rows): ``"terminal too small: need at least 60x20 (now 30x10)"``, wrapped."""
    text = _("terminal too small: need at least %(columns)dx%(rows)d (now %(width)dx%(height)d); q quits",
             columns=need[0], rows=need[1], width=width, height=height)
    lines: list[Line] = [[("class:message.error", t)] for t in wrap_text(text, width, "")]
    return _screen(lines, width, height)


def render_trump_choice(selected: int, taken: int | None, ascii_only: bool, width: int = 80,
                        height: int = 20, title: str = "", chat: Sequence[str] = ()) -> list[Line]:
    """The trump-choice screen (RULES.md §2): the four suits, ``selected`` one
    bracketed, a suit already ``taken`` by the opponent marked and not choosable; then the
    latest ``chat`` lines (a networked match), as many as fit.  ``title``: "Choose your own trump"
    in the person's language when empty."""
    lines: list[Line] = [
        [("class:header", " " + game_name())],
        [("class:rule", "─" * width)],
        [],
        [("class:name", " " + (title or _("Choose your own trump")))],
        *([("", t)] for t in wrap_text(_("Your trump beats any card of another suit, on your turn."), width)),
        [],
    ]
    for i, s in enumerate(SUITS):
        mark = "▶ " if s == selected else "  "
        style = "class:card.selected" if s == selected else ("class:dim" if s == taken else "")
        text = f"{suit_label(s, ascii_only)} {suit_name(s)}"
        note = "  " + _("(taken by your opponent)") if s == taken else ""
        lines.append([("", f"   {i + 1}. {mark}"), (style, text), ("class:dim", note)])
    lines.append([])
    return _screen(with_chat(lines, chat, height), width, height, ascii_only)


def render_setup(chat: Sequence[str], ascii_only: bool, width: int = 80, height: int = 20) -> list[Line]:
    """The screen before the first deal ("Setting up the match…"; a networked match waits for the
    trumps here), with the latest ``chat`` lines below as many as fit."""
    lines: list[Line] = [[("class:header", " " + game_name())], [("", " " + _("Setting up the match…"))], []]
    return _screen(with_chat(lines, chat, height), width, height, ascii_only)


def with_chat(lines: list[Line], chat: Sequence[str], height: int) -> list[Line]:
    """``lines`` followed by the latest ``chat`` lines (oldest first) that fit in ``height`` lines
    after them; ``lines`` itself when there is no chat or no room."""
    room = max(0, height - len(lines))
    return lines + [[("class:chat", " " + text)] for text in chat[-room:]] if chat and room else lines


def _wrap_words(words: Sequence[str], width: int, first: str, indent: str) -> list[str]:
    lines: list[str] = []
    cur = first
    for w in words:
        if get_cwidth(cur) + 1 + get_cwidth(w) > width and cur.strip() and cur != first:
            lines.append(cur)
            cur = indent
        cur = f"{cur} {w}" if cur.strip() else cur + w
    lines.append(cur)
    return lines


def wrap_after(text: str, width: int, indent: str, breaks: str = "/\\ ") -> list[str]:
    """``text`` in lines of at most ``width`` columns, broken only after one of ``breaks`` (a
    path's separators, a position text's ``/``: no name or field is cut) unless a piece is
    longer than a line; the lines after the first start with ``indent``."""
    pieces: list[str] = []
    cur = ""
    for ch in text:
        cur += ch
        if ch in breaks:
            pieces.append(cur)
            cur = ""
    if cur:
        pieces.append(cur)
    lines: list[str] = []
    line = ""
    for piece in pieces:
        if line.strip() and get_cwidth(line + piece) > width:
            lines.append(line.rstrip())
            line = indent
        for ch in piece:  # a piece longer than a line: cut where it must be
            if get_cwidth(line + ch) > width and line.strip():
                lines.append(line)
                line = indent
            line += ch
    lines.append(line)
    return lines


def render_end(view: EndView, width: int = 80, height: int = 20) -> list[Line]:
    """The end-of-deal screen (result, score, both hands, the pile) or, with
    ``match_over``, the end of the match with the path of the saved record.

    The deal's moves stay on screen: the Moves panel from :data:`HISTORY_MIN_WIDTH`
    columns on, else a line with the last move (:func:`last_move_line`)."""
    a = view.ascii_only
    me, opp = view.my_seat, 1 - view.my_seat
    show_history = width >= HISTORY_MIN_WIDTH and bool(view.history)
    left_w = width - HISTORY_WIDTH if show_history else width
    head = _("Match over") if view.match_over else _("Deal %(number)d of %(deals)d over", number=view.deal_number,
                                                      deals=view.deals)
    lines: list[Line] = [
        [("class:header", f" {game_name()}   {head}")],
        [("class:rule", "─" * left_w)],
        *([("class:result", t)] for t in wrap_text(view.title, left_w)),  # long names at 60 columns
    ]
    if view.note:
        lines += [[("class:result", t)] for t in wrap_text(view.note, left_w)]
    lines.append([("class:name", " " + _("Score: %(score)s", score=score_text(view.names, view.score_halves, me, a)))])
    if view.match_over and view.record_path:
        lines += [[("", t)] for t in wrap_after(f" {tr(view.record_label)}: {view.record_path}", left_w, "   ")]
    if not show_history and view.history:
        last = view.history[-1]
        lines.append(last_move_line(view.history, view.names, last.seat, a))
    lines.append([])
    for seat in (opp, me):
        n = bin(view.hands[seat]).count("1")
        lines.append([("class:name", f" {view.names[seat]}"),
                      ("", "  " + _("trump") + f" {suit_label(view.trumps[seat], a)}  "
                       + ngettext("%(n)d card left", "%(n)d cards left", n))])
        if view.hands[seat]:
            lines.extend(hand_rows(view.hands[seat], view.trumps[seat], ascii_only=a))
    pile = [card_text(c, a) for c in view.pile] or [_("(empty)")]
    label = " " + _("Pile") + ":"
    for text in _wrap_words(pile, left_w - 1, label, " " * (get_cwidth(label) + 1)):
        lines.append([("", text)])
    lines = _screen(lines, left_w, height, a)
    return _with_history(lines, view.history, view.names, me, a, height) if show_history else lines


def render_text_page(text_lines: Sequence[str], top: int, width: int, height: int, title: str = "") -> list[Line]:
    """A page of a long text (the rule book): ``title`` on the first line, then the
    lines of ``text_lines`` wrapped to ``width`` from line ``top`` of the wrapped text,
    exactly ``height`` lines.  Markdown is shown as written."""
    body = wrapped_lines(text_lines, width)
    lines: list[Line] = [[("class:header", f" {title}")]] if title else []
    room = max(0, height - len(lines))
    lines += [[("", t)] for t in body[top:top + room]]
    return _screen(lines, width, height)


_ITEM = re.compile(r"^( *)([-*] |\d+\. |#+ |\|)")


def wrapped_lines(text_lines: Sequence[str], width: int) -> list[str]:
    """Markdown text (the rule book) laid out for ``width`` columns after a one-column margin:
    the lines of a paragraph or a list item are joined and wrapped again at spaces
    (:func:`textwrap.wrap`), a list item's later lines hang under its text, headings and
    table rows stay lines of their own; empty lines stay."""
    blocks: list[tuple[str, str, str]] = []  # (first indent, hanging indent, text)
    for raw in text_lines:
        if not raw.strip():
            blocks.append(("", "", ""))
            continue
        item = _ITEM.match(raw)
        body = raw.strip()
        if item is not None:
            indent = item[1]
            hang = indent + (" " * len(item[2]) if item[2][0] in "-*0123456789" else "  ")
            blocks.append((indent, hang, body))
        elif blocks and blocks[-1][2] and not blocks[-1][2].startswith(("#", "|")):
            first, hang, text = blocks[-1]
            blocks[-1] = (first, hang, f"{text} {body}")
        else:
            indent = raw[:len(raw) - len(raw.lstrip(" "))]
            blocks.append((indent, indent, body))
    out: list[str] = []
    for first, hang, text in blocks:
        if not text:
            out.append("")
            continue
        room = max(width, len(hang) + 12)
        out += textwrap.wrap(text, room, initial_indent=" " + first, subsequent_indent=" " + hang,
                             break_on_hyphens=False) or [""]
    return out


# ----- what is expected now ----------------------------------------------------


def expect_text(position: Position, seat: int, pending_beat: int | None = None,
                opponent_name: str = "") -> str:
    """What RULES.md §4 expects of ``seat`` now, for the status line.

    Lead on an empty pile; beat (naming the beating cards) then a second card;
    pick up when nothing beats (naming how many cards); the second card when
    ``pending_beat`` is chosen; or waiting for the opponent.  Unicode suits
    (the caller applies :func:`asciify`).  ``opponent_name``: "the opponent" when empty.
    """
    if position.outcome is not None:
        return _("The deal is over.")
    if position.to_move != seat:
        return _("%(name)s to move…", name=opponent_name or _("the opponent"))
    if pending_beat is not None:
        return _("Second card: any card on top of %(card)s (Enter plays it, Esc takes the beat back)",
                 card=card_label(pending_beat))
    if not position.pile:
        return _("Your lead: play any card (Enter).")
    top = card_label(position.pile[-1])
    beating = position.beating_cards(seat)
    beaters = [card_label(c) for c in hand_order(beating, position.trumps[seat])]
    take = ngettext("pick up (p) takes %(n)d card", "pick up (p) takes %(n)d cards", position.pickup_size())
    if not beaters:
        return _("Nothing beats %(top)s: %(take)s.", top=top, take=take)
    if len(beaters) > 6:
        names = ngettext("one of the %(n)d highlighted cards", "one of the %(n)d highlighted cards", len(beaters))
    else:
        names = or_list(beaters)
    last = bin(position.hands[seat]).count("1") == 1
    if position.rules.voluntary_pickup:
        if last:
            return _("Beat %(top)s with %(cards)s; or %(take)s.", top=top, cards=names, take=take)
        return _("Beat %(top)s with %(cards)s, then a second card; or %(take)s.", top=top, cards=names, take=take)
    if last:
        return _("Beat %(top)s with %(cards)s.", top=top, cards=names)
    return _("Beat %(top)s with %(cards)s, then a second card.", top=top, cards=names)


def or_list(items: Sequence[str]) -> str:
    """``"a, b or c"`` in the person's language (one item: itself)."""
    if len(items) <= 1:
        return "".join(items)
    return _("%(items)s or %(last)s", items=", ".join(items[:-1]), last=items[-1])


def game_name() -> str:
    """The game's name as its players say it: "Svoi Kozyri" (Свои козыри)."""
    # TRANSLATORS: the game's name in the header of every screen; keep "Svoi Kozyri" where the Russian name
    # is not said in your language (in Russian: Свои козыри).
    return _("Svoi Kozyri")


def suit_name(suit: int) -> str:
    """The name of ``suit`` (0..3: clubs, diamonds, hearts, spades) in the person's language."""
    return (pgettext("suit", "clubs"), pgettext("suit", "diamonds"), pgettext("suit", "hearts"),
            pgettext("suit", "spades"))[suit]
