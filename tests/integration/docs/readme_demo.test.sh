#!/usr/bin/env bash
# The README's "Set up and run" block, read from README.md (issue 22 item 9):
# 'make demo' run as written in the repository, as a new user would after a
# clone, with build/resource_monitor removed first (make demo must make it:
# the README's makeflow line names it). 'make check' is the suite this test
# belongs to: it is only checked to be the block's other line.
# The test's own: DEMO_OUT (the demo's reports in $WORK, not build/demo),
# XDG_RUNTIME_DIR (no agent of the user's), and no make variables inherited
# from the make check that runs this test (a fresh shell's make).
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/docs/readme_lib.sh"

section_commands '^## Set up and run' > commands.txt
check_eq "the README's set-up block: two commands" "$(wc -l < commands.txt)" 2
demo=$(sed -n 1p commands.txt)
check_contains "the first is make demo" "$demo" "make demo"
check_contains "the second is make check (the suite running this test)" "$(sed -n 2p commands.txt)" "make check"

R=$TALLY_TEST_ROOT
rm -f "$R/build/resource_monitor"
mkdir -m 700 xdg
(cd "$R" && env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS DEMO_OUT="$WORK/demo" XDG_RUNTIME_DIR="$WORK/xdg" \
  timeout 300 bash -c "$demo" > "$WORK/demo.out" 2> "$WORK/demo.err" < /dev/null)
rc=$?
check_eq "make demo: exit 0" "$rc" 0
[ "$rc" = 0 ] || tail -20 "$WORK/demo.err"
check_eq "make demo made build/resource_monitor, tally under resource_monitor's name" \
  "$(readlink "$R/build/resource_monitor")" tally
D=$WORK/demo
check_eq "the sample workload's six tasks and the MPI job: one summary each" \
  "$(cd "$D" 2>/dev/null && ls *.summary | tr '\n' ' ')" \
  "collect.summary ensemble.summary index.summary prepare.summary runaway.summary simulate.summary stencil.summary "
check_eq "runaway: stopped by its memory limit, 300 MB" \
  "$(jq -r '"\(.exit_type) \(.limits_exceeded.memory[0])"' "$D/runaway.summary" 2>/dev/null)" "limits 300"
check_cmp "ensemble: its peak memory (MB)" "$(summary_value "$D/ensemble.summary" memory 2>/dev/null)" ">=" 600
check_eq "the MPI job steered through the agent: its 4 ranks" "$(jq -r .mpi.ranks "$D/stencil.summary" 2>/dev/null)" 4
check_eq "archived: the six tasks" "$(sqlite3 "$D/archive.db" 'select count(*) from summaries' 2>/dev/null)" 6
check_contains "the categorized trace: category compute" "$(cat "$D/workload.paje" 2>/dev/null)" '"cpu.compute"'
check_contains "  and category data" "$(cat "$D/workload.paje" 2>/dev/null)" '"cpu.data"'
check "the visual page" grep -q "<html" "$D/report.html"
finish
