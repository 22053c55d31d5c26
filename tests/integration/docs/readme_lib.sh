# Shared by the tests that run the README's commands as written (sourced):
# how a command is read out of README.md. One command per logical line (a
# trailing backslash joins lines); comment lines, blank lines and code fences
# are dropped (a comment after a command stays: bash ignores it).

# readme_logical_lines: stdin's lines, backslash-continued lines joined,
# comments, blank lines and fences dropped
readme_logical_lines() {
  sed -e ':a' -e '/\\$/N; s/\\\n//; ta' | grep -v '^ *#' | grep -v '^ *$' | grep -v '^```'
}

# block_commands FROM TO: the README's commands from the line matching FROM
# to the first line matching TO after it
block_commands() {
  awk -v from="$1" -v to="$2" '$0 ~ from { on = 1 } on && $0 ~ to && !($0 ~ from) { exit } on' "$TALLY_TEST_ROOT/README.md" \
    | readme_logical_lines
}

# section_commands HEADING: the commands of every code block (```...```) of
# the README's section whose heading line matches HEADING, up to the next
# heading of the same or a higher level; the prose between blocks is not read
section_commands() {
  awk -v heading="$1" '
    !on && $0 ~ heading { on = 1; match($0, /^#+/); level = RLENGTH; next }
    on && !fenced && /^#+ / { match($0, /^#+/); if (RLENGTH <= level) exit }
    on && /^```/ { fenced = !fenced; next }
    on && fenced' "$TALLY_TEST_ROOT/README.md" | readme_logical_lines
}
