"""The user's identity key, display name and known peers, in the user data directory.

Source: ``protocol/files.md`` (the identity key, created on first use, mode 0600; known peers
pinned on first use; a changed key for a known peer is refused loudly) and
``protocol/wire.md`` (the fingerprint of a key is defined there and computed by
:mod:`p2ptrumps.wire.identity`; this module only stores and compares it).

Files, all under :func:`data_dir` (``platformdirs.user_data_dir("p2ptrumps")``,
so ``XDG_DATA_HOME`` gives each user or process its own):

* ``identity.key`` -- the long-term Ed25519 private key in the form of
  :meth:`p2ptrumps.wire.identity.Identity.dump` (``p2ptrumps-identity-v1 <hex seed>``),
  created with mode 0600 (``O_CREAT | O_EXCL``).  A key file that the group or
  others may read is refused.
* ``name`` -- the display name shown to peers (UTF-8 text, one line).
* ``known_peers.json`` -- the pinned peers: format ``p2ptrumps-known-peers``
  version 1, ``{"peers": [{"fingerprint", "name", "address", "first_seen"}]}``.

Nothing here touches sockets; :mod:`p2ptrumps.net.driver` asks the questions.
"""

from __future__ import annotations

import contextlib
import enum
import getpass
import json
import os
import time
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import platformdirs

from ..command import typed
from ..files import probe_dir, write_atomic
from ..i18n import tr
from ..message import N_, message_of
from ..system import keyfile, locks
from ..text import MAX_NAME_CHARS as MAX_NAME_CHARS  # the one name length (protocol/wire.md §5.1)
from ..text import check_name, quoted, refused_in
from ..wire.identity import Identity, IdentityError
from ..wire.identity import normalise_fingerprint as normalise_fingerprint

APP_NAME = "p2ptrumps"
KEY_FILE = "identity.key"
NAME_FILE = "name"
KNOWN_PEERS_FILE = "known_peers.json"
KNOWN_PEERS_FORMAT = "p2ptrumps-known-peers"
KNOWN_PEERS_VERSION = 1


class KeyStoreError(Exception):
    """The key, name or known-peers file cannot be used; the message names the file and the fault."""


class PinningError(Exception):
    """A peer's key is refused (changed key, fingerprint mismatch, not confirmed); the message says why."""


def data_dir() -> Path:
    """The per-user data directory (``$XDG_DATA_HOME/p2ptrumps`` on Linux), created with mode 0700.

    Raises:
        KeyStoreError: it cannot be created or is not a directory (a file in the way).
    """
    return _ensure_dir(Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)))


def _ensure_dir(path: Path) -> Path:
    """``path`` as an existing directory (created with mode 0700 if missing); KeyStoreError otherwise."""
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
    except FileExistsError:
        raise KeyStoreError(f"data directory {path} is not a directory (a file is in the way); "
                            "move it away or set XDG_DATA_HOME") from None
    except OSError as exc:
        raise KeyStoreError(f"cannot create data directory {path}: {exc.strerror or exc}") from None
    if not path.is_dir():
        raise KeyStoreError(f"data directory {path} is not a directory")
    return path


# ----- identity key --------------------------------------------------------------


def _check_private(path: Path) -> None:
    """KeyStoreError when others may read the key file (POSIX modes; not checked on Windows:
    :mod:`p2ptrumps.system.keyfile`)."""
    problem = keyfile.private_problem(path)
    if problem is not None:
        raise KeyStoreError(f"key file {path} is readable by others ({problem}); refusing to use it. "
                            f"Run: chmod 600 {path}")


#: How long a reader waits for a key another process is publishing (an empty placeholder, where the
#: file system has no hard links), seconds, and how often it looks.
KEY_PUBLISH_WAIT_S = 2.0
KEY_PUBLISH_POLL_S = 0.05


