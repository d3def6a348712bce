"""The build floors in pyproject.toml are true.

``license = "MIT"`` (an SPDX expression, PEP 639) needs setuptools >= 77: with the older floor of
68 (Ubuntu 24.04's) ``pip install --no-build-isolation .`` failed.  platformdirs before 4.11.8
took a relative ``XDG_DATA_HOME`` as it was, so each working directory got its own identity.
This test installs the project with exactly the floor setuptools, without build isolation, and
checks the floor platformdirs (and the one before it) against a relative ``XDG_DATA_HOME``.  The
floor wheels come from the package index; without one the test says so and is skipped.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _floor(requirements: list[str], name: str) -> str:
    """The version after ``>=`` in the requirement of ``name``."""
    for req in requirements:
        if m := re.fullmatch(rf"{name}\s*>=\s*([0-9.]+)", req.split(";")[0].strip()):
            return m[1]
    raise AssertionError(f"no {name}>= floor in {requirements}")


SETUPTOOLS_FLOOR = _floor(PYPROJECT["build-system"]["requires"], "setuptools")
PLATFORMDIRS_FLOOR = _floor(PYPROJECT["project"]["dependencies"], "platformdirs")


def test_the_floors_are_the_ones_found() -> None:
    assert (SETUPTOOLS_FLOOR, PLATFORMDIRS_FLOOR) == ("77", "4.11.8")
    assert PYPROJECT["project"]["license"] == "MIT"  # the form that needs setuptools 77


def _download(where: Path, spec: str) -> Path:
    done = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:",
                           "-d", str(where), spec], capture_output=True, text=True, timeout=180)
    found = sorted(where.glob(spec.split("=")[0] + "-*.whl"))
    if done.returncode or not found:
        pytest.skip(f"cannot fetch {spec} from the package index: {done.stderr.strip()[-200:]}")
    return found[-1]


def test_install_with_the_floor_setuptools_and_no_build_isolation(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    setuptools_wheel = _download(wheels, f"setuptools=={SETUPTOOLS_FLOOR}.*")
    source = tmp_path / "src"  # a copy: an in-tree build would leave build/ and egg-info in the checkout
    shutil.copytree(ROOT / "p2ptrumps", source / "p2ptrumps", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    env = tmp_path / "env"
    # An environment with nothing in it (no pip, no setuptools of the venv's own): this pip installs into it
    # (--python), which is much quicker than bootstrapping a pip there.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True, timeout=120)
    python = env / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python), "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "install", "--no-index", str(setuptools_wheel)], check=True, timeout=120)
    built = subprocess.run([*pip, "install", "--no-build-isolation", "--no-deps", "--no-index", str(source)],
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-2000:]
    shown = subprocess.run([*pip[:-1], "show", "p2ptrumps", "setuptools"], capture_output=True, text=True, timeout=60)
    versions = re.findall(r"^Version: (\S+)", shown.stdout, re.M)
    assert versions[0] == "0.1.0" and versions[1].startswith(f"{SETUPTOOLS_FLOOR}.")
    # The compiled catalogs and the translated rule books come with it, no build step (p2ptrumps/locale/README.md).
    installed = next(env.glob("lib/python*/site-packages/p2ptrumps"))
    assert sorted(p.relative_to(installed).as_posix() for p in installed.glob("locale/*/*")
                  if p.name in ("LC_MESSAGES", "RULES.md")) == [
        f"locale/{code}/{name}" for code in ("ca", "lt", "ru", "vi") for name in ("LC_MESSAGES", "RULES.md")]
    for code in ("ca", "lt", "ru", "vi"):
        assert (installed / "locale" / code / "LC_MESSAGES" / "p2ptrumps.mo").read_bytes() == (
            ROOT / "p2ptrumps" / "locale" / code / "LC_MESSAGES" / "p2ptrumps.mo").read_bytes()


def _data_dir_with(wheel: Path, xdg: str, cwd: Path) -> str:
    code = "import platformdirs; print(platformdirs.user_data_dir('p2ptrumps', appauthor=False))"
    done = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(wheel)!r}); {code}"],
                          capture_output=True, text=True, timeout=60, cwd=cwd, env={**os.environ, "XDG_DATA_HOME": xdg})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.skipif(sys.platform != "linux", reason="XDG_DATA_HOME is read on Linux")
def test_the_floor_platformdirs_ignores_a_relative_xdg_data_home(tmp_path: Path) -> None:
    floor = _download(tmp_path, f"platformdirs=={PLATFORMDIRS_FLOOR}")
    before = _download(tmp_path / "before", "platformdirs==4.11.7")
    assert _data_dir_with(before, "relative", tmp_path) == "relative/p2ptrumps"  # one identity per directory
    assert _data_dir_with(floor, "relative", tmp_path) == str(Path.home() / ".local/share/p2ptrumps")
