# tally contract: samples from a real 'tally run --time-series' (the source
# that needs no instrumentation: cpu_share per interval), a contract built
# from them, --capabilities, the text file edited by hand, and errors.
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"

# two baseline runs of a task using about one core, then one using a quarter
"$TALLY" run --time-series --interval 0.2 -o spin1 -- "$PROGS/spin_threads" 1 1.5 >/dev/null
"$TALLY" run --time-series --interval 0.2 -o spin2 -- "$PROGS/spin_threads" 1 1.5 >/dev/null
"$TALLY" contract samples spin1 >samples.jsonl
check_eq "samples exits 0" "$?" 0
n=$(grep -c . samples.jsonl)
check_cmp "one sample per series interval" "$n" ">=" 4
used=$(jq -s '[.[] | .metrics.cpu_share * .period] | add' samples.jsonl)
check_near "cpu_share x period adds up to the run's cpu_time" "$used" "$(summary_value spin1.summary cpu_time)" 0.05
check_eq "the process is named after the prefix" "$(jq -r .process samples.jsonl | sort -u)" "spin1"

# the same process name in every run: rename by prefix
mkdir -p b && cp spin1.summary b/spin.summary && cp spin1.series b/spin.series
"$TALLY" contract build b/spin spin2.summary -o spin.contract 2>/dev/null
check_eq "build from tally run outputs" "$?" 0
check_contains "an execution cpu dimension" "$(cat spin.contract)" "dimension cpu cpu_share"

# a process the baseline did not have is compared with the nearest cluster
# (samples written here, in the metrics form, so the values are known)
for t in 1 2 3 4 5 6; do
  printf '{"process":"busy","host":"h","t":%d,"period":1,"metrics":{"cpu_share":0.9%d}}\n' "$t" "$t"
  printf '{"process":"quiet","host":"h","t":%d,"period":1,"metrics":{"cpu_share":0.1%d}}\n' "$t" "$t"
done >two.jsonl
"$TALLY" contract build two.jsonl -o two.contract 2>/dev/null
check_eq "two execution clusters" "$(grep -c '^  cluster ' two.contract)" 2
printf '{"process":"new","host":"h","t":10,"period":1,"metrics":{"cpu_share":0.5}}\n' >new.jsonl
printf '{"process":"busy","host":"h","t":10,"period":1,"metrics":{"cpu_share":0.12}}\n' >>new.jsonl
"$TALLY" contract check two.contract new.jsonl >new.out
check_eq "check exits 1" "$?" 1
check_eq "the unknown process is compared with the nearest cluster (log scale: 0.5 is nearer 0.935 than 0.135)" \
  "$(jq -r 'select(.process == "new" and .dimension == "cpu") | .cluster' new.out)" \
  "$(awk '/^  cluster /{k=$2} /cpu centroid 0.9/{print k}' two.contract)"
check_eq "busy, now quiet, is compared with its own cluster, not the quiet one" \
  "$(jq -r 'select(.process == "busy" and .dimension == "cpu") | "\(.cluster) \(.level)"' new.out)" \
  "$(awk '/^  cluster /{k=$2} /cpu centroid 0.9/{print k}' two.contract) 1"

# --capabilities: factors given per host are written as such
printf '# host capabilities\n%s flops_per_s 2G bytes_per_s 100M\n' "$(hostname)" >caps
"$PROGS/contract_master_worker" --out mw.jsonl --seconds 2 --workers 3 --latency-ms 5
"$TALLY" contract build mw.jsonl --capabilities caps -o mw.contract 2>/dev/null
check_contains "given factor in the contract" "$(grep '^factor' mw.contract)" "flops_per_s 2e+09 cv"
check_contains "marked given" "$(grep '^factor' mw.contract | head -1)" "given"
"$TALLY" contract check mw.contract mw.jsonl >/dev/null
check_eq "the baseline satisfies its own contract" "$?" 0
# a host twice as fast at check time: execution shares projected on it
printf '%s flops_per_s 4G bytes_per_s 200M\n' "$(hostname)" >fast
"$TALLY" contract check --capabilities fast mw.contract mw.jsonl >fast.out
check_eq "on a host twice as fast the same run violates" "$?" 1
check_contains "the explanation projects on the faster host" "$("$TALLY" contract check --format text --capabilities fast mw.contract mw.jsonl)" \
  "below the projected"

