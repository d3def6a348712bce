"""Regenerate the vectors of reconnecting, restarting and the move clock (protocol/wire.md §14, §16).

Run from the repository root with the package installed::

    python protocol/vectors/gen_resume.py          # rewrite resume.json, resume/*.log, clock/*.log
    python protocol/vectors/gen_resume.py --check  # exit 1 if any file would change

``resume.json`` has the shape of ``verdicts.json`` (``verify.md`` §8: ``cases`` with each log's
complete verdict, ``pairs`` of two logs of one match) and one more member, ``exchange``: the exact
``resume`` and ``proof`` frames of one reconnection, and a proof made with a stranger's key that a
peer must refuse.  Everything derives from fixed labels as in ``gen_wire.py`` (keys from
SHA-256("<label>/key"), nonces and secrets likewise); both scripted peers play the first legal move.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from p2ptrumps import events as ev
from p2ptrumps.rules import RuleSet
from p2ptrumps.wire import framing
from p2ptrumps.wire import messages as m
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.log import LOG_MAGIC, read_log
from p2ptrumps.wire.session import Direction, Session
from p2ptrumps.wire.testing import ConnectionPair, LoggedFrame, Script, Side, drain_side, exchange, fixed_bytes
from p2ptrumps.wire.verify import check_log, verify_log, verify_pair

HERE = Path(__file__).resolve().parent
RULES = RuleSet(pack_size=32, deals=2, turn_limit=40)
MOVE_TIME = 30
HOST_NONCE = fixed_bytes("host/resume-nonce")
GUEST_NONCE = fixed_bytes("guest/resume-nonce")


def _pair(**kw: Any) -> ConnectionPair:
    return ConnectionPair(RULES, move_time=MOVE_TIME, **kw)


def _chain_len(side: Side) -> int:
    chain = side.session.chain
    return 0 if chain is None else len(chain)


def _run_until(pair: ConnectionPair, done: Callable[[], bool], limit: int = 100000) -> None:
    """Exchange bytes one direction at a time until ``done()`` (checked between deliveries)."""
    for side in pair.sides:
        drain_side(side)
    for _ in range(limit):
        if done():
            return
        moved = pair.deliver(pair.host, pair.guest)
        if done():
            return
        moved = pair.deliver(pair.guest, pair.host) or moved
        if not moved:
            return


def _pause_when(script: Script, pred: Callable[[Session], bool]) -> Script:
    """``script`` stops acting (its ``paused``) once ``pred(session)`` holds after an event."""

    def on_event(s: Session, e: ev.Event) -> None:
        if pred(s):
            script.paused = True

    script.on_event = on_event
    return script


def _to_move(min_messages: int) -> Callable[[Session], bool]:
    def pred(s: Session) -> bool:
        return s.chain is not None and len(s.chain) >= min_messages and s.waiting_for() == (s.seat, "move")

    return pred


def _resume(host: Side, guest: Side) -> None:
    """Both sides start again on a new connection (protocol/wire.md §14.2) and exchange until quiet."""
    host.session.begin_resume(HOST_NONCE)
    guest.session.begin_resume(GUEST_NONCE)
    exchange(host, guest)


def cut_match() -> ConnectionPair:
    """The connection drops in deal 1 with the host's move sent but never received; both resume."""
    pair = _pair()
    _run_until(pair, lambda: _chain_len(pair.host) >= 20 and pair.host.session.pending_bytes > 0)
    pair.host.session.data_to_send()  # lost on the dead connection
    pair.guest.session.data_to_send()
    _resume(pair.host, pair.guest)
    return pair


def crossing_cut_match() -> ConnectionPair:
    """The guest's chat crossed the host's move when the connection dropped: after the resume the
    host's move takes the place and the guest's chat is withdrawn and signed again (§14.2 step 5)."""
    pair = _pair(host=_pause_when(Script("host"), _to_move(14)), guest=Script("guest"))
    pair.run()
    host, guest = pair.host.session, pair.guest.session
    assert host.waiting_for() == (0, "move") and _chain_len(pair.guest) == _chain_len(pair.host)
    pos = host.position
    assert pos is not None
    host.floor.play(pos.legal_moves()[0])
    guest.floor.chat("are you there?")
    host.data_to_send()  # both messages lost with the connection
    guest.data_to_send()
    pair.host.script.on_event, pair.host.script.paused = None, False
    _resume(pair.host, pair.guest)
    return pair


