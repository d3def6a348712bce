"""Our seat when there is no full-screen table: the AI, or a person at plain line prompts,
and the progress printed for ``--headless``.

Source: README.md "Playing over the network" (``--ai LEVEL``, ``--headless``).  The questions asked before the
match (the trump, the rules) are here too, so the match driver asks without knowing
who answers.
"""

from __future__ import annotations

import os
import random
import sys
import threading

import trio

from ..cards import suit_label
from ..events import DealEnded, DealStarted, MatchEnded, MovePlayed
from ..events import MatchEvent as Event
from ..i18n import _
from ..match import Action, OfferDraw, Resign
from ..message import N_, Nn_, message_of
from ..record import PlayerInfo
from ..rules import Position, RuleSet
from ..seats import Player
from ..text import halves_text
from .config import EXIT_ERROR, EXIT_USAGE, NetConfig, NetplayError, say


class ProgressPrinter:
    """Wraps our player and prints the match events (``--headless``)."""

    def __init__(self, inner: Player, cfg: NetConfig, names: tuple[str, str]) -> None:
        self.inner = inner
        self.info = inner.info
        self.cfg = cfg
        self.names = names

    async def choose_move(self, position: Position, seat: int) -> Action:
        return await self.inner.choose_move(position, seat)

    async def accept_draw(self, position: Position, seat: int) -> bool:
        return await self.inner.accept_draw(position, seat)

    async def observe(self, event: Event) -> None:
        a = self.cfg.ascii_only
        if isinstance(event, DealStarted):
            p = event.position
            say(self.cfg, N_("deal %(number)d: %(dealer)s deals; %(elder)s (trump %(suit)s) starts",
                             number=event.number, dealer=self.names[event.dealer], elder=self.names[p.to_move],
                             suit=suit_label(p.trumps[p.to_move], a)))
        elif isinstance(event, MovePlayed):
            say(self.cfg, N_("  %(turn)s. %(name)s: %(move)s", turn=f"{event.position.turn:3d}",
                             name=self.names[event.seat], move=event.move.label(a)))
        elif isinstance(event, DealEnded):
            x, y = event.score_halves
            say(self.cfg, N_("deal %(number)d: %(outcome)s; score %(first)s-%(second)s", number=event.number,
                             outcome=event.outcome.describe(self.names), first=halves_text(x, True),
                             second=halves_text(y, True)))
        elif isinstance(event, MatchEnded):
            x, y = event.score_halves
            say(self.cfg, N_("match over: %(first)s %(first_score)s, %(second)s %(second_score)s", first=self.names[0],
                             first_score=halves_text(x, True), second=self.names[1], second_score=halves_text(y, True)))
        await self.inner.observe(event)


_stdin_pending = bytearray()  # bytes read from standard input past the last line handed out
_stdin_lock = threading.Lock()


def read_line(prompt: str) -> str | None:
    """Print ``prompt`` (no newline) and read one line of standard input, without its line end;
    None at end of input.  Blocking: call it in a worker thread.

    It reads file descriptor 0 with ``os.read``, never ``sys.stdin``: a worker thread still waiting
    here when the run ends (the question was abandoned) holds no lock of ``sys.stdin``'s buffer, so
    the interpreter shuts down cleanly (with ``input()`` it aborted: "Fatal Python error:
    _enter_buffered_busy").  Undecodable bytes become U+FFFD."""
    print(prompt, end="", flush=True)
    encoding = getattr(sys.stdin, "encoding", None) or "utf-8"
    with _stdin_lock:
        while b"\n" not in _stdin_pending:
            try:
                chunk = os.read(0, 4096)
            except OSError:
                chunk = b""
            if not chunk:
                if not _stdin_pending:
                    return None
                _stdin_pending.extend(b"\n")  # a last line without its line end
                break
            _stdin_pending.extend(chunk)
        end = _stdin_pending.index(b"\n")
        line = bytes(_stdin_pending[:end])
        del _stdin_pending[: end + 1]
    return line.decode(encoding, errors="replace").removesuffix("\r")


