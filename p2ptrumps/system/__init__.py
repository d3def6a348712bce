"""What differs between operating systems, one small module per concern.

* :mod:`.signals` -- the signals that mean "leave now" (SIGTERM, SIGHUP; on Windows SIGBREAK,
  which a closed console window raises) and handlers where asyncio cannot install them.
* :mod:`.termmodes` -- echo and line mode off for a moment (``termios``; nothing on Windows).
* :mod:`.locks` -- one writer per file: ``flock``, ``msvcrt`` byte locks on Windows, and a lock
  file where the file system has neither (NFS without lockd, some CIFS/FUSE mounts).
* :mod:`.dirsync` -- a file's and a directory's entries on the disk (``fsync``; ``F_FULLFSYNC``
  on macOS; nothing for directories on Windows, whose file systems journal their entries).
* :mod:`.keyfile` -- a private file (mode 0600 on POSIX; on Windows the user profile's ACLs)
  and publishing a new file under a name only if the name is free (a hard link, or where the
  file system has none a placeholder taken with ``O_EXCL`` and replaced).
* :mod:`.uilanguage` -- the user's interface language where the environment has none (Windows:
  ``GetUserDefaultUILanguage``).
* :mod:`.boottime` -- seconds on a clock that keeps counting while the machine sleeps
  (``CLOCK_BOOTTIME``; ``CLOCK_MONOTONIC_RAW`` on macOS; the biased interrupt time on Windows),
  and the seconds slept between two readings, for the move clock (``protocol/wire.md`` §16).

Standard library only; nothing here knows about cards, logs or keys.  Each module picks its
branch with ``sys.platform`` (so ``mypy --platform win32`` / ``darwin`` check the branch that
platform runs) and keeps the logic of the other branches callable on Linux, where the tests
run it with stand-ins for the Windows modules.
"""
