"""``p2ptrumps replay FILE``: the replay viewer, for game records and networked match logs alike.

The viewer (:mod:`p2ptrumps.ui.replay`) knows only game records; the ui layer
never imports the wire.  This module, at the command layer, teaches it to read a
match log (``protocol/wire.md`` §12) by checking it with
:func:`p2ptrumps.wire.verify.verify_log` and converting the checked part with
``Verdict.to_record``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .record import MatchRecord, RecordError
from .ui import replay
from .wire.log import LOG_MAGIC
from .wire.verify import verify_log


def load_match_log(path: Path, data: bytes) -> MatchRecord | None:
    """A replay loader for match logs: None if ``data`` is not a match log; else the
    checked part of the match as a :class:`MatchRecord`.

    Raises :class:`RecordError` naming the fault when the log is invalid or unreadable
    (an unfinished log replays up to where it stops).
    """
    if not data.startswith(LOG_MAGIC[:-2]):
        return None
    verdict = verify_log(data)
    if verdict.status in ("invalid", "unreadable"):
        raise RecordError(f"{path}: {verdict.status} match log: {verdict.reason}")
    try:
        return verdict.to_record()
    except ValueError as exc:
        raise RecordError(f"{path}: {exc}") from None


def run(args: argparse.Namespace) -> int:
    """Entry point of ``p2ptrumps replay``: as :func:`p2ptrumps.ui.replay.run`, match logs included."""
    replay.register_loader(load_match_log)
    return replay.run(args)
