#!/usr/bin/env bash
# The plugin never fails a job: when tally cannot measure the tasks (here
# --tally=DIR where nothing can be created, even by root; or a tally program
# that is not there) the job runs as it would without the plugin, with its
# own output and exit status, and the reason is said once on its stderr.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/slurm/slurm_lib.sh"

slurm_start || { not_ok "Slurm starts"; finish; }

# /proc: a directory, but no file can be created in it.
srun -n 4 --tally=/proc sh -c 'echo "task $SLURM_PROCID ran"; exit 7' >"$WORK/out" 2>"$WORK/err"
check_eq "the job keeps its exit status" "$?" 7
check_eq "every task ran" "$(sort "$WORK/out" | tr '\n' ,)" "task 0 ran,task 1 ran,task 2 ran,task 3 ran,"
check_eq "the reason is said once" "$(grep -c '^tally: ' "$WORK/err")" 1
check_contains "it names DIR and why" "$(cat "$WORK/err")" "tally: slurm: --tally=/proc: "
check_contains "it says the tasks run unmeasured" "$(cat "$WORK/err")" "the tasks run unmeasured"
check_eq "no summary anywhere" "$(ls "$WORK"/slurm-*.summary /proc/slurm-* 2>/dev/null | wc -l)" 0

# A directory that does not exist.
srun -n 2 --tally="$WORK/missing/dir" true 2>"$WORK/err2"
check_eq "missing DIR: the job succeeds" "$?" 0
check_eq "missing DIR: said once" "$(grep -c '^tally: ' "$WORK/err2")" 1
check_contains "missing DIR: why" "$(cat "$WORK/err2")" "No such file or directory"

# A batch job whose working directory cannot take a summary either.
cat >"$WORK/job.sh" <<'JOB'
#!/bin/sh
echo "batch ran in $(pwd)"
JOB
sbatch -W --tally --chdir=/proc -o "$WORK/batch.out" "$WORK/job.sh" >/dev/null 2>"$WORK/sbatch.err"
check_eq "sbatch --tally in an unwritable working directory: the job succeeds" "$?" 0
check_contains "the batch script ran" "$(cat "$WORK/batch.out")" "batch ran in /proc"
check_eq "and said why once" "$(grep -c '^tally: slurm: the working directory /proc' "$WORK/batch.out")" 1

# The plugin pointed at a tally that is not there.
echo "optional $SPANK_SO tally=$WORK/no-such-tally" >"$SL/plugstack.conf"
srun -n 3 --tally sh -c 'exit 0' 2>"$WORK/err3"
check_eq "no tally program: the job succeeds" "$?" 0
check_eq "no tally program: said once" "$(grep -c '^tally: ' "$WORK/err3")" 1
check_contains "no tally program: names it" "$(cat "$WORK/err3")" "$WORK/no-such-tally: No such file or directory"
finish
