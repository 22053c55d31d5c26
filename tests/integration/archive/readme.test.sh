#!/usr/bin/env bash
# The README's tour of the archive, run exactly as written: its commands are
# read from README.md (from "# measure a task" to the closed loop), with
# build/tally being the tally under test, ./align a small task and old-runs/
# a history of align (category rmapper) with one runaway and one run stopped
# by a limit. Each command's answer is checked.
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
source "$TALLY_TEST_ROOT/tests/integration/docs/readme_lib.sh"
export TALLY_DB=$WORK/default/archive.db
mkdir build old-runs
ln -s "$TALLY" build/tally
printf '#!/bin/sh\nexec "%s/grow_memory" 200 30\n' "$PROGS" > align
chmod +x align
echo '>seq1 ACGT' > input.fa
# 30 runs of 600-690 MB for 60-118 s, a runaway at 9000 MB, a run stopped at 2 GB
for i in $(seq 0 29); do
  printf '{"name":"align","category":"rmapper","host":"c%d","seq":%d,"exit_type":"normal","memory":[%d,"MB"],"wall_time":[%d,"s"],"cpu_time":[%d,"s"]}\n' \
    $((i % 5)) "$i" $((600 + 3 * i)) $((60 + 2 * i)) $((50 + 2 * i)) > old-runs/run$i.summary
done
echo '{"name":"align","category":"rmapper","host":"c9","seq":30,"exit_type":"normal","memory":[9000,"MB"],"wall_time":[100,"s"],"cpu_time":[90,"s"]}' > old-runs/runaway.summary
echo '{"name":"align","category":"rmapper","host":"c8","seq":31,"exit_type":"limits","limits_exceeded":{"memory":[2048,"MB"]},"memory":[2100,"MB"],"wall_time":[30,"s"],"cpu_time":[29,"s"]}' > old-runs/stopped.summary

# the README's commands from '# measure a task' to the closed loop
block_commands '^# measure a task' '^# categorized traces' > commands.txt
check_eq "the README's archive tour has its eight commands" "$(wc -l < commands.txt)" 8
n=0
while IFS= read -r line; do
  n=$((n + 1))
  bash -c "$line" > out.$n 2> err.$n < /dev/null
  echo $? > status.$n
done < commands.txt
for i in $(seq 1 8); do check_eq "command $i exits 0: $(sed -n ${i}p commands.txt | cut -c1-60)" "$(cat status.$i)" 0; done

check_eq "run: category" "$(jq -r .category run1.summary)/$(jq -r .name run1.summary)" rmapper/align
check_eq "jq: memory, cpu_time, processes" "$(jq -c -s 'map(.[1])' out.2)" '["MB","s","procs"]'
check_contains "add: everything added" "$(cat err.3 out.3)" "added 33"
check_eq "query: the 32 rmapper runs above 500 MB and under 1 h" "$(grep -c ' align ' out.4)" 32
check_contains "stats: says it looked rmapper up as a category" "$(cat out.5)" "category rmapper"
check_contains "stats: 33 runs" "$(cat out.5)" "33"
check "stats --plot: a plot" test -s plots/rmapper.svg
check_contains "predict: by category, 33 summaries" "$(cat out.6)" "category rmapper: 33 summaries"
check "predict: no negative or -0 waste" bash -c "! grep -E -- '(^| )-[0-9]' out.6"
check_contains "outliers: the runaway" "$(cat out.7)" "memory 9000 MB on host c9"
check_contains "outliers: the run stopped by a limit, and why" "$(cat out.7)" "on host c8 was stopped by a limit: memory 2048 MB (reached 2100 MB)"
check_contains "closed loop: limits from the category's history" "$(cat err.8)" "limits from the archive (33 runs of category 'rmapper', first allocation + 25%)"
check_eq "closed loop: archived" "$(sqlite3 "$TALLY_DB" "select count(*) from summaries where category = 'rmapper'")" 34
finish
