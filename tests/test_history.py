"""``p2ptrumps history``: the list of matches, the summary per opponent, the index cache."""

from __future__ import annotations

import json
import os
import shutil
from datetime import date
from pathlib import Path

import pytest

from p2ptrumps.commands.history import INDEX_NAME, format_text, load_history, matches, tally
from p2ptrumps.commands.main import main
from p2ptrumps.rules import RuleSet
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.testing import ConnectionPair, fixed_bytes

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"
GUEST_FP = Identity.from_seed(fixed_bytes("guest/key")).fingerprint
HOST_FP = Identity.from_seed(fixed_bytes("host/key")).fingerprint


@pytest.fixture(scope="module")
def pair_logs() -> tuple[bytes, bytes]:
    pair = ConnectionPair(RuleSet(deals=2))
    pair.run()
    return pair.host.log_bytes(), pair.guest.log_bytes()


def _data(tmp_path: Path, pair_logs: tuple[bytes, bytes]) -> Path:
    """A data directory: three offline records, the host's log of a 2-deal match, that log with one
    byte changed, and a file that is no match log."""
    data = tmp_path / "data"
    (data / "records").mkdir(parents=True)
    (data / "logs").mkdir()
    shutil.copy(VECTORS / "record-sample.json", data / "records" / "2025-01-01_1200_vs-greedy.json")
    shutil.copy(VECTORS / "record-unfinished.json", data / "records" / "2025-01-01_1300_vs-greedy.json")
    position = json.loads((VECTORS / "record-position.json").read_text(encoding="utf-8"))
    position["started"] = "2025-02-01T09:00:00Z"
    (data / "records" / "2025-02-01_0900_vs-greedy.json").write_text(json.dumps(position), encoding="utf-8")
    (data / "logs" / "2025-03-01_1805_host_vs-guest.p2plog").write_bytes(pair_logs[0])
    bad = bytearray(pair_logs[0])
    bad[len(bad) // 2] ^= 0x01
    (data / "logs" / "2025-03-02_1805_host_vs-guest.p2plog").write_bytes(bytes(bad))
    (data / "logs" / "notes.txt").write_text("not a log", encoding="utf-8")
    return data


def test_every_match_is_listed_with_its_result_and_check(tmp_path: Path, pair_logs: tuple[bytes, bytes]) -> None:
    data = _data(tmp_path, pair_logs)
    history = load_history(data)
    got = [(e.path, e.kind, e.opponent_label, e.rules, e.score, e.result, e.counts) for e in history.entries]
    host_log = pair_logs[0]
    assert host_log  # the log of a complete two-deal match
    assert got[:3] == [
        ("logs/2025-03-02_1805_host_vs-guest.p2plog", "network", f"guest ({GUEST_FP[:4]})", "", (0.0, 0.0),
         "unfinished", False),
        ("logs/2025-03-01_1805_host_vs-guest.p2plog", "network", f"guest ({GUEST_FP[:4]})", "36 cards, 2 deals",
         got[1][4], got[1][5], True),
        ("records/2025-02-01_0900_vs-greedy.json", "offline", "AI greedy", "36 cards, 1 deal", (0.0, 1.0), "lost",
         True),
    ]
    assert got[3:] == [
        ("records/2025-01-01_1300_vs-greedy.json", "offline", "AI greedy", "36 cards, 2 deals", (0.5, 0.5),
         "unfinished", False),
        ("records/2025-01-01_1200_vs-greedy.json", "offline", "AI greedy", "36 cards, 3 deals", (0.5, 2.5), "lost",
         True),
    ]
    assert history.entries[0].check.startswith("invalid: ")
    assert [e.check for e in history.entries[1:]] == ["verified", "record", "record", "record"]
    assert history.entries[1].opponent_id == GUEST_FP
    assert history.entries[1].me == "host"
    # the verified network result is the host's side of the verified score
    mine, theirs = history.entries[1].score
    assert mine + theirs == 2.0
    assert history.entries[1].result == ("won" if mine > theirs else "lost" if mine < theirs else "drawn")
    assert history.read == 5


def test_the_summary_counts_only_what_checks_and_adds_up(tmp_path: Path, pair_logs: tuple[bytes, bytes]) -> None:
    history = load_history(_data(tmp_path, pair_logs))
    tallies = {t.opponent: t for t in tally(history.entries)}
    greedy = tallies["AI greedy"]
    assert (greedy.played, greedy.won, greedy.drawn, greedy.lost, greedy.streak) == (2, 0, 0, 2, "L2")
    guest = tallies[f"guest ({GUEST_FP[:4]})"]
    assert guest.played == 1 and guest.won + guest.drawn + guest.lost == 1
    assert guest.streak == {"won": "W1", "drawn": "D1", "lost": "L1"}[history.entries[1].result]
    assert sum(t.played for t in tallies.values()) == sum(e.counts for e in history.entries) == 3


def test_the_index_is_used_and_rebuilt_when_stale(tmp_path: Path, pair_logs: tuple[bytes, bytes]) -> None:
    data = _data(tmp_path, pair_logs)
    first = load_history(data)
    assert (data / INDEX_NAME).is_file()
    again = load_history(data)
    assert again.read == 0
    assert [e.to_json() for e in again.entries] == [e.to_json() for e in first.entries]
    # a changed file is read again, and only that one
    changed = data / "records" / "2025-01-01_1300_vs-greedy.json"
    record = json.loads((VECTORS / "record-sample.json").read_text(encoding="utf-8"))
    record["started"] = "2025-01-01T13:00:00Z"
    changed.write_text(json.dumps(record), encoding="utf-8")
    os.utime(changed, ns=(1, 1))
    third = load_history(data)
    assert third.read == 1
    assert [e.result for e in third.entries if e.path.endswith("1300_vs-greedy.json")] == ["lost"]
    # a removed file leaves the list; a damaged index is rebuilt from the files
    (data / "records" / "2025-02-01_0900_vs-greedy.json").unlink()
    (data / INDEX_NAME).write_text("{not json", encoding="utf-8")
    fourth = load_history(data)
    assert (fourth.read, len(fourth.entries)) == (4, 4)


def test_filters_by_opponent_and_day(tmp_path: Path, pair_logs: tuple[bytes, bytes]) -> None:
    entries = load_history(_data(tmp_path, pair_logs)).entries
    assert [e.path for e in entries if matches(e, "greedy", None)] == [
        "records/2025-02-01_0900_vs-greedy.json", "records/2025-01-01_1300_vs-greedy.json",
        "records/2025-01-01_1200_vs-greedy.json"]
    by_fp = [e.path for e in entries if matches(e, GUEST_FP[:9].lower().replace("-", " "), None)]
    assert by_fp == ["logs/2025-03-02_1805_host_vs-guest.p2plog", "logs/2025-03-01_1805_host_vs-guest.p2plog"]
    assert [e.path for e in entries if matches(e, None, date(2025, 2, 1))] == [
        "logs/2025-03-02_1805_host_vs-guest.p2plog", "logs/2025-03-01_1805_host_vs-guest.p2plog",
        "records/2025-02-01_0900_vs-greedy.json"]


def test_the_command_prints_the_list_and_json(tmp_path: Path, pair_logs: tuple[bytes, bytes],
                                              monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    data = _data(tmp_path / "xdg", pair_logs)
    target = tmp_path / "xdg" / "p2ptrumps"
    data.rename(target)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert main(["history", "--opponent", "greedy"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"3 matches in {target}"
    assert "1 not counted below (unfinished, or the file does not check)." in out
    assert main(["history"]) == 0
    damaged = [ln for ln in capsys.readouterr().out.splitlines() if "invalid: " in ln]
    assert len(damaged) == 1 and damaged[0].endswith("(logs/2025-03-02_1805_host_vs-guest.p2plog)")  # named
    assert out.splitlines()[-2:] == [
        "opponent   played  won  drawn  lost  undecided  disputes  outages you/them  abandoned you/them  streak",
        "AI greedy  2       0    0      2     0          -         -                 -                   L2"]
    assert main(["history", "--json", "--since", "2025-03-01"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [(m["path"], m["check"].split(":")[0]) for m in doc["matches"]] == [
        (str(target / "logs" / "2025-03-02_1805_host_vs-guest.p2plog"), "invalid"),
        (str(target / "logs" / "2025-03-01_1805_host_vs-guest.p2plog"), "verified")]
    assert [t["opponent_id"] for t in doc["opponents"]] == [GUEST_FP]


def test_an_empty_data_directory_and_a_bad_day(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert main(["history"]) == 0
    assert capsys.readouterr().out == (f"no matches in {tmp_path / 'p2ptrumps'} "
                                       "(offline records in records/, match logs in logs/)\n")
    with pytest.raises(SystemExit) as stop:
        main(["history", "--since", "yesterday"])
    assert stop.value.code == 2
    assert "--since: 'yesterday' is not a day as YYYY-MM-DD" in capsys.readouterr().err


def test_a_rematch_in_the_same_minute_is_the_newer_match() -> None:
    """Two logs of one minute, ``…-Gus.p2plog`` then its rematch ``…-Gus-2.p2plog`` (``-10`` after
    ``-9``): the list is newest first and the streak counts from the rematch.  Text order put
    ``-2`` before ``.``, so the rematch was listed (and streaked) as the older match."""
    from p2ptrumps.commands.history import Entry, newest_order

    def entry(suffix: str, result: str) -> Entry:
        return Entry(f"logs/2026-11-29_1805_host_vs-Gus{suffix}.p2plog", "network", started="2026-11-29T17:05:00Z",
                     opponent="Gus", opponent_id="GUSKEY", result=result, counts=True)

    entries = [entry("", "drawn"), entry("-2", "won"), entry("-10", "lost"), entry("-9", "lost")]
    assert [e.path.removeprefix("logs/2026-11-29_1805_host_vs-") for e in sorted(entries, key=newest_order,
                                                                                reverse=True)] == [
        "Gus-10.p2plog", "Gus-9.p2plog", "Gus-2.p2plog", "Gus.p2plog"]
    assert [(t.played, t.streak) for t in tally(entries)] == [(4, "L2")]
    assert [(t.played, t.streak) for t in tally(entries[:2])] == [(2, "W1")]


def test_files_that_are_no_match_are_named_apart_never_as_a_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Garbage and foreign files in records/ and logs/ were rows "?  ?  ?  unfinished  damaged record: …"
    that looked like games; now each is one line after the summary saying why, and --json lists them
    under ``not_matches``."""
    data = tmp_path / "p2ptrumps"
    (data / "records").mkdir(parents=True)
    (data / "logs").mkdir()
    sample = (VECTORS / "record-sample.json").read_bytes()
    (data / "records" / "2025-01-01_1200_vs-greedy.json").write_bytes(sample)
    (data / "records" / "cut.json").write_bytes(sample[:300])
    (data / "records" / "notes.json").write_text("shopping: milk\n", encoding="utf-8")
    (data / "records" / "package.json").write_text('{"name": "left-pad", "version": "1.0"}', encoding="utf-8")
    (data / "records" / "photo.json").write_bytes(b"\xff\xd8\xff\xe0 JFIF")
    (data / "logs" / "x.p2plog").write_bytes(b"hello")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    cut_at = json.JSONDecodeError("", sample[:300].decode(), 300)
    for _ in range(2):  # read from the files, then from the index
        assert main(["history"]) == 0
        assert capsys.readouterr().out.splitlines() == [
            f"1 match in {data}",
            "",
            "date              opponent   rules              result     check",
            f"{history_when('2025-01-01T12:00:00Z')}  AI greedy  36 cards, 3 deals  lost ½-2½  record",
            "",
            "per opponent:",
            "opponent   played  won  drawn  lost  undecided  disputes  outages you/them  abandoned you/them  streak",
            "AI greedy  1       0    0      1     0          -         -                 -                   L1",
            "",
            "5 files in records/ and logs/ are not match files (not listed, not counted):",
            "  logs/x.p2plog: not a match log (it does not start as one)",
            f"  records/cut.json: damaged record: the JSON stops early at line {cut_at.lineno} column {cut_at.colno}",
            "  records/notes.json: not a record: not JSON (Expecting value at line 1 column 1)",
            "  records/package.json: not a record: JSON, but not a p2ptrumps-record file",
            "  records/photo.json: not a record: not UTF-8 text",
        ]
    assert main(["history", "--opponent", "random"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"no matches in {data} (offline records in records/, match logs in logs/)",
        "",
        "5 files in records/ and logs/ are not match files (listed by `p2ptrumps history` without --opponent "
        "and --since)."]
    assert main(["history", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [m["path"] for m in doc["matches"]] == [str(data / "records" / "2025-01-01_1200_vs-greedy.json")]
    assert [(m["path"].removeprefix(str(data) + "/"), m["why"].split(":")[0]) for m in doc["not_matches"]] == [
        ("logs/x.p2plog", "not a match log (it does not start as one)"), ("records/cut.json", "damaged record"),
        ("records/notes.json", "not a record"), ("records/package.json", "not a record"),
        ("records/photo.json", "not a record")]


def history_when(started: str) -> str:
    from p2ptrumps.commands.history import _when

    return _when(started)


def test_a_match_left_early_counts_its_signed_score_with_the_forfeited_deals(tmp_path: Path) -> None:
    """The guest leaves in deal 1 of 2 (wire.md §15): deal 1 is its resignation, deal 2 forfeited, and
    both sign 2-0.  history said "won 1-0" (only the deal played), where verify says 2-0."""
    data = tmp_path / "data"
    (data / "logs").mkdir(parents=True)
    shutil.copy(VECTORS / "wire" / "leave-in-play.log", data / "logs" / "2025-03-01_1805_host_vs-guest.p2plog")
    [entry] = load_history(data).entries
    assert (entry.check, entry.score, entry.result, entry.counts) == ("verified", (2.0, 0.0), "won", True)


def test_copies_of_one_match_count_once(tmp_path: Path, pair_logs: tuple[bytes, bytes]) -> None:
    """A log copied beside itself (as before a resume from a copy) and a record saved twice were two
    matches each in the rows' counts and the summary; now the copy is a row that does not count."""
    data = _data(tmp_path, pair_logs)
    shutil.copy(data / "logs" / "2025-03-01_1805_host_vs-guest.p2plog", data / "logs" / "backup.p2plog")
    shutil.copy(data / "records" / "2025-02-01_0900_vs-greedy.json", data / "records" / "zz-copy.json")
    history = load_history(data)
    by_path = {e.path: e for e in history.entries}
    assert (by_path["logs/backup.p2plog"].counts, by_path["logs/backup.p2plog"].check) == (
        False, "a copy of logs/2025-03-01_1805_host_vs-guest.p2plog (one match, counted once)")
    assert (by_path["records/zz-copy.json"].counts, by_path["records/zz-copy.json"].check) == (
        False, "a copy of records/2025-02-01_0900_vs-greedy.json (one match, counted once)")
    assert by_path["logs/2025-03-01_1805_host_vs-guest.p2plog"].counts
    tallies = {t.opponent: t for t in tally(history.entries)}
    assert (tallies["AI greedy"].played, tallies[f"guest ({GUEST_FP[:4]})"].played) == (2, 1)  # as without copies
    assert "4 not counted below (unfinished, or the file does not check, or a copy of a match counted)." in (
        format_text(history, history.entries))
    # the damaged copy of the log names the same match, but does not check: it was never counted
    assert by_path["logs/2025-03-02_1805_host_vs-guest.p2plog"].check.startswith("invalid: ")
