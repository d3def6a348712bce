"""The encrypted connection under the frames (protocol/wire.md §18), over 127.0.0.1 only.

* the certificate of a key is the bytes wire.md §18.2 lays out, and ``vectors/tls.json`` holds them;
* a passive observer of a whole match (a proxy that records every byte) sees no frame, no name,
  no chat text;
* a peer whose certificate's key is not its hello's key, not the pinned key, or not the key of
  the match it resumes is refused with one line, and nothing is written;
* an older (version 1, unencrypted) peer is told so on both sides; a handshake is bounded in time
  and bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import re
from pathlib import Path

import pytest
import trio

from p2ptrumps import events as wev
from p2ptrumps.net import config, dial, lobby, secure, testing
from p2ptrumps.net.race import single_errors
from p2ptrumps.net.transport import Connection
from p2ptrumps.rules import RuleSet
from p2ptrumps.wire import messages
from p2ptrumps.wire.errors import RemoteProtocolError
from p2ptrumps.wire.identity import Identity
from p2ptrumps.wire.session import Session
from p2ptrumps.wire.testing import fixed_bytes
from p2ptrumps.wire.verify import verify_log
from tests.conftest import load_script

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "protocol" / "vectors"
HOST_KEY = Identity.from_seed(fixed_bytes("secure-test/host"))
GUEST_KEY = Identity.from_seed(fixed_bytes("secure-test/guest"))
OTHER_KEY = Identity.from_seed(fixed_bytes("secure-test/other"))
CHAT = "meet me at the old mill at nine"
RULES = RuleSet(pack_size=32, deals=1, turn_limit=120)  # random play may run a deal to 1000 turns: not tested here


def host_cfg(tmp_path: Path, **kw: object) -> config.NetConfig:
    cfg = config.NetConfig(role="host", identity=HOST_KEY, name="Hana", data=tmp_path / "h",
                           rules=RULES, ai="random", think_s=0.01, out=io.StringIO(),
                           timeout_s=10, hello_timeout_s=2)
    for k, v in kw.items():
        setattr(cfg, k, v)
    return cfg


def guest_cfg(tmp_path: Path, **kw: object) -> config.NetConfig:
    cfg = config.NetConfig(role="guest", identity=GUEST_KEY, name="Gus", data=tmp_path / "g", ai="random",
                           think_s=0.01, accept_new=True, out=io.StringIO(), timeout_s=10)
    for k, v in kw.items():
        setattr(cfg, k, v)
    return cfg


def out_of(cfg: config.NetConfig) -> str:
    assert isinstance(cfg.out, io.StringIO)
    return cfg.out.getvalue()


async def wait_for_text(cfg: config.NetConfig, text: str, timeout_s: float = 10) -> None:
    with trio.fail_after(timeout_s):
        while text not in out_of(cfg):
            await trio.sleep(0.01)


def files_under(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*") if p.is_file()) if path.exists() else []


# ----- the certificate (wire.md §18.2) and the vectors ---------------------------------------------


def test_the_certificate_is_the_layout_of_wire_md() -> None:
    text = (ROOT / "protocol" / "wire.md").read_text(encoding="utf-8")
    section = text[text.index("So the tbsCertificate of `K`"):]
    block = section[section.index("```") + 3:]
    block = block[:block.index("```")]
    prefix_hex, suffix_hex = (re.sub(r"\s", "", part) for part in block.split("|| K ||"))
    prefix, suffix = bytes.fromhex(prefix_hex), bytes.fromhex(suffix_hex)
    assert (len(prefix), len(suffix)) == (115, 18)
    issuer = Identity.from_seed(hashlib.sha256(b"p2ptrumps/tls-issuer/v2").digest())
    for key in (HOST_KEY, GUEST_KEY, Identity.from_seed(hashlib.sha256(b"host/key").digest())):
        tbs = prefix + key.public_bytes + suffix
        want = bytes.fromhex("3081ef") + tbs + bytes.fromhex("300506032b6570" "034100") + issuer.sign(tbs)
        assert secure.certificate(key.public_bytes) == want
        assert len(want) == 242
        assert secure.certificate_key(want) == key.public_bytes


def test_tls_vectors_are_current_and_use_the_keys_of_wire_json() -> None:
    gen = load_script(VECTORS / "gen_tls.py")
    assert (VECTORS / "tls.json").read_text(encoding="utf-8") == gen.render()
    tls = json.loads((VECTORS / "tls.json").read_text(encoding="utf-8"))
    wire = (VECTORS / "wire.json").read_text(encoding="utf-8")
    assert [k["public_key"] for k in tls["keys"]] == [
        Identity.from_seed(hashlib.sha256(label.encode()).digest()).public_bytes.hex()
        for label in ("host/key", "guest/key")]
    assert all(f'"public_key": "{k["public_key"]}"' in wire for k in tls["keys"])
    assert tls["alpn"] == "p2ptrumps/2"
    first = tls["keys"][0]
    assert first["certificate_sha256"] == hashlib.sha256(bytes.fromhex(first["certificate"])).hexdigest()
    assert tls["old_peer_answer"] == "0000000892a568656c6c6f02"


def test_a_certificate_of_another_shape_or_key_is_refused() -> None:
    der = bytearray(secure.certificate(HOST_KEY.public_bytes))
    with pytest.raises(secure.SecureError, match="does not parse"):
        secure.certificate_key(bytes(der[:100]))
    der[-1] ^= 1  # the issuer's signature changed: a certificate, but not the one of its key
    with pytest.raises(secure.SecureError, match=r"^the peer's certificate is not the p2ptrumps certificate of its"):
        secure.certificate_key(bytes(der))
    issuer = secure.issuer_certificate()  # a valid Ed25519 certificate, of another profile
    with pytest.raises(secure.SecureError, match="not the p2ptrumps certificate"):
        secure.certificate_key(issuer)


# ----- the layer over a socket pair ----------------------------------------------------------------


async def _pair(server_expect: bytes | None = None, client_expect: bytes | None = None,
                client_key: Identity = GUEST_KEY) -> tuple[secure.SecureStream, secure.SecureStream]:
    a, b = trio.socket.socketpair()
    server = secure.secure(trio.SocketStream(a), HOST_KEY, server=True, expect=server_expect)
    client = secure.secure(trio.SocketStream(b), client_key, server=False, expect=client_expect)
    try:
        with single_errors():
            async with trio.open_nursery() as n:
                n.start_soon(server.handshake)
                n.start_soon(client.handshake)
    except BaseException:
        await close(server, client)
        raise
    return server, client


async def close(*streams: trio.abc.AsyncResource) -> None:
    for s in streams:
        await trio.aclose_forcefully(s)


async def test_both_sides_prove_their_keys_and_half_close_works() -> None:
    server, client = await _pair()
    assert (server.peer_key, client.peer_key) == (GUEST_KEY.public_bytes, HOST_KEY.public_bytes)
    await client.send_all(b"from the guest")
    assert await server.receive_some() == b"from the guest"
    await client.send_eof()  # close_notify: the guest sends nothing more, and still reads
    assert await server.receive_some() == b""
    await server.send_all(b"the host's last word")
    assert await client.receive_some() == b"the host's last word"
    await server.aclose()
    assert await client.receive_some() == b""
    await client.aclose()


async def test_an_expected_key_refuses_any_other_at_the_handshake() -> None:
    with pytest.raises(secure.SecureError) as info:
        await _pair(client_expect=OTHER_KEY.public_bytes)
    assert str(info.value) == (f"the peer's key {HOST_KEY.fingerprint} is not the expected {OTHER_KEY.fingerprint}: "
                               "refused")
    assert info.value.kind == "key"


async def test_a_passive_observer_sees_no_frame_and_no_chat() -> None:
    """Two sessions say hello, agree on rules and chat through a proxy that keeps every byte: the
    recorded bytes hold none of it, though each session read all of it."""
    taps: list[bytearray] = [bytearray(), bytearray()]
    a, a_far = trio.socket.socketpair()
    b_far, b = trio.socket.socketpair()
    af, bf = trio.SocketStream(a_far), trio.SocketStream(b_far)

    async def tap(src: trio.SocketStream, dst: trio.SocketStream, seen: bytearray) -> None:
        while data := await src.receive_some(65536):
            seen += data
            await dst.send_all(data)
        await dst.send_eof()

    host = Session("host", HOST_KEY, "Hana", fixed_bytes("secure-test/host-nonce"), rules=RULES)
    guest = Session("guest", GUEST_KEY, "Gus", fixed_bytes("secure-test/guest-nonce"))
    hellos = {"host": host.data_to_send(), "guest": guest.data_to_send()}  # what version 1 sent in the clear
    hs = secure.secure(trio.SocketStream(a), HOST_KEY, server=True)
    gs = secure.secure(trio.SocketStream(b), GUEST_KEY, server=False)
    plain: list[bytes] = []
    got_chat: list[str] = []

    async def run(session: Session, stream: secure.SecureStream, done: trio.Event) -> None:
        await stream.send_all(hellos[session.role])
        while not done.is_set():
            data = bytes(await stream.receive_some())
            plain.append(data)
            session.receive_data(data)
            while (ev := session.next_event()) is not None:
                if isinstance(ev, wev.PeerHello):
                    session.accept_key()
                elif isinstance(ev, wev.RulesProposed):
                    session.floor.accept_rules()
                    session.floor.chat(CHAT)
                elif isinstance(ev, wev.ChatReceived):
                    got_chat.append(ev.text)
                    done.set()
            out = session.data_to_send()
            if out:
                await stream.send_all(out)

    done = trio.Event()
    with trio.fail_after(10):
        async with trio.open_nursery() as n:
            n.start_soon(tap, af, bf, taps[0])
            n.start_soon(tap, bf, af, taps[1])
            n.start_soon(run, host, hs, done)
            n.start_soon(run, guest, gs, trio.Event())
            await done.wait()
            n.cancel_scope.cancel()
    await close(hs, gs, af, bf)
    assert got_chat == [CHAT]
    inside = b"".join(plain)
    wire = bytes(taps[0] + taps[1])
    for secret in (hellos["host"], hellos["guest"], b"\xa5hello", b"\xa3msg", b"\xa4chat", CHAT.encode(), b"Hana",
                   b"Gus", HOST_KEY.public_bytes, GUEST_KEY.public_bytes):
        assert secret not in wire
    assert b"\xa5hello" in inside and CHAT.encode() in inside  # the sessions did read them
    assert wire[:1] == b"\x16" and len(taps[0]) > 900 and len(taps[1]) > 900  # TLS, certificates both ways


# ----- a match through it ---------------------------------------------------------------------------


async def test_a_match_over_a_recording_proxy_verifies_and_shows_nothing(tmp_path: Path) -> None:
    # Names long enough that random ciphertext cannot hold them by chance (a 3-byte name did, once).
    cfg, g = host_cfg(tmp_path, name="Hana the observed host"), guest_cfg(tmp_path, name="Gus the observed guest")
    got: dict[str, config.NetResult] = {}

    async def run_host(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        got["h"] = await lobby.host(cfg, "127.0.0.1", 0, task_status=task_status)

    with trio.fail_after(60):
        async with trio.open_nursery() as n:
            port = await n.start(run_host)
            proxy = testing.CuttingProxy(port, record=True)
            await n.start(proxy.serve)
            got["g"] = await dial.join(g, f"127.0.0.1:{proxy.port}")
            while "h" not in got:
                await trio.sleep(0.05)
            n.cancel_scope.cancel()
    logs = [got[s].log_path for s in "hg"]
    assert all(p is not None and verify_log(p.read_bytes()).status == "valid" for p in logs)
    assert proxy.recorded is not None
    wire = bytes(proxy.recorded)
    assert len(wire) == proxy.bytes > 2000
    log = logs[0].read_bytes()  # type: ignore[union-attr]
    frames = [log[16:][:40]]  # the host's hello, as the log holds it (and version 1 sent it)
    for secret in (*frames, b"\xa5hello", b"\xa3msg", b"\xa4move", cfg.name.encode(), g.name.encode(),
                   HOST_KEY.public_bytes):
        assert secret not in wire


# ----- refusals: one line, nothing written -----------------------------------------------------------


async def test_a_guest_whose_hello_shows_another_key_than_its_certificate_is_refused(tmp_path: Path) -> None:
    cfg = host_cfg(tmp_path)
    async with trio.open_nursery() as n:
        port = await n.start(lambda task_status: lobby.host(cfg, "127.0.0.1", 0, task_status=task_status))
        stream = await testing.encrypted(port, OTHER_KEY)  # proves OTHER_KEY ...
        hello = Session("guest", GUEST_KEY, "Gus", fixed_bytes("secure-test/n")).data_to_send()  # ... says GUEST_KEY
        await stream.send_all(hello)
        line = (f"'Gus': the peer broke the protocol: the peer's certificate holds key {OTHER_KEY.fingerprint}, but "
                f"the key of its hello is {GUEST_KEY.fingerprint}: refused (protocol/wire.md §18.3); waiting for "
                "another guest ...\n")
        await wait_for_text(cfg, line)
        with trio.fail_after(5):  # the host closed it
            while await stream.receive_some():
                pass
        await stream.aclose()
        n.cancel_scope.cancel()
    assert out_of(cfg).count("the peer broke the protocol") == 1
    assert [f for f in files_under(tmp_path / "h") if f.endswith(".p2plog") or "known" in f] == []


async def _fake_host(listener: trio.SocketListener, tls_key: Identity, hello_key: Identity) -> None:
    """Accepts one connection, proves ``tls_key``, says hello with ``hello_key`` and waits to be dropped."""
    raw = await listener.accept()
    stream = secure.secure(raw, tls_key, server=True)
    hello = Session("host", hello_key, "Hana", fixed_bytes("secure-test/fake"), rules=RULES).data_to_send()
    await stream.send_all(hello)
    with trio.move_on_after(10), contextlib.suppress(trio.BrokenResourceError):
        while await stream.receive_some():
            pass
    await trio.aclose_forcefully(stream)


async def test_a_host_whose_hello_shows_another_key_than_its_certificate_is_refused(tmp_path: Path) -> None:
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    port = listener.socket.getsockname()[1]
    g = guest_cfg(tmp_path)
    with trio.fail_after(20):
        async with trio.open_nursery() as n:
            n.start_soon(_fake_host, listener, OTHER_KEY, HOST_KEY)
            with pytest.raises(config.NetplayError) as info:
                await dial.join(g, f"127.0.0.1:{port}")
    await listener.aclose()
    assert (info.value.status, str(info.value)) == (
        config.EXIT_PEER_FAULT,
        f"the peer broke the protocol: the peer's certificate holds key {OTHER_KEY.fingerprint}, but the key of its "
        f"hello is {HOST_KEY.fingerprint}: refused (protocol/wire.md §18.3)")
    assert [f for f in files_under(tmp_path / "g") if f.endswith(".p2plog") or "known" in f] == []


async def test_a_host_that_is_not_the_pinned_key_is_refused(tmp_path: Path) -> None:
    """The host proves OTHER_KEY (certificate and hello agree); the guest expects HOST_KEY's fingerprint."""
    cfg = host_cfg(tmp_path, identity=OTHER_KEY)
    g = guest_cfg(tmp_path, fingerprint=HOST_KEY.fingerprint, accept_new=False)
    with trio.fail_after(20):
        async with trio.open_nursery() as n:
            port = await n.start(lambda task_status: lobby.host(cfg, "127.0.0.1", 0, task_status=task_status))
            with pytest.raises(config.NetplayError) as info:
                await dial.join(g, f"127.0.0.1:{port}")
            n.cancel_scope.cancel()
    assert info.value.status == config.EXIT_KEY_REFUSED
    assert OTHER_KEY.fingerprint in str(info.value) and "\n" not in str(info.value)
    assert [f for f in files_under(tmp_path / "g") if f.endswith(".p2plog") or "known" in f] == []
    # the same host, when the key is known before the handshake (a resumed match, a code): refused there
    async with trio.open_nursery() as n:
        port = await n.start(lambda task_status: lobby.host(cfg, "127.0.0.1", 0, task_status=task_status))
        with pytest.raises(secure.SecureError) as early:
            await dial.dial_secure(g, "127.0.0.1", port, 5, expect=HOST_KEY.public_bytes)
        n.cancel_scope.cancel()
    assert str(early.value) == (f"the peer's key {OTHER_KEY.fingerprint} is not the expected "
                                f"{HOST_KEY.fingerprint}: refused")


