"""Fixtures shared by the test modules."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, settings

from tests.test_ui_tmux import Tmux

# No test asks a real router for a port mapping (p2ptrumps.net.portmap): that would send SSDP and
# NAT-PMP packets to this machine's own network.  The lab's tests give their peers an environment
# without it, inside the lab's namespaces.
os.environ["P2PTRUMPS_NO_MAP"] = "1"

# The program's hints print its commands as the person can type them (p2ptrumps.command.typed_program):
# here, as with the virtual environment active, `p2ptrumps ...` (tests/test_typed_hints.py checks the rest).
os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])

# Every test speaks English, whatever the machine's language (p2ptrumps/i18n.py reads LANGUAGE first); a
# test of another language asks for it (--lang, or LANGUAGE in a child's environment).
os.environ["LANGUAGE"] = "en"

# No property test fails on the clock: hypothesis's default deadline (200 ms an example) and its too-slow
# health check measure the machine, and a loaded CI machine fails them now and then ("Flaky: Unreliable
# test timings").  A test's own @settings still sets its example count.
settings.register_profile("p2ptrumps", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("p2ptrumps")


@pytest.fixture(scope="session", autouse=True)
def _sigint_as_from_a_terminal() -> Iterator[None]:
    """The suite runs with Python's own SIGINT handler, however it was started.  A shell without job
    control starts a command put in the background (``cmd &``, as a CI runner may) with SIGINT
    ignored, and Python keeps an ignored SIGINT: then ``_thread.interrupt_main()`` does nothing and the
    Ctrl-C test of ``solve`` ran its budget out -- in such a run only (the handler no test had leaked)."""
    if threading.current_thread() is not threading.main_thread() or (
            signal.getsignal(signal.SIGINT) is not signal.SIG_IGN):
        yield
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.fixture(autouse=True)
def _sigint_handler_kept(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every test leaves SIGINT's handler as it found it (Python's own, ``signal.default_int_handler``):
    a test that left another made a later Ctrl-C test fail in the full run only (the signal never
    reached the solver).  The leaking test fails by name; the handler is put back for the rest."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.getsignal(signal.SIGINT)
    yield
    after = signal.getsignal(signal.SIGINT)
    if after is not before:
        signal.signal(signal.SIGINT, before)
        pytest.fail(f"{request.node.nodeid} left SIGINT's handler {after!r} (it found {before!r})", pytrace=False)


@pytest.fixture(autouse=True)
def _english_again() -> Iterator[None]:
    """A test that made the process speak another language (``main(["--lang", "ru", ...])``,
    :func:`p2ptrumps.i18n.use`) leaves it speaking English, as every other test expects."""
    yield
    from p2ptrumps import i18n

    if i18n.current() != i18n.SOURCE or os.environ.get("LANGUAGE") != "en":
        i18n.use(i18n.SOURCE)
        os.environ["LANGUAGE"] = "en"


@pytest.fixture
def tmux() -> Iterator[Tmux]:
    """A tmux server of the test's own (one socket per test: a server still shutting down from the
    test before must not refuse this one's new-session), killed at the end."""
    t = Tmux(f"p2ptrumps-test-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    try:
        yield t
    finally:
        subprocess.run(["tmux", "-L", t.socket, "kill-server"], capture_output=True, timeout=10, check=False)
        # The server's socket file may outlive it: leave no litter in the tmux directory.
        folder = Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"
        (folder / t.socket).unlink(missing_ok=True)


def load_script(path: Path) -> ModuleType:
    """The stand-alone script at ``path`` (a bench, a vector generator: not in a package) as a module,
    registered under its file name."""
    name = path.stem
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def load_bench(name: str) -> ModuleType:
    """``bench/<name>.py`` as a module, for the tests that run a short version of a bench."""
    return load_script(Path(__file__).resolve().parent.parent / "bench" / f"{name}.py")


def pytest_report_header() -> str:
    """One line at the top of every run: whether the network lab's tests can run here."""
    from p2ptrumps.net import lab

    why = lab.unavailable()
    return "network lab: ready" if why is None else f"network lab: NOT AVAILABLE, its tests skip: {why}"


@pytest.fixture(scope="module")
def netlab() -> Iterator[object]:
    """A :class:`p2ptrumps.net.lab.Lab` with two homes of every kind (``"upnp"`` and ``"upnp-2"`` ...: a host
    in one, a guest in the other), shared by a module's tests and removed at the end; the test skips,
    saying why, where no lab can be made."""
    from p2ptrumps.net import lab

    why = lab.unavailable()
    if why is not None:
        pytest.skip(f"network lab unavailable: {why}")
    lab.sweep()
    with lab.Lab(lab.HOMES + tuple(f"{h}-2" for h in lab.HOMES)) as net:
        yield net
