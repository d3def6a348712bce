"""``p2ptrumps verify LOG [OTHER_LOG] [--json]`` over the vectors: exit codes and what it prints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2ptrumps.commands.main import main

WIRE = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "wire"


def test_valid_log_prints_players_rules_deals_score(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(WIRE / "valid-host.log")]) == 0
    out = capsys.readouterr().out
    assert "VALID: the match is complete" in out
    assert "seat 0 (host): host  fingerprint FUGV-REOI-FFMR-732D-2R4T-KNXL-BRUX-7JNS" in out
    assert "rules: 32 cards, sixes on, must beat, repetition 3, limit 1000 turns, 2 deals" in out
    assert "deal 1: dealer seat 0, drawn (repetition)" in out
    assert "score: 1 - 1" in out


def test_invalid_log_names_first_offence(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(WIRE / "invalid-illegal-move.log")]) == 1
    out = capsys.readouterr().out
    assert "INVALID: frame #12: the guest's move pickup in deal 1 is illegal" in out
    assert "first offending frame: #12 in the log, signed by seat 1 (guest): proven; fault: illegal-move" in out


def test_unfinished_log_exit_3(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(WIRE / "unfinished-mid-deal.log"), "--json"]) == 3
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "unfinished"
    assert out["waiting"] == {"seat": 1, "what": "move"}


@pytest.mark.parametrize("content", [b"", b"hello world", b"p2ptrumps-log/9\n"])
def test_unreadable_exit_2(tmp_path: Path, content: bytes, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "x.log"
    p.write_bytes(content)
    assert main(["verify", str(p)]) == 2
    assert "UNREADABLE" in capsys.readouterr().out


def test_missing_file_is_unreadable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(tmp_path / "nope.log"), "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["status"] == "unreadable"


def test_header_only_is_unreadable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "h.log"
    p.write_bytes(b"p2ptrumps-log/1\n")
    assert main(["verify", str(p)]) == 2
    assert "no handshake" in capsys.readouterr().out


def test_verify_points_a_game_record_at_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "game.json"
    record.write_text('{"format": "p2ptrumps-record"}\n')
    assert main(["verify", str(record)]) == 2
    assert capsys.readouterr().out == (
        f"{record}: UNREADABLE: this looks like an offline game record (JSON), not a match log: "
        "verify checks the signed logs of networked matches; `p2ptrumps replay FILE` checks and shows a record\n"
    )


def test_verify_points_a_resume_file_at_its_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    resume = tmp_path / "m.p2plog.resume"
    resume.write_text('{\n "format": "p2ptrumps-resume",\n "version": 1\n}\n')
    assert main(["verify", str(resume)]) == 2
    assert capsys.readouterr().out == (
        f"{resume}: UNREADABLE: this is a resume file (the deal secrets a peer keeps to go on after a restart, "
        f"protocol/files.md), not a match log: verify {tmp_path / 'm.p2plog'}\n")


def test_verify_a_directory_names_the_path_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(tmp_path)]) == 2
    assert capsys.readouterr().out == f"UNREADABLE: {tmp_path} is a directory: give the path of a saved file\n"
    assert main(["verify", str(tmp_path / "nope.log")]) == 2
    out = capsys.readouterr().out
    assert out.count(str(tmp_path / "nope.log")) == 1 and out.startswith("UNREADABLE: cannot read ")


def test_verify_json_is_the_versioned_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    """protocol/verify.md §5: every member, in order."""
    assert main(["verify", str(WIRE / "valid-short.log"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == [
        "format", "version", "log", "status", "exit_code", "reason", "code", "index", "offender", "offender_proven",
        "frames", "messages", "superseded", "withdrawn", "truncated_bytes", "game_id", "players", "rules", "trumps",
        "deals", "score", "waiting", "forfeit", "reconnections", "left", "forfeited", "claims",
        "disputed_deals", "abandonments", "outages", "winner", "decided",
    ]
    assert out["claims"] == [] and out["rules"]["move_time"] == 0
    assert (out["disputed_deals"], out["abandonments"], out["outages"], out["winner"], out["decided"]) == (
        [], [], [0, 0], 1, True)
    assert (out["format"], out["version"], out["status"], out["frames"], out["messages"]) == (
        "p2ptrumps-verdict", 1, "valid", 16, 14)
    assert out["deals"] == [{"number": 1, "dealer": 0, "seed": out["deals"][0]["seed"], "winner": 1,
                             "reason": "resign"}]
    assert out["score"] == [0.0, 1.0] and out["waiting"] is None and out["forfeit"] is None


def test_two_logs_of_one_match(capsys: pytest.CaptureFixture[str]) -> None:
    host, guest = str(WIRE / "unfinished-mid-deal.log"), str(WIRE / "valid-guest.log")
    assert main(["verify", host, guest]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        f"VALID: two logs of one game, one chain: the chain of {host} (28 messages) is a prefix of the chain of "
        f"{guest} (362); the match is complete and every message checks")
    assert lines[1] == (f"  {host} (the host's log): VALID SO FAR, UNFINISHED: the log stops after message 27 "
                        "(move) in deal 1; seat 1 (guest) was to act: move")
    assert lines[2] == f"  {guest} (the guest's log): VALID: the match is complete and every message checks."
    assert lines[3] == f"the joined chain, {guest}:"
    assert "score: 1 - 1" in lines


def test_two_logs_equivocation_names_both_frames_and_the_seat(capsys: pytest.CaptureFixture[str]) -> None:
    a, b = str(WIRE / "pair-guest-equivocates-host-log.log"), str(WIRE / "pair-guest-equivocates-guest-log.log")
    assert main(["verify", a, b]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        f"INVALID: equivocation: the guest (seat 1) signed two different messages for place 10 on one history -- "
        f"{a} frame #12 (message 10, chat) and {b} frame #12 (message 10, chat); proven by its signatures")
    assert lines[-1] == "game id: 2ac4dd8724441656e0d4fe8975f372fa27cf2ea13decca88f3589a516dabb903"


def test_two_logs_of_different_games_is_one_line_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    a, b = str(WIRE / "valid-host.log"), str(WIRE / "text-emoji-valid.log")
    assert main(["verify", a, b]) == 2
    assert capsys.readouterr().out == (
        f"DIFFERENT GAMES: {a} is game 2ac4dd8724441656…, {b} is game b2f3cb749e84371d…: not two logs of one "
        "match\n")


def test_two_logs_one_missing_is_unreadable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.log"
    assert main(["verify", str(WIRE / "valid-host.log"), str(missing), "--json"]) == 2
    out = json.loads(capsys.readouterr().out)
    assert (out["format"], out["status"], out["exit_code"]) == ("p2ptrumps-verdict-pair", "unreadable", 2)
    assert out["verdicts"][0]["status"] == "valid" and out["verdicts"][1]["status"] == "unreadable"
    assert out["reason"].startswith("log 1: cannot read ")
    assert main(["verify", str(WIRE / "valid-host.log"), str(missing)]) == 2
    assert capsys.readouterr().out.count("\n") == 1


def test_verify_json_of_two_logs_is_the_versioned_pair_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    """protocol/verify.md §7: every member, in order."""
    a, b = str(WIRE / "valid-short.log"), str(WIRE / "pair-short-guest.log")
    assert main(["verify", a, b, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == [
        "format", "version", "logs", "status", "exit_code", "reason", "code", "offender", "offender_proven",
        "evidence", "game_id", "relation", "common", "leading", "messages", "verdicts",
    ]
    assert (out["format"], out["version"], out["logs"], out["relation"], out["messages"]) == (
        "p2ptrumps-verdict-pair", 1, [a, b], "same", 14)
    assert [v["log"] for v in out["verdicts"]] == [a, b]
    assert [v["format"] for v in out["verdicts"]] == ["p2ptrumps-verdict"] * 2
