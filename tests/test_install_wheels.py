"""Installs with no compiler: every required dependency (pyproject.toml's ``dependencies``) resolves to
wheels alone -- ``pip``'s resolver with ``--only-binary=:all:`` -- for Windows x86-64, macOS arm64 and
x86-64, and manylinux x86-64 and aarch64, on CPython 3.11 to 3.13 (the README's platforms).  A dependency
with no wheel somewhere (``netifaces`` 0.11 had none from Python 3.11 on) fails here, naming the
platform, the Python and pip's reason.

Each case resolves as ``pip download --only-binary=:all: --platform P --python-version V`` would, but
without fetching the wheels (``pip install --dry-run --target``: the same resolver, reading only the
packages' metadata).  The default run resolves each platform once and each Python at least once (5
cases, two at a time); ``-m slow`` resolves all 15.  Skipped, with pip's reason, where the package index cannot
be reached."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The platforms as pip's --platform takes them: every tag a wheel for that machine may carry.
PLATFORMS = {
    "win_amd64": ("win_amd64",),
    "macos-arm64": ("macosx_11_0_arm64", "macosx_10_9_universal2"),
    "macos-x86_64": ("macosx_10_13_x86_64", "macosx_10_9_universal2"),
    "manylinux-x86_64": ("manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64",
                         "manylinux1_x86_64"),
    "manylinux-aarch64": ("manylinux_2_28_aarch64", "manylinux_2_17_aarch64", "manylinux2014_aarch64"),
}
PYTHONS = ("3.11", "3.12", "3.13")
#: The default run: each platform once, and each Python at least once.
DEFAULT = {("win_amd64", "3.13"), ("macos-arm64", "3.11"), ("macos-x86_64", "3.12"), ("manylinux-x86_64", "3.13"),
           ("manylinux-aarch64", "3.11")}
#: Seconds one resolution may take (metadata of ~50 packages over the network).
RESOLVE_S = 300


def requirements() -> list[str]:
    """The required dependencies, as pyproject.toml lists them."""
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    return [str(d) for d in deps]


def _pip(*args: str, timeout: float = RESOLVE_S) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
                          capture_output=True, text=True, timeout=timeout)


@lru_cache(maxsize=1)
def index_unreachable(scratch: str) -> str | None:
    """Why the package index cannot be reached from here (pip's last line), or None when it can."""
    try:
        run = _pip("download", "--no-deps", "--only-binary=:all:", "--platform", "win_amd64", "--python-version",
                   "3.13", "--implementation", "cp", "-d", scratch, "--quiet", "trio", timeout=120)
    except subprocess.TimeoutExpired:
        return "pip download of one wheel took over 120 s"
    if run.returncode == 0:
        return None
    lines = [ln for ln in run.stderr.splitlines() if ln.strip() and not ln.startswith("WARNING")]
    return lines[-1] if lines else f"pip exited with {run.returncode}"


def resolve(platform: str, python: str, target: Path) -> tuple[str, str, str | None]:
    """Resolve :func:`requirements` to wheels alone for ``platform`` and ``python``: (platform, python, None)
    or (..., pip's reason in its last lines)."""
    args = ["install", "--dry-run", "--ignore-installed", "--only-binary=:all:", "--implementation", "cp",
            "--python-version", python, "--target", str(target), "--quiet"]
    for tag in PLATFORMS[platform]:
        args += ["--platform", tag]
    run = _pip(*args, *requirements())
    if run.returncode == 0:
        return platform, python, None
    lines = [ln for ln in run.stderr.splitlines() if ln.strip() and not ln.startswith("WARNING")]
    return platform, python, "\n".join(lines[-3:])


def _check(cases: list[tuple[str, str]], tmp_path: Path) -> None:
    why = index_unreachable(str(tmp_path / "probe"))
    if why is not None:
        pytest.skip(f"the package index cannot be reached: {why}")
    with ThreadPoolExecutor(2) as pool:
        done = list(pool.map(lambda c: resolve(c[0], c[1], tmp_path / f"{c[0]}-{c[1]}"), cases))
    failed = [f"{p} Python {v}: {why}" for p, v, why in done if why is not None]
    assert failed == [], "\n".join(failed)


def test_the_dependencies_are_the_ones_with_wheels() -> None:
    names = [r.split(">")[0].split("=")[0].split("<")[0].strip().lower() for r in requirements()]
    assert "nat-pmp" not in names and "netifaces" not in names  # no wheel from Python 3.11 on
    assert "netifaces-plus" in names


@pytest.mark.timeout(600)
def test_every_required_dependency_has_wheels_on_each_platform(tmp_path: Path) -> None:
    _check(sorted(DEFAULT), tmp_path)


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_every_required_dependency_has_wheels_on_each_platform_and_python(tmp_path: Path) -> None:
    _check([(p, v) for p in PLATFORMS for v in PYTHONS], tmp_path)
