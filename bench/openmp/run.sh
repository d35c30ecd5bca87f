#!/usr/bin/env bash
# bench/openmp/run.sh -- the OpenMP kernels (ep, stencil, dense, fft) built
# with clang-14 -fopenmp (libomp, the reference) and with kumicc -fopenmp
# (threads = kumi PEs over the software DSM), run alternately, median times.
#
# usage: bench/openmp/run.sh [-b BUILDDIR] [-r REPS] [-s SCALE] [-t SEC]
#                            [-k "ep stencil dense fft"] [-o OUTDIR] [--tcp]
#   -b BUILDDIR  kumi build tree with bin/kumicc and bin/kumirun
#                (default: $KUMI_BUILD, else <repo>/build)
#   -r REPS      repetitions of every configuration, alternating (default 5)
#   -s SCALE     problem scale passed to every kernel (default 1)
#   -t SEC       time limit of one run (default 300)
#   -k LIST      kernels to run (default: ep stencil dense fft)
#   -o OUTDIR    where binaries and logs go (default: a new /tmp directory)
#   --tcp        also run kumi at 2 PEs with --transport tcp
# Environment: CLANG (default clang-14).
#
# Every run must print VERIFIED and exit 0, and every configuration must
# print the same check= as the first one (the kernels' checks do not depend
# on the thread count); a run that does not is reported and counted as a
# failure (exit status 1).
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${KUMI_BUILD:-$repo/build}
reps=5
scale=1
tlimit=300
kernels="ep stencil dense fft"
out=
tcp=0
clang=${CLANG:-clang-14}

while [ $# -gt 0 ]; do
    case $1 in
    -b) build=$2; shift 2 ;;
    -r) reps=$2; shift 2 ;;
    -s) scale=$2; shift 2 ;;
    -t) tlimit=$2; shift 2 ;;
    -k) kernels=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    --tcp) tcp=1; shift ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done

kumicc=$build/bin/kumicc
kumirun=$build/bin/kumirun
for t in "$kumicc" "$kumirun"; do
    [ -x "$t" ] || { echo "run.sh: $t not found (build kumi, or -b BUILDDIR)" >&2; exit 2; }
done
command -v "$clang" >/dev/null || { echo "run.sh: $clang not found" >&2; exit 2; }
[ -n "$out" ] || out=$(mktemp -d /tmp/kumi-omp-bench.XXXXXX)
mkdir -p "$out" || exit 2
echo "# binaries and logs: $out"
echo "# kumi: $build; reference: $clang -fopenmp (libomp); scale $scale; $reps repetitions"

# Build (each compile limited too).
for k in $kernels; do
    src=$here/$k.c
    [ -f "$src" ] || { echo "run.sh: no kernel $src" >&2; exit 2; }
    timeout 300 "$clang" -O2 -fopenmp "$src" -o "$out/$k.libomp" -lm ||
        { echo "run.sh: $clang failed on $k.c" >&2; exit 1; }
    timeout 600 "$kumicc" -O2 -fopenmp "$src" -o "$out/$k.kumi" -lm ||
        { echo "run.sh: kumicc failed on $k.c" >&2; exit 1; }
done

configs="lib1 lib2 k1 k2"
[ "$tcp" = 1 ] && configs="$configs ktcp2"

# run CONFIG KERNEL LOG: one run; appends "seconds check" or "FAIL why" to
# $out/KERNEL.CONFIG.res
run_one() {
    local c=$1 k=$2 log=$3 rc
    case $c in
    lib1) timeout "$tlimit" env OMP_NUM_THREADS=1 OMP_PROC_BIND=true OMP_PLACES=cores \
              "$out/$k.libomp" "$scale" >"$log" 2>&1 ;;
    lib2) timeout "$tlimit" env OMP_NUM_THREADS=2 OMP_PROC_BIND=true OMP_PLACES=cores \
              "$out/$k.libomp" "$scale" >"$log" 2>&1 ;;
    k1) timeout $((tlimit + 10)) env -u OMP_NUM_THREADS \
              "$kumirun" --timeout "$tlimit" -n 1 "$out/$k.kumi" "$scale" >"$log" 2>&1 ;;
    k2) timeout $((tlimit + 10)) env -u OMP_NUM_THREADS \
              "$kumirun" --timeout "$tlimit" -n 2 "$out/$k.kumi" "$scale" >"$log" 2>&1 ;;
    ktcp2) timeout $((tlimit + 10)) env -u OMP_NUM_THREADS \
              "$kumirun" --timeout "$tlimit" -n 2 --transport tcp "$out/$k.kumi" "$scale" >"$log" 2>&1 ;;
    esac
    rc=$?
    local line secs check
    line=$(grep -m1 '^kernel=' "$log")
    secs=$(printf '%s\n' "$line" | sed -n 's/.* seconds=\([^ ]*\).*/\1/p')
    check=$(printf '%s\n' "$line" | sed -n 's/.* check=\([^ ]*\).*/\1/p')
    if [ $rc -ne 0 ] || ! grep -q 'VERIFIED' "$log" || [ -z "$secs" ]; then
        echo "FAIL rc=$rc" >>"$out/$k.$c.res"
        echo "run.sh: $k $c run failed (status $rc), log $log:" >&2
        tail -n 5 "$log" | sed 's/^/    /' >&2
        return 1
    fi
    echo "$secs $check" >>"$out/$k.$c.res"
}

