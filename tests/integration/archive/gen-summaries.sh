#!/usr/bin/env bash
# Writes N generated tally-style summaries as JSON Lines on stdout (helper of
# the archive tests and benchmark, not a test itself).
# usage: gen-summaries.sh N [SEED] [NAME] [CATEGORIES] [FIRST_START]
# (every summary distinct: seq+seed; FIRST_START, the first start in seconds
# since 1970, default 1795000000)
# With CATEGORIES, summary i is task NAME-(i mod 4·CATEGORIES) of category
# cat(i mod CATEGORIES) on one of 500 hosts, its memory scaled by its category,
# one start every 10 s (10^6 summaries span 116 days); without, all are task NAME of
# category align on 20 hosts, one start a second.
n=$1 seed=${2:-1} name=${3:-rmapper} ncat=${4:-0} first=${5:-1795000000}
awk -v n="$n" -v seed="$seed" -v base="$name" -v ncat="$ncat" -v first="$first" 'BEGIN {
  srand(seed);
  for (i = 0; i < n; i++) {
    wall = 300 + 200 * rand(); cpu = wall * (0.8 + 0.2 * rand());
    mem = 400 + int(600 * rand()); host = "c" int(20 * rand());
    start = first + i; name = base; category = "align";
    if (ncat > 0) {
      k = i % ncat; category = "cat" k; name = base "-" (i % (4 * ncat));
      mem = int(mem * (1 + k / 10)); host = "c" int(500 * rand()); start = first + 10 * i;
    }
    printf "{\"name\":\"%s\",\"category\":\"%s\",\"host\":\"%s\",\"command\":\"%s -i in%d\",\"exit_status\":0,\"exit_type\":\"normal\",\"tally_version\":\"0.1\",\"level\":1,\"seq\":\"%d-%d\",\"start\":[%.3f,\"s\"],\"end\":[%.3f,\"s\"],\"wall_time\":[%.3f,\"s\"],\"cpu_time\":[%.3f,\"s\"],\"memory\":[%d,\"MB\"],\"virtual_memory\":[%d,\"MB\"],\"disk\":[%d,\"MB\"],\"cores\":[%.3f,\"cores\"],\"bytes_read\":[%.2f,\"MB\"],\"bytes_written\":[%.2f,\"MB\"],\"total_processes\":[%d,\"procs\"],\"max_concurrent_processes\":[%d,\"procs\"],\"total_files\":[%d,\"files\"]}\n",
      name, category, host, name, i, seed, i, start, start + wall, wall, cpu, mem, mem + 200, 50 + int(10 * rand()), cpu / wall, 100 * rand(), 20 * rand(), 1 + int(4 * rand()), 1 + int(2 * rand()), 40 + int(5 * rand());
  }
}'
