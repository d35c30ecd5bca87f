#!/bin/sh
# omp_test.sh -- the OpenMP tests' harness (tests/openmp/openmp.cmake).
#
#   omp_test.sh build SRC DIR KUMICC CLANG
#       DIR/ref  = SRC built by CLANG -fopenmp with libomp (the reference)
#       DIR/kumi = SRC built by KUMICC -fopenmp (libkumi-omp, translated)
#   omp_test.sh run DIR KUMIRUN N TRANSPORT [ENV=VALUE...]
#       runs DIR/ref with OMP_NUM_THREADS=N and `KUMIRUN -n N --transport
#       TRANSPORT DIR/kumi` (both with the ENV settings, which may set
#       OMP_NUM_THREADS below N: a team of fewer PEs), and passes when
#       both exit with the same status and print the same stdout.
# A test program prints only what must not depend on the runtime: results
# checked against a serial computation, thread counts, ordered output.
# KUMI_OMP_TEST_PRELOAD (sanitizer builds): LD_PRELOAD for the kumi runs.
set -u
preload=${KUMI_OMP_TEST_PRELOAD:-}
kumienv=
[ -n "$preload" ] && kumienv="LD_PRELOAD=$preload"
mode=$1
shift
case "$mode" in
build)
    src=$1 dir=$2 kumicc=$3 clang=$4
    mkdir -p "$dir" || exit 1
    # both builds into temporaries, then renamed: a run never sees half a file
    "$clang" -fopenmp=libomp -O1 -Wall "$src" -o "$dir/ref.tmp" -lm -latomic || {
        echo "omp_test: the reference build ($clang -fopenmp) failed" >&2; exit 1; }
    "$kumicc" -fopenmp -O1 -Wall "$src" -o "$dir/kumi.tmp" -lm || {
        echo "omp_test: kumicc -fopenmp failed" >&2; exit 1; }
    mv -f "$dir/ref.tmp" "$dir/ref" && mv -f "$dir/kumi.tmp" "$dir/kumi"
    ;;
run)
    dir=$1 kumirun=$2 n=$3 tp=$4
    shift 4
    tag="$tp.n$n"
    [ -x "$dir/ref" ] && [ -x "$dir/kumi" ] || {
        echo "omp_test: $dir/ref or $dir/kumi missing (the build test failed)" >&2; exit 1; }
    # the ENV settings may override OMP_NUM_THREADS (a team smaller than the PEs)
    case " $* " in *" OMP_NUM_THREADS="*) tag="$tag.$(echo "$*" | sed 's/.*OMP_NUM_THREADS=\([0-9]*\).*/t\1/')" ;; esac
    env OMP_NUM_THREADS="$n" "$@" timeout 60 "$dir/ref" >"$dir/ref.$tag.out" 2>"$dir/ref.$tag.err"
    rref=$?
    env $kumienv "$@" "$kumirun" -n "$n" --transport "$tp" --timeout 30 "$dir/kumi" \
        >"$dir/kumi.$tag.out" 2>"$dir/kumi.$tag.err"
    rkumi=$?
    fail=0
    if [ "$rref" != "$rkumi" ]; then
        echo "omp_test: exit status: reference $rref, kumi $rkumi"
        fail=1
    fi
    if ! cmp -s "$dir/ref.$tag.out" "$dir/kumi.$tag.out"; then
        echo "omp_test: outputs differ (reference, then kumi):"
        diff "$dir/ref.$tag.out" "$dir/kumi.$tag.out" | head -40
        fail=1
    fi
    if [ "$fail" = 1 ]; then
        echo "--- kumi stderr:"
        head -40 "$dir/kumi.$tag.err"
        exit 1
    fi
    echo "omp_test: same output and status ($rkumi) at $n threads/PEs on $tp:"
    head -20 "$dir/kumi.$tag.out"
    ;;
