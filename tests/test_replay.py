"""Tests of ``p2ptrumps replay``: load_any, the --text output, the exit statuses, the viewer's cursor."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from p2ptrumps.cards import Card
from p2ptrumps.commands.main import main
from p2ptrumps.record import MatchRecord, RecordError
from p2ptrumps.rules import Move
from p2ptrumps.ui import replay
from p2ptrumps.ui.replay import ReplayViewer, load_any, register_loader, replay_steps, replay_text
from p2ptrumps.ui.view import plain, render_status, render_table

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"
SAMPLE = VECTORS / "record-sample.json"
UNFINISHED = VECTORS / "record-unfinished.json"

SAMPLE_TEXT = """\
p2ptrumps match (offline), started 2025-01-01T12:00:00Z
rules: 36 cards, sixes on, must beat, repetition 3, limit 1000 turns, 3 deals
seat 0: Ann (human), trump ♥
seat 1: greedy AI (AI greedy), trump ♠

deal 1
  seed: 14c822f53fab1f1f489d7f2babf7d102467d5bba3ef3e58ffa7403bde4a1fe74
  dealer: seat 1 (greedy AI); elder: seat 0 (Ann)
  trumps: seat 0 ♥, seat 1 ♠
  hand seat 0 (18): 6♥ 8♥ 10♥ J♥ Q♥ K♥ Q♠ 6♦ 9♦ 10♦ J♦ Q♦ K♦ 6♣ 7♣ 9♣ J♣ K♣
  hand seat 1 (18): 6♠ 7♠ 8♠ 9♠ 10♠ J♠ K♠ A♠ 7♥ 9♥ A♥ 7♦ 8♦ A♦ 8♣ 10♣ Q♣ A♣
     1. seat 0 Ann           lead 6♣                        hands 17/18
     2. seat 1 greedy AI     beat 8♣, second 10♣            hands 17/16
     3. seat 0 Ann           beat J♣, second 7♣             hands 15/16
     4. seat 1 greedy AI     beat Q♣, second A♣             hands 15/14
     5. seat 0 Ann           beat 6♥, second 9♣             hands 13/14
     6. seat 1 greedy AI     beat 6♠, second 7♦             hands 13/12
     7. seat 0 Ann           beat 9♦, second K♣             hands 11/12
     8. seat 1 greedy AI     beat 7♠, second 8♦             hands 11/10
     9. seat 0 Ann           beat 10♦, second 6♦            hands 9/10
    10. seat 1 greedy AI     beat A♦, second 7♥             hands 9/8
    11. seat 0 Ann           beat 8♥, second J♦             hands 7/8
    12. seat 1 greedy AI     beat 8♠, second 9♥             hands 7/6
    13. seat 0 Ann           beat 10♥, second Q♦            hands 5/6
    14. seat 1 greedy AI     beat 9♠, second A♥             hands 5/4
    15. seat 0 Ann           pick up (27 cards)             hands 32/4
    16. seat 1 greedy AI     lead 10♠                       hands 32/3
    17. seat 0 Ann           beat 6♥, second 6♣             hands 30/3
    18. seat 1 greedy AI     beat J♠, second K♠             hands 30/1
    19. seat 0 Ann           beat 7♥, second 7♣             hands 28/1
    20. seat 1 greedy AI     beat A♠ (last card)            hands 28/0
  result: greedy AI went out and won
  score: Ann 0 : 1 greedy AI

