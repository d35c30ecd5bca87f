#!/bin/sh
# halves_msgs.sh KUMIRUN DIR MAX [VAR=VALUE ...]: the protocol messages of
# one iteration of halves.c at 2 PEs on shm (the difference between runs
# of 2 and 6 iterations, over 4), at most MAX (">N": more than N). A
# block-distributed heap object that starts 16 bytes after a block
# boundary shares every block of the array between rows and column chunks
# (bindings/openmp/memory.c, big_alloc).
set -u
kumirun=$1 dir=$2 max=$3
shift 3
kumienv=
[ -n "${KUMI_OMP_TEST_PRELOAD:-}" ] && kumienv="LD_PRELOAD=$KUMI_OMP_TEST_PRELOAD"
[ -x "$dir/kumi" ] || { echo "halves_msgs: $dir/kumi missing (omp.halves.build failed)" >&2; exit 1; }
count() {
    env $kumienv "$@" KUMI_DSM_STATS=1 "$kumirun" -n 2 --transport shm --timeout 60 "$dir/kumi" "$it" \
        2>"$dir/msgs.$it.err" >"$dir/msgs.$it.out" || {
        echo "halves_msgs: the run with $it iterations failed:"; tail -20 "$dir/msgs.$it.err"
        cat "$dir/msgs.$it.out"; exit 1; }
    grep -q '^halves ok$' "$dir/msgs.$it.out" || { echo "halves_msgs: wrong result"; cat "$dir/msgs.$it.out"; exit 1; }
    sed -n 's/.*msgs_sent=\([0-9]*\) .*/\1/p' "$dir/msgs.$it.err" | awk '{s += $1} END {print s + 0}'
}
it=2; a=$(count "$@") || { echo "$a"; exit 1; }
it=6; b=$(count "$@") || { echo "$b"; exit 1; }
per=$(( (b - a) / 4 ))
echo "halves_msgs: $per protocol messages per iteration at 2 PEs (2 iterations: $a, 6: $b) $*"
case $max in
'>'*) [ "$per" -gt "${max#>}" ] || { echo "halves_msgs: expected more than ${max#>}"; exit 1; } ;;
*)    [ "$per" -le "$max" ] || { echo "halves_msgs: more than $max"; exit 1; } ;;
esac
