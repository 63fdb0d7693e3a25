#!/usr/bin/env bash
# A private PostgreSQL 15 with default settings, for benchmarks: this machine's own server runs
# with autovacuum off (docs/performance.md), production's runs with it on, and a figure that only
# holds on one of them says so. initdb's defaults, autovacuum on, loopback only.
#
#   default-postgres.sh start   initdb when missing, then start it; prints its URL (idempotent)
#   default-postgres.sh url     print the URL of database wsapi_bench on it
#   default-postgres.sh stop    stop it (its data stays in DEFAULT_PG_DIR)
#   default-postgres.sh drop    stop it and delete its data
#
# Environment: DEFAULT_PG_PORT (default 5490; the fault test's cluster takes 5470-5472), DEFAULT_PG_DIR (default /tmp/wsapi-default-postgres),
# DEFAULT_PG_STATEMENTS=1 to load pg_stat_statements at start (what each statement costs; it
# changes nothing else), DEFAULT_PG_OPTIONS: more server options (`-c autovacuum=off` makes a copy of
# this machine's server that no other test shares). Its processes run as the postgres user.
set -euo pipefail

port=${DEFAULT_PG_PORT:-5490}
dir=${DEFAULT_PG_DIR:-/tmp/wsapi-default-postgres}
pgbin=/usr/lib/postgresql/15/bin

die() { echo "default-postgres.sh: $*" >&2; exit 1; }
as_pg() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/bash -c "$1"; else bash -c "$1"; fi; }
url() { echo "postgres://postgres@127.0.0.1:$port/wsapi_bench"; }

start() {
  [ -x "$pgbin/postgres" ] || die "PostgreSQL 15 is not installed at $pgbin"
  mkdir -p "$dir" && { chown postgres "$dir" 2>/dev/null || true; }
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    as_pg "$pgbin/initdb -D '$dir/data' -U postgres --auth=trust >/dev/null"
    # Only where it listens: every other setting is initdb's default (autovacuum on).
    cat >> "$dir/data/postgresql.conf" <<EOF
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir'
EOF
  fi
  local options=""
  if [ "${DEFAULT_PG_STATEMENTS:-0}" = 1 ]; then options="-c shared_preload_libraries=pg_stat_statements"; fi
  options="$options ${DEFAULT_PG_OPTIONS:-}"
  if ! pg_isready -q -h 127.0.0.1 -p "$port"; then
    as_pg "$pgbin/pg_ctl -D '$dir/data' -l '$dir/server.log' -o '$options' -w start >/dev/null"
  fi
  url
}

stop() {
  if [ -f "$dir/data/postmaster.pid" ]; then as_pg "$pgbin/pg_ctl -D '$dir/data' -m fast -w stop >/dev/null"; fi
}

case "${1:-}" in
  start) start ;;
  url) url ;;
  stop) stop ;;
  drop) stop; rm -rf "$dir" ;;
  *) die "usage: default-postgres.sh start|url|stop|drop" ;;
esac
