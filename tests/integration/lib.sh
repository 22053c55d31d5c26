# Shared helpers for integration tests (sourced). Each check prints one TAP
# line; finish prints the plan and exits non-zero if any check failed.
# Environment: TALLY (binary under test), PROGS (built fixture programs),
# TALLY_TEST_ROOT (the repository). Each test runs in its own temporary
# directory, $WORK, removed at exit.
set -u
TALLY=${TALLY:-$PWD/build/asan/tally}
PROGS=${PROGS:-$PWD/build/progs}
_checks=0 _failures=0
WORK=$(mktemp -d /tmp/tally-test.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

ok()     { _checks=$((_checks + 1)); echo "ok $_checks - $*"; }
# each check returns 0 when it passed, 1 when not (CHECK || { what to show; })
not_ok() { _checks=$((_checks + 1)); _failures=$((_failures + 1)); echo "not ok $_checks - $*"; return 1; }

# check DESCRIPTION COMMAND...: passes when COMMAND exits 0.
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }

# check_eq DESCRIPTION ACTUAL EXPECTED
check_eq() { if [ "$2" = "$3" ]; then ok "$1 ($2)"; else not_ok "$1 (got '$2', want '$3')"; fi; }

# check_near DESCRIPTION ACTUAL EXPECTED TOLERANCE: |actual - expected| <= tolerance
check_near() {
  if awk -v a="$2" -v e="$3" -v t="$4" 'BEGIN { d = a - e; if (d < 0) d = -d; exit !(a != "" && d <= t) }'; then
    ok "$1 ($2 ~ $3 +- $4)"
  else
    not_ok "$1 (got '$2', want $3 +- $4)"
  fi
}

# check_cmp DESCRIPTION A OP B with OP one of < <= > >= (numbers)
check_cmp() {
  if awk -v a="$2" -v b="$4" -v op="$3" 'BEGIN { if (a == "") exit 1;
      r = (op == "<") ? a < b : (op == "<=") ? a <= b : (op == ">") ? a > b : (op == ">=") ? a >= b : 0; exit !r }'; then
    ok "$1 ($2 $3 $4)"
  else
    not_ok "$1 (got '$2', want $3 $4)"
  fi
}

# check_contains DESCRIPTION TEXT NEEDLE
check_contains() { case "$2" in *"$3"*) ok "$1";; *) not_ok "$1 ('$2' lacks '$3')";; esac; }

# summary_value FILE FIELD: the number of a [value, "unit"] pair, or a plain value.
summary_value() { jq -r --arg f "$2" '.[$f] | if type == "array" then .[0] else . end' "$1"; }

# handles_term PID: waits (up to 10 s) until process $1 handles SIGTERM (tally's handlers are in place)
handles_term() {
  for _ in $(seq 200); do
    m=$(awk '/^SigCgt/ { print $2 }' /proc/$1/status 2>/dev/null)
    [ -n "$m" ] && [ $(( 0x$m & 0x4000 )) -ne 0 ] && return 0
    sleep 0.05
  done
  return 1
}

# wait_until SECONDS COMMAND...: polls COMMAND every 50 ms until it succeeds
wait_until() {
  local n=$(( $1 * 20 )); shift
  for _ in $(seq "$n"); do "$@" && return 0; sleep 0.05; done
  return 1
}

# free_port: a TCP port of this host nobody listens on, below the kernel's
# range of ephemeral ports (ip_local_port_range): a port in that range may be
# held at any moment as the local end of some client's connection, and a
# server then fails to bind it ("address already in use")
free_port() {
  local low p
  low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)
  [ "${low:-0}" -gt 12000 ] 2>/dev/null || low=32768
  for _ in $(seq 100); do
    p=$(( 10000 + RANDOM % (low - 10000) ))
    ss -Htln "sport = :$p" | grep -q . || { echo "$p"; return 0; }
  done
  return 1
}

# wait_agent SOCKET: until the agent listening there answers (at most 20 s)
wait_agent() {
  for _ in $(seq 400); do "$TALLY" agent --socket "$1" status >/dev/null 2>&1 && return 0; sleep 0.05; done
  return 1
}

finish() { echo "1..$_checks"; [ "$_failures" -eq 0 ]; exit $?; }
