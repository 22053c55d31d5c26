# Shared by the rmcompat tests (sourced after lib.sh): tally under
# resource_monitor's name, cctools' own summary reader, and the environment
# Debian's makeflow needs (it calls MPI_Init; Open MPI refuses root without
# these two variables).
RM_TALLY_DIR=$WORK/tally-bin
mkdir -p "$RM_TALLY_DIR"
ln -sf "$TALLY" "$RM_TALLY_DIR/resource_monitor"
RM_TALLY=$RM_TALLY_DIR/resource_monitor   # tally, started as resource_monitor
RM_REAL=$(command -v resource_monitor)     # cctools' own, for comparison
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# tally built with ASan: the task's own leaks are not tally's
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}

# cctools_reader FILE...: cctools' parsing of summaries (see cctools_reader.c)
CCTOOLS_READER=$WORK/cctools_reader
cc -I/usr/include/cctools -o "$CCTOOLS_READER" "$TALLY_TEST_ROOT/tests/integration/rmcompat/cctools_reader.c" \
  /usr/lib/libdttools.a -lm -lz 2>"$WORK/reader-build.log" || {
  not_ok "cctools_reader builds against libdttools (coop-computing-tools-dev): $(head -3 "$WORK/reader-build.log")"
  finish
}

# field LINE NAME: the value of NAME=value in a cctools_reader line
field() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# listening COUNT PORT: until something listens on TCP PORT (COUNT tenths of a second)
listening() { for _ in $(seq "$1"); do ss -Htln "sport = :$2" | grep -q . && return 0; sleep 0.1; done; return 1; }

# The workflow of the Makeflow tests: two small rules, one that reads their
# outputs, and (category "big", MEMORY=20 MB) one that needs ~240 MB and must
# be stopped by the monitor. tail holds its 250 MB buffer for 3 s (its reader
# sleeps), long enough for resource_monitor's 1 s samples to see it.
write_workflow() {
  cat >"$1" <<'MF'
CATEGORY=small
MEMORY=200
a.txt:
	echo alpha > a.txt
b.txt:
	seq 1 20000 > b.txt
ab.txt: a.txt b.txt
	cat a.txt b.txt > ab.txt; sleep 1
CATEGORY=big
MEMORY=20
big.txt: ab.txt
	head -c 300000000 /dev/zero | tail -c 250000000 | (sleep 3; cat > /dev/null); wc -c ab.txt > big.txt
MF
}

# makeflow_states LOG: "rule:state" of each rule's last transition in a makeflow log
makeflow_states() {
  awk '!/^#/ { last[$2] = $3 } END { for (r in last) print r ":" last[r] }' "$1" | sort | tr '\n' ' '
}
