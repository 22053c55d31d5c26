#!/usr/bin/env bash
# Report files: summary fields and units, the time series header and rows,
# the files list, name/category/host, default prefix.
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
$TALLY run -o r --time-series --files --interval 0.1 --name build --category compile -- \
  /bin/sh -c 'cat /etc/hostname >/dev/null; exec 3</etc/passwd; sleep 0.5'
check_eq "exit" "$?" 0
check_eq "name" "$(jq -r .name r.summary)" build
check_eq "category" "$(jq -r .category r.summary)" compile
check_eq "host" "$(jq -r .host r.summary)" "$(hostname)"
check_eq "memory unit" "$(jq -r '.memory[1]' r.summary)" MB
check_eq "wall_time unit" "$(jq -r '.wall_time[1]' r.summary)" s
check_eq "machine_cpus" "$(summary_value r.summary machine_cpus)" "$(nproc)"
if ! ldconfig -p | grep -q libnvidia-ml.so.1; then
  check_eq "no NVML: gpus 0" "$(summary_value r.summary gpus)" 0
fi
check "tally_version present" jq -e '.tally_version | length > 0' r.summary
check "peak_times.memory present" jq -e '.peak_times.memory[1] == "s"' r.summary
hdr=$(grep '^#' r.series | tail -1)
check_eq "series header" "$hdr" "#wall_clock cpu_time cores max_concurrent_processes virtual_memory memory swap_memory bytes_read bytes_written bytes_received bytes_sent total_files disk proportional_memory storage_bytes_read storage_bytes_written host_cores host_memory_total host_network_bandwidth host_cpu_time host_memory_used host_disk_read host_disk_written host_received host_sent"
rows=$(grep -vc '^#' r.series)
check_cmp "series has rows for 0.5 s at 0.1 s" "$rows" ">=" 4
check_eq "rows have 25 columns" "$(grep -v '^#' r.series | awk '{print NF}' | sort -u)" 25
check_eq "series: host_cores = nproc" "$(grep -v '^#' r.series | awk '{print $17}' | sort -u)" "$(nproc)"
memtotal=$(awk '/^MemTotal:/ { printf "%.3f", $2 / 1024 }' /proc/meminfo)
check_eq "series: host_memory_total = MemTotal" "$(grep -v '^#' r.series | awk '{print $18}' | sort -u)" "$memtotal"
check "files lists /etc/passwd" jq -e '.files | index("/etc/passwd")' r.files
# A process living far less than an interval: its files are read at its exit.
$TALLY run -o short --files -- /bin/sh -c 'exec 3</etc/hostname; exit 0'
check "files of a short process (read at its exit)" jq -e '.files | index("/etc/hostname")' short.files
# The last row of the series covers the last (partial) interval: a task that
# sleeps through the first interval and then burns 0.4 s of CPU ends on a
# busy row, not on a copy of the idle one before it.
$TALLY run -o tail --time-series --interval 1 -- /bin/sh -c "sleep 1.2; exec '$PROGS/spin_threads' 1 0.4"
check_cmp "series: first row idle (cores)" "$(grep -v '^#' tail.series | head -1 | awk '{print $3}')" "<" 0.1
check_cmp "series: last row busy (cores)" "$(grep -v '^#' tail.series | tail -1 | awk '{print $3}')" ">" 0.1
$TALLY run -- /bin/true
check "default prefix tally-<pid>.summary" eval 'ls tally-*.summary >/dev/null'
finish
