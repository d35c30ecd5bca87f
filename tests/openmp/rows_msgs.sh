#!/bin/sh
# rows_msgs.sh KUMIRUN DIR MAX [ENV=VALUE...] -- the coherence block of small
# allocations: DIR/kumi (tests/openmp/rows.c, grids of separately malloc'ed
# rows; the master allocates them) at 2 PEs on shm, n = 34 (rows of 272
# bytes, as NPB MG class S), 2 and 6 iterations with KUMI_DSM_STATS=1; the
# protocol messages of all PEs per iteration (the difference over 4) must
# be at most MAX. With the block sized to the row: 512 (2026-11-27); with
# 64-byte blocks (KUMI_OMP_HEAP_BLOCK=line) 2560.
# With MAX prefixed by '>' the count must be above it instead (the
# negative control: the old 64-byte blocks).
set -u
kumirun=$1 dir=$2 max=$3
shift 3
# sanitizer builds: the kumi runs preload the sanitizer runtime (omp_test.sh)
kumienv=
[ -n "${KUMI_OMP_TEST_PRELOAD:-}" ] && kumienv="LD_PRELOAD=$KUMI_OMP_TEST_PRELOAD"
[ -x "$dir/kumi" ] || { echo "rows_msgs: $dir/kumi missing (omp.rows.build failed)" >&2; exit 1; }
count() {
    env $kumienv "$@" KUMI_DSM_STATS=1 "$kumirun" -n 2 --transport shm --timeout 60 "$dir/kumi" 34 "$it" 0 \
        2>"$dir/msgs.$it.err" >"$dir/msgs.$it.out" || {
        echo "rows_msgs: the run with $it iterations failed:"; tail -20 "$dir/msgs.$it.err"
        cat "$dir/msgs.$it.out"; exit 1; }
    grep -q '^rows ok$' "$dir/msgs.$it.out" || { echo "rows_msgs: wrong result"; cat "$dir/msgs.$it.out"; exit 1; }
    sed -n 's/.*msgs_sent=\([0-9]*\) .*/\1/p' "$dir/msgs.$it.err" | awk '{s += $1} END {print s + 0}'
}
it=2; a=$(count "$@") || { echo "$a"; exit 1; }
it=6; b=$(count "$@") || { echo "$b"; exit 1; }
per=$(( (b - a) / 4 ))
echo "rows_msgs: $per protocol messages per iteration at 2 PEs (2 iterations: $a, 6: $b) $*"
case $max in
'>'*) [ "$per" -gt "${max#>}" ] || { echo "rows_msgs: expected more than ${max#>}"; exit 1; } ;;
*)    [ "$per" -le "$max" ] || { echo "rows_msgs: more than $max"; exit 1; } ;;
esac
