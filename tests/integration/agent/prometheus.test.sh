#!/usr/bin/env bash
# tally agent --metrics: OpenMetrics text checked directly, then scraped by a
# real Prometheus and answered through PromQL (memory of a fixture that
# touched 48 MB; labels app, host, user, category).
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/agent/agent_lib.sh"
command -v prometheus >/dev/null || { ok "# SKIP prometheus is not installed"; finish; }
S=$WORK/sock/agent.sock

start_metrics_agent "$S"
check "the agent serves metrics on 127.0.0.1:$PORT" kill -0 "$AGENT_PID"
out=$("$TALLY" agent --socket "$WORK/other.sock" --metrics "127.0.0.1:$PORT" --foreground 2>&1); rc=$?
check_eq "a port in use is refused" "$rc" 125
check_contains "... naming it" "$out" "--metrics cannot listen on 127.0.0.1:$PORT"

"$TALLY" run --agent "$S" --app sim --category physics -o "$WORK/sim" -- \
  "$PROGS/hold_memory" 48 2 "$WORK/ready" "$WORK/release" 2>"$WORK/run.err" &
RUN=$!
check "the fixture is ready" wait_file "$WORK/ready"
PID=$(cat "$WORK/ready")
has_memory() { curl -s "http://127.0.0.1:$PORT/metrics" | grep -q '^tally_memory_bytes{app="sim".*} [1-9]'; }
check "the application's memory is exposed" wait_until 20 has_memory
# The Accept header of Prometheus 2.42 (Debian 12), byte for byte
OM='Accept: application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'
text=$(curl -s -i -H "$OM" "http://127.0.0.1:$PORT/metrics")
check_contains "asked for OpenMetrics first (as Prometheus 2.42 does): its content type" "$text" \
  "Content-Type: application/openmetrics-text; version=1.0.0"
served() { curl -s -o /dev/null -w '%{content_type}' -H "Accept: $1" "http://127.0.0.1:$PORT/metrics"; }
check_eq "an older Prometheus (OpenMetrics 0.0.1 only, text at q=0.5): the text format" \
  "$(served 'application/openmetrics-text; version=0.0.1,text/plain;version=0.0.4;q=0.5,*/*;q=0.1')" \
  "text/plain; version=0.0.4; charset=utf-8"
check_eq "OpenMetrics refused (q=0): the text format" \
  "$(served 'application/openmetrics-text;q=0,text/plain')" "text/plain; version=0.0.4; charset=utf-8"
check_eq "the text format wanted less than OpenMetrics: OpenMetrics" \
  "$(served 'text/plain;q=0.2, application/openmetrics-text;q=0.9')" \
  "application/openmetrics-text; version=1.0.0; charset=utf-8"
check_contains "labels app, host, user, category" "$text" "tally_processes{app=\"sim\",host=\"$(hostname)\",user=\"$(id -un)\",category=\"physics\"} 1"
check_contains "cpu_time is a counter" "$text" "# TYPE tally_cpu_time_seconds counter"
check_contains "counters end in _total" "$text" "tally_cpu_time_seconds_total{app=\"sim\""
check_contains "memory is a gauge in bytes" "$text" "# UNIT tally_memory_bytes bytes"
check "the exposition ends with # EOF" test "$(printf '%s' "$text" | tail -1)" = "# EOF"
check_eq "no tally_total_processes_total" "$(printf '%s\n' "$text" | grep -c 'total_processes')" 0
check_contains "processes started: a counter of its own name" "$text" "tally_processes_started_total{app=\"sim\""
rss_now=$(printf '%s\n' "$text" | sed -n 's/^tally_minor_page_faults_total{app="sim".*} //p')
check_cmp "minor page faults: at least the 48 MB touched (12288 pages)" "$rss_now" ">=" 12288
check_cmp "  and no more than the process's own (/proc)" "$rss_now" "<=" "$(awk '{ print $10 }' /proc/$PID/stat)"
check_cmp "context switches: counted (the fixture sleeps)" \
  "$(printf '%s\n' "$text" | sed -n 's/^tally_context_switches_total{app="sim".*} //p')" ">=" 1
# A busy application (mapping, touching and unmapping 1 MB at a time, and
# sleeping 1 ms every 20 MB): its two counters on /metrics agree with what
# proc_get_info reads for the same process. Counters only grow, so a scrape
# before and one after proc_get_info bracket its values.
# It writes its own pid: 'python3' may be a launcher's shim here (pyenv's
# is a bash script whose short-lived helpers are the application's
# processes too, listed while they run), so the pid asked about below is
# the interpreter's, named by itself, not the first one listed.
cat >"$WORK/busy.py" <<'EOF'
import mmap, os, sys, time
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(os.getpid()))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    for i in range(20):
        m = mmap.mmap(-1, 1 << 20)
        for j in range(0, 1 << 20, 4096):
            m[j] = 1
        m.close()
    time.sleep(0.001)