def _read_key(path: Path) -> bytes:
    """The key file's bytes; waits up to :data:`KEY_PUBLISH_WAIT_S` while it is an empty placeholder
    (another process is creating it: :func:`p2ptrumps.system.keyfile.publish`).  Raises OSError, or
    KeyStoreError when it stays empty (its creation was interrupted)."""
    deadline = time.monotonic() + KEY_PUBLISH_WAIT_S
    while True:
        data = path.read_bytes()
        if len(data) != keyfile.PLACEHOLDER_SIZE:
            return data
        if time.monotonic() >= deadline:
            raise KeyStoreError(f"key file {path} is empty: creating it was interrupted. Remove it and run "
                                "again to create a new key")
        time.sleep(KEY_PUBLISH_POLL_S)


def load_or_create_key(directory: Path | None = None, seed: bytes | None = None) -> tuple[Identity, bool]:
    """The identity key of this user, created on first use.

    Args:
        directory: where the key lives (default :func:`data_dir`).
        seed: the 32-byte seed of a new key (default ``os.urandom(32)``); unused
            when the key exists.
    Returns:
        ``(identity, created)``: the key and whether it was created now.
    Raises:
        KeyStoreError: the key file is group/world-readable, unreadable, or not
            a p2ptrumps identity key.
    """
    directory = _ensure_dir(directory or data_dir())
    path = directory / KEY_FILE
    created = False
    if not path.exists() and not path.is_symlink():
        created = _create_key(path, Identity.from_seed(seed or os.urandom(32)))
    try:
        if not path.is_file():
            raise KeyStoreError(f"key file {path} is not a regular file (a directory or a broken link?); "
                                "move it away to create a new key")
        _check_private(path)
        data = _read_key(path)
    except OSError as exc:
        raise KeyStoreError(f"cannot read key file {path}: {exc.strerror or exc}") from None
    try:
        return Identity.load(data), created
    except IdentityError as exc:
        raise KeyStoreError(f"key file {path} is unusable: {exc}") from None


