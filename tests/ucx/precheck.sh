#!/bin/bash
# tests/ucx/precheck.sh BINDIR LIBDIR -- kumirun --transport ucx (or
# KUMI_TRANSPORT=ucx) checks that the ucx plugin loads before it starts any
# PE: a plugin that cannot be loaded (missing, not a shared object) is one
# line from kumirun, exit 2, and no PE ran; a loadable one starts the job.
set -u
bindir=$1 libdir=$2
run="$bindir/kumirun"
tmp=$(mktemp -d /tmp/kumi-precheck.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }


mkdir "$tmp/empty" "$tmp/bad"
echo "not a shared object" >"$tmp/bad/libkumi-ucx.so"
for case in empty bad; do
  rm -f "$tmp"/ran.*
  if [ "$case" = empty ]; then
    want="$tmp/empty/libkumi-ucx.so: cannot open shared object file"
    KUMI_PLUGIN_DIR="$tmp/$case" timeout 60 "$run" -n 2 --transport ucx --timeout 30 \
      sh -c ": >$tmp/ran.\$\$" >"$tmp/$case.out" 2>"$tmp/$case.err"
  else     # the variable, not the option
    want="$tmp/bad/libkumi-ucx.so: "
    KUMI_PLUGIN_DIR="$tmp/$case" KUMI_TRANSPORT=ucx timeout 60 "$run" -n 2 --timeout 30 \
      sh -c ": >$tmp/ran.\$\$" >"$tmp/$case.out" 2>"$tmp/$case.err"
  fi
  rc=$?
  [ "$rc" -eq 2 ] || fail "$case: exit $rc, want 2 (usage: nothing ran)"
  ls "$tmp"/ran.* >/dev/null 2>&1 && fail "$case: a PE started"
  [ "$(wc -l <"$tmp/$case.err")" -eq 1 ] || fail "$case: not one line: $(cat "$tmp/$case.err")"
  grep -q "^kumirun: KUMI_TRANSPORT=ucx: ucx is a plugin, and loading it failed: $want" \
    "$tmp/$case.err" || fail "$case: no clear line: $(head -3 "$tmp/$case.err")"
done

# the plugin found (KUMI_PLUGIN_DIR naming the build's): the job starts
rm -f "$tmp"/ran.*
KUMI_PLUGIN_DIR="$libdir/kumi" timeout 60 "$run" -n 2 --transport ucx --timeout 30 \
  sh -c ": >$tmp/ran.\$\$" >"$tmp/good.out" 2>"$tmp/good.err" \
  || fail "a loadable plugin: exit $? ($(head -3 "$tmp/good.err"))"
[ "$(ls "$tmp"/ran.* 2>/dev/null | wc -l)" -eq 2 ] || fail "a loadable plugin: the 2 PEs did not run"

[ "$fails" -eq 0 ] && echo "precheck: ok (missing and broken plugin: one line, nothing started; good plugin: ran)"
exit $((fails > 0))
