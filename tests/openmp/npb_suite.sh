#!/bin/sh
# npb_suite.sh -- builds the NAS Parallel Benchmarks, OpenMP C version
# (NPB3.0-omp-C; its source is not in this repository, so this is not in
# CTest) with kumicc -fopenmp and runs them under kumirun, or builds them
# with clang-14 -fopenmp and libomp as the reference.
#
#   npb_suite.sh [-r] [-t SECS] [-c CLASSES] [-b BENCHES] [-e ENV] BLD SRC WORK N...
#       BLD   the build dir (BLD/bin/kumicc, BLD/bin/kumirun)
#       SRC   the NPB3.0-omp-C tree (common/, sys/setparams.c, BT CG EP ...)
#       WORK  scratch dir (one build dir per compiler, benchmark and class)
#       N...  the PE counts (threads with -r) to run each benchmark at
#       -r    the reference: clang-14 -fopenmp + libomp, OMP_NUM_THREADS=N
#       -t    each run's time limit (default 300 s; kumirun --timeout)
#       -c    classes (default "S W")
#       -b    benchmarks (default "bt cg ep ft is lu mg sp")
#       -e    an environment setting for each kumi run (KUMI_TRANSPORT=tcp)
#
# Each benchmark and class is built once (its npbparams.h from the tree's
# sys/setparams, the common files c_print_results.c, c_randdp.c,
# c_timers.c and wtime.c when present, all with the same compiler, -O2).
# IS calls NPB's timer_read without a declaration (it does not include
# npb-C.h), so C89 rules take its double for an int and IS printed a
# meaningless time; it is built with -include of a header declaring the
# timer_* functions (nothing else: IS has its own randlc). A benchmark
# built before with other flags is built again.
# A run passes when the benchmark prints its successful verification
# ("Verification    =               SUCCESSFUL") and ends with status 0.
# Prints one line per run (PASS/FAIL, benchmark.class, N, the
# benchmark's own time in seconds or what failed, and the whole run's
# wall-clock seconds) and the counts.
set -u
ref=0 limit=300 classes="S W" benches="bt cg ep ft is lu mg sp" extra=
usage() {
    echo "usage: $0 [-r] [-t SECS] [-c CLASSES] [-b BENCHES] [-e VAR=VAL] BLD SRC WORK N..." >&2
    exit 2
}
while getopts rt:c:b:e: opt; do
    case $opt in
    r) ref=1 ;;
    t) limit=$OPTARG ;;
    c) classes=$OPTARG ;;
    b) benches=$OPTARG ;;
    e) extra=$OPTARG ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
