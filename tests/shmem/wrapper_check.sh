#!/usr/bin/env bash
# wrapper_check.sh BIN_DIR SRC_DIR -- oshcc, oshc++ and oshrun of a build:
# --showme and its forms, flags passed through untouched, no link flags when
# not linking, SHMEM_CC/SHMEM_CXX, a C++ program built with oshc++ and run
# with oshrun (-np, --oversubscribe, --allow-run-as-root, -x), exit status.
set -uo pipefail
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$tmp"

# --showme: the compiler, -I, the arguments in order, then the link flags
out=$("$bin/oshcc" --showme -O2 -fopenmp -pthread -std=gnu11 -DX='a b' app.c -o app -lm)
case "$out" in
  *" -I"*"/bindings/shmem -O2 -fopenmp -pthread -std=gnu11 -DX=a b app.c -o app -lm -L"*"/lib -Wl,-rpath,"*"/lib -lkumi-shmem -lkumi") ;;
  *) fail "oshcc --showme: $out" ;;
esac
[ "$("$bin/oshcc" -showme app.c)" = "$("$bin/oshcc" --showme app.c)" ] || fail "-showme differs from --showme"
for f in -c -E -S -M -MM -fsyntax-only; do
  out=$("$bin/oshcc" --showme $f app.c)
  case "$out" in *-lkumi*|*-L*) fail "oshcc --showme $f adds link flags: $out" ;; esac
  case "$out" in *" -I"*" $f app.c") ;; *) fail "oshcc --showme $f: $out" ;; esac
done
out=$("$bin/oshcc" --showme -shared -fPIC lib.c -o libx.so)
case "$out" in *"-shared -fPIC lib.c -o libx.so -L"*"-lkumi-shmem"*) ;; *) fail "-shared: $out" ;; esac
out=$("$bin/oshcc" --showme -MD -MF dep.d -c app.c)
case "$out" in *"-MD -MF dep.d -c app.c") ;; *) fail "-MD -MF: $out" ;; esac
out=$("$bin/oshcc" --showme:compile)
case "$out" in "-I"*"/bindings/shmem") ;; *) fail "--showme:compile: $out" ;; esac
out=$("$bin/oshcc" --showme:link)
case "$out" in "-L"*"/lib -Wl,-rpath,"*"/lib -lkumi-shmem -lkumi") ;; *) fail "--showme:link: $out" ;; esac
[ "$("$bin/oshcc" --showme:libs)" = "kumi-shmem kumi" ] || fail "--showme:libs"
"$bin/oshcc" --showme:version | grep -q "OpenSHMEM 1.5" || fail "--showme:version"
"$bin/oshcc" --showme:bogus >/dev/null 2>&1 && fail "--showme:bogus accepted"
# SHMEM_CC / SHMEM_CXX choose the compiler
[ "$(SHMEM_CC=my-cc "$bin/oshcc" --showme -c a.c | cut -d' ' -f1)" = my-cc ] || fail "SHMEM_CC"
[ "$(SHMEM_CXX=my-cxx "$bin/oshc++" --showme -c a.cc | cut -d' ' -f1)" = my-cxx ] || fail "SHMEM_CXX"
# --version passes through without link flags
"$bin/oshcc" --version >/dev/null || fail "oshcc --version"

# real builds: C with pass-through flags, preprocess only, dependencies, C++
"$bin/oshcc" -O2 -pthread -std=gnu99 -Wall -Werror "$src/tests/shmem/core_c99.c" -o c99 \
  || fail "oshcc build"
"$bin/oshcc" -E "$src/tests/shmem/core_c99.c" -o pre.i && grep -q shmem_long_p pre.i \
  || fail "oshcc -E"
"$bin/oshcc" -MM "$src/tests/shmem/core_c99.c" | grep -q "shmem.h" || fail "oshcc -MM"
"$bin/oshcc" -c -std=c99 -pedantic-errors "$src/tests/shmem/core_c99.c" -o c99.o && [ -f c99.o ] \
  || fail "oshcc -c"
"$bin/oshcc" c99.o -o c99b || fail "oshcc link of an object"
"$bin/oshc++" -O2 -std=c++17 -Wall -Wextra -pedantic -Werror "$src/tests/shmem/core_cxx.cc" -o cxx \
  || fail "oshc++ build"

# oshrun: -np, -n, the ignored options, -x, exit status
out=$("$bin/oshrun" -np 2 --oversubscribe --allow-run-as-root --timeout 60 ./cxx) \
  || fail "oshrun -np 2 ./cxx: $out"
grep -q "core_cxx: 2 PEs" <<<"$out" || fail "oshrun output: $out"
"$bin/oshrun" -n 3 ./c99 | grep -q "core_c99: 3 PEs" || fail "oshrun -n 3"
cat > env.c <<'EOS'
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
    shmem_init();
    const char *a = getenv("OSH_A"), *b = getenv("OSH_B");
    printf("PE %d: A=%s B=%s\n", shmem_my_pe(), a ? a : "(unset)", b ? b : "(unset)");
    shmem_finalize();
    return 0;
}
EOS
"$bin/oshcc" env.c -o envp || fail "build env.c"
out=$(OSH_B=fromhere "$bin/oshrun" -np 2 -x OSH_A=set -x OSH_B ./envp) || fail "oshrun -x: $out"
[ "$(grep -c 'A=set B=fromhere' <<<"$out")" = 2 ] || fail "oshrun -x: $out"
cat > exit3.c <<'EOS'
#include <shmem.h>
#include <stdlib.h>
int main(void) { shmem_init(); if (shmem_my_pe() == 1) exit(3); shmem_barrier_all(); shmem_finalize(); return 0; }
EOS
"$bin/oshcc" exit3.c -o exit3 || fail "build exit3"
"$bin/oshrun" -np 2 --timeout 30 ./exit3 >/dev/null 2>&1
rc=$?
[ "$rc" = 3 ] || fail "oshrun exit status $rc, want 3 (kumirun's)"
"$bin/oshrun" >/dev/null 2>&1
[ $? = 2 ] || fail "oshrun without a program: usage error 2"
echo "wrapper_check: oshcc, oshc++, oshrun passed"
