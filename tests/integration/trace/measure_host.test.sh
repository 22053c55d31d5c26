#!/usr/bin/env bash
# tally trace measure-host: this host's disk bandwidth measured (a synced
# sequential write and its read back, in a directory) and its network's from
# /sys, as one line of from-runs' --capacity file; the hosts of a trace from
# a real run then have that disk capacity, not the peak seen (issue 21 item 1).
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
RUN=${TALLY_RELEASE:-$TALLY}
host=$(hostname)
mkdir disk

"$RUN" trace measure-host --dir disk --size 64 >cap.txt 2>err.txt
check_eq "exit 0" "$?" 0
cat cap.txt | sed 's/^/# /'
check_eq "two lines: how, then the figures" "$(wc -l <cap.txt)" 2
check_contains "the comment says where the disk was measured" "$(head -1 cap.txt)" "disk measured in disk with 64 MB: write "
line=$(tail -1 cap.txt)
check "the line is 'HOST disk=MB/s [network=MB/s]'" eval '[[ "$line" =~ ^"$host"\ disk=[0-9]+(\.[0-9])?(\ network=[0-9]+(\.[0-9])?)?$ ]]'
check_eq "nothing left in the directory" "$(ls -A disk)" ""
disk=$(echo "$line" | sed 's/.* disk=\([0-9.]*\).*/\1/')
write=$(head -1 cap.txt | sed 's/.*write \([0-9.]*\) MB\/s.*/\1/')
read=$(head -1 cap.txt | sed 's/.*read \([0-9.]*\) MB\/s.*/\1/')
check_eq "disk is the faster of write and read" "$disk" "$(awk -v w="$write" -v r="$read" 'BEGIN { printf "%.1f", (w > r ? w : r) }')"
# dd's synced direct write of the same size on the same directory: within a factor of 4
dd if=/dev/urandom of=rand.bin bs=1M count=64 status=none
dd_rate=$(dd if=rand.bin of=disk/dd.bin bs=1M oflag=direct conv=fdatasync 2>&1 | sed -n 's/.* s, \([0-9.,]*\) \([kMG]\)B\/s$/\1 \2/p' |
  awk '{ gsub(",", ".", $1); f = $2 == "G" ? 1e9 : $2 == "M" ? 1e6 : 1e3; printf "%.1f", $1 * f / 1048576 }')
rm -f disk/dd.bin
echo "# dd: $dd_rate MB/s, tally: write $write MB/s"
check_cmp "the write rate is dd's within a factor of 4 (above a quarter)" "$write" ">" "$(awk -v d="$dd_rate" 'BEGIN { print d / 4 }')"
check_cmp "  ... (below four times)" "$write" "<" "$(awk -v d="$dd_rate" 'BEGIN { print d * 4 }')"

# a trace from a real run with that line: the host's io capacity is the measured disk
"$RUN" run --category w --time-series --interval 0.1 -o r -- "$PROGS/write_slowly" out.bin 8 1 100
check_eq "the run's summary names this host" "$(jq -r .host r.summary)" "$host"
"$TALLY" trace from-runs r --capacity cap.txt -o r.paje
check_eq "the trace's io capacity is the measured disk" \
  "$("$TALLY" trace aggregate r.paje --level host --kind io --format json | jq '.groups[0].capacity' | xargs printf '%.1f')" \
  "$(printf '%.1f' "$disk")"
check_eq "  ... not inferred from the peak" "$(grep -c 'io.peak-capacity' r.paje)" 0

# bad input: one line, exit 125
"$TALLY" trace measure-host --dir nowhere 2>err.txt; st=$?
check_eq "a missing directory: exit 125" "$st" 125
check_contains "  ... named, with why" "$(cat err.txt)" "tally: trace measure-host: nowhere: No such file or directory"
check_eq "  ... one line" "$(wc -l <err.txt)" 1
"$TALLY" trace measure-host --size 0.5 2>err.txt; st=$?
check_eq "--size 0.5: exit 125" "$st" 125
check_contains "  ... names --size" "$(cat err.txt)" "--size '0.5'"
finish
