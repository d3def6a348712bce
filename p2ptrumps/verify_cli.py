"""``p2ptrumps verify LOG [--json]``: check a match log and say so.

Source: ``protocol/verify.md`` (verdicts, exit codes, the JSON form); issue 3 §3.

Exit status: 0 valid and complete, 1 invalid, 2 unreadable, 3 valid so far
but unfinished.  The checking itself is :func:`p2ptrumps.wire.verify.verify_log`.
"""

from __future__ import annotations

import argparse
import json
import sys

from .files import UnreadableFileError, read_limited
from .wire.verify import Verdict, verify_log

#: The largest match log ``verify`` reads (bytes).  A match at the default rules
#: is tens of kilobytes; 1000 deals stopped at the default 1000-turn limit, at
#: about 170 bytes a message, is about 170 MB.
MAX_LOG_BYTES = 256 * 2**20


def run(args: argparse.Namespace) -> int:
    """Verify ``args.log``; print the report (``args.json``: JSON) to stdout; return the exit status."""
    named = False  # the reason names the path already: print it once
    try:
        data = read_limited(args.log, MAX_LOG_BYTES)
    except UnreadableFileError as exc:
        verdict, named = Verdict("unreadable", str(exc)), True
    else:
        if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
            verdict = Verdict("unreadable", "this looks like an offline game record (JSON), not a match "
                              "log: verify checks the signed logs of networked matches; "
                              "`p2ptrumps replay FILE` checks and shows a record")
        else:
            verdict = verify_log(data)
    if getattr(args, "json", False):
        print(json.dumps(verdict.to_json(log=str(args.log)), indent=1, ensure_ascii=False))
    elif named:
        print(verdict.summary())
    else:
        print(f"{args.log}: {verdict.summary()}")
    sys.stdout.flush()
    return verdict.exit_code
