"""What meeting by code costs one process: start-up, memory, the mailbox round.

    python bench/net_meet_cost.py base                # trio and the net package, no mailbox
    python bench/net_meet_cost.py import              # + Twisted and the magic-wormhole client imported
    python bench/net_meet_cost.py exchange URL        # + one code allocated and opened, one message each way

Time each as a whole process with ``farm-bench`` (wall, cpu, peak memory), e.g.
``farm-bench -n 10 --vs 'python bench/net_meet_cost.py base' -- python bench/net_meet_cost.py exchange ws://...``;
``exchange`` also prints its own seconds from the call to the code and to the peer's message.
URL: a local mailbox server (``twistd wormhole-mailbox``), never the public one.
"""

from __future__ import annotations

import sys
import time

import trio

from p2ptrumps.net import lobby  # noqa: F401  -- the net package, as host/join load it


def main(argv: list[str]) -> int:
    mode = argv[0] if argv else "base"
    if mode == "base":
        trio.run(trio.sleep, 0)
        return 0
    if mode == "import":
        import wormhole  # type: ignore[import-untyped]  # noqa: F401
        from twisted.internet import reactor  # noqa: F401

        return 0
    from p2ptrumps.net import mailbox

    url = argv[1]
    t0 = time.monotonic()
    marks: dict[str, float] = {}

    async def run() -> None:
        got = trio.Event()
        codes: list[str] = []

        def on_code(code: str) -> None:
            marks["code"] = time.monotonic() - t0
            codes.append(code)
            got.set()

        async def guest() -> None:
            await got.wait()
            await mailbox.exchange(url, codes[0], b"g", lambda c: None)

        async with trio.open_nursery() as n:
            n.start_soon(guest)
            await mailbox.exchange(url, None, b"h", on_code)
            marks["message"] = time.monotonic() - t0

    trio.run(run)
    print(f"code after {marks['code']:.3f} s, the peer's message after {marks['message']:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
