# Shared by scripts/run and scripts/test: a virtualenv with the project installed.
# Reinstalls only when pyproject.toml changed since the last install.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-$(command -v python3.11 || command -v python3)}"
VENV="${VENV:-$ROOT/.venv}"
if [ ! -x "$VENV/bin/python" ]; then
  echo "==> creating virtualenv in $VENV"
  "$PYTHON" -m venv "$VENV"
fi
stamp="$VENV/.facedown-installed"
want="$(sha256sum pyproject.toml | cut -d' ' -f1)-${1:-run}"
if [ ! -f "$stamp" ] || ! grep -qx "$want" "$stamp"; then
  echo "==> installing dependencies"
  "$VENV/bin/python" -m pip install -q --upgrade pip
  if [ "${1:-run}" = "test" ]; then
    "$VENV/bin/python" -m pip install -q -e ".[dev]"
  else
    "$VENV/bin/python" -m pip install -q -e .
  fi
  echo "$want" > "$stamp"
fi
export PATH="$VENV/bin:$PATH"
