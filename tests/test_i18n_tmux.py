"""``play`` in Russian and Vietnamese in a real terminal (tmux) at 60x20 and 100x32: the trump screen,
the table, the help box, a move and its answer, the quit question; and ``replay`` of a record: a deal's
start, a move, its end, a key that does nothing, the next deal, analysis on.  Each screen is saved (printed, and
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


def _start(tmux: Tmux, tmp_path: Path, code: str, size: tuple[int, int], words: list[str]) -> Path:
    """Run ``p2ptrumps WORDS`` in tmux at ``size`` in the language ``code`` (as :data:`LANGUAGES` chooses it);
    the directory its screens are saved in."""
    env, option, _said = LANGUAGES[code]
    command = shlex.join([sys.executable, "-m", "p2ptrumps", *option, *words])
    environment = (f"env -u LANGUAGE -u LC_ALL -u LC_MESSAGES {env} XDG_DATA_HOME={shlex.quote(str(tmp_path))} "
                   "TERM=xterm-256color")
    tmux.run("new-session", "-d", "-s", "t", "-x", str(size[0]), "-y", str(size[1]),
             f"{environment} sh -c {shlex.quote(command + '; sleep 30')}")
    saved = Path(os.environ.get("P2PTRUMPS_SCREENS") or tmp_path / "screens")
    saved.mkdir(parents=True, exist_ok=True)
    return saved


def _save(saved: Path, name: str, screen: str) -> None:
    (saved / name).write_text(screen, encoding="utf-8")
    print(f"--- {name}\n{screen}")


@pytest.mark.parametrize("code", list(LANGUAGES))
@pytest.mark.parametrize("size", [(60, 20), (100, 32)])
def test_play_in_the_players_language_fits(tmux: Tmux, tmp_path: Path, code: str, size: tuple[int, int]) -> None:
    _env, _option, (trump_screen, table, help_box, quit_question) = LANGUAGES[code]
    width, height = size
    saved = _start(tmux, tmp_path, code, size, ["play", "--seed", "5", "--ai", "random", "--log-dir",
                                                str(tmp_path / "records")])
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
        _save(saved, f"{code}-{width}x{height}-{number}.txt", screen)
        _check(screen, width, bare)


#: Per language: what the replay viewer says at a deal's start, after a move, at the deal's end (the result),
#: on the next deal, and with analysis on.
REPLAY = {
    "ru": ("Партия 1/3, ход 0/20", "Партия 1/3, ход 1/20", "Итог:", "Партия 2/3, ход 0/", "Анализ"),
    "vi": ("Ván 1/3, nước 0/20", "Ván 1/3, nước 1/20", "Kết quả:", "Ván 2/3, nước 0/", "Phân tích"),
}
RECORD = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "record-sample.json"


@pytest.mark.parametrize("code", list(REPLAY))
@pytest.mark.parametrize("size", [(60, 20), (100, 32)])
def test_replay_in_the_players_language_fits(tmux: Tmux, tmp_path: Path, code: str, size: tuple[int, int]) -> None:
    """``p2ptrumps replay RECORD`` in the viewer: each screen saved and checked as ``play``'s are."""
    start, moved, result, next_deal, analysis = REPLAY[code]
    width, height = size
    saved = _start(tmux, tmp_path, code, size, ["replay", str(RECORD), "--nodes", "1000", "--estimate-nodes", "1000",
                                                "--depth", "1"])
    steps = [("", start), ("n", moved), ("End", result), ("z", "'z'"), ("]", next_deal), ("a", analysis)]
    for number, (key, shown) in enumerate(steps, 1):
        if key:
            tmux.run("send-keys", "-t", "t", key)
        wait_for(f"{shown!r} after {key!r}", lambda shown=shown: shown in tmux.screen())
        screen = tmux.screen()
        _save(saved, f"replay-{code}-{width}x{height}-{number}.txt", screen)
        _check(screen, width, True)
