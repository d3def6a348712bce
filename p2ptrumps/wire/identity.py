"""Identity keys: Ed25519 key pairs, public key checks, fingerprints.

Source: ``protocol/wire.md`` §4.

* :class:`Identity` -- our long-term private key (signs).  Made from a 32-byte
  seed the caller supplies (this layer reads no OS randomness) or from a
  ``cryptography`` ``Ed25519PrivateKey``; :meth:`Identity.dump` /
  :meth:`Identity.load` turn it into bytes for a key file and back.
* :class:`PublicKey` -- a peer's key (verifies).  :meth:`PublicKey.from_bytes`
  rejects non-canonical encodings (y >= p), the small-order points and bytes
  that are not a curve point itself, because ``cryptography`` may accept them
  (and fail only at the first signature).
* :func:`fingerprint` -- the human form of a key: the first 20 bytes of
  SHA-256(raw public key) in RFC 4648 base32, upper case, 8 groups of 4 joined
  by ``-`` (e.g. ``"MFRG-GZDF-..."``).
"""

from __future__ import annotations

import base64
import hashlib

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ..message import N_
from .errors import RemoteProtocolError

#: The field prime of Curve25519, 2**255 - 19.
P = (1 << 255) - 19
#: y coordinates of the 8 points of small order (protocol/wire.md §4.2): order 4 (y=0),
#: order 1 (y=1), order 2 (y=p-1) and the two y values of the order-8 points.
SMALL_ORDER_Y: frozenset[int] = frozenset(
    {
        0,
        1,
        P - 1,
        2707385501144840649318225287225658788936804267575313519463743609750303402022,
        P - 2707385501144840649318225287225658788936804267575313519463743609750303402022,
    }
)
#: The Edwards curve constant d = -121665/121666 mod p (RFC 8032 §5.1).
D = -121665 * pow(121666, P - 2, P) % P
FINGERPRINT_BYTES = 20
KEY_FILE_MAGIC = b"p2ptrumps-identity-v1 "


class IdentityError(ValueError):
    """A key file or key bytes are unreadable; the message says why."""


def check_public_key(raw: bytes) -> None:
    """Raise ``RemoteProtocolError("bad-key")`` unless ``raw`` is an acceptable Ed25519
    public key: 32 bytes, canonical (y < p), not of small order, a point of the curve
    (protocol/wire.md §4.2)."""
    if not isinstance(raw, bytes) or len(raw) != 32:
        raise RemoteProtocolError("bad-key", N_("a public key must be 32 bytes"))
    y = int.from_bytes(raw, "little") & ((1 << 255) - 1)
    if y >= P:
        raise RemoteProtocolError("bad-key", N_("public key %(key)s is not canonical (y >= p)", key=raw.hex()))
    if y in SMALL_ORDER_Y:
        raise RemoteProtocolError("bad-key", N_("public key %(key)s is a point of small order", key=raw.hex()))
    if not is_curve_point(raw):
        raise RemoteProtocolError("bad-key", N_("public key %(key)s is not a point of the curve", key=raw.hex()))


