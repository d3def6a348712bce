"""Fixtures shared by the test modules."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_ui_tmux import Tmux


@pytest.fixture
def tmux() -> Iterator[Tmux]:
    """A tmux server of the test's own (one socket per test: a server still shutting down from the
    test before must not refuse this one's new-session), killed at the end."""
    t = Tmux(f"p2ptrumps-test-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    try:
        yield t
    finally:
        subprocess.run(["tmux", "-L", t.socket, "kill-server"], capture_output=True, timeout=10, check=False)
        # The server's socket file may outlive it: leave no litter in the tmux directory.
        folder = Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"
        (folder / t.socket).unlink(missing_ok=True)
