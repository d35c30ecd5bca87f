#!/usr/bin/env bash
# bench/openmp/run.sh -- the OpenMP kernels (ep, stencil, dense, fft) built
# with clang-14 -fopenmp (libomp, the reference) and with kumicc -fopenmp
# (threads = kumi PEs over the software DSM), run alternately, median times.
#
# usage: bench/openmp/run.sh [-b BUILDDIR] [-r REPS] [-s SCALE] [-t SEC]
#                            [-k "ep stencil dense fft"] [-o OUTDIR] [--tcp] [--netns]
#   -b BUILDDIR  kumi build tree with bin/kumicc and bin/kumirun
#                (default: $KUMI_BUILD, else <repo>/build)
#   -r REPS      repetitions of every configuration, alternating (default 5)
#   -s SCALE     problem scale passed to every kernel (default 1)
#   -t SEC       time limit of one run (default 300)
#   -k LIST      kernels to run (default: ep stencil dense fft)
#   -o OUTDIR    where binaries and logs go (default: a new /tmp directory)
#   --tcp        also run kumi at 2 PEs with --transport tcp (loopback)
#   --netns      also run kumi at 2 PEs on two "hosts": network namespaces
#                joined by a veth pair, one PE in each, over tcp (root and
#                ip netns needed; the namespaces are removed at the end)
# Environment: CLANG (default clang-14).
#
# Every run must print VERIFIED and exit 0, and every configuration must
# print the same check= as the first one (the kernels' checks do not depend
# on the thread count); a run that does not is reported and counted as a
# failure (exit status 1). kumi's 2-PE runs set KUMI_DSM_STATS=1: the
# DSM protocol messages each PE sent (whole run: start-up, initialisation,
# timed phase, verification) are reported per iteration of the timed
# phase (stencil: 100 sweeps; fft: 8 2-D transforms; dense, ep: 1).
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
netns=0
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
    --netns) netns=1; shift ;;
    -h|--help) sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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

# --netns: two namespaces, each a "host" with its address on its lo, a
# veth pair between them; kumirun runs in the first and starts the second
# PE in the other through tests/hosts/nsrsh
ns1=kumi-ob$$-1 ns2=kumi-ob$$-2 h1=10.214.0.1 h2=10.214.0.2
netns_down() {
    local ns
    for ns in $ns1 $ns2; do
        ip netns list 2>/dev/null | grep -qw "^$ns" || continue
        pids=$(ip netns pids "$ns" 2>/dev/null)
        [ -n "$pids" ] && kill -9 $pids 2>/dev/null
        ip netns del "$ns" 2>/dev/null
    done
}
if [ "$netns" = 1 ]; then
    [ "$(id -u)" = 0 ] && command -v ip >/dev/null ||
        { echo "run.sh: --netns needs root and ip (iproute2)" >&2; exit 2; }
    trap netns_down EXIT
    ip netns add $ns1 && ip netns add $ns2 &&
    ip link add kob$$a netns $ns1 type veth peer name kob$$b netns $ns2 &&
    ip -n $ns1 link set lo up && ip -n $ns2 link set lo up &&
    ip -n $ns1 addr add $h1/32 dev lo && ip -n $ns2 addr add $h2/32 dev lo &&
    ip -n $ns1 addr add 10.214.1.1/30 dev kob$$a && ip -n $ns1 link set kob$$a up &&
    ip -n $ns2 addr add 10.214.1.2/30 dev kob$$b && ip -n $ns2 link set kob$$b up &&
    ip -n $ns1 route add $h2/32 via 10.214.1.2 src $h1 &&
    ip -n $ns2 route add $h1/32 via 10.214.1.1 src $h2 ||
        { echo "run.sh: cannot set up the network namespaces" >&2; exit 2; }
    configs="$configs kns2"
