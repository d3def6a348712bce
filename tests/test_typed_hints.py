"""The program's hints print its commands as the person can type them (p2ptrumps.command.typed_program):
after the README's set-up (``python3 -m venv .venv && .venv/bin/pip install .``) ``p2ptrumps`` is not on
``PATH``, so a hint says ``.venv/bin/p2ptrumps play`` from that folder, the whole path from elsewhere,
and plain ``p2ptrumps play`` once the environment is active."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from p2ptrumps import command

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = Path(sys.executable).parent / "p2ptrumps"

pytestmark = pytest.mark.skipif(not SCRIPT.is_file(), reason="the p2ptrumps script is not beside this Python")


def _hint(cwd: Path, path: str, data: Path) -> str:
    run = subprocess.run([str(SCRIPT), "play", "--continue"], cwd=cwd, capture_output=True, text=True, timeout=60,
                         stdin=subprocess.DEVNULL, env={**os.environ, "PATH": path, "XDG_DATA_HOME": str(data)})
    assert run.returncode == 2, run.stderr
    return run.stderr


@pytest.mark.parametrize(("where", "on_path", "typed"), [
    ("the set-up folder", False, "{rel}"),
    ("elsewhere", False, "{abs}"),
    ("elsewhere", True, "p2ptrumps"),
])
def test_a_hint_names_the_program_as_it_can_be_typed(tmp_path: Path, where: str, on_path: bool, typed: str) -> None:
    try:
        rel = str(SCRIPT.relative_to(ROOT))
    except ValueError:
        pytest.skip("this Python's environment is not inside the checkout")
    cwd = ROOT if where == "the set-up folder" else tmp_path
    path = os.pathsep.join(([str(SCRIPT.parent)] if on_path else []) + ["/usr/bin", "/bin"])
    said = _hint(cwd, path, tmp_path / "data")
    program = typed.format(rel=rel, abs=SCRIPT)
    assert said == (f"p2ptrumps play: no unfinished game to continue in {tmp_path / 'data' / 'p2ptrumps' / 'records'} "
                    f"(start one with `{program} play`)\n")


def test_without_the_script_the_hint_runs_the_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    python = tmp_path / "my env" / "python3"
    python.parent.mkdir()
    python.write_text("")
    monkeypatch.setattr(sys, "executable", str(python))
    monkeypatch.chdir(tmp_path)
    command.typed_program.cache_clear()
    try:
        assert command.typed("resume X") == "'my env/python3' -m p2ptrumps resume X"
    finally:
        command.typed_program.cache_clear()
