#!/usr/bin/env bash
# The architecture, checked (docs/architecture.md, "Rooms and arrows"):
# every #include "..." under src/ is mapped to the room (top directory of
# src/) of the file and of the header, and an arrow the table below does not
# allow fails, naming the file and the include. And nothing outside
# src/platform/ opens /proc (the reads the agent, instrument and client
# need are functions of platform.h). And the room table names every source
# file.
# make check: runs beside other tests
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
SRC=$TALLY_TEST_ROOT/src

# room → the rooms it may include (its own room always). Keep in step with
# the table of docs/architecture.md.
declare -A ALLOWED=(
  [main]="cli core util"
  [cli]="agent request client view instrument contract rmcompat monitor platform report archive trace core util"
  [agent]="request client instrument monitor platform report archive core util"
  [request]="core util"
  [client]="request platform core util"
  [view]="trace client report core util"
  [instrument]="monitor platform report trace core util"
  [contract]="monitor report core util"
  [rmcompat]="monitor platform report core util"
  [monitor]="platform core util"
  [report]="monitor core util"
  [archive]="report core util"
  [trace]="report core util"
  [platform]="util"
  [core]="util"
  [util]=""
)
# Headers any room may include: the public headers of include/tally/ (the
# segment layout and the probe API, the bottom of everything) and
# src/version.h.
ANYWHERE=" version.h "
# Single arrows that break the table, each with its reason. FILE:INCLUDE.
# None today: keep it that way (a new one needs a reason and a plan to remove
# it, both said here and in docs/architecture.md).
EXCEPTIONS=()

# arrows SRCDIR: prints one line per include that breaks the table
arrows() {
  local src=$1 f rel room inc target
  while IFS= read -r f; do
    rel=${f#"$src"/}
    room=${rel%%/*}
    [ "$room" = "$rel" ] && room=main          # src/main.c, src/version.h
    if [ -z "${ALLOWED[$room]+set}" ]; then echo "  $rel: room '$room' is not in the table"; continue; fi
    while IFS= read -r inc; do
      case "$inc" in */*) ;; *) continue ;; esac  # same directory
      target=${inc%%/*}
      [ "$target" = "$room" ] && continue
      [[ "$ANYWHERE" == *" $inc "* ]] && continue
      [[ "$inc" == tally/* && -f "$TALLY_TEST_ROOT/include/$inc" ]] && continue # include/tally/*.h
      [[ " ${ALLOWED[$room]} " == *" $target "* ]] && continue
      [[ " ${EXCEPTIONS[*]} " == *" $rel:$inc "* ]] && continue
      echo "  $rel includes \"$inc\" ($room → $target is not allowed)"
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
  done < <(find "$src" -name '*.[ch]' | sort)
}
bad=$(arrows "$SRC")
nfiles=$(find "$SRC" -name '*.[ch]' | wc -l)
check_cmp "files checked" "$nfiles" ">=" 200
check_eq "every include of src/ follows the allowed arrows" "${bad:-none}" none

# A negative control: the same check on a small tree with arrows it must refuse.
tmp=$(mktemp -d)
mkdir -p "$tmp/request" "$tmp/view"
printf '#include "request/request.h"\n  # include "agent/agent.h" /* up */\n' >"$tmp/request/x.c"
printf '#include "view/timeline.h"\n#include "trace/trace.h"\n#include "core/fields.h"\n' >"$tmp/view/ok.c"
check_eq "a request file including agent/ is named" "$(arrows "$tmp")" \
  '  request/x.c includes "agent/agent.h" (request → agent is not allowed)'
# and the two arrows the shared vocabulary removed stay refused
rm "$tmp/request/x.c"; mkdir -p "$tmp/monitor" "$tmp/util"
printf '#include "report/summary.h"\n#include "core/fields.h"\n' >"$tmp/monitor/y.c"
printf '#include "core/units.h"\n' >"$tmp/util/z.c"
check_eq "the engine including report/ and util including core/ are named" "$(arrows "$tmp")" \
  '  monitor/y.c includes "report/summary.h" (monitor → report is not allowed)
  util/z.c includes "core/units.h" (util → core is not allowed)'
rm -rf "$tmp"

# /proc outside src/platform/: FILE COUNT of the "/proc string literals each
# file may hold: none (a read the code needs becomes a function of
# platform.h).
declare -A PROC_ALLOWED=()
bad=""
while IFS= read -r f; do
  rel=${f#"$SRC"/}
  case "$rel" in platform/*) continue ;; esac
  n=$(grep -c '"/proc' "$f")
  [ "$n" -eq 0 ] && continue
  allowed=${PROC_ALLOWED[$rel]:-0}
  if [ "$n" -gt "$allowed" ]; then
    bad="$bad
  $rel: $n \"/proc literal(s), $allowed allowed: $(grep -n '"/proc' "$f" | cut -d: -f1 | tr '\n' ' ')"
  fi
done < <(find "$SRC" -name '*.[ch]' | sort)
check_eq "nothing outside src/platform/ opens /proc" "${bad:-none}" none

# The room table of docs/architecture.md names every source file of src/ and
# lib/ (as `NAME.c` or `DIR/NAME.c`), so that it stays the map of the code.
unnamed=""
while IFS= read -r f; do
  b=$(basename "$f")
  grep -qE "\`([a-z_/]+/)?$b\`" "$TALLY_TEST_ROOT/docs/architecture.md" || unnamed="$unnamed ${f#"$TALLY_TEST_ROOT"/}"
done < <(find "$SRC" "$TALLY_TEST_ROOT/lib" -name '*.c' | sort)
check_eq "docs/architecture.md names every .c file of src/ and lib/" "${unnamed:- none}" " none"
finish