async def test_a_resume_by_another_key_is_refused_before_the_proof(tmp_path: Path) -> None:
    """A connection that proves another key than the guest's of the match never reaches the match."""
    class FakeChain:
        keys = (HOST_KEY.public_key, GUEST_KEY.public_key)

    class FakeSession:
        seat = 0
        chain = FakeChain()

    server, client = await _pair(client_key=OTHER_KEY)
    conn = Connection.__new__(Connection)
    conn.session = FakeSession()  # type: ignore[assignment]
    assert conn._key_refused(server) == (f"the peer's certificate holds key {OTHER_KEY.fingerprint}, but the "
                                         f"peer's key of the match is {GUEST_KEY.fingerprint}: refused "
                                         "(protocol/wire.md §18.3)")
    good, good_client = await _pair()
    assert conn._key_refused(good) is None
    await close(server, client, good, good_client)
    assert secure.key_mismatch(object(), GUEST_KEY.public_bytes, "x") is None  # a test's memory stream: no check


# ----- older peers, bounds -----------------------------------------------------------------------------


async def test_an_old_guest_is_told_the_version_and_an_old_host_is_named(tmp_path: Path) -> None:
    cfg = host_cfg(tmp_path)
    async with trio.open_nursery() as n:
        port = await n.start(lambda task_status: lobby.host(cfg, "127.0.0.1", 0, task_status=task_status))
        old = await trio.open_tcp_stream("127.0.0.1", port)  # a version-1 guest: its hello in the clear
        await old.send_all(Session("guest", GUEST_KEY, "Gus", fixed_bytes("secure-test/old")).data_to_send())
        answer = b""
        with trio.fail_after(5):
            while chunk := await old.receive_some():
                answer += chunk
        await old.aclose()
        await wait_for_text(cfg, "an older p2ptrumps (protocol version 1, unencrypted) connected")
        n.cancel_scope.cancel()
    assert answer == bytes.fromhex("0000000892a568656c6c6f02")
    with pytest.raises(RemoteProtocolError) as fault:  # what the old guest makes of it (wire.md §7.1 check 1)
        messages.decode(answer[4:])
    assert fault.value.code == "version"

    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    port = listener.socket.getsockname()[1]

    async def old_host() -> None:
        s = await listener.accept()
        hello = Session("host", HOST_KEY, "Hana", fixed_bytes("secure-test/old-host"), rules=RULES).data_to_send()
        await s.send_all(hello)
        with trio.move_on_after(5), contextlib.suppress(trio.BrokenResourceError):
            await s.receive_some()
        await s.aclose()

    async with trio.open_nursery() as n:
        n.start_soon(old_host)
        with pytest.raises(config.NetplayError) as info:
            await dial.join(guest_cfg(tmp_path), f"127.0.0.1:{port}")
    await listener.aclose()
    assert (info.value.status, str(info.value)) == (
        config.EXIT_CONNECT, f"cannot connect to 127.0.0.1:{port}: the host runs an older p2ptrumps (protocol "
        "version 1, unencrypted), which cannot talk to this one (version 2): both need the same version")


