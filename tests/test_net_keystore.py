"""Identity key storage and known-peer pinning (protocol/files.md, p2ptrumps/net/keystore.py)."""

from __future__ import annotations

import json
import os
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest

from p2ptrumps.net import keystore
from p2ptrumps.net.keystore import KeyStoreError, KnownPeers, Pin, PinningError, decide_pin

FP_A = "AAAA:BBBB:CCCC:DDDD"
FP_B = "1111:2222:3333:4444"


def test_key_created_0600_and_reused(tmp_path: Path) -> None:
    key1, created1 = keystore.load_or_create_key(tmp_path)
    path = tmp_path / keystore.KEY_FILE
    assert created1 is True
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    key2, created2 = keystore.load_or_create_key(tmp_path)
    assert created2 is False
    assert key1.seed == key2.seed
    assert path.read_bytes() == b"p2ptrumps-identity-v1 " + key1.seed.hex().encode() + b"\n"
    assert [p.name for p in tmp_path.iterdir()] == [keystore.KEY_FILE]  # no temp file left


def test_data_dir_follows_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert keystore.data_dir() == tmp_path / "xdg" / "p2ptrumps"
    assert (tmp_path / "xdg" / "p2ptrumps").is_dir()


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o644])
def test_too_open_key_refused(tmp_path: Path, mode: int) -> None:
    keystore.load_or_create_key(tmp_path)
    path = tmp_path / keystore.KEY_FILE
    os.chmod(path, mode)
    with pytest.raises(KeyStoreError) as info:
        keystore.load_or_create_key(tmp_path)
    assert str(info.value) == (
        f"key file {path} is readable by others (mode {mode:04o}); refusing to use it. Run: chmod 600 {path}"
    )


def test_garbage_key_file_refused(tmp_path: Path) -> None:
    path = tmp_path / keystore.KEY_FILE
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, b"not a key\n")
    os.close(fd)
    with pytest.raises(KeyStoreError, match="is unusable: not a p2ptrumps identity key"):
        keystore.load_or_create_key(tmp_path)
    assert path.read_bytes() == b"not a key\n"  # never overwritten


def test_a_name_is_kept_whole_or_refused_never_cut(tmp_path: Path) -> None:
    """The name file follows the one text rule (protocol/files.md, wire.md §5.1): spaces collapse, an emoji
    with zero-width joiners stays whole, 40 code points pass; a control character, 41 code points or an
    empty name are refused with the fault named, and a bad stored name is refused, not cut or replaced."""
    family = "Ann \U0001f469\u200d\U0001f469\u200d\U0001f467"
    assert keystore.save_name(f"  {family}  ", tmp_path) == family
    assert (tmp_path / keystore.NAME_FILE).read_text(encoding="utf-8") == family + "\n"
    assert keystore.load_name(tmp_path) == family
    assert keystore.save_name("  Ann   Lee ", tmp_path) == "Ann Lee"
    assert keystore.save_name("\u042f" * 40, tmp_path) == "\u042f" * 40
    with pytest.raises(ValueError, match=r"^a name contains U\+001B, a control character$"):
        keystore.save_name("Ann\x1b[31m Lee", tmp_path)
    with pytest.raises(ValueError, match=r"^a name must be 1\.\.40 characters, not 41$"):
        keystore.save_name("\u042f" * 41, tmp_path)
    with pytest.raises(ValueError, match=r"^a name must be 1\.\.40 characters, not 0$"):
        keystore.save_name("   ", tmp_path)
    with pytest.raises(ValueError, match=r"^a name contains U\+0009, a control character$"):
        keystore.save_name(" \t ", tmp_path)  # refused, not tidied into a space (protocol/wire.md §5.1)
    with pytest.raises(ValueError, match=r"^a name contains U\+202E, a bidirectional formatting character$"):
        keystore.save_name("Ann\u202eeeL", tmp_path)
    assert keystore.load_name(tmp_path) == "\u042f" * 40  # the refused names were not stored
    path = tmp_path / keystore.NAME_FILE
    path.write_text("B" * 41 + "\n", encoding="utf-8")  # written by hand
    with pytest.raises(KeyStoreError) as info:
        keystore.load_name(tmp_path)
    assert str(info.value) == (f"the name file {path} holds no usable name: a name must be 1..40 characters, not 41; "
                               "set your name again with `p2ptrumps id --name NAME`")
    path.unlink()
    assert keystore.load_name(tmp_path) == keystore.default_name()


