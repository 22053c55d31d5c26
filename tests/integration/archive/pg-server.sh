# Starts a throw-away PostgreSQL server for the archive tests and benchmark
# (sourced, not a test itself): initdb into a fresh directory, listening only
# on a unix socket in that directory, run as an unprivileged user because
# PostgreSQL refuses to run as root. Sets PG_URI; pg_server_stop stops it.
# usage: source pg-server.sh; pg_server_start DIR || exit 1; ...; pg_server_stop
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PG_DIR=""

_pg_as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

pg_server_start() {
  PG_DIR=$1
  mkdir -p "$PG_DIR" || return 1
  if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || { echo "pg-server: no 'postgres' user (install postgresql)" >&2; return 1; }
    chown postgres: "$PG_DIR" || return 1
    # the server's user must pass through: search permission added, nothing
    # taken away (a PG_DIR right under /tmp kept /tmp's sticky, writable mode)
    chmod go+x "$(dirname "$PG_DIR")" 2>/dev/null
  fi
  _pg_as_owner "$PG_BIN/initdb" -D "$PG_DIR/data" -U tally --auth=trust -E UTF8 --no-sync >"$PG_DIR/initdb.log" 2>&1 ||
    { echo "pg-server: initdb failed:" >&2; tail -5 "$PG_DIR/initdb.log" >&2; return 1; }
  _pg_as_owner "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
    -o "-c listen_addresses='' -c unix_socket_directories='$PG_DIR' -c fsync=off -c max_connections=50" \
    start >/dev/null 2>&1 || { echo "pg-server: pg_ctl start failed:" >&2; tail -5 "$PG_DIR/server.log" >&2; return 1; }
  _pg_as_owner "$PG_BIN/createdb" -h "$PG_DIR" -U tally archive >/dev/null 2>&1 ||
    { echo "pg-server: createdb failed" >&2; return 1; }
  PG_URI="postgresql://tally@/archive?host=$PG_DIR"
  export PG_URI
}

pg_server_stop() {
  [ -n "$PG_DIR" ] && [ -d "$PG_DIR/data" ] &&
    _pg_as_owner "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null 2>&1
  PG_DIR=""
}