fi

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
    k2) timeout $((tlimit + 10)) env -u OMP_NUM_THREADS KUMI_DSM_STATS=1 \
              "$kumirun" --timeout "$tlimit" -n 2 "$out/$k.kumi" "$scale" >"$log" 2>&1 ;;
    ktcp2) timeout $((tlimit + 10)) env -u OMP_NUM_THREADS KUMI_DSM_STATS=1 \
              "$kumirun" --timeout "$tlimit" -n 2 --transport tcp "$out/$k.kumi" "$scale" >"$log" 2>&1 ;;
    kns2) timeout $((tlimit + 10)) ip netns exec $ns1 env -u OMP_NUM_THREADS KUMI_DSM_STATS=1 \
              NSRSH_MAP="$h1=$ns1 $h2=$ns2" PATH="$repo/tests/hosts:$PATH" \
              "$kumirun" --timeout "$tlimit" --hosts $h1:1,$h2:1 --rsh nsrsh \
              "$out/$k.kumi" "$scale" >"$log" 2>&1 ;;
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
    # messages per PE (the mean of the PEs' msgs_sent), when printed
    local msgs
    msgs=$(sed -n 's/^kumi: dsm stats PE [0-9]*: .* msgs_sent=\([0-9]*\) .*/\1/p' "$log" |
           awk '{ s += $1; n++ } END { if (n) printf "%d", s / n }')
    echo "$secs $check ${msgs:--}" >>"$out/$k.$c.res"
}

PROGRESS_NAME=run.sh
# progress on stderr, one line rewritten in place, only when stderr is a
# terminal (a log or a test's capture gets nothing); progress_end clears it
progress() { [ -t 2 ] && printf '\r\033[K%s: %s' "$PROGRESS_NAME" "$*" >&2; return 0; }
progress_end() { [ -t 2 ] && printf '\r\033[K' >&2; return 0; }

rm -f "$out"/*.res
fails=0
for r in $(seq 1 "$reps"); do
    for k in $kernels; do
        for c in $configs; do
            progress "repetition $r of $reps: $k $c"
            run_one "$c" "$k" "$out/$k.$c.$r.log" || fails=$((fails + 1))
        done
    done
done
progress_end

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
        while read -r secs check _; do
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
[ "$netns" = 1 ] && hdr="$hdr kumi_netns_2PE_s"
hdr="$hdr kumi1/libomp1(<=1.3) kumi_speedup_2/1(ep>=1.8,else>=1.4) kumi2/libomp2"
printf '%s\n' "$hdr"
for k in $kernels; do
    l1=$(median "$out/$k.lib1.res"); l2=$(median "$out/$k.lib2.res")
    k1=$(median "$out/$k.k1.res"); k2=$(median "$out/$k.k2.res")
    kt= kn=
    [ "$tcp" = 1 ] && kt=$(median "$out/$k.ktcp2.res")
    [ "$netns" = 1 ] && kn=$(median "$out/$k.kns2.res")
    awk -v k="$k" -v l1="$l1" -v l2="$l2" -v k1="$k1" -v k2="$k2" -v kt="$kt" -v tcp="$tcp" \
        -v kn="$kn" -v netns="$netns" '
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
            if (netns == 1) line = line sprintf(" %16s", fmt(kn))
            line = line sprintf(" %20s %36s %13s", fr(r1) m1, fr(sp) ms, fr(r2))
            print line
        }'
done
echo
echo "# times: median seconds of the timed compute phase over $reps runs"
echo
echo "# DSM protocol messages sent per PE per iteration of the timed phase (median"
echo "# over the runs; counted over the whole run, so start-up, initialisation and"
echo "# verification are included)"
mhdr="kernel   iterations  shm_2PE"
[ "$tcp" = 1 ] && mhdr="$mhdr  tcp_2PE"
[ "$netns" = 1 ] && mhdr="$mhdr  netns_2PE"
printf '%s\n' "$mhdr"
for k in $kernels; do
    case $k in stencil) it=100 ;; fft) it=8 ;; *) it=1 ;; esac
    line=$(printf '%-8s %10d' "$k" "$it")
    for c in k2 $([ "$tcp" = 1 ] && echo ktcp2) $([ "$netns" = 1 ] && echo kns2); do
        m=$(awk '$1 != "FAIL" && $3 != "-" { print $3 }' "$out/$k.$c.res" 2>/dev/null | sort -n |
            awk -v it="$it" '{ v[NR] = $1 } END { if (NR == 0) print "-"; else printf "%.0f", v[int((NR + 1) / 2)] / it }')
        line="$line $(printf '%8s' "$m")"
    done
    printf '%s\n' "$line"
done
if [ $fails -ne 0 ]; then
    echo "run.sh: $fails failed runs or check mismatches (logs in $out)" >&2
    exit 1
fi
exit 0
