"""The hellos, the keys and the rules of one match, as our side agrees them.

Source: ``protocol/wire.md`` §7 (the hellos; §7.1 a key is pinned only once its owner has signed),
§9.1 (the rules: the host proposes, the guest agrees or refuses), §9.4 (a rematch shows the key, the
rules and the move clock of the match before), §17 (how long each may take); ``protocol/rendezvous.md``
§3 (a key that came with a code); ``protocol/files.md`` (the known peers).  The steps of a match
(:class:`~p2ptrumps.net.steps.MatchSteps`) run :class:`Agreement` first.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import trio

from ..events import PeerHello, RulesAgreed, RulesProposed, RulesRefused
from ..message import N_, message_of
from ..rules import RuleSet
from ..text import quoted
from . import keystore
from .config import (
    EXIT_ERROR,
    EXIT_KEY_REFUSED,
    EXIT_PEER_GONE,
    EXIT_RULES_REFUSED,
    NetConfig,
    NetplayError,
    NetResult,
    say,
)
from .prompts import rules_refusal
from .seat import NetMatch


@dataclass
class Agreement:
    """The hellos, the keys and the rules of one match on a connection (see the module docstring).

    Attributes:
        cfg: our side's configuration; ``game``: the match as the steps see it (its session, its connection).
        result: what the match leaves (the peer's name and key are noted here).
        rematch_of: the first match's result (None for the first match): a rematch must show the
            same key, rules and move clock.
        hello_deadline: trio time by which the peer's hello must arrive (None: no limit).
        peer_address: the peer's address for the known peers.
        lobby: (host) the lobby admits the guest (it said what was proposed already).
        begin_hosted: (host) the guest's accepting ``agree`` is in the chain: the match becomes its
            (pinned, the log created); returns False when another guest came first.
        create_log: (guest) create the log file as we accept the rules, given the host's name.
    """

    cfg: NetConfig
    game: NetMatch
    result: NetResult
    rematch_of: NetResult | None
    hello_deadline: float | None
    peer_address: str
    lobby: bool
    begin_hosted: Callable[[], bool]
    create_log: Callable[[str], None]
    #: (guest) pins the host's key once it has signed its rules (protocol/wire.md §7.1), or None.
    _pin_host: Callable[[], None] | None = field(default=None, repr=False)

    async def hello(self) -> PeerHello:
        """Our hello out, the peer's in by :attr:`hello_deadline` (a rematch's must show the key of the
        match before); (guest) the host's key is pinned here -- (host) the guest's only once it has
        signed (:attr:`begin_hosted`).  Then we accept the peer's key."""
        cfg, game, result, rematch_of = self.cfg, self.game, self.result, self.rematch_of
        await game.conn.send_pending()  # our hello
        got: PeerHello | None = None
        with trio.move_on_at(self.hello_deadline if self.hello_deadline is not None else math.inf):
            got = await game.take(PeerHello)
        if got is None:
            raise NetplayError(EXIT_PEER_GONE, N_("no hello from the peer within %(seconds)s s (not a p2ptrumps peer?)",
                                                  seconds=f"{cfg.hello_timeout_s:g}"))
        result.peer_name, result.peer_fingerprint = got.name, got.fingerprint
        if rematch_of is not None and got.fingerprint != rematch_of.peer_fingerprint:
            raise NetplayError(EXIT_KEY_REFUSED, N_("the rematch hello shows another key (%(key)s) than the match "
                                                    "before (%(before)s). Refused.", key=got.fingerprint,
                                                    before=rematch_of.peer_fingerprint or ""))
        if rematch_of is None and cfg.code_fingerprint is not None:  # keys pinned by the code (rendezvous.md §3)
            _check_code_key(cfg, got)
        elif rematch_of is None and cfg.role == "guest":
            self._pin_host = await _pin(cfg, got, self.peer_address)  # decided now, written once the host signed
        await game.act(game.session.accept_key)
        return got

    async def host_rules(self, hello: PeerHello) -> RuleSet:
        """(host) Our rules were proposed with our hello: wait ``cfg.agree_wait_s`` for the guest's answer;
        an accepting ``agree`` makes the match the guest's (:attr:`begin_hosted`).  Returns the rules."""
        cfg = self.cfg
        if self.rematch_of is None and not self.lobby:
            rules = cfg.rules.describe() if cfg.rules else "?"
            if cfg.move_time:
                say(self.cfg, N_("proposed: %(rules)s, move clock %(seconds)d s; waiting for %(name)s to accept the "
                                 "rules ...", rules=rules, seconds=cfg.move_time, name=hello.name))
            else:
                say(self.cfg, N_("proposed: %(rules)s; waiting for %(name)s to accept the rules ...", rules=rules,
                                 name=hello.name))
        answer: RulesAgreed | RulesRefused | None = None
        with trio.move_on_after(cfg.agree_wait_s):
            answer = await self.game.take(RulesAgreed, RulesRefused)
        if answer is None:
            raise NetplayError(EXIT_PEER_GONE, N_("%(name)s did not answer the rules within %(seconds)s s",
                                                  name=quoted(hello.name), seconds=f"{cfg.agree_wait_s:g}"))
        if isinstance(answer, RulesRefused):
            raise NetplayError(EXIT_RULES_REFUSED, N_("%(name)s refused the rules", name=quoted(hello.name)))
        if not self.begin_hosted():
            raise NetplayError(EXIT_PEER_GONE, N_("another guest came first"))
        return answer.rules

    async def guest_rules(self, hello: PeerHello) -> RuleSet:
        """(guest) Take the host's proposal (it comes at once: ``cfg.hello_timeout_s``), accept or refuse
        it (a rematch's must be the rules of the match before); on accepting, create the log file.
        Returns the rules."""
        cfg, game, rematch_of = self.cfg, self.game, self.rematch_of
        session = game.session
        proposed: RulesProposed | None = None
        with trio.move_on_after(cfg.hello_timeout_s):  # the host proposes at once (protocol/wire.md §17)
            proposed = await game.take(RulesProposed)
        if proposed is None:
            raise NetplayError(EXIT_PEER_GONE, N_("%(name)s proposed no rules within %(seconds)s s",
                                                  name=quoted(hello.name), seconds=f"{cfg.hello_timeout_s:g}"))
        if self._pin_host is not None:  # its signed proposal proves the key of its hello (protocol/wire.md §7.1)
            self._pin_host()
            self._pin_host = None
        if rematch_of is not None:
            ok = (rematch_of.rules is not None and proposed.rules == rematch_of.rules
                  and proposed.move_time == rematch_of.move_time)
            why = "" if ok else N_("other rules than the match before")
        else:
            refusal = await rules_refusal(cfg, proposed.rules, hello.name, proposed.move_time)
            ok, why = refusal is None, refusal or ""
        if not ok:
            await game.act(session.floor.refuse_rules)
            raise NetplayError(EXIT_RULES_REFUSED,
                               N_("you refused the rules of %(name)s: %(why)s", name=hello.name, why=why) if why
                               else N_("you refused the rules of %(name)s", name=hello.name))
        self.create_log(hello.name)
        await game.act(session.floor.accept_rules)
        return (await game.take(RulesAgreed)).rules


