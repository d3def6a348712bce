"""The encrypted connection under the frames: TLS 1.3 whose certificates are the identity keys.

Source: ``protocol/wire.md`` §18 (the connection: who is TLS client and server, the
certificate profile, how the certificate's key binds to the hello's key and to a pinned
key, what an old peer sees, the bounds of a handshake).

One function wraps a connected trio stream on either side: :func:`secure` (the host is the
TLS server, the guest the TLS client, whoever opened the TCP connection).  The result, a
:class:`SecureStream`, is a ``trio.abc.HalfCloseableStream`` carrying the frames exactly as
before; once its handshake is done, :attr:`SecureStream.peer_key` is the peer's raw 32-byte
Ed25519 key, proven by the TLS handshake (the peer signed the handshake with it).  Comparing
that key with the hello's, a resume's seat or a pinned key is the caller's
(:func:`key_mismatch`).

Everything here is the standard library's ``ssl`` (OpenSSL) driven through memory BIOs, and
``cryptography`` for the certificates.  Nothing is written to disk for a peer: the only file
is our own certificate and key, written once per process for ``ssl`` to load (mode 0600, the
key encrypted under a random password kept in memory, removed at once).
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import os
import ssl
import tempfile
from functools import lru_cache

import trio
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.x509.oid import NameOID

from ..wire.errors import RemoteProtocolError
from ..wire.identity import Identity, check_public_key, fingerprint

#: The ALPN protocol id of this connection layer: it marks protocol version 2 (wire.md §18.1).
ALPN = "p2ptrumps/2"
#: The issuer key's seed is SHA-256 of this tag: a published key, so it proves nothing (wire.md §18.2).
ISSUER_TAG = b"p2ptrumps/tls-issuer/v2"
ISSUER_NAME = "p2ptrumps issuer"
SUBJECT_NAME = "p2ptrumps"
NOT_BEFORE = datetime.datetime(2000, 1, 1, tzinfo=datetime.UTC)
NOT_AFTER = datetime.datetime(9999, 12, 31, 23, 59, 59, tzinfo=datetime.UTC)
#: Seconds a handshake has from the connection to its end (wire.md §17, §18.4).
HANDSHAKE_TIME_S = 10.0
#: Most bytes a peer may send before the handshake is done (wire.md §18.4): an honest one sends ~1 KB.
MAX_HANDSHAKE_BYTES = 16384
#: Bytes of ciphertext read from the transport at a time (one TLS record is at most 16 KiB + 256).
RECEIVE_BYTES = 65536
#: What a server answers a version-1 peer (its first byte 0x00, a frame length): the plaintext frame
#: ``["hello", 2]``, which a version-1 peer refuses as fault ``version`` (wire.md §18.5).
OLD_PEER_ANSWER = bytes.fromhex("00000008" "92" "a568656c6c6f" "02")
TLS_HANDSHAKE_RECORD = 0x16
#: A TLS alert record: a peer that refused our ClientHello (its own policy, say) answers with one; TLS
#: reads it and names the alert.
TLS_ALERT_RECORD = 0x15
#: OpenSSL's ``X509_V_FLAG_NO_CHECK_TIME``: the peer's certificate is checked without the local clock
#: (wire.md §18.2: its validity is fixed bytes, no statement about time).  Python's ``ssl`` passes the
#: bit through to ``X509_VERIFY_PARAM_set_flags`` though it has no name for it.
NO_CHECK_TIME = 0x200000


class SecureError(trio.BrokenResourceError):
    """The encrypted connection could not be set up, or the peer's key is refused; ``str()`` is one
    line for the user.  ``kind``: ``"old-version"`` (a version-1 peer), ``"not-p2ptrumps"``,
    ``"key"`` (a key other than the one expected), ``"timeout"``, ``"closed"``, ``"tls"``."""

    def __init__(self, message: str, kind: str = "tls") -> None:
        super().__init__(message)
        self.kind = kind


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


@lru_cache(maxsize=1)
def _issuer_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(ISSUER_TAG).digest())


@lru_cache(maxsize=1)
def issuer_certificate() -> bytes:
    """The DER bytes of the issuer's certificate (self-signed, CA), the same for everyone (wire.md §18.2)."""
    key = _issuer_key()
    cert = (x509.CertificateBuilder()
            .subject_name(_name(ISSUER_NAME)).issuer_name(_name(ISSUER_NAME))
            .public_key(key.public_key()).serial_number(1)
            .not_valid_before(NOT_BEFORE).not_valid_after(NOT_AFTER)
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .sign(key, None))
    return cert.public_bytes(serialization.Encoding.DER)


