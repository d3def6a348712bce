"""Wire protocol costs: ``verify`` speed, and the protocol's cost per move vs Ed25519.

Run: ``python bench/wire_verify.py [--deals N] [--repeat R]``

1. A long match log (two scripted in-memory peers playing the first legal move,
   36 cards, N deals) is verified R times: messages per second.  Then the host's
   and the guest's log of it are checked against each other (``verify HOSTLOG
   GUESTLOG``, protocol/verify.md §6): the two logs' own checks, and the pair
   comparison alone.
2. Protocol cost per move: the same match played through two Sessions in
   memory (sign + encode + frame + decode + canonical check + verify + chain +
   rules engine + position hash, on both sides) divided by the number of chained
   messages, against one Ed25519 signature plus one verification of a 100-byte
   message with ``cryptography``.

Times are CPU seconds of this process (``time.process_time``) and the best of R
runs, so that other load on the machine disturbs them little.
"""

from __future__ import annotations

import argparse
import time

from p2ptrumps.rules import RuleSet
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.testing import ConnectionPair, fixed_bytes
from p2ptrumps.wire.verify import check_log, verify_log, verify_pair


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=6)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    rules = RuleSet(deals=args.deals)
    runs = []
    pair = None
    for _ in range(args.repeat):
        t0 = time.process_time()
        pair = ConnectionPair(rules)
        pair.run()
        runs.append(time.process_time() - t0)
    assert pair is not None
    chain = pair.host.session.chain
    assert chain is not None
    n_msgs = len(chain)
    n_moves = sum(1 for e in chain.entries if e.kind == "move")
    log = pair.guest.log_bytes()

    vt = []
    for _ in range(args.repeat):
        t0 = time.process_time()
        v = verify_log(log)
        vt.append(time.process_time() - t0)
        assert v.status == "valid", v.reason
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
    ident = Identity.from_seed(fixed_bytes("bench"))
    pk = ident.public_key
    data = bytes(100)
    k = 2000
    t0 = time.process_time()
    for _ in range(k):
        sig = ident.sign(data)
        pk.verify(sig, data)
    sv = (time.process_time() - t0) / k

    vmed = min(vt)
    pmed = min(runs)
    per_msg = pmed / n_msgs
    print(f"log: {args.deals} deals, {n_msgs} chained messages ({n_moves} moves), {len(log)} bytes")
    print(f"verify: best {vmed * 1e3:.1f} ms CPU of {args.repeat} runs = {n_msgs / vmed:,.0f} messages/s")
    print(f"verify HOSTLOG GUESTLOG: best {min(both) * 1e3:.1f} ms CPU, of which the comparison of the two "
          f"checked logs {min(compare) * 1e3:.2f} ms")
    print(f"in-memory match (both sessions): best {pmed * 1e3:.1f} ms = {per_msg * 1e6:.0f} us per message")
    print(f"one Ed25519 sign + one verify: {sv * 1e6:.0f} us")
    print(f"protocol cost per message / (sign + verify): {per_msg / sv:.2f}")


if __name__ == "__main__":
    main()
