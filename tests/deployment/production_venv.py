"""A virtualenv holding the production install, built as the image builds it: the files the
Dockerfile copies, then ``pip install .`` (no extras, not editable), so nothing the development
extras bring can hide a missing dependency.

The virtualenv lives outside the repository (``FACEDOWN_PRODUCTION_VENV``, by default under the
user's cache directory, one per stamp) and is kept while pyproject.toml and the Python version
stay the same (a stamp with their hash, as scripts/_env.sh does): only the project itself is
installed again, without its dependencies, when its files differ from those installed last (a
second stamp with their hash), so the services run today's code.

``python -m tests.deployment.production_venv`` builds or refreshes it ahead of the test:
scripts/test does so in the background while the lint and the workers' phase run, and the test,
in the serial phase, finds it ready.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PIP_QUIET = ("--quiet", "--disable-pip-version-check", "--no-input")


def venv_home() -> Path:
    chosen = os.environ.get("FACEDOWN_PRODUCTION_VENV")
    if chosen:
        return Path(chosen)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    # One per stamp: checkouts with other dependencies, tested at once, never rebuild each
    # other's (a rebuild is a whole pip install, a minute or two).
    return Path(cache) / "facedown" / f"production-venv-{stamp_value()[:16]}"


def dockerfile_copies() -> list[tuple[str, str]]:
    """(source, destination) of every ``COPY`` of the Dockerfile, in order."""
    text = (ROOT / "Dockerfile").read_text()
    return re.findall(r"^COPY (\S+) (\S+)$", text, re.M)


def dockerfile_env() -> dict[str, str]:
    """The variables the Dockerfile's ``ENV`` sets for every process of the image."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    found: dict[str, str] = {}
    for line in re.findall(r"^ENV (.+)$", text, re.M):
        found.update(re.findall(r"(\w+)=(\S+)", line))
    return found


def dockerfile_install() -> str:
    """The image's ``pip install`` command line."""
    found = re.findall(r"pip install[^\\\n&]*", (ROOT / "Dockerfile").read_text())
    assert len(found) == 1, found
    return found[0].strip()


def stage(into: Path) -> Path:
    """The image's /app: what the Dockerfile copies, nothing else (no tests, no .venv)."""
    into.mkdir(parents=True, exist_ok=True)
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for source, destination in dockerfile_copies():
        target = into / destination
        path = ROOT / source
        if path.is_dir():
            shutil.copytree(path, target, ignore=skip, dirs_exist_ok=True)
        else:
            shutil.copy2(path, target)
    return into


def _pip(python: Path, *args: str, cwd: Path) -> float:
    began = time.monotonic()
    done = subprocess.run(
        [str(python), "-m", "pip", "install", *PIP_QUIET, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert done.returncode == 0, f"pip install {' '.join(args)} failed:\n{done.stdout}{done.stderr}"
    return time.monotonic() - began


@dataclass
class ProductionVenv:
    path: Path
    built: bool  # False: reused, the project installed again only if its files changed
    install_seconds: float
    reinstalled: bool = True  # False: the project's files were those installed already

    @property
    def python(self) -> Path:
        return self.path / "bin" / "python"

    def bin(self, name: str) -> Path:
        return self.path / "bin" / name


def stamp_value() -> str:
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes())
    digest.update(sys.version.encode())
    return digest.hexdigest()


def production_venv(app: Path) -> ProductionVenv:
    """The virtualenv, with ``app`` (a :func:`stage`) installed; built anew when the stamp
    differs. Several test runs at once wait for each other (a lock file next to it)."""
    home = venv_home()
    home.parent.mkdir(parents=True, exist_ok=True)
    with open(home.parent / f"{home.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp, project = home / ".facedown-installed", home / ".facedown-project"
        want, files = stamp_value(), files_value(app)  # before pip adds build files to app
        if stamp.is_file() and stamp.read_text().strip() == want:
            if project.is_file() and project.read_text().strip() == files:
                return ProductionVenv(home, built=False, install_seconds=0.0, reinstalled=False)
            # The dependencies are those of this pyproject.toml; today's code over the old.
            project.unlink(missing_ok=True)
            seconds = _pip(home / "bin" / "python", "--no-deps", "--force-reinstall", ".", cwd=app)
            project.write_text(files + "\n")
            return ProductionVenv(home, built=False, install_seconds=seconds)
        shutil.rmtree(home, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(home)], check=True, timeout=300)
        seconds = _pip(home / "bin" / "python", ".", cwd=app)  # what the image runs
        stamp.write_text(want + "\n")
        project.write_text(files + "\n")
        return ProductionVenv(home, built=True, install_seconds=seconds)


def files_value(app: Path) -> str:
    """A hash of a :func:`stage`'s files, names and contents."""
    digest = hashlib.sha256()
    for path in sorted(p for p in app.rglob("*") if p.is_file()):
        digest.update(path.relative_to(app).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def main() -> None:
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="facedown-image-") as directory:
        venv = production_venv(stage(Path(directory) / "app"))
    done = "built" if venv.built else "refreshed" if venv.reinstalled else "up to date"
    print(f"production virtualenv {venv.path}: {done} in {time.monotonic() - began:.1f} s")


if __name__ == "__main__":
    main()
