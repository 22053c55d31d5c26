#!/usr/bin/env bash
# tally run --annotate JSON (members added to the summary, never over a
# measured one) and --unmeasured-on-error (tally's errors never change the
# command's fate), as the Slurm plugin uses them (tally-slurm(7)).
. "$(dirname "$0")/../lib.sh"

"$TALLY" run -o a --annotate '{"slurm": {"job_id": 12, "node": "n1"}}' \
  --annotate '{"requested": {"memory": [100, "MB"]}, "exit_status": 99}' -- sh -c 'exit 3'
check_eq "the command's status" "$?" 3
check_eq "annotation kept" "$(jq -c .slurm a.summary)" '{"job_id":12,"node":"n1"}'
check_eq "a second --annotate adds its members" "$(jq -r '.requested.memory[0]' a.summary)" 100
check_eq "a measured member is never replaced" "$(jq -r .exit_status a.summary)" 3

for bad in '[1, 2]' '{"slurm": ' '"text"'; do
  err=$("$TALLY" run -o b --annotate "$bad" -- true 2>&1)
  check_eq "--annotate '$bad': tally's error status" "$?" 125
  check_contains "--annotate '$bad': one line naming the option" "$err" "tally: --annotate: "
done
check "a bad --annotate does not run the command" test ! -e b.summary

# --mpi on a command whose MPI cannot be told: the command still runs.
out=$("$TALLY" run --unmeasured-on-error --mpi -o c -- sh -c 'echo ran; exit 4' 2>err)
check_eq "--unmeasured-on-error: the command's own status" "$?" 4
check_eq "--unmeasured-on-error: the command ran" "$out" ran
check_contains "--unmeasured-on-error: says why" "$(cat err)" "tally: --mpi: cannot tell"
check_contains "--unmeasured-on-error: says it runs unmeasured" "$(cat err)" "tally: run: running sh unmeasured"
check "--unmeasured-on-error: no summary of an unmeasured run" test ! -e c.summary
"$TALLY" run --mpi -o d -- sh -c 'exit 4' 2>/dev/null
check_eq "without it: tally's error status" "$?" 125

# A report that cannot be written: the command's status stands.
mkdir ro && "$TALLY" run --unmeasured-on-error -o ro/e -- sh -c 'rmdir ro; exit 5' 2>err
check_eq "summary unwritable at the end: still the command's status" "$?" 5
check_contains "and said" "$(cat err)" "ro/e.summary"
finish
