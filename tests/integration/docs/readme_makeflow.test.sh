#!/usr/bin/env bash
# The README's "Across many hosts: Makeflow and Work Queue" commands, read
# from README.md and run as written (issue 22 item 9): the real makeflow,
# locally and through Work Queue with a real work_queue_worker, with
# build/resource_monitor (a symlink to the tally under test) as the monitor,
# then 'archive add' and 'trace from-runs' on the reports.
# The test provides: the Makeflow (rule 0, category align, holds 47.7 MB (tail's
# 50,000,000 bytes) for 1.5 s; rule 1, category merge, reads its output), build/ (links to the
# tally under test), and an archive of its own (TALLY_DB). Substituted: the
# port 9123 (a free port) and MANAGER-HOST (localhost). The local and the
# Work Queue runs are alternatives: each runs in its own directory, and the
# "then" commands run after each. Makeflow as root: rmcompat/common.sh.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/rmcompat/common.sh"
. "$TALLY_TEST_ROOT/tests/integration/docs/readme_lib.sh"
export TALLY_DB=$WORK/archive.db TMPDIR=$WORK/tmp # the worker's workspace in TMPDIR
mkdir "$TMPDIR"
bg=()
trap 'for p in "${bg[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$WORK"' EXIT

section_commands '^## Across many hosts: Makeflow' > commands.txt
check_eq "the README's Makeflow and Work Queue commands: five" "$(wc -l < commands.txt)" 5
local_run=$(sed -n 1p commands.txt) wq_manager=$(sed -n 2p commands.txt) wq_worker=$(sed -n 3p commands.txt)
then_lines=$(sed -n '4,$p' commands.txt)
check_contains "the first runs makeflow locally" "$local_run" "makeflow --monitor"
check_contains "the second through Work Queue" "$wq_manager" "makeflow -T wq -p 9123"
check_contains "the third starts a worker" "$wq_worker" "work_queue_worker MANAGER-HOST 9123"

# prepare DIR: a fresh directory with build/ and the test's Makeflow
prepare() {
  mkdir -p "$1/build" && ln -s "$TALLY" "$1/build/tally" && ln -s "$TALLY" "$1/build/resource_monitor"
  cat > "$1/Makeflow" <<'MF'
CATEGORY=align
MEMORY=200
aligned.txt:
	head -c 60000000 /dev/zero | tail -c 50000000 | (sleep 1.5; cat > /dev/null); seq 1 1000 > aligned.txt
CATEGORY=merge
merged.txt: aligned.txt
	sort -n aligned.txt | tail -1 > merged.txt
MF
}
# then DIR: the "then" commands in DIR, outputs in DIR/then.N.out/err, status in DIR/then.N
then_run() {
  local n=0 line
  while IFS= read -r line; do
    n=$((n + 1))
    (cd "$1" && bash -c "$line" > then.$n.out 2> then.$n.err < /dev/null; echo $? > then.$n)
  done <<< "$then_lines"
}

# ---- locally ----
prepare local
(cd local && timeout 60 bash -c "$local_run" > out.log 2>&1 < /dev/null; echo $? > rc)
check_eq "makeflow locally: exit 0" "$(cat local/rc)" 0
check_eq "  every rule ran" "$(cat local/merged.txt 2>/dev/null)" 1000

# ---- through Work Queue: the manager, then a worker on this host ----
prepare wq
port=$(free_port) || { not_ok "a free port"; finish; }
(cd wq && exec timeout 60 bash -c "exec ${wq_manager//9123/$port}" > out.log 2>&1 < /dev/null) &
manager=$!
bg+=($manager)
check "makeflow -T wq listens on its port" listening 300 "$port"
worker_line=${wq_worker//9123/$port}
(cd "$WORK" && exec bash -c "exec ${worker_line//MANAGER-HOST/localhost}" > worker.log 2>&1 < /dev/null) &
worker=$!
bg+=($worker)
wait "$manager"
check_eq "makeflow -T wq: exit 0" "$?" 0
check "  the worker was still serving (it runs until stopped)" kill -0 "$worker"
kill "$worker"
# makeflow -T wq runs no rule itself: its outputs are the worker's
check_eq "  every rule ran, on the worker" "$(cat wq/merged.txt 2>/dev/null)" 1000

for d in local wq; do
  check_eq "$d: the reports, as resource_monitor names them" "$(cd $d/mon 2>/dev/null && ls | tr '\n' ' ')" \
    "resource-rule-0.series resource-rule-0.summary resource-rule-1.series resource-rule-1.summary "
  check_eq "$d: each rule's CATEGORY is its summary's category" \
    "$(jq -r .category $d/mon/resource-rule-0.summary $d/mon/resource-rule-1.summary 2>/dev/null | tr '\n' ' ')" "align merge "
  check_cmp "$d: rule 0 held its 47.7 MB (memory, MB)" "$(summary_value $d/mon/resource-rule-0.summary memory 2>/dev/null)" ">=" 47.7
  check_cmp "$d: rule 0 ran its 1.5 s (wall_time, s)" "$(summary_value $d/mon/resource-rule-0.summary wall_time 2>/dev/null)" ">=" 1.5
  "$CCTOOLS_READER" $d/mon/resource-rule-*.summary > $d/reader.out 2> $d/reader.err
  check_eq "$d: cctools' own parser reads them, no notice" "$?/$(wc -c < $d/reader.err)" "0/0"
  then_run $d
  check_eq "$d: archive add mon/: exit 0, both rules added" "$(cat $d/then.1)/$(cat $d/then.1.out)" \
    "0/added 2, already archived 0, rejected 0"
  check_eq "$d: trace from-runs: exit 0, nothing said" "$(cat $d/then.2)/$(cat $d/then.2.err)" "0/"
  for c in align merge; do
    check_contains "$d: workflow.paje has category $c" "$(cat $d/workflow.paje 2>/dev/null)" "\"cpu.$c\""
  done
  peak=$(awk '$1 == 1 && $4 == "\"memory.align\"" { v = $2 } $1 == 8 && $3 == v && $5 > m { m = $5 } END { print m + 0 }' $d/workflow.paje 2>/dev/null)
  check_cmp "$d: the trace's memory.align reaches rule 0's 47.7 MB" "$peak" ">=" 47.7
done
"$TALLY" archive query 'category = align' > query.out 2>&1
check_eq "archive query: the two runs of rule 0, by category" "$(grep -c ' align ' query.out)" 2
finish
