# Shared by scripts/run and scripts/test: a virtualenv with the project installed.
# Reinstalls only when pyproject.toml or the interpreter changed since the last install.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

supported() {  # supported PYTHON: a CPython from 3.11 to 3.14
  "$1" -c 'import sys; sys.exit(not (3, 11) <= sys.version_info[:2] <= (3, 14))' 2>/dev/null
}
# "3.13 (/usr)": version and base prefix, so a virtualenv of another build of the same version
# (pyenv's, the distribution's) counts as another interpreter.
identity() {
  "$1" -c 'import sys; print("%d.%d (%s)" % (*sys.version_info[:2], sys.base_prefix))' 2>/dev/null
}

if [ -z "${PYTHON:-}" ]; then
  # The newest supported one: every version from 3.11 runs Facedown (docs/deployment.md has
  # which the image uses and why).
  for candidate in python3.14 python3.13 python3.12 python3.11 python3; do
    if command -v "$candidate" >/dev/null && supported "$candidate"; then
      PYTHON="$(command -v "$candidate")"
      break
    fi
  done
fi
if [ -z "${PYTHON:-}" ] || ! supported "$PYTHON"; then
  echo "error: Facedown needs Python 3.11, 3.12, 3.13 or 3.14 (found: ${PYTHON:-none})." >&2
  echo "       Install one, or name it: PYTHON=/path/to/python3.13 $0" >&2
  exit 1
fi
chosen="$(identity "$PYTHON")"
version="${chosen%% *}"

VENV="${VENV:-$ROOT/.venv}"
if [ ! -e "$VENV" ]; then
  echo "==> creating $VENV with Python $version ($PYTHON)"
  "$PYTHON" -m venv "$VENV"
else
  # A virtualenv whose interpreter is gone, unsupported or not the one chosen is made anew.
  current="$(identity "$VENV/bin/python" || true)"
  if [ "$current" != "$chosen" ]; then
    echo "==> rebuilding $VENV with Python $version ($PYTHON): it was made by ${current:+Python }${current:-an interpreter that no longer runs}"
    "$PYTHON" -m venv --clear "$VENV"
  fi
fi
stamp="$VENV/.facedown-installed"
want="$(sha256sum pyproject.toml | cut -d' ' -f1)-${1:-run}-$chosen"
# The test install (editable, with the dev tools) serves a run too.
if [ -f "$stamp" ] && grep -qxF "${want/-run-/-test-}" "$stamp"; then
  want="${want/-run-/-test-}"
fi
if [ ! -f "$stamp" ] || ! grep -qxF "$want" "$stamp"; then
  echo "==> installing dependencies"
  # -qq: pip's errors only. Its warnings on a first install are about the machine's own pip
  # configuration (an index folder it names that is not there, say), which read like a fault.
  "$VENV/bin/python" -m pip install -qq --disable-pip-version-check --upgrade pip
  if [ "${1:-run}" = "test" ]; then
    # Editable, so the tests' tools see the working tree. Every editable mode of setuptools
    # ends with a notice about same-named folders shadowing the package; here the folders
    # are the package, so that one notice (and only it) is kept out of the terminal.
    PYTHONWARNINGS="ignore:Editable installation" \
      "$VENV/bin/python" -m pip install -qq --disable-pip-version-check -e ".[dev]"
  else
    # A plain install, which setuptools builds without a notice. manage.py runs from the
    # working tree, which comes first on sys.path, so edits need no reinstall.
    "$VENV/bin/python" -m pip install -qq --disable-pip-version-check .
  fi
  echo "$want" > "$stamp"
fi
export PATH="$VENV/bin:$PATH"
