"""``p2ptrumps replay FILE``: the replay viewer, for game records and networked match logs alike.

The viewer (:mod:`p2ptrumps.ui.replay`) knows only game records; the ui layer
never imports the wire.  This module, at the command layer, teaches it to read a
match log (``protocol/wire.md`` §12) by checking it with
:func:`p2ptrumps.wire.verify.verify_log` and converting the checked part with
``Verdict.to_record``.  A match log holds no clock reading (``protocol/wire.md``
§12), so the start time shown is the one in the log's default file name
(``2026-11-29_1805_guest_vs-Hana.p2plog``, local time, :func:`started_from_name`);
a renamed log shows none.
"""

from __future__ import annotations

import argparse
import re
from datetime import UTC, datetime
from pathlib import Path

from ..i18n import tr
from ..message import N_
from ..record import MatchRecord, RecordError
from ..ui import replay
from ..wire.log import LOG_MAGIC
from ..wire.verify import verify_log

_LOG_NAME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})_(\d{2})(\d{2})_")


def started_from_name(path: Path) -> str:
    """The start of the match as ``YYYY-MM-DDTHH:MM:00Z`` (UTC, as ``protocol/record.md`` writes
    ``started``) read from a default log file name, which gives the local time to the minute;
    ``""`` for any other name."""
    m = _LOG_NAME.match(path.name)
    if m is None:
        return ""
    try:
        local = datetime(int(m[1]), int(m[2]), int(m[3]), int(m[4]), int(m[5])).astimezone()
    except (ValueError, OverflowError, OSError):
        return ""
    return local.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


#: The seat whose log each match log loaded here is (the log's owner, verify.md §3), by path.
_OWNERS: dict[Path, int] = {}


def owner_seat(path: Path) -> int:
    """The seat of the player whose match log ``path`` is (after :func:`load_match_log` read it): the
    replay shows that seat at the bottom, as its player saw the table; 0 for anything else."""
    return _OWNERS.get(path, 0)


def load_match_log(path: Path, data: bytes) -> MatchRecord | None:
    """A replay loader for match logs: None if ``data`` is not a match log; else the
    checked part of the match as a :class:`MatchRecord`.

    Raises :class:`RecordError` naming the fault when the log is invalid or unreadable
    (an unfinished log replays up to where it stops).
    """
    if not data.startswith(LOG_MAGIC[:-2]):
        return None
    verdict = verify_log(data)
    if verdict.status == "invalid":
        raise RecordError(N_("%(path)s: invalid match log: %(reason)s", path=str(path), reason=verdict.reason))
    if verdict.status == "unreadable":
        raise RecordError(N_("%(path)s: unreadable match log: %(reason)s", path=str(path), reason=verdict.reason))
    try:
        record = verdict.to_record()
    except ValueError as exc:
        raise RecordError(f"{path}: {tr(exc)}") from None
    if not record.started:
        record.started = started_from_name(path)
    if verdict.owner is not None:
        _OWNERS[path] = verdict.owner
    return record


def run(args: argparse.Namespace) -> int:
    """Entry point of ``p2ptrumps replay``: as :func:`p2ptrumps.ui.replay.run`, match logs included."""
    replay.register_loader(load_match_log)
    return replay.run(args, seat_of=owner_seat)