EOF
"$TALLY" run --agent "$S" --app busy -o "$WORK/busy" -- python3 "$WORK/busy.py" "$WORK/busy.pid" 2>/dev/null &
BUSY=$!
check "the busy application's interpreter is running" wait_file "$WORK/busy.pid"
BPID=$(cat "$WORK/busy.pid")
busy_followed() {
  req "$S" ':proc_get_info([app_busy], 0x1)' | jq -r 'select(.service == "proc_get_info") | .result.pid' 2>/dev/null |
    grep -qx "$BPID"
}
check "the busy application's interpreter is followed (app_busy lists its pid)" wait_until 20 busy_followed
sleep 1
counter() { printf '%s\n' "$1" | sed -n "s/^tally_$2_total{app=\"busy\".*} //p"; }
m1=$(curl -s "http://127.0.0.1:$PORT/metrics")
info=$(req "$S" ":proc_get_info([p_$BPID])")
m2=$(curl -s "http://127.0.0.1:$PORT/metrics")
for f in context_switches minor_page_faults; do
  p=$(result_of "$info" proc_get_info "$f")
  check_cmp "busy app: /metrics $f before proc_get_info <= its value" "$(counter "$m1" "$f")" "<=" "$p"
  check_cmp "  and proc_get_info's <= /metrics after" "$p" "<=" "$(counter "$m2" "$f")"
done
check_cmp "busy app: minor page faults counted (1 s of it: 256 per MB mapped)" "$(counter "$m1" minor_page_faults)" ">=" 5000
check_cmp "busy app: context switches counted" "$(counter "$m1" context_switches)" ">=" 10
check_cmp "  and the faults grow from one scrape to the next" "$(counter "$m2" minor_page_faults)" ">" "$(counter "$m1" minor_page_faults)"
kill "$BUSY"; wait "$BUSY" 2>/dev/null

plain=$(curl -s -i "http://127.0.0.1:$PORT/metrics")
check_contains "not asked for OpenMetrics (curl, promtool): the Prometheus text format" "$plain" \
  "Content-Type: text/plain; version=0.0.4"
check_contains "  TYPE names the series, _total included" "$plain" "# TYPE tally_cpu_time_seconds_total counter"
curl -s "http://127.0.0.1:$PORT/metrics" | promtool check metrics >promtool.out 2>&1
check_eq "promtool check metrics: no problem, no warning" "$?/$(cat promtool.out)" "0/"
# an application without a category: no empty category label
"$TALLY" run --agent "$S" --app plain -o "$WORK/plain" -- sleep 30 &
PLAIN=$!
check "the second app is exposed" wait_until 20 sh -c "curl -s http://127.0.0.1:$PORT/metrics | grep -q 'tally_processes{app=\"plain\"'"
check_eq "no empty category label" "$(curl -s "http://127.0.0.1:$PORT/metrics" | grep -c 'category=\"\"')" 0
kill "$PLAIN"; wait "$PLAIN" 2>/dev/null
check_eq "other paths are 404" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/nothing")" 404

# A real Prometheus scrapes it.
for _ in 1 2 3 4 5; do
  PPORT=$(free_port)
  cat >"$WORK/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: tally
    scrape_interval: 1s
    static_configs:
      - targets: ['127.0.0.1:$PORT']
YML
  prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/prom" \
    --web.listen-address="127.0.0.1:$PPORT" >"$WORK/prom.log" 2>&1 &
  PROM=$!
  wait_until 30 curl -sf "http://127.0.0.1:$PPORT/-/ready" >/dev/null && break
  kill "$PROM" 2>/dev/null; wait "$PROM" 2>/dev/null
done
promql() { curl -s --get "http://127.0.0.1:$PPORT/api/v1/query" --data-urlencode "query=$1" | jq -r '.data.result[0].value[1] // empty'; }
scraped() { [ -n "$(promql 'tally_memory_bytes{app="sim"}')" ]; }
check "Prometheus has scraped the agent" wait_until 60 scraped
rss_kb=$(awk '/^VmRSS/ { print $2 }' /proc/$PID/status)
check_near "PromQL: the app's memory (MB) is the fixture's RSS" \
  "$(echo "$(promql 'tally_memory_bytes{app="sim",category="physics"}') / 1048576" | bc -l)" \
  "$(echo "$rss_kb / 1024" | bc -l)" 2
check_eq "PromQL: processes of the app by user" "$(promql "sum by (user) (tally_processes{user=\"$(id -un)\"})")" 1
check_cmp "PromQL: minor page faults scraped" "$(promql 'tally_minor_page_faults_total{app="sim"}')" ">=" 12288
target=$(curl -s "http://127.0.0.1:$PPORT/api/v1/targets" | jq -c '.data.activeTargets[0] | {health, lastError}')
check_eq "Prometheus's target: up, no scrape error" "$target" '{"health":"up","lastError":""}'
# every sample of the exposition (only 'sim' runs now) was taken: none dropped by the parser
samples=$(curl -s -H "$OM" "http://127.0.0.1:$PORT/metrics" | grep -vc '^#')
check_eq "PromQL: scrape_samples_scraped is the exposition's sample count" \
  "$(promql 'scrape_samples_scraped{job="tally"}')" "$samples"
kill "$PROM"; wait "$PROM" 2>/dev/null

touch "$WORK/release"
wait $RUN
kill -TERM "$AGENT_PID"; wait "$AGENT_PID"; rc=$?
check_eq "the agent stops cleanly with its HTTP server" "$rc" 0
finish
