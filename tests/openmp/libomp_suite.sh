#!/bin/sh
# libomp_suite.sh -- runs LLVM libomp's own C runtime tests (openmp/runtime/test
# of an LLVM source tree, unmodified; not in this repository, so not in CTest)
# built by kumicc -fopenmp under kumirun, or built by clang -fopenmp with
# libomp as the reference.
#
#   libomp_suite.sh [-r] [-t SECS] [-k] BLD SUITE WORK N...
#       BLD   the build dir (BLD/bin/kumicc, BLD/bin/kumirun)
#       SUITE .../openmp/runtime/test
#       WORK  scratch dir (one sub-dir per test)
#       N...  the PE counts (threads with -r) to run each test at
#       -r    the reference: clang-14 -fopenmp + libomp, OMP_NUM_THREADS=N
#       -t    each RUN line's time limit (default 60 s)
#
# The C tests of the directories below; each file's RUN lines run as lit
# would (%libomp-compile, %libomp-run, %libomp-compile-and-run), in order,
# all must succeed. Skipped: tests that need FileCheck on libomp's own
# messages, a C++ compiler, or a REQUIRES feature. Prints one line per test
# and N and the counts.
set -u
ref=0 limit=60
while getopts rt: opt; do
    case $opt in
    r) ref=1 ;;
    t) limit=$OPTARG ;;
    *) echo "usage: $0 [-r] [-t SECS] BLD SUITE WORK N..." >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -ge 4 ] || { echo "usage: $0 [-r] [-t SECS] BLD SUITE WORK N..." >&2; exit 2; }
bld=$(cd "$1" && pwd) suite=$(cd "$2" && pwd) work=$3
shift 3
mkdir -p "$work/bin" || exit 1
work=$(cd "$work" && pwd)
dirs="api atomic barrier critical env flush lock master misc_bugs parallel tasking threadprivate worksharing"

# the two commands the RUN lines call (scripts, not functions: RUN lines
# run them through `env VAR=... cmd`); a compile is cached per flag set
cat >"$work/bin/omp-compile" <<EOF
#!/bin/sh
key=\$(echo "\$*" | md5sum | cut -c1-12)
if [ ! -x "exe.\$key" ]; then
    if [ $ref = 1 ]; then
        clang-14 -fopenmp=libomp -O1 -I "$suite" "\$SRC" -o "exe.\$key" "\$@" -lm -latomic || exit 1
    else
        "$bld/bin/kumicc" -fopenmp -O1 -I "$suite" "\$SRC" -o "exe.\$key" "\$@" -lm || exit 1
    fi
fi
ln -sf "exe.\$key" t
EOF
cat >"$work/bin/omp-run" <<EOF
#!/bin/sh
if [ $ref = 1 ]; then
    OMP_NUM_THREADS=\${OMP_NUM_THREADS:-\$NPE} exec timeout $limit ./t "\$@"
else
    exec "$bld/bin/kumirun" -n "\$NPE" --timeout $limit ./t "\$@"
fi
EOF
chmod +x "$work/bin/omp-compile" "$work/bin/omp-run"

# the RUN lines of $1, continuation lines joined, one per line
run_lines() {
    sed -n 's|^[[:space:]]*//[[:space:]]*RUN:[[:space:]]*||p' "$1" |
        awk '{ if (sub(/\\$/, "")) { acc = acc $0 " " } else { print acc $0; acc = "" } }'
}

for npe in "$@"; do
    pass=0 fail=0 skip=0 failed=
    for d in $dirs; do
        for src in $(find "$suite/$d" -name '*.c' | sort); do
            name=$(echo "${src#$suite/}" | sed 's|/|_|g; s|\.c$||')
            if grep -q -E 'FileCheck|cxx-compile' "$src" || grep -q -E '//[[:space:]]*REQUIRES:' "$src"; then
                skip=$((skip + 1))
                continue
            fi
            dir="$work/$name"
            mkdir -p "$dir"
            run_lines "$src" |
                sed 's/%libomp-compile-and-run/omp-compile \&\& omp-run/g;
                     s/%libomp-c99-compile-and-run/omp-compile -std=c99 \&\& omp-run/g;
                     s/%libomp-compile/omp-compile/g; s/%libomp-run/omp-run/g
                     s/%clang [^&]* -o %t/omp-compile/g' >"$dir/run.sh"
            (cd "$dir" && PATH="$work/bin:$PATH" SRC="$src" NPE=$npe \
                timeout $((limit * 3)) sh -e run.sh) >"$dir/out.n$npe" 2>&1
            rc=$?
            if [ $rc = 0 ]; then
                pass=$((pass + 1)); echo "PASS n$npe $name"
            else
                fail=$((fail + 1)); failed="$failed $name"; echo "FAIL n$npe $name (status $rc)"
            fi
        done
    done
    echo "libomp suite at $npe: $pass of $((pass + fail)) pass, $skip skipped"
    echo "failed at $npe:$failed"
done
