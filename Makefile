# Thin wrapper around CMake. `make demo` and `make test` are the two commands.
BUILD      ?= build
BUILD_ASAN ?= build-asan
BUILD_TSAN ?= build-tsan
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=
# the threaded code (tcp's progress thread) under ThreadSanitizer: every
# test over tcp except the namespaces (label hosts) and the fuzzer, and the
# KUMI_INIT_THREADS tests on every transport (label threads)
# the sanitizer run leaves the binding's PE-count x transport matrix (label
# shmem-full) to `make test-shmem ASAN=1`-style runs by hand: CI's 90 minutes
ASAN_TESTS ?= -LE 'shmem-full|openmp-full|mpi-full|ucx-full'
TSAN_TESTS ?= -L 'tcp|threads' -LE 'hosts|fuzz|shmem-full|mpi-full|ucx-full'

.PHONY: all deps build demo test test-shmem test-mpi test-ucx test-asan test-tsan install clean

all: build

deps:
	@bash .ci/deps

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) $(CMAKE_ARGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(BUILD)/bin/kumirun -n 4 --timeout 300 $(BUILD)/bin/kumi-bench all --iters 2000

# the OpenSHMEM binding's and the MPI subset's whole PE-count x transport
# matrices (labels shmem-full, mpi-full) are left to `make test-shmem` and
# `make test-mpi`, the ucx transport's (ucx-full) to `make test-ucx`
test: build
	cd $(BUILD) && ctest --output-on-failure --timeout 300 -j 1 -LE 'shmem-full|openmp-full|mpi-full|ucx-full'

test-shmem: build
	cd $(BUILD) && ctest --output-on-failure --timeout 300 -j 1 -L shmem

# every ucx test (labels ucx, ucx-full; skipped when UCX is not built)
test-ucx: build
	cd $(BUILD) && ctest --output-on-failure --timeout 300 -j 1 -L ucx

# the MPI subset's whole PE-count x transport matrix (labels mpi, mpi-full)
test-mpi: build
	cd $(BUILD) && ctest --output-on-failure --timeout 300 -j 1 -L 'mpi'

test-asan: deps
	cmake -S . -B $(BUILD_ASAN) -DKUMI_SANITIZE=address -DCMAKE_BUILD_TYPE=Debug $(CMAKE_ARGS)
	cmake --build $(BUILD_ASAN) -j $(JOBS)
	cd $(BUILD_ASAN) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure --timeout 600 -j 1 $(ASAN_TESTS)

test-tsan: deps
	cmake -S . -B $(BUILD_TSAN) -DKUMI_SANITIZE=thread -DCMAKE_BUILD_TYPE=Debug $(CMAKE_ARGS)
	cmake --build $(BUILD_TSAN) -j $(JOBS)
	cd $(BUILD_TSAN) && TSAN_OPTIONS=halt_on_error=1 \
	  ctest --output-on-failure --timeout 600 -j 2 $(TSAN_TESTS)

install: build
	cmake --install $(BUILD) $(if $(PREFIX),--prefix $(PREFIX))

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_TSAN)
