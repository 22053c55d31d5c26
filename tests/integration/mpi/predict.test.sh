#!/usr/bin/env bash
# tally mpi predict on summaries made by hand, checked against eq. (6) and
# (7) worked out here from the same inputs: S_a is the window's time per
# iteration beside B over A's alone, T_b how long B ran beside A counted on
# the summaries' clocks (B's end - A's start, or - B's start when B started
# later), and a window of A outside B's run is named.
# make check: runs beside other tests
. "$(dirname "$0")/../lib.sh"
# summary NAME START END TIME_PER_ITERATION [OPENED CLOSED [STARTED FINALIZING]]
summary() {
  jq -n --argjson s "$2" --argjson e "$3" --argjson tpi "$4" --argjson o "${5:-null}" --argjson c "${6:-null}" \
    --argjson i "${7:-null}" --argjson f "${8:-null}" \
    '{start: [$s, "s"], end: [$e, "s"], wall_time: [$e - $s, "s"],
      mpi: ({ranks: 2, per_rank: [], window: ({kind: "marker", time_per_iteration: [$tpi, "s"]}
        + (if $o == null then {} else {opened: [$o, "s"], closed: [$c, "s"]} end))}
        + (if $i == null then {} else {started: [$i, "s"], finalizing: [$f, "s"]} end))}' >"$1.summary"
}
# eq6 T_A1 S T_B and eq7 T_A1 S, to 3 decimals as predict prints them
eq6() { awk -v t="$1" -v s="$2" -v b="$3" 'BEGIN { printf "%.3f", t + b - b / s }'; }
eq7() { awk -v t="$1" -v s="$2" 'BEGIN { printf "%.3f", t * s }'; }

summary A1 500 600 0.010                 # A alone: 100 s, 10 ms per iteration
summary A2 1000 1127 0.018 1005 1015     # A beside B: 18 ms per iteration in 5..15 s
summary B 990 1060 0.004                 # B started 10 s before A, ended 60 s after A's start
out=$($TALLY mpi predict --alone A1 --together A2 --other-end B 2>err)
check_eq "predict: exit status" "$?" 0
check_contains "S_a = 0.018 / 0.010, T_b = 1060 - 1000" "$out" "T_a1 100.000 s, S_a 1.8000, T_b 60.000 s (B's end - A's start)"
check_contains "eq. (6) = 100 + 60 - 60/1.8 = $(eq6 100 1.8 60)" "$out" "T_b/S_a = 126.667 s"
check_contains "eq. (7) = 100 x 1.8 = $(eq7 100 1.8)" "$out" "T_a1 * S_a           = 180.000 s"
check_eq "hand eq. (6) agrees" "$(eq6 100 1.8 60)" 126.667
check_eq "window inside B's run: nothing on stderr" "$(cat err)" ""

summary B 1020 1060 0.004                # B started 20 s after A: beside A for 40 s
out=$($TALLY mpi predict --alone A1 --together A2 --other-end B 2>err)
check_contains "B started later: T_b = 1060 - 1020" "$out" "T_b 40.000 s (B's end - B's start (B started after A))"
check_contains "eq. (6) = $(eq6 100 1.8 40)" "$out" "T_b/S_a = 117.778 s"
check_contains "A's window (5-15 s) outside B's run (20-60 s) is named" "$(cat err)" \
  "tally: mpi predict: A2's window (5.000 to 15.000 s after its start) is not inside B's run (start to end: 20.000 to 60.000 s)"

# B's ranks past MPI_Init only 8 s after A's start: A's window (5-15 s) began during B's launch
summary B 990 1060 0.004 1000 1050 1008 1058
$TALLY mpi predict --alone A1 --together A2 --other-end B >/dev/null 2>err
check_contains "window during B's launch (MPI_Init at 8 s) is named" "$(cat err)" \
  "is not inside B's run (MPI_Init to MPI_Finalize: 8.000 to 58.000 s)"
summary B 990 1060 0.004 1000 1050 1004 1058
$TALLY mpi predict --alone A1 --together A2 --other-end B >/dev/null 2>err
check_eq "window inside B's MPI_Init..MPI_Finalize: nothing on stderr" "$(cat err)" ""

summary B 980 1000 0.004                 # B ended when A started: never beside it
out=$($TALLY mpi predict --alone A1 --together A2 --other-end B 2>/dev/null)
check_contains "B over before A: eq. (6) = T_a1" "$out" "T_b/S_a = 100.000 s"

summary B 990 1060 0.004
out=$($TALLY mpi predict --alone A1 --slowdown 1.25 --other-end B)
check_contains "--slowdown: T_b is B's wall time" "$out" "T_b 70.000 s (B's wall time (B assumed started with A))"
check_contains "eq. (6) = $(eq6 100 1.25 70)" "$out" "T_b/S_a = 114.000 s"
out=$($TALLY mpi predict --alone 100 --slowdown 2 --other-end 300)
check_contains "B outlasts A: A slowed all along, eq. (6) = eq. (7)" "$out" "T_b/S_a = 200.000 s"

$TALLY mpi predict --alone 100 --together A2 --other-end B 2>err
check_eq "--together with --alone in seconds: 125" "$?" 125
check_contains "--together with --alone in seconds: a line" "$(cat err)" "--together needs --alone as a summary"
summary A3 1000 1127 0.018
$TALLY mpi predict --alone A1 --together A3 --other-end B >/dev/null 2>err
check_contains "a window without opened/closed: said" "$(cat err)" "cannot tell whether A3's window was inside"
finish