# the file is edited by hand: a wider default rulebase is honoured
sed 's/set trapez HIGH ( 1, 2, 0.5, 0 )/set trapez HIGH ( 100, 200, 99.5, 0 )/; s/var distance(0, 2)/var distance(0, 200)/; s/set trapez LOW ( 0, 0.5, 0, 0.5 )/set trapez LOW ( 0, 0.5, 0, 99.5 )/' mw.contract >wide.contract
"$TALLY" contract check --capabilities fast wide.contract mw.jsonl >/dev/null
check_eq "a rulebase tolerating 100 tolerances accepts it" "$?" 0

# --on-violation runs once per onset, with the explanation in the environment
"$TALLY" contract check --capabilities fast mw.contract mw.jsonl \
  --on-violation 'printf "%s|%s\n" "$TALLY_CONTRACT_PROCESS" "$TALLY_CONTRACT_EXPLANATION" >> acts' >/dev/null
check_cmp "actions ran" "$(grep -c . acts)" ">=" 1
check_contains "the action sees the explanation" "$(head -1 acts)" "execution: compute"

# errors: one line, exit 125, naming the bad part
printf 'contract 1\nspace intrinsic\n  dimension compute flops_per_job scale 1\n  cluster 0\n    compute centroid 1 tolerance -1\n' >bad.contract
err=$("$TALLY" contract check bad.contract mw.jsonl 2>&1 >/dev/null); st=$?
check_eq "bad contract: exit 125" "$st" 125
check_eq "bad contract: one line naming file and line" "$err" "tally: contract check: bad.contract:5: tolerance '-1' must be positive"
printf '{"process":"a","t":1,"counters":{"flops":"x"}}\n' >bad.jsonl
err=$("$TALLY" contract check mw.contract bad.jsonl 2>&1 >/dev/null); st=$?
check_eq "bad samples: exit 125" "$st" 125
check_eq "bad samples: names file and line" "$err" "tally: contract: bad.jsonl:1: a counter is not a number"
# empty input: no silent success (issue 22): one line naming the input, exit 125, nothing on stdout
: >empty.jsonl
out=$("$TALLY" contract samples empty.jsonl 2>err.txt); st=$?
check_eq "samples of an empty file: exit 125" "$st" 125
check_eq "samples of an empty file: nothing on stdout" "$out" ""
check_eq "samples of an empty file: one line naming it" "$(cat err.txt)" \
    "tally: contract: empty.jsonl: no sample (empty, or no process with two snapshots)"
out=$("$TALLY" contract samples - </dev/null 2>err.txt); st=$?
check_eq "samples of empty stdin: exit 125" "$st" 125
check_contains "samples of empty stdin: names it" "$(cat err.txt)" "contract: (stdin): no sample"
printf '{"process":"a","t":1,"counters":{"flops":5}}\n' >one.jsonl
"$TALLY" contract samples one.jsonl >/dev/null 2>err.txt
check_eq "one counter snapshot yields no sample: exit 125" "$?" 125
check_contains "names the one-snapshot file" "$(cat err.txt)" "contract: one.jsonl: no sample"
"$TALLY" contract check mw.contract empty.jsonl >/dev/null 2>err.txt
check_eq "check of an empty run: exit 125, not a clean pass" "$?" 125
"$TALLY" contract build -o x.contract 2>/dev/null
check_eq "build without baselines: 125" "$?" 125
err=$("$TALLY" contract build mw.jsonl -o x.contract --min-tolerance bogus=1 2>&1); st=$?
check_eq "bad --min-tolerance: 125" "$st" 125
check_contains "names the option" "$err" "--min-tolerance 'bogus=1'"
err=$("$TALLY" contract watch mw.contract --app x --agent "$WORK/no-agent.sock" 2>&1); st=$?
check_eq "watch without the agent: 125" "$st" 125
check_contains "watch says what is missing" "$err" "cannot connect to the agent"
check "--help exits 0" "$TALLY" contract --help
check_contains "tally --help lists contract" "$("$TALLY" --help)" "contract"
finish
