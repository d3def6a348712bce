"""The suite passes whatever signal dispositions it starts with: under ``nohup`` (SIGHUP ignored) and as
a background job of a shell without job control (SIGINT ignored).  The tests of signal handlers
compare with the handler they found, never with a fixed default; this runs them in a fresh pytest
whose SIGHUP and SIGINT are ignored before it starts, as ``nohup cmd &`` leaves them."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

#: The tests that install signal handlers and check what is left after them.
SIGNAL_TESTS = (
    "test_ui_terminal.py::test_termination_calls_back_and_gives_the_exit_status",
    "test_ui_terminal.py::test_termination_hands_back_the_handlers_it_found",
    "test_platform.py::test_termination_without_add_signal_handler",
    "test_net_cli.py::test_a_signal_before_any_match_ends_the_run_not_by_the_give_up",
)

#: A pytest started the way ``nohup`` and a background job of a non-interactive shell start it.
IGNORING = """
import signal, sys
signal.signal(signal.SIGHUP, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)
import pytest
sys.exit(pytest.main(["-p", "no:cacheprovider", "-o", "addopts=", "-q", *sys.argv[1:]]))
"""


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="no SIGHUP on this platform")
def test_the_signal_tests_pass_with_sighup_and_sigint_ignored() -> None:
    done = subprocess.run([sys.executable, "-c", IGNORING, *(str(TESTS / t) for t in SIGNAL_TESTS)],
                          capture_output=True, text=True, timeout=300, check=False, cwd=TESTS.parent)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert done.stdout.splitlines()[-1].startswith("5 passed"), done.stdout[-3000:]
