"""What machines read does not change with the language (ARCHITECTURE.md, "Languages"): the same
commands run in English, Russian and Vietnamese (fresh processes: ``--lang``, ``LANGUAGE``) print the
same ``--json`` bytes, exit with the same status and write the same files, byte for byte; only the
text for people differs (the witness that the language did change)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "protocol" / "vectors"
LOG = VECTORS / "clock" / "claim-between-deals.log"
RECORD = VECTORS / "record-sample.json"
POSITION = "v1/SH/6S7SKS/9D6H/9CTC/0/12"
#: English by the environment, Russian by --lang, Vietnamese by the environment.
SPEAKERS = [(["--lang", "en"], {}), (["--lang", "ru"], {}), ([], {"LANGUAGE": "vi"})]


def _run(words: list[str], speaker: tuple[list[str], dict[str, str]], home: Path) -> tuple[int, bytes, bytes]:
    option, env = speaker
    done = subprocess.run([sys.executable, "-m", "p2ptrumps", *option, *words], capture_output=True, timeout=120,
                          env={**os.environ, "XDG_DATA_HOME": str(home), "LANGUAGE": "en", **env}, cwd=home.parent)
    return done.returncode, done.stdout, done.stderr


def _same_in_every_language(words: list[str], tmp_path: Path) -> tuple[int, bytes]:
    """Run ``words`` for each speaker in a home of its own (``tmp_path/<i>``, named ``HOME`` in what is
    compared); the status and stdout, which must be the same for all."""
    results = []
    for i, speaker in enumerate(SPEAKERS):
        home = tmp_path / str(i)
        home.mkdir(parents=True, exist_ok=True)
        status, out, err = _run(words, speaker, home)
        results.append((status, out.replace(str(home).encode(), b"HOME"), err))
    assert len({r[0] for r in results}) == 1, (words, results)
    assert len({r[1] for r in results}) == 1, words
    return results[0][0], results[0][1]


def test_verify_json_is_the_same_in_every_language(tmp_path: Path) -> None:
    status, out = _same_in_every_language(["verify", "--json", str(LOG)], tmp_path)
    assert status == 0 and out.startswith(b"{")
    tampered = tmp_path / "tampered.log"
    data = bytearray(LOG.read_bytes())
    data[len(data) // 2] ^= 0x01
    tampered.write_bytes(bytes(data))
    status, out = _same_in_every_language(["verify", "--json", str(tampered)], tmp_path / "t")
    assert status == 1 and b'"status": "invalid"' in out


def test_solve_json_is_the_same_in_every_language(tmp_path: Path) -> None:
    status, out = _same_in_every_language(["solve", "--json", "--nodes", "2000", POSITION], tmp_path)
    assert status == 0 and b'"verdict": "draw"' in out


def test_history_json_and_its_cache_are_the_same_in_every_language(tmp_path: Path) -> None:
    homes = []
    for i in range(len(SPEAKERS)):
        data = tmp_path / str(i) / "p2ptrumps"
        (data / "records").mkdir(parents=True)
        (data / "logs").mkdir()
        shutil.copy2(RECORD, data / "records" / RECORD.name)  # the same bytes and times in every home
        shutil.copy2(LOG, data / "logs" / "2026-01-01_1200_host_vs-Gus.p2plog")
        # files that are no match: their faults are said in English in --json and in the cache
        bad = json.loads(RECORD.read_text(encoding="utf-8"))
        bad["deals"][0]["moves"][3] = "7S"
        (data / "records" / "bad.json").write_text(json.dumps(bad), encoding="utf-8")
        (data / "records" / "cut.json").write_text(RECORD.read_text(encoding="utf-8")[:200], encoding="utf-8")
        (data / "logs" / "junk.p2plog").write_bytes(b"junk")
        for written in ("records/bad.json", "records/cut.json", "logs/junk.p2plog"):
            os.utime(data / written, ns=(1_767_225_600 * 10**9, 1_767_225_600 * 10**9))  # the same in every home
        homes.append(data)
    status, out = _same_in_every_language(["history", "--json"], tmp_path)
    assert status == 0 and b'"matches"' in out
    assert b'"why": "damaged record: deal 1, move 4 (7S): the pile is not empty: beat 7\xe2\x99\xa3 or pick up"' in out
    caches = {(home / "history.json").read_bytes() for home in homes}
    assert len(caches) == 1
    assert b"damaged record: the JSON stops early" in caches.pop()


def test_arena_writes_the_same_records_in_every_language(tmp_path: Path) -> None:
    written = []
    for i, speaker in enumerate(SPEAKERS):
        home = tmp_path / str(i)
        home.mkdir()
        status, _out, _err = _run(["arena", "random", "greedy", "--deals", "1", "--seed", "7", "--log-dir",
                                   str(home / "games")], speaker, home)
        assert status == 0
        # the one field that is the clock's, not the language's: when the game started
        written.append({p.name: re.sub(rb'"started": "[^"]*"', b"", p.read_bytes())
                        for p in sorted((home / "games").iterdir())})
    assert len(written[0]) == 2 and written[0] == written[1] == written[2]


@pytest.mark.parametrize("words", [["play", "--seed", "x"], ["solve", "--threads", "0", POSITION], ["nosuch"]])
def test_a_fault_has_the_same_status_and_its_own_words(words: list[str], tmp_path: Path) -> None:
    results = []
    for i, speaker in enumerate(SPEAKERS):
        (tmp_path / str(i)).mkdir()
        results.append(_run(words, speaker, tmp_path / str(i)))
    assert {r[0] for r in results} == {2}
    assert len({r[2] for r in results}) == 3  # said three ways