rm -f "$out"/*.res
fails=0
for r in $(seq 1 "$reps"); do
    for k in $kernels; do
        for c in $configs; do
            run_one "$c" "$k" "$out/$k.$c.$r.log" || fails=$((fails + 1))
        done
    done
    echo "# repetition $r of $reps done" >&2
done

# median of the successful runs' seconds ("-" if none)
median() {
    awk '$1 != "FAIL" { print $1 }' "$1" 2>/dev/null | sort -g |
        awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2];
              else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Checks: every successful run of every configuration gives the same check=.
for k in $kernels; do
    ref=
    for c in $configs; do
        while read -r secs check; do
            [ "$secs" = FAIL ] && continue
            if [ -z "$ref" ]; then
                ref=$check
            elif [ "$check" != "$ref" ]; then
                echo "run.sh: $k $c check=$check differs from check=$ref" >&2
                fails=$((fails + 1))
            fi
        done <"$out/$k.$c.res"
    done
done

echo
hdr="kernel   libomp_1T_s libomp_2T_s kumi_1PE_s kumi_2PE_s"
[ "$tcp" = 1 ] && hdr="$hdr kumi_tcp_2PE_s"
hdr="$hdr kumi1/libomp1(<=1.3) kumi_speedup_2/1(ep>=1.8,else>=1.4) kumi2/libomp2"
printf '%s\n' "$hdr"
for k in $kernels; do
    l1=$(median "$out/$k.lib1.res"); l2=$(median "$out/$k.lib2.res")
    k1=$(median "$out/$k.k1.res"); k2=$(median "$out/$k.k2.res")
    kt=
    [ "$tcp" = 1 ] && kt=$(median "$out/$k.ktcp2.res")
    awk -v k="$k" -v l1="$l1" -v l2="$l2" -v k1="$k1" -v k2="$k2" -v kt="$kt" -v tcp="$tcp" '
        function ratio(a, b) { return (a == "-" || b == "-" || b + 0 == 0) ? "-" : a / b }
        function fmt(x) { return x == "-" ? "-" : sprintf("%.4f", x) }
        function fr(x) { return x == "-" ? "-" : sprintf("%.2f", x) }
        BEGIN {
            r1 = ratio(k1, l1); sp = ratio(k1, k2); r2 = ratio(k2, l2)
            tgt = (k == "ep") ? 1.8 : 1.4
            m1 = (r1 == "-") ? "" : (r1 <= 1.3 ? " ok" : " MISS")
            ms = (sp == "-") ? "" : (sp >= tgt ? " ok" : " MISS")
            line = sprintf("%-8s %11s %11s %10s %10s", k, fmt(l1), fmt(l2), fmt(k1), fmt(k2))
            if (tcp == 1) line = line sprintf(" %14s", fmt(kt))
            line = line sprintf(" %20s %36s %13s", fr(r1) m1, fr(sp) ms, fr(r2))
            print line
        }'
done
echo
echo "# times: median seconds of the timed compute phase over $reps runs"
echo "# DSM protocol messages per PE: not reported (kumi has no environment"
echo "# switch that prints kumi_dsm_stats for an unmodified OpenMP program)"
if [ $fails -ne 0 ]; then
    echo "run.sh: $fails failed runs or check mismatches (logs in $out)" >&2
    exit 1
fi
exit 0
