"""What a user types -- addresses, ports, names, join tickets -- is read one way, or refused with one
line that says how to write it (the defects a new user's try found:
``join ::1:4000``, ``join 127.0.0.1:``, ``id --name`` with a line break, ``--ticket short``)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from p2ptrumps.commands.main import main
from p2ptrumps.net import keystore
from p2ptrumps.net.addresses import AddressError, parse_address, parse_bind, parse_port
from p2ptrumps.net.admission import TicketError, parse_ticket, ticket_text
from p2ptrumps.net.meet import parse_relay_url

USAGE = "CODE|HOST:PORT[/TICKET]"


@pytest.fixture(autouse=True)
def _data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    return tmp_path


def _usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one line after the usage line of a refused command line (exit status 2)."""
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 and lines[0].startswith("usage: "), lines
    return lines[1]


# ----- an IPv6 address and a port, without brackets ---------------------------------------------------


@pytest.mark.parametrize(("typed", "line"), [
    ("::1:4000", "address '::1:4000': write an IPv6 address with its port in brackets: [::1]:4000, or [::1:4000] "
                 "for the IPv6 address ::1:4000 itself on the default port 4816"),
    ("2001:db8::7:4816", "address '2001:db8::7:4816': write an IPv6 address with its port in brackets: "
                         "[2001:db8::7]:4816, or [2001:db8::7:4816] for the IPv6 address 2001:db8::7:4816 itself "
                         "on the default port 4816"),
    ("fe80::1%eth0:4000", "address 'fe80::1%eth0:4000': write an IPv6 address with its port in brackets: "
                          "[fe80::1%eth0]:4000"),
    ("::1:4000/mfrg-gzdf-mztw-q2lk", "address '::1:4000': write an IPv6 address with its port in brackets: "
                                     "[::1]:4000, or [::1:4000] for the IPv6 address ::1:4000 itself on the "
                                     "default port 4816"),
    ("[127.0.0.1]:4000", "address '[127.0.0.1]:4000': '127.0.0.1' in brackets is not an IPv6 address (IPv4 "
                         "addresses go without brackets)"),
])
def test_join_an_ipv6_address_and_port_without_brackets_says_how_to_write_it(
        typed: str, line: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _usage_error(["join", typed, "--headless", "--ai", "random"], capsys) == f"p2ptrumps join: {USAGE}: {line}"


def test_unambiguous_ipv6_addresses_are_taken() -> None:
    assert parse_address("[::1]:4000") == ("::1", 4000)
    assert parse_address("[::1:4000]") == ("::1:4000", 4816)  # the address ::1:4000, on purpose
    assert parse_address("::1") == ("::1", 4816)
    assert parse_address("2001:db8::7") == ("2001:db8::7", 4816)  # "2001:db8:" is no address: no port to read
    assert parse_address("::1:abcd") == ("::1:abcd", 4816)  # "abcd" is no port
    assert parse_address("fe80::1%eth0") == ("fe80::1%eth0", 4816)
    assert parse_address("[fe80::1%eth0]:4000") == ("fe80::1%eth0", 4000)
    assert parse_address("::ffff:192.0.2.1") == ("::ffff:192.0.2.1", 4816)


@pytest.mark.parametrize(("typed", "line"), [
    ("::1:4000", "--bind '::1:4000' reads as an address and a port: write --bind ::1 --port 4000, or --bind "
                 "'[::1:4000]' for the IPv6 address ::1:4000 itself"),
    ("[::1]:4000", "--bind '[::1]:4000': --bind takes an address only; give the port with --port (--bind ::1 "
                   "--port 4000)"),
    ("127.0.0.1:4000", "--bind '127.0.0.1:4000': --bind takes an address only; give the port with --port (--bind "
                       "127.0.0.1 --port 4000)"),
    ("local host", "--bind 'local host' has a space or control character inside: write it with none (expected an "
                   "address or host name, e.g. 192.168.1.5 or ::1)"),
    ("1::2::3", "--bind '1::2::3' is not an IPv4 or IPv6 address or a host name"),
    ("", "--bind is empty (expected an address or host name, e.g. 192.168.1.5 or ::1)"),
])
def test_host_bind_takes_an_address_only_and_says_how(typed: str, line: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["host", "--bind", typed, "--port", "0", "--headless", "--ai", "random"]
    assert _usage_error(argv, capsys) == f"p2ptrumps host: --bind: {line}"


def test_host_bind_values_that_read() -> None:
    assert [parse_bind(t) for t in ("127.0.0.1", "::1", "[::1]", " localhost ", "fe80::1%eth0", "[::1:4000]")] == [
        "127.0.0.1", "::1", "[::1]", "localhost", "fe80::1%eth0", "[::1:4000]"]


def test_relay_urls_read_addresses_as_join_does() -> None:
    assert parse_relay_url("tcp:[::1]:4001") == ("::1", 4001)
    assert parse_relay_url("tcp:transit.magic-wormhole.io:4001") == ("transit.magic-wormhole.io", 4001)
    for url, why in (("tcp:::1:4001", "address '::1:4001': write an IPv6 address with its port in brackets: "
                                      "[::1]:4001, or [::1:4001] for the IPv6 address ::1:4001 itself"),
                     ("tcp:127.0.0.1:", "address '127.0.0.1:' has no port after the ':' (expected HOST:PORT)"),
                     ("tcp:127.0.0.1", "address '127.0.0.1' has no port (expected HOST:PORT)")):
        with pytest.raises(ValueError) as err:
            parse_relay_url(url)
        assert str(err.value) == f"not a relay URL {url!r} (expected tcp:HOST:PORT): {why}"


# ----- an empty port and other malformed ports -------------------------------------------------------


@pytest.mark.parametrize(("typed", "line"), [
    ("127.0.0.1:", "address '127.0.0.1:' has no port after the ':': write 127.0.0.1:4816 (the port the host "
                   "shows), or leave out the ':' for the default port 4816"),
    ("[::1]:", "address '[::1]:' has no port after the ':': write [::1]:4816 (the port the host shows), or leave "
               "out the ':' for the default port 4816"),
    ("127.0.0.1:/mfrg-gzdf-mztw-q2lk", "address '127.0.0.1:' has no port after the ':': write 127.0.0.1:4816 (the "
                                       "port the host shows), or leave out the ':' for the default port 4816"),
    ("127.0.0.1:0", "address '127.0.0.1:0': port must be a number 1..65535, not '0' (0 is a host's \"any free "
                    "port\": use the port the host shows)"),
    ("127.0.0.1:65536", "address '127.0.0.1:65536': port must be a number 1..65535, not '65536'"),
    ("127.0.0.1:4k", "address '127.0.0.1:4k': port must be a number 1..65535, not '4k'"),
    ("127.0.0.1:+4000", "address '127.0.0.1:+4000': port must be a number 1..65535, not '+4000'"),
    ("127.0.0.1:\u0664\u0660\u0660\u0660", "address '127.0.0.1:\u0664\u0660\u0660\u0660': port must be a number "
                                           "1..65535, not '\u0664\u0660\u0660\u0660'"),
    ("127.0.0.1:\u00b2", "address '127.0.0.1:\u00b2': port must be a number 1..65535, not '\u00b2'"),
    ("127.0.0.1: 4000", "address '127.0.0.1: 4000' has a space or control character inside: write it with none "
                        "(expected HOST:PORT, e.g. 192.168.1.5:4816)"),
    ("127.0.0.1 :4000", "address '127.0.0.1 :4000' has a space or control character inside: write it with none "
                        "(expected HOST:PORT, e.g. 192.168.1.5:4816)"),
    (":4000", "address ':4000' has no host (expected HOST:PORT)"),
])
def test_join_refuses_a_malformed_port_in_one_line(typed: str, line: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _usage_error(["join", typed, "--headless", "--ai", "random"], capsys) == f"p2ptrumps join: {USAGE}: {line}"


def test_spaces_around_an_address_are_not_part_of_it() -> None:
    assert parse_address(" 127.0.0.1:4000\n") == ("127.0.0.1", 4000)
    assert parse_address("127.0.0.1") == ("127.0.0.1", 4816)


@pytest.mark.parametrize("port", ["\u00b2", "\u0664", " 4 0 "])
def test_host_port_takes_ascii_digits_only(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(AddressError):
        parse_port(port)
    line = _usage_error(["host", "--port", port, "--headless", "--ai", "random"], capsys)
    assert line == f"p2ptrumps host: --port: port must be a number 0..65535, not {port!r}"


def test_a_resume_file_with_an_address_that_does_not_read_is_named(tmp_path: Path) -> None:
    import trio

    from p2ptrumps.net import config, resume
    from p2ptrumps.net.resumefile import ResumeFile
    from p2ptrumps.wire.identity import Identity

    rf = ResumeFile(tmp_path / "m.p2plog.resume", b"\x01" * 32, "guest", "127.0.0.1:", None, 0, {})
    cfg = config.NetConfig(role="guest", identity=Identity.from_seed(bytes(32)), name="Gus", data=tmp_path)
    restored = SimpleNamespace(resume=rf, session=SimpleNamespace(peer_name="Hana"))  # an old file's address

    async def go() -> None:
        await resume.resume_match(cfg, restored)  # type: ignore[arg-type]

    with pytest.raises(config.NetplayError) as info:
        trio.run(go)
    assert info.value.status == config.EXIT_ERROR
    assert str(info.value) == (f"{rf.path}: the host's address does not read (address '127.0.0.1:' has no port "
                                  "after the ':': write 127.0.0.1:4816 (the port the host shows), or leave out the "
                                  "':' for the default port 4816)")


# ----- the text rule of a name, wherever a name enters ----------------------------------------------


@pytest.mark.parametrize(("name", "code", "kind"), [
    ("Hana\nSmith", "000A", "a control character"),
    ("Hana\tSmith", "0009", "a control character"),
    ("Hana\r", "000D", "a control character"),
    ("Hana\x1b[31m", "001B", "a control character"),
    ("Hana\u2028", "2028", "a line or paragraph separator"),
    ("Hana\u202e", "202E", "a bidirectional formatting character"),
    ("Hana\x85", "0085", "a control character"),
])
@pytest.mark.parametrize("command", [["id"], ["play"], ["host", "--headless", "--ai", "random"],
                                     ["join", "127.0.0.1:1", "--headless", "--ai", "random"]])
def test_a_name_with_a_refused_code_point_is_refused_not_tidied(
        name: str, code: str, kind: str, command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from p2ptrumps.text import quoted

    line = _usage_error([*command, "--name", name], capsys)
    assert line == f"p2ptrumps {command[0]}: --name: {quoted(name)}: a name contains U+{code}, {kind}"


def test_the_name_file_and_the_name_question_follow_the_same_rule(tmp_path: Path) -> None:
    directory = tmp_path / "p2ptrumps"
    directory.mkdir()
    (directory / "name").write_text("Hana\nSmith\n", encoding="utf-8")
    with pytest.raises(keystore.KeyStoreError) as err:
        keystore.load_name(directory)
    assert str(err.value) == (f"the name file {directory / 'name'} holds no usable name: a name contains U+000A, a "
                              "control character; set your name again with `p2ptrumps id --name NAME`")
    (directory / "name").write_text("Hana   Smith\n", encoding="utf-8")
    assert keystore.load_name(directory) == "Hana Smith"  # spaces are still tidied
    with pytest.raises(ValueError, match=r"^a name contains U\+0009, a control character$"):
        keystore.save_name("Hana\tSmith", directory)
    (directory / "name").unlink()
    answers = iter(["Hana\tSmith", "Hana Smith"])
    asked: list[str] = []

    def ask(question: str) -> str:
        asked.append(question)
        return next(answers)

    assert keystore.first_name(directory, ask)[0] == "Hana Smith"
    assert asked[1].startswith("a name contains U+0009, a control character. Your name, as other players will see")
    assert keystore.clean_name("  Аня  👩‍👩‍👧  ") == "Аня 👩‍👩‍👧"


# ----- a join ticket is counted as typed --------------------------------------------------------------


@pytest.mark.parametrize(("typed", "why"), [
    ("short", "has 5 characters; a ticket has 13 to 52 (dashes not counted): letters a-z and digits 2-7 in groups "
              "of four, as the host shows it, e.g. mfrg-gzdf-mztw-q2lk"),
    ("mfrg-gzdf", "has 8 characters; a ticket has 13 to 52 (dashes not counted): letters a-z and digits 2-7 in "
                  "groups of four, as the host shows it, e.g. mfrg-gzdf-mztw-q2lk"),
    ("mfrg-gzdf-mztw-q2lka", "has 17 characters, a count no ticket has: a character is missing or one too many: a "
                             "ticket is letters a-z and digits 2-7 in groups of four, as the host shows it, e.g. "
                             "mfrg-gzdf-mztw-q2lk"),
    ("mfrg-gzdf-mztw-q2l", "ends in 'l', which the host never shows there: check the last group: a ticket is "
                           "letters a-z and digits 2-7 in groups of four, as the host shows it, e.g. "
                           "mfrg-gzdf-mztw-q2lk"),
    ("mfrg-gzdf-mztw-q2l0", "has '0', which no ticket has: a ticket is letters a-z and digits 2-7 in groups of four, "
                            "as the host shows it, e.g. mfrg-gzdf-mztw-q2lk"),
    ("a" * 53, "has 53 characters; a ticket has 13 to 52 (dashes not counted): letters a-z and digits 2-7 in groups "
               "of four, as the host shows it, e.g. mfrg-gzdf-mztw-q2lk"),
])
def test_a_ticket_is_counted_in_the_characters_typed(typed: str, why: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(TicketError) as err:
        parse_ticket(typed)
    assert str(err.value) == f"the join ticket {typed!r} {why}"
    assert _usage_error(["host", "--ticket", typed, "--headless"], capsys) == (
        f"p2ptrumps host: --ticket: the join ticket {typed!r} {why}")
    assert _usage_error(["join", f"127.0.0.1:4816/{typed}", "--headless"], capsys) == (
        f"p2ptrumps join: {USAGE}: the join ticket {typed!r} {why}")


def test_every_ticket_has_one_text_within_the_bounds() -> None:
    for n in (8, 9, 10, 31, 32):
        raw = bytes(range(200, 200 + n))
        text = ticket_text(raw)
        assert parse_ticket(text) == raw == parse_ticket(text.upper().replace("-", " "))
        assert 13 <= len(text.replace("-", "")) <= 52
    assert parse_ticket("aaaa-aaaa-aaaa-a") == bytes(8) and parse_ticket("a" * 52) == bytes(32)
