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
ASAN_TESTS ?= -LE 'launcher-full|shmem-full|openmp-full|mpi-full|ucx-full|slurm-full|package'
TSAN_TESTS ?= -L 'tcp|threads|ucx' -LE 'hosts|fuzz|launcher-full|shmem-full|mpi-full|ucx-full|slurm-full|package'

.PHONY: all deps test-deps bench-deps build demo test test-shmem test-mpi test-ucx test-slurm test-asan \
        test-tsan install package test-package clean

all: build

# the Debian packages, by group (.ci/deps --list shows them): building
# (build, install, package), testing (test*, demo) and the peers of the
# benchmarks (Open MPI, Google Benchmark, gnuplot). As root the missing ones
# are installed; otherwise the exact apt-get line is printed and make fails.
deps:
	@bash .ci/deps build

test-deps:
	@bash .ci/deps build test

bench-deps:
	@bash .ci/deps build bench

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) $(CMAKE_ARGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

demo: test-deps build
	$(BUILD)/bin/kumirun -n 4 --timeout 300 $(BUILD)/bin/kumi-bench all --iters 2000

# the OpenSHMEM binding's and the MPI subset's whole PE-count x transport
# matrices (labels shmem-full, mpi-full) are left to `make test-shmem` and
# `make test-mpi`, the ucx transport's (ucx-full) to `make test-ucx`, the
# Debian package's install test to `make test-package`, kumirun's ~20 s
# test of silent live PEs (launcher-full) to `ctest -L launcher-full`
test: test-deps build
	cd $(BUILD) && ctest --output-on-failure --timeout 300 -j 1 -LE 'launcher-full|shmem-full|openmp-full|mpi-full|ucx-full|slurm-full|package'

test-shmem: test-deps build
	cd $(BUILD) && ctest --output-on-failure --timeout 300 -j 1 -L shmem

# every ucx test (labels ucx, ucx-full; skipped when UCX is not built)
test-ucx: test-deps build
	cd $(BUILD) && ctest --output-on-failure --timeout 300 -j 1 -L ucx

# every test under a private Slurm, the two-node ones included (slurm-full)
test-slurm: test-deps build
	cd $(BUILD) && ctest --output-on-failure --timeout 300 -j 1 -L slurm

# the MPI subset's whole PE-count x transport matrix (labels mpi, mpi-full)
test-mpi: test-deps build
	cd $(BUILD) && ctest --output-on-failure --timeout 300 -j 1 -L 'mpi'

test-asan: test-deps
	cmake -S . -B $(BUILD_ASAN) -DKUMI_SANITIZE=address -DCMAKE_BUILD_TYPE=Debug $(CMAKE_ARGS)
	cmake --build $(BUILD_ASAN) -j $(JOBS)
	cd $(BUILD_ASAN) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure --timeout 600 -j 1 $(ASAN_TESTS)

test-tsan: test-deps
	cmake -S . -B $(BUILD_TSAN) -DKUMI_SANITIZE=thread -DCMAKE_BUILD_TYPE=Debug $(CMAKE_ARGS)
	cmake --build $(BUILD_TSAN) -j $(JOBS)
	cd $(BUILD_TSAN) && TSAN_OPTIONS=halt_on_error=1 \
	  ctest --output-on-failure --timeout 600 -j 2 $(TSAN_TESTS)

install: build
	cmake --install $(BUILD) $(if $(PREFIX),--prefix $(PREFIX))

# the Debian package $(BUILD)/kumi_<version>_<arch>.deb (cmake/package.cmake);
# install it with `apt install ./$(BUILD)/kumi_*.deb`
package: build
	cmake --build $(BUILD) --target package

# builds the package, installs it with apt-get (root; skipped otherwise),
# compiles and runs programs with it, removes it (tests/package/smoke.sh)
test-package: test-deps build
	cd $(BUILD) && ctest --output-on-failure --timeout 900 -j 1 -L package

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_TSAN)
