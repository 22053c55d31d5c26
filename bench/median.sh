# median: reads numbers, one per line, on standard input and prints their
# median (the mean of the two middle ones for an even count; nothing for no
# number). Sourced by the bench scripts (". bench/median.sh" from the
# project's root), which take medians of several runs.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
