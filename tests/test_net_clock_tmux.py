"""Two people at two tables (``host`` and ``join`` in two tmux servers, over 127.0.0.1) and the move
clock where it used to hide (protocol/wire.md §16, whose clock runs):

* a draw offer left open: the offerer's clock does not run while its offer waits -- neither table
  shows one on its line, and the other side is never asked to claim; its own table says so and lets
  it play on once the offer has waited the move time and the grace;
* one side waiting at "Deal over": both programs commit to and reveal the next deal at once (the log
  holds the next deal dealt while that person still reads the last one), so no claim on "the rest of
  the match" can be made against it; the next deal's first move is timed, and its clock is on both
  screens ("Your time" on the elder's "Deal over", "Hana's time" on the other's), so a claim there is
  on that deal alone.

Each test waits for states (a line on a screen), never for a time; the move clock is 5 s, so each
runs in well under a minute.  Skipped where tmux is not installed."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from p2ptrumps.wire.verify import verify_log
from tests.test_net_tmux import port_in
from tests.test_ui_tmux import Tmux, wait_for

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

P2PTRUMPS = [sys.executable, "-m", "p2ptrumps"]
MOVE_TIME = "5"
#: The ticket of the host (any valid one: the guest uses it).
TICKET = "mfrg-gzdf-mztw-q2lk"


class Table:
    """One person's table: a command in a tmux server of its own (window "t", 100x30)."""

    def __init__(self, tmux: Tmux, data: Path, args: list[str]) -> None:
        self.tmux = tmux
        self.data = data
        env = f"env XDG_DATA_HOME={shlex.quote(str(data))} LANG=C.UTF-8 TERM=xterm-256color"
        script = f"{env} {shlex.join([*P2PTRUMPS, *args])}; sleep 60"
        tmux.run("new-session", "-d", "-s", "t", "-x", "100", "-y", "30", f"sh -c {shlex.quote(script)}")

    def screen(self) -> str:
        return self.tmux.screen()

    def keys(self, *keys: str) -> None:
        self.tmux.run("send-keys", "-t", "t", *keys)

    def wait(self, what: str, pattern: str, timeout_s: float = 30) -> str:
        """Wait until the screen matches ``pattern`` (a regular expression); the screen then."""
        try:
            wait_for(what, lambda: re.search(pattern, self.screen()) is not None, timeout_s)
        except AssertionError as exc:
            raise AssertionError(f"{exc}; the screen:\n{self.screen()}") from None
        return self.screen()

    def line_of(self, name: str) -> str:
        """The player line of ``name`` on the table (its name, trump, cards, and a clock if one runs)."""
        found = [ln for ln in self.screen().splitlines() if re.match(rf"^ [> ] {name}  trump ", ln)]
        assert len(found) == 1, self.screen()
        return found[0]

    def log(self) -> Path:
        logs = list((self.data / "p2ptrumps" / "logs").glob("*.p2plog"))
        assert len(logs) == 1, logs
        return logs[0]


@pytest.fixture
def tables(tmp_path: Path) -> Iterator[tuple[Table, Table]]:
    """Hana hosts, Gus joins (2 deals, a 5 s move clock, trumps S and C), both in their own tmux server;
    yields once both tables are up.  Both servers (and so both commands, by SIGHUP) end afterwards."""
    servers = [Tmux(f"p2ptrumps-clock-{os.getpid()}-{uuid.uuid4().hex[:8]}") for _ in range(2)]
    try:
        hana = Table(servers[0], tmp_path / "hana", ["host", "--bind", "127.0.0.1", "--port", "0", "--deals", "2",
                                                     "--move-time", MOVE_TIME, "--trump", "S", "--name", "Hana",
                                                     "--ticket", TICKET, "--ascii", "--no-bell"])
        port = port_in(hana.screen)
        gus = Table(servers[1], tmp_path / "gus", ["join", f"127.0.0.1:{port}/{TICKET}", "--accept-new", "--trump",
                                                   "C", "--name", "Gus", "--ascii", "--no-bell"])
        gus.wait("the rules question", r"accept these rules\? \[Y/n\]")
        gus.keys("Enter")
        for table in (hana, gus):
            table.wait("the table", r"Svoi Kozyri   deal 1/2")
        yield hana, gus
    finally:
        for t in servers:
            subprocess.run(["tmux", "-L", t.socket, "kill-server"], capture_output=True, timeout=10, check=False)
            folder = Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"
            (folder / t.socket).unlink(missing_ok=True)


def mover(hana: Table, gus: Table) -> tuple[Table, str, Table, str]:
    """Who leads deal 1 (the first dealer comes from the deal's seed): (mover, its name, other, name)."""
    wait_for("someone's lead", lambda: "Your lead" in hana.screen() + gus.screen(), 30)
    return (hana, "Hana", gus, "Gus") if "Your lead" in hana.screen() else (gus, "Gus", hana, "Hana")


