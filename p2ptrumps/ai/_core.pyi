"""Type stub of the compiled search core (``_core.c``); see :func:`p2ptrumps.ai.core.run`."""

from collections.abc import Sequence

def run(
    spec: Sequence[object],
    mode: int,
    max_nodes: int = 0,
    time_s: float = 0.0,
    max_depth: int = 64,
    tt_bits: int = 20,
    *,
    table: object = None,
    stop: object = None,
    moves: Sequence[int] | None = None,
    variant: int = 0,
    weights: Sequence[int] | None = None,
) -> tuple[int, int, int, int, int, list[tuple[int, int]]]: ...
