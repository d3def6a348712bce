"""Bad command-line values and unusable local files give one clear line, never a traceback
(tester's defects 8, 9, 15 and the address / fingerprint / --forget notes)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from p2ptrumps.cli import main
from p2ptrumps.net import keystore
from p2ptrumps.net.addresses import AddressError, check_fingerprint, parse_address


@pytest.mark.parametrize("port", ["99999", "-1", "65536", "x"])
def test_bad_host_port_is_a_usage_error(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["host", "--port", port, "--headless", "--ai", "random"])
    assert info.value.code == 2
    assert f"p2ptrumps host: --port: port must be a number 0..65535, not {port!r}\n" in capsys.readouterr().err


@pytest.mark.parametrize(("address", "why"), [
    ("127.0.0.1:1:2", "has too many ':' (write IPv6 addresses as [::1]:4816)"),
    ("http://127.0.0.1:4816", "give HOST:PORT, not a URL"),
    ("127.0.0.1:99999", "port must be a number 1..65535"),
    ("[nothost]:5", "is not an IPv6 address"),
    ("bad_host!:5", "is not a host name or IP address"),
])
def test_bad_join_address_is_a_usage_error(address: str, why: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["join", address, "--headless", "--ai", "random"])
    assert info.value.code == 2
    assert why in capsys.readouterr().err


def test_good_addresses() -> None:
    assert parse_address("[::1]:4816") == ("::1", 4816)
    assert parse_address("::1") == ("::1", 4816)
    assert parse_address("example.org") == ("example.org", 4816)
    assert parse_address(" 10.0.0.2:5000 ") == ("10.0.0.2", 5000)


@pytest.mark.parametrize("fp", ["", "7F4Z", "FUGV-REOI-FFMR-732D-2R4T-KNXL-BRUX-7JN1"])
def test_malformed_fingerprint_refused_up_front(fp: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(AddressError):
        check_fingerprint(fp)
    with pytest.raises(SystemExit) as info:
        main(["join", "127.0.0.1:1", "--fingerprint", fp])
    assert info.value.code == 2
    assert "is malformed: expected 32 characters A-Z 2-7" in capsys.readouterr().err
    assert check_fingerprint("fugv reoi ffmr 732d 2r4t knxl brux 7jns") == "fugv reoi ffmr 732d 2r4t knxl brux 7jns"


@pytest.mark.parametrize("command", [["id"], ["host", "--headless", "--ai", "random", "--port", "0"],
                                     ["join", "127.0.0.1:1", "--headless", "--ai", "random"]])
def test_data_dir_is_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                            command: list[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    (tmp_path / "p2ptrumps").write_text("in the way")
    assert main(command) == 1
    err = capsys.readouterr().err
    assert err == (f"p2ptrumps: data directory {tmp_path / 'p2ptrumps'} is not a directory (a file is in the way); "
                   "move it away or set XDG_DATA_HOME\n")


def test_key_file_is_a_directory(tmp_path: Path) -> None:
    (tmp_path / keystore.KEY_FILE).mkdir()
    with pytest.raises(keystore.KeyStoreError) as info:
        keystore.load_or_create_key(tmp_path)
    assert str(info.value) == (f"key file {tmp_path / keystore.KEY_FILE} is not a regular file (a directory or a "
                               "broken link?); move it away to create a new key")


def test_key_file_with_an_extra_line(tmp_path: Path) -> None:
    keystore.load_or_create_key(tmp_path)
    path = tmp_path / keystore.KEY_FILE
    with open(path, "ab") as f:
        f.write(b"something else\n")
    with pytest.raises(keystore.KeyStoreError) as info:
        keystore.load_or_create_key(tmp_path)
    assert str(info.value) == (f"key file {path} is unusable: identity key: unexpected text after the key line "
                               "(the file holds one line)")
    os.truncate(path, 87)  # back to the one line: usable again
    assert keystore.load_or_create_key(tmp_path)[1] is False


def test_id_forget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    known = keystore.KnownPeers.open(keystore.data_dir())
    known.add("AAAA-BBBB-CCCC-DDDD-EEEE-FFFF-GGGG-HHHH", "bob", "10.0.0.2:4816")
    known.add("2222-3333-4444-5555-6666-7777-AAAA-BBBB", "ann", "10.0.0.3:4816")
    assert main(["id", "--forget", "aaaabbbbccccddddeeeeffffgggghhhh"]) == 0
    assert capsys.readouterr().out.startswith("forgot 'bob' at 10.0.0.2:4816 (AAAA-BBBB-CCCC-DDDD-EEEE-FFFF-GGGG-HHHH)")
    assert [p.name for p in keystore.KnownPeers.open(keystore.data_dir()).peers] == ["ann"]
    assert main(["id", "--forget", "bob"]) == 1
    assert capsys.readouterr().err == "p2ptrumps: no known peer has the fingerprint, name or address 'bob'\n"