def test_normalise_fingerprint() -> None:
    assert keystore.normalise_fingerprint(" AB:cd-EF 01_23\n") == "ABCDEF0123"


WHEN = datetime(2026, 11, 29, 18, 5, tzinfo=UTC)


def _known(tmp_path: Path) -> KnownPeers:
    k = KnownPeers.open(tmp_path)
    k.add(FP_A, "bob", "10.0.0.2:4816", now=WHEN)
    return k


def test_known_peers_round_trip(tmp_path: Path) -> None:
    _known(tmp_path)
    data = json.loads((tmp_path / "known_peers.json").read_text())
    assert data == {
        "format": "p2ptrumps-known-peers",
        "version": 1,
        "peers": [{"fingerprint": FP_A, "name": "bob", "address": "10.0.0.2:4816",
                   "first_seen": "2026-11-29T18:05:00Z"}],
    }
    again = KnownPeers.open(tmp_path)
    assert again.peers == [keystore.KnownPeer(FP_A, "bob", "10.0.0.2:4816", "2026-11-29T18:05:00Z")]


def test_check_verdicts(tmp_path: Path) -> None:
    k = _known(tmp_path)
    assert k.check("aaaabbbbccccdddd", "bob", "10.0.0.2:4816").pin is Pin.KNOWN
    assert k.check(FP_B, "carol", "10.0.0.3:4816").pin is Pin.UNKNOWN
    # A name is a label (protocol/files.md): another key under a pinned name, elsewhere, is a new peer.
    same_name = k.check(FP_B, "bob", "10.0.0.9:1")
    assert same_name.pin is Pin.UNKNOWN and same_name.conflicts == ()
    assert [p.fingerprint for p in same_name.namesakes] == [FP_A]
    # The address is where the pinned entry was met: another key there is a changed key.
    changed = k.check(FP_B, "mallory", "10.0.0.2:4816")
    assert changed.pin is Pin.CHANGED and [p.fingerprint for p in changed.conflicts] == [FP_A]
    assert k.check(FP_B, "bob", "10.0.0.2:4816").pin is Pin.CHANGED
    assert k.check(FP_A, "robert", "10.0.0.7:4816").pin is Pin.KNOWN


def test_two_peers_of_one_name_are_both_pinned(tmp_path: Path) -> None:
    k = _known(tmp_path)
    asked: list[str] = []

    def yes(q: str) -> bool:
        asked.append(q)
        return True

    note = decide_pin(k.check(FP_B, "bob", "10.0.0.9:1"), k, confirm=yes)
    assert note == (f"new peer 'bob' pinned ({FP_B}); not the same peer: another peer named 'bob' is pinned with "
                    f"key {FP_A} (at 10.0.0.2:4816)")
    assert asked == [
        "'bob' at 10.0.0.9:1 is not a known peer.\n"
        f"Another peer named 'bob' is pinned with key {FP_A} (at 10.0.0.2:4816): this is a different peer "
        f"(`p2ptrumps id --forget {FP_A}` forgets that one).\n"
        f"Its key fingerprint is {FP_B}\n"
        "Check it with them (they see it with `p2ptrumps id`). Accept and remember it? [y/N] "
    ]
    again = KnownPeers.open(tmp_path)
    assert [(p.fingerprint, p.name, p.address) for p in again.peers] == [
        (FP_A, "bob", "10.0.0.2:4816"), (FP_B, "bob", "10.0.0.9:1")]
    assert again.check(FP_A, "bob", "10.0.0.2:4816").pin is Pin.KNOWN
    assert again.check(FP_B, "bob", "10.0.0.9:1").pin is Pin.KNOWN
    # A known key met at a new address: known, and that address is pinned for it too.
    assert decide_pin(again.check(FP_A, "bob", "10.0.0.5:4816"), again) == f"known peer 'bob' ({FP_A})"
    assert KnownPeers.open(tmp_path).check(FP_B, "bob", "10.0.0.5:4816").pin is Pin.CHANGED


