# Shared by scripts/run and scripts/test: a virtualenv with the project installed.
# Reinstalls only when pyproject.toml or the interpreter changed since the last install.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

supported() {  # supported PYTHON: a CPython from 3.11 to 3.14
  "$1" -c 'import sys; sys.exit(not (3, 11) <= sys.version_info[:2] <= (3, 14))' 2>/dev/null
}

if [ -z "${PYTHON:-}" ]; then
  # 3.11 first: it measured fastest (docs/benchmarks.md); any supported one serves.
  for candidate in python3.11 python3.12 python3.13 python3.14 python3; do
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
version="$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"

VENV="${VENV:-$ROOT/.venv}"
# A virtualenv left by another interpreter (or a failed first try) is made anew.
if [ -x "$VENV/bin/python" ] && [ "$("$VENV/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" != "$version" ]; then
  echo "==> recreating $VENV for Python $version"
  "$PYTHON" -m venv --clear "$VENV"
elif [ ! -x "$VENV/bin/python" ]; then
  echo "==> creating virtualenv in $VENV (Python $version)"
  "$PYTHON" -m venv "$VENV"
fi
stamp="$VENV/.facedown-installed"
want="$(sha256sum pyproject.toml | cut -d' ' -f1)-${1:-run}-$version"
if [ ! -f "$stamp" ] || ! grep -qx "$want" "$stamp"; then
  echo "==> installing dependencies"
  # setuptools warns on every editable install that same-named folders shadow the package;
  # here the folders are the package.
  export PYTHONWARNINGS="ignore:Editable installation"
  "$VENV/bin/python" -m pip install -q --upgrade pip
  if [ "${1:-run}" = "test" ]; then
    "$VENV/bin/python" -m pip install -q -e ".[dev]"
  else
    "$VENV/bin/python" -m pip install -q -e .
  fi
  unset PYTHONWARNINGS
  echo "$want" > "$stamp"
fi
export PATH="$VENV/bin:$PATH"
