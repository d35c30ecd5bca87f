#!/bin/sh
# first_touch.sh KUMIRUN DIR N: first_touch.c (DIR/kumi, built by
# omp.first_touch.build) at N PEs on shm with KUMI_DSM_STATS=1: its result
# right and no PE with a write miss or an upgrade (each thread's static
# share of the big array is the part homed at its PE; before the parts were
# counted from the object, 1 to 3 write misses per PE at 3 and 4 PEs).
set -u
kumirun=$1 dir=$2 n=$3
kumienv=
[ -n "${KUMI_OMP_TEST_PRELOAD:-}" ] && kumienv="LD_PRELOAD=$KUMI_OMP_TEST_PRELOAD"
[ -x "$dir/kumi" ] || { echo "first_touch: $dir/kumi missing (omp.first_touch.build failed)" >&2; exit 1; }
# shellcheck disable=SC2086 # kumienv may be empty
env $kumienv KUMI_DSM_STATS=1 "$kumirun" -n "$n" --transport shm --timeout 60 "$dir/kumi" \
    >"$dir/touch.$n.out" 2>"$dir/touch.$n.err" || {
    echo "first_touch: the run at $n PEs failed"; tail -20 "$dir/touch.$n.err"; exit 1; }
grep -q '^first_touch ok$' "$dir/touch.$n.out" || {
    echo "first_touch: wrong result"; cat "$dir/touch.$n.out"; exit 1; }
grep 'dsm stats PE' "$dir/touch.$n.err"
pes=$(grep -c 'dsm stats PE' "$dir/touch.$n.err")
[ "$pes" -eq "$n" ] || { echo "first_touch: $pes stats lines, not $n"; exit 1; }
if grep 'dsm stats PE' "$dir/touch.$n.err" | grep -Ev 'write_misses=0 upgrades=0 '; then
    echo "first_touch: a PE missed on its own share at $n PEs (above)"
    exit 1
fi
echo "first_touch: no write miss at $n PEs"
