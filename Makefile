# tally — top-level build. Plain GNU make: every .c under src/ is part of the
# program; every tests/unit/**/*_test.c is one unit-test binary; every
# tests/fixtures/progs/*.c is a helper program the integration tests run.
#   make         build/tally (optimised)
#   make check   sanitizer build + all unit and integration tests
#   make bench   benchmarks (not part of check)
#   make demo    install packages, build, run the sample workload
#   make fuzz    every tests/fuzz/*_fuzz.c harness, FUZZ_SECONDS each (docs/fuzzing.md)
#   make install [PREFIX=/usr/local] [DESTDIR=]   and make uninstall

CC      ?= cc
PKGS    := jansson sqlite3 libpq libmicrohttpd libnats
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# SQLite, libpq, libmicrohttpd and libnats are not linked: tally loads them when it
# first needs them (src/util/dynlib.h), by the shared-object names of the
# versions it is built against, so that a process that never uses them (a
# waiting `tally run`) does not carry their relocated data.
PKG_LIBS   := $(shell pkg-config --libs jansson 2>/dev/null)
soname = $(shell objdump -p "$$($(CC) -print-file-name=lib$(1).so)" 2>/dev/null | awk '/SONAME/ { print $$2 }')
SONAMES := -DTALLY_SONAME_LIBSQLITE='"$(call soname,sqlite3)"' -DTALLY_SONAME_LIBPQ='"$(call soname,pq)"' -DTALLY_SONAME_LIBNATS='"$(call soname,nats)"' \
           -DTALLY_SONAME_LIBMHD='"$(call soname,microhttpd)"'
WARN    := -Wall -Wextra -Werror -Wno-unused-parameter
BASE_CFLAGS := -std=gnu11 $(WARN) -D_GNU_SOURCE -Isrc -Iinclude -Ibuild/gen $(PKG_CFLAGS) $(SONAMES) -MMD -MP
LIBS    := $(PKG_LIBS) -ldl -lm -lpthread

REL_CFLAGS  := $(BASE_CFLAGS) -O2 -g
SAN_FLAGS   := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
TEST_CFLAGS := $(BASE_CFLAGS) -O1 -g $(SAN_FLAGS)

SRC      := $(shell find src -name '*.c' | sort)
LIB_SRC  := $(filter-out src/main.c,$(SRC))
UNIT_SRC := $(shell find tests/unit -name '*_test.c' 2>/dev/null | sort)
PROG_SRC := $(shell find tests/fixtures/progs -name '*.c' 2>/dev/null | sort)
BENCH_PROG_SRC := $(shell find bench/progs -name '*.c' 2>/dev/null | sort)

REL_OBJ  := $(patsubst %.c,build/obj/%.o,$(SRC))
SAN_OBJ  := $(patsubst %.c,build/asan/obj/%.o,$(SRC))
SAN_LIB_OBJ := $(patsubst %.c,build/asan/obj/%.o,$(LIB_SRC))
UNIT_BIN := $(patsubst tests/unit/%.c,build/asan/unit/%,$(UNIT_SRC))
PROG_BIN := $(patsubst tests/fixtures/progs/%.c,build/progs/%,$(PROG_SRC))
BENCH_PROG_BIN := $(patsubst bench/progs/%.c,build/bench/%,$(BENCH_PROG_SRC))

