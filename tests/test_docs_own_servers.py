"""The README's recipe for your own mailbox and relay runs as written: its two ``twistd`` lines, started
in one folder (where two ``twistd`` without ``--pidfile=`` clash on ``twistd.pid``), both listen.  The
ports are moved to free loopback ones; nothing else is changed."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from p2ptrumps.net.testing import free_port

ROOT = Path(__file__).resolve().parent.parent
TWISTD = Path(sys.executable).with_name("twistd")

pytestmark = pytest.mark.skipif(not TWISTD.exists() or sys.platform == "win32", reason="no twistd beside this Python")


def test_the_readme_s_two_servers_start_side_by_side(tmp_path: Path) -> None:
    lines = [ln.strip().rstrip("&").strip() for ln in (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
             if ln.strip().startswith(".venv/bin/twistd ")]
    assert len(lines) == 2, lines
    procs = []
    try:
        for i, line in enumerate(lines):
            argv = shlex.split(line)
            argv[0] = str(TWISTD)
            argv = [re.sub(r"^tcp:(\d+)$", lambda m: f"tcp:{free_port()}:interface=127.0.0.1", a) for a in argv]
            with open(tmp_path / f"{i}.log", "wb") as out:
                procs.append(subprocess.Popen(argv, cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT))
        logs = [tmp_path / f"{i}.log" for i in range(2)]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not all("starting on" in p.read_text(errors="replace") for p in logs):
            assert all(p.poll() is None for p in procs), [p.read_text(errors="replace") for p in logs]
            time.sleep(0.1)
        assert all("starting on" in p.read_text(errors="replace") for p in logs), [p.read_text() for p in logs]
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(10)
