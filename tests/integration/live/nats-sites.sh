# Real nats-servers for the tests (sourced after lib.sh): two sites, "alpha"
# (the hub) and "beta" (a leaf node of alpha), each with per-user accounts
# whose permissions allow user U only tally.U.> and _INBOX.U.> — the same
# configuration docs/agent-nats.md gives to site administrators.
#   nats_sites_start USER...   starts both servers; sets NATS_ALPHA, NATS_BETA (URLs)
#                              and writes $WORK/creds/USER (mode 600, "user:password")
#   nats_restart_alpha         stops and starts the hub again on the same port
# The servers are stopped when the test exits.

_nats_pids=()
nats_free_port() { free_port; } # (lib.sh)

_nats_users_block() {
  local u
  echo "authorization { users = ["
  for u in "$@"; do
    echo "  {user: $u, password: pw-$u, permissions: {publish: [\"tally.$u.>\", \"_INBOX.$u.>\"], subscribe: [\"tally.$u.>\", \"_INBOX.$u.>\"]}}"
  done
  [ -n "${_nats_leaf_user:-}" ] && echo "  {user: $_nats_leaf_user, password: pw-leaf}"
  echo "] }"
}

_nats_wait_ready() { # LOG [PATTERN]
  for _ in $(seq 200); do
    grep -q "${2:-Server is ready}" "$1" 2>/dev/null && return 0
    sleep 0.05
  done
  echo "# nats-server did not become ready: $(tail -n 3 "$1")" >&2
  return 1
}

nats_sites_start() {
  mkdir -p "$WORK/nats" "$WORK/creds"
  _nats_users=("$@")
  _nats_alpha_port=$(nats_free_port) _nats_leaf_port=$(nats_free_port) _nats_beta_port=$(nats_free_port)
  _nats_leaf_user=leafbeta
  { echo "listen: 127.0.0.1:$_nats_alpha_port"; echo "server_name: alpha"
    _nats_users_block "$@"; echo "leafnodes { listen: 127.0.0.1:$_nats_leaf_port }"; } > "$WORK/nats/alpha.conf"
  _nats_leaf_user=
  { echo "listen: 127.0.0.1:$_nats_beta_port"; echo "server_name: beta"
    _nats_users_block "$@"
    echo "leafnodes { remotes = [ {url: \"nats://leafbeta:pw-leaf@127.0.0.1:$_nats_leaf_port\"} ] }"; } > "$WORK/nats/beta.conf"
  local u
  for u in "$@"; do
    printf '%s:pw-%s\n' "$u" "$u" > "$WORK/creds/$u"
    chmod 600 "$WORK/creds/$u"
    id "$u" >/dev/null 2>&1 && chown "$u" "$WORK/creds/$u"
  done
  nats_start_alpha || return 1
  nats-server -c "$WORK/nats/beta.conf" > "$WORK/nats/beta.log" 2>&1 &
  _nats_pids+=($!)
  _nats_wait_ready "$WORK/nats/beta.log" || return 1
  _nats_wait_ready "$WORK/nats/beta.log" "Leafnode connection created" || return 1
  NATS_ALPHA=nats://127.0.0.1:$_nats_alpha_port
  NATS_BETA=nats://127.0.0.1:$_nats_beta_port
  # stopped when the test exits, before what the EXIT trap did so far (a
  # test's own clean-up, simulated hosts started earlier: hosts.sh)
  local previous
  previous=$(trap -p EXIT | sed "s/^trap -- '//; s/' EXIT\$//")
  trap "_nats_stop; $previous" EXIT
}

nats_start_alpha() {
  : > "$WORK/nats/alpha.log"
  nats-server -c "$WORK/nats/alpha.conf" >> "$WORK/nats/alpha.log" 2>&1 &
  _nats_alpha_pid=$!
  _nats_pids+=($!)
  _nats_wait_ready "$WORK/nats/alpha.log"
}

nats_restart_alpha() {
  kill "$_nats_alpha_pid" 2>/dev/null; wait "$_nats_alpha_pid" 2>/dev/null
  nats_start_alpha
}

_nats_stop() { # stops the servers (before any "wait" for the rest: they would never end)
  local p
  for p in "${_nats_pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${_nats_pids[@]}"; do wait "$p" 2>/dev/null; done
}