def restart_match(kind: str, after: int) -> tuple[Side, Side]:
    """The guest's process dies right after it logged its first message of ``kind`` at or after
    chain place ``after``, which it never sent; it is rebuilt from its log (Session.restore, the deal
    secrets as its resume file holds them) and both go on (§14.4).  Returns (host, restarted guest)."""
    pair = _pair()
    _run_until(pair, lambda: _chain_len(pair.guest) > after and pair.guest.session.pending_bytes > 0
               and pair.guest.session.chain is not None
               and pair.guest.session.chain.entries[-1].kind == kind
               and pair.guest.session.chain.entries[-1].seat == 1)
    assert pair.guest.session.chain is not None and pair.guest.session.chain.entries[-1].kind == kind
    pair.guest.session.data_to_send()  # died before the bytes left
    frames = read_log(pair.guest.log_bytes()).frames
    log = [LoggedFrame(f, "sent") for f in frames]

    def hook(frame: bytes, direction: Direction) -> None:
        log.append(LoggedFrame(frame, direction))

    script = Script("guest")
    restored = Session.restore(pair.guest.session.identity, frames, {d: script.secret(d) for d in (1, 2)},
                               on_message=hook)
    guest = Side(restored, script, log)
    _resume(pair.host, guest)
    return pair.host, guest


def lost_tail(victim: str, at: int, lost: int) -> tuple[Side, Side]:
    """Once both chains hold ``at`` messages, the ``victim``'s process dies and its log loses its last
    ``lost`` frames (a restored backup), messages of its own that the other side holds among them; it is
    rebuilt from what is left and both resume: the victim signs nothing until the other side has sent
    those messages back, adopts its own (§14.2 step 5), and the match goes on to its end.  Returns
    (host, guest), the victim restored."""
    pair = _pair()
    _run_until(pair, lambda: _chain_len(pair.host) >= at and _chain_len(pair.guest) >= at)
    pair.host.session.data_to_send()  # whatever was in flight is lost with the connection
    pair.guest.session.data_to_send()
    side = pair.host if victim == "host" else pair.guest
    frames = read_log(side.log_bytes()).frames
    kept = frames[: len(frames) - lost]
    seat = side.session.seat
    assert any(isinstance(msg := m.decode(f[4:]), m.Signed) and msg.seat == seat for f in frames[len(kept):])
    log = [LoggedFrame(f, "sent") for f in kept]

    def hook(frame: bytes, direction: Direction) -> None:
        log.append(LoggedFrame(frame, direction))

    script = Script(victim)
    restored = Side(Session.restore(side.session.identity, kept, {d: script.secret(d) for d in (1, 2)},
                                    on_message=hook), script, log)
    host, guest = (restored, pair.guest) if victim == "host" else (pair.host, restored)
    _resume(host, guest)
    return host, guest


def claim_in_play(claimant: int) -> ConnectionPair:
    """``claimant``'s peer never moves in deal 1; ``claimant`` claims the deal on time; deal 2 is played."""
    scripts = [Script("host"), Script("guest")]
    _pause_when(scripts[1 - claimant], _to_move(0))
    pair = _pair(host=scripts[0], guest=scripts[1])
    staller = pair.sides[1 - claimant]
    pair.run()
    assert pair.host.session.waiting_for() == (1 - claimant, "move") and \
        _chain_len(pair.host) == _chain_len(pair.guest), "the staller did not come to move"
    staller.script.on_event = None
    pair.sides[claimant].session.floor.claim()
    pair.deliver(pair.sides[claimant], staller)  # the claim arrives before the staller wakes up
    staller.script.paused = False
    pair.run()
    return pair


def claim_between_deals(disputed: bool = False) -> ConnectionPair:
    """The guest never chooses its trump; the host claims: both deals are the host's, never dealt
    (``disputed``: the guest's own clock had not run out, it disputes, wire.md §16)."""
    pair = _pair(host=Script("host"), guest=_pause_when(Script("guest"), lambda s: s.waiting_for() == (1, "trump")))
    pair.run()
    assert pair.host.session.waiting_for() == (1, "trump")
    if disputed:
        pair.guest.session.floor.claim_check = lambda step: False
    pair.host.session.floor.claim()
    pair.run()
    return pair


