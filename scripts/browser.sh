#!/usr/bin/env bash
# Run the browser tests (tests/web) in headless Debian chromium, installing it first when it is
# missing and we are root. Screenshots of the key pages land in artifacts/screenshots/.
# Extra arguments go to pytest (e.g. scripts/browser.sh -k replay).
set -euo pipefail
source "$(dirname "$0")/_env.sh" test
bash scripts/services.sh
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "==> installing chromium"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "error: /usr/bin/chromium is missing; install Debian's chromium (as root)" >&2
    exit 1
  fi
fi
exec pytest tests/web "$@"
