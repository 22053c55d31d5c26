#!/usr/bin/env bash
# Requests across hosts and sites (issue 8's benchmark, NATS part): round trips
# of an unconditional proc_get_info through one nats-server and across a leaf
# node, and an application-wide proc_get_info over N_AGENTS agents (processes on
# this machine standing for hosts, each with one process of the application),
# with the fan-out known (--expect) and unknown (quiet window). Medians over
# REPEAT round trips on one connection (tally request --repeat), RUNS runs.
# Writes bench/results/nats.md. Targets: one server <= 1 ms, leaf node <= 2 ms,
# >= 100 agents <= 200 ms.
set -uo pipefail
cd "$(dirname "$0")/.."
TALLY=${TALLY:-$PWD/build/tally}
REPEAT=${REPEAT:-2000}
RUNS=${RUNS:-3}
N_AGENTS=${N_AGENTS:-100}
WIDE_REPEAT=${WIDE_REPEAT:-50}
out=bench/results/nats.md
WORK=$(mktemp -d /tmp/tally-bench-nats.XXXXXX)
ok() { :; }; not_ok() { echo "$*" >&2; }
. tests/integration/live/nats-sites.sh
user=$(id -un)
nats_sites_start "$user"
pids=()
cleanup() { cat "$WORK/req.err" "$WORK/agents.err" 2>/dev/null | sort | uniq -c | head -5 >&2; for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; touch "$WORK/release"; wait 2>/dev/null; _nats_stop; rm -rf "$WORK"; }
trap cleanup EXIT

start_agent() { # HOST SITE URL
  mkdir -m 700 -p "$WORK/a/$1"
  "$TALLY" agent --foreground --no-archive --socket "$WORK/a/$1/agent.sock" --nats "$3" \
    --creds "$WORK/creds/$user" --site "$2" --host "$1" 2>>"$WORK/agents.err" &
  pids+=($!)
}
wait_agent() { for _ in $(seq 600); do "$TALLY" agent --socket "$WORK/a/$1/agent.sock" status >/dev/null 2>&1 && return 0; sleep 0.05; done; return 1; }
hold() { # HOST APP: one process of APP registered with HOST's agent; its pid in $WORK/pid-HOST
  "$TALLY" run --agent "$WORK/a/$1/agent.sock" --app "$2" -o "$WORK/run-$1" -- \
    sh -c 'echo $$ > "$0"; while [ ! -e "$1" ]; do sleep 1; done' "$WORK/pid-$1" "$WORK/release" 2>/dev/null &
  pids+=($!)
  for _ in $(seq 600); do [ -s "$WORK/pid-$1" ] && break; sleep 0.05; done
}
req() { "$TALLY" request --nats "$1" --creds "$WORK/creds/$user" "${@:2}"; }
median_of_runs() { # prints the median (over RUNS) of the runs' medians
  local url=$1; shift
  for _ in $(seq "$RUNS"); do req "$url" "$@" 2>>"$WORK/req.err" | tee -a "$WORK/req.out" | jq -r '.round_trip_ms.median'; done | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

start_agent n1 alpha "$NATS_ALPHA"; start_agent n2 beta "$NATS_BETA"
wait_agent n1; wait_agent n2
hold n1 sim; hold n2 sim
p1=$(cat "$WORK/pid-n1"); p2=$(cat "$WORK/pid-n2")
one=$(median_of_runs "$NATS_ALPHA" --repeat "$REPEAT" ":proc_get_info([p_$p1@n1], 0x3f)")
leaf=$(median_of_runs "$NATS_ALPHA" --repeat "$REPEAT" ":proc_get_info([p_$p2@n2], 0x3f)")

# N_AGENTS agents, one process of application "wide" each, spread over both sites.
for i in $(seq 3 $((N_AGENTS + 2))); do
  if [ $((i % 2)) = 0 ]; then start_agent "w$i" beta "$NATS_BETA"; else start_agent "w$i" alpha "$NATS_ALPHA"; fi
done
for i in $(seq 3 $((N_AGENTS + 2))); do wait_agent "w$i"; done
for i in $(seq 3 $((N_AGENTS + 2))); do hold "w$i" wide; done
answered=$(req "$NATS_ALPHA" ':proc_get_info([app_wide], 0x1)' 2>/dev/null | jq -r 'select(.done) | .nodes | length')
wide_known=$(median_of_runs "$NATS_ALPHA" --repeat "$WIDE_REPEAT" --expect "$N_AGENTS" ':proc_get_info([app_wide], 0x3f)')
wide_quiet=$(median_of_runs "$NATS_ALPHA" --repeat "$WIDE_REPEAT" ':proc_get_info([app_wide], 0x3f)')
agent_rss=$(ps -o rss= -C tally | sort -n | awk '{ v[NR] = $1 } END { printf "%.1f", v[int((NR + 1) / 2)] / 1024 }')

verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v <= t) ? "met" : "**missed**" }'; }
{
  echo "# Requests across hosts and sites (NATS)"
  echo
  echo "\`make bench BENCH_ONLY=nats\` on $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "nats-server $(nats-server --version | awk '{print $NF}'), two servers: alpha (hub) and beta (leaf node of alpha)."
  echo "Each figure: median over $RUNS runs of the median of $REPEAT round trips (tally request --repeat, one connection)."
  echo
  echo "| request | path | median round trip | target | |"
  echo "|---|---|---:|---:|---|"
  echo "| \`:proc_get_info([p_PID@n1], 0x3f)\` | tool → alpha → agent n1 | $(printf '%.3f' "$one") ms | ≤ 1 ms | $(verdict "$one" 1) |"
  echo "| \`:proc_get_info([p_PID@n2], 0x3f)\` | tool → alpha → leaf → beta → agent n2 | $(printf '%.3f' "$leaf") ms | ≤ 2 ms | $(verdict "$leaf" 2) |"
  echo "| \`:proc_get_info([app_wide], 0x3f)\`, $N_AGENTS agents, \`--expect $N_AGENTS\` | both sites | $(printf '%.1f' "$wide_known") ms | ≤ 200 ms | $(verdict "$wide_known" 200) |"
  echo "| the same, number of agents unknown (50 ms quiet window) | both sites | $(printf '%.1f' "$wide_quiet") ms | ≤ 200 ms | $(verdict "$wide_quiet" 200) |"
  echo
  echo "Agents that answered the application-wide request: $answered of $N_AGENTS. Median resident memory of a tally process here (agents and the tally run holding each task): $agent_rss MB."
} > "$out"
cat "$out"
