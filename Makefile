# tally — top-level build. Plain GNU make: every .c under src/ is part of the
# program; every tests/unit/**/*_test.c is one unit-test binary; every
# tests/fixtures/progs/*.c is a helper program the integration tests run.
#   make         build/tally (optimised)
#   make check   sanitizer build + all unit and integration tests
#   make bench   benchmarks (not part of check)
#   make demo    install packages, build, run the sample workload

CC      ?= cc
PKGS    := jansson sqlite3 libpq libmicrohttpd
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
WARN    := -Wall -Wextra -Werror -Wno-unused-parameter
BASE_CFLAGS := -std=gnu11 $(WARN) -D_GNU_SOURCE -Isrc -Iinclude $(PKG_CFLAGS) -MMD -MP
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

.PHONY: all check bench demo deps clean test-programs libs install
all: build/tally libs

# Libraries that run inside applications (lib/, include/tally/): shared,
# position-independent, no sanitizers, only their API exported. libtally-mpi
# is built once per MPI implementation (their ABIs differ) when its headers
# are installed; docs/instrumentation.md.
LIB_CFLAGS := -std=gnu11 $(WARN) -D_GNU_SOURCE -Iinclude -O2 -g -fPIC -fvisibility=hidden
PROBE_LIB_SRC := $(sort $(wildcard lib/probe/*.c))
MPI_LIB_SRC := $(sort $(wildcard lib/mpi/*.c))
OMPI_PC := $(shell pkg-config --exists ompi-c 2>/dev/null && echo ompi-c)
MPICH_PC := $(shell pkg-config --exists mpich 2>/dev/null && echo mpich)
MPI_LIBS := $(if $(OMPI_PC),build/lib/libtally-mpi-openmpi.so) $(if $(MPICH_PC),build/lib/libtally-mpi-mpich.so)
PREFIX ?= /usr/local

libs: build/lib/libtally-probe.so build/lib/pkgconfig/tally-probe.pc $(MPI_LIBS)

build/lib/libtally-probe.so: $(PROBE_LIB_SRC) $(wildcard lib/probe/*.h) include/tally/probe.h include/tally/segment.h
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) -shared -Wl,-soname,libtally-probe.so -o $@ $(PROBE_LIB_SRC) -lpthread

build/lib/libtally-mpi-openmpi.so: $(MPI_LIB_SRC) $(wildcard lib/mpi/*.h) build/lib/libtally-probe.so
	$(CC) $(LIB_CFLAGS) $(shell pkg-config --cflags $(OMPI_PC)) -shared -o $@ $(MPI_LIB_SRC) \
	  -Lbuild/lib -ltally-probe -Wl,-rpath,'$$ORIGIN' $(shell pkg-config --libs $(OMPI_PC)) -lmpi_mpifh

build/lib/libtally-mpi-mpich.so: $(MPI_LIB_SRC) $(wildcard lib/mpi/*.h) build/lib/libtally-probe.so
	$(CC) $(LIB_CFLAGS) $(shell pkg-config --cflags $(MPICH_PC)) -shared -o $@ $(MPI_LIB_SRC) \
	  -Lbuild/lib -ltally-probe -Wl,-rpath,'$$ORIGIN' -lmpich

build/lib/pkgconfig/tally-probe.pc: lib/probe/tally-probe.pc.in
	@mkdir -p $(dir $@)
	sed -e 's|@libdir@|$(CURDIR)/build/lib|' -e 's|@includedir@|$(CURDIR)/include|' $< >$@

install: build/tally libs
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/tally $(DESTDIR)$(PREFIX)/include/tally \
	  $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 755 build/tally $(DESTDIR)$(PREFIX)/bin/tally
	install -m 644 build/lib/*.so $(DESTDIR)$(PREFIX)/lib/tally/
	install -m 644 include/tally/probe.h $(DESTDIR)$(PREFIX)/include/tally/probe.h
	sed -e 's|@libdir@|$(PREFIX)/lib/tally|' -e 's|@includedir@|$(PREFIX)/include|' \
	  lib/probe/tally-probe.pc.in >$(DESTDIR)$(PREFIX)/lib/pkgconfig/tally-probe.pc

build/tally: $(REL_OBJ)
	$(CC) $(REL_CFLAGS) -o $@ $^ $(LIBS)

build/asan/tally: $(SAN_OBJ)
	$(CC) $(TEST_CFLAGS) -o $@ $^ $(LIBS)

build/asan/libtally.a: $(SAN_LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

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

build/progs/%: tests/fixtures/progs/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -o $@ $< -lm -lpthread

build/bench/%_static: bench/progs/%_static.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -static -o $@ $< -lm -lpthread

build/bench/%: bench/progs/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -o $@ $< -lm -lpthread

test-programs: $(PROG_BIN)

check: build/tally build/asan/tally libs $(UNIT_BIN) $(PROG_BIN)
	TALLY=$(CURDIR)/build/asan/tally TALLY_RELEASE=$(CURDIR)/build/tally \
	  PROGS=$(CURDIR)/build/progs tests/run-tests.sh $(TESTS)

bench: build/tally $(PROG_BIN) $(BENCH_PROG_BIN)
	bench/run-all.sh

deps:
	scripts/install-deps.sh

demo:
	scripts/install-deps.sh
	$(MAKE) build/tally
	scripts/demo.sh

clean:
	rm -rf build

-include $(REL_OBJ:.o=.d) $(SAN_OBJ:.o=.d)
