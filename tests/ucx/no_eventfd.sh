#!/bin/bash
# tests/ucx/no_eventfd.sh BINDIR SHIM PROGRAM -- a PE whose ucx plugin gets
# no eventfd for its progress thread (SHIM: ucx/no_eventfd.c, preloaded)
# fails its start-up with one clear line naming the call and the errno,
# and the job ends with an error, instead of running with a thread whose
# naps nothing can cut short.
set -u
bindir=$1 shim=$2 prog=$3
tmp=$(mktemp -d /tmp/kumi-noefd.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

UCX_TLS=tcp,self LD_PRELOAD="$shim" timeout 120 "$bindir/kumirun" -n 2 --transport ucx \
  --timeout 60 "$prog" >"$tmp/out" 2>"$tmp/err"
rc=$?
if grep -q "runtime does not come first" "$tmp/err"; then
  echo "a sanitizer build: the shim cannot be preloaded before its runtime; skipped"
  exit 77
fi
fails=0
[ "$rc" -ne 0 ] || { echo "FAIL: the job succeeded"; fails=1; }
[ "$rc" -ne 124 ] || { echo "FAIL: the job hung"; fails=1; }
grep -q "ucx: cannot start the progress thread: eventfd: Too many open files" "$tmp/err" \
  || { echo "FAIL: no clear line: $(head -5 "$tmp/err")"; fails=1; }
[ "$fails" -eq 0 ] && echo "ok: exit $rc, $(grep -m1 eventfd "$tmp/err")"
exit "$fails"