deal 2
  seed: 0ea6a4d031207b92dc0696da3b8746a24f8acd03ddf40711b5c5c80a3f494b22
  dealer: seat 0 (Ann); elder: seat 1 (greedy AI)
  trumps: seat 0 ♥, seat 1 ♠
  hand seat 0 (19): 6♥ 8♥ 9♥ 10♥ J♥ Q♥ K♥ 7♠ 9♠ 6♦ 9♦ 10♦ K♦ A♦ 6♣ 7♣ 8♣ 9♣ Q♣
  hand seat 1 (17): 6♠ 8♠ 10♠ J♠ Q♠ K♠ A♠ 7♥ A♥ 7♦ 8♦ J♦ Q♦ 10♣ J♣ K♣ A♣
     1. seat 1 greedy AI     lead A♠                        hands 19/16
     2. seat 0 Ann           beat K♥, second 9♠             hands 17/16
     3. seat 1 greedy AI     beat K♠, second Q♠             hands 17/14
     4. seat 0 Ann           beat Q♥, second 7♠             hands 15/14
     5. seat 1 greedy AI     beat J♠, second 10♠            hands 15/12
     6. seat 0 Ann           beat J♥, second 10♥            hands 13/12
     7. seat 1 greedy AI     beat 8♠, second 6♠             hands 13/10
     8. seat 0 Ann           beat 9♥, second 8♥             hands 11/10
     9. seat 1 greedy AI     beat A♥, second 7♥             hands 11/8
    10. seat 0 Ann           pick up (5 cards)              hands 16/8
    11. seat 1 greedy AI     pick up (5 cards)              hands 16/13
    12. seat 0 Ann           beat A♥, second 6♠             hands 14/13
    13. seat 1 greedy AI     beat J♠, second 10♠            hands 14/11
    14. seat 0 Ann           beat 9♥, second 8♥             hands 12/11
    15. seat 1 greedy AI     beat 8♠, second J♥             hands 12/9
    16. seat 0 Ann           pick up (5 cards)              hands 17/9
    17. seat 1 greedy AI     pick up (5 cards)              hands 17/14
    18. seat 0 Ann           beat J♥, second 10♠            hands 15/14
    19. seat 1 greedy AI     beat J♠, second 7♠             hands 15/12
    20. seat 0 Ann           beat 8♠, second 9♥             hands 13/12
    21. seat 1 greedy AI     beat 6♠, second A♥             hands 13/10
    22. seat 0 Ann           pick up (13 cards)             hands 26/10
    23. seat 1 greedy AI     lead Q♥                        hands 26/9
    24. seat 0 Ann           beat A♥, second A♠             hands 24/9
    25. seat 1 greedy AI     pick up (3 cards)              hands 24/12
    26. seat 0 Ann           lead K♠                        hands 23/12
    27. seat 1 greedy AI     beat A♠, second A♥             hands 23/10
    28. seat 0 Ann           pick up (3 cards)              hands 26/10
    29. seat 1 greedy AI     lead Q♥                        hands 26/9
    30. seat 0 Ann           beat A♥, second A♠             hands 24/9
    31. seat 1 greedy AI     pick up (3 cards)              hands 24/12
    32. seat 0 Ann           lead K♠                        hands 23/12
    33. seat 1 greedy AI     beat A♠, second A♥             hands 23/10
    34. seat 0 Ann           pick up (3 cards)              hands 26/10
  result: drawn by repetition
  score: Ann ½ : 1½ greedy AI

deal 3
  seed: d90e38cdfcec53c0ccce17b06eaf9ba2665cb32a7a763fd2051414cd049ce95e
  dealer: seat 1 (greedy AI); elder: seat 0 (Ann)
  trumps: seat 0 ♥, seat 1 ♠
  hand seat 0 (19): 6♥ 7♥ 10♥ J♥ K♥ A♥ 7♠ 10♠ J♠ Q♠ 7♦ 8♦ 10♦ J♦ Q♦ K♦ A♦ 6♣ 8♣
  hand seat 1 (17): 6♠ 8♠ 9♠ K♠ A♠ 8♥ 9♥ Q♥ 6♦ 9♦ 7♣ 9♣ 10♣ J♣ Q♣ K♣ A♣
     1. seat 0 Ann           lead 6♣                        hands 18/17
     2. seat 1 greedy AI     beat 7♣, second 9♣             hands 18/15
     3. seat 0 Ann           beat 6♥, second 8♣             hands 16/15
     4. seat 1 greedy AI     beat 10♣, second J♣            hands 16/13
  result: Ann resigned; greedy AI won
  score: Ann ½ : 2½ greedy AI