def test_every_pinned_peer_of_the_name_is_named_with_the_command_that_forgets_one(tmp_path: Path) -> None:
    """Three 'root's pinned (one met at three addresses): the question named only the first; now it names
    each key with where it was met, and says that `id --forget FINGERPRINT` forgets one (the name would
    forget them all).  From four keys on, the fourth and later are counted."""
    from p2ptrumps.net.keystore import forget_hint, namesakes_text

    fp_c, fp_d, fp_e = "CCCC:0000:0000:0001", "DDDD:0000:0000:0002", "EEEE:0000:0000:0003"
    k = KnownPeers.open(tmp_path)
    k.add(FP_A, "root", "10.0.0.2:4816", now=WHEN)
    k.add(fp_c, "root", "10.0.0.3:4816", now=WHEN)
    k.add(fp_c, "root", "10.0.0.4:4816", now=WHEN)
    k.add(fp_c, "root", "10.0.0.5:4816", now=WHEN)
    k.add(fp_d, "root", "[::1]:4816", now=WHEN)
    asked: list[str] = []

    def no(q: str) -> bool:
        asked.append(q)
        return False

    with pytest.raises(PinningError):
        decide_pin(k.check(FP_B, "root", "10.0.0.9:1"), k, confirm=no)
    assert asked[0].splitlines()[1] == (
        f"3 other peers named 'root' are pinned, with keys {FP_A} (at 10.0.0.2:4816), {fp_c} (at 10.0.0.3:4816, "
        f"10.0.0.4:4816 and 1 more) and {fp_d} (at [::1]:4816): this is a different peer (`p2ptrumps id --forget "
        "FINGERPRINT` forgets one).")
    note = decide_pin(k.check(FP_B, "root", "10.0.0.9:1"), k, accept_new=True)
    assert note == (f"new peer 'root' pinned ({FP_B}); not the same peer: 3 other peers named 'root' are pinned, "
                    f"with keys {FP_A} (at 10.0.0.2:4816), {fp_c} (at 10.0.0.3:4816, 10.0.0.4:4816 and 1 more) and "
                    f"{fp_d} (at [::1]:4816)")
    k.add(fp_e, "root", "10.0.0.6:4816", now=WHEN)
    five = k.check("FFFF:0000:0000:0004", "root", None).namesakes
    assert namesakes_text("root", five) == (
        f"5 other peers named 'root' are pinned, with keys {FP_A} (at 10.0.0.2:4816), {fp_c} (at 10.0.0.3:4816, "
        f"10.0.0.4:4816 and 1 more), {fp_d} (at [::1]:4816) and 2 more")
    assert forget_hint(five) == "`p2ptrumps id --forget FINGERPRINT` forgets one"
    assert KnownPeers.open(tmp_path).forget(fp_c) and len(KnownPeers.open(tmp_path).peers) == 4


def test_unknown_confirmed_is_pinned(tmp_path: Path) -> None:
    k = _known(tmp_path)
    asked: list[str] = []

    def yes(q: str) -> bool:
        asked.append(q)
        return True

    note = decide_pin(k.check(FP_B, "carol", "h:1"), k, confirm=yes)
    assert note == f"new peer 'carol' pinned ({FP_B})"
    assert len(asked) == 1 and FP_B in asked[0] and asked[0].endswith("[y/N] ")
    assert KnownPeers.open(tmp_path).check(FP_B, "carol", "h:1").pin is Pin.KNOWN


