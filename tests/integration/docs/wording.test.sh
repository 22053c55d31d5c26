#!/usr/bin/env bash
# What users read: no paper cited as "seed 00N" (named by title and authors)
# in the README, man pages, docs, any --help or a written contract;
# view --help names --live; run --help says where reports go with --agent;
# outliers explain themselves without "robust z =" or "0.0× the median".
# make check: runs beside other tests
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
R=$TALLY_TEST_ROOT
check_eq "README, man pages, docs: no 'seed 00N'" \
  "$(grep -rlis 'seed 00[0-9]' "$R/README.md" "$R/man" "$R/docs" | sed "s|$R/||" | tr '\n' ' ')" ""
helps=$("$TALLY" --help 2>&1)
for c in run rm archive trace view agent request top contract mpi; do
  helps+=$("$TALLY" "$c" --help 2>&1)
done
check_eq "--help of every command: no 'seed 00N'" "$(printf '%s' "$helps" | grep -ci 'seed 00[0-9]')" 0
check_contains "the contract paper named in tally --help" "$helps" "Vraalsen, Aydt, Mendes and Reed"
check_contains "view --help names the live page" "$("$TALLY" view --help)" "tally view --live APP --serve"
check_contains "run --help: where reports go with --agent" "$("$TALLY" run --help)" \
  "still written (-o, else tally-<pid>.* in the current"
check_contains "run --help: --files says what it lists" "$("$TALLY" run --help)" "(not every file it opened)"
check_contains "requests.md: site_get_info is one node's answer" "$(cat "$R/docs/requests.md")" "one node's answer, not the site's"

# outliers: one run far below the others (not flagged), one far above
mkdir s
i=0
for m in 1000 1001 999 1000 1002 998 1000 0.01 900000; do
  i=$((i + 1))
  jq -n --argjson m "$m" --arg h "h$i" '{command: "w", name: "w", category: "w", host: $h,
    memory: [$m, "MB"], wall_time: [10, "s"], start: [1, "s"], end: [11, "s"]}' >"s/r$i.summary"
done
"$TALLY" archive --db "$WORK/o.db" add s >/dev/null
out=$("$TALLY" archive --db "$WORK/o.db" outliers w)
check_eq "outliers: the high run found (low ones are not flagged)" "$(printf '%s\n' "$out" | grep -c ' is ')" 1
check_contains "  as a ratio to the median" "$out" "900000 MB on host h9 is 900"
check_eq "  no ' 0.0×', no 'robust z ='" "$(printf '%s\n' "$out" | grep -c ' 0\.0×\|robust z =')" 0
check_contains "  the score says its threshold" "$out" "; above 3.5 is an outlier)"
finish