def is_curve_point(raw: bytes) -> bool:
    """Whether 32 bytes with ``y < p`` decode to a point of edwards25519 (RFC 8032 §5.1.3):
    ``x^2 = (y^2 - 1) / (d y^2 + 1)`` has a square root mod p, and ``x = 0`` has sign bit 0."""
    y = int.from_bytes(raw, "little") & ((1 << 255) - 1)
    sign = raw[31] >> 7
    u = (y * y - 1) % P
    v = (D * y * y + 1) % P
    x2 = u * pow(v, P - 2, P) % P
    if x2 == 0:
        return sign == 0
    return pow(x2, (P - 1) // 2, P) == 1  # Euler's criterion: x2 is a square mod p


def fingerprint(raw_public_key: bytes) -> str:
    """Human fingerprint of a raw 32-byte public key (protocol/wire.md §4.3), 39 characters."""
    digest = hashlib.sha256(raw_public_key).digest()[:FINGERPRINT_BYTES]
    text = base64.b32encode(digest).decode("ascii")  # 32 characters, no padding for 20 bytes
    return "-".join(text[i : i + 4] for i in range(0, len(text), 4))


def normalise_fingerprint(text: str) -> str:
    """A fingerprint as typed -> comparable form: separators and spaces dropped, upper case."""
    return "".join(ch for ch in text if ch not in " \t\r\n:-_").upper()


class PublicKey:
    """A checked Ed25519 public key.  Build with :meth:`from_bytes`."""

    __slots__ = ("_key", "raw")

    def __init__(self, raw: bytes, key: Ed25519PublicKey) -> None:
        self.raw = raw
        self._key = key

    @classmethod
    def from_bytes(cls, raw: bytes) -> PublicKey:
        """Check and load 32 raw bytes; ``RemoteProtocolError("bad-key")`` when refused."""
        check_public_key(raw)
        try:
            key = Ed25519PublicKey.from_public_bytes(raw)
        except ValueError as exc:
            raise RemoteProtocolError("bad-key", N_("public key %(key)s is not a curve point: %(why)s", key=raw.hex(),
                                                    why=str(exc))) from None
        return cls(raw, key)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.raw)

    def verify(self, signature: bytes, data: bytes) -> bool:
        """Whether ``signature`` (64 bytes) is this key's Ed25519 signature of ``data``."""
        if len(signature) != 64:
            return False
        try:
            self._key.verify(signature, data)
        except InvalidSignature:
            return False
        return True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PublicKey) and other.raw == self.raw

    def __hash__(self) -> int:
        return hash(self.raw)

    def __repr__(self) -> str:
        return f"PublicKey({self.fingerprint})"


class Identity:
    """Our long-term Ed25519 key.

    Args:
        private_key: a ``cryptography`` ``Ed25519PrivateKey``.
    """

    __slots__ = ("_key", "public_bytes")

    def __init__(self, private_key: Ed25519PrivateKey) -> None:
        self._key = private_key
        self.public_bytes: bytes = private_key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )

    @classmethod
    def from_seed(cls, seed: bytes) -> Identity:
        """The key whose RFC 8032 private seed is ``seed`` (32 bytes, e.g. ``os.urandom(32)``).
        ``ValueError`` for another length."""
        if not isinstance(seed, bytes) or len(seed) != 32:
            raise ValueError("an Ed25519 seed is 32 bytes")
        return cls(Ed25519PrivateKey.from_private_bytes(seed))

    @property
    def seed(self) -> bytes:
        """The 32-byte private seed (secret!)."""
        return self._key.private_bytes(
            serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
        )

    @property
    def private_key(self) -> Ed25519PrivateKey:
        return self._key

    @property
    def public_key(self) -> PublicKey:
        return PublicKey(self.public_bytes, self._key.public_key())

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_bytes)

    def sign(self, data: bytes) -> bytes:
        """The 64-byte Ed25519 signature of ``data``."""
        return self._key.sign(data)

    def dump(self) -> bytes:
        """Key file bytes: ``b"p2ptrumps-identity-v1 " + hex(seed) + b"\\n"`` (keep it mode 0600)."""
        return KEY_FILE_MAGIC + self.seed.hex().encode("ascii") + b"\n"

    @classmethod
    def load(cls, data: bytes) -> Identity:
        """Inverse of :meth:`dump`; :class:`IdentityError` naming what is wrong."""
        if not data.startswith(KEY_FILE_MAGIC):
            raise IdentityError(N_("not a p2ptrumps identity key (missing '%(header)s' header)",
                                  header="p2ptrumps-identity-v1"))
        rest = data[len(KEY_FILE_MAGIC) :]
        line, _, extra = rest.partition(b"\n")
        if extra.strip():
            raise IdentityError(N_("identity key: unexpected text after the key line (the file holds one line)"))
        text = line.strip()
        try:
            seed = bytes.fromhex(text.decode("ascii"))
        except (UnicodeDecodeError, ValueError):
            raise IdentityError(N_("identity key: the seed is not hex")) from None
        if len(seed) != 32:
            raise IdentityError(N_("identity key: the seed is %(n)d bytes, not 32", n=len(seed)))
        return cls.from_seed(seed)

    def __repr__(self) -> str:
        return f"Identity({self.fingerprint})"
