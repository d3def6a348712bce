"""Fuzzing the record reader: whatever a file holds, loading and replaying it raises
:class:`RecordError` or nothing (protocol/record.md §6) — never another exception."""

from __future__ import annotations

import contextlib
import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2ptrumps.record import MatchRecord, RecordError
from p2ptrumps.ui.replay import load_any, replay_steps, replay_text

SAMPLE = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "record-sample.json"
SAMPLE_TEXT = SAMPLE.read_text(encoding="utf-8")
SAMPLE_JSON: dict[str, Any] = json.loads(SAMPLE_TEXT)

#: Hostile JSON values: wrong types, edge numbers, long and odd text, nesting.
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=70),
    st.sampled_from([10**30, -(10**30), 2**63, 0.5, 36.0, 1e308, -0.0]),
    st.text(max_size=12),
    st.sampled_from(["", "H", "X", "10H", "TS/7H", "pickup", "00", "zz", "out", "resign", "\x1b[31m", "ÿ" * 70]),
)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
    st.sampled_from(["winner", "reason", "name", "number", "seed", "x"]), inner, max_size=3), max_leaves=8)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


PATHS = _paths(SAMPLE_JSON)[1:]


def _full_read(data: Any) -> None:
    rec = MatchRecord.from_json(data)
    replay_steps(rec)  # replays every deal and runs MatchRecord.check
    replay_text(rec)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(PATHS), st.booleans(), VALUES), min_size=1, max_size=3))
def test_mutated_records_raise_only_record_error(mutations: list[tuple[tuple[Any, ...], bool, Any]]) -> None:
    data = copy.deepcopy(SAMPLE_JSON)
    for path, delete, value in mutations:
        node: Any = data
        try:
            for key in path[:-1]:
                node = node[key]
            if delete and isinstance(node, dict):
                del node[path[-1]]
            else:
                node[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed this path
    with contextlib.suppress(RecordError):
        _full_read(data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(min_value=0, max_value=len(SAMPLE_TEXT)), st.integers(min_value=0, max_value=40),
       st.sampled_from(["", "9" * 5000, "[" * 100_000, "NaN", "\x00", "\ufeff", '"', "}", "1e999", "\\ud800"]))
def test_mutated_files_raise_only_record_error(tmp_path_factory: Any, at: int, cut: int, insert: str) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "rec.json"
    path.write_text(SAMPLE_TEXT[:at] + insert + SAMPLE_TEXT[at + cut:], encoding="utf-8", errors="surrogatepass")
    with contextlib.suppress(RecordError):
        _full_read(json.loads(json.dumps(MatchRecord.load(path).to_json())))
    with contextlib.suppress(RecordError):
        replay_steps(load_any(path))
