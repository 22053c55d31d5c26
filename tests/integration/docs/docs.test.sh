#!/usr/bin/env bash
# Docs that stand alone: README.md links only files of the repository (and
# each one exists); no document under docs/ links outside the repository;
# every command and subcommand that 'tally --help' lists answers --help with
# exit 0 and is described in a man page under man/.
# make check: runs beside other tests
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
ROOT=$TALLY_TEST_ROOT

# relative link targets of a markdown file, one per line (anchors dropped)
links() { grep -oE '\]\([^)#][^)]*\)' "$1" | sed -E 's/^\]\(//; s/\)$//; s/#.*//' | grep -vE '^[a-z]+:' ; }
inside() { # FILE TARGET: the target resolves inside the repository
  local p; p=$(realpath -m "$(dirname "$1")/$2"); [[ "$p" == "$ROOT"/* ]]
}
bad=""
for l in $(links "$ROOT/README.md"); do
  { inside "$ROOT/README.md" "$l" && [ -e "$ROOT/$l" ]; } || bad="$bad $l"
done
check_eq "README.md links only existing files of the repository" "${bad:-none}" none
check "README.md does not point at ../shared" bash -c "! grep -q 'shared/DESIGN' '$ROOT/README.md'"
check "docs/architecture.md exists and is linked from README.md" grep -q '(docs/architecture.md)' "$ROOT/README.md"
bad=""
for f in "$ROOT"/docs/*.md; do
  for l in $(links "$f"); do inside "$f" "$l" || bad="$bad $(basename "$f"):$l"; done
done
check_eq "docs/*.md link nothing outside the repository" "${bad:-none}" none

# commands and subcommands: --help and a man page
commands=$("$TALLY" --help | awk '/^commands:/ { on = 1; next } on && !NF { on = 0 } on { print $1 }')
check_cmp "tally --help lists commands" "$(echo "$commands" | wc -w)" ">=" 4
for c in $commands; do
  "$TALLY" "$c" --help >help.txt 2>&1; st=$?
  check_eq "tally $c --help exits 0" "$st" 0
  check "man/tally-$c.1 exists" test -f "$ROOT/man/tally-$c.1"
  check "tally(1) names $c" grep -q "tally-$c" "$ROOT/man/tally.1"
  subs=$(awk '/^(sub)?commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }' help.txt)
  for s in $subs; do
    "$TALLY" "$c" "$s" --help >/dev/null 2>&1; st=$?
    check_eq "tally $c $s --help exits 0" "$st" 0
    # the page names the subcommand in a section, a subsection or a synopsis line
    check "man/tally-$c.1 describes $s" grep -qiE "^\.S[HS] \"?$s|^\.B tally $c $s|^\.B \"tally $c $s" "$ROOT/man/tally-$c.1"
  done
done
finish