class LinePlayer:
    """The person at a plain line prompt (``--headless`` without ``--ai``)."""

    def __init__(self, info: PlayerInfo, cfg: NetConfig) -> None:
        self.info = info
        self.cfg = cfg
        self.eof = False  # stdin ended: we resigned once and stop at the next question

    async def _ask(self, prompt: str) -> str:
        """The person's answer to ``prompt``.  At the end of input the person has gone: the match is
        left as ``q`` leaves it (a signed ``leave``, protocol/wire.md §15), or, where nothing can
        leave it, this deal is resigned and the next question ends the run."""
        if self.eof:
            raise NetplayError(EXIT_ERROR, N_("the input ended (EOF): you resigned the deal and left the match"))
        text = await trio.to_thread.run_sync(read_line, prompt, abandon_on_cancel=True)
        if text is None:
            self.eof = True
            leave = self.cfg.hooks.leave_requested
            if leave is not None:
                say(self.cfg, N_("the input ended (EOF): leaving the match (the rest of it is resigned)"))
                leave.set()
                await trio.sleep_forever()  # the match driver sends leave and ends the match
            say(self.cfg, N_("the input ended (EOF): resigning this deal and leaving"))
            return "resign"
        return text

    async def choose_move(self, position: Position, seat: int) -> Action:
        say(self.cfg, str(position))
        for _try in range(1000):
            text = (await self._ask(_("your move (e.g. %(examples)s; '%(draw)s', '%(resign)s'): ",
                                      examples="QS, TS/7H, p", draw="draw", resign="resign"))).strip()
            if text == "resign":
                return Resign()
            if text == "draw":
                return OfferDraw()
            try:
                return position.parse_move(text)
            except ValueError as exc:
                say(self.cfg, message_of(exc))
        return Resign()

    async def accept_draw(self, position: Position, seat: int) -> bool:
        return (await self._ask(_("the opponent offers a draw; accept? [y/N] "))).strip().lower() in ("y", "yes")

    async def observe(self, event: Event) -> None:
        return None


def our_player(cfg: NetConfig, seat: int) -> Player:
    if cfg.hooks.make_player is not None:
        return cfg.hooks.make_player(cfg, seat)
    if cfg.ai is not None:
        from ..ai import AIPlayer

        return AIPlayer(cfg.ai, cfg.think_s, name=cfg.name, max_nodes=cfg.nodes)
    return LinePlayer(PlayerInfo(cfg.name, "human"), cfg)


async def choose_trump(cfg: NetConfig, taken: int | None) -> int:
    if cfg.trump is not None and cfg.trump != taken:
        return cfg.trump
    if cfg.trump is not None:
        say(cfg, N_("your trump %(suit)s is taken by the host; choosing another",
                    suit=suit_label(cfg.trump, cfg.ascii_only)))
    if cfg.hooks.choose_trump is not None:
        return await cfg.hooks.choose_trump(taken)
    if cfg.ai is not None or cfg.hooks.confirm is None:
        from ..ai import choose_trump

        return choose_trump(taken, random.Random())
    from ..cards import parse_suit

    for _try in range(100):
        text = await trio.to_thread.run_sync(read_line, _("your trump (C D H S): "), abandon_on_cancel=True)
        if text is None:
            raise NetplayError(EXIT_USAGE, N_("the input ended (EOF) before a trump was chosen"))
        try:
            suit = parse_suit(text.strip())
        except ValueError as exc:
            say(cfg, message_of(exc))
            continue
        if suit != taken:
            return suit
        say(cfg, N_("that suit is the host's trump; choose another"))
    raise NetplayError(EXIT_USAGE, N_("no trump chosen"))



def policy_refusal(cfg: NetConfig, rules: RuleSet) -> str | None:
    """Why a guest with nobody to ask (the AI, or no terminal) refuses ``rules``, or None: more deals
    than ``cfg.max_deals`` (``--max-deals``), no turn limit or one above ``cfg.max_turn_limit``
    (``--max-turn-limit``), or repetition off -- a deal with neither could go on for a million
    turns."""
    if rules.deals > cfg.max_deals:
        return Nn_("%(n)d deal is more than %(option)s %(most)d", "%(n)d deals is more than %(option)s %(most)d",
                   rules.deals, option="--max-deals", most=cfg.max_deals)
    if rules.turn_limit == 0:
        return N_("no turn limit (this side plays with one of at most %(option)s %(most)d)",
                  option="--max-turn-limit", most=cfg.max_turn_limit)
    if rules.turn_limit > cfg.max_turn_limit:
        return N_("a turn limit of %(limit)d is more than %(option)s %(most)d", limit=rules.turn_limit,
                  option="--max-turn-limit", most=cfg.max_turn_limit)
    if rules.repetition == 0:
        return N_("repetition is off (a position could repeat for ever; this side plays only with it on)")
    return None


async def rules_refusal(cfg: NetConfig, rules: RuleSet, host_name: str, move_time: int = 0) -> str | None:
    """Whether we accept the host's rules and move clock (``move_time`` seconds per move, 0: none):
    None to accept, else why not ("" when the person said no).  The AI and a run without a
    terminal follow :func:`policy_refusal`; a person is asked."""
    if move_time:
        say(cfg, N_("%(name)s proposes: %(rules)s, move clock %(seconds)d s a move", name=host_name,
                    rules=rules.describe(), seconds=move_time))
    else:
        say(cfg, N_("%(name)s proposes: %(rules)s, no move clock", name=host_name, rules=rules.describe()))
    if cfg.ai is not None or cfg.hooks.confirm is None:
        return policy_refusal(cfg, rules)
    # TRANSLATORS: the answers typed stay y and n (n or no refuses).
    question = _("accept these rules? [Y/n] ")
    answer = await trio.to_thread.run_sync(input, question, abandon_on_cancel=True)
    return "" if answer.strip().lower() in ("n", "no") else None
