#!/bin/bash
# tests/ucx/seg.sh BINDIR -- over UCX's tcp (UCX_TLS=tcp,self) a put of
# 1 MiB is an RMA put that UCX emulates with its own messages, one send of
# the data per fragment and one completion message back per fragment. The
# plugin asks for fragments of 64 KiB (transport/ucx/README.md, set-up):
# 16 of each a put, where UCX's default of 8 KiB took 128 of each. Counts
# the sends (sendmsg, sendto) of both PEs under strace over N rounds of a
# 1 MiB put and quiet (tests/ucx/big_put.c, which checks the data): at most
# 64 a round; then with UCX_TCP_TX_SEG_SIZE=8k, the user's choice, which
# the plugin leaves alone: at least 200 a round. Skipped without strace.
set -u
bindir=$1
n=20
command -v strace >/dev/null || { echo "seg: no strace: skipped"; exit 77; }
# sanitizer builds: LeakSanitizer cannot run under ptrace (strace)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
# the barriers' algorithm fixed: a job that finds the machine idle would
# otherwise time every algorithm at its first barrier (thousands of sends,
# more in one job than in the other)
export KUMI_BARRIER=a2a
tmp=$(mktemp -d /tmp/kumi-ucxseg.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
count() {   # ROUNDS: the sends of one job, both PEs
  rm -f "$tmp"/st.*
  UCX_TLS=tcp,self timeout 120 "$bindir/kumirun" -n 2 --transport ucx --timeout 100 \
    sh -c "exec strace -f -qq -c -e trace=sendmsg,sendto,sendmmsg,write -o $tmp/st.\$\$ $bindir/ucx_big_put $1" \
    >"$tmp/out" 2>"$tmp/err" || { echo "FAIL: the job failed: $(tail -3 "$tmp/err")" >&2; exit 1; }
  cat "$tmp"/st.* | awk '$NF ~ /^send/ { s += $4 } END { print s + 0 }'
}
check() {   # LABEL MIN MAX: sends a round, over n rounds less none, within MIN-MAX
  local base full per
  base=$(count 0) || exit 1
  full=$(count $n) || exit 1
  per=$(awk -v a="$base" -v b="$full" -v n="$n" 'BEGIN { printf "%.1f", (b - a) / n }')
  echo "seg: $1: $base sends with no rounds, $full with $n: $per per 1 MiB put + quiet"
  awk -v p="$per" -v lo="$2" -v hi="$3" 'BEGIN { exit !(p >= lo && p <= hi) }' ||
    { echo "FAIL: want $2-$3 sends a put ($1)"; exit 1; }
}
check "64 KiB fragments" 16 64
UCX_TCP_TX_SEG_SIZE=8k check "UCX_TCP_TX_SEG_SIZE=8k, the user's" 200 400
echo "seg: ok"
