"""Network namespaces and the processes started in them, made and removed together: the ground the
network lab (:mod:`.lab`) builds its homes and routers on; for tests and benches only.

Every namespace is ``<tag>-<role>`` (the lab's tag names its process, see :data:`.lab.PREFIX`); a role
is a place in the lab (``"inet"``, a home, its router ``"<home>-r"``).  :meth:`Namespaces.close` ends
every process started with :meth:`Namespaces.popen` and removes every namespace made, also after an
error; nothing is left in the machine's own namespace.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

TIMEOUT_S = 20.0


class LabError(RuntimeError):
    """A lab command failed (the message has the command and its error output)."""


class Namespaces:
    """The namespaces of one lab, named ``<tag>-<role>``, and the processes started in them; a scratch
    directory (:attr:`dir`) for their files.  Nothing is made here but the directory: a lab adds its
    namespaces with :meth:`_add_ns` and joins them with :meth:`_link`.
    """

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.made: list[str] = []
        self.procs: list[subprocess.Popen[bytes]] = []
        self.dir = Path(tempfile.mkdtemp(prefix=f"{tag}-"))

    # -- names and commands

    def ns(self, role: str) -> str:
        """The namespace name of ``role`` (``"inet"``, a home, ``"<home>-r"``, ``"cgnat-isp"``)."""
        return f"{self.tag}-{role}"

    def run(self, role: str, argv: Sequence[str], *, check: bool = True, timeout: float = TIMEOUT_S,
            input: str | None = None) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` in ``role``'s namespace and wait (``timeout`` seconds at most).

        Raises:
            LabError: ``check`` and the command failed.
        """
        cmd = ["ip", "netns", "exec", self.ns(role), *argv]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, input=input, check=False)
        if check and r.returncode != 0:
            raise LabError(f"{' '.join(cmd)}: {r.stderr.strip() or r.stdout.strip() or r.returncode}")
        return r

    def popen(self, role: str, argv: Sequence[str], **kwargs: object) -> subprocess.Popen[bytes]:
        """Start ``argv`` in ``role``'s namespace (``subprocess.Popen`` keyword arguments pass on); the
        lab ends it when it closes (SIGTERM, then SIGKILL after 3 s)."""
        proc: subprocess.Popen[bytes] = subprocess.Popen(
            ["ip", "netns", "exec", self.ns(role), *argv], **kwargs)  # type: ignore[call-overload]
        self.procs.append(proc)
        return proc

    def start(self, role: str, argv: Sequence[str], **kwargs: object) -> subprocess.Popen[bytes]:
        """:meth:`popen` (the name another fixture uses to start a service, e.g. in ``"inet"``)."""
        return self.popen(role, argv, **kwargs)

    # -- making namespaces

    def _add_ns(self, role: str) -> None:
        name = self.ns(role)
        r = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True, timeout=10, check=False)
        if r.returncode != 0:
            raise LabError(f"ip netns add {name}: {r.stderr.strip()}")
        self.made.append(name)
        self.run(role, ["ip", "link", "set", "lo", "up"])
        self.run(role, ["sysctl", "-qw", "net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0",
                        "net.ipv6.conf.default.accept_ra=0"])

    def _link(self, a: str, a_if: str, b: str, b_if: str) -> None:
        """A veth pair between namespaces ``a`` and ``b``, named ``a_if`` there and ``b_if`` here; both up."""
        subprocess.run(["ip", "-n", self.ns(a), "link", "add", a_if, "type", "veth", "peer", "name", b_if,
                        "netns", self.ns(b)], capture_output=True, text=True, timeout=10, check=True)
        self.run(a, ["ip", "link", "set", a_if, "up"])
        self.run(b, ["ip", "link", "set", b_if, "up"])

    def _ip(self, role: str, *args: str) -> None:
        self.run(role, ["ip", *args])

    # -- probes

    def connects(self, role: str, host: str, port: int, timeout_s: float = 2.0) -> bool:
        """Whether a TCP connection from ``role``'s namespace to ``host``:``port`` is accepted within
        ``timeout_s`` seconds (a probe for reachability; sends nothing)."""
        code = ("import socket,sys\n"
                "try:\n socket.create_connection((sys.argv[1], int(sys.argv[2])), float(sys.argv[3])).close()\n"
                "except OSError: sys.exit(1)\n")
        r = self.run(role, [sys.executable, "-c", code, host, str(port), str(timeout_s)], check=False,
                     timeout=timeout_s + 10)
        return r.returncode == 0

    def listen(self, role: str, address: str, port: int) -> subprocess.Popen[bytes]:
        """A TCP listener in ``role``'s namespace on ``address``:``port`` that accepts and closes every
        connection (for reachability probes); ended with the lab."""
        code = ("import socket,sys\n"
                "s = socket.create_server((sys.argv[1], int(sys.argv[2])), family=socket.AF_INET6 "
                "if ':' in sys.argv[1] else socket.AF_INET, dualstack_ipv6=sys.argv[1] == '::')\n"
                "print('ready', flush=True)\n"
                "for _ in range(100000):\n c, _ = s.accept(); c.close()\n")
        proc = self.popen(role, [sys.executable, "-c", code, address, str(port)], stdout=subprocess.PIPE)
        assert proc.stdout is not None
        proc.stdout.readline()
        return proc

    # -- teardown

    def close(self) -> None:
        """End every process started in the lab, then remove every namespace made (never raises)."""
        for proc in reversed(self.procs):
            with contextlib.suppress(Exception):
                end(proc)
        for name in reversed(self.made):
            with contextlib.suppress(Exception):
                kill_all_in(name)
                subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=10, check=False)
        self.made.clear()
        with contextlib.suppress(Exception):
            shutil.rmtree(self.dir)


def kill_all_in(ns: str) -> None:
    if sys.platform == "win32":  # the lab is Linux's (network namespaces)
        return
    r = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True, timeout=10, check=False)
    for pid in r.stdout.split():
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pid), signal.SIGKILL)


def end(proc: subprocess.Popen[bytes]) -> None:
    """Terminate ``proc`` (SIGKILL after 3 s) and close its pipes."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(3)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(3)
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()