def _create_key(path: Path, identity: Identity) -> bool:
    """Write ``identity`` to ``path`` unless another process got there first; True if we wrote it.

    The key goes to a temporary file created ``O_CREAT | O_EXCL`` with mode 0600,
    is fsynced, then published under its name only if the name is free
    (:func:`p2ptrumps.system.keyfile.publish`: a hard link, or where the file system
    has none an ``O_EXCL`` placeholder replaced in one rename), so the key file is
    never seen half written and never replaced.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise KeyStoreError(f"cannot create key file in {path.parent}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(identity.dump())
            f.flush()
            os.fsync(f.fileno())
        try:
            return keyfile.publish(tmp, path)
        except OSError as exc:
            raise KeyStoreError(f"cannot create key file {path}: {exc.strerror or exc}") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


# ----- display name ----------------------------------------------------------------


#: Letters that draw nothing (Hangul fillers, the blank Braille pattern, Khmer inherent vowels).
BLANK_LETTERS = frozenset("\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")
#: Unicode categories that draw nothing by themselves: separators, controls, format characters,
#: combining marks, surrogates, private use and unassigned code points.
_UNSEEN_CATEGORIES = frozenset({"Zs", "Zl", "Zp", "Cc", "Cf", "Mn", "Me", "Cs", "Co", "Cn"})


def is_blank(text: str) -> bool:
    """True when no character of ``text`` draws anything (``"\u200b"``, ``"\u3164"``, a lone
    combining accent): a name like that reads as no name at all.  This is our own check on the
    names we choose (``--name``, ``id --name``, the name file), not part of the wire's text rule,
    which takes any text without refused code points from a peer."""
    return all(ch in BLANK_LETTERS or unicodedata.category(ch) in _UNSEEN_CATEGORIES for ch in text)


def clean_name(text: str) -> str:
    """``text`` as a display name.  The text rule (protocol/wire.md §5.1) is checked on the text as
    given: a code point it refuses (a line break, a tab, an escape, ...) is refused, never turned
    into a space.  Then runs of spaces become one and the ends are trimmed (as ``--name`` takes
    it), and the name must have 1..:data:`MAX_NAME_CHARS` code points
    (:func:`p2ptrumps.text.check_name`) and draw something.  Nothing is cut or dropped: emoji with
    zero-width joiners stay whole.

    Raises:
        ValueError: naming the fault (``"a name must be 1..40 characters, not 45"``,
            ``"a name contains U+000A, a control character"``).
    """
    why = refused_in(text, "a name")
    if why:
        raise ValueError(why)
    name = " ".join(text.split())
    check_name(name)
    if is_blank(name):
        raise ValueError("a name needs at least one visible character (this one draws nothing)")
    return name


def default_name() -> str:
    """The login name, or ``"player"`` if it cannot be found or is no valid display name."""
    try:
        return clean_name(getpass.getuser())
    except (ValueError, KeyError, OSError):
        return "player"


def load_name(directory: Path | None = None) -> str:
    """The stored display name (the ``name`` file, protocol/files.md; a trailing newline is ignored),
    or :func:`default_name` if none is stored.

    Raises:
        KeyStoreError: the file cannot be read, is not UTF-8, or its name breaks the text rule
            (it is refused, never cut: the message says how to set a new one).
    """
    path = (directory or data_dir()) / NAME_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return default_name()
    except (OSError, UnicodeDecodeError) as exc:
        raise KeyStoreError(f"cannot read the name file {path}: {getattr(exc, 'strerror', None) or exc}; "
                            f"set your name again with `{typed('id --name NAME')}`") from None
    try:
        return clean_name(text.removesuffix("\n"))
    except ValueError as exc:
        raise KeyStoreError(f"the name file {path} holds no usable name: {exc}; set your name again with "
                            f"`{typed('id --name NAME')}`") from None


#: Times :func:`first_name` asks before it takes the login name.
NAME_QUESTIONS = 3


def first_name(directory: Path, ask: Callable[[str], str | None] | None) -> tuple[str, str]:
    """The name a networked command plays under: the stored one, or — the first time, when
    no ``name`` file exists (protocol/files.md) — the answer to one question offering the login
    name (:func:`default_name`; an empty answer takes it), stored so it is never asked again.

    Args:
        directory: the data directory.
        ask: shows a question (ending in ``": "``) and returns the line typed, None at end of
            input; None when nobody can be asked (no terminal): the login name is used, not stored.
    Returns:
        (the name, a line for the user: ``""`` when a stored name was used, else what was chosen).
    Raises:
        KeyStoreError: the name file is unusable (:func:`load_name`) or cannot be written.
    """
    path = directory / NAME_FILE
    if path.exists() or path.is_symlink():
        return load_name(directory), ""
    login = default_name()
    unset = N_("no name set: other players see your login name %(name)s (set one with `%(command)s`)",
               name=quoted(login), command=typed("id --name NAME"))
    if ask is None:
        return login, unset
    fault = ""
    for _ in range(NAME_QUESTIONS):
        answer = ask(fault + tr(N_("Your name, as other players will see it [%(name)s]: ", name=login)))
        if answer is None:
            return login, unset
        try:
            name = save_name(answer if answer.strip() else login, directory)
        except ValueError as exc:
            fault = tr(N_("%(fault)s. ", fault=message_of(exc)))
            continue
        return name, N_("your name %(name)s is saved; change it with `%(command)s`", name=quoted(name),
                        command=typed("id --name NAME"))
    return login, unset


def save_name(name: str, directory: Path | None = None) -> str:
    """Store the display name (as :func:`clean_name` takes it; never cut); returns it.
    Raises ValueError (a name the text rule refuses) / KeyStoreError (cannot write)."""
    cleaned = clean_name(name)
    directory = directory or data_dir()
    atomic_write(directory / NAME_FILE, cleaned + "\n")
    return cleaned


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (a temporary file beside it, then rename), creating the data
    directory (mode 0700) if needed.  Raises KeyStoreError (one line) when it cannot be written."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        write_atomic(path, text, prefix=f".{path.name}.")
    except OSError as exc:
        raise KeyStoreError(f"cannot write {path}: {exc.strerror or exc}") from None


def check_ready(directory: Path) -> None:
    """Refuse at start-up what would otherwise fail only after a peer was admitted: a data
    directory where no file can be written (read-only, no permission, the disk full) and a
    known-peers file that cannot be read or is malformed.  Raises KeyStoreError (one line)."""
    try:
        probe_dir(directory)
    except OSError as exc:
        raise KeyStoreError(f"cannot write in the data directory {directory}: {exc.strerror or exc} "
                            "(make it writable, or set XDG_DATA_HOME)") from None
    KnownPeers.open(directory)


# ----- known peers ----------------------------------------------------------------


def read_entries(path: Path, fmt: str, version: int, fields: tuple[str, ...], what: str, item: str,
                 after: str = "") -> list[tuple[str, ...]]:
    """The entries of a peers file (``{"format": fmt, "version": version, "peers": [...]}``,
    protocol/files.md): for each, its text ``fields`` in order; ``[]`` for a missing file.

    Raises:
        KeyStoreError: ``"cannot read {what} {path}: ..."``, or ``"{what} {path} is malformed (why); fix or
            remove it by hand{after}"`` (another format or version, an ``item`` that is no object or
            lacks a field's text, JSON nested too deeply).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        raise KeyStoreError(f"cannot read {what} {path}: {exc}") from None
    try:
        data: Any = json.loads(text)
        if not isinstance(data, dict) or data.get("format") != fmt:
            raise ValueError(f"not a {fmt} file")
        if data.get("version") != version:
            raise ValueError(f"unsupported version {data.get('version')!r}")
        entries = []
        for i, p in enumerate(data["peers"]):
            if not isinstance(p, dict):
                raise ValueError(f"{item} {i + 1} is not an object")
            values = [p.get(k) for k in fields]
            if not all(isinstance(v, str) for v in values):
                raise ValueError(f"{item} {i + 1} lacks {'/'.join(fields)} text")
            entries.append(tuple(str(v) for v in values))
        return entries
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        raise malformed(path, what, "nested too deeply" if isinstance(exc, RecursionError) else str(exc),
                        after) from None


