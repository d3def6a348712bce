"""``p2ptrumps verify LOG [OTHER_LOG] [--json]``: check a match log, or two logs of one game, and say so.

Source: ``protocol/verify.md`` (verdicts, exit codes, the JSON forms; §6 for two logs).

Exit status for one log: 0 valid and complete, 1 invalid, 2 unreadable, 3 valid
so far but unfinished.  For two logs: 0 one chain and complete, 1 invalid (an
equivocation between them, or a fault in either), 2 unreadable, of different
games, or both of one seat (``same-owner``: not a pair), 3 one chain but unfinished.  The checking itself is
:func:`p2ptrumps.wire.verify.verify_log` and :func:`~p2ptrumps.wire.verify.verify_pair`.
"""

from __future__ import annotations

import argparse
import json
import sys

from ..files import UnreadableFileError, read_limited
from ..i18n import tr
from ..message import N_, message_of
from ..wire.verify import LogCheck, Verdict, check_log, verify_pair

#: The largest match log ``verify`` reads (bytes).  A match at the default rules
#: is tens of kilobytes; 1000 deals stopped at the default 1000-turn limit, at
#: about 170 bytes a message, is about 170 MB.
MAX_LOG_BYTES = 256 * 2**20


def load(path: str) -> tuple[LogCheck, bool]:
    """Read and check the log at ``path``: ``(check, named)``, ``named`` when the verdict's reason
    names the path already (a file that cannot be read).  Never raises for a bad file."""
    try:
        data = read_limited(path, MAX_LOG_BYTES)
    except UnreadableFileError as exc:
        return LogCheck(Verdict("unreadable", message_of(exc))), True
    if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{") and b'"p2ptrumps-resume"' in data[:200]:
        if path.endswith(".resume"):
            why = N_("this is a resume file (the deal secrets a peer keeps to go on after a restart, "
                     "protocol/files.md), not a match log: verify %(log)s", log=path.removesuffix(".resume"))
        else:
            why = N_("this is a resume file (the deal secrets a peer keeps to go on after a restart, "
                     "protocol/files.md), not a match log: verify its match log")
        return LogCheck(Verdict("unreadable", why)), False
    if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
        return LogCheck(Verdict("unreadable", N_("this looks like an offline game record (JSON), not a match log: "
                                                 "verify checks the signed logs of networked matches; "
                                                 "`%(command)s` checks and shows a record",
                                                 command="p2ptrumps replay FILE"))), False
    return check_log(data), False


def run(args: argparse.Namespace) -> int:
    """Verify ``args.log`` (and ``args.other_log`` against it, if given); print the report
    (``args.json``: JSON) to stdout; return the exit status."""
    other = getattr(args, "other_log", None)
    as_json = getattr(args, "json", False)
    first, named = load(str(args.log))
    if other is not None:
        second, _ = load(str(other))
        paths = (str(args.log), str(other))
        if as_json:  # the reason names "log 0" and "log 1": the verdict of the bytes, whatever the paths
            pair = verify_pair(first, second)
            print(json.dumps(pair.to_json(logs=paths), indent=1, ensure_ascii=False))
        else:
            pair = verify_pair(first, second, names=paths)
            print("\n".join(tr(line) for line in pair.summary_lines(names=paths)))
        sys.stdout.flush()
        return pair.exit_code
    verdict = first.verdict
    if as_json:
        print(json.dumps(verdict.to_json(log=str(args.log)), indent=1, ensure_ascii=False))
    else:
        lines = [tr(line) for line in verdict.summary_lines()]
        print("\n".join(lines if named else [f"{args.log}: {lines[0]}", *lines[1:]]))
    sys.stdout.flush()
    return verdict.exit_code
