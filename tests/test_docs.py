"""The documents a user reads say what the code does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from p2ptrumps.cli import COMMANDS, build_parser

ROOT = Path(__file__).resolve().parent.parent


def test_rules_copy_matches_the_rule_book_of_record() -> None:
    shared = ROOT.parent / "shared" / "RULES.md"
    if not shared.exists():
        pytest.skip("shared/RULES.md is not beside this checkout")
    copy = (ROOT / "protocol" / "RULES.md").read_text(encoding="utf-8")
    header, _, body = copy.partition("\n")
    assert header.startswith("<!-- A verbatim copy")
    assert body == shared.read_text(encoding="utf-8")


def test_the_installed_rule_book_is_the_protocol_copy() -> None:
    from p2ptrumps.ui.rulebook import rule_book

    copy = (ROOT / "protocol" / "RULES.md").read_text(encoding="utf-8")
    assert rule_book() == copy.partition("\n")[2]
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"p2ptrumps.ui" = ["RULES.md"]' in pyproject  # installed as package data


def test_readme_gives_the_two_setup_commands_and_ci_runs_the_test_one() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)\n```", readme, flags=re.S)
    assert blocks[:2] == [
        "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/p2ptrumps play",
        "python3 -m venv .venv && .venv/bin/pip install '.[test]' && .venv/bin/python -m pytest",
    ]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "python3 -m venv .venv && .venv/bin/pip install -q '.[test]'" in ci
    assert ".venv/bin/python -m pytest" in ci


def test_every_subcommand_has_help_and_a_target() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert sorted(sub.choices) == sorted(COMMANDS)  # type: ignore[arg-type]
    for name in COMMANDS:
        with pytest.raises(SystemExit) as exc:
            parser.parse_args([name, "--help"])
        assert exc.value.code == 0
