#!/bin/bash
# tests/ucx/put_probe.sh BINDIR [more] -- over ucx (UCX_TLS=tcp,self), a put of 8
# bytes followed by quiet is one message there and one answer back: the
# put carries quiet's probe (transport/ucx/README.md, what each op costs).
# Counts the sends (sendmsg, sendto) of both PEs under strace in a loop of
# N such rounds: 2 per round (before: 3, the put, a probe and its answer),
# plus start-up, barriers and goodbye. Then N mcast barriers: 2 sends a
# barrier, one a PE (below). With "more" (test ucx.msg_count, label
# ucx-full: it takes 4 jobs more) instead a put ping-pong and the a2a,
# dissem and tree barriers. Skipped without strace.
set -u
bindir=$1
more=${2:-}
n=1000
command -v strace >/dev/null || { echo "put_probe: no strace: skipped"; exit 77; }
# sanitizer builds: LeakSanitizer cannot run under ptrace (strace); the
# leak checks are pe.put_probe's, this one counts messages
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
# the put loops' barriers on a fixed algorithm: a job that finds the
# machine idle times every algorithm at its first barrier (thousands of
# sends), and the count of one job would not match the other's (ucx.seg
# failed so on 2026-11-27: 7382 sends in its job with no rounds; ucx.msg_count
# failed in the same run, its output not kept); the barrier rounds set their own
export KUMI_BARRIER=a2a
tmp=$(mktemp -d /tmp/kumi-putprobe.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
count() {   # MODE ROUNDS: the sends of one job, both PEs
  rm -f "$tmp"/st.*
  UCX_TLS=tcp,self timeout 120 "$bindir/kumirun" -n 2 --transport ucx --timeout 100 \
    sh -c "exec strace -f -qq -c -e trace=sendmsg,sendto,sendmmsg,write -o $tmp/st.\$\$ $bindir/pe_put_probe $1 $2" \
    >"$tmp/out" 2>"$tmp/err" || { echo "FAIL: the job failed: $(tail -3 "$tmp/err")"; exit 1; }
  cat "$tmp"/st.* | awk '$NF ~ /^send/ { s += $4 } END { print s + 0 }'
}
if [ -z "$more" ]; then
  base=$(count loop 0)
  full=$(count loop $n)
  per=$(awk -v a="$base" -v b="$full" -v n="$n" 'BEGIN { printf "%.2f", (b - a) / n }')
  echo "put_probe: $base sends with no rounds, $full with $n: $per per put+quiet"
  awk -v p="$per" 'BEGIN { exit !(p >= 1.9 && p <= 2.3) }' || { echo "FAIL: want 2 sends per put+quiet"; exit 1; }
fi
# a put ping-pong (a put, no quiet, waited for at its target, which puts
# it back): one message each way, 2 sends a round (the first put to a
# peer carries a probe: one answer in the whole loop)
if [ -n "$more" ]; then
  base=$(count putpp 0)
  full=$(count putpp $n)
  per=$(awk -v a="$base" -v b="$full" -v n="$n" 'BEGIN { printf "%.2f", (b - a) / n }')
  echo "put_probe: put ping-pong: $base sends with no rounds, $full with $n: $per per round"
  awk -v p="$per" 'BEGIN { exit !(p >= 1.9 && p <= 2.1) }' || { echo "FAIL: want 2 sends per put ping-pong round"; exit 1; }
fi
# barriers: one message a PE a barrier at 2 PEs, whichever algorithm (a
# kick or an ADD to the partner; the barrier's quiet finds nothing to
# prove after the previous barrier's settle() and sends nothing). mcast
# (an atomic ADD message to each member's LLCM): before settle() counted
# those ADDs as done, 6 a barrier (each barrier's quiet probed the
# partner). tree: a kick up and one down, 2 too, one after the other.
# Not auto: under strace its timing passes pick by strace's cost, and
# counter (a FETCH_ADD: request and reply, then a kick) takes 3
algos=mcast
[ -n "$more" ] && algos="a2a dissem tree"
for algo in $algos; do
  export KUMI_BARRIER=$algo
  base=$(count barriers 0)
  full=$(count barriers $n)
  per=$(awk -v a="$base" -v b="$full" -v n="$n" 'BEGIN { printf "%.2f", (b - a) / n }')
  echo "put_probe: $algo barriers: $base sends with none, $full with $n: $per per barrier"
  awk -v p="$per" 'BEGIN { exit !(p >= 1.9 && p <= 2.3) }' || { echo "FAIL: want 2 sends per $algo barrier"; exit 1; }
done
echo "put_probe: ok"