CLOCK = r"!?\d:\d\d!?"


def test_no_clock_runs_against_a_draw_offer_left_open(tables: tuple[Table, Table]) -> None:
    """The mover offers a draw and the other side leaves it open: while it is open no clock is on the
    offerer's line of either table and the other side is never asked to claim; after the move time and
    the grace the offerer's table lets it play on (the offer stays open), still with no clock; once the
    offer is declined the offerer's clock starts afresh on both tables."""
    hana, gus = tables
    offerer, name, other, other_name = mover(hana, gus)
    for table in (offerer, other):  # its clock runs
        table.wait("the mover's clock", rf"(?m)^ > {name}  trump [SC]  \d+ cards  +{CLOCK}")
    offerer.keys("d")
    offerer.wait("the offer question", r"Offer .* a draw")
    offerer.keys("y")
    other.wait("the draw question", rf"{name} offers a draw\. Accept\?")
    for table in (offerer, other):  # no clock while the offer is open
        table.wait("the offerer's clock gone", rf"(?m)^ > {name}  trump [SC]  \d+ cards\s+(connected)?\s*\|?$")
    # The offerer's table stops waiting for the answer after the move time and the grace: play on.
    offerer.wait("the offerer plays on", rf"{other_name} did not answer your draw offer in 0:0{MOVE_TIME}: play on "
                 r"\(the offer stays open\)", 40)
    assert "declined" not in offerer.screen(), offerer.screen()  # it was not: it stays open
    screen = other.screen()
    assert "time is up" not in screen and "claim" not in screen, screen
    assert re.search(rf"{name} offers a draw\. Accept\?", screen), screen
    assert not re.search(CLOCK, offerer.line_of(name)) and not re.search(CLOCK, other.line_of(name))
    # The offer is declined: now the offerer's clock runs again, from its whole move time.
    other.keys("n")
    for table in (offerer, other):
        table.wait("the offerer's clock again", rf"(?m)^ > {name}  trump [SC]  \d+ cards  +{CLOCK}")
    # No claim was ever made: the log of the side that waited says so.
    v = verify_log(other.log().read_bytes()).to_json()
    assert (v["status"], v["claims"], v["waiting"]) == ("unfinished", [], {"seat": 0 if name == "Hana" else 1,
                                                                            "what": "move"}), v


def test_a_side_waiting_at_deal_over_is_never_claimed_against_for_the_match(tables: tuple[Table, Table]) -> None:
    """The mover of deal 1 resigns it; the winner leads deal 2 (the loser deals).  The loser presses
    Enter, the winner stays at "Deal over": deal 2 is committed, revealed and dealt all the same (the
    logs show it), the winner's clock of the first move is on its "Deal over" ("Your time") and on the
    loser's "Deal over" and table (on the winner's line); when it has run out the loser is asked to claim
    that deal only -- never "the rest of the match" -- and the winner's own clock agrees (no dispute)."""
    hana, gus = tables
    loser, loser_name, stayer, name = mover(hana, gus)
    loser.keys("R")
    loser.wait("the resign question", r"Resign this deal\?")
    loser.keys("y")
    stayer.wait("the winner's Deal over with its own clock",
                rf"Deal over\. Enter starts the next deal\. Your time: {CLOCK}")
    loser.wait("the loser's Deal over with the winner's clock",
               rf"Deal over\. Enter starts the next deal\. {name}'s time: {CLOCK}")
    seat = 0 if name == "Hana" else 1  # the winner's, the elder of deal 2
    for table in (loser, stayer):  # both commitments and reveals of deal 2 are in: nobody waited on a person
        v = verify_log(table.log().read_bytes()).to_json()
        assert ([d["number"] for d in v["deals"]], v["waiting"]) == ([1, 2], {"seat": seat, "what": "move"}), v
    loser.keys("Enter")
    loser.wait("deal 2 on the loser's table", r"Svoi Kozyri   deal 2/2")
    screen = loser.wait("the claim question", r"time is up", 40)
    assert f"{name}'s time is up (0:05 a move): claim the deal?" in screen, screen
    assert "rest of the match" not in screen
    stayer.wait("the winner's own clock run out on its Deal over",
                r"Deal over\. Enter starts the next deal\. Your time: !0:00!")
    loser.keys("y")
    loser.wait("the match's end", r"Match over")
    stayer.keys("Enter")
    stayer.wait("the winner's match end", rf"you ran out of time; {loser_name} claimed the deal")
    for table in (hana, gus):
        v = verify_log(table.log().read_bytes()).to_json()
        assert (v["status"], v["score"]) == ("valid", [1.0, 1.0]), v
        assert [(c["seat"], c["deals"], c["disputed"]) for c in v["claims"]] == [(1 - seat, [2], None)], v
        assert [(d["number"], d["winner"], d["reason"]) for d in v["deals"]] == [(1, seat, "resign"),
                                                                                  (2, 1 - seat, "time")], v
