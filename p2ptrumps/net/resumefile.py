"""The resume file beside an unfinished match log: what a restarted peer needs besides the log.

Source: ``protocol/files.md`` ("the resume file") and ``protocol/wire.md`` §14.4.  The file
``X.p2plog.resume`` holds the game id, our role, where to find the peer again (the guest:
the address it joined; the host: its bind address and port) and every deal secret we
committed to.  Each secret is on the disk (written atomically and ``fsync``-ed) before its
commitment is signed, so a peer that dies after committing can still reveal.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..command import typed
from ..system.dirsync import sync_dir

FORMAT = "p2ptrumps-resume"
VERSION = 1
SUFFIX = ".resume"
#: The largest resume file read, bytes (1000 deals of secrets fit many times over).
MAX_FILE_BYTES = 1 << 20


class ResumeFileError(ValueError):
    """The resume file is missing, unreadable or not ours; the message names the file and the fault."""


def path_for(log_path: Path) -> Path:
    """The resume file of the match log ``log_path``: the same name with ``.resume`` added."""
    return log_path.with_name(log_path.name + SUFFIX)


def kept_lines(logs: list[Path]) -> list[str]:
    """What a run that stopped says of each match log it keeps: ``match log (kept): PATH``, and where its
    resume file is beside it (an unfinished match that can be taken up, wire.md §14.4) the command that
    does it as the person can type it, ``take it up when you both can: p2ptrumps resume PATH``."""
    out: list[str] = []
    for path in logs:
        out.append(f"match log (kept): {path}")
        if path_for(path).exists():
            out.append(f"take it up when you both can: {typed('resume')} {path}")
    return out


@dataclass
class ResumeFile:
    """The content of a resume file (``protocol/files.md``).

    Attributes:
        path: where it lives (beside the log).
        game_id: the log's 32-byte game id.
        role: ``"host"`` or ``"guest"``.
        address: (guest) the ``HOST:PORT`` it joined, as typed; None for the host.
        bind: (host) its ``--bind`` value, None for every address.
        port: (host) the port it listened on; 0 for the guest.
        secrets: deal number -> our 32-byte commit secret.
        meet: (a match met by code) the candidates and relay to reconnect by (protocol/rendezvous.md
            §5); None for a match by address.
        abandoned_at: when this side ended the match as abandoned by the other (protocol/wire.md §15.1),
            ISO 8601 UTC; None when it did not.
    """

    path: Path
    game_id: bytes
    role: str
    address: str | None = None
    bind: str | None = None
    port: int = 0
    secrets: dict[int, bytes] = field(default_factory=dict)
    meet: dict[str, Any] | None = None
    abandoned_at: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON object of ``protocol/files.md``."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "game_id": self.game_id.hex(),
            "role": self.role,
            "address": self.address,
            "bind": self.bind,
            "port": self.port,
            "secrets": {str(d): s.hex() for d, s in sorted(self.secrets.items())},
            **({"meet": self.meet} if self.meet is not None else {}),
            **({"abandoned_at": self.abandoned_at} if self.abandoned_at is not None else {}),
        }

    def save(self) -> None:
        """Write the file atomically (temporary file, ``fsync``, rename, directory ``fsync``), mode 0600.
        Raises OSError (disk full, ...)."""
        data = (json.dumps(self.to_json(), indent=1) + "\n").encode()
        directory = self.path.parent
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=self.path.name + ".", suffix=".tmp", dir=directory)  # mode 0600
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        sync_dir(directory)

    def add_secret(self, deal: int, secret: bytes) -> None:
        """Record our commit secret for ``deal`` and write the file to the disk before returning
        (``protocol/wire.md`` §14.4: before the commitment is signed).  Raises OSError."""
        self.secrets[deal] = secret
        self.save()

    def delete(self) -> None:
        """Remove the file (the match is complete); a missing file is fine."""
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    @classmethod
    def load(cls, path: Path) -> ResumeFile:
        """Read and check a resume file.

        Raises:
            ResumeFileError: missing, group/world readable, too big, not UTF-8 JSON, another
                format or version, a field missing or of the wrong type.
        """
        try:
            st = path.stat()
            if not stat.S_ISREG(st.st_mode):
                raise ResumeFileError(f"{path} is not a regular file")
            if os.name == "posix" and st.st_mode & 0o077:
                raise ResumeFileError(f"{path} may be read by others (mode {stat.S_IMODE(st.st_mode):o}); "
                                      f"it holds deal secrets: chmod 600 {path}")
            if st.st_size > MAX_FILE_BYTES:
                raise ResumeFileError(f"{path} is {st.st_size} bytes, more than a resume file holds")
            raw = path.read_bytes()
        except FileNotFoundError:
            raise ResumeFileError(f"no resume file {path}: the match was not started by this program, "
                                  "or it was given up") from None
        except OSError as exc:
            raise ResumeFileError(f"cannot read {path}: {exc.strerror or exc}") from None
        try:
            doc = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ResumeFileError(f"{path} is not a resume file (not UTF-8 JSON: {exc})") from None
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise ResumeFileError(f"{path} is not a resume file (format {FORMAT!r} expected)")
        if doc.get("version") != VERSION:
            raise ResumeFileError(f"{path}: resume file version {doc.get('version')!r} is not supported "
                                  f"(this program reads version {VERSION})")
        try:
            gid = bytes.fromhex(_text(doc, "game_id"))
            role = _text(doc, "role")
            address, bind, port = doc["address"], doc["bind"], doc["port"]
            raw_secrets = doc["secrets"]
            meet = doc.get("meet")
            if meet is not None and not isinstance(meet, dict):
                raise ValueError("meet")
            abandoned_at = doc.get("abandoned_at")
            if abandoned_at is not None and not isinstance(abandoned_at, str):
                raise ValueError("abandoned_at")
            if len(gid) != 32 or role not in ("host", "guest") or not isinstance(raw_secrets, dict):
                raise ValueError("game_id, role or secrets")
            if address is not None and not isinstance(address, str):
                raise ValueError("address")
            if bind is not None and not isinstance(bind, str):
                raise ValueError("bind")
            if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
                raise ValueError("port")
            secrets = {int(d): bytes.fromhex(_str(s)) for d, s in raw_secrets.items()}
            if any(len(s) != 32 or not 1 <= d <= 1000 for d, s in secrets.items()):
                raise ValueError("secrets")
        except (KeyError, ValueError, TypeError) as exc:
            raise ResumeFileError(f"{path}: a field is missing or malformed ({exc})") from None
        return cls(path, gid, role, address, bind, port, secrets, meet, abandoned_at)


def _text(doc: dict[str, Any], key: str) -> str:
    return _str(doc[key])


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{value!r} is not text")
    return value
