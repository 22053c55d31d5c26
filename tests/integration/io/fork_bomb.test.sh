#!/bin/bash
# Level 3: a fork bomb under a process limit. The tree runs as 'nobody'
# with RLIMIT_NPROC 40 (root ignores the limit), every process forking two
# children down to depth 6 (127 if nothing were refused) and appending 10
# bytes to one file. Forks fail with EAGAIN; the helper must neither crash
# nor lose a process: every process the tracer counted has its region, and
# the file's bytes are 10 per process, as the file itself says.
. "$(dirname "$0")/../lib.sh"

chmod 755 "$WORK"
mkdir d && chmod 777 d
D=$PWD/d
setpriv --reuid=65534 --regid=65534 --clear-groups prlimit --nproc=40 \
  "$TALLY" run --level 3 -o "$D/bomb" -- "$PROGS/io_hostile" bomb "$D/bomb.dat" 6
check_eq "the bomb runs to its end under the limit" "$?" 0
n=$(summary_value d/bomb.summary total_processes)
check_cmp "some forks were refused (fewer than 127 processes)" "$n" "<" 127
check_cmp "and many were made" "$n" ">" 10
check_eq "every process counted has its helper region" "$(jq -r '.io.processes_interposed' d/bomb.summary)" "$n"
check_eq "none missed" "$(jq -r '.io.not_interposed | length' d/bomb.summary)" 0
check_eq "the file is 10 bytes per process" "$(stat -c %s d/bomb.dat)" $((10 * n))
check_eq "and so are its counted writes" \
  "$(jq -r --arg p "$D/bomb.dat" '.files[] | select(.path == $p) | .POSIX_BYTES_WRITTEN' d/bomb.files.json)" $((10 * n))
check_eq "one write per process" \
  "$(jq -r --arg p "$D/bomb.dat" '.files[] | select(.path == $p) | .processes | length' d/bomb.files.json)" "$n"
finish
