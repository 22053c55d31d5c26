#!/usr/bin/env bash
# The README's commands, run as written and in order (issue 22 item 9), from
# "# categorized traces" to the end of "Live monitoring across hosts" (the
# archive part before it: tests/integration/archive/readme.test.sh). The
# commands are read from README.md (a trailing backslash joins lines); the
# test only provides the workloads and the world they assume:
#   - host*/run*: 'tally run --time-series' outputs of three simulated hosts
#     (own hostnames, tests/integration/multihost/hosts.sh), host1 and host2
#     in site-a, host3 in site-b (sites.txt); quiet.paje and loaded.paje:
#     host1's run alone and beside a CPU hog;
#   - ./sim (a shell that holds 20 MB in a child and starts a short 'sleep'
#     every 0.3 s) and ./md (an MPI stencil with libtally-probe's marker that
#     runs until the test has steered it: STENCIL_UNTIL);
#   - real nats-servers (two sites, per-user accounts: live/nats-sites.sh).
# Substituted, because they must be this test's own: the nats URL (the
# test's server), alice.creds (the test's credentials file), the ports 9464
# and 8080 (free ports), and XDG_RUNTIME_DIR (each code block starts with no
# agent: a fresh directory, as on a fresh host). Commands ending in '&' run
# in the background; '--follow' and 'top' until Ctrl-C (SIGINT after 3 s);
# 'view --live' serves until the test has read its data.
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
source "$TALLY_TEST_ROOT/tests/integration/live/nats-sites.sh"
source "$TALLY_TEST_ROOT/tests/integration/multihost/hosts.sh"
source "$TALLY_TEST_ROOT/tests/integration/mpi/mpi_lib.sh" # Open MPI as root, oversubscribed
source "$TALLY_TEST_ROOT/tests/integration/docs/readme_lib.sh" # block_commands
user=$(id -un)
NATS_ALPHA=nats://nats.site-a:4222 METRICS_PORT=9464 SERVE_PORT=8080 # until the across-hosts block sets them
bg=()
trap 'for p in "${bg[@]}"; do kill "$p" 2>/dev/null; done; touch "$WORK/release" "$WORK/md.release";
      for x in "$WORK"/xdg*; do [ -S "$x/tally/agent.sock" ] && "$TALLY" agent stop --socket "$x/tally/agent.sock" >/dev/null 2>&1; done
      _nats_stop; wait 2>/dev/null; rm -rf "$WORK"' EXIT
mkdir build
ln -s "$TALLY" build/tally

port() { nats_free_port; }
# run N LINE: runs the README's line N as written (after the substitutions)
run_line() {
  local line=$1 n=$2
  line=${line//nats:\/\/nats.site-a:4222/$NATS_ALPHA}
  line=${line//alice.creds/$WORK/creds/$user}
  line=${line//127.0.0.1:9464/127.0.0.1:$METRICS_PORT}
  line=${line//--serve 8080/--serve $SERVE_PORT}
  echo "$line" > cmd.$n
  case "$line" in
    *' &'*) bash -c "${line% &*}" > out.$n 2> err.$n < /dev/null & bg+=($!); echo $! > pid.$n ;;
    *--follow*|*' top '*) timeout --preserve-status -k 5 -s INT 3 bash -c "exec $line" > out.$n 2> err.$n < /dev/null; echo $? > status.$n ;;
    *'view --live'*) bash -c "exec $line" > out.$n 2> err.$n < /dev/null & bg+=($!); echo $! > pid.$n ;;
    *) bash -c "$line" > out.$n 2> err.$n < /dev/null; echo $? > status.$n ;;
  esac
}
status_of() { cat "status.$1" 2>/dev/null; }

# ---- categorized traces ----
hosts_start host1 host2 host3 || { not_ok "simulated hosts start"; finish; }
cat > work.sh <<'EOF'
#!/bin/sh
# about 0.6 s of CPU and 30 MB, then a file of 20 MB written
python3 -c "import time
b = bytearray(30 << 20)
t = time.time() + 0.6
while time.time() < t: pass
open('$1', 'wb').write(b[:20 << 20])"
EOF
chmod +x work.sh
runs=()
for h in host1 host2 host3; do
  mkdir "$h"
  host_run "$h" "$TALLY" run --name work --category sim --time-series -o "$h/run1" -- ./work.sh "$WORK/$h.out" \
    > /dev/null 2>> setup.err &
  runs+=($!)
done
wait "${runs[@]}"
printf 'host1 site-a\nhost2 site-a\nhost3 site-b\n' > sites.txt
# quiet.paje: host1's run alone; loaded.paje: the same beside a CPU hog
mkdir quiet loaded
"$TALLY" trace from-runs host1/run1 -o quiet.paje 2>> setup.err
sh -c 'while [ ! -e "$0" ]; do :; done' "$WORK/hog.stop" & hog=$!
host_run host1 "$TALLY" run --name work --category sim --time-series -o loaded/run1 -- \
  sh -c './work.sh "$0" & ./work.sh "$0.2"; wait' "$WORK/loaded.out" > /dev/null 2>> setup.err
