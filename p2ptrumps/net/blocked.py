"""The keys this user plays no match with: ``blocked_peers.json``, beside the known peers.

Source: ``protocol/files.md`` ("blocked_peers.json") for the file, ``protocol/wire.md`` §7.3 ("A
blocked key, on either side") for what a block does at the doorway.

:class:`BlockedPeers` reads the file and changes it under the lock of the known peers (one lock for
the two files of the peers), reading it again first and writing it atomically, as
:class:`~p2ptrumps.net.keystore.KnownPeers` does.  :func:`block` and :func:`unblock` are what the
commands of the same names do, and say it in one line each; :func:`refusal_note` is the one line a
side prints when it turns a blocked key away.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ..message import N_
from ..system import locks
from ..text import quoted
from ..wire.identity import fingerprint, normalise_fingerprint
from .keystore import (
    KNOWN_PEERS_FILE,
    KNOWN_PEERS_LOCK_WAIT_S,
    KeyStoreError,
    KnownPeers,
    atomic_write,
    data_dir,
    malformed,
    read_entries,
)

BLOCKED_FILE = "blocked_peers.json"
BLOCKED_FORMAT = "p2ptrumps-blocked-peers"
BLOCKED_VERSION = 1
#: Who a refusal names before any hello.
A_GUEST = N_("a guest")
#: What a damaged file's error adds: it blocks nobody meanwhile (protocol/files.md).
UNTIL_THEN = " (until then it blocks nobody)"
#: Characters of a fingerprint without its separators (protocol/wire.md §4.3: base32 of 20 bytes).
FINGERPRINT_CHARS = 32
_BASE32 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")


def canonical_fingerprint(text: str) -> str | None:
    """``text`` as a fingerprint in its canonical form (upper case, groups of four joined by ``-``), or
    None when it is not one (protocol/wire.md §4.3: 32 base32 characters once spaces, ``-``, ``:`` and
    ``_`` are dropped and case ignored)."""
    clean = normalise_fingerprint(text)
    if len(clean) != FINGERPRINT_CHARS or not set(clean) <= _BASE32:
        return None
    return "-".join(clean[i:i + 4] for i in range(0, FINGERPRINT_CHARS, 4))


@dataclass(frozen=True)
class BlockedPeer:
    """One blocked key: its ``fingerprint`` (canonical), the ``name`` it was known by when blocked
    (``""`` if none), and when it was ``blocked`` (ISO 8601 UTC text)."""

    fingerprint: str
    name: str
    blocked: str

    def to_json(self) -> dict[str, str]:
        return {"fingerprint": self.fingerprint, "name": self.name, "blocked": self.blocked}

    @property
    def label(self) -> str:
        """``'Hana' (3HAG-AQH3-…)`` or the fingerprint alone."""
        return f"{quoted(self.name)} ({self.fingerprint})" if self.name else self.fingerprint


class BlockedPeers:
    """The ``blocked_peers.json`` file of a data directory, read on construction (a missing file blocks
    nobody).

    Raises:
        KeyStoreError: the file exists but cannot be read, or is not a blocked-peers file of this
            version, or an entry lacks a field or holds no fingerprint: it blocks nobody then, and
            is never overwritten (fix or remove it by hand); the one line says so.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.peers: list[BlockedPeer] = self._read()

    @classmethod
    def open(cls, directory: Path | None = None) -> BlockedPeers:
        """The blocked peers of this user (``blocked_peers.json`` in :func:`~p2ptrumps.net.keystore.data_dir`)."""
        return cls((directory or data_dir()) / BLOCKED_FILE)

    def _read(self) -> list[BlockedPeer]:
        entries = read_entries(self.path, BLOCKED_FORMAT, BLOCKED_VERSION, ("fingerprint", "name", "blocked"),
                               "blocked peers file", "entry", UNTIL_THEN)
        peers = []
        for i, (text, name, when) in enumerate(entries):
            fp = canonical_fingerprint(text)
            if fp is None:
                raise malformed(self.path, "blocked peers file", f"entry {i + 1}: {text!r} is not a fingerprint",
                                UNTIL_THEN)
            peers.append(BlockedPeer(fp, name, when))
        return peers

    def find(self, fingerprint: str) -> BlockedPeer | None:
        """The entry blocking ``fingerprint`` (compared as fingerprints are), or None."""
        fp = normalise_fingerprint(fingerprint)
        return next((p for p in self.peers if normalise_fingerprint(p.fingerprint) == fp), None)

    def _update(self, change: Callable[[list[BlockedPeer]], list[BlockedPeer] | None]) -> None:
        """Under the known peers' lock: read the file again, ``change(peers)`` -> the new list (None: no
        change), write it.  Raises KeyStoreError."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            with locks.hold(self.path.parent / KNOWN_PEERS_FILE, KNOWN_PEERS_LOCK_WAIT_S):
                self.peers = self._read()
                new = change(self.peers)
                if new is not None:
                    self.peers = new
                    data = {"format": BLOCKED_FORMAT, "version": BLOCKED_VERSION,
                            "peers": [p.to_json() for p in new]}
                    atomic_write(self.path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        except locks.LockBusy:
            raise KeyStoreError(f"the peers files in {self.path.parent} are being changed by another p2ptrumps "
                                f"process for over {KNOWN_PEERS_LOCK_WAIT_S:g} s; try again") from None
        except OSError as exc:
            raise KeyStoreError(f"cannot write {self.path}: {exc.strerror or exc}") from None

    def add(self, fingerprint: str, name: str, now: datetime | None = None) -> bool:
        """Block the key of ``fingerprint`` (canonical form) known as ``name``; False if it was blocked
        already (nothing changes then)."""
        when = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
        added = [False]

        def change(peers: list[BlockedPeer]) -> list[BlockedPeer] | None:
            if any(normalise_fingerprint(p.fingerprint) == normalise_fingerprint(fingerprint) for p in peers):
                return None
            added[0] = True
            return [*peers, BlockedPeer(fingerprint, name, when)]

        self._update(change)
        return added[0]

    def remove(self, name_or_fingerprint: str) -> list[BlockedPeer]:
        """Unblock every entry whose fingerprint or name is ``name_or_fingerprint``; the entries removed."""
        text = name_or_fingerprint.strip()
        fp = normalise_fingerprint(text)
        gone: list[BlockedPeer] = []

        def change(peers: list[BlockedPeer]) -> list[BlockedPeer] | None:
            gone[:] = [p for p in peers if normalise_fingerprint(p.fingerprint) == fp or (text and p.name == text)]
            return [p for p in peers if p not in gone] if gone else None

        self._update(change)
        return gone


class BlockError(Exception):
    """``block`` cannot tell which key is meant (one line: what to type instead)."""


def block(directory: Path, name_or_fingerprint: str, now: datetime | None = None) -> str:
    """``p2ptrumps block NAME_OR_FP`` (protocol/files.md, "blocked_peers.json"): block a fingerprint as
    typed, or the one pinned key of that name or address.  Returns the line to print.

    Raises:
        BlockError: no key has that name or address, or several have (they are listed), or the text is
            neither a fingerprint nor a known name.
        KeyStoreError: a peers file cannot be read or written.
    """
    text = name_or_fingerprint.strip()
    fp = canonical_fingerprint(text)
    known = KnownPeers.open(directory).peers
    if fp is not None:
        names = sorted({p.name for p in known if normalise_fingerprint(p.fingerprint) == normalise_fingerprint(fp)})
        name = names[0] if names else ""
    else:
        keys: dict[str, list[str]] = {}
        for p in known:
            if p.name == text or p.address == text:
                keys.setdefault(canonical_fingerprint(p.fingerprint) or p.fingerprint, []).append(p.name)
        if not keys:
            raise BlockError(f"no known peer is named {quoted(text)} (or met at that address), and it is no "
                             "fingerprint (32 letters and digits in groups of four): give the fingerprint to block")
        if len(keys) > 1:
            listed = "; ".join(f"{quoted(names[0])} {key}" for key, names in sorted(keys.items()))
            raise BlockError(f"{len(keys)} keys are known as {quoted(text)}: {listed}; block one by its fingerprint")
        fp, names = next(iter(keys.items()))
        name = names[0]
    entry = BlockedPeer(fp, name, "")
    if not BlockedPeers.open(directory).add(fp, name, now):
        return f"{entry.label} is blocked already"
    return (f"blocked {entry.label}: a match with this key is refused from now on, when it joins you or you join "
            f"it (p2ptrumps unblock {fp} undoes it)")


def unblock(directory: Path, name_or_fingerprint: str) -> str:
    """``p2ptrumps unblock NAME_OR_FP``: unblock the entries of that fingerprint or name; the line to
    print.

    Raises:
        BlockError: no blocked key has that fingerprint or name.
        KeyStoreError: the file cannot be read or written.
    """
    gone = BlockedPeers.open(directory).remove(name_or_fingerprint)
    if not gone:
        raise BlockError(f"no blocked key has the fingerprint or name {quoted(name_or_fingerprint.strip())}")
    return "unblocked " + ", ".join(p.label for p in gone)


def refusal_note(entry: BlockedPeer, name: str, where: str, unnamed: str = A_GUEST) -> str:
    """The one line a side prints when it turns away the blocked key of ``entry``, which shows the name
    ``name`` (``""`` before any hello: then the name it was blocked under, or ``unnamed``) ``where``
    (``"from 192.0.2.7"``, ``"at 192.0.2.7:4816"``)."""
    shown = quoted(name or entry.name) if name or entry.name else unnamed
    if name and entry.name and entry.name != name:
        return N_("turned away %(name)s %(where)s: you blocked the key %(key)s, blocked as %(blocked_as)s "
                  "(%(command)s)", name=shown, where=where, key=entry.fingerprint, blocked_as=quoted(entry.name),
                  command=f"p2ptrumps unblock {entry.fingerprint}")
    return N_("turned away %(name)s %(where)s: you blocked the key %(key)s (%(command)s)", name=shown, where=where,
              key=entry.fingerprint, command=f"p2ptrumps unblock {entry.fingerprint}")


def blocked_key(directory: Path, key: bytes) -> tuple[BlockedPeer | None, str]:
    """The entry blocking the raw public ``key`` in the data directory ``directory``, or None; and a line
    to show when the file could not be read (then nobody is blocked: protocol/files.md), else ``""``."""
    try:
        return BlockedPeers.open(directory).find(fingerprint(key)), ""
    except KeyStoreError as exc:
        return None, str(exc)


def guest_refusal_note(key: object, reason: str, where: str, directory: Path) -> str:
    """(host) The one line for a guest whose first frame was ``["refuse", reason]`` (protocol/wire.md
    §7.3: it blocked our key): the key its encrypted handshake proved (``key``: 32 bytes, or None on a
    plain test stream) and the name it is pinned under, if any."""
    who: str = A_GUEST
    if isinstance(key, bytes):
        fp = fingerprint(key)
        try:
            names = sorted({p.name for p in KnownPeers.open(directory).peers
                            if normalise_fingerprint(p.fingerprint) == normalise_fingerprint(fp)})
        except KeyStoreError:
            names = []
        who = f"{quoted(names[0])} ({fp})" if names else N_("a guest with the key %(key)s", key=fp)
    why = N_("it blocked your key") if reason == "blocked" else N_("its reason: %(reason)s", reason=quoted(reason))
    return N_("%(who)s %(where)s refused to play with you: %(why)s", who=who, where=where, why=why)