def claim_disputed_in_play(claimant: int) -> ConnectionPair:
    """``claimant`` claims deal 1 while its peer is to move; the peer's own clock had not run out:
    it answers with a ``dispute`` in place of its deal-end statement; the match ends disputed (§16)."""
    scripts = [Script("host"), Script("guest")]
    _pause_when(scripts[1 - claimant], _to_move(0))
    pair = _pair(host=scripts[0], guest=scripts[1])
    staller = pair.sides[1 - claimant]
    pair.run()
    staller.script.on_event = None
    steps: list[tuple[str, int, int, int]] = []
    staller.session.floor.claim_check = lambda step: bool(steps.append(step))  # False: our clock says no
    pair.sides[claimant].session.floor.claim()
    pair.deliver(pair.sides[claimant], staller)
    staller.script.paused = False
    pair.run()
    assert [(s[0], s[1], s[3]) for s in steps] == [("move", 1, 1 - claimant)], steps
    return pair


def displaced_claim() -> ConnectionPair:
    """The host is to move; its move and the guest's claim cross on the wire.  The host's move takes
    the place (§8.3); the guest's claim is withdrawn and dropped, not re-signed: the host's step was in
    time as the chain shows (§16, the races).  The match goes on to its end."""
    pair = _pair(host=_pause_when(Script("host"), _to_move(12)), guest=Script("guest"))
    pair.run()
    host, guest = pair.host.session, pair.guest.session
    assert host.waiting_for() == (0, "move") and _chain_len(pair.guest) == _chain_len(pair.host)
    pos = host.position
    assert pos is not None
    host.floor.play(pos.legal_moves()[0])
    guest.floor.claim()
    pair.deliver(pair.host, pair.guest)  # the host's move reaches the guest after its claim went out
    pair.deliver(pair.guest, pair.host)  # the claim reaches the host: superseded
    assert [type(b).__name__ for b, _ in guest.floor.dropped] == ["ClaimMsg"], guest.floor.dropped
    pair.host.script.on_event, pair.host.script.paused = None, False
    pair.run()
    return pair


def claim_crossing_trump(disputed: bool) -> ConnectionPair:
    """The host claims while the guest is to choose its trump, and the guest's trump crosses the claim:
    the host's claim takes the place (§8.3), the guest's trump is withdrawn and dropped (phase match-end
    allows no trump); the guest accepts the claim, or (``disputed``: its clock had not run out when it
    chose) disputes it.  Both reach the end of the match."""
    pair = _pair(host=Script("host"), guest=_pause_when(Script("guest"), lambda s: s.waiting_for() == (1, "trump")))
    pair.run()
    host, guest = pair.host.session, pair.guest.session
    assert host.waiting_for() == (1, "trump") == guest.waiting_for()
    if disputed:
        guest.floor.claim_check = lambda step: False
    guest.floor.choose_trump(3)
    host.floor.claim()
    pair.deliver(pair.host, pair.guest)
    pair.deliver(pair.guest, pair.host)
    assert [type(b).__name__ for b, _ in guest.floor.dropped] == ["TrumpMsg"], guest.floor.dropped
    pair.guest.script.on_event, pair.guest.script.paused = None, False
    pair.run()
    assert host.finished and guest.finished
    return pair


def claim_crossing_the_end() -> ConnectionPair:
    """In the last deal, with the host to move, the host resigns as the guest's claim goes out: the
    resignation takes the place (§8.3), the claim is withdrawn and dropped (phase deal-end allows no
    claim), and both sign the final statements: the match ends complete, no claim in it (§16 races)."""
    pair = _pair(host=_pause_when(Script("host"), lambda s: s.deal_number == 2 and s.waiting_for() == (0, "move")),
                 guest=Script("guest"))
    pair.run()
    host, guest = pair.host.session, pair.guest.session
    assert host.waiting_for() == (0, "move") and _chain_len(pair.guest) == _chain_len(pair.host)
    host.floor.resign()
    guest.floor.claim()
    pair.deliver(pair.host, pair.guest)
    pair.deliver(pair.guest, pair.host)
    assert [type(b).__name__ for b, _ in guest.floor.dropped] == ["ClaimMsg"], guest.floor.dropped
    pair.host.script.on_event, pair.host.script.paused = None, False
    pair.run()
    assert host.finished and guest.finished
    return pair