@lru_cache(maxsize=8)
def certificate(public_key: bytes) -> bytes:
    """The DER bytes of the certificate of the raw 32-byte Ed25519 ``public_key``: a function of the
    key alone, byte for byte (wire.md §18.2; vector ``protocol/vectors/tls.json``).

    Raises ``ValueError`` for bytes that are not an Ed25519 key."""
    cert = (x509.CertificateBuilder()
            .subject_name(_name(SUBJECT_NAME)).issuer_name(_name(ISSUER_NAME))
            .public_key(Ed25519PublicKey.from_public_bytes(public_key)).serial_number(2)
            .not_valid_before(NOT_BEFORE).not_valid_after(NOT_AFTER)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .sign(_issuer_key(), None))
    return cert.public_bytes(serialization.Encoding.DER)


def certificate_key(der: bytes) -> bytes:
    """The raw 32-byte key of a peer's certificate (DER), checked: an Ed25519 key that wire.md §4.2
    accepts, in exactly the certificate :func:`certificate` makes of it.

    Raises:
        SecureError: (kind ``"key"``) anything else; the message says what.
    """
    try:
        key = x509.load_der_x509_certificate(der).public_key()
    except ValueError as exc:
        raise SecureError(f"the peer's certificate does not parse ({exc})", "key") from None
    if not isinstance(key, Ed25519PublicKey):
        raise SecureError("the peer's certificate does not hold an Ed25519 key", "key")
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    try:
        check_public_key(raw)
    except RemoteProtocolError as exc:
        raise SecureError(f"the peer's certificate key is refused: {exc}", "key") from None
    if der != certificate(raw):
        raise SecureError("the peer's certificate is not the p2ptrumps certificate of its key "
                          "(protocol/wire.md §18.2)", "key")
    return raw


