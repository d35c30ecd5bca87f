#!/bin/sh
# msgs_max.sh KUMIRUN DIR N MAX [ENV=VALUE...] -- the DSM protocol messages
# of one run: DIR/kumi (a tests/openmp program built by omp_test.sh) at N
# PEs on shm with KUMI_DSM_STATS=1 must print a last line ending in " ok"
# and send at most MAX protocol messages, all PEs together (with MAX
# prefixed by '>', more than that: a negative control).
set -u
kumirun=$1 dir=$2 n=$3 max=$4
shift 4
# sanitizer builds: the kumi runs preload the sanitizer runtime (omp_test.sh)
kumienv=
[ -n "${KUMI_OMP_TEST_PRELOAD:-}" ] && kumienv="LD_PRELOAD=$KUMI_OMP_TEST_PRELOAD"
[ -x "$dir/kumi" ] || { echo "msgs_max: $dir/kumi missing (the build test failed)" >&2; exit 1; }
tag=msgs.n$n.$$
env $kumienv "$@" KUMI_DSM_STATS=1 "$kumirun" -n "$n" --transport shm --timeout 60 "$dir/kumi" \
    >"$dir/$tag.out" 2>"$dir/$tag.err" || {
    echo "msgs_max: the run failed:"; tail -20 "$dir/$tag.err"; cat "$dir/$tag.out"; exit 1; }
tail -n 1 "$dir/$tag.out" | grep -q ' ok$' || {
    echo "msgs_max: wrong result"; cat "$dir/$tag.out"; exit 1; }
msgs=$(sed -n 's/.*msgs_sent=\([0-9]*\) .*/\1/p' "$dir/$tag.err" | awk '{s += $1} END {print s + 0}')
pes=$(grep -c 'msgs_sent=' "$dir/$tag.err")
rm -f "$dir/$tag.out" "$dir/$tag.err"
echo "msgs_max: $msgs protocol messages at $n PEs ($pes PEs reported) $*"
[ "$pes" = "$n" ] || { echo "msgs_max: expected the statistics of $n PEs"; exit 1; }
case $max in
'>'*) [ "$msgs" -gt "${max#>}" ] || { echo "msgs_max: expected more than ${max#>}"; exit 1; } ;;
*)    [ "$msgs" -le "$max" ] || { echo "msgs_max: more than $max"; exit 1; } ;;
esac
