#!/bin/sh
# omp_msgs.sh NAME KUMIRUN DIR MAX ARGS [VAR=VALUE ...]: the DSM protocol
# messages of one iteration of the test program NAME (DIR/kumi, built by
# omp.NAME.build) at 2 PEs on shm: the difference between runs of 2 and 6
# iterations with KUMI_DSM_STATS=1, over 4, all PEs' messages summed. It
# must be at most MAX, or with MAX ">N" more than N (a negative control).
# ARGS are the program's arguments with %i for the iteration count; the
# program prints "NAME ok" when its result is right. The VAR=VALUE
# settings go to the runs' environment.
#   rows.c (grids of malloc'ed rows, NPB MG's shape): the coherence block
#     of the OpenMP heap's small objects (one message a row, not 64-byte
#     lines: KUMI_OMP_HEAP_BLOCK=line is the negative control)
#   halves.c (fft's rows then column chunks of one malloc'ed array): a
#     block-distributed heap object starts on a block boundary
#     (bindings/openmp/memory.c, big_alloc)
set -u
name=$1 kumirun=$2 dir=$3 max=$4 args=$5
shift 5
# sanitizer builds: the kumi runs preload the sanitizer runtime (omp_test.sh)
kumienv=
[ -n "${KUMI_OMP_TEST_PRELOAD:-}" ] && kumienv="LD_PRELOAD=$KUMI_OMP_TEST_PRELOAD"
[ -x "$dir/kumi" ] || { echo "omp_msgs: $dir/kumi missing (omp.$name.build failed)" >&2; exit 1; }
count() {
    # shellcheck disable=SC2046,SC2086 # kumienv may be empty; ARGS splits into the program's arguments
    env $kumienv "$@" KUMI_DSM_STATS=1 "$kumirun" -n 2 --transport shm --timeout 60 "$dir/kumi" \
        $(echo "$args" | sed "s/%i/$it/g") 2>"$dir/msgs.$it.err" >"$dir/msgs.$it.out" || {
        echo "omp_msgs: $name, the run with $it iterations failed:"; tail -20 "$dir/msgs.$it.err"
        cat "$dir/msgs.$it.out"; exit 1; }
    grep -q "^$name ok\$" "$dir/msgs.$it.out" || {
        echo "omp_msgs: $name, wrong result"; cat "$dir/msgs.$it.out"; exit 1; }
    sed -n 's/.*msgs_sent=\([0-9]*\) .*/\1/p' "$dir/msgs.$it.err" | awk '{s += $1} END {print s + 0}'
}
it=2; a=$(count "$@") || { echo "$a"; exit 1; }
it=6; b=$(count "$@") || { echo "$b"; exit 1; }
per=$(( (b - a) / 4 ))
echo "omp_msgs: $name, $per protocol messages per iteration at 2 PEs (2 iterations: $a, 6: $b) $*"
case $max in
'>'*) [ "$per" -gt "${max#>}" ] || { echo "omp_msgs: $name, expected more than ${max#>}"; exit 1; } ;;
*)    [ "$per" -le "$max" ] || { echo "omp_msgs: $name, more than $max"; exit 1; } ;;
esac
