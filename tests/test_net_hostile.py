"""A hostile guest over loopback TCP for each fault of protocol/wire.md §11, and a guest killed mid-deal.

The honest side is the real host (``lobby.host``, the AI in its seat); the
hostile guest is a real :class:`Session` whose bytes are tampered with at its
first move (or reveal).  The honest side must stop with the fault named, keep
a log whose messages all check out, with the offending frame last as evidence
(protocol/wire.md §11-§12), so ``verify`` names the same fault and the guest.
"""

from __future__ import annotations

import contextlib
import io
import math
from pathlib import Path

import pytest
import trio
import trio.testing

from p2ptrumps import events as wev
from p2ptrumps.cards import card_list
from p2ptrumps.net import config, lobby, testing
from p2ptrumps.net.resumefile import path_for
from p2ptrumps.rules import Move, RuleSet
from p2ptrumps.wire import framing, messages
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.session import Session
from p2ptrumps.wire.testing import fixed_bytes
from p2ptrumps.wire.verify import verify_log

HOST_KEY = Identity.from_seed(fixed_bytes("hostile-test/host"))
EVIL_KEY = Identity.from_seed(fixed_bytes("hostile-test/evil"))


def forge(s: Session, body: messages.Body, *, prev: bytes | None = None, flip_sig: bool = False) -> bytes:
    """A frame holding a message signed by the hostile key at the next place in the chain."""
    chain = s.chain
    assert chain is not None
    msg = messages.build_signed(chain.game_id, s.seat, len(chain), chain.head if prev is None else prev, body,
                                EVIL_KEY.sign)
    payload = msg.payload
    if flip_sig:
        payload = payload[:-1] + bytes([payload[-1] ^ 0x01])
    return framing.frame(payload)


def fault_bytes(s: Session, fault: str) -> bytes:
    pos = s.position
    assert pos is not None
    legal = pos.legal_moves()[0]
    after = pos.copy()
    after.push(legal)
    good = messages.MoveMsg(s.deal_number, legal, messages.position_hash(after))
    if fault == "garbage-frame":
        return framing.frame(b"\xc1\xc1\xc1")
    if fault == "oversized-frame":
        return (1 << 20).to_bytes(4, "big") + b"x" * 16
    if fault == "bad-signature":
        return forge(s, good, flip_sig=True)
    if fault == "broken-chain":
        return forge(s, good, prev=bytes(32))
    if fault == "illegal-move":
        theirs = card_list(pos.hands[1 - s.seat])[0]  # a card the hostile side does not hold
        return forge(s, messages.MoveMsg(s.deal_number, Move.lead(theirs), bytes(32)))
    if fault == "wrong-position-hash":
        return forge(s, messages.MoveMsg(s.deal_number, legal, bytes(32)))
    raise AssertionError(fault)


async def hostile_guest(port: int, fault: str, moves_before: int = 0) -> None:
    """Play as the guest until the fault's moment, then misbehave (or vanish / fall silent)."""
    async with await testing.encrypted(port, EVIL_KEY) as stream:  # through the encrypted layer (wire.md §18)
        await _misbehave(stream, fault, moves_before)


async def _misbehave(stream: trio.abc.Stream, fault: str, moves_before: int) -> None:
    s = Session("guest", EVIL_KEY, "Mallory", fixed_bytes("hostile-test/nonce"))
    await stream.send_all(s.data_to_send())
    played = 0
    for _ in range(10_000):
        data = bytes(await stream.receive_some(65536))
        if not data:
            return
        s.receive_data(data)
        extra = b""
        while (ev := s.next_event()) is not None:
            if isinstance(ev, wev.PeerHello):
                s.accept_key()
            elif isinstance(ev, wev.RulesProposed):
                s.floor.accept_rules()
            elif isinstance(ev, wev.TrumpChosen) and ev.seat == 0:
                s.floor.choose_trump((ev.suit + 1) % 4)
            elif isinstance(ev, wev.CommitDue):
                s.floor.commit(fixed_bytes(f"hostile-test/secret/{ev.deal}"))
            elif isinstance(ev, wev.RevealDue) and fault != "bad-reveal":
                s.floor.reveal()
        if fault == "bad-reveal" and s.waiting_for() == (s.seat, "reveal"):
            extra = forge(s, messages.RevealMsg(s.deal_number, fixed_bytes("not the secret")))
        if not extra and s.waiting_for() == (s.seat, "move"):
            if played < moves_before:
                s.floor.play(s.position.legal_moves()[0])  # type: ignore[union-attr]
                played += 1
            elif fault == "vanish":
                await stream.send_all(s.data_to_send())
                await stream.aclose()
                return
            elif fault == "silence":
                await stream.send_all(s.data_to_send())  # e.g. our reveal, then not a word more
                await trio.sleep(math.inf)
            else:
                extra = fault_bytes(s, fault)
        out = s.data_to_send() + extra
        if out:
            await stream.send_all(out)
    raise AssertionError("the hostile guest never got to misbehave")