[ $# -ge 4 ] || usage
bld=$(cd "$1" && pwd) || exit 1
src=$(cd "$2" && pwd) || exit 1
work=$3
shift 3
if [ $ref = 1 ]; then kind=libomp; cc="clang-14 -fopenmp=libomp"; else kind=kumi; cc="$bld/bin/kumicc -fopenmp"; fi
mkdir -p "$work/$kind/config" "$work/$kind/sys" || exit 1
work=$(cd "$work" && pwd)
top=$work/$kind

# setparams reads ../config/make.def for the compile strings it prints
cat >"$top/config/make.def" <<EOF
CC = $cc
CLINK = $cc
C_LIB = -lm
C_INC = -I../common
CFLAGS = -O2
CLINKFLAGS = -O2
RAND = randdp
EOF
cc -O1 -o "$top/sys/setparams" "$src/sys/setparams.c" 2>"$top/sys/setparams.log" ||
    { echo "npb: cannot build $src/sys/setparams.c (see $top/sys/setparams.log)" >&2; exit 1; }

# the common files, built once into an archive (IS has its own randlc:
# an archive member is only taken for what is still undefined)
mkdir -p "$top/common"
cp "$src"/common/*.h "$top/common/" 2>/dev/null
common_ok=1
rm -f "$top/common/libnpb.a"
for f in c_print_results c_randdp c_timers wtime; do
    [ -f "$src/common/$f.c" ] || continue
    $cc -O2 -c -I "$src/common" "$src/common/$f.c" -o "$top/common/$f.o" \
        >>"$top/common/build.log" 2>&1 || common_ok=0
    ar rc "$top/common/libnpb.a" "$top/common/$f.o" || common_ok=0
done
[ $common_ok = 1 ] || { echo "npb: the common files do not build (see $top/common/build.log)" >&2; exit 1; }
cat >"$top/common/timers.h" <<EOF
extern void timer_clear(int);
extern void timer_start(int);
extern void timer_stop(int);
extern double timer_read(int);
EOF

# the files /dev/shm/__KMP_REGISTERED_LIB_<pid>_<uid> of libomp processes
# that are gone
drop_stale_kmp() {
    for f in /dev/shm/__KMP_REGISTERED_LIB_*; do
        [ -e "$f" ] || continue
        p=${f#/dev/shm/__KMP_REGISTERED_LIB_}
        p=${p%%_*}
        kill -0 "$p" 2>/dev/null || rm -f "$f"
    done
}

pass=0 fail=0 failed=
for b in $benches; do
    B=$(echo "$b" | tr '[:lower:]' '[:upper:]')
    for c in $classes; do
        dir=$top/$b.$c
        exe=$dir/$b.$c.x
        flags="-O2 -I $top/common -I ."
        [ "$b" = is ] && flags="$flags -include $top/common/timers.h"
        if [ ! -x "$exe" ] || [ "$(cat "$dir/build.flags" 2>/dev/null)" != "$cc $flags" ]; then
            rm -rf "$dir" && mkdir -p "$dir" && cp "$src/$B"/*.c "$dir/" &&
                { cp "$src/$B"/*.h "$dir/" 2>/dev/null || true; }
            # shellcheck disable=SC2086 # $cc and $flags are word lists
            (cd "$dir" && mkdir -p ../config && "$top/sys/setparams" "$b" "$c" &&
                $cc $flags -o "$exe" ./*.c "$top/common/libnpb.a" -lm) \
                >"$dir/build.log" 2>&1 && echo "$cc $flags" >"$dir/build.flags"
        fi
        for n in "$@"; do
            if [ ! -x "$exe" ]; then
                fail=$((fail + 1)); failed="$failed $b.$c@$n"
                echo "FAIL $b.$c n$n: does not build (see $dir/build.log)"
                continue
            fi
            out=$dir/out.n$n
            t0=$(date +%s.%N)
            if [ $ref = 1 ]; then
                (cd "$dir" && OMP_NUM_THREADS=$n timeout "$limit" "$exe") >"$out" 2>&1
            else
                # shellcheck disable=SC2086 # $extra is VAR=VAL or empty
                (cd "$dir" && env $extra timeout $((limit + 30)) \
                    "$bld/bin/kumirun" -n "$n" --timeout "$limit" "$exe") >"$out" 2>&1
            fi
            rc=$?
            # libomp leaves its registration file when the time limit kills it
            [ $ref = 1 ] && [ $rc = 124 ] && drop_stale_kmp
            wall=$(echo "$t0 $(date +%s.%N)" | awk '{ printf "%.2f", $2 - $1 }')
            secs=$(sed -n 's/^ *Time in seconds *= *//p' "$out" | head -n 1)
            if [ $rc = 0 ] && grep -q -E '^ *Verification *= *SUCCESSFUL' "$out"; then
                pass=$((pass + 1)); echo "PASS $b.$c n$n ${secs}s (run ${wall}s)"
            else
                fail=$((fail + 1)); failed="$failed $b.$c@$n"
                if [ $rc = 124 ]; then why="time limit ($limit s)"
                elif grep -q -E '^ *Verification *= *UNSUCCESSFUL' "$out"; then why="verification failed"
                else why="status $rc"; fi
                echo "FAIL $b.$c n$n: $why ${secs:+(${secs}s) }(run ${wall}s, see $out)"
            fi
        done
    done
done
echo "npb suite ($kind): $pass passed, $fail failed"
[ -z "$failed" ] || echo "failed:$failed"
[ $fail = 0 ]
