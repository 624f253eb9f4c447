#!/usr/bin/env bash
# Make sure the local PostgreSQL and Redis the tests use are up; start them if not.
set -euo pipefail

wait_for() {  # wait_for "description" command...
  local what="$1"; shift
  for _ in $(seq 1 60); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.5
  done
  echo "error: $what did not come up" >&2
  return 1
}

if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  if ! command -v pg_ctlcluster >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "==> installing PostgreSQL"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  fi
  echo "==> starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -1)" main start || true
  wait_for PostgreSQL pg_isready -q -h 127.0.0.1 -p 5432
fi

if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  if ! command -v redis-server >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "==> installing Redis"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  fi
  echo "==> starting Redis"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
  wait_for Redis redis-cli -h 127.0.0.1 -p 6379 ping
fi
