#!/bin/sh
# osu_suite.sh -- builds the OSU micro-benchmarks (an OSU source tree,
# unmodified; not in this repository, so not in CTest) with this build's
# mpicc through OSU's own configure, and runs the MPI point-to-point and
# collective benchmarks under this build's mpirun (or, with -o, Open MPI's
# mpicc and `mpirun --oversubscribe`, the reference).
#
#   osu_suite.sh [-o] [-t SECS] [-i ITERS] [-x WARMUP] [-m MAX] BLD OSU WORK
#       BLD   the build dir (BLD/bin/mpicc, BLD/bin/mpirun)
#       OSU   the OSU source tree (configure, or configure.ac to autoreconf)
#       WORK  scratch dir (the build goes to WORK/build, logs to WORK/log)
#       -o    the reference: Open MPI's mpicc and mpirun from PATH
#       -t    each run's time limit (default 300 s)
#       -i/-x OSU's -i (iterations) and -x (warm-up) for every run (default:
#             OSU's own, which take long on a loaded 2-core machine)
#       -m    the largest message size (default 1048576; OSU's -m 1:MAX)
#
# Point-to-point benchmarks run at 2 PEs (osu_multi_lat and osu_mbw_mr also
# at 4), collectives (blocking and non-blocking, whatever OSU's build made)
# at 2 and 4 PEs, with -c (validation) where the benchmark's -h lists it and
# -f (full statistics) where it lists that. One line per run:
#   pass (validated)   exit 0, every size printed, every Validation "Pass"
#   pass               exit 0, sizes printed, no validation in this version
#   FAIL wrong data    a Validation column said "Fail"
#   FAIL hang          killed at the time limit
#   FAIL exit N        any other failure (the log's last lines follow)
# then the counts as "N passed, N failed". Exit status 0 iff all passed.
set -u
ref=0 limit=300 iters='' warm='' max=1048576
while getopts ot:i:x:m: opt; do
    case $opt in
    o) ref=1 ;;
    t) limit=$OPTARG ;;
    i) iters=$OPTARG ;;
    x) warm=$OPTARG ;;
    m) max=$OPTARG ;;
    *) echo "usage: $0 [-o] [-t SECS] [-i ITERS] [-x WARMUP] [-m MAX] BLD OSU WORK" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 3 ] || { echo "usage: $0 [-o] [-t SECS] [-i ITERS] [-x WARMUP] [-m MAX] BLD OSU WORK" >&2; exit 2; }
bld=$(cd "$1" && pwd) osu=$(cd "$2" && pwd) work=$3
mkdir -p "$work/build" "$work/log" || exit 1
work=$(cd "$work" && pwd)

if [ $ref = 1 ]; then
    cc=$(command -v mpicc) cxx=$(command -v mpicxx) run="$(command -v mpirun) --oversubscribe"
    # Open MPI refuses root without these (kumi's mpirun does not care)
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
else
    cc=$bld/bin/mpicc cxx=$bld/bin/mpicxx run=$bld/bin/mpirun
fi
[ -x "$cc" ] || { echo "osu_suite: no mpicc ($cc)" >&2; exit 2; }

# OSU's configure, as a user runs it: CC (and CXX: OSU's configure looks
# for mpicxx too, for its CUDA kernels) set to the MPI wrappers
if [ ! -x "$osu/configure" ]; then
    echo "osu_suite: $osu has no configure: autoreconf -fi there (needs automake, libtool)"
    (cd "$osu" && autoreconf -fi) >"$work/log/autoreconf.log" 2>&1 ||
        { echo "osu_suite: autoreconf failed (see $work/log/autoreconf.log)" >&2; exit 2; }
fi
(cd "$work/build" && "$osu/configure" CC="$cc" CXX="$cxx") >"$work/log/configure.log" 2>&1 ||
    { echo "osu_suite: configure failed (see $work/log/configure.log)" >&2; exit 2; }
# -k: a benchmark that does not build is reported below, the others run
(cd "$work/build" && make -k) >"$work/log/make.log" 2>&1
echo "osu_suite: built with $cc (log: $work/log/make.log)"

pass=0 fail=0
# run NAME NP: one line, counts
run_one() {
    name=$1 np=$2
    exe=$(find "$work/build" -type f -name "$name" -perm -u+x | head -n 1)
    if [ -z "$exe" ]; then
        printf '%-28s np %s  FAIL not built\n' "$name" "$np"
        fail=$((fail + 1))
        return
    fi
    help=$("$exe" -h 2>&1 </dev/null | head -n 80)
    opts="-m 1:$max"
    case $name in osu_latency*|osu_multi_lat) opts="-m 0:$max" ;; osu_barrier|osu_ibarrier) opts= ;; esac
    case $help in *--validation*) opts="$opts -c" ;; esac
    case $help in *--full*) opts="$opts -f" ;; esac
    [ -n "$iters" ] && opts="$opts -i $iters"
    [ -n "$warm" ] && opts="$opts -x $warm"
    log=$work/log/$name.np$np.log
    # shellcheck disable=SC2086  # the options are words
    timeout "$limit" $run -np "$np" "$exe" $opts >"$log" 2>&1
    rc=$?
    data=$(grep -c '^ *[0-9]' "$log")
    # a size's line ending in "Fail" (not a crash's "Failing at address")
    if grep -qE '^ *[0-9].*[[:space:]]Fail[[:space:]]*$' "$log"; then
        res="FAIL wrong data"
    elif [ $rc = 124 ] || [ $rc = 137 ]; then
        res="FAIL hang"
    elif [ $rc != 0 ] || [ "$data" = 0 ]; then
        res="FAIL exit $rc"
    elif grep -qE '^ *[0-9].*[[:space:]]Pass[[:space:]]*$' "$log"; then
        res="pass (validated)"
    else
        res="pass"
    fi
    printf '%-28s np %s  %s  [%s]\n' "$name" "$np" "$res" "$opts"
    case $res in
    pass*) pass=$((pass + 1)) ;;
    *) fail=$((fail + 1)); tail -n 5 "$log" | sed 's/^/    | /' ;;
    esac
}

for p in osu_latency osu_bw osu_bibw osu_mbw_mr osu_multi_lat; do
    run_one $p 2
done
for p in osu_mbw_mr osu_multi_lat; do
    run_one $p 4
done
coll="osu_barrier osu_bcast osu_reduce osu_allreduce osu_gather osu_gatherv
      osu_scatter osu_scatterv osu_allgather osu_allgatherv osu_alltoall osu_alltoallv
      osu_reduce_scatter osu_reduce_scatter_block osu_alltoallw osu_scan osu_exscan"
nbc="osu_ibarrier osu_ibcast osu_ireduce osu_iallreduce osu_igather osu_igatherv
     osu_iscatter osu_iscatterv osu_iallgather osu_iallgatherv osu_ialltoall
     osu_ialltoallv osu_ialltoallw osu_ireduce_scatter"
for np in 2 4; do
    for p in $coll $nbc; do
        # only what this OSU version has (its sources list it)
        find "$osu" -name "$p.c" | grep -q . || continue
        run_one "$p" "$np"
    done
done
echo "osu_suite: $pass passed, $fail failed"
[ $fail = 0 ]
