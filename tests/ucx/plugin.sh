#!/bin/bash
# tests/ucx/plugin.sh BINDIR LIBDIR -- the ucx transport is a plugin
# (transport/plugin.c): a program that does not use it never loads libucp,
# one that does loads LIBDIR/kumi/libkumi-ucx.so, found next to whichever
# libkumi.so the program runs with (a copied tree works), and a plugin that
# cannot be loaded is a clear error naming the file, not a crash.
set -u
bindir=$1 libdir=$2
run="$bindir/kumirun"
prog="$bindir/pe_barrier"          # linked with the shared libkumi; ARGS: a short run
args=20
tmp=$(mktemp -d /tmp/kumi-plugin.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# 1. linked: neither libkumi.so nor a plain program needs libucp/libucs
for f in "$libdir/libkumi.so" "$bindir/kumi-bench" "$prog"; do
  if ldd "$f" | grep -Eq 'libuc[ps]'; then
    fail "ldd $f lists UCX: $(ldd "$f" | grep -E 'libuc[ps]' | tr -s ' \t' ' ')"
  fi
done
ldd "$libdir/kumi/libkumi-ucx.so" | grep -q libucp || fail "the plugin does not link libucp?"

# 2. loaded: LD_DEBUG=files names every object a process loads, dlopen
# included. shm (the default on one host) must not load UCX; ucx must,
# from LIBDIR/kumi (so the check can see a load when there is one).
LD_DEBUG=files timeout 150 "$run" -n 2 --timeout 120 "$prog" $args >"$tmp/shm.out" 2>"$tmp/shm.err" \
  || fail "the shm job failed: $(tail -3 "$tmp/shm.err")"
if grep -Eq 'file=libuc[ps]|libkumi-ucx' "$tmp/shm.err"; then
  fail "a job over shm loaded UCX: $(grep -E 'file=libuc[ps]|libkumi-ucx' "$tmp/shm.err" | head -2)"
fi
grep -q 'file=libkumi.so' "$tmp/shm.err" || fail "LD_DEBUG=files printed no loads: cannot check"
LD_DEBUG=files UCX_TLS=tcp,self timeout 150 "$run" -n 2 --transport ucx --timeout 120 "$prog" $args \
  >"$tmp/ucx.out" 2>"$tmp/ucx.err" || fail "the ucx job failed: $(grep -v '^ *[0-9]*:' "$tmp/ucx.err" | tail -3)"
grep -q "file=$libdir/kumi/libkumi-ucx.so" "$tmp/ucx.err" \
  || fail "a job over ucx did not load $libdir/kumi/libkumi-ucx.so"
grep -q 'file=libucp' "$tmp/ucx.err" || fail "a job over ucx did not load libucp"

# 3. an empty KUMI_PLUGIN_DIR: every PE fails kumi_init with the file and
# dlerror(), the job exits non-zero, no signal
mkdir "$tmp/empty"
KUMI_PLUGIN_DIR="$tmp/empty" KUMI_TRANSPORT=ucx timeout 150 "$run" -n 2 --timeout 120 "$prog" $args \
  >"$tmp/empty.out" 2>"$tmp/empty.err"
rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] || fail "KUMI_PLUGIN_DIR=empty: exit $rc, want a plain failure"
grep -q "KUMI_TRANSPORT=ucx: ucx is a plugin, and loading it failed: $tmp/empty/libkumi-ucx.so: cannot open shared object file" \
  "$tmp/empty.err" || fail "KUMI_PLUGIN_DIR=empty: no clear error: $(head -3 "$tmp/empty.err")"
grep -q "unknown variable KUMI_PLUGIN_DIR" "$tmp/empty.err" && fail "KUMI_PLUGIN_DIR is unknown to kumi"

# 4. a copied tree (a moved prefix): the plugin is looked for next to the
# libkumi.so in use, here the copy (LD_LIBRARY_PATH comes before RUNPATH)
mkdir -p "$tmp/lib"
cp -P "$libdir"/libkumi.so* "$tmp/lib/"
UCX_TLS=tcp,self LD_LIBRARY_PATH="$tmp/lib" timeout 150 "$run" -n 2 --transport ucx --timeout 120 \
  "$prog" $args >"$tmp/moved1.out" 2>"$tmp/moved1.err"
grep -q "loading it failed: $tmp/lib/kumi/libkumi-ucx.so: cannot open" "$tmp/moved1.err" \
  || fail "moved libkumi without its plugin: $(head -3 "$tmp/moved1.err")"
mkdir "$tmp/lib/kumi"
cp "$libdir/kumi/libkumi-ucx.so" "$tmp/lib/kumi/"
LD_DEBUG=files UCX_TLS=tcp,self LD_LIBRARY_PATH="$tmp/lib" timeout 150 "$run" -n 2 --transport ucx \
  --timeout 120 "$prog" $args >"$tmp/moved2.out" 2>"$tmp/moved2.err" \
  || fail "moved libkumi with its plugin: $(grep -v '^ *[0-9]*:' "$tmp/moved2.err" | tail -3)"
grep -q "file=$tmp/lib/kumi/libkumi-ucx.so" "$tmp/moved2.err" \
  || fail "moved libkumi did not load the plugin beside it"

[ "$fails" -eq 0 ] && echo "plugin: ok (not loaded over shm, loaded over ucx, clear error, moved tree)"
exit $((fails > 0))