# Fuzzing (docs/fuzzing.md): libFuzzer harnesses need clang. The library is
# built again with clang and coverage instrumentation; web_assets.c is left
# out because its GNU raw string literals are a gcc-only extension in C (no
# parser lives there). Every tests/fuzz/*_fuzz.c is one harness, by glob.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 300
FUZZ_FLAGS   := -O1 -g -fno-omit-frame-pointer -fno-sanitize-recover=undefined
FUZZ_CFLAGS  := $(BASE_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link,address,undefined
# The command line (src/cli) holds no parser a harness calls: not compiled for
# the harnesses (a fifth of the library, the longest part of make check's build).
FUZZ_LIB_OBJ := $(patsubst %.c,build/fuzz/obj/%.o,$(filter-out src/view/web_assets.c src/cli/%,$(LIB_SRC)))
FUZZ_SRC     := $(shell find tests/fuzz -name '*_fuzz.c' 2>/dev/null | sort)
FUZZ_BIN     := $(patsubst tests/fuzz/%.c,build/fuzz/%,$(FUZZ_SRC))
# make check builds them when clang is there (else its fuzz test fails, saying so)
FUZZ_CHECK_BIN := $(if $(shell command -v $(FUZZ_CC)),$(FUZZ_BIN))

.PHONY: all check check-build bench demo deps clean test-programs fuzz fuzz-build install uninstall libs
all: build/tally libs

# Libraries that run inside applications (lib/, include/tally/): shared,
# position-independent, no sanitizers, only their API exported. libtally-mpi
# is built once per MPI implementation (their ABIs differ) when its headers
# are installed; docs/instrumentation.md.
LIB_CFLAGS := -std=gnu11 $(WARN) -D_GNU_SOURCE -Iinclude -O2 -g -fPIC -fvisibility=hidden
PROBE_LIB_SRC := $(sort $(wildcard lib/probe/*.c))
# lib/mpi/fortran_openmpi_*.c and fortran_mpich_*.c wrap one MPI's Fortran
# bindings each and are built only into that MPI's library; the rest into both.
MPI_LIB_SRC := $(filter-out lib/mpi/fortran_%,$(sort $(wildcard lib/mpi/*.c)))
OMPI_LIB_SRC := $(MPI_LIB_SRC) $(sort $(wildcard lib/mpi/fortran_openmpi_*.c))
MPICH_LIB_SRC := $(MPI_LIB_SRC) $(sort $(wildcard lib/mpi/fortran_mpich_*.c))
OMPI_PC := $(shell pkg-config --exists ompi-c 2>/dev/null && echo ompi-c)
MPICH_PC := $(shell pkg-config --exists mpich 2>/dev/null && echo mpich)
MPI_LIBS := $(if $(OMPI_PC),build/lib/libtally-mpi-openmpi.so) $(if $(MPICH_PC),build/lib/libtally-mpi-mpich.so)

# The Slurm SPANK plugin (lib/spank/, man/tally-slurm.7), built when
# slurm/spank.h is installed (libslurm-dev). It runs tally from BINDIR unless
# its plugstack.conf line says tally=PATH.
SPANK_LIB := $(if $(wildcard /usr/include/slurm/spank.h),build/lib/spank_tally.so)

libs: build/lib/libtally-probe.so build/lib/libtally-io.so build/lib/pkgconfig/tally-probe.pc $(MPI_LIBS) $(SPANK_LIB)

build/lib/spank_tally.so: $(wildcard lib/spank/*.c)
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) -fvisibility=default -DTALLY_DEFAULT_PROGRAM='"$(BINDIR)/tally"' -shared -o $@ $(wildcard lib/spank/*.c)

# The level-3 I/O helper, preloaded into every process of a task (docs/io.md).
# Linked so that the loader maps it in two segments instead of four, with no
# RELRO mprotect: fewer mappings and page faults in every short process
# (-z noseparate-code, -z norelro; docs/io.md "Cost").
# region.c first: its buffer of the start's paths opens .bss (region.c).
IO_LIB_SRC := lib/io/region.c $(filter-out lib/io/region.c,$(sort $(wildcard lib/io/*.c)))
IO_LIB_LDFLAGS := -Wl,-soname,libtally-io.so -Wl,-z,noseparate-code -Wl,-z,norelro
# Its string loops stay loops: a call to libc's strlen from a fork child
# about to exec costs a lazy binding and a page of libc's text.
IO_LIB_CFLAGS := -fno-tree-loop-distribute-patterns
build/lib/libtally-io.so: $(IO_LIB_SRC) $(wildcard lib/io/*.h) include/tally/io_segment.h Makefile
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) $(IO_LIB_CFLAGS) -shared $(IO_LIB_LDFLAGS) -o $@ $(IO_LIB_SRC) -ldl -lpthread

build/lib/libtally-probe.so: $(PROBE_LIB_SRC) $(wildcard lib/probe/*.h) include/tally/probe.h include/tally/segment.h
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) -shared -Wl,-soname,libtally-probe.so -o $@ $(PROBE_LIB_SRC) -lpthread

build/lib/libtally-mpi-openmpi.so: $(OMPI_LIB_SRC) $(wildcard lib/mpi/*.h) build/lib/libtally-probe.so
	$(CC) $(LIB_CFLAGS) $(shell pkg-config --cflags $(OMPI_PC)) -shared -o $@ $(OMPI_LIB_SRC) \
	  -Lbuild/lib -ltally-probe -Wl,-rpath,'$$ORIGIN' $(shell pkg-config --libs $(OMPI_PC))

build/lib/libtally-mpi-mpich.so: $(MPICH_LIB_SRC) $(wildcard lib/mpi/*.h) build/lib/libtally-probe.so
	$(CC) $(LIB_CFLAGS) $(shell pkg-config --cflags $(MPICH_PC)) -shared -o $@ $(MPICH_LIB_SRC) \
	  -Lbuild/lib -ltally-probe -Wl,-rpath,'$$ORIGIN' -lmpich

build/lib/pkgconfig/tally-probe.pc: lib/probe/tally-probe.pc.in
	@mkdir -p $(dir $@)
	sed -e 's|@LIBDIR@|$(CURDIR)/build/lib|' -e 's|@INCLUDEDIR@|$(CURDIR)/include|' $< >$@


build/tally: $(REL_OBJ)
	$(CC) $(REL_CFLAGS) -o $@ $^ $(LIBS)

# tally under resource_monitor's name takes its command line (src/cli/rm_compat.c)
all: build/resource_monitor
build/resource_monitor: build/tally
	ln -sf tally $@

build/asan/tally: $(SAN_OBJ)
	$(CC) $(TEST_CFLAGS) -o $@ $^ $(LIBS)

build/asan/libtally.a: $(SAN_LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# Web pages kept as HTML files and compiled in as C strings (one line each).
build/gen/%.html.inc: src/%.html
	@mkdir -p $(dir $@)
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $< >$@
GENERATED := build/gen/view/web/live_page.html.inc
$(patsubst %,%/src/view/live_view.o,build/obj build/asan/obj build/fuzz/obj): $(GENERATED)

build/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(REL_CFLAGS) -c -o $@ $<

build/asan/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -c -o $@ $<

build/asan/unit/%: tests/unit/%.c build/asan/libtally.a
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -Itests/unit -o $@ $< build/asan/libtally.a $(LIBS)

# Fixture programs: a name ending in _static is linked statically; they are
# built without sanitizers so that what they use is what a real task uses.
build/progs/%_static: tests/fixtures/progs/%_static.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -static -o $@ $< -lm -lpthread

# fork_tree_static.c is fork_tree.c linked statically (#include)
build/progs/fork_tree_static: tests/fixtures/progs/fork_tree.c
build/progs/short_procs_static: tests/fixtures/progs/short_procs.c

build/progs/%: tests/fixtures/progs/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -o $@ $< -lm -lpthread

build/bench/%_static: bench/progs/%_static.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -static -o $@ $< -lm -lpthread

build/bench/%: bench/progs/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -o $@ $< -lm -lpthread

build/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

build/fuzz/libtally.a: $(FUZZ_LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

build/fuzz/%_fuzz: tests/fuzz/%_fuzz.c build/fuzz/libtally.a
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(BASE_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer,address,undefined \
	  -o $@ $< build/fuzz/libtally.a $(LIBS)

fuzz-build: $(FUZZ_BIN)

fuzz: $(FUZZ_BIN)
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh $(FUZZ_BIN)

test-programs: $(PROG_BIN)

# The check's builds run in parallel on every CPU (about 3 minutes saved of a
# sequential build); the tests then run two at a time where they may share the
# machine (tests/run-tests.sh says which), the others alone.
NPROC := $(shell nproc 2>/dev/null || echo 1)

check-build: build/tally build/asan/tally libs $(UNIT_BIN) $(PROG_BIN) $(FUZZ_CHECK_BIN)

check:
	$(MAKE) -j$(NPROC) check-build
	TALLY=$(CURDIR)/build/asan/tally TALLY_RELEASE=$(CURDIR)/build/tally \
	  PROGS=$(CURDIR)/build/progs FUZZ=$(CURDIR)/build/fuzz tests/run-tests.sh $(TESTS)

bench: build/tally $(PROG_BIN) $(BENCH_PROG_BIN)
	bench/run-all.sh

# ---- install ----------------------------------------------------------------
# make install PREFIX=DIR (default /usr/local); DESTDIR=STAGE prefixes every
# path (packaging). The lists below say what is installed besides build/tally
# and man/*.1, man/*.7: add one line per item.
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
INSTALL    ?= install
MAN1 := $(wildcard man/*.1)
MAN7 := $(wildcard man/*.7)
# Names installed in BINDIR as symlinks to tally (e.g. resource_monitor):
INSTALL_BIN_LINKS := resource_monitor
# Libraries, built before installing (e.g. build/lib/libtally-probe.so, lib/mpi):
INSTALL_LIBS := build/lib/libtally-probe.so build/lib/libtally-io.so $(MPI_LIBS)
# Public headers, installed under INCLUDEDIR/tally/ (e.g. include/tally/probe.h):
INSTALL_HEADERS := include/tally/probe.h
# pkg-config files NAME.pc.in, installed as NAME.pc with @PREFIX@, @LIBDIR@ and
# @INCLUDEDIR@ replaced:
INSTALL_PKGCONFIG := lib/probe/tally-probe.pc.in
# Where the SPANK plugin goes: for a system install (PREFIX /usr or
# /usr/local) Slurm's PluginDir, where a plugstack.conf line 'optional
# spank_tally.so' is looked up (Debian's; 'scontrol show config | grep
# PluginDir' says yours); for any other PREFIX, LIBDIR/slurm (then give
# plugstack.conf the full path). man/tally-slurm.7.
SLURM_PLUGINDIR ?= $(if $(filter /usr /usr/local,$(PREFIX)),/usr/lib/$(shell $(CC) -print-multiarch)/slurm-wlm,$(LIBDIR)/slurm)

install: build/tally $(INSTALL_LIBS) $(SPANK_LIB)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	$(INSTALL) -m 755 build/tally $(DESTDIR)$(BINDIR)/tally
	$(foreach n,$(INSTALL_BIN_LINKS),ln -sf tally $(DESTDIR)$(BINDIR)/$(n) &&) true
	$(INSTALL) -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/
	$(if $(MAN7),$(INSTALL) -d $(DESTDIR)$(MANDIR)/man7 && $(INSTALL) -m 644 $(MAN7) $(DESTDIR)$(MANDIR)/man7/)
	$(if $(INSTALL_LIBS),$(INSTALL) -d $(DESTDIR)$(LIBDIR) && $(INSTALL) -m 755 $(INSTALL_LIBS) $(DESTDIR)$(LIBDIR)/)
	$(if $(INSTALL_HEADERS),$(INSTALL) -d $(DESTDIR)$(INCLUDEDIR)/tally && $(INSTALL) -m 644 $(INSTALL_HEADERS) $(DESTDIR)$(INCLUDEDIR)/tally/)
	$(if $(INSTALL_PKGCONFIG),$(INSTALL) -d $(DESTDIR)$(PKGCONFIGDIR))
	$(foreach f,$(INSTALL_PKGCONFIG),sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	  -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' $(f) >$(DESTDIR)$(PKGCONFIGDIR)/$(notdir $(f:.in=)) &&) true
	$(if $(SPANK_LIB),$(INSTALL) -d $(DESTDIR)$(SLURM_PLUGINDIR) && $(INSTALL) -m 755 $(SPANK_LIB) $(DESTDIR)$(SLURM_PLUGINDIR)/)

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tally $(addprefix $(DESTDIR)$(BINDIR)/,$(INSTALL_BIN_LINKS))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN1)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man7/,$(notdir $(MAN7)))
	rm -f $(addprefix $(DESTDIR)$(LIBDIR)/,$(notdir $(INSTALL_LIBS)))
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/tally/,$(notdir $(INSTALL_HEADERS)))
	rm -f $(addprefix $(DESTDIR)$(PKGCONFIGDIR)/,$(notdir $(INSTALL_PKGCONFIG:.in=)))
	rm -f $(DESTDIR)$(SLURM_PLUGINDIR)/spank_tally.so
	rmdir $(DESTDIR)$(INCLUDEDIR)/tally 2>/dev/null || true

deps:
	scripts/install-deps.sh

demo:
	scripts/install-deps.sh
	$(MAKE) all
	scripts/demo.sh

clean:
	rm -rf build

-include $(REL_OBJ:.o=.d) $(SAN_OBJ:.o=.d) $(FUZZ_LIB_OBJ:.o=.d) $(FUZZ_BIN:=.d) $(UNIT_BIN:=.d)