def claim_gone() -> Side:
    """The guest stays away on its move (the connection closed); the host claims: the claim and the
    host's deal-end statement are logged, never sent; the log ends unfinished."""
    pair = _pair(host=Script("host"), guest=_pause_when(Script("guest"), _to_move(0)))
    pair.run()
    assert pair.host.session.waiting_for() == (1, "move")
    pair.host.session.receive_data(b"")  # the peer closed the connection
    pair.host.session.floor.claim()
    return pair.host


def resume_exchange() -> dict[str, Any]:
    """The frames of one reconnection in a match stopped mid-deal, and a stranger's refused proof."""
    pair = _pair(host=_pause_when(Script("host"), _to_move(12)))
    pair.run()
    host, guest = pair.host.session, pair.guest.session
    n = _chain_len(pair.host)
    assert n == _chain_len(pair.guest) and host.waiting_for() == (0, "move")
    gid = host.game_id
    assert gid is not None
    host.data_to_send()
    guest.data_to_send()
    guest.begin_resume(GUEST_NONCE)
    host.begin_resume(HOST_NONCE)
    guest_resume = guest.data_to_send()
    host.receive_data(guest_resume)
    host_first = host.data_to_send()  # the host's resume and proof
    guest.receive_data(host_first)
    guest_rest = guest.data_to_send()  # the guest's proof, then what the host may lack (nothing here)
    guest_confirmed = max(i + 1 for i, e in enumerate(guest.chain.entries) if e.seat == 0)  # type: ignore[union-attr]
    host_resume_len = 4 + int.from_bytes(host_first[:4], "big")
    guest_proof_len = 4 + int.from_bytes(guest_rest[:4], "big")
    stranger = Identity.from_seed(fixed_bytes("stranger/key"))
    confirmed = n
    bad_sig = stranger.sign(m.proof_input(gid, 1, confirmed, GUEST_NONCE, HOST_NONCE))
    bad_proof = framing.frame(m.Proof(confirmed, bad_sig).encode())
    victim = _pair(host=_pause_when(Script("host"), _to_move(12)))
    victim.run()
    victim.host.session.data_to_send()
    victim.host.session.begin_resume(HOST_NONCE)
    before = len(victim.host.log)
    victim.host.session.receive_data(guest_resume + bad_proof)
    events = []
    while (e := victim.host.session.next_event()) is not None:
        events.append(e)
    refused = [e for e in events if isinstance(e, ev.ResumeRefused)]
    assert refused and len(victim.host.log) == before, "the stranger's proof must be refused, nothing logged"
    return {
        "about": "one reconnection of the 2-deal match of this file (32 cards, turn limit 40, move clock 30 s) "
                 "while the host is to move: the host's `confirmed` is its chain's length, the guest's the length "
                 "up to its last host message (wire.md §14.1); then a resume whose proof is signed by a stranger's "
                 "key",
        "game_id": gid.hex(),
        "host_confirmed": n,
        "guest_confirmed": guest_confirmed,
        "keys": {"host": pair.host.session.identity.public_bytes.hex(),
                 "guest": pair.guest.session.identity.public_bytes.hex(),
                 "stranger": stranger.public_bytes.hex()},
        "resume_tag": m.RESUME_TAG.decode(),
        "guest_resume": guest_resume.hex(),
        "host_resume": host_first[:host_resume_len].hex(),
        "host_proof": host_first[host_resume_len:].hex(),
        "guest_proof": guest_rest[:guest_proof_len].hex(),
        "host_proof_signs": m.proof_input(gid, 0, n, HOST_NONCE, GUEST_NONCE).hex(),
        "guest_proof_signs": m.proof_input(gid, 1, guest_confirmed, GUEST_NONCE, HOST_NONCE).hex(),
        "stranger_attempt": {
            "frames": (guest_resume + bad_proof).hex(),
            "expect": "refused: the proof does not verify with the guest key of this match; the host closes "
                      "the connection, logs nothing, and keeps waiting (wire.md §14.2 step 3)",
            "refusal": refused[0].reason,
        },
    }


