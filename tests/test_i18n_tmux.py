"""``play`` in Russian and Vietnamese in a real terminal (tmux) at 60x20 and 100x32: the trump screen,
the table, the help box, a move and its answer, the quit question.  Each screen is saved (printed, and
written to ``$P2PTRUMPS_SCREENS`` when set, else the test's own directory) and checked: the texts of
the language are there, no line is wider than the terminal, the Moves panel's border stands in one
column on every line (a line whose letters were counted wrong would push it), and the player's four
suit rows are on screen.  Russian comes from ``LANG`` (as a Russian desktop sets it), Vietnamese from
``--lang``.  Skipped where tmux is not installed."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

import pytest
from prompt_toolkit.utils import get_cwidth

from tests.test_ui_tmux import Tmux, wait_for

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

#: Per language: how it is chosen, and what each screen says in it (trump screen, table, help, quit).
LANGUAGES = {
    "ru": ("LANG=ru_RU.UTF-8", [], ("Выберите свой козырь", "Стопка", "Свои козыри: у каждого", "Выйти?")),
    "vi": ("LANG=C.UTF-8", ["--lang", "vi"], ("Chọn chất chủ của bạn", "Chồng bài", "r đọc toàn bộ luật",
                                               "Thoát?")),
}


def _check(screen: str, width: int, bare: bool) -> None:
    lines = screen.splitlines()
    assert all(get_cwidth(line) <= width for line in lines), "a line wider than the terminal"
    if bare and width >= 76:  # the Moves panel: its border in column 76 on every line that has it
        columns = {get_cwidth(line[:line.index("│")]) for line in lines if "│" in line}
        assert columns <= {76}, f"the Moves panel's border moved: {sorted(columns)}"
    if bare:
        rows = [line for line in lines if line.startswith(("  ♥ ", "  ♠ ", "  ♦ ", "  ♣ "))]
        assert len(rows) >= 4, "the player's four suit rows"


@pytest.mark.parametrize("code", list(LANGUAGES))
@pytest.mark.parametrize("size", [(60, 20), (100, 32)])
def test_play_in_the_players_language_fits(tmux: Tmux, tmp_path: Path, code: str, size: tuple[int, int]) -> None:
    env, option, (trump_screen, table, help_box, quit_question) = LANGUAGES[code]
    width, height = size
    play = shlex.join([sys.executable, "-m", "p2ptrumps", *option, "play", "--seed", "5", "--ai", "random",
                       "--log-dir", str(tmp_path / "records")])
    environment = (f"env -u LANGUAGE -u LC_ALL -u LC_MESSAGES {env} XDG_DATA_HOME={shlex.quote(str(tmp_path))} "
                   "TERM=xterm-256color")
    tmux.run("new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height),
             f"{environment} sh -c {shlex.quote(play + '; sleep 30')}")
    saved = Path(os.environ.get("P2PTRUMPS_SCREENS") or tmp_path / "screens")
    saved.mkdir(parents=True, exist_ok=True)
    # (key, the text then shown, the table without a box over it: the four suit rows and the Moves panel)
    steps = [("", trump_screen, False), ("Enter", table, True), ("?", help_box, False), ("x", table, True),
             ("Enter", table, True), ("q", quit_question, False)]
    for number, (key, shown, bare) in enumerate(steps, 1):
        before = tmux.screen() if key else None  # a key changes the screen
        if key:
            tmux.run("send-keys", "-t", "t", key)
        wait_for(f"{shown!r} after {key!r}", lambda shown=shown, bare=bare, before=before: shown in tmux.screen() and (
            not bare or help_box not in tmux.screen()) and tmux.screen() != before)
        screen = tmux.screen()
        name = f"{code}-{width}x{height}-{number}.txt"
        (saved / name).write_text(screen, encoding="utf-8")
        print(f"--- {name}\n{screen}")
        _check(screen, width, bare)
