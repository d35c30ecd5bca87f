#!/bin/sh
# sos_suite.sh -- builds and runs a third-party OpenSHMEM C test suite (the C
# unit tests of Sandia OpenSHMEM, test/unit, or any folder of self-checking
# SHMEM programs: one program per .c file, exit status 0 = pass), unmodified,
# with kumi's oshcc and oshrun. Not in this repository, so not in CTest.
#
#   sos_suite.sh [-t SECS] [-s LIST] [-c CFLAGS] [-f REGEX] [-o OPTS] BLD SUITE WORK N...
#       BLD   the build dir (BLD/bin/oshcc, BLD/bin/oshrun)
#       SUITE the folder of .c files (e.g. .../SOS/test/unit)
#       WORK  scratch dir (the executables and one log per run)
#       N...  the PE counts to run each program at
#       -t    each run's time limit (default 60 s); a run still going then
#             is a HANG
#       -s    space-separated program names to skip (e.g. ones that need
#             more PEs than given)
#       -c    more compiler flags (e.g. -I DIR for a header the suite
#             expects from its own build tree)
#       -o    more oshrun options (e.g. "--transport tcp")
#       -f    a run whose output matches this extended regex is a FAIL
#             even with status 0 (suites that print "Failed" and exit 0,
#             as the UH tests do)
#
# Each file is built as `oshcc -O1 -pthread FILE -lm` (plus -fopenmp when it
# includes omp.h); a file that does not build and names a shmemx_ routine is
# counted as SKIP (an implementation's own extension, not OpenSHMEM 1.5),
# any other that does not build as CERR. Each built program runs as
# `oshrun -np N --timeout SECS ./prog`. Prints one line per program and N
# (PASS, FAIL with the status, HANG) and the counts per N; the logs are
# WORK/NAME.nN.log and WORK/NAME.build.log.
set -u
limit=60 skiplist='' cflags='' failre='' runopts=''
while getopts t:s:c:f:o: opt; do
    case $opt in
    t) limit=$OPTARG ;;
    s) skiplist=$OPTARG ;;
    c) cflags=$OPTARG ;;
    f) failre=$OPTARG ;;
    o) runopts=$OPTARG ;;
    *) echo "usage: $0 [-t SECS] [-s LIST] [-c CFLAGS] [-f REGEX] [-o OPTS] BLD SUITE WORK N..." >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -ge 4 ] || { echo "usage: $0 [-t SECS] [-s LIST] [-c CFLAGS] [-f REGEX] [-o OPTS] BLD SUITE WORK N..." >&2; exit 2; }
bld=$(cd "$1" && pwd) || exit 2
suite=$(cd "$2" && pwd) || exit 2
work=$3
shift 3
[ -x "$bld/bin/oshcc" ] || { echo "$0: no $bld/bin/oshcc" >&2; exit 2; }
mkdir -p "$work" || exit 1
work=$(cd "$work" && pwd)

built='' cerr=0 skip=0 cerr_names='' skip_names=''
for src in "$suite"/*.c; do
    name=$(basename "$src" .c)
    case " $skiplist " in *" $name "*) skip=$((skip + 1)); skip_names="$skip_names $name"
        echo "SKIP $name (asked)"; continue ;; esac
    extra=
    grep -q '#include[[:space:]]*<omp.h>' "$src" && extra=-fopenmp
    # shellcheck disable=SC2086 # $extra and $cflags are lists of flags
    if nice -n 10 "$bld/bin/oshcc" -O1 -pthread $extra $cflags -I "$suite" "$src" -o "$work/$name" -lm \
        >"$work/$name.build.log" 2>&1; then
        built="$built $name"
    elif grep -q 'shmemx_[a-z]' "$src"; then
        skip=$((skip + 1)); skip_names="$skip_names $name"
        echo "SKIP $name (uses shmemx_ extensions)"
    else
        cerr=$((cerr + 1)); cerr_names="$cerr_names $name"
        echo "CERR $name (see $work/$name.build.log)"
    fi
done

for npe in "$@"; do
    pass=0 fail=0 hang=0 failed='' hung=''
    for name in $built; do
        # shellcheck disable=SC2086 # $runopts is a list of options
        (cd "$work" && timeout -k 5 $((limit + 15)) "$bld/bin/oshrun" -np "$npe" --timeout "$limit" $runopts \
            "./$name" </dev/null >"$work/$name.n$npe.log" 2>&1)
        rc=$?
        if [ $rc = 0 ] && [ -n "$failre" ] && grep -q -E "$failre" "$work/$name.n$npe.log"; then
            fail=$((fail + 1)); failed="$failed $name"; echo "FAIL n$npe $name (status 0, output matches $failre)"
        elif [ $rc = 0 ]; then
            pass=$((pass + 1)); echo "PASS n$npe $name"
        elif [ $rc = 124 ] || [ $rc = 137 ] || grep -q 'exceeded --timeout' "$work/$name.n$npe.log"; then
            hang=$((hang + 1)); hung="$hung $name"; echo "HANG n$npe $name (status $rc)"
        else
            fail=$((fail + 1)); failed="$failed $name"; echo "FAIL n$npe $name (status $rc)"
        fi
    done
    echo "sos suite at $npe: $pass of $((pass + fail + hang)) pass, $fail fail, $hang hang;" \
        "$cerr compile errors, $skip skipped"
    echo "failed at $npe:$failed"
    echo "hung at $npe:$hung"
done
echo "compile errors:$cerr_names"
echo "skipped:$skip_names"
