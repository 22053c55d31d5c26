#!/usr/bin/env bash
# tally mpi report and predict: on an imbalanced stencil (ranks 2 and 3 do
# sixteen times the work, after ScoPro Table 5) the lighter ranks 0 and 1 wait
# more in blocking calls and are named as the faster/less loaded ones
# (Open MPI told to yield when idle, as ranks on their own cores would not
# take CPU from the working ones); the ratio and
# the link matrix agree with the summary; formula (2) and eq. (6)/(7) give
# the paper's numbers.
# Robust by design: 4 ranks share 2 cores, so which ranks wait is the
# scheduler's as much as the program's. The two heavy ranks exchange with each
# other every iteration: on different cores, any difference in the CPU they
# get (other load, the light ranks' polling) makes one wait for the other as
# long as a light rank does. So a rankfile puts both heavy ranks on one core,
# where the kernel shares it evenly between them, and the light ranks on the
# other; and the heavy work is 16 x the light (an iteration of a heavy rank
# spans many time slices), so the heavy ranks' wait (a time slice's worth per
# iteration at most) stays far below a light rank's (15 x its work).
# make check: runs beside other tests
. "$(dirname "$0")/../lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/mpi/mpi_lib.sh"
build openmpi stencil -DWITH_PROBE || { not_ok "build stencil"; finish; }
last_cpu=$(( $(nproc) > 1 ? 1 : 0 ))
printf 'rank %d=%s slot=%d\n' 0 "$(hostname)" 0 1 "$(hostname)" 0 2 "$(hostname)" "$last_cpu" 3 "$(hostname)" "$last_cpu" >ranks
$TALLY run --mpi --window 'start=5,iterations=20' -o imb -- $(launcher openmpi 4) --rankfile ranks \
  --mca mpi_yield_when_idle 1 "$WORK/stencil.openmpi" blocking 30 64 200 0 1 "$WORK/h" 2,3:16 >/dev/null 2>&1
check_eq "imbalanced run: exit status" "$?" 0
$TALLY mpi report imb --format json >r.json
check_eq "report --format json: exit status" "$?" 0
echo "# waits (s; % of the mean): $(jq -c '[.mpi.per_rank[] | .wait_time[0]] | (add / length) as $m | [., map(. / $m * 100 | floor)]' imb.summary)"
check_eq "waiting more: the light ranks 0 and 1" "$(jq -c .imbalance.waiting_more r.json)" "[0,1]"
check_eq "waiting less: the heavy ranks 2 and 3" "$(jq -c .imbalance.waiting_less r.json)" "[2,3]"
check_near "comm_ratio as in the summary" "$(jq .comm_ratio r.json)" "$(jq .mpi.comm_ratio imb.summary)" 0.000001
check_eq "link matrix total = links total" "$(jq '[.link_matrix[][]] | add' r.json)" "$(jq '[.mpi.links[].bytes] | add' imb.summary)"
check_eq "link matrix 0 -> 1 = 20 iterations x 64 doubles" "$(jq '.link_matrix[0][1]' r.json)" $((20 * 64 * 8))
check_eq "link matrix 0 -> 3 (not neighbours) = 0" "$(jq '.link_matrix[0][3]' r.json)" 0
check_near "progress rate = mean time per iteration" "$(jq .time_per_iteration r.json)" \
  "$(jq '[.mpi.per_rank[].time_per_iteration[0]] | add / length' imb.summary)" 0.000001
text=$($TALLY mpi report imb)
check_contains "text report: names the faster ranks" "$text" "waiting more: faster or less loaded ranks: 0 1"
check_contains "text report: the ratio" "$text" "T_c/(t2-t1-T_c)"
# formula (2): two runs' busy and idle summed
$TALLY mpi report imb --with imb --format json >w.json
check_near "formula (2) with itself: (2b - 2i)/(2b + 2i)" "$(jq .coscheduling_increase w.json)" \
  "$(jq '.busy_idle | if .busy > .idle then (.busy - .idle) / (.busy + .idle) else 0 end' r.json)" 0.000001
# eq. (6) and (7) on ScoPro Table 7a, IS(A)/EP(B) 4 nodes: 226.22 s, 1.12, 148 s
out=$($TALLY mpi predict --alone 226.22 --slowdown 1.12 --other-end 148)
check_contains "eq. (6) = 226.22 + 148 - 148/1.12" "$out" "= 242.077 s"
check_contains "eq. (7) = 226.22 * 1.12" "$out" "= 253.366 s"
# S_a from two summaries' progress rates
$TALLY mpi predict --alone imb --together imb --other-end 1 | grep -q "S_a 1.0000"
check_eq "S_a of a run against itself = 1" "$?" 0
$TALLY mpi report nothing 2>err
check_eq "report of a missing summary: 125" "$?" 125
check_contains "report of a missing summary: a line" "$(cat err)" "tally: mpi: nothing.summary:"
echo '{"command": "x"}' >plain.summary
$TALLY mpi report plain 2>err
check_contains "report of a summary without mpi: a line" "$(cat err)" "no 'mpi' object"
finish
