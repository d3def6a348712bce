"""The documents a user reads say what the code does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from p2ptrumps.commands.main import COMMANDS, build_parser

ROOT = Path(__file__).resolve().parent.parent


def test_the_installed_rule_book_is_the_protocol_copy() -> None:
    from p2ptrumps.ui.rulebook import rule_book

    copy = (ROOT / "protocol" / "RULES.md").read_text(encoding="utf-8")
    header, _, body = copy.partition("\n")
    assert header.startswith("<!-- The rule book of record;") and body.startswith("# Your own trumps")
    assert rule_book() == body
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"p2ptrumps.ui" = ["RULES.md"]' in pyproject  # installed as package data


def test_readme_gives_the_two_setup_commands_and_ci_runs_the_test_one() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)\n```", readme, flags=re.S)
    assert blocks[:2] == [
        "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/p2ptrumps play",
        "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest",
    ]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]'" in ci
    assert ".venv/bin/python -m pytest" in ci


def test_every_subcommand_has_help_and_a_target() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert sorted(sub.choices) == sorted(COMMANDS)  # type: ignore[arg-type]
    for name in COMMANDS:
        with pytest.raises(SystemExit) as exc:
            parser.parse_args([name, "--help"])
        assert exc.value.code == 0


def test_the_readme_synopsis_names_every_option_of_every_command() -> None:
    """Each command's line in the README's synopsis names each of its options (``[rule options]``
    stands for the rule variants); it missed ``host --trump``, ``resume --no-map``, ``analyse
    --estimate-nodes`` and others that ``--help`` lists."""
    import argparse

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```\n(p2ptrumps play .*?)\n```", readme, flags=re.S)
    assert block is not None
    lines = {m[1]: m[0] for m in re.finditer(r"^p2ptrumps (\w+) .*$", block[1], flags=re.M)}
    rules = {"--deals", "--pack", "--no-sixes", "--voluntary-pickup", "--repetition", "--turn-limit"}
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    missing = []
    for name, parser in sub.choices.items():  # type: ignore[union-attr]
        line = lines.get(name, "")
        for action in parser._actions:
            for opt in action.option_strings:
                if not opt.startswith("--") or opt == "--help" or action.help == argparse.SUPPRESS:
                    continue
                if opt in rules and "[rule options]" in line:
                    continue
                if opt == "--lang" and name != "id" and "Every command also takes `--lang CODE`" in readme:
                    continue
                if not re.search(re.escape(opt) + r"(?![\w-])", line):
                    missing.append(f"{name} {opt}")
    assert missing == []


def test_no_help_text_shows_a_doubled_percent_sign() -> None:
    """argparse %-formats help strings but not descriptions: a ``%%`` in a description shows as is."""
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    texts = {name: p.format_help() for name, p in sub.choices.items()}  # type: ignore[union-attr]
    assert [name for name, text in texts.items() if "%%" in text] == []
    assert "with a 95% interval" in " ".join(texts["arena"].split())


def _section_tables(doc: str, heading: str) -> dict[str, str]:
    """The first two cells of every table row of the section of ``doc`` that starts with ``heading``."""
    text = (ROOT / "protocol" / doc).read_text(encoding="utf-8").split(heading, 1)[1].split("\n## ", 1)[0]
    rows = [line.strip("|").split("|") for line in text.splitlines() if line.startswith("| ")]
    return {cells[0].strip(): cells[1].strip() for cells in rows if len(cells) >= 2}


def test_the_bounds_of_wire_md_17_and_9_7_are_the_code_constants() -> None:
    """Every deadline and cap that protocol/wire.md §17 (and the chat limits of §9.7) states is the
    value the reference peer uses."""
    from p2ptrumps.net import admission, clock, config, lobby, secure, transport
    from p2ptrumps.wire import chain, framing, referee

    host = build_parser().parse_args(["host"])
    s = "{:g} s".format
    assert _section_tables("wire.md", "## 17.") == {
        "wait": "deadline",
        "a frame, from its first byte to its last": s(config.FRAME_TIME_S),
        "the encrypted handshake, from the connection":
            s(secure.HANDSHAKE_TIME_S) + " (for a host: within the hello's)",
        "the peer's hello, from the connection": s(config.HELLO_TIMEOUT_S),
        "the host's `rules` proposal, from its hello (the guest waits)": s(config.HELLO_TIMEOUT_S),
        "the guest's `agree`, from the `rules` (the host waits; a person reads the fingerprint and the rules)":
            s(config.AGREE_WAIT_S),
        "a `resume` exchange, from the new connection to a proof that checks out": s(config.RESUME_TIME_S),
        "the trump choice, each commitment and reveal, each move":
            f"`move_time` ({config.NO_CLOCK_LIMIT_S:g} s when it is 0) + {s(clock.CLAIM_GRACE_S)}, counted on "
            "round trips (§16)",
        "a `deal-end` or `match-end` statement (sent by the program at once)": s(config.STATEMENT_WAIT_S),
        "an answer to our `rematch`": s(config.REMATCH_WAIT_S),
        "the peer's close after the match, the statements after our `leave`": s(transport.CLOSE_WAIT_S),
        "silence (no bytes at all, not even a heartbeat)": f"{s(host.timeout)} (`--timeout`)",
        "one write to the peer (it does not read)": f"{s(host.timeout)} (`--timeout`)",
        "the peer's return after a lost link": f"{s(host.reconnect_wait)} (`--reconnect-wait`)",
        "resource": "cap",
        "connections whose first frame is not read yet (the doorway, §7.3)":
            f"{lobby.MAX_DOORWAY}, at most {lobby.DOORWAY_SHARE} from one network prefix (/{admission.IPV6_PREFIX} "
            f"for IPv6, /{admission.IPV4_PREFIX} for IPv4 unless set)",
        "connections let in, not yet agreed (the waiting room, §7.3)":
            f"{lobby.MAX_WAITING_CONNECTIONS}, at most {lobby.MAX_WAITING_PER_ADDRESS} from one network prefix",
        "frames read in the doorway":
            f"the first frame, after at most {lobby.MAX_PINGS_BEFORE_HELLO} pings; with a ticket, the hello after it",
        "connections that resumed the match (its game id and seat), waiting for their proof":
            str(lobby.MAX_RESUME_CANDIDATES),
        "bytes queued for a peer that does not read them (e.g. pongs for a ping flood)":
            f"{lobby.WAITING_PENDING_BYTES // 1024} KiB before the match, "
            f"{transport.MAX_PENDING_BYTES >> 20} MiB in it",
        "guest messages held as superseded (§8.3), since the guest's last message placed": str(chain.MAX_SUPERSEDED),
        "heartbeats before a resuming guest's proof": str(lobby.MAX_HEARTBEATS_BEFORE_PROOF),
        "bytes from a peer before the encrypted handshake is complete": str(secure.MAX_HANDSHAKE_BYTES),
        "notes shown about dropped connections (a scanner would fill the screen)": str(lobby.MAX_DROP_NOTES),
    }
    waits = (config.LEAVE_WAIT_S, transport.DEFAULT_TIMEOUT_S, config.RECONNECT_WAIT_S)
    assert waits == (transport.CLOSE_WAIT_S, host.timeout, host.reconnect_wait)
    text = (ROOT / "protocol" / "wire.md").read_text(encoding="utf-8").split("## 17.", 1)[1]
    assert f"a frame of at most\n{framing.MAX_FRAME_BYTES} bytes (§2)" in text
    limits = _section_tables("wire.md", "### 9.7")
    assert list(limits.values())[1:] == [str(referee.MAX_CHATS_PER_TURN), str(referee.MAX_CHATS_PER_MATCH),
                                         str(referee.MAX_CHAT_BYTES_PER_MATCH)]
#: A reference to a numbered item of a list kept outside the repository: the word for it, then a
#: number (with or without a ``#``).  Words that merely begin alike (issued, issuer) do not match.
TRACKER_REFERENCE = re.compile(r"\b[Ii]ssues?\s?#?\d|\(#\d+\)|\btrack(?:er)\b")
#: What lives outside the repository: the design notes and the paths of the machine it was made on.
OUTSIDE_REFERENCE = re.compile(r"\bDESIGN\.md\b|/wor[k]/|\bshared/RULES\.md\b")


def tracked_text_files() -> list[Path]:
    """Every file of the repository (``git ls-files``, else every file under it outside ``.git``, the
    virtual environment and caches) that reads as UTF-8 text."""
    import subprocess

    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, timeout=30, check=True)
        paths = [ROOT / name for name in listed.stdout.decode().split("\0") if name]
    except (OSError, subprocess.SubprocessError):
        skip = {".git", ".venv", "build", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
        paths = [p for p in ROOT.rglob("*") if p.is_file() and not skip & set(p.relative_to(ROOT).parts)]
    texts = []
    for path in paths:
        try:
            path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        texts.append(path)
    return texts


@pytest.mark.parametrize(("text", "found"), [
    ("Source: iss" + "ue 3 §2", True), ("(iss" + "ues 14 and 15)", True), ("see Iss" + "ue #12", True),
    ("iss" + "ue17", True), ("the tick" + "et issued 3 times", False), ("an issuer 4", False),
    ("no issue here", False), ("frame #2: rules", False), ("fixed in (" + "#7)", True),
    ("the bug track" + "er", True), ("a racetrack", False),
])
def test_the_tracker_pattern_finds_references_and_nothing_else(text: str, found: bool) -> None:
    assert bool(TRACKER_REFERENCE.search(text)) is found


def test_the_repository_refers_to_nothing_outside_it() -> None:
    """The repository explains itself: no numbered work item kept elsewhere, no design notes or paths that
    only the machine it was written on has (cite ``protocol/`` or RULES.md sections instead)."""
    files = tracked_text_files()
    assert any(path.name == "README.md" for path in files) and len(files) > 100
    found = [f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}"
             for path in files for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if TRACKER_REFERENCE.search(line) or OUTSIDE_REFERENCE.search(line)]
    assert found == []
