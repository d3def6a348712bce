"""trio as a guest on asyncio (:mod:`p2ptrumps.ui.bridge`): the run's value or exception can be
waited for more than once (the network table waits once to see that the run ended, then again
for its result)."""

from __future__ import annotations

import asyncio

import pytest
import trio

from p2ptrumps.ui.bridge import GuestCancelled, TrioGuest


async def _answer() -> int:
    await trio.sleep(0)
    return 42


async def _fail() -> int:
    await trio.sleep(0)
    raise ValueError("the match broke")


async def _forever() -> int:
    await trio.sleep_forever()
    return 0


def test_wait_gives_the_same_value_every_time() -> None:
    async def main() -> list[int]:
        guest: TrioGuest[int] = TrioGuest(_answer)
        guest.start()
        return [await guest.wait(), await guest.wait()]

    assert asyncio.run(main()) == [42, 42]


def test_wait_raises_the_same_exception_every_time() -> None:
    async def main() -> list[str]:
        guest: TrioGuest[int] = TrioGuest(_fail)
        guest.start()
        seen = []
        for _ in range(2):
            with pytest.raises(ValueError) as info:
                await guest.wait()
            seen.append(str(info.value))
        return seen

    assert asyncio.run(main()) == ["the match broke", "the match broke"]


def test_a_cancelled_run_says_so_every_time() -> None:
    async def main() -> int:
        guest: TrioGuest[int] = TrioGuest(_forever)
        guest.start()
        await asyncio.sleep(0.01)
        guest.cancel()
        count = 0
        for _ in range(2):
            with pytest.raises(GuestCancelled):
                await guest.wait()
            count += 1
        return count

    assert asyncio.run(main()) == 2