touch "$WORK/hog.stop"; wait "$hog"
"$TALLY" trace from-runs loaded/run1 -o loaded.paje 2>> setup.err
check "the workloads ran on host1..3 (host*/run*, quiet.paje, loaded.paje)" \
  test -s host1/run1.series -a -s host2/run1.summary -a -s host3/run1.series -a -s quiet.paje -a -s loaded.paje

block_commands '^# categorized traces' '^# live: register' > traces.txt
check_eq "the README's trace commands: five" "$(wc -l < traces.txt)" 5
n=0
while IFS= read -r line; do n=$((n + 1)); run_line "$line" t$n; done < traces.txt
for i in 1 2 3 4 5; do
  check_eq "trace command $i exits 0: $(cut -c1-70 cmd.t$i)" "$(status_of t$i)" 0
done
check_eq "from-runs: the three hosts, by name" "$(grep -o 'host[123]' runs.paje | sort -u | tr '\n' ' ')" "host1 host2 host3 "
check_contains "from-runs: the sites of sites.txt" "$(cat runs.paje)" "site-b"
check_contains "aggregate --level site: site-a" "$(cat out.t2)" "site-a"
check_contains "aggregate --level site: site-b" "$(cat out.t2)" "site-b"
check "diff: diff.html written" test -s diff.html
check_contains "diff: says what changed" "$(cat out.t4 err.t4)" "cpu"
check "view: report.html written" grep -q "<html" report.html

