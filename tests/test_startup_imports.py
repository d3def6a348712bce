"""What the commands without a table import: ``host --headless``, ``join --headless``, ``verify`` and
``id`` (and their ``--help``) load neither prompt_toolkit nor pydoc -- those are imported where the
full-screen table or the rule book's pager really starts.

Each command runs in its own interpreter under a watcher on ``sys.meta_path`` that writes a line to
stderr whenever one of the watched packages is imported (at start-up, or later in the run).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_net_match import host_port

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "wire"

WATCHED = ("prompt_toolkit", "pydoc")

#: Runs ``p2ptrumps`` with its arguments, saying on stderr each watched import.
WATCHER = f"""
import runpy, sys
class Watch:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {WATCHED!r}:
            sys.stderr.write("imported " + name + "\\n")
            sys.stderr.flush()
        return None
sys.meta_path.insert(0, Watch())
sys.argv[0] = "p2ptrumps"
runpy.run_module("p2ptrumps", run_name="__main__", alter_sys=True)
"""


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "XDG_DATA_HOME": str(home), "PYTHONUNBUFFERED": "1", "P2PTRUMPS_NO_MAP": "1"}


def _watched(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("imported ")]


def _run(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", WATCHER, *args], capture_output=True, text=True, env=_env(home),
                          timeout=60, check=False)


@pytest.mark.parametrize("args", [
    ["host", "--headless", "--help"], ["join", "--headless", "--help"], ["verify", "--help"], ["id", "--help"],
    ["verify", str(VECTORS / "valid-host.log")], ["id", "--name", "Watcher"],
])
def test_a_command_without_a_table_imports_no_ui(args: list[str], tmp_path: Path) -> None:
    done = _run(args, tmp_path)
    assert done.returncode == 0, done.stderr
    assert _watched(done.stderr) == []


def test_the_watcher_sees_the_ui_where_it_is_used(tmp_path: Path) -> None:
    """``rules --no-pager`` lays the rule book out with the table's renderer: prompt_toolkit is imported
    (and said), pydoc is not (no pager)."""
    done = _run(["rules", "--no-pager"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "imported prompt_toolkit" in _watched(done.stderr)
    assert not any(line.startswith("imported pydoc") for line in _watched(done.stderr))


def test_a_headless_match_imports_no_ui_on_either_side(tmp_path: Path) -> None:
    """A whole match, host and guest each ``--headless --ai random`` in its own process."""
    common = ["--headless", "--ai", "random", "--think", "0.01", "--timeout", "10", "--ascii"]
    host_out_path = tmp_path / "host.out"
    with host_out_path.open("w") as host_out:  # a file, not a pipe nobody drains while the guest runs
        host = subprocess.Popen(
            [sys.executable, "-c", WATCHER, "host", "--bind", "127.0.0.1", "--port", "0", "--open", "--deals", "1",
             "--turn-limit", "60", "--name", "WatchHost", *common],
            stdout=host_out, stderr=subprocess.PIPE, text=True, env=_env(tmp_path / "h"))
    try:
        port = host_port(host_out_path, host, timeout_s=30)
        guest = _run(["join", f"127.0.0.1:{port}", "--accept-new", "--name", "WatchGuest", *common], tmp_path / "g")
        _, host_err = host.communicate(timeout=30)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait(timeout=10)
    assert (guest.returncode, host.returncode) == (0, 0), guest.stderr + host_err
    assert "match over: WatchHost " in guest.stdout and "match over: WatchHost " in host_out_path.read_text()
    assert _watched(host_err) == [] and _watched(guest.stderr) == []
