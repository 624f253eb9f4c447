"""The client as a user gets it: a wheel and an sdist built from clients/python with ``python -m
build``, both passing ``twine check``; the wheel holds ``py.typed``, the ``facedown-bot`` entry
point, the version of pyproject.toml and no file of the server."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

CLIENT = Path(__file__).resolve().parents[2] / "clients" / "python"


def test_the_wheel_and_sdist_build_and_pass_twine_check(tmp_path: Path) -> None:
    version = tomllib.loads((CLIENT / "pyproject.toml").read_text())["project"]["version"]
    assert f"## {version} " in (CLIENT / "CHANGELOG.md").read_text()
    assert f'__version__ = "{version}"' in (CLIENT / "src/facedown_client/__init__.py").read_text()
    source = tmp_path / "source"  # built from a copy: the build leaves egg-info behind
    shutil.copytree(CLIENT, source, ignore=shutil.ignore_patterns("*.egg-info", "__pycache__"))
    dist = tmp_path / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(source)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    wheel = dist / f"facedown_client-{version}-py3-none-any.whl"
    # The sdist's name: normalised (facedown_client) by newer setuptools, dashed by older.
    (sdist,) = [
        dist / f"{name}-{version}.tar.gz"
        for name in ("facedown_client", "facedown-client")
        if (dist / f"{name}-{version}.tar.gz").exists()
    ]
    assert wheel.exists(), sorted(p.name for p in dist.iterdir())
    checked = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        entry_points = next(n for n in names if n.endswith("entry_points.txt"))
        assert "facedown-bot = facedown_client.cli:main" in archive.read(entry_points).decode()
    assert "facedown_client/py.typed" in names and "facedown_client/openspiel.py" in names
    assert all(name.startswith(("facedown_client/", "facedown_client-")) for name in names)