async def test_a_handshake_is_bounded_in_bytes_and_time(tmp_path: Path) -> None:
    a, b = trio.socket.socketpair()
    server = secure.secure(trio.SocketStream(a), HOST_KEY, server=True, handshake_time_s=0.5)
    peer = trio.SocketStream(b)
    opened = [server, peer]
    await peer.send_all(b"\x16\x03\x01\x40\x00" + b"\x01" * 16384)  # one record of 16 KiB: more than allowed
    with pytest.raises(secure.SecureError, match=r"^the peer sent more than 16384 bytes in the encrypted handshake$"):
        await server.receive_some()
    with pytest.raises(secure.SecureError):  # and every later call says the same
        await server.send_all(b"x")

    a, b = trio.socket.socketpair()
    server = secure.secure(trio.SocketStream(a), HOST_KEY, server=True, handshake_time_s=0.5)
    peer = trio.SocketStream(b)
    opened += [server, peer]
    await peer.send_all(b"\x16\x03\x01\x01\x2c\x01")  # half a ClientHello, then nothing
    start = trio.current_time()
    with trio.fail_after(60), pytest.raises(secure.SecureError, match=r"^no encrypted handshake within 0.5 s$") as info:
        await server.receive_some()
    assert info.value.kind == "timeout" and trio.current_time() - start >= 0.5  # not before its time (no upper bound:
    # a loaded machine may be late, and the error's words say the bound)
    await close(*opened)
