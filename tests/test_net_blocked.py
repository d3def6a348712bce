"""Refusing a key for good (protocol/files.md, "blocked_peers.json"; protocol/wire.md §7.3, "A blocked key,
on either side"): the file, ``block``/``unblock`` by name and by fingerprint, and a blocked key turned away at
the doorway -- a host refusing a blocked guest, a guest refusing a blocked host -- with one line on each side
and nothing written for it."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from p2ptrumps.commands.main import main
from p2ptrumps.net import config, dial, keystore
from p2ptrumps.net.blocked import BlockedPeers, BlockError, block, canonical_fingerprint, unblock
from p2ptrumps.net.testing import rendezvous_servers
from p2ptrumps.wire.testing import fixed_bytes
from tests.test_net_meet import _code, _said, _start_host, _wait_line
from tests.test_net_meet import _join as _join_code
from tests.test_net_strangers import (
    EVIL_KEY,
    GUEST_KEY,
    HOST_KEY,
    files_under,
    guest_cfg,
    host_cfg,
    hosting,
    out_of,
    valid_match,
)

NOW = datetime(2026, 11, 30, 20, 41, 7, tzinfo=UTC)
GUS = GUEST_KEY.fingerprint
HANA = HOST_KEY.fingerprint


def _pin(data: Path, fingerprint: str, name: str, address: str) -> None:
    keystore.KnownPeers.open(data).add(fingerprint, name, address, now=NOW)


def test_a_fingerprint_is_read_as_typed_and_written_canonically() -> None:
    assert canonical_fingerprint(GUS.lower().replace("-", " ")) == GUS
    assert canonical_fingerprint(GUS.replace("-", ":")) == GUS
    assert canonical_fingerprint(GUS[:-1]) is None  # 31 characters
    assert canonical_fingerprint(GUS[:-1] + "1") is None  # 1 is no base32 letter
    assert canonical_fingerprint("Hana") is None


def test_block_by_fingerprint_writes_the_file_and_says_how_to_undo(tmp_path: Path) -> None:
    line = block(tmp_path, GUS.lower(), now=NOW)
    assert line == (f"blocked {GUS}: a match with this key is refused from now on, when it joins you or you join "
                    f"it (p2ptrumps unblock {GUS} undoes it)")
    assert json.loads((tmp_path / "blocked_peers.json").read_text(encoding="utf-8")) == {
        "format": "p2ptrumps-blocked-peers", "version": 1,
        "peers": [{"fingerprint": GUS, "name": "", "blocked": "2026-11-30T20:41:07Z"}]}
    assert block(tmp_path, GUS, now=NOW) == f"{GUS} is blocked already"
    assert len(BlockedPeers.open(tmp_path).peers) == 1


def test_block_by_name_takes_the_one_pinned_key_of_that_name(tmp_path: Path) -> None:
    _pin(tmp_path, GUS, "Gus", "192.0.2.9")
    _pin(tmp_path, HANA, "Hana", "192.0.2.7:4816")
    assert block(tmp_path, "Gus", now=NOW).startswith(f"blocked 'Gus' ({GUS}): a match with this key is refused")
    assert BlockedPeers.open(tmp_path).find(GUS.lower()) is not None
    assert BlockedPeers.open(tmp_path).find(HANA) is None
    assert block(tmp_path, "192.0.2.7:4816", now=NOW).startswith(f"blocked 'Hana' ({HANA})")  # by address too
    assert [p.name for p in keystore.KnownPeers.open(tmp_path).peers] == ["Gus", "Hana"]  # still known
    assert unblock(tmp_path, "Gus") == f"unblocked 'Gus' ({GUS})"
    assert unblock(tmp_path, HANA.lower()) == f"unblocked 'Hana' ({HANA})"
    with pytest.raises(BlockError) as none:
        unblock(tmp_path, "Gus")
    assert str(none.value) == "no blocked key has the fingerprint or name 'Gus'"
    assert BlockedPeers.open(tmp_path).peers == []


def test_a_name_of_two_keys_or_of_none_blocks_nothing_and_says_what_to_type(tmp_path: Path) -> None:
    _pin(tmp_path, GUS, "root", "192.0.2.9")
    _pin(tmp_path, HANA, "root", "192.0.2.7:4816")
    with pytest.raises(BlockError) as two:
        block(tmp_path, "root", now=NOW)
    first, second = sorted([GUS, HANA])
    assert str(two.value) == (f"2 keys are known as 'root': 'root' {first}; 'root' {second}; "
                              "block one by its fingerprint")
    with pytest.raises(BlockError) as none:
        block(tmp_path, "Zed", now=NOW)
    assert str(none.value) == ("no known peer is named 'Zed' (or met at that address), and it is no fingerprint "
                               "(32 letters and digits in groups of four): give the fingerprint to block")
    assert not (tmp_path / "blocked_peers.json").exists()


@pytest.mark.parametrize(("text", "why"), [
    ('{"format": "p2ptrumps-known-peers", "version": 1, "peers": []}', "not a p2ptrumps-blocked-peers file"),
    ('{"format": "p2ptrumps-blocked-peers", "version": 2, "peers": []}', "unsupported version 2"),
    ('{"format": "p2ptrumps-blocked-peers", "version": 1, "peers": [{"fingerprint": "ABCD", "name": "", '
     '"blocked": ""}]}', "entry 1: 'ABCD' is not a fingerprint"),
    ('{"format": "p2ptrumps-blocked-peers", "version": 1, "peers": [{"name": ""}]}',
     "entry 1 lacks fingerprint/name/blocked text"),
    ('[' * 100000, "nested too deeply"),
])
def test_a_damaged_file_is_one_line_and_never_overwritten(tmp_path: Path, text: str, why: str) -> None:
    (tmp_path / "blocked_peers.json").write_text(text, encoding="utf-8")
    with pytest.raises(keystore.KeyStoreError) as err:
        block(tmp_path, GUS, now=NOW)
    assert str(err.value) == (f"blocked peers file {tmp_path / 'blocked_peers.json'} is malformed ({why}); fix "
                              "or remove it by hand (until then it blocks nobody)")
    assert (tmp_path / "blocked_peers.json").read_text(encoding="utf-8") == text


async def _join(port: int, cfg: config.NetConfig) -> Any:
    try:
        return await dial.join(cfg, f"127.0.0.1:{port}")
    except config.NetplayError as exc:
        return exc


async def test_a_host_turns_a_blocked_guest_away_and_plays_the_next(tmp_path: Path) -> None:
    """The host blocked Gus: Gus is refused before the host's hello (status 8, one line), the host says so
    in one line, neither writes anything for it; a guest of another key then plays the match."""
    cfg = host_cfg(tmp_path)
    block(cfg.data, GUS, now=NOW)
    before = files_under(cfg.data)

    async def attack(port: int) -> Any:
        refused = await _join(port, guest_cfg(tmp_path))
        assert files_under(tmp_path / "g") == [] and files_under(cfg.data) == before  # nothing written
        return refused, await _join(port, guest_cfg(tmp_path, identity=EVIL_KEY, data=tmp_path / "e", name="Eve"))

    got = await hosting(cfg, attack)
    refused, played = got["a"]
    assert isinstance(refused, config.NetplayError) and refused.status == config.EXIT_REFUSED
    assert str(refused) == "the host blocked your key: it plays no match with you"
    assert f"turned away 'Gus' from 127.0.0.1: you blocked the key {GUS} (p2ptrumps unblock {GUS})" in out_of(cfg)
    valid_match(got["h"])
    assert isinstance(played, config.NetResult)


async def test_a_guest_refuses_a_blocked_host_and_the_host_is_told(tmp_path: Path) -> None:
    """Gus blocked Hana by name: Gus connects, sees Hana's key in the encrypted handshake, sends
    ``["refuse", "blocked"]`` and stops (status 6, one line); Hana's doorway says who refused and why."""
    cfg = host_cfg(tmp_path)
    g = guest_cfg(tmp_path)
    _pin(g.data, HANA, "Hana", "192.0.2.7:4816")
    _pin(cfg.data, GUS, "Gus", "127.0.0.1")
    block(g.data, "Hana", now=NOW)
    before = files_under(g.data)

    async def attack(port: int) -> Any:
        refused = await _join(port, g)
        return port, refused, await _join(port, guest_cfg(tmp_path, identity=EVIL_KEY, data=tmp_path / "e",
                                                          name="Eve"))

    got = await hosting(cfg, attack)
    port, refused, _ = got["a"]
    assert isinstance(refused, config.NetplayError) and refused.status == config.EXIT_KEY_REFUSED
    assert str(refused) == (f"turned away 'Hana' at 127.0.0.1:{port}: you blocked the key {HANA} (p2ptrumps "
                            f"unblock {HANA}); nothing was written")
    assert files_under(g.data) == before  # no log, no pin, no resume file
    assert f"'Gus' ({GUS}) from 127.0.0.1 refused to play with you: it blocked your key" in out_of(cfg)
    valid_match(got["h"])


