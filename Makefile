# Front door. `make demo` and `make test` do all set-up on a fresh Debian 12
# machine: install missing packages, configure, build, then run.
PRESET ?= default
BUILD  := build
JOBS   ?= $(shell nproc)

.PHONY: all deps configure build test test-slow test-all test-sanitize test-sanitize-fuzz fuzz demo vp sweep-demo area-model bench format format-check clean

all: build

deps:
	@tools/install-deps.sh

configure: deps
	@if [ ! -f $(BUILD)/build.ninja ]; then cmake --preset $(PRESET); fi

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# Default test run: everything except tests labelled `slow` (well under 15 min on 2 cores).
test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -LE slow

test-slow: build
	cmake --build $(BUILD) --target tessera_zoo_slow_models
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -L slow --no-tests=error

test-all: build
	cmake --build $(BUILD) --target tessera_zoo_slow_models
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# The default suite, fuzz corpora included, built with ASan + UBSan (preset `debug`, build-debug/).
test-sanitize: deps
	@if [ ! -f build-debug/build.ninja ]; then cmake --preset debug; fi
	cmake --build build-debug -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  ctest --test-dir build-debug --output-on-failure -j $(JOBS) -LE slow

# The part of test-sanitize CI runs (.ci/run, docs/reliability.md): the fuzz
# replays (seed corpora + fixed mutations) of the parsers that need no
# compiler, built with ASan + UBSan (preset `sanitize-fuzz`). Seeds that are
# build products come from $(BUILD)/: run `make test` first.
SANITIZE_FUZZ := config asm program dram tir engines
test-sanitize-fuzz: deps
	@if [ ! -f build-sanitize-fuzz/build.ninja ]; then cmake --preset sanitize-fuzz; fi
	cmake --build build-sanitize-fuzz -j $(JOBS) --target $(addprefix fuzz_,$(SANITIZE_FUZZ))
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  ctest --test-dir build-sanitize-fuzz --output-on-failure -j $(JOBS) -FS fuzz_seeds \
	  -R '^fuzz\.($(subst $(eval) ,|,$(SANITIZE_FUZZ)))$$' --no-tests=error

# libFuzzer campaigns (clang-15, build-fuzz/): FUZZ_SECONDS per harness; see docs/reliability.md.
fuzz: deps
	@tools/fuzz.sh $(FUZZERS)

demo: build
	@tools/demo.sh $(BUILD)

# The SystemC virtual platform (docs/systemc.md): a host process drives the
# accelerator through TLM transactions on a bus and runs the digits CNN.
vp: build
	$(BUILD)/examples/virtual_platform $(BUILD)/models/digits

# The bundled architecture sweep (docs/exploration.md): 32 points over two
# models on a local Dask cluster; results and plots in $(BUILD)/sweeps/demo.
sweep-demo: build
	$(BUILD)/tools/tessera sweep examples/sweeps/demo.yaml -o $(BUILD)/sweeps/demo --plots

# Refits python/tessera/area_model.json: Yosys (Xilinx flow, nice 19) on
# tsr_accel per config of tools/area/fit.yaml; results cached in $(BUILD)/area-cache.
area-model: build
	PYTHONPATH=$(BUILD)/python /usr/bin/python3 -m tessera area fit tools/area/fit.yaml --cache $(BUILD)/area-cache --jobs 2

bench: build
	@tools/bench.sh $(BUILD)

format:
	@git ls-files '*.h' '*.cc' | xargs clang-format -i

# Fails (listing the files) when any tracked C++ file differs from clang-format's output.
format-check:
	@bad=$$(git ls-files '*.h' '*.cc' | while read -r f; do \
	  clang-format --dry-run -Werror "$$f" >/dev/null 2>&1 || echo "$$f"; done); \
	if [ -n "$$bad" ]; then echo "not clang-format clean (run 'make format'):"; echo "$$bad"; exit 1; fi

clean:
	rm -rf $(BUILD)