def malformed(path: Path, what: str, why: str, after: str = "") -> KeyStoreError:
    """The error of a peers file that does not read: ``"{what} {path} is malformed ({why}); fix or remove it
    by hand{after}"``."""
    return KeyStoreError(f"{what} {path} is malformed ({why}); fix or remove it by hand{after}")


@dataclass(frozen=True)
class KnownPeer:
    """One pinned peer: its key ``fingerprint`` (as the wire shows it), the ``name`` it
    gave, the ``address`` we met it at (``host:port`` for a host we joined, the IP
    for a guest), and ``first_seen`` (ISO 8601 UTC text)."""

    fingerprint: str
    name: str
    address: str
    first_seen: str

    def to_json(self) -> dict[str, str]:
        return {"fingerprint": self.fingerprint, "name": self.name, "address": self.address,
                "first_seen": self.first_seen}


class Pin(enum.Enum):
    """What the known-peers file says about a key."""

    KNOWN = "known"  # this fingerprint is pinned
    UNKNOWN = "unknown"  # never seen, and no pinned peer was met at its address
    CHANGED = "changed"  # a pinned peer met at this address has another key


@dataclass(frozen=True)
class PinCheck:
    """The verdict of :meth:`KnownPeers.check` and the pinned entries behind it."""

    pin: Pin
    fingerprint: str
    name: str
    address: str
    conflicts: tuple[KnownPeer, ...] = ()
    #: Pinned entries of other keys that showed the same name (another peer: never a conflict).
    namesakes: tuple[KnownPeer, ...] = ()


#: How long a change to the known peers waits for another process's change, seconds.
KNOWN_PEERS_LOCK_WAIT_S = 10.0


