# simhash: PGXS build of a C++17 extension.
#
# Layout: src/core holds the pure C++ core (no PostgreSQL headers; unit-tested
# and fuzzed on its own), src/pg the thin PostgreSQL glue, src/sql the pieces of
# the install script (concatenated in name order).
#
# NOTE: no end-of-line comments on variable lines (make keeps trailing blanks).

EXTENSION  = simhash
MODULE_big = simhash
PGFILEDESC = "simhash - SimHash fingerprints and near-duplicate search"

CORE_SRCS = $(sort $(wildcard src/core/*.cpp))
GLUE_SRCS = $(sort $(wildcard src/pg/*.cpp))
OBJS      = $(CORE_SRCS:.cpp=.o) $(GLUE_SRCS:.cpp=.o)

SQL_PARTS  = $(sort $(wildcard src/sql/*.sql))
DATA_built = simhash--1.0.sql

REGRESS      := $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))
REGRESS_OPTS = --load-extension=simhash

ISOLATION      := $(patsubst test/isolation/specs/%.spec,%,$(sort $(wildcard test/isolation/specs/*.spec)))
ISOLATION_OPTS = --inputdir=test/isolation --load-extension=simhash

PROVE_TESTS := $(sort $(wildcard test/t/*.pl))
ifneq ($(PROVE_TESTS),)
TAP_TESTS   = 1
endif

# -Wno-register: PG15 headers use 'register', removed in C++17.
CXX_STD     = -std=c++17 -Wno-register
CXX_WARN    = -Wall -Wextra $(if $(WERROR),-Werror)
PG_CXXFLAGS = $(CXX_STD) $(CXX_WARN) -Isrc/core
# PostgreSQL's headers as system headers: -Wextra warnings in them are not ours.
PG_CPPFLAGS = -isystem $(shell $(PG_CONFIG) --includedir-server) -isystem $(shell $(PG_CONFIG) --includedir)/postgresql/internal
# PGXS links with gcc: name the C++ runtime; ICU gives Unicode properties.
SHLIB_LINK  = -lstdc++ -licuuc

EXTRA_CLEAN = simhash--1.0.sql test/unit/run_unit_tests test/unit/obj test/fuzz/obj test/quality/evaluate_defaults test/bench/core_throughput $(FUZZ_BINS) test/fuzz/corpus-work output_iso

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS also compiles every .cpp to LLVM bitcode with clang, ignoring PG_CXXFLAGS.
BITCODE_CXXFLAGS += $(CXX_STD) -Isrc/core

$(OBJS): $(wildcard src/core/*.hpp) $(wildcard src/pg/*.hpp)

simhash--1.0.sql: $(SQL_PARTS)
	cat $(SQL_PARTS) > $@

# ---- C++ unit tests of the core (GoogleTest), under ASan and UBSan ----------
UNIT_SRCS  = $(sort $(wildcard test/unit/*.cpp))
UNIT_FLAGS = -std=c++17 -O1 -g -Wall -Wextra -fsanitize=address,undefined -fno-sanitize-recover=all -Isrc/core

# Each source compiles once to its own object, so `make -j` spreads the work.
CORE_HDRS      = $(wildcard src/core/*.hpp) $(wildcard test/support/*.hpp)
UNIT_CORE_OBJS = $(CORE_SRCS:src/core/%.cpp=test/unit/obj/core/%.o)
UNIT_OBJS      = $(UNIT_SRCS:test/unit/%.cpp=test/unit/obj/%.o)

test/unit/obj/core/%.o: src/core/%.cpp $(CORE_HDRS)
	@mkdir -p $(dir $@)
	$(CXX) $(UNIT_FLAGS) -c $< -o $@

test/unit/obj/%.o: test/unit/%.cpp $(CORE_HDRS)
	@mkdir -p $(dir $@)
	$(CXX) $(UNIT_FLAGS) -c $< -o $@

test/unit/run_unit_tests: $(UNIT_CORE_OBJS) $(UNIT_OBJS)
	$(CXX) $(UNIT_FLAGS) $^ -o $@ -lgtest -lgtest_main -licuuc -pthread

unit: test/unit/run_unit_tests
	./test/unit/run_unit_tests

# ---- libFuzzer targets on the core; fuzz-smoke runs each for a short while ----
FUZZ_CXX   ?= clang++
FUZZ_SRCS   = $(sort $(wildcard test/fuzz/fuzz_*.cpp))
FUZZ_BINS   = $(FUZZ_SRCS:.cpp=)
FUZZ_RUNS  ?= 200000

FUZZ_FLAGS      = -std=c++17 -g -O1 -fno-sanitize-recover=all -Isrc/core
FUZZ_CORE_OBJS  = $(CORE_SRCS:src/core/%.cpp=test/fuzz/obj/%.o)

test/fuzz/obj/%.o: src/core/%.cpp $(CORE_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link,address,undefined -c $< -o $@

test/fuzz/fuzz_%: test/fuzz/fuzz_%.cpp $(FUZZ_CORE_OBJS) $(CORE_HDRS)
	$(FUZZ_CXX) $(FUZZ_FLAGS) -fsanitize=fuzzer,address,undefined $(FUZZ_CORE_OBJS) $< -o $@ -licuuc

fuzz-smoke: $(FUZZ_BINS)
	@for f in $(FUZZ_BINS); do \
	  name=$$(basename $$f); corpus=test/fuzz/corpus/$${name#fuzz_}; work=test/fuzz/corpus-work/$$name; \
	  mkdir -p $$work; \
	  echo "== $$name ($(FUZZ_RUNS) runs)"; \
	  $$f -runs=$(FUZZ_RUNS) -max_len=4096 $$work $$( [ -d $$corpus ] && echo $$corpus ) > $$work.log 2>&1 \
	    || { tail -n 40 $$work.log; exit 1; }; \
	  tail -n 1 $$work.log; \
	done

.PHONY: unit fuzz-smoke

# ---- Choice of the default text options, and core throughput, on the PEP revisions ----
# PEPS holds versions.tar.zst and consecutive_revision_pairs.tsv (see its README);
# the versions are unpacked once into PEPS_WORK unless PEPS already has them.
PEPS      ?= ../shared/data/peps
PEPS_WORK ?= /tmp/simhash-peps
TOOL_FLAGS = -std=c++17 -O2 -Wall -Wextra $(if $(WERROR),-Werror) -Isrc/core
PEPS_ROOT_SH = if [ -d "$(PEPS)/versions" ]; then root="$(PEPS)"; else root="$(PEPS_WORK)"; \
	[ -d "$$root/versions" ] || { mkdir -p "$$root" && zstd -d --long=27 -c "$(PEPS)/versions.tar.zst" | tar x -C "$$root"; }; fi

test/quality/evaluate_defaults: test/quality/evaluate_defaults.cpp $(CORE_SRCS) $(wildcard src/core/*.hpp)
	$(CXX) $(TOOL_FLAGS) $(CORE_SRCS) $< -o $@ -licuuc

test/bench/core_throughput: test/bench/core_throughput.cpp $(CORE_SRCS) $(wildcard src/core/*.hpp)
	$(CXX) $(TOOL_FLAGS) $(CORE_SRCS) $< -o $@ -licuuc

quality: test/quality/evaluate_defaults
	@$(PEPS_ROOT_SH); ./test/quality/evaluate_defaults "$$root" "$(PEPS)/consecutive_revision_pairs.tsv" "$(shell $(PG_CONFIG) --sharedir)/tsearch_data/english.stop"

bench-core: test/bench/core_throughput
	@$(PEPS_ROOT_SH); ./test/bench/core_throughput "$$root" $(ROUNDS)

.PHONY: quality bench-core