def pin_guest(cfg: NetConfig, name: str, fingerprint: str, peer_address: str) -> None:
    """(host) Pin a guest that has signed (protocol/wire.md §7.1): guests are known by their key alone
    (any guest may play; a known name with a new key is only a warning).  Raises NetplayError
    (status 1) when the known-peers file is unusable."""
    try:
        note = keystore.KnownPeers.open(cfg.data).pin_guest(fingerprint, name, peer_address)
    except keystore.KeyStoreError as exc:
        raise NetplayError(EXIT_ERROR, str(exc)) from None
    say(cfg, note)


class _PinLater:
    """Stands in for the known-peers file while the guest decides on the host's key: a new key is
    remembered, and written by :meth:`write` only once the host has signed (protocol/wire.md §7.1)."""

    def __init__(self, known: keystore.KnownPeers) -> None:
        self.known = known
        self.path = known.path
        self.entry: tuple[str, str, str] | None = None

    def add(self, fingerprint: str, name: str, address: str) -> None:
        self.entry = (fingerprint, name, address)

    def write(self) -> None:
        if self.entry is not None:
            self.known.add(*self.entry)


def _check_code_key(cfg: NetConfig, hello: PeerHello) -> None:
    """(a match by code) The peer's hello must carry the key that came with the code
    (protocol/rendezvous.md §3): the guest takes no other host, the host admits no other guest (the
    lobby drops that connection with a note; nothing was signed or written).  Raises NetplayError
    (status 6) naming both keys."""
    assert cfg.code_fingerprint is not None
    if keystore.normalise_fingerprint(hello.fingerprint) == keystore.normalise_fingerprint(cfg.code_fingerprint):
        if cfg.role == "guest":
            say(cfg, N_("peer: %(name)s, its key pinned by the code (%(fingerprint)s)", name=quoted(hello.name),
                        fingerprint=hello.fingerprint))
        return
    if cfg.role == "guest":
        raise NetplayError(EXIT_KEY_REFUSED, N_("the host's key %(key)s is not the key the code gave (%(code_key)s). "
                                                "Refused.", key=hello.fingerprint, code_key=cfg.code_fingerprint))
    raise NetplayError(EXIT_KEY_REFUSED, N_("a guest with the key %(key)s, not the key that came with the code, was "
                                            "turned away", key=hello.fingerprint))


async def _pin(cfg: NetConfig, hello: PeerHello, peer_address: str) -> Callable[[], None]:
    """(guest) Check the host's key against the known peers: ssh's rules (``--fingerprint``,
    ``--accept-new``, a question).  Nothing is written yet: returns the call that pins a new key,
    made once the host has signed (its ``rules``; protocol/wire.md §7.1, files.md).

    Raises:
        NetplayError: status 6 (the key is refused), 1 (the known-peers file is unusable; also from
            the returned call).
    """
    try:
        known = keystore.KnownPeers.open(cfg.data)
    except keystore.KeyStoreError as exc:
        raise NetplayError(EXIT_ERROR, message_of(exc)) from None
    check = known.check(hello.fingerprint, hello.name, peer_address)
    later = _PinLater(known)

    def decide() -> str:
        return keystore.decide_pin(check, later, expected_fingerprint=cfg.fingerprint,  # type: ignore[arg-type]
                                   accept_new=cfg.accept_new, confirm=cfg.hooks.confirm)

    def write() -> None:
        try:
            later.write()
        except keystore.KeyStoreError as exc:
            raise NetplayError(EXIT_ERROR, message_of(exc)) from None
        except OSError as exc:
            raise NetplayError(EXIT_ERROR, N_("cannot write %(path)s: %(why)s", path=str(known.path),
                                              why=exc.strerror or str(exc))) from None

    try:
        note = await trio.to_thread.run_sync(decide, abandon_on_cancel=True)
    except keystore.PinningError as exc:
        raise NetplayError(EXIT_KEY_REFUSED, message_of(exc)) from None
    except keystore.KeyStoreError as exc:
        raise NetplayError(EXIT_ERROR, message_of(exc)) from None
    say(cfg, N_("peer: %(note)s", note=note))
    return write