match finished: Ann ½ : 2½ greedy AI
"""


def args(file: Path, text: bool = True, ascii_only: bool = False) -> argparse.Namespace:
    return argparse.Namespace(command="replay", file=str(file), text=text, ascii=ascii_only, unicode=False)


def run_replay(ns: argparse.Namespace) -> int:
    """``p2ptrumps replay`` through the command line (its one voice for errors)."""
    return main(["replay", ns.file, *(["--text"] if ns.text else []), *(["--ascii"] if ns.ascii else [])])


def test_text_of_the_sample_record_exactly(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_replay(args(SAMPLE)) == 0
    out = capsys.readouterr()
    assert out.out == SAMPLE_TEXT
    assert out.err == ""


def test_text_ascii_mode_replaces_suits() -> None:
    lines = replay_text(load_any(SAMPLE), ascii_only=True)
    assert lines[2] == "seat 0: Ann (human), trump H"
    assert lines[9] == "  hand seat 0 (18): 6H 8H 10H JH QH KH QS 6D 9D 10D JD QD KD 6C 7C 9C JC KC"
    assert lines[-1] == "match finished: Ann 0.5 : 2.5 greedy AI"
    assert all(line.isascii() for line in lines)


def test_text_of_an_unfinished_record_ends_with_the_abandoned_deal() -> None:
    lines = replay_text(load_any(UNFINISHED))
    assert lines[-5:] == [
        "     7. seat 1 greedy AI     lead 6♦                        hands 21/14",
        "  result: unfinished (not played to its end)",
        "  score: Ann ½ : ½ greedy AI",
        "",
        "match unfinished: Ann ½ : ½ greedy AI",
    ]


def _write(tmp_path: Path, name: str, data: object) -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return p


@pytest.mark.parametrize("text", [True, False])
def test_an_illegal_move_exits_2_naming_it(tmp_path: Path, text: bool, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))
    data["deals"][0]["moves"][2] = "6H/QS"  # 6♥ beats 10♣ (own trump), leaving 8♣ 10♣ 6♥ Q♠ for move 4
    p = _write(tmp_path, "bad.json", data)
    assert run_replay(args(p, text=text)) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == "p2ptrumps replay: deal 1, move 4 (QC/AC): Q♣ does not beat Q♠ (seat 1's trump is ♠)\n"


def test_a_wrong_result_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))
    data["deals"][0]["result"] = {"winner": 0, "reason": "out"}
    p = _write(tmp_path, "bad.json", data)
    assert run_replay(args(p)) == 2
    err = capsys.readouterr().err
    assert err.startswith("p2ptrumps replay: deal 1: recorded result ")
    assert err.count("\n") == 1


def test_truncated_json_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = _write(tmp_path, "cut.json", SAMPLE.read_text(encoding="utf-8")[:300])
    assert run_replay(args(p)) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"p2ptrumps replay: {p}: not valid JSON (")
    assert err.count("\n") == 1


def test_unknown_file_and_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = _write(tmp_path, "notes.txt", "hello")
    with pytest.raises(RecordError, match=r"unknown file format"):
        load_any(other)
    js = _write(tmp_path, "other.json", {"format": "something-else"})
    with pytest.raises(RecordError, match=r"unknown file format"):
        load_any(js)
    missing = tmp_path / "missing.json"
    assert run_replay(args(missing)) == 2
    assert capsys.readouterr().err == f"p2ptrumps replay: cannot read {missing}: No such file or directory\n"


def test_bad_field_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))
    data["deals"][1]["moves"][0] = "XX"
    p = _write(tmp_path, "bad.json", data)
    assert run_replay(args(p)) == 2
    assert capsys.readouterr().err.startswith("p2ptrumps replay: deal 2, move 1: ")


def test_register_loader_lets_another_format_in(tmp_path: Path) -> None:
    sample = load_any(SAMPLE)

    def loader(path: Path, data: bytes) -> MatchRecord | None:
        return sample if data.startswith(b"NETLOG") else None

    register_loader(loader)
    try:
        p = tmp_path / "match.log"
        p.write_bytes(b"NETLOG\x00\x01")
        assert load_any(p) is sample
    finally:
        replay.LOADERS.remove(loader)


def test_replay_steps_follow_the_record() -> None:
    rec = load_any(SAMPLE)
    steps = replay_steps(rec)
    assert [len(s) for s in steps] == [21, 35, 5]
    first = steps[0][1]
    assert first.move == Move.lead(Card.parse("6C")) and first.seat == 0
    pick = steps[0][15]
    assert pick.move == Move.pick_up() and pick.seat == 0 and pick.picked == 27
    assert steps[0][-1].position.outcome == rec.deals[0].outcome


def test_viewer_cursor_and_screen() -> None:
    viewer = ReplayViewer(load_any(SAMPLE))
    assert (viewer.deal_index, viewer.step_index) == (0, 0)
    viewer.step(-1)
    assert (viewer.deal_index, viewer.step_index, viewer.note) == (0, 0, "This is the start of the match.")
    viewer.note = ""
    viewer.step(3)
    view = viewer.table_view()
    assert view is not None
    assert view.pile == tuple(int(Card.parse(c)) for c in ("6C", "8C", "TC", "JC", "7C"))
    assert [e.number for e in view.history] == [1, 2, 3]
    status = plain(render_status(viewer.status_view(), 80))
    assert status[0] == " Deal 1/3, move 3/20: Ann — beat J♣, second 7♣"
    viewer.to_end(True)
    assert viewer.step_index == 20
    status = plain(render_status(viewer.status_view(), 80))
    assert status[1] == " Result: greedy AI went out and won"
    end_view = viewer.table_view()
    assert end_view is not None and end_view.score_halves == (0, 2)
    assert end_view.to_move is None  # nobody is to move once greedy AI went out: no turn marker
    assert not any(line.startswith(" ▶") for line in plain(render_table(end_view, 80, 20)))
    viewer.step(1)  # → on the deal's last move goes on to the next deal
    assert (viewer.deal_index, viewer.step_index) == (1, 0)
    viewer.step(-1)  # and ← from a deal's start back to the end of the previous one
    assert (viewer.deal_index, viewer.step_index) == (0, 20)
    viewer.deal(1)
    assert (viewer.deal_index, viewer.step_index) == (1, 0)
    viewer.deal(5)
    assert viewer.deal_index == 2
    start = viewer.table_view()
    assert start is not None and start.score_halves == (1, 3) and start.pile == ()
    assert plain(render_status(viewer.status_view(), 80))[0] == (
        " Deal 3/3, move 0/4: dealt by greedy AI; Ann leads.")
    viewer.to_end(True)
    viewer.step(1)
    assert (viewer.deal_index, viewer.step_index, viewer.note) == (2, 4, "This is the end of the match.")


# ----- files that are not records, and hostile records ---------------------------------------


def test_non_regular_files_are_refused_without_reading(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # opening it for reading would block until a writer came
    with pytest.raises(RecordError) as info:
        load_any(fifo)
    assert str(info.value) == (
        f"{fifo} is not a regular file (a pipe, device or socket): give the path of a saved file")
    with pytest.raises(RecordError) as info:
        load_any("/dev/zero")
    assert str(info.value).startswith("/dev/zero is not a regular file")
    with pytest.raises(RecordError) as info:
        load_any(tmp_path)
    assert str(info.value) == f"{tmp_path} is a directory: give the path of a saved file"


def test_files_over_the_cap_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    big = tmp_path / "big.json"
    with big.open("wb") as f:
        f.truncate(replay.MAX_FILE_BYTES + 1)  # sparse: no disk used
    assert run_replay(args(big)) == 2
    assert capsys.readouterr().err == (
        f"p2ptrumps replay: {big} is 67108865 bytes: too large for a match (64 MiB at most)\n")
    assert replay.read_file_limited(SAMPLE, 10**6) == SAMPLE.read_bytes()
    with pytest.raises(RecordError, match=r"is \d+ bytes: too large for a match \(0 MiB at most\)"):
        replay.read_file_limited(SAMPLE, 100)


def test_byte_order_mark_and_huge_numbers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + SAMPLE.read_bytes())
    assert replay_text(load_any(bom)) == replay_text(load_any(SAMPLE))
    text = SAMPLE.read_text(encoding="utf-8").replace('"version": 1', '"version": ' + "7" * 5000)
    huge = _write(tmp_path, "huge.json", text)
    assert run_replay(args(huge)) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"p2ptrumps replay: {huge}: not valid JSON (Exceeds the limit (4300 digits)")
    assert err.count("\n") == 1


def test_inconsistent_record_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))
    data["rules"]["deals"] = 2
    p = _write(tmp_path, "many.json", data)
    assert run_replay(args(p)) == 2
    assert capsys.readouterr().err == "p2ptrumps replay: deals: 3 deals recorded but the rules agree 2\n"


def test_text_never_writes_control_characters(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))
    data["players"][0]["name"] = "Bob\x1b[31mRED\nX"
    data["started"] = "\x1b]0;title\x07"
    p = _write(tmp_path, "evil.json", data)
    assert run_replay(args(p)) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "seat 0: Bob?[31mRED?X (human), trump ♥" in out.splitlines()
    assert out.splitlines()[0] == "p2ptrumps match (offline), started ?]0;title?"


def test_viewer_stays_on_the_last_deal_and_says_so() -> None:
    viewer = ReplayViewer(load_any(SAMPLE))
    viewer.deal(2)
    viewer.step(3)
    viewer.deal(1)
    assert (viewer.deal_index, viewer.step_index) == (2, 3)
    assert plain(render_status(viewer.status_view(), 80))[1] == " This is the last deal."
    viewer.note = ""
    viewer.deal(-5)
    assert (viewer.deal_index, viewer.step_index) == (0, 0)
    viewer.deal(-1)
    assert viewer.note == "This is the first deal."


def test_viewer_grammar_for_a_player_called_you() -> None:
    rec = load_any(SAMPLE)
    rec.players[0].name = "You"
    viewer = ReplayViewer(rec)
    assert plain(render_status(viewer.status_view(), 80))[0] == (
        " Deal 1/3, move 0/20: dealt by greedy AI; You lead.")


def test_viewer_needs_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    # Under pytest stdin is not a terminal.
    assert run_replay(args(SAMPLE, text=False)) == 2
    assert capsys.readouterr().err == (
        "p2ptrumps replay: the viewer needs a full-screen terminal: stdin is not a tty (replay --text prints the "
        "match)\n")


def test_viewer_in_a_small_terminal_says_so() -> None:
    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.output import DummyOutput

    class Small(DummyOutput):
        def get_size(self) -> Size:
            return Size(rows=12, columns=40)

    viewer = ReplayViewer(load_any(SAMPLE), output=Small())
    assert plain(viewer._render_body(40, 12))[:2] == ["terminal too small: need at least 60x20", "(now 40x12); q quits"]
    assert viewer._render_status(40, 0) == []


@pytest.mark.parametrize("width", [100, 80, 60])
def test_the_position_text_breaks_only_after_a_slash(width: int) -> None:
    """At 100 columns the position text was cut inside a field; now each line ends at a
    '/' and the lines pasted together (as a terminal copies them) read as the same position."""
    from p2ptrumps.notation import parse_position, position_text

    viewer = ReplayViewer(load_any(SAMPLE))
    viewer.step(3)
    step = viewer.current
    assert step is not None
    text = position_text(step.position)
    lines = ["".join(t for _, t in line) for line in viewer.extra_lines(width)]
    assert len(lines) >= 2 and all(len(line) <= width for line in lines)
    assert all(line.endswith("/") for line in lines[:-1])
    assert "".join(line.strip() for line in lines) == f"position {text}"
    pasted = "\n".join(lines).removeprefix(" position ")
    assert position_text(parse_position(pasted)) == text


def test_replay_analysis_with_a_node_budget_prints_the_same_every_run(capsys: pytest.CaptureFixture[str]) -> None:
    """``replay --text --analyse --nodes N``: the verdicts depend on the record and N only; a
    move the solver leaves open gets analyse's estimate, as in ``analyse``."""
    sample = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "record-sample.json"
    outputs = []
    for _ in range(2):
        assert main(["replay", str(sample), "--text", "--analyse", "--nodes", "20k", "--estimate-nodes", "20000",
                     "--depth", "4", "--ascii"]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    lines = outputs[0].splitlines()
    assert [line for line in lines if line.startswith(("    12. ", "    13. ", "    14. "))][:3] == [
        "    12. seat 1 greedy AI     beat 8S, second 9H             hands 7/6  kept the win (wins in 4)",
        "    13. seat 0 Ann           beat 10H, second QD            hands 5/6  lost whatever the move (loses in 3)",
        "    14. seat 1 greedy AI     beat 9S, second AH             hands 5/4  estimate 100% -> 89%: mistake"]


def test_the_viewer_says_no_moves_where_a_judged_deal_has_none(tmp_path: Path) -> None:
    """A deal resigned before any move, judged: the viewer's value line said nothing at all."""
    import json

    data = json.loads(SAMPLE.read_text(encoding="utf-8"))
    data["deals"][0]["moves"] = []
    data["deals"][0]["result"] = {"winner": 1, "reason": "resign"}
    path = tmp_path / "resigned.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    viewer = ReplayViewer(load_any(path))
    viewer.show_analysis = True
    viewer.analysis[viewer.deal_index] = []
    assert viewer.value_lines(80) == [[("class:dim", " no moves in this deal: nothing to judge, no value graph")]]
