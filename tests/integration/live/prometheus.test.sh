#!/usr/bin/env bash
# tally agent --metrics scraped by a real Prometheus: an application's resident
# memory and CPU time, with app/category/host/site/user labels, answered by a
# PromQL query against the process's own truth; the exposition itself is
# OpenMetrics that Prometheus ingests whole (info, counters with units, gauges).
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
port() { for _ in $(seq 50); do p=$(( 20000 + RANDOM % 30000 )); ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null && { echo $p; return; }; done; }
mport=$(port) pport=$(port)
mkdir -m 700 "$WORK/a"
"$TALLY" agent --foreground --no-archive --socket "$WORK/a/agent.sock" --host n1 --site alpha \
  --metrics "127.0.0.1:$mport" 2>"$WORK/agent.err" &
apid=$!
trap 'kill $apid $ppid $rpid 2>/dev/null; touch "$WORK/release"; wait 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 400); do "$TALLY" agent --socket "$WORK/a/agent.sock" status >/dev/null 2>&1 && break; sleep 0.05; done
"$TALLY" run --agent "$WORK/a/agent.sock" --app sim --category stencil -o "$WORK/run" -- \
  "$PROGS/hold_memory" 90 0 "$WORK/ready" "$WORK/release" 2>"$WORK/run.err" &
rpid=$!
for _ in $(seq 600); do [ -s "$WORK/ready" ] && break; sleep 0.05; done
check "the application runs" test -s "$WORK/ready"

# the exposition
for _ in $(seq 100); do
  curl -s "http://127.0.0.1:$mport/metrics" > "$WORK/metrics.txt"
  grep -q '^tally_memory_bytes{app="sim"' "$WORK/metrics.txt" && break; sleep 0.1
done
check_eq "Content-Type is OpenMetrics" \
  "$(curl -s -o /dev/null -w '%{content_type}' "http://127.0.0.1:$mport/metrics")" \
  "application/openmetrics-text; version=1.0.0; charset=utf-8"
check_eq "the exposition ends with # EOF" "$(tail -n 1 "$WORK/metrics.txt")" "# EOF"
line=$(grep '^tally_memory_bytes{' "$WORK/metrics.txt")
check_contains "memory is labelled by app, category, host, site, user" "$line" \
  "{app=\"sim\",category=\"stencil\",host=\"n1\",site=\"alpha\",user=\"$(id -un)\"}"
check_contains "CPU time is a counter" "$(cat "$WORK/metrics.txt")" "# TYPE tally_cpu_seconds counter"
check_contains "... its sample ends in _total" "$(cat "$WORK/metrics.txt")" "tally_cpu_seconds_total{app=\"sim\""
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$mport/other")
check_eq "another path: 404" "$code" 404

# a real Prometheus scraping it every second
cat > "$WORK/prometheus.yml" <<YML
global: { scrape_interval: 1s, evaluation_interval: 1s }
scrape_configs:
  - job_name: tally
    static_configs: [ { targets: ["127.0.0.1:$mport"] } ]
YML
prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
  --web.listen-address="127.0.0.1:$pport" > "$WORK/prometheus.log" 2>&1 &
ppid=$!
q() { curl -s "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1" | jq -r '.data.result[0].value[1] // empty'; }
mem=
for _ in $(seq 300); do mem=$(q 'tally_memory_bytes{app="sim",host="n1"} / 1048576'); [ -n "$mem" ] && break; sleep 0.1; done
check "Prometheus scraped the agent and answers PromQL" test -n "$mem"
check_cmp "PromQL: the application's memory (MiB) at least what it touched" "$mem" ">=" 90
check_cmp "PromQL: ... and not far above" "$mem" "<" 110
check_eq "PromQL: the target is up" "$(q 'up{job="tally"}')" 1
check_eq "PromQL: one application on the host" "$(q 'count(tally_memory_bytes{host="n1"})')" 1
check_eq "PromQL: the agent's info series" "$(q 'tally_agent_info{host="n1",site="alpha"}')" 1
check_eq "PromQL: tasks followed" "$(q 'tally_agent_tasks{host="n1"}')" 1
# contract levels, as tally contract watch sends them (docs/contracts.md)
ans=$(echo '{"op":"levels","app":"mw","levels":[{"process":"7","host":"n1","space":"intrinsic","dimension":"compute","level":0.92},{"process":"3","host":"n1","space":"intrinsic","dimension":"compute","level":0}]}' |
  timeout 5 socat -t 2 - "UNIX-CONNECT:$WORK/a/agent.sock" 2>&1)
check_eq "the agent keeps the levels sent" "$(echo "$ans" | jq -r .count)" 2
lvl=
for _ in $(seq 300); do lvl=$(q 'tally_contract_violation{app="mw",process="7",space="intrinsic",dimension="compute"}'); [ -n "$lvl" ] && break; sleep 0.1; done
check_eq "PromQL: a process's contract violation level" "$lvl" 0.92
check_eq "PromQL: one gauge per process and dimension" "$(q 'count(tally_contract_violation{app="mw"})')" 2
finish
