"""``replay`` of a player's own match log shows that player at the bottom, as they saw the table: the
guest's log has the guest's hand below (it showed the host there), the host's log the host's."""

from __future__ import annotations

import re
from pathlib import Path

from p2ptrumps.commands.replay import load_match_log, owner_seat
from p2ptrumps.rules import RuleSet
from p2ptrumps.ui.replay import ReplayViewer, load_any, register_loader
from p2ptrumps.ui.view import plain, render_table
from p2ptrumps.wire.testing import ConnectionPair


def _player_rows(viewer: ReplayViewer) -> list[str]:
    view = viewer.table_view()
    assert view is not None
    return [m[1] for line in plain(render_table(view, 100, 30)) if (m := re.match(r"^ [▶> ] (\S+)  trump ", line))]


def test_each_log_shows_its_owner_at_the_bottom(tmp_path: Path) -> None:
    register_loader(load_match_log)
    pair = ConnectionPair(RuleSet(pack_size=32, deals=1))
    pair.run()
    for side, seat in zip(pair.sides, (0, 1), strict=True):
        path = tmp_path / f"seat{seat}.p2plog"
        path.write_bytes(side.log_bytes())
        record = load_any(path)
        names = [p.name for p in record.players]
        assert owner_seat(path) == seat
        viewer = ReplayViewer(record, seat=owner_seat(path))
        assert _player_rows(viewer) == [names[1 - seat], names[seat]]  # the opponent above, the owner below
