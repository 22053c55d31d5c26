# tally contract on the seed 003 §6.1 scenario: a master/worker application
# (plain processes, 12 workers, per-period counters written by the fixture as
# contract samples: the stand-in for libtally-probe) → two baseline runs →
# contract; a run where workers 6..11 get jobs with half the FLOPs; a run
# with a CPU load placed with taskset on worker 3's CPU (a SCHED_FIFO
# spinner that stops itself: on this machine other users' cgroups get their
# share first, so an ordinary spinner in ours takes too little from worker 3
# to tell from their load); a clean rerun.
# Worker 3 waits 4 ms per job instead of 19 (--pinned-latency-ms 4, in every
# run: it is busy ~20 % of its CPU, 0.2 s a second): a SCHED_FIFO spinner
# still leaves ordinary tasks a small reserve of the CPU (the kernel keeps
# 50 ms a second for them), about what a worker busy 5 % needs, so at the
# default latency worker 3 was starved in some periods of the load and not
# in others (two full make check runs of 2026-11-26: one period of three
# inside the load at its usual rate). At 4 ms it runs at ~6 % of its rate
# in every period of the load.
# Samples go to /dev/shm: with the load pinned on one CPU, the file system's
# journal threads on that CPU would stall every process's write (an artifact
# of the shared file, not of the application; probe counters live in shared
# memory too). Execution-space checks use --live-factors: on this shared
# machine the service all processes get moves with other users' load, and
# the question asked is which process departs from what the host gives now.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
MW=$PROGS/contract_master_worker
SHM=$(mktemp -d /dev/shm/tally-contract.XXXXXX)
# the contract and the levels stay in build/test-logs for a look after a failure
keep() { mkdir -p "$TALLY_TEST_ROOT/build/test-logs/contract" && cp -f mw.contract *.out "$SHM"/*.jsonl "$TALLY_TEST_ROOT/build/test-logs/contract/" 2>/dev/null; }
trap 'keep; rm -rf "$WORK" "$SHM"' EXIT
ncpu=$(nproc)

"$MW" --out "$SHM/base1.jsonl" --seconds 5 --pin 3 --pinned-latency-ms 4
"$MW" --out "$SHM/base2.jsonl" --seconds 5 --pin 3 --pinned-latency-ms 4
"$TALLY" contract build "$SHM/base1.jsonl" "$SHM/base2.jsonl" --name master_worker -o mw.contract 2>build.err
check_eq "build exits 0" "$?" 0
check_eq "13 baseline processes in the contract" "$(grep -c '^process ' mw.contract)" 13
# master and workers are two equivalence classes in intrinsic space
master_cl=$(awk '$1 == "process" && $2 == "master" { for (i = 3; i < NF; i++) if ($i == "intrinsic") print $(i + 1) }' mw.contract | sed 's/:[0-9]*//g')
worker_cls=$(awk '$1 == "process" && $2 ~ /^w/ { for (i = 3; i < NF; i++) if ($i == "intrinsic") print $(i + 1) }' mw.contract | sed 's/:[0-9]*//g' | sort -u | tr '\n' ' ')
check_eq "all workers in one intrinsic cluster" "$(echo $worker_cls | wc -w)" 1
check "the master in another" test -n "$master_cl" -a "$master_cl " != "$worker_cls"

# --- fewer FLOPs per job on workers 6..11: intrinsic violations on exactly those
"$MW" --out "$SHM/fewer.jsonl" --seconds 4 --pin 3 --pinned-latency-ms 4 --fewer 6-11
"$TALLY" contract check mw.contract "$SHM/fewer.jsonl" \
    --on-violation 'echo "$TALLY_CONTRACT_PROCESS $TALLY_CONTRACT_SPACE" >> actions' >fewer.out
check_eq "check exits 1 when a level reaches the threshold" "$?" 1
violated() { jq -r --arg s "$1" --arg d "$2" 'select(.space == $s and .dimension == $d and .level >= 0.5) | .process' "$3" | sort -u | tr '\n' ' '; }
check_eq "intrinsic compute violated on exactly workers 6-11" "$(violated intrinsic compute fewer.out)" "w10 w11 w6 w7 w8 w9 "
check_eq "intrinsic overall violated on exactly workers 6-11" "$(violated intrinsic overall fewer.out)" "w10 w11 w6 w7 w8 w9 "
check_eq "intrinsic communicate violated nowhere" "$(violated intrinsic communicate fewer.out)" ""
periods9=$(jq -r 'select(.process == "w9" and .space == "intrinsic" and .dimension == "compute") | .level' fewer.out | wc -l)
high9=$(jq -r 'select(.process == "w9" and .space == "intrinsic" and .dimension == "compute" and .level >= 0.99) | .level' fewer.out | wc -l)
check_cmp "worker 9 has periods" "$periods9" ">=" 3
check_eq "worker 9: compute level ~1 in every period (consistently)" "$high9" "$periods9"
check_eq "the compared cluster is the workers' one" \
    "$(jq -r 'select(.process == "w9" and .space == "intrinsic") | .cluster' fewer.out | sort -u | tr -d '\n') " "$worker_cls"
check_eq "--on-violation ran once per violated worker (intrinsic)" \
    "$(awk '$2 == "intrinsic" { print $1 }' actions | sort | tr '\n' ' ')" "w10 w11 w6 w7 w8 w9 "
text=$("$TALLY" contract check --format text mw.contract "$SHM/fewer.jsonl")
check_contains "explanation names the worker, dimension and the change" "$text" \
    "process w9 (host $(hostname)) intrinsic: compute 1.00 (FLOP per job 50% below the contract's 500 k since "
check_contains "explanation keeps the satisfied dimension" "$text" "; communicate 0.00"

# --- a CPU load on worker 3's CPU, placed shortly after start, for a while
if [ "$ncpu" -ge 2 ]; then
  last=$((ncpu - 1))
  "$MW" --out "$SHM/load.jsonl" --seconds 10 --pin 3 --pinned-latency-ms 4 &
  mw=$!
  # wait until every process wrote its second snapshot (a full period ran)
  for _ in $(seq 200); do
    [ "$(grep -c . "$SHM/load.jsonl" 2>/dev/null || echo 0)" -ge 26 ] && break
    sleep 0.05
  done
  # a real-time spinner (it stops itself) on worker 3's CPU; it tells when
  # it spun (the launching shell's clock would count its exec and start-up);
  # 4.5 s: at least two whole 1 s periods inside it, whatever its phase and
  # however late worker 3 writes the snapshot the load starves
  read -r load_start load_end how < <(taskset -c "$last" "$PROGS/contract_cpu_load" 4.5 --fifo)
  echo "# load $load_start .. $load_end ($how)"
  check_eq "the load spun as SCHED_FIFO (an ordinary one takes too little here)" "$how" fifo
  wait $mw
  check_eq "the loaded run completes" "$?" 0
  "$TALLY" contract check --live-factors mw.contract "$SHM/load.jsonl" >load.out
  # periods entirely inside the load
  inside() { jq -r --arg a "$load_start" --arg b "$load_end" --arg p "$1" --arg d "$2" \
      'select(.space == "execution" and .dimension == $d and .process == $p and (.t - .period) >= ($a|tonumber) and .t <= ($b|tonumber)) | .level' load.out; }
  n_in=$(inside w3 compute | wc -l)
  n_hit=$(inside w3 compute | awk '$1 >= 0.5' | wc -l)
  check_cmp "periods entirely under load" "$n_in" ">=" 2
  check_eq "worker 3: execution compute violated in every period under load" "$n_hit" "$n_in"
  others=$(jq -r --arg a "$load_start" --arg b "$load_end" \
      'select(.space == "execution" and .dimension == "compute" and .process != "w3" and .level >= 0.5 and (.t - .period) >= ($a|tonumber) and .t <= ($b|tonumber)) | .process' load.out | sort -u | tr '\n' ' ')
  check_eq "no other process violated in execution compute under load" "$others" ""
  after=$(jq -r --arg b "$load_end" 'select(.space == "execution" and .dimension == "compute" and .process == "w3" and (.t - .period) >= ($b|tonumber) + 1) | .level' load.out)
  check_cmp "periods after the load" "$(echo "$after" | grep -c .)" ">=" 1
  check_eq "worker 3 back within the contract after the load" "$(echo "$after" | awk '$1 >= 0.5' | wc -l)" 0
  first=$(jq -r --arg a "$load_start" 'select(.space == "execution" and .dimension == "compute" and .process == "w3" and .level >= 0.5 and .t >= ($a|tonumber)) | .t' load.out | head -1)
  check_cmp "first violation within two periods of the load" "$(awk -v f="$first" -v a="$load_start" 'BEGIN { print f - a }')" "<=" 2.2
else
  ok "# SKIP the CPU-load case needs two CPUs"
fi

# --- a clean rerun: no level reaches the threshold
"$MW" --out "$SHM/clean.jsonl" --seconds 5 --pin 3 --pinned-latency-ms 4
"$TALLY" contract check --live-factors mw.contract "$SHM/clean.jsonl" >clean.out
status=$?
check_eq "clean rerun: check exits 0" "$status" 0
check_eq "clean rerun: no level at or above the threshold" "$(jq -r 'select(.level >= 0.5) | "\(.process) \(.space) \(.dimension) \(.level)"' clean.out | head -3)" ""
check_eq "clean rerun: levels for all 13 processes" "$(jq -r .process clean.out | sort -u | wc -l)" 13
finish
