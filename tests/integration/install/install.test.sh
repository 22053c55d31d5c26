#!/usr/bin/env bash
# make install / make uninstall: into a temporary PREFIX, the binary and every
# man page land where they belong, the installed tally runs, man finds and
# renders each page without a warning; DESTDIR stages under another root; the
# hooks for libraries, headers, pkg-config files and symlinks install what
# they are given; uninstall leaves no file behind.
source "$TALLY_TEST_ROOT/tests/integration/lib.sh"
ROOT=$TALLY_TEST_ROOT
mk() { make -s -C "$ROOT" "$@" >make.out 2>&1 || { cat make.out; return 1; }; }

prefix=$WORK/prefix
check "make install PREFIX=... succeeds" mk install PREFIX="$prefix"
check "tally installed, executable" test -x "$prefix/bin/tally"
check_eq "installed tally runs" "$("$prefix/bin/tally" --version)" "$("$ROOT/build/tally" --version)"
check_contains "installed tally --help lists run" "$("$prefix/bin/tally" --help)" "run "
pages=$(cd "$ROOT/man" && ls *.1 *.7 2>/dev/null | sort)
installed=$(cd "$prefix/share/man" && ls man1/*.1 man7/*.7 2>/dev/null | xargs -n1 basename | sort)
check_eq "every man page installed" "$(echo $installed)" "$(echo $pages)"
for page in $pages; do
  sec=${page##*.}
  out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$prefix/share/man/man$sec/$page" 2>warn.txt)
  check_contains "man -l renders $page (NAME section)" "$out" "NAME"
  check_eq "man -l $page: no troff warning" "$(cat warn.txt)" ""
done
out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man -M "$prefix/share/man" tally-run 2>&1)
check_contains "man finds tally-run in PREFIX/share/man" "$out" "tally-run"
check_eq "man page mode 644" "$(stat -c %a "$prefix/share/man/man1/tally.1")" 644
# what tally itself installs besides: resource_monitor's name, the probe library
check_eq "resource_monitor is a symlink to tally" "$(readlink "$prefix/bin/resource_monitor")" tally
check "libtally-probe in PREFIX/lib" test -f "$prefix/lib/libtally-probe.so"
check "tally/probe.h in PREFIX/include" test -f "$prefix/include/tally/probe.h"
if [ -f "$ROOT/build/lib/spank_tally.so" ]; then
  check "the Slurm plugin in PREFIX/lib/slurm (PREFIX not a system one)" test -f "$prefix/lib/slurm/spank_tally.so"
fi
check_eq "tally-probe.pc points at PREFIX/lib" \
  "$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --variable=libdir tally-probe)" "$prefix/lib"
printf '#include <tally/probe.h>\nint main(void) { tally_probe_hit(tally_probe_id("x")); return 0; }\n' > probe_user.c
check "a program builds against the installed library (pkg-config)" \
  sh -c "cc probe_user.c -o probe_user \$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs tally-probe) && ./probe_user"
check "make uninstall (tally's own files)" mk uninstall PREFIX="$prefix"
check_eq "uninstall leaves none of them" "$(find "$prefix" ! -type d | wc -l)" 0

# the hooks other parts of tally use (one line each in the Makefile)
mkdir -p hooks && echo lib >hooks/libtally-fake.so && echo '/* h */' >hooks/fake.h
printf 'prefix=@PREFIX@\nlibdir=@LIBDIR@\nincludedir=@INCLUDEDIR@\nName: tally-fake\nDescription: test\nVersion: 0\n' >hooks/tally-fake.pc.in
hooks=(INSTALL_LIBS="$WORK/hooks/libtally-fake.so" INSTALL_HEADERS="$WORK/hooks/fake.h"
       INSTALL_PKGCONFIG="$WORK/hooks/tally-fake.pc.in" INSTALL_BIN_LINKS=resource_monitor)
check "make install with every hook" mk install PREFIX="$prefix" "${hooks[@]}"
check "library in PREFIX/lib" test -f "$prefix/lib/libtally-fake.so"
check "header in PREFIX/include/tally" test -f "$prefix/include/tally/fake.h"
check_eq "pkg-config file with the prefix filled in" \
  "$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --variable=includedir tally-fake)" "$prefix/include"
check_eq "symlink to tally" "$(readlink "$prefix/bin/resource_monitor")" tally
check "make uninstall succeeds" mk uninstall PREFIX="$prefix" "${hooks[@]}"
check_eq "uninstall leaves no file" "$(find "$prefix" ! -type d | wc -l)" 0

# DESTDIR: staged under another root, paths still those of PREFIX
check "make install DESTDIR=... PREFIX=/opt/tally" mk install DESTDIR="$WORK/stage" PREFIX=/opt/tally
check "staged binary" test -x "$WORK/stage/opt/tally/bin/tally"
check "staged man page" test -f "$WORK/stage/opt/tally/share/man/man1/tally-run.1"
check "nothing written to the real /opt/tally" test ! -e /opt/tally
check "make uninstall DESTDIR=..." mk uninstall DESTDIR="$WORK/stage" PREFIX=/opt/tally
check_eq "staged uninstall leaves no file" "$(find "$WORK/stage" ! -type d | wc -l)" 0
finish