# ---- live: register a task with your agent (started if none runs), then ask it ----
cat > sim <<EOF
#!/bin/sh
# holds 20 MB in a child; starts a short 'sleep' every 0.3 s until released
"$PROGS/hold_memory" 20 0 "$WORK/sim.ready" "$WORK/release" &
while [ ! -e "$WORK/release" ]; do sleep 0.3; done
wait
EOF
chmod +x sim
export XDG_RUNTIME_DIR=$WORK/xdg1
mkdir -m 700 "$XDG_RUNTIME_DIR"
block_commands '^# live: register' '^```' > live.txt
check_eq "the README's live commands: two" "$(wc -l < live.txt)" 2
run_line "$(sed -n 1p live.txt)" l1
for _ in $(seq 300); do [ -s "$WORK/sim.ready" ] && break; sleep 0.05; done
holder=$(cat "$WORK/sim.ready")
registered() { "$TALLY" request ':app_get_proclist([app_sim])' 2>/dev/null | grep -q "\"p_$holder"; }
check "run --agent: sim registered with the agent it started" wait_until 20 registered
run_line "$(sed -n 2p live.txt)" l2
check_eq "request: exit 0" "$(status_of l2)" 0
mem=$(jq -r --argjson p "$holder" 'select(.service == "proc_get_info" and .result.pid == $p) | .result.memory[0]' out.l2)
check_cmp "request: proc_get_info gives sim's memory (MB)" "${mem:-0}" ">=" 20
check_contains "request: thread_stop answered" "$(cat out.l2)" '"service":"thread_stop"'
check_contains "thread_stop: sim's process is stopped (T, or t while traced)" "Tt" "$(ps -o stat= -p "$holder" | cut -c1)"
descendants() { local p; for p in $(cat /proc/"$1"/task/*/children 2>/dev/null); do echo "$p"; descendants "$p"; done; }
kill -CONT $(descendants "$(cat pid.l1)") 2>/dev/null
touch "$WORK/release"
wait "$(cat pid.l1)"
check_eq "run --agent: sim ran to its end once continued" "$?" 0
"$TALLY" agent stop >/dev/null 2>&1
rm -f "$WORK/release" "$WORK/sim.ready"

# ---- live monitoring across hosts ----
nats_sites_start "$user" || { not_ok "nats-servers start"; finish; }
export XDG_RUNTIME_DIR=$WORK/xdg2
mkdir -m 700 "$XDG_RUNTIME_DIR"
METRICS_PORT=$(port) SERVE_PORT=$(port)
build openmpi stencil -DWITH_PROBE || { not_ok "build the stencil"; finish; }
# md runs until the test has steered it (STENCIL_UNTIL: at least 100 iterations, then until md.release)
printf '#!/bin/sh\nSTENCIL_UNTIL="%s/md.release" exec "%s/stencil.openmpi" blocking 100 64 300 0 1 "%s/hand"\n' "$WORK" "$WORK" "$WORK" > md
chmod +x md
block_commands '^# on each host: the agent' '^```' > across.txt
check_eq "the README's commands across hosts: ten" "$(wc -l < across.txt)" 10
run_line "$(sed -n 1p across.txt)" a1
check_eq "agent --nats --creds --site --metrics: exit 0 (detached)" "$(status_of a1)" 0
run_line "$(sed -n 2p across.txt)" a2
for _ in $(seq 300); do [ -s "$WORK/sim.ready" ] && break; sleep 0.05; done
holder=$(cat "$WORK/sim.ready")
nregistered() { "$TALLY" request --nats "$NATS_ALPHA" --creds "$WORK/creds/$user" ':app_get_proclist([app_sim])' 2>/dev/null | grep -q "\"p_$holder"; }
check "sim registered, seen over NATS" wait_until 20 nregistered
curl -s "http://127.0.0.1:$METRICS_PORT/metrics" > metrics.txt
check_contains "--metrics: the agent serves sim's memory" "$(cat metrics.txt)" 'tally_memory_bytes{app="sim"'
for i in 3 4 5 6; do run_line "$(sed -n ${i}p across.txt)" a$i; done
check_eq "request --nats: exit 0" "$(status_of a3)" 0 || { sed 's/^/# err: /' err.a3; grep -i 'error' out.a3 | cut -c1-400 | sed 's/^/# out: /' | head; }
mem=$(jq -r --argjson p "$holder" 'select(.service == "proc_get_info" and .result.pid == $p) | .result.memory[0]' out.a3)
check_cmp "request --nats: sim's memory (MB)" "${mem:-0}" ">=" 20
check_eq "request --follow: stopped by Ctrl-C, status 0" "$(status_of a4)" 0
check_contains "request --follow: a proc_created event (sim's short sleeps)" "$(cat out.a4)" '"event"'
check_contains "... its action's answer, the process list" "$(cat out.a4)" '"app_get_proclist"'
check_contains "top --app sim --nats: the application's screen" "$(cat out.a5)" "tally top - app sim"
check_contains "... with sim's holding process" "$(cat out.a5)" " $holder "
check_eq "top: stopped by Ctrl-C, status 0" "$(status_of a5)" 0
got=
for _ in $(seq 100); do
  got=$(curl -s "http://127.0.0.1:$SERVE_PORT/data" | jq -r '.points[-1].hosts | keys | join(",")' 2>/dev/null)
  [ -n "$got" ] && break; sleep 0.1
done
check_eq "view --live --serve: the page's data has this host" "$got" "$(hostname)"
kill -INT "$(cat pid.a6)"; timeout 10 tail --pid="$(cat pid.a6)" -f /dev/null; wait "$(cat pid.a6)"
check_eq "view --live: stops on Ctrl-C with status 0" "$?" 0
touch "$WORK/release"; wait "$(cat pid.a2)"

# steering
run_line "$(sed -n 7p across.txt)" a7
ranks() { "$TALLY" request --nats "$NATS_ALPHA" --creds "$WORK/creds/$user" ':proc_get_info([app_md], 0x80)' 2>/dev/null \
  | jq -r 'select(.result.probes) | .result.pid' | wc -l; }
ranks4() { [ "$(ranks)" = 4 ]; }
# within SECONDS CMD...: CMD until it succeeds, for SECONDS of wall time (each
# request may take its own timeout: wait_until's count of tries would not bound it)
within() { local end=$((SECONDS + $1)); shift; while [ "$SECONDS" -lt "$end" ]; do "$@" && return 0; sleep 0.05; done; return 1; }
check "md: its 4 ranks registered" within 30 ranks4 ||
  { echo "# ranks seen: $(ranks); md's stderr:"; sed 's/^/#   /' err.a7 | head -20; }
run_line "$(sed -n 8p across.txt)" a8
check_eq "proc_record_start over NATS: the 4 ranks answer on mpi" \
  "$(jq -r 'select(.service == "proc_record_start") | .result.on | join("+")' out.a8 | sort | uniq -c | awk '{ print $1, $2 }')" "4 mpi"
acked() { [ "$("$TALLY" request --nats "$NATS_ALPHA" --creds "$WORK/creds/$user" ':proc_get_info([app_md], 0x80)' 2>/dev/null \
  | jq -r 'select(.result.probes) | select(.result.probes.recording.ack == .result.probes.recording.request) | .result.probes.recording.on | join("+")' | grep -c mpi)" = 4 ]; }
check "every rank took the switch" within 10 acked
sleep 0.5
run_line "$(sed -n 9p across.txt)" a9
check_eq "proc_get_info 0x80: 4 ranks recording mpi" "$(jq -r 'select(.result.probes) | .result.probes.recording.on | join("+")' out.a9 | grep -c mpi)" 4
check_cmp "... with messages counted" "$(jq -s '[.[] | select(.result.probes) | .result.probes.mpi.messages // 0] | add // 0' out.a9)" ">" 0
touch "$WORK/md.release"
wait "$(cat pid.a7)"
check_eq "md ran to its end under tally run --mpi" "$?" 0
run_line "$(sed -n 10p across.txt)" a10
check_eq "mpi report md: exit 0" "$(status_of a10)" 0
check_contains "mpi report md: the 4 ranks" "$(cat out.a10)" "4 ranks"
"$TALLY" agent stop >/dev/null 2>&1
finish
