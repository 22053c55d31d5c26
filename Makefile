# tally — top-level build. Plain GNU make: every .c under src/ is part of the
# program; every tests/unit/**/*_test.c is one unit-test binary; every
# tests/fixtures/progs/*.c is a helper program the integration tests run.
#   make         build/tally (optimised)
#   make check   sanitizer build + all unit and integration tests
#   make bench   benchmarks (not part of check)
#   make demo    install packages, build, run the sample workload

CC      ?= cc
PKGS    := jansson sqlite3 libpq libmicrohttpd libnats
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
WARN    := -Wall -Wextra -Werror -Wno-unused-parameter
BASE_CFLAGS := -std=gnu11 $(WARN) -D_GNU_SOURCE -Isrc -Ibuild/gen $(PKG_CFLAGS) -MMD -MP
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

.PHONY: all check bench demo deps clean test-programs
all: build/tally

build/tally: $(REL_OBJ)
	$(CC) $(REL_CFLAGS) -o $@ $^ $(LIBS)

build/asan/tally: $(SAN_OBJ)
	$(CC) $(TEST_CFLAGS) -o $@ $^ $(LIBS)

build/asan/libtally.a: $(SAN_LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# Web pages kept as HTML files and compiled in as C strings (one line each).
build/gen/%.html.inc: src/%.html
	@mkdir -p $(dir $@)
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $< >$@
GENERATED := build/gen/live/web/live_page.html.inc
$(patsubst %,%/src/live/live_view.o,build/obj build/asan/obj build/fuzz/obj): $(GENERATED)

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

check: build/tally build/asan/tally $(UNIT_BIN) $(PROG_BIN)
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
