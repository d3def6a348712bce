"""``verify`` against raw Ed25519, side by side; and the protocol's cost per move.

Run: ``python bench/verify_ratio.py [--deals N] [--repeat R] [--log FILE] [--profile]``

1. A match log of N deals (default 40; two scripted in-memory peers playing the first legal
   move, 36 cards, the guest's log), or the log ``--log FILE``, is verified R times
   (``verify_log``, all of protocol/verify.md); in the same run, interleaved with those runs,
   the Ed25519 signatures of its chained messages are verified R times with nothing else
   (``cryptography``'s ``Ed25519PublicKey.verify`` of each message's signature over the same
   signing input, protocol/wire.md §4.1).  Printed: both, per message, and the ratio
   ``raw time / verify time`` -- the share of raw Ed25519 verify speed ``verify`` reaches.
   ``--profile`` then shows where ``verify`` spends the rest (cProfile, by function).
2. The host's and the guest's log checked against each other (``verify HOSTLOG GUESTLOG``,
   protocol/verify.md §6): the two logs' own checks, and the pair comparison alone.
3. Protocol cost per move (skipped for ``--log``): the same match played through two Sessions in
   memory (sign + encode + frame + decode + canonical check + verify + chain + rules engine +
   position hash, on both sides) divided by the number of chained messages, against one Ed25519
   signature plus one verification of a 100-byte message.

Times are CPU seconds of this process (``time.process_time``), the best of R runs, so that other
load on the machine disturbs them little.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from collections.abc import Callable
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from p2ptrumps.rules import RuleSet
from p2ptrumps.wire import messages as m
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.log import read_log
from p2ptrumps.wire.testing import ConnectionPair, fixed_bytes
from p2ptrumps.wire.verify import check_log, verify_log, verify_pair


def signatures(log: bytes) -> list[tuple[Ed25519PublicKey, bytes, bytes]]:
    """(key, signature, signed bytes) of every chained message of ``log`` (a valid log)."""
    frames = [f[4:] for f in read_log(log).frames]
    hellos = {}
    for payload in frames[:2]:
        hello = m.decode(payload)
        assert isinstance(hello, m.Hello)
        hellos[hello.seat] = (payload, Ed25519PublicKey.from_public_bytes(hello.public_key))
    gid = m.game_id(hellos[0][0], hellos[1][0])
    keys = {seat: key for seat, (_, key) in hellos.items()}
    out = []
    for payload in frames[2:]:
        msg = m.decode(payload)
        if isinstance(msg, m.Signed):
            out.append((keys[msg.seat], msg.sig, m.signing_input(gid, msg.unsigned())))
    return out


def raw_verify(sigs: list[tuple[Ed25519PublicKey, bytes, bytes]]) -> None:
    for key, sig, data in sigs:
        key.verify(sig, data)


def decode_all(payloads: list[bytes]) -> list[m.Envelope]:
    """Decoding alone (protocol/wire.md §3.5 and §8.2 step 2): each frame's canonical msgpack and fields."""
    return [f for f in map(m.decode_frame, payloads) if isinstance(f, m.Envelope)]


def open_all(envelopes: list[m.Envelope]) -> None:
    """The bodies alone (§8.2 step 6): each message's body checked and parsed (moves, cards)."""
    for env in envelopes:
        env.open()


def interleaved(repeat: int, first: Callable[[], object], second: Callable[[], object]) -> tuple[float, float]:
    """The best CPU seconds of ``first()`` and of ``second()``, run one after the other ``repeat`` times."""
    a, b = [], []
    for _ in range(repeat):
        t0 = time.process_time()
        first()
        t1 = time.process_time()
        second()
        a.append(t1 - t0)
        b.append(time.process_time() - t1)
    return min(a), min(b)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--log", type=Path, help="verify this (valid) log instead of playing a match")
    ap.add_argument("--profile", action="store_true", help="then profile one verify (cProfile, top 25)")
    args = ap.parse_args()

    pair = None
    runs = []
    if args.log is not None:
        log = args.log.read_bytes()
    else:
        for _ in range(args.repeat):
            t0 = time.process_time()
            pair = ConnectionPair(RuleSet(deals=args.deals))
            pair.run()
            runs.append(time.process_time() - t0)
        assert pair is not None
        log = pair.guest.log_bytes()
    sigs = signatures(log)
    n_msgs = len(sigs)

    v = verify_log(log)
    assert v.status == "valid", v.reason
    # 1. verify and raw Ed25519, interleaved so that a change in the machine's load hits both alike.
    vbest, rbest = interleaved(args.repeat, lambda: verify_log(log), lambda: raw_verify(sigs))
    payloads = [f[4:] for f in read_log(log).frames]
    envelopes = decode_all(payloads)
    dbest, pbest = interleaved(args.repeat, lambda: decode_all(payloads), lambda: open_all(envelopes))
    print(f"log: {len(v.deals)} deals, {n_msgs} chained messages, {len(log)} bytes")
    print(f"verify:      best {vbest * 1e3:7.1f} ms CPU of {args.repeat} = {vbest / n_msgs * 1e6:5.1f} us per message")
    print(f"raw Ed25519: best {rbest * 1e3:7.1f} ms CPU of {args.repeat} = {rbest / n_msgs * 1e6:5.1f} us per message")
    rest = vbest - rbest - dbest - pbest
    print(f"verify beyond the signatures: {(vbest - rbest) / n_msgs * 1e6:.1f} us per message: decoding "
          f"{dbest / n_msgs * 1e6:.1f} us ({dbest / vbest:.0%}), bodies (moves, cards) {pbest / n_msgs * 1e6:.1f} "
          f"us ({pbest / vbest:.0%}), the chain and the rest {rest / n_msgs * 1e6:.1f} us ({rest / vbest:.0%})")
    print(f"ratio (raw Ed25519 time / verify time): {rbest / vbest:.1%}")

    if args.profile:
        prof = cProfile.Profile()
        prof.runcall(verify_log, log)
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)

    if pair is None:
        return
    # 2. two logs of one game.
    host_log = pair.host.log_bytes()
    both, compare = [], []
    for _ in range(args.repeat):
        t0 = time.process_time()
        a, b = check_log(host_log), check_log(log)
        t1 = time.process_time()
        pv = verify_pair(a, b)
        both.append(time.process_time() - t0)
        compare.append(time.process_time() - t1)
        assert (pv.status, pv.relation) == ("valid", "same"), pv.reason
    print(f"verify HOSTLOG GUESTLOG: best {min(both) * 1e3:.1f} ms CPU, of which the comparison of the two "
          f"checked logs {min(compare) * 1e3:.2f} ms")

    # 3. protocol cost per move.
    ident = Identity.from_seed(fixed_bytes("bench"))
    pk = ident.public_key
    data = bytes(100)
    k = 2000
    t0 = time.process_time()
    for _ in range(k):
        sig = ident.sign(data)
        pk.verify(sig, data)
    sv = (time.process_time() - t0) / k
    per_msg = min(runs) / n_msgs
    print(f"in-memory match (both sessions): best {min(runs) * 1e3:.1f} ms = {per_msg * 1e6:.0f} us per message")
    print(f"one Ed25519 sign + one verify: {sv * 1e6:.0f} us")
    print(f"protocol cost per message / (sign + verify): {per_msg / sv:.2f}")


if __name__ == "__main__":
    main()