def _frames(side: Side) -> list[bytes]:
    return [f.frame for f in side.log]


def _log(frames: list[bytes]) -> bytes:
    return LOG_MAGIC + b"".join(frames)


def _msg(identity: Identity, gid: bytes, seat: int, frames: list[bytes], body: m.Body) -> bytes:
    chain = verify_log(_log(frames))._chain
    assert chain is not None
    return framing.frame(m.build_signed(gid, seat, len(chain), chain.head, body, identity.sign).payload)


def build() -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    cases: list[dict[str, Any]] = []
    pairs: list[dict[str, Any]] = []

    def case(name: str, data: bytes, about: str, spec: str, expect: tuple[Any, ...]) -> None:
        verdict = verify_log(data).to_json()
        got = (verdict["status"], verdict["code"], verdict["index"], verdict["offender"], verdict["offender_proven"],
               verdict["reconnections"], [(c["seat"], c["deals"]) for c in verdict["claims"]])
        if got != expect:
            raise AssertionError(f"{name}: verify says {got}, the case expects {expect}: {verdict['reason']}")
        files[name] = data
        cases.append({"file": name, "sha256": hashlib.sha256(data).hexdigest(), "about": about, "spec": spec,
                      "verdict": verdict})

    def pair_case(a: str, b: str, about: str) -> None:
        verdict = verify_pair(check_log(files[a]), check_log(files[b])).to_json()
        if (verdict["status"], verdict["relation"]) != ("valid", "same"):
            raise AssertionError(f"{a} + {b}: {verdict['status']} {verdict['relation']}: {verdict['reason']}")
        pairs.append({"files": [a, b], "about": about, "spec": "verify.md §6; wire.md §14", "verdict": verdict})

    ok: tuple[Any, ...] = ("valid", None, None, None, False)
    cut = cut_match()
    case("resume/cut-host.log", cut.host.log_bytes(), "the host's log of a match whose connection dropped in deal 1 "
         "with a host move in flight; both resumed and the move was sent again as signed", "wire.md §14.2-§14.3",
         (*ok, 1, []))
    case("resume/cut-guest.log", cut.guest.log_bytes(), "the guest's log of the same match", "wire.md §14.2-§14.3",
         (*ok, 1, []))
    pair_case("resume/cut-host.log", "resume/cut-guest.log", "one chain over two connections")
    cross = crossing_cut_match()
    case("resume/crossing-cut-host.log", cross.host.log_bytes(), "the host's log: a guest chat crossed the host's "
         "move as the connection dropped; after the resume the host's move holds the place", "wire.md §14.2 step 5",
         (*ok, 1, []))
    case("resume/crossing-cut-guest.log", cross.guest.log_bytes(), "the guest's log: its chat, then the host's move "
         "sent again after the resume (the chat withdrawn), then the chat signed again", "wire.md §14.2 step 5; "
         "§8.3", (*ok, 1, []))
    pair_case("resume/crossing-cut-host.log", "resume/crossing-cut-guest.log",
              "one chain; the guest's withdrawn chat is not part of it")
    host, guest = restart_match("move", 30)
    case("resume/restart-host.log", _log(_frames(host)), "the host's log: the guest's process died after logging a "
         "move it never sent, restarted from its log and resumed", "wire.md §14.4", (*ok, 1, []))
    case("resume/restart-guest.log", _log(_frames(guest)), "the restarted guest's log: what it wrote before it died, "
         "then the host's resume frame and the rest of the match", "wire.md §14.4", (*ok, 1, []))
    pair_case("resume/restart-host.log", "resume/restart-guest.log", "one chain across the restart")
    host, guest = restart_match("commit", 20)
    case("resume/restart-committed-host.log", _log(_frames(host)), "the host's log: the guest's process died right "
         "after logging its commitment for deal 2 (never sent); restarted, it sent it and revealed the secret its "
         "resume file kept", "wire.md §14.4", (*ok, 1, []))
    case("resume/restart-committed-guest.log", _log(_frames(guest)), "the restarted guest's log: its commitment, "
         "then the host's resume frame, its reveal and the rest", "wire.md §14.4", (*ok, 1, []))
    pair_case("resume/restart-committed-host.log", "resume/restart-committed-guest.log", "one chain; no forfeit")
    for victim, at, lost in (("host", 30, 5), ("guest", 20, 6)):
        host, guest = lost_tail(victim, at, lost)
        case(f"resume/{victim}-lost-tail-host.log", _log(_frames(host)), f"the host's log: after {at} messages the "
             f"{victim}'s log lost its last {lost} frames (a restored backup) -- its own messages among them; "
             f"restarted, the {victim} signed nothing until the {'guest' if victim == 'host' else 'host'} had sent "
             "them back, adopted its own, and the match went on", "wire.md §14.2 steps 4-5, §14.4", (*ok, 1, []))
        case(f"resume/{victim}-lost-tail-guest.log", _log(_frames(guest)), f"the guest's log of the same match (the "
             f"{victim} lost its tail)", "wire.md §14.2 steps 4-5, §14.4", (*ok, 1, []))
        pair_case(f"resume/{victim}-lost-tail-host.log", f"resume/{victim}-lost-tail-guest.log",
                  f"one chain: the {victim}'s own messages came back, none was signed twice")
    stopped = _frames(cut.host)
    at = next(i for i, f in enumerate(stopped) if isinstance(m.decode(f[4:]), m.Resume))
    case("resume/stopped-after-resume.log", _log(stopped[: at + 1]), "the host's log of the cut match, ending right "
         "after the guest's resume frame", "wire.md §14.3; verify.md §4",
         ("unfinished", None, None, None, False, 1, []))

    for claimant, who in ((0, "host"), (1, "guest")):
        p = claim_in_play(claimant)
        case(f"clock/claim-in-play-by-{who}.log", p.host.log_bytes(), f"the {who} claims deal 1 on time (the other "
             "seat never moved); deal 2 is played; the host's log", "wire.md §16", (*ok, 0, [(claimant, [1])]))
    between = claim_between_deals()
    case("clock/claim-between-deals.log", between.host.log_bytes(), "the guest never chooses its trump; the host "
         "claims: both deals are the host's, never dealt", "wire.md §16", (*ok, 0, [(0, [1, 2])]))
    for claimant, who in ((0, "host"), (1, "guest")):
        p = claim_disputed_in_play(claimant)
        case(f"clock/claim-disputed-in-play-by-{who}.log", p.host.log_bytes(), f"the {who} claims deal 1 at once; "
             "the other seat's own clock had not run out: it disputes in place of its deal-end statement; the match "
             "ends disputed; the host's log", "wire.md §16", (*ok, 0, [(claimant, [1])]))
    case("clock/claim-disputed-between-deals.log", claim_between_deals(disputed=True).guest.log_bytes(),
         "the host claims while the guest is to choose its trump; the guest's clock had not run out: it disputes "
         "in place of its match-end statement; the guest's log", "wire.md §16", (*ok, 0, [(0, [1, 2])]))
    displaced = displaced_claim()
    case("clock/claim-displaced-guest.log", displaced.guest.log_bytes(), "the guest's claim crossed the host's "
         "move: the move holds the place, the claim is withdrawn and dropped (the host moved in time, as the chain "
         "shows); the match is played to its end; the guest's log", "wire.md §8.3, §16", (*ok, 0, []))
    case("clock/claim-displaced-host.log", displaced.host.log_bytes(), "the host's log of the same match: the "
         "superseded claim is not logged", "wire.md §8.3, §16", (*ok, 0, []))
    pair_case("clock/claim-displaced-host.log", "clock/claim-displaced-guest.log", "one chain; the withdrawn "
              "claim is not part of it")
    end = claim_crossing_the_end()
    case("clock/claim-crossing-the-end.log", end.guest.log_bytes(), "in the last deal the host resigns as the "
         "guest's claim goes out: the resignation holds the place, the claim is withdrawn and dropped, both sign "
         "the final statements; the guest's log", "wire.md §8.3, §16", (*ok, 0, []))
    for disputed, name in ((False, "accepted"), (True, "disputed")):
        crossing = claim_crossing_trump(disputed)
        case(f"clock/claim-crossing-trump-{name}.log", crossing.guest.log_bytes(), "the host claims while the guest "
             "is to choose its trump, and the guest's trump crosses the claim: the claim holds the place, the trump is "
             f"dropped; the guest {name} the claim; the guest's log", "wire.md §8.3, §16", (*ok, 0, [(0, [1, 2])]))
    case("clock/claim-by-stayer.log", claim_gone().log_bytes(), "the guest stayed away on its move; the host claimed "
         "deal 1 and signed its deal-end; the log waits for the guest's statement", "wire.md §16; verify.md §4",
         ("unfinished", None, None, None, False, 0, [(0, [1])]))
    honest = claim_in_play(0)
    h = _frames(honest.host)
    gid = honest.host.session.game_id
    assert gid is not None
    guest_id = honest.guest.session.identity
    claim_at = next(i for i, f in enumerate(h) if isinstance(m.decode(f[4:]), m.Signed)
                    and m.decode(f[4:]).kind == "claim")  # type: ignore[union-attr]
    before = h[:claim_at]  # the host was to claim: the guest holds the floor (its move)
    case("clock/claim-by-mover.log", _log([*before, _msg(guest_id, gid, 1, before, m.ClaimMsg(1))]),
         "the guest claims while it is to move itself: only the waiting seat may claim", "wire.md §16",
         ("invalid", "out-of-turn", len(before), 1, True, 0, []))
    host_id = honest.host.session.identity
    case("clock/claim-wrong-deal.log", _log([*h[:claim_at], _retarget(h[claim_at], host_id, gid, 2)]),
         "the host claims deal 2 during deal 1", "wire.md §16", ("invalid", "out-of-turn", claim_at, 0, True, 0, []))
    rules7 = encoding_rules_zero(host_id, gid, h)
    case("clock/rules-move-time-zero.log", rules7, "a rules body with a 7th element 0 (move_time 0 must be left "
         "out)", "wire.md §9.2", ("invalid", "malformed", 2, 0, True, 0, []))

    doc = {
        "format": "p2ptrumps-verdict-vectors",
        "version": 1,
        "about": "match logs of reconnected, restarted and claimed matches, with the complete verdict each must get "
                 "and pairs of them (protocol/verify.md §8: compare every member but `reason`), and the frames of "
                 "one resume exchange with a stranger's refused proof (`exchange`). Regenerate: python "
                 "protocol/vectors/gen_resume.py",
        "cases": cases,
        "pairs": pairs,
        "exchange": resume_exchange(),
    }
    files["resume.json"] = (json.dumps(doc, indent=1, ensure_ascii=False) + "\n").encode()
    return files