async def run_against_host(tmp_path: Path, fault: str, timeout_s: float = 10, moves_before: int = 0
                           ) -> config.NetplayError:
    cfg = config.NetConfig(role="host", identity=HOST_KEY, name="Hana", data=tmp_path, rules=RuleSet(deals=1),
                            ai="random", think_s=0.01, out=io.StringIO(), timeout_s=timeout_s,
                            reconnect_wait_s=0)  # these check how a match ends when the peer stays away
    error: list[config.NetplayError] = []
    ended = trio.Event()

    async def host(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        try:
            await lobby.host(cfg, "127.0.0.1", 0, task_status=task_status)
        except config.NetplayError as exc:
            error.append(exc)
            ended.set()

    with trio.fail_after(30):
        async with trio.open_nursery() as n:
            port = await n.start(host)

            async def evil() -> None:
                with trio.move_on_after(20), contextlib.suppress(trio.BrokenResourceError, OSError):
                    await hostile_guest(port, fault, moves_before)

            n.start_soon(evil)
            await ended.wait()
            n.cancel_scope.cancel()
    return error[0]


CODE_OF = {
    "garbage-frame": "garbage-frame",
    "oversized-frame": "oversized-frame",
    "bad-signature": "bad-signature",
    "broken-chain": "broken-chain",
    "illegal-move": "illegal-move",
    "wrong-position-hash": "wrong-position-hash",
    "bad-reveal": "bad-reveal",
}


@pytest.mark.parametrize("fault", sorted(CODE_OF))
async def test_hostile_guest_fault_is_named_and_log_kept(tmp_path: Path, fault: str) -> None:
    err = await run_against_host(tmp_path, fault)
    assert err.status == config.EXIT_PEER_FAULT
    code = CODE_OF[fault]
    assert str(err).startswith("the peer broke the protocol: ")
    assert f"[{code}]" in str(err)
    log_path: Path = err.result.log_path  # type: ignore[attr-defined]
    verdict = verify_log(log_path.read_bytes())
    # Always the guest (the host owns the log); proven by its signature when the signed message itself breaks
    # a rule on the history it commits to -- a broken chain proves nothing (protocol/verify.md §3.1).
    proven = code in ("illegal-move", "wrong-position-hash", "bad-reveal")
    assert (verdict.status, verdict.code, verdict.offender, verdict.offender_proven) == ("invalid", code, 1, proven)
    assert verdict.index == verdict.frames - 1 or code == "oversized-frame"  # the evidence is the last frame
    assert not path_for(log_path).exists()  # a match that ended on a fault cannot be resumed: no resume file


async def test_silent_peer_times_out(tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    """The host's 1.5 s of silence are counted on trio's mock clock, which moves only once the whole
    process has had nothing to do for 0.1 s of real time: a loaded machine that stalls this process
    (host and guest both) never makes the host count silence before the guest falls silent."""
    mock_clock.autojump_threshold = 0.1
    err = await run_against_host(tmp_path, "silence", timeout_s=1.5)
    assert err.status == config.EXIT_PEER_GONE
    assert str(err) == ("the peer is gone: no word from the peer for 1.5 s (timeout); you claimed deal 1 on time "
                        "(your log keeps the signed claim)")
    v = verify_log(err.result.log_path.read_bytes())  # type: ignore[attr-defined]
    # The host claimed the deal the guest stayed away from (protocol/wire.md §16) and signed its end.
    assert (v.status, v.waiting, [(s, w) for s, _, w in v.claims]) == ("unfinished", (1, "deal-end"), [(0, [1])])
    assert (v.deals[0].winner, v.deals[0].reason) == (0, "time")
    assert path_for(err.result.log_path).exists()  # type: ignore[attr-defined]  # unfinished: resumable


async def test_peer_killed_mid_deal(tmp_path: Path) -> None:
    err = await run_against_host(tmp_path, "vanish", moves_before=3)
    assert err.status == config.EXIT_PEER_GONE
    assert str(err) == ("the peer is gone: the peer closed the connection before the match ended; you claimed "
                        "deal 1 on time (your log keeps the signed claim)")
    v = verify_log(err.result.log_path.read_bytes())  # type: ignore[attr-defined]
    assert v.status == "unfinished"
    # The guest vanished on its turn: the host claimed the deal and waits for the guest's statement.
    assert v.waiting == (1, "deal-end") and [(s, w) for s, _, w in v.claims] == [(0, [1])]
    assert len(v.deals) == 1 and (v.deals[0].winner, v.deals[0].reason) == (0, "time")
