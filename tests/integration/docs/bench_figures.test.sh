#!/usr/bin/env bash
# Doc claims that name a benchmark figure point to the result file that gives
# it, with the same value (issue 22 item 17): bench_figures.py checks every
# paragraph of docs/*.md and README.md citing bench/results/NAME.md. Also
# that the checker catches a figure that differs (a copy of the docs with
# one figure changed), and that the scale section of docs/agent-nats.md
# cites a result file in every item that quotes a figure.
# make check: runs beside other tests
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
ROOT=$TALLY_TEST_ROOT
out=$(python3 "$ROOT/tests/integration/docs/bench_figures.py" "$ROOT" 2>&1); st=$?
check_eq "every quoted bench figure is in the result file it cites (${out:-none differ})" "$st" 0

# the checker sees a changed figure
mkdir -p copy/docs copy/bench
cp -r "$ROOT/bench/results" copy/bench/
cp "$ROOT"/docs/*.md copy/docs/
sed -i 's/0\.225 ms/0.2 ms/' copy/docs/agent-nats.md
out=$(python3 "$ROOT/tests/integration/docs/bench_figures.py" "$PWD/copy" 2>&1); st=$?
check_eq "a figure that differs from bench/results fails the check" "$st" 1
check_contains "... naming the figure and the file" "$out" "0.2 is not in bench/results/nats.md"

# docs/agent-nats.md, 'How far it scales': every item quoting a timing or rate cites its result
section=$(awk '/^## How far it scales/ { on = 1; next } /^## / { on = 0 } on' "$ROOT/docs/agent-nats.md")
uncited=$(printf '%s\n' "$section" | awk 'BEGIN { RS = "\n- " } /[0-9] *(ms|us|µs|requests per second)/ && !/bench\/results\/[a-z]+\.md/ { print substr($0, 1, 60) }')
check_eq "agent-nats.md's scale section: every item with a figure cites bench/results" "${uncited:-none}" none
finish