def _retarget(frame: bytes, identity: Identity, gid: bytes, deal: int) -> bytes:
    """The claim in ``frame`` signed again for another deal."""
    msg = m.decode(frame[4:])
    assert isinstance(msg, m.Signed)
    return framing.frame(m.build_signed(gid, msg.seat, msg.seq, msg.prev, m.ClaimMsg(deal), identity.sign).payload)


def encoding_rules_zero(host_id: Identity, gid: bytes, frames: list[bytes]) -> bytes:
    """The host's log up to its hellos, then a rules message whose body ends with a 7th element 0."""
    from p2ptrumps.wire import encoding

    r = RULES
    body = [r.pack_size, r.sixes, r.voluntary_pickup, r.repetition, r.turn_limit, r.deals, 0]
    game = gid[:8]
    unsigned = encoding.pack(["msg", game, 0, 0, gid, "rules", body])
    sig = host_id.sign(m.signing_input(gid, unsigned))
    payload = encoding.pack(["msg", game, 0, 0, gid, "rules", body, sig])
    return _log([*frames[:2], framing.frame(payload)])


def main(argv: list[str]) -> int:
    files = build()
    check = "--check" in argv
    stale = []
    for name, data in sorted(files.items()):
        path = HERE / name
        if check:
            if not path.exists() or path.read_bytes() != data:
                stale.append(name)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    if stale:
        print("out of date:", ", ".join(stale))
        return 1
    print("checked" if check else "wrote", len(files), "files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
