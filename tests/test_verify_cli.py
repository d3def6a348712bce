"""``p2ptrumps verify LOG [--json]`` over the vectors: exit codes and what it prints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2ptrumps.cli import main

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
        "deals", "score", "waiting", "forfeit", "reconnections", "left", "forfeited",
    ]
    assert (out["format"], out["version"], out["status"], out["frames"], out["messages"]) == (
        "p2ptrumps-verdict", 1, "valid", 16, 14)
    assert out["deals"] == [{"number": 1, "dealer": 0, "seed": out["deals"][0]["seed"], "winner": 1,
                             "reason": "resign"}]
    assert out["score"] == [0.0, 1.0] and out["waiting"] is None and out["forfeit"] is None
