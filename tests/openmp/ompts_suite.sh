#!/bin/sh
# ompts_suite.sh -- runs the C tests of the OpenMP Validation Suite (OpenUH /
# University of Stuttgart, "ompts"; not in this repository, so not in CTest)
# built by kumicc -fopenmp under kumirun, or built by clang -fopenmp with
# libomp as the reference.
#
#   ompts_suite.sh [-r] [-x] [-t SECS] [-l LIST] BLD SUITE WORK N...
#       BLD   the build dir (BLD/bin/kumicc, BLD/bin/kumirun)
#       SUITE the suite's top directory: c/*.c (the templates),
#             template_parser_c.pl, ompts_parserFunctions.pm,
#             ompts_standaloneProc.c, omp_testsuite.h, omp_my_sleep.h and
#             testlist-c.txt (the tests `make ctest` runs)
#       WORK  scratch dir (WORK/bin/c holds what the suite's bin/c would)
#       N...  the PE counts (threads with -r) to run each test at
#       -r    the reference: clang-14 -fopenmp + libomp
#       -x    also run the crosstests of the tests that pass (as the
#             suite's runtest.pl does; a crosstest must fail)
#       -t    each run's time limit (default 120 s)
#       -l    the tests to run: a file like testlist-c.txt (default
#             SUITE/testlist-c.txt)
#
# As the suite's runtest.pl: each test of testlist-c.txt is generated from
# its template by the suite's own template_parser_c.pl (--test, and
# --crosstest), a normal version and, if the template has orphan regions,
# an orphaned one (orph_), compiled as the suite's Makefile does ($CC
# -fopenmp -lm -O3, the headers copied next to the sources) and run with
# OMP_NUM_THREADS=N from WORK (the tests write bin/c/<test>.log). A test
# passes when its program exits with 0 (its 20 repetitions all passed).
# kumi runs are `kumirun -n N` with OMP_NUM_THREADS=N. Binaries are built
# once per WORK and reused (remove WORK/bin/c to rebuild).
# Prints one line per test version and N, and the counts.
set -u
ref=0 cross=0 limit=120 list=
usage() { echo "usage: $0 [-r] [-x] [-t SECS] [-l LIST] BLD SUITE WORK N..." >&2; exit 2; }
while getopts rxt:l: opt; do
    case $opt in
    r) ref=1 ;;
    x) cross=1 ;;
    t) limit=$OPTARG ;;
    l) list=$OPTARG ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
[ $# -ge 4 ] || usage
bld=$(cd "$1" && pwd) suite=$(cd "$2" && pwd) work=$3
shift 3
for f in template_parser_c.pl ompts_parserFunctions.pm ompts_standaloneProc.c \
         omp_testsuite.h omp_my_sleep.h testlist-c.txt; do
    [ -f "$suite/$f" ] || { echo "ompts_suite: $suite/$f missing" >&2; exit 2; }
done
mkdir -p "$work/bin/c" || exit 1
work=$(cd "$work" && pwd)
cp "$suite/omp_testsuite.h" "$suite/omp_my_sleep.h" "$work/bin/c/" || exit 1
if [ $ref = 1 ]; then
    cc="clang-14 -fopenmp=libomp" tag=ref
else
    cc="$bld/bin/kumicc -fopenmp" tag=kumi
fi
[ -n "$list" ] || list=$suite/testlist-c.txt
tests=$(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$list" | grep -v '^$') || {
    echo "ompts_suite: no tests in $list" >&2; exit 2; }

# gen_and_build NAME KIND ORPH: bin/c/<prefix>NAME (kind test or crosstest)
gen_and_build() {
    name=$1 kind=$2 orph=$3
    case $kind in test) p=test_ ;; *) p=ctest_ ;; esac
    [ "$orph" = --orphan ] && p=orph_$p
    exe="$work/bin/c/$tag.$p$name"
    [ -x "$exe" ] && return 0
    # the parser reads ompts_standaloneProc.c from its working directory
    (cd "$suite" && perl -I. ./template_parser_c.pl --"$kind" "$orph" "c/$name.c" \
        "$work/bin/c/$p$name.c") || return 1
    $cc -O3 "$work/bin/c/$p$name.c" -o "$exe" -lm \
        >"$work/bin/c/$tag.$p${name}_compile.log" 2>&1
}

# run_one EXE N: the program's exit status (124: timed out)
run_one() {
    if [ $ref = 1 ]; then
        OMP_NUM_THREADS=$2 timeout "$limit" "$1"
    else
        OMP_NUM_THREADS=$2 "$bld/bin/kumirun" -n "$2" --timeout "$limit" "$1"
    fi
}

for npe in "$@"; do
    pass=0 fail=0 verified=0 lucky=0 failed=
    cd "$work" || exit 1
    for t in $tests; do
        orphs=--noorphan
        grep -q 'ompts:orphan' "$suite/c/$t.c" && orphs="--noorphan --orphan"
        for o in $orphs; do
            v=$t
            [ "$o" = --orphan ] && v=orph_$t
            if ! gen_and_build "$t" test "$o"; then
                fail=$((fail + 1)); failed="$failed $v"
                echo "FAIL n$npe $v (compile: $work/bin/c/$tag.*${v#orph_}_compile.log)"
                continue
            fi
            p=test_
            [ "$o" = --orphan ] && p=orph_test_
            run_one "$work/bin/c/$tag.$p$t" "$npe" >"$work/bin/c/$tag.$p$t.n$npe.out" 2>&1
            rc=$?
            if [ $rc != 0 ]; then
                fail=$((fail + 1)); failed="$failed $v"
                echo "FAIL n$npe $v (status $rc)"
                continue
            fi
            pass=$((pass + 1))
            if [ $cross = 1 ] && gen_and_build "$t" crosstest "$o"; then
                cp=ctest_
                [ "$o" = --orphan ] && cp=orph_ctest_
                if ! run_one "$work/bin/c/$tag.$cp$t" "$npe" >"$work/bin/c/$tag.$cp$t.n$npe.out" 2>&1; then
                    verified=$((verified + 1)); echo "PASS n$npe $v (crosstest fails: verified)"
                else
                    lucky=$((lucky + 1)); echo "PASS n$npe $v (crosstest passes too)"
                fi
            else
                echo "PASS n$npe $v"
            fi
        done
    done
    echo "ompts ($tag) at $npe: $pass of $((pass + fail)) pass"
    [ $cross = 1 ] && echo "ompts ($tag) at $npe: crosstests of the passing ones: $verified fail (verified), $lucky pass"
    echo "failed at $npe:$failed"
done