@lru_cache(maxsize=4)
def _context(identity: Identity, server: bool) -> ssl.SSLContext:
    """The TLS context of one side (wire.md §18.1): TLS 1.3 only, our certificate, the peer's
    certificate required and chained to the published issuer, ALPN, no session tickets."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER if server else ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ctx.maximum_version = ssl.TLSVersion.TLSv1_3
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.verify_flags |= NO_CHECK_TIME  # a machine whose clock reads 1970 (no NTP yet) plays as well
    ctx.load_verify_locations(cadata=issuer_certificate())
    ctx.set_alpn_protocols([ALPN])
    if server:
        ctx.num_tickets = 0  # no resumption: every connection proves its key afresh
    password = os.urandom(32).hex().encode("ascii")
    pem = (x509.load_der_x509_certificate(certificate(identity.public_bytes)).public_bytes(serialization.Encoding.PEM)
           + identity.private_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                serialization.BestAvailableEncryption(password)))
    fd, path = tempfile.mkstemp(prefix="p2ptrumps-tls-", suffix=".pem")  # mode 0600
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(pem)
        ctx.load_cert_chain(path, password=password)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
    return ctx


def _tls_why(exc: ssl.SSLError) -> str:
    reason = (exc.reason or str(exc)).lower().replace("_", " ")
    if "certificate verify failed" in str(exc).lower() or "certificate verify failed" in reason:
        return "the peer's certificate is not a p2ptrumps certificate"
    if "alert" in reason:
        return f"the peer refused the encrypted handshake (TLS {reason})"
    return f"the encrypted handshake failed ({reason})"


class SecureStream(trio.abc.HalfCloseableStream):
    """A trio stream carried inside TLS 1.3 over ``transport`` (see :func:`secure`).

    The handshake runs on the first :meth:`send_all` or :meth:`receive_some` (or an explicit
    :meth:`handshake`), within ``handshake_time_s`` seconds and :data:`MAX_HANDSHAKE_BYTES`
    bytes from the peer.  A failed handshake raises :class:`SecureError` (a
    ``trio.BrokenResourceError``) from every later call.  :meth:`send_eof` sends TLS
    ``close_notify`` (TLS 1.3's half-close); a transport closed without it reads as the end of
    the stream, as a plain TCP close would (the frames are self-delimiting, wire.md §18.3).

    Why not ``trio.SSLStream``, which drives the same ``ssl`` memory BIOs: it lacks four things the
    protocol needs.  (1) Half-close: ``SSLStream`` is not a ``HalfCloseableStream`` (it has no
    ``send_eof``), while the guest closes first and still reads the host's last message
    (protocol/wire.md §14.5, §18.3).  (2) A bound on the handshake: it reads whatever the peer sends
    until the handshake completes; here a stranger gets :data:`MAX_HANDSHAKE_BYTES` and
    ``handshake_time_s``, counted before anything is decrypted (§17, §18.4).  (3) The first bytes: a
    version-1 peer's plain hello is recognised and answered with :data:`OLD_PEER_ANSWER` (§18.5), which
    ``SSLStream`` would only see as a TLS error.  (4) Both ends of a stream: here a transport closed
    without ``close_notify`` reads as the end (the frames delimit themselves) while we still send
    ``close_notify`` ourselves; ``SSLStream`` either raises ``BrokenResourceError`` for the first
    (``https_compatible=False``) or never sends the second (``https_compatible=True``).
    """

    def __init__(self, transport: trio.abc.Stream, context: ssl.SSLContext, *, server: bool,
                 expect: bytes | None = None, handshake_time_s: float = HANDSHAKE_TIME_S) -> None:
        self.transport = transport
        self.server = server
        self.expect = expect
        self.handshake_time_s = handshake_time_s
        self._in = ssl.MemoryBIO()
        self._out = ssl.MemoryBIO()
        self._ssl = context.wrap_bio(self._in, self._out, server_side=server)
        #: The peer's raw 32-byte Ed25519 key once the handshake is done (else None).
        self.peer_key: bytes | None = None
        self._done = False
        self._error: SecureError | None = None
        self._handshake_lock = trio.Lock()
        self._send_lock = trio.Lock()
        self._eof_sent = False
        self._closed = False
        #: Bytes of ciphertext received and sent over the transport (for the benchmark).
        self.raw_received = 0
        self.raw_sent = 0

    # ----- the handshake ---------------------------------------------------------------

    async def handshake(self) -> None:
        """Run the TLS handshake unless done; check the peer's certificate and ALPN (wire.md §18).

        Raises:
            SecureError: no handshake within ``handshake_time_s``, more than
                :data:`MAX_HANDSHAKE_BYTES` from the peer, a version-1 peer (a server answers it
                :data:`OLD_PEER_ANSWER`), not TLS, a refused certificate, or a key other than
                ``expect``.
        """
        if self._done:
            return
        async with self._handshake_lock:
            if self._error is None and not self._done:
                try:
                    with trio.fail_after(self.handshake_time_s):
                        await self._handshake()
                    self._done = True
                except trio.TooSlowError:
                    self._error = SecureError(f"no encrypted handshake within {self.handshake_time_s:g} s", "timeout")
                except SecureError as exc:
                    self._error = exc
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                    self._error = SecureError(f"the connection broke during the encrypted handshake ({exc})",
                                              "closed")
            if self._error is not None:
                raise self._error

    async def _handshake(self) -> None:
        received = 0
        for _ in range(1 << 16):  # bounded: each pass reads bytes, and at most MAX_HANDSHAKE_BYTES come
            try:
                self._ssl.do_handshake()
                done = True
            except ssl.SSLWantReadError:
                done = False
            except ssl.SSLError as exc:
                with contextlib.suppress(Exception):
                    await self._flush()  # our alert tells the peer why
                raise SecureError(_tls_why(exc)) from None
            await self._flush()
            if done:
                break
            data = await self._receive_raw()
            if not data:
                raise SecureError("the peer closed the connection during the encrypted handshake"
                                  + (" (is it an older p2ptrumps, protocol version 1? it cannot talk to this one, "
                                     "version 2)" if received == 0 and not self.server else ""), "closed")
            if received == 0 and data[0] not in (TLS_HANDSHAKE_RECORD, TLS_ALERT_RECORD):
                await self._not_tls(data[0])
            received += len(data)
            if received > MAX_HANDSHAKE_BYTES:
                raise SecureError(f"the peer sent more than {MAX_HANDSHAKE_BYTES} bytes in the encrypted handshake")
            self._in.write(data)
        else:
            raise SecureError("the encrypted handshake does not end")
        if self._ssl.selected_alpn_protocol() != ALPN:
            raise SecureError(f"the peer does not speak {ALPN} (its ALPN: "
                              f"{self._ssl.selected_alpn_protocol() or 'none'})", "not-p2ptrumps")
        der = self._ssl.getpeercert(binary_form=True)
        if der is None:
            raise SecureError("the peer presented no certificate", "key")
        key = certificate_key(der)
        if self.expect is not None and key != self.expect:
            raise SecureError(f"the peer's key {fingerprint(key)} is not the expected {fingerprint(self.expect)}: "
                              "refused", "key")
        self.peer_key = key

    async def _not_tls(self, first: int) -> None:
        if first == 0x00:  # a frame length: a version-1 peer speaks frames in the clear (wire.md §18.5)
            if self.server:
                with contextlib.suppress(Exception):
                    await self.transport.send_all(OLD_PEER_ANSWER)
                raise SecureError("an older p2ptrumps (protocol version 1, unencrypted) connected; it was told "
                                  "that this side speaks version 2", "old-version")
            raise SecureError("the host runs an older p2ptrumps (protocol version 1, unencrypted), which cannot "
                              "talk to this one (version 2): both need the same version", "old-version")
        raise SecureError(f"not an encrypted p2ptrumps connection: its first byte is 0x{first:02x}, where TLS "
                          "starts with 0x16", "not-p2ptrumps")

    async def _receive_raw(self) -> bytes:
        data = bytes(await self.transport.receive_some(RECEIVE_BYTES))
        self.raw_received += len(data)
        return data

    async def _flush(self) -> None:
        """Send what TLS wrote to the outgoing BIO, in order (under the send lock)."""
        async with self._send_lock:
            data = self._out.read()
            if data:
                await self.transport.send_all(data)
                self.raw_sent += len(data)

    # ----- trio.abc.HalfCloseableStream ----------------------------------------------------

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        """Encrypt and send ``data`` (after the handshake).  Raises ``trio.ClosedResourceError``
        after :meth:`send_eof` or :meth:`aclose`, :class:`SecureError` / ``trio.BrokenResourceError``
        when the connection broke."""
        if self._closed or self._eof_sent:
            raise trio.ClosedResourceError("the stream is closed for sending")
        await self.handshake()
        async with self._send_lock:
            view = memoryview(data)
            for _ in range(len(view) + 1):  # bounded: each write takes at least one byte
                if not view:
                    break
                try:
                    n = self._ssl.write(view)
                except ssl.SSLError as exc:
                    raise trio.BrokenResourceError(_tls_why(exc)) from None
                view = view[n:]
            out = self._out.read()
            if out:
                await self.transport.send_all(out)
                self.raw_sent += len(out)

    async def wait_send_all_might_not_block(self) -> None:
        await self.transport.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        """Up to ``max_bytes`` (default 65536) decrypted bytes; ``b""`` at the peer's close_notify or
        the transport's end.  Raises :class:`SecureError` / ``trio.BrokenResourceError`` (the
        handshake failed, a record does not decrypt, the peer sent an alert)."""
        if self._closed:
            raise trio.ClosedResourceError("the stream is closed")
        await self.handshake()
        n = max_bytes or RECEIVE_BYTES
        for _ in range(1 << 30):  # one pass per read from the transport
            try:
                data: bytes | None = self._ssl.read(n)
            except ssl.SSLWantReadError:
                data = None
            except ssl.SSLZeroReturnError:
                data = b""
            except ssl.SSLError as exc:
                raise trio.BrokenResourceError(_tls_why(exc)) from None
            if self._out.pending and not self._send_lock.locked():
                await self._flush()  # a post-handshake answer (a key update); else the next send takes it
            if data:  # and whatever else the bytes read so far hold (several records at once, as TCP gives)
                parts = [data]
                size = len(data)
                for _ in range(n):  # bounded: each pass takes at least one byte
                    if size >= n:
                        break
                    try:
                        more = self._ssl.read(n - size)
                    except ssl.SSLError:  # wants more bytes, the peer's close, a bad record: the next call says
                        break
                    if not more:
                        break
                    parts.append(more)
                    size += len(more)
                return b"".join(parts)
            if data is not None:
                return data
            raw = await self._receive_raw()
            if not raw:
                return b""  # closed without close_notify: as a plain TCP close (wire.md §18.3)
            self._in.write(raw)
        raise trio.BrokenResourceError("unreachable")

    async def send_eof(self) -> None:
        """Send TLS close_notify: we send nothing more, and still read the peer (TLS 1.3 §6.1)."""
        if self._eof_sent or self._closed:
            return
        self._eof_sent = True
        if not self._done:
            return
        async with self._send_lock:
            with contextlib.suppress(ssl.SSLWantReadError, ssl.SSLError):
                self._ssl.unwrap()
            out = self._out.read()
            if out:
                await self.transport.send_all(out)
                self.raw_sent += len(out)

    async def aclose(self) -> None:
        """Close: a close_notify if one is due and can go out at once, then the transport."""
        if self._closed:
            await trio.lowlevel.checkpoint()
            return
        self._closed = True
        try:
            if self._done and not self._eof_sent and not self._send_lock.locked():
                with contextlib.suppress(ssl.SSLWantReadError, ssl.SSLError):
                    self._ssl.unwrap()
                out = self._out.read()
                if out:
                    with trio.move_on_after(1.0), contextlib.suppress(Exception):
                        await self.transport.send_all(out)
        finally:
            await self.transport.aclose()


def secure(stream: trio.abc.Stream, identity: Identity, *, server: bool, expect: bytes | None = None,
           handshake_time_s: float = HANDSHAKE_TIME_S) -> SecureStream:
    """Wrap a connected ``stream`` in TLS 1.3 as protocol/wire.md §18 says.

    Args:
        stream: the connection (a ``trio.SocketStream``, or any stream: a relay's, a test's).
        identity: our key; its certificate (:func:`certificate`) is what we present.
        server: True for the host (TLS server), False for the guest (TLS client), whoever
            opened the connection.
        expect: the peer's raw key when it is already known (pinned by a code, a resumed match):
            any other key is refused at the handshake.  None: any key, checked later against the
            hello (:func:`key_mismatch`).
        handshake_time_s: seconds the handshake may take.
    Returns:
        a :class:`SecureStream`; the handshake runs on its first use or :meth:`SecureStream.handshake`
        (so an accepting loop never waits on a peer).
    """
    return SecureStream(stream, _context(identity, server), server=server, expect=expect,
                        handshake_time_s=handshake_time_s)


def key_mismatch(stream: object, key: bytes, what: str) -> str | None:
    """One line refusing the peer when ``stream`` is a :class:`SecureStream` whose proven key is not
    ``key`` (the key of the peer's hello, or of the seat it resumes: ``what`` names it); None when they
    agree or the stream is not encrypted (a test's memory stream).  (protocol/wire.md §18.3)"""
    proven = getattr(stream, "peer_key", None)
    if not isinstance(proven, bytes) or proven == key:
        return None
    return (f"the peer's certificate holds key {fingerprint(proven)}, but {what} is {fingerprint(key)}: "
            "refused (protocol/wire.md §18.3)")