def test_unknown_declined_or_nobody_to_ask(tmp_path: Path) -> None:
    k = _known(tmp_path)
    with pytest.raises(PinningError) as info:
        decide_pin(k.check(FP_B, "carol", "h:1"), k, confirm=lambda q: False)
    assert str(info.value) == f"key {FP_B} of 'carol' not accepted"
    with pytest.raises(PinningError, match="pass --fingerprint FP or --accept-new"):
        decide_pin(k.check(FP_B, "carol", "h:1"), k, confirm=None)
    assert KnownPeers.open(tmp_path).check(FP_B, "carol", "h:1").pin is Pin.UNKNOWN


def test_fingerprint_option_match_and_mismatch(tmp_path: Path) -> None:
    k = _known(tmp_path)
    note = decide_pin(k.check(FP_B, "carol", "h:1"), k, expected_fingerprint="11112222 33334444")
    assert note == f"new peer 'carol' pinned ({FP_B})"
    with pytest.raises(PinningError) as info:
        decide_pin(k.check(FP_B, "dave", "h:2"), k, expected_fingerprint=FP_A)
    assert str(info.value) == (
        f"fingerprint mismatch: 'dave' shows key {FP_B}, but you expected {FP_A}. Refused."
    )


def test_accept_new_and_known(tmp_path: Path) -> None:
    k = _known(tmp_path)
    assert decide_pin(k.check(FP_B, "carol", "h:1"), k, accept_new=True) == f"new peer 'carol' pinned ({FP_B})"
    assert decide_pin(k.check(FP_A, "bob", "10.0.0.2:4816"), k) == f"known peer 'bob' ({FP_A})"


@pytest.mark.parametrize("accept_new", [False, True])
def test_changed_key_refused_loudly(tmp_path: Path, accept_new: bool) -> None:
    k = _known(tmp_path)
    with pytest.raises(PinningError) as info:
        decide_pin(k.check(FP_B, "bob", "10.0.0.2:4816"), k, accept_new=accept_new, confirm=lambda q: True)
    msg = str(info.value)
    assert msg.startswith("KEY CHANGED: 'bob' at 10.0.0.2:4816 now shows key 1111:2222:3333:4444, ")
    assert f"with key {FP_A}" in msg and str(tmp_path / "known_peers.json") in msg
    assert len(KnownPeers.open(tmp_path).peers) == 1


def test_malformed_known_peers_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "known_peers.json"
    path.write_text("{not json")
    with pytest.raises(KeyStoreError, match="is malformed"):
        KnownPeers.open(tmp_path)
    assert path.read_text() == "{not json"


def test_the_first_name_is_asked_once_offering_the_login_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first networked command asks for a name when none is set (an empty answer takes the
    login name), stores it, and never asks again; a refused name is asked again with the fault."""
    monkeypatch.setattr(keystore, "default_name", lambda: "root")
    asked: list[str] = []
    answers = iter(["Ann\x1b", "  Ann  "])

    def ask(q: str) -> str | None:
        asked.append(q)
        return next(answers)

    assert keystore.first_name(tmp_path, ask) == (
        "Ann", "your name 'Ann' is saved; change it with `p2ptrumps id --name NAME`")
    assert asked == ["Your name, as other players will see it [root]: ",
                     "a name contains U+001B, a control character. Your name, as other players will see it [root]: "]
    assert keystore.first_name(tmp_path, ask) == ("Ann", "")  # stored: not asked again
    assert len(asked) == 2
    other = tmp_path / "other"
    assert keystore.first_name(other, lambda q: "")[0] == "root"
    assert keystore.load_name(other) == "root" and (other / keystore.NAME_FILE).exists()


def test_without_a_terminal_the_login_name_is_used_and_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(keystore, "default_name", lambda: "root")
    assert keystore.first_name(tmp_path, None) == (
        "root", "no name set: other players see your login name 'root' (set one with `p2ptrumps id --name NAME`)")
    assert not (tmp_path / keystore.NAME_FILE).exists()
