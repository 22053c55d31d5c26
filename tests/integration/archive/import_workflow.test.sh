#!/usr/bin/env bash
# tally archive import DIR: a real Makeflow run (makeflow --monitor with tally
# as resource_monitor, the workflow of tests/integration/rmcompat) stored with
# its task ids (from resource-rule-N.summary), its categories, the workflow as
# a set with the Makeflow file as its description. (The rule stopped by its
# MEMORY limit leaves no summary in mon/ after Makeflow's retry handling, as
# with cctools' resource_monitor: three rules are archived.)
# make check: runs beside other tests
. "$TALLY_TEST_ROOT/tests/integration/lib.sh"
. "$TALLY_TEST_ROOT/tests/integration/rmcompat/common.sh"
mkdir wf && write_workflow wf/Makeflow
(cd wf && timeout 120 makeflow --monitor=mon --monitor-exe="$RM_TALLY" Makeflow >out.log 2>&1)
check "the workflow ran and left summaries" test -s wf/mon/resource-rule-2.summary
DB=$WORK/wf.db
out=$("$TALLY" archive --db "$DB" import --set-description wf/Makeflow wf/mon)
check_eq "import: every rule, the workflow as the set" "$out" "set $WORK/wf/mon: added 3, already archived 0, rejected 0"
check_eq "task ids from the file names" "$(sqlite3 "$DB" "select group_concat(taskid, ' ') from (select taskid from summaries order by taskid)")" "rule-0 rule-1 rule-2"
check_eq "categories kept" "$(sqlite3 "$DB" "select category || ':' || count(*) from summaries group by category order by category" | tr '\n' ' ')" "small:3 "
check_eq "one set, described by the Makeflow file" "$(sqlite3 "$DB" "select count(distinct set_id) from summaries"):$(sqlite3 "$DB" "select description from sets" | head -1)" "1:CATEGORY=small"
check_eq "stats by category" "$("$TALLY" archive --db "$DB" stats --format json small | jq -c '[.by, .count]')" '["category",3]'
check_eq "predict: the category's three runs" "$("$TALLY" archive --db "$DB" predict --min-runs 1 --format json small | jq .runs)" 3
out=$("$TALLY" archive --db "$DB" import --set run-2 wf/mon)
check_eq "a named set; the same summaries are not stored twice" "$out" "set run-2: added 0, already archived 3, rejected 0"
err=$("$TALLY" archive --db "$DB" import wf/nothing 2>&1); st=$?
check_eq "a missing directory: 125" "$st" 125
check_contains "  named" "$err" "tally: archive import: wf/nothing: "
finish
