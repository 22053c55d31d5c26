#!/usr/bin/env bash
# tally as resource_monitor with --with-inotify: PREFIX.files and the
# summary's input_files/output_files from level 3's records, side by side
# with cctools' own resource_monitor on the same command: the same file
# names, the same layout (header lines byte for byte, the columns ending at
# the same places), and the counts of known writes and reads exact.
# make check: runs beside other tests
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
source "$TALLY_TEST_ROOT/tests/integration/rmcompat/common.sh"
MiB=1048576
mkdir data
# resource_monitor's helper reports each open in a message its monitor
# reads in its loop; back-to-back short processes lose some of them (seen
# here: c.txt missing, a.bam's second open missing, in about one run of
# five), so each step is followed by 0.3 s of sleep
CMD='dd if=/dev/zero of=data/a.bam bs=1M count=3 status=none; sleep 0.3; dd if=data/a.bam of=/dev/null bs=1M status=none; sleep 0.3; dd if=/dev/zero of=data/c.txt bs=1000 count=2 status=none; sleep 0.3'
"$RM_REAL" --with-inotify -O real --sh "$CMD" >/dev/null 2>&1
check_eq "cctools' resource_monitor wrote real.files" "$(test -s real.files && echo yes)" yes
rm -f data/*
"$RM_TALLY" --with-inotify -O ours --sh "$CMD"
check_eq "tally: exit status" "$?" 0
check_eq "tally: the same report files as resource_monitor" "$(ls ours.*)" "ours.files
ours.summary"

# the layout
check_eq "header lines byte for byte" "$(head -2 ours.files | od -c)" "$(head -2 real.files | od -c)"
# column ends of the number lines (every second line after the header)
ends() { awk 'NR > 2 && NR % 2 == 0 { s = $0; out = ""; pos = 0
  while (match(s, /[^ ]+/)) { pos += RSTART + RLENGTH - 1; out = out " " pos; s = substr(s, RSTART + RLENGTH) }
  print out }' "$1" | sort -u; }
check_eq "resource_monitor's columns end at 22 43 64 71 78 85 92" "$(ends real.files)" " 22 43 64 71 78 85 92"
check_eq "tally's number lines end at the same columns" "$(ends ours.files)" " 22 43 64 71 78 85 92"
check_eq "path lines: padded to 15 like resource_monitor's" \
  "$(awk 'NR > 2 && NR % 2 == 1 && length($0) < 15' ours.files real.files)" ""

# the same files (tally writes absolute paths; resource_monitor the names the
# program gave; resource_monitor also lists the executables it saw exec'd)
check_eq "the data files, in both" "$(grep -o '^data/[a-z.]*' real.files | sort | paste -sd' ')" "data/a.bam data/c.txt"
check_eq "... and in tally's, absolute" "$(grep "^$PWD/data/" ours.files | sed "s|^$PWD/||; s/ *$//" | sort | paste -sd' ')" "data/a.bam data/c.txt"
num() { awk -v p="$2" '$1 == p { getline; print $'"$3"' }' "$1"; }
for f in a.bam c.txt; do
  check_eq "$f: device as resource_monitor's" "$(num ours.files "$PWD/data/$f" 1)" "$(num real.files "data/$f" 1)"
  check_eq "$f: final size as resource_monitor's" "$(num ours.files "$PWD/data/$f" 3)" "$(num real.files "data/$f" 3)"
  check_eq "$f: opens as resource_monitor's" "$(num ours.files "$PWD/data/$f" 4)" "$(num real.files "data/$f" 4)"
done
# the values of the known writes, exact
check_eq "a.bam: device, final size, opens, reads (3 + the end), writes" \
  "$(num ours.files "$PWD/data/a.bam" 1) $(num ours.files "$PWD/data/a.bam" 3) $(num ours.files "$PWD/data/a.bam" 4) $(num ours.files "$PWD/data/a.bam" 6) $(num ours.files "$PWD/data/a.bam" 7)" \
  "$(stat -c %d data/a.bam) $((3 * MiB)) 2 4 3"
check_eq "c.txt: 2000 bytes, 1 open, 0 reads, 2 writes" \
  "$(num ours.files "$PWD/data/c.txt" 3) $(num ours.files "$PWD/data/c.txt" 4) $(num ours.files "$PWD/data/c.txt" 6) $(num ours.files "$PWD/data/c.txt" 7)" "2000 1 0 2"
check_eq "/dev/zero: read 3 + 2 times, never written: its size kept" \
  "$(num ours.files /dev/zero 2) $(num ours.files /dev/zero 6) $(num ours.files /dev/zero 7)" "0 5 0"
check_eq "closes: not counted (-1)" "$(num ours.files "$PWD/data/a.bam" 5)" -1

# the summary's lists: the same layout (paths aside), sizes in MB rounded up
shape() { jq -r ".$2" "$1" | sed -E 's/"[^"]*"/"P"/; s/,$//' | sort; }
check_eq "output_files: resource_monitor's layout and sizes" "$(shape ours.summary output_files)" "$(shape real.summary output_files)"
check_contains "output_files: a.bam, 3 MB" "$(jq -r .output_files ours.summary)" "[ \"$PWD/data/a.bam\", 3 ]"
check_contains "output_files: c.txt, 1 MB (2000 B rounded up)" "$(jq -r .output_files ours.summary)" "[ \"$PWD/data/c.txt\", 1 ]"
check_eq "input_files: /dev/zero" "$(jq -r .input_files ours.summary)" "[
                  [ \"/dev/zero\", 0 ]
               ]"
check_contains "resource_monitor's input_files has /dev/zero the same way" "$(jq -r .input_files real.summary)" '                  [ "/dev/zero", 0 ]'
check_eq "the fields after host, as resource_monitor's" "$(jq -r 'keys_unsorted[2:5] | join(" ")' ours.summary)" "host input_files output_files"

# cctools' own reader takes the summary
"$CCTOOLS_READER" ours.summary >reader.out 2>reader.err
check_eq "cctools' reader parses it" "$?" 0
check_contains "... with its command" "$(cat reader.out)" "ours.summary"

# Makeflow --monitor-with-opened-files: each rule's .files where Makeflow
# keeps its monitor's reports, with either monitor
mf() {
  mkdir -p "$1" && printf 'out.dat:\n\tdd if=/dev/zero of=out.dat bs=4096 count=5 status=none; sleep 0.3\n' > "$1/Makeflow"
  (cd "$1" && timeout 120 makeflow --monitor=mon --monitor-exe="$2" --monitor-with-opened-files \
     Makeflow >out.log 2>&1; echo $? >rc)
}
# resource_monitor itself (the reference, not the code under test) now and
# then writes a .files with its header and no file when the machine is
# loaded (seen once in a make check at load 7): its run is tried up to three
# times for a report that lists out.dat; tally's is run once
for _ in 1 2 3; do
  rm -rf mf-real; mf mf-real "$RM_REAL"
  grep -q "out.dat" mf-real/mon/resource-rule-0.files 2>/dev/null && break
done
mf mf-tally "$RM_TALLY"
check_eq "makeflow with tally: status as with resource_monitor" "$(cat mf-tally/rc)" "$(cat mf-real/rc)"
check_eq "makeflow: the same monitor reports" "$(cd mf-tally/mon && ls | tr '\n' ' ')" "$(cd mf-real/mon && ls | tr '\n' ' ')"
check_eq "the rule's .files: out.dat, 20480 bytes, 1 open, 5 writes" \
  "$(num mf-tally/mon/resource-rule-0.files "$PWD/mf-tally/out.dat" 3) $(num mf-tally/mon/resource-rule-0.files "$PWD/mf-tally/out.dat" 4) $(num mf-tally/mon/resource-rule-0.files "$PWD/mf-tally/out.dat" 7)" \
  "20480 1 5"
check_eq "... resource_monitor's: the same size and opens" \
  "$(num mf-real/mon/resource-rule-0.files out.dat 3) $(num mf-real/mon/resource-rule-0.files out.dat 4)" "20480 1"

# a file name that is not UTF-8: as is in .files (as resource_monitor), as
# \xNN in the summary's lists (which must stay JSON)
"$RM_TALLY" --with-inotify -O badname --sh "printf 12345 > 'data/bad$(printf '\377').txt'"
check_eq "bad name: exit 0" "$?" 0
check_eq "bad name: .files has the raw bytes" "$(grep -c "^$PWD/data/bad$(printf '\377').txt" badname.files)" 1
check_contains "bad name: output_files has it as \\xff" "$(jq -r .output_files badname.summary)" "[ \"$PWD/data/bad\\xff.txt\", 1 ]"

# the helper not found: said on one line, the task still measured, .files
# from /proc as before (no counts)
mkdir empty-lib
TALLY_LIBDIR=$WORK/empty-lib "$RM_TALLY" --with-inotify -O fallback --sh 'exec 3> data/fb.txt; echo x >&3; sleep 0.5' 2>fallback.err
check_eq "helper missing: exit status 0" "$?" 0
check_contains "helper missing: said" "$(cat fallback.err)" "tally: rm: --with-inotify: without the level-3 helper, PREFIX.files lists the files seen open, without counts"
check_contains "helper missing: .files names the file seen open" "$(cat fallback.files)" "$PWD/data/fb.txt"
check_eq "helper missing: no lists in the summary" "$(jq -c '[has("input_files"), has("output_files"), .exit_type]' fallback.summary)" '[false,false,"normal"]'

# without --with-inotify: no .files, no lists (level 2 as before)
"$RM_TALLY" -O plain --sh 'echo x > data/p.txt'
check_eq "without --with-inotify: no .files" "$(ls plain.*)" "plain.summary"
check_eq "... and no file lists" "$(jq -c '[has("input_files"), has("output_files")]' plain.summary)" "[false,false]"
finish