class KnownPeers:
    """The ``known_peers.json`` file: read on construction; :meth:`add` and :meth:`forget` change
    it under a lock (:func:`p2ptrumps.system.locks.hold`), reading it again first, and write it
    atomically: a pin or an unpin made meanwhile by another process is never lost.

    Raises:
        KeyStoreError: the file exists but is unreadable or malformed (it is
            never overwritten then: fix or remove it by hand).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.peers: list[KnownPeer] = self._read()

    @classmethod
    def open(cls, directory: Path | None = None) -> KnownPeers:
        """The known peers of this user (``known_peers.json`` in :func:`data_dir`)."""
        return cls((directory or data_dir()) / KNOWN_PEERS_FILE)

    def _read(self) -> list[KnownPeer]:
        fields = ("fingerprint", "name", "address", "first_seen")
        return [KnownPeer(*entry) for entry in read_entries(self.path, KNOWN_PEERS_FORMAT, KNOWN_PEERS_VERSION,
                                                            fields, "known peers file", "peer")]

    def _update(self, change: Callable[[list[KnownPeer]], list[KnownPeer] | None]) -> None:
        """Under the lock: read the file again, ``change(peers)`` -> the new list (None: no change),
        write it.  Raises KeyStoreError (unreadable, cannot write, another process holds the lock
        longer than :data:`KNOWN_PEERS_LOCK_WAIT_S`)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            with locks.hold(self.path, KNOWN_PEERS_LOCK_WAIT_S):
                self.peers = self._read()
                new = change(self.peers)
                if new is not None:
                    self.peers = new
                    self._write()
        except locks.LockBusy:
            raise KeyStoreError(f"known peers file {self.path} is being changed by another p2ptrumps process "
                                f"for over {KNOWN_PEERS_LOCK_WAIT_S:g} s; try again") from None
        except OSError as exc:
            raise KeyStoreError(f"cannot write {self.path}: {exc.strerror or exc}") from None

    def check(self, fingerprint: str, name: str, address: str | None) -> PinCheck:
        """Is ``fingerprint`` pinned (protocol/files.md, known_peers.json matching: keys are
        identities, names are labels)?  ``CHANGED`` if another key is pinned for ``address``
        (when given); ``KNOWN`` if this key is pinned and no such conflict exists; else
        ``UNKNOWN``.  A name pinned for another key is no conflict: those entries are
        :attr:`PinCheck.namesakes` (another peer of the same name)."""
        fp = normalise_fingerprint(fingerprint)
        conflicts = tuple(
            p for p in self.peers
            if normalise_fingerprint(p.fingerprint) != fp and address and p.address == address
        )
        if conflicts:
            return PinCheck(Pin.CHANGED, fingerprint, name, address or "", conflicts)
        namesakes = tuple(p for p in self.peers if normalise_fingerprint(p.fingerprint) != fp and p.name == name)
        pin = Pin.KNOWN if any(normalise_fingerprint(p.fingerprint) == fp for p in self.peers) else Pin.UNKNOWN
        return PinCheck(pin, fingerprint, name, address or "", namesakes=namesakes)

    def add(self, fingerprint: str, name: str, address: str, now: datetime | None = None) -> None:
        """Pin a peer (no-op if this fingerprint with this name and address is already pinned)."""
        fp = normalise_fingerprint(fingerprint)
        when = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")

        def change(peers: list[KnownPeer]) -> list[KnownPeer] | None:
            if any(normalise_fingerprint(p.fingerprint) == fp and p.name == name and p.address == address
                   for p in peers):
                return None
            return [*peers, KnownPeer(fingerprint, name, address, when)]

        self._update(change)

    def _write(self) -> None:
        data = {"format": KNOWN_PEERS_FORMAT, "version": KNOWN_PEERS_VERSION,
                "peers": [p.to_json() for p in self.peers]}
        atomic_write(self.path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")

    def forget(self, name_or_fingerprint: str) -> list[KnownPeer]:
        """Unpin every peer whose fingerprint (compared with :func:`normalise_fingerprint`),
        name or address equals ``name_or_fingerprint``; returns the removed entries (the
        file is rewritten only if any were removed).  Raises KeyStoreError if it cannot be written."""
        text = name_or_fingerprint.strip()
        fp = normalise_fingerprint(text)
        gone: list[KnownPeer] = []

        def change(peers: list[KnownPeer]) -> list[KnownPeer] | None:
            gone[:] = [p for p in peers
                       if normalise_fingerprint(p.fingerprint) == fp or p.name == text or p.address == text]
            return [p for p in peers if p not in gone] if gone else None

        self._update(change)
        return gone

    def pin_guest(self, fingerprint: str, name: str, address: str) -> str:
        """(host side) Guests are known by their key alone: pin ``fingerprint`` if new and
        return a one-line note; a known name with another key is a warning, never a refusal
        (two people may share a name; the host accepts any guest).  KeyStoreError if the
        file cannot be written."""
        fp = normalise_fingerprint(fingerprint)
        if any(normalise_fingerprint(p.fingerprint) == fp for p in self.peers):
            return N_("guest %(name)s (%(fingerprint)s), a known key", name=quoted(name), fingerprint=fingerprint)
        same_name = [p for p in self.peers if p.name == name]
        self.add(fingerprint, name, address)
        if same_name:
            return N_("guest %(name)s (%(fingerprint)s), a new key (pinned); WARNING: a different key than the "
                      "%(name)s you played before, another person of that name? (%(namesakes)s; %(hint)s)",
                      name=quoted(name), fingerprint=fingerprint, namesakes=namesakes_text(name, same_name),
                      hint=forget_hint(same_name))
        return N_("guest %(name)s (%(fingerprint)s), a new key (pinned)", name=quoted(name), fingerprint=fingerprint)


#: At most this many other keys of one name are named in a note (the rest are counted).
NAMESAKES_SHOWN = 3


def _keys_of(peers: Sequence[KnownPeer]) -> list[list[KnownPeer]]:
    """``peers`` grouped by key (one group per fingerprint, in the file's order)."""
    groups: dict[str, list[KnownPeer]] = {}
    for p in peers:
        groups.setdefault(normalise_fingerprint(p.fingerprint), []).append(p)
    return list(groups.values())


def namesakes_text(name: str, namesakes: Sequence[KnownPeer]) -> str:
    """The other keys pinned under ``name``, all of them (up to :data:`NAMESAKES_SHOWN` named, the rest
    counted), each with where it was met: ``"another peer named 'bob' is pinned with key FP (at
    10.0.0.2:4816)"`` or ``"3 other peers named 'bob' are pinned, with keys FP1 (at …), FP2 (at …)
    and FP3 (at …)"``; ``""`` without namesakes.  :func:`forget_hint` says how to unpin one."""
    keys = _keys_of(namesakes)
    if not keys:
        return ""

    def one(entries: list[KnownPeer]) -> str:
        where = ", ".join(p.address for p in entries[:2]) + (f" and {len(entries) - 2} more" if len(entries) > 2
                                                             else "")
        return f"{entries[0].fingerprint} (at {where})"

    if len(keys) == 1:
        return f"another peer named {quoted(name)} is pinned with key {one(keys[0])}"
    shown = [one(k) for k in keys[:NAMESAKES_SHOWN]]
    rest = len(keys) - len(shown)
    listed = ", ".join(shown[:-1]) + " and " + shown[-1] if not rest else ", ".join(shown) + f" and {rest} more"
    return f"{len(keys)} other peers named {quoted(name)} are pinned, with keys {listed}"


def forget_hint(namesakes: Sequence[KnownPeer]) -> str:
    """The command that unpins one of ``namesakes``: ``"`p2ptrumps id --forget FP` forgets that one"``
    (one key), ``"`p2ptrumps id --forget FINGERPRINT` forgets one"`` (several; a name would forget
    them all)."""
    keys = _keys_of(namesakes)
    if len(keys) == 1:
        return f"`{typed('id --forget ' + keys[0][0].fingerprint)}` forgets that one"
    return f"`{typed('id --forget FINGERPRINT')}` forgets one"


def changed_key_message(check: PinCheck, path: Path) -> str:
    """The loud refusal for a changed key, naming both fingerprints and the file to edit."""
    old = check.conflicts[0]
    return (
        f"KEY CHANGED: {quoted(check.name)} at {check.address or '?'} now shows key {check.fingerprint}, "
        f"but {quoted(old.name)} at {old.address} was pinned on {old.first_seen} with key {old.fingerprint}. "
        f"Someone may be impersonating this peer. Refused. If the change is expected (they made a "
        f"new key), run `{typed('id --forget ' + old.fingerprint)}` (or remove the entry from {path}) "
        f"and join again."
    )


def decide_pin(
    check: PinCheck,
    known: KnownPeers,
    *,
    expected_fingerprint: str | None = None,
    accept_new: bool = False,
    confirm: Callable[[str], bool] | None = None,
) -> str:
    """Decide whether to trust a peer's key (ssh's rules) and pin it if it is new.

    Args:
        check: the verdict of :meth:`KnownPeers.check`.
        known: the file to pin a newly accepted key into.
        expected_fingerprint: ``--fingerprint``: the key must match it (compared
            with :func:`normalise_fingerprint`), known or not.
        accept_new: ``--accept-new``: accept an unknown key (never a changed one).
        confirm: asks the user a yes/no question (the text ends with ``[y/N]``);
            None when nobody can be asked.
    Returns:
        a one-line note for the user (``"new peer pinned"`` / ``"known peer"``).
    Raises:
        PinningError: the key changed, does not match ``expected_fingerprint``,
            or is unknown and was not accepted.
    """
    if check.pin is Pin.CHANGED:
        raise PinningError(changed_key_message(check, known.path))
    if expected_fingerprint is not None and (
        normalise_fingerprint(expected_fingerprint) != normalise_fingerprint(check.fingerprint)
    ):
        raise PinningError(
            f"fingerprint mismatch: {quoted(check.name)} shows key {check.fingerprint}, "
            f"but you expected {expected_fingerprint}. Refused."
        )
    if check.pin is Pin.KNOWN:
        if check.address:
            known.add(check.fingerprint, check.name, check.address)  # a new address of a known key is pinned too
        return N_("known peer %(name)s (%(fingerprint)s)", name=quoted(check.name), fingerprint=check.fingerprint)
    other = ""
    if check.namesakes:
        text = namesakes_text(check.name, check.namesakes)
        other = f"{text[:1].upper()}{text[1:]}: this is a different peer ({forget_hint(check.namesakes)}).\n"
    if expected_fingerprint is None and not accept_new:
        question = (
            f"{quoted(check.name)} at {check.address or '?'} is not a known peer.\n{other}"
            f"Its key fingerprint is {check.fingerprint}\n"
            f"Check it with them (they see it with `p2ptrumps id`). Accept and remember it? [y/N] "
        )
        if confirm is None:
            raise PinningError(
                f"unknown key {check.fingerprint} for {quoted(check.name)}: not confirmed "
                f"(pass --fingerprint FP or --accept-new, or answer the prompt on a terminal)"
            )
        if not confirm(question):
            raise PinningError(f"key {check.fingerprint} of {quoted(check.name)} not accepted")
    known.add(check.fingerprint, check.name, check.address)
    if check.namesakes:
        return N_("new peer %(name)s pinned (%(fingerprint)s); not the same peer: %(namesakes)s",
                  name=quoted(check.name), fingerprint=check.fingerprint,
                  namesakes=namesakes_text(check.name, check.namesakes))
    return N_("new peer %(name)s pinned (%(fingerprint)s)", name=quoted(check.name), fingerprint=check.fingerprint)