# ----- by code: the same refusals, between real processes meeting on a mailbox ----------------------


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A mailbox server and a transit relay on loopback: ``(mailbox_url, relay_url)``."""
    with rendezvous_servers(tmp_path_factory.mktemp("rendezvous")) as urls:
        yield urls


@pytest.mark.timeout(120)
@pytest.mark.skipif(sys.platform == "win32", reason="twistd servers are POSIX here")
@pytest.mark.parametrize("blocker", ["host", "guest"])
def test_by_code_a_blocked_key_is_turned_away_with_one_line_on_each_side(
        tmp_path: Path, servers: tuple[str, str], blocker: str) -> None:
    """Both data directories hold their keys before the match (so each fingerprint is known); one side
    blocked the other.  The code brings them together; the doorway (host) or the guest right after the
    encrypted handshake refuses, each side prints one line, and the blocked side writes nothing."""
    keys = {role: keystore.load_or_create_key(tmp_path / role / "p2ptrumps", seed=fixed_bytes(f"blocked/{role}"))[0]
            for role in ("host", "guest")}
    other = "guest" if blocker == "host" else "host"
    block(tmp_path / blocker / "p2ptrumps", keys[other].fingerprint, now=NOW)
    host, out = _start_host(tmp_path, servers, "--timeout", "5")
    try:
        code = _code(_wait_line(out, "Tell your opponent: p2ptrumps join ", host))
        guest = _join_code(tmp_path, servers, code)
        if blocker == "host":
            _wait_line(out, "turned away ", host)
    finally:
        host.kill()
        host.wait(5)
    said = out.read_text()
    if blocker == "host":
        assert (guest.returncode, _said(guest)) == (
            config.EXIT_REFUSED, "p2ptrumps join: the host blocked your key: it plays no match with you\n")
        assert (f"turned away 'guest' from 127.0.0.1: you blocked the key {keys['guest'].fingerprint} "
                f"(p2ptrumps unblock {keys['guest'].fingerprint})") in said
    else:
        assert (guest.returncode, _said(guest)) == (
            config.EXIT_KEY_REFUSED, f"p2ptrumps join: turned away the host on the code: you blocked the key "
            f"{keys['host'].fingerprint} (p2ptrumps unblock {keys['host'].fingerprint}); nothing was written\n")
        assert (f"a guest with the key {keys['guest'].fingerprint} from 127.0.0.1 refused to play with you: it "
                "blocked your key") in said
    blocked_side = tmp_path / other / "p2ptrumps"
    assert files_under(blocked_side) == ["identity.key"]  # no log, no pin, no resume file
    assert not (tmp_path / "guest.p2plog").exists() and not (tmp_path / "host.p2plog").exists()


def test_the_block_and_unblock_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    data = tmp_path / "p2ptrumps"
    _pin(data, GUS, "Gus", "192.0.2.9")
    assert main(["block", "Gus"]) == 0
    assert capsys.readouterr().out == (f"blocked 'Gus' ({GUS}): a match with this key is refused from now on, when "
                                       f"it joins you or you join it (p2ptrumps unblock {GUS} undoes it)\n")
    assert main(["block", "Nobody"]) == 1
    assert capsys.readouterr().err.startswith("p2ptrumps block: no known peer is named 'Nobody'")
    assert main(["unblock", GUS.lower()]) == 0
    assert capsys.readouterr().out == f"unblocked 'Gus' ({GUS})\n"
    assert main(["unblock", "Gus"]) == 1
    assert capsys.readouterr().err == "p2ptrumps unblock: no blocked key has the fingerprint or name 'Gus'\n"
