"""No peer text crashes any command on any terminal encoding: a guest named ``Аня 👩‍👩‍👧`` plays a host
whose output is Latin-1 or ASCII (it was a ``UnicodeEncodeError`` and exit status 1 at the guest's first
line: any stranger could stop such a host by a name), and that host's ``verify``, ``replay --text``
and ``history`` of the match print it too.  What the encoding cannot hold is written as an escape
(``\\u0410``), never dropped silently, never fatal (p2ptrumps.command.tolerant_streams)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from p2ptrumps.net.testing import peer_command, peer_env
from tests.test_net_wrong_clock import play_two

NAME = "Аня 👩‍👩‍👧"
ESCAPED = r"\u0410\u043d\u044f \U0001f469\u200d\U0001f469\u200d\U0001f467"
PLAY = ("--headless", "--ai", "random", "--think", "0.01", "--timeout", "20")


@pytest.mark.timeout(120)
@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_a_name_the_terminal_cannot_show_never_stops_the_host_or_its_commands(tmp_path: Path, encoding: str) -> None:
    env = {**peer_env(tmp_path / "host"), "PYTHONIOENCODING": encoding}
    out, _ = play_two(tmp_path, peer_command("host", "--bind", "127.0.0.1", "--port", "{port}", "--open", "--no-map",
                                             "--name", "Hana", "--deals", "1", "--pack", "32", "--turn-limit", "30",
                                             *PLAY),
                      peer_command("join", "127.0.0.1:{port}", "--accept-new", "--name", NAME, *PLAY), env,
                      peer_env(tmp_path / "guest"))
    said = out.decode(encoding)
    log = next((tmp_path / "host" / "p2ptrumps" / "logs").glob("*.p2plog"))  # where history looks
    assert f"guest '{ESCAPED}' accepted the rules" in said and "Traceback" not in said
    for command in (["verify", str(log)], ["replay", str(log), "--text"], ["history"]):
        run = subprocess.run(peer_command(*command), capture_output=True, env=env, timeout=60)
        text = (run.stdout + run.stderr).decode(encoding)
        assert run.returncode == 0 and "Traceback" not in text, (command, text)
        assert ESCAPED.split(" ")[0] in text, (command, text)  # the name (a replay drops the joiners)