negative)
    # the negative control: SRC built by kumicc -fopenmp WITHOUT translation
    # (KUMI_TRANSLATE=0: the runtime, but no shared globals/locals in the
    # DSM) must not give the reference's result at N PEs
    src=$1 dir=$2 kumicc=$3 kumirun=$4 n=$5
    mkdir -p "$dir" || exit 1
    KUMI_TRANSLATE=0 "$kumicc" -fopenmp -O1 "$src" -o "$dir/untranslated" || {
        echo "omp_test: KUMI_TRANSLATE=0 kumicc -fopenmp failed" >&2; exit 1; }
    [ -x "$dir/ref" ] || { echo "omp_test: $dir/ref missing" >&2; exit 1; }
    OMP_NUM_THREADS="$n" "$dir/ref" >"$dir/neg.ref.out" 2>/dev/null
    rref=$?
    env $kumienv "$kumirun" -n "$n" --timeout 30 "$dir/untranslated" >"$dir/neg.out" 2>"$dir/neg.err"
    rneg=$?
    if [ "$rref" = "$rneg" ] && cmp -s "$dir/neg.ref.out" "$dir/neg.out"; then
        echo "omp_test: the untranslated program gave the reference's result: the test cannot tell"
        exit 1
    fi
    echo "omp_test: untranslated at $n PEs: status $rneg (reference $rref), output:"
    head -5 "$dir/neg.out"
    ;;
hosts)
    # two hosts in network namespaces (tests/hosts/hosts.sh: kumirun --hosts
    # over tcp, 2 PEs on each): the same output as the reference at 4
    dir=$1 kumirun=$2 hostsh=$3
    OMP_NUM_THREADS=4 "$dir/ref" >"$dir/ref.hosts.out" 2>/dev/null
    rref=$?
    bash "$hostsh" "$kumirun" run "$dir/kumi" >"$dir/kumi.hosts.raw" 2>"$dir/kumi.hosts.err"
    rc=$?
    [ "$rc" = 77 ] && { cat "$dir/kumi.hosts.raw"; exit 77; }   # not root / no ip netns
    if [ "$rc" != 0 ] || [ "$rref" != 0 ]; then
        echo "omp_test: hosts run status $rc (reference $rref)"
        head -40 "$dir/kumi.hosts.err"
        exit 1
    fi
    grep -v '^PASS \[hosts-run\]$' "$dir/kumi.hosts.raw" >"$dir/kumi.hosts.out"
    if ! cmp -s "$dir/ref.hosts.out" "$dir/kumi.hosts.out"; then
        echo "omp_test: outputs differ across two hosts (reference, then kumi):"
        diff "$dir/ref.hosts.out" "$dir/kumi.hosts.out" | head -40
        exit 1
    fi
    echo "omp_test: same output on 2 hosts x 2 PEs (network namespaces, tcp):"
    head -20 "$dir/kumi.hosts.out"
    ;;
layout)
    # the layout check: with the re-execution switched off (as if
    # personality() were refused) and ASLR on, PE 1's layout differs from
    # PE 0's and the job must stop with the message, status 1
    dir=$1 kumirun=$2
    if [ "$(cat /proc/sys/kernel/randomize_va_space 2>/dev/null)" = 0 ]; then
        echo "omp_test: skipped: ASLR is off on this machine"; exit 77
    fi
    env $kumienv KUMIOMP_REEXECUTED=1 "$kumirun" -n 2 --timeout 30 "$dir/kumi" \
        >"$dir/layout.out" 2>"$dir/layout.err"
    rc=$?
    cat "$dir/layout.err"
    [ "$rc" = 1 ] && grep -q "address layouts differ" "$dir/layout.err" || {
        echo "omp_test: expected status 1 and the layout message, got $rc"; exit 1; }
    ;;
*)
    echo "usage: omp_test.sh build SRC DIR KUMICC CLANG | run DIR KUMIRUN N TRANSPORT [ENV=V...]" >&2
    exit 2
    ;;
esac
