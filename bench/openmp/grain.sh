#!/usr/bin/env bash
# bench/openmp/grain.sh -- OpenMP on the DSM: the heap's coherence grain
# and flag spins, as is and with the former behaviour switched back on,
# run alternately; libomp beside them.
#   rows   tests/openmp/rows.c: grids of separately malloc'ed rows (NPB MG),
#          the master allocates them; n = 66 (rows of 528 bytes, as MG W).
#          Protocol messages (all PEs) per iteration (from 2 and 6
#          iterations) and seconds of 40 iterations and of the whole run;
#          kumi as is vs KUMI_OMP_HEAP_BLOCK=line (64-byte blocks).
#   sync   bench/openmp/sync.c: microseconds per fork (empty parallel),
#          fork1 (parallel for over a tiny loop), for (omp for + barrier),
#          barrier, pipe_row (a flag per row, flush spins); and DSM
#          messages per operation.
#   pipe   tests/openmp/pipeline.c (LU's flag pipeline) at 2 and 4 PEs:
#          as is vs KUMI_OMP_FLUSH_SPIN=1.
# usage: bench/openmp/grain.sh [-b BUILDDIR] [-r REPS] [-o OUTDIR]
# Prints one line per run and the medians at the end.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${KUMI_BUILD:-$repo/build}
reps=5
out=
clang=${CLANG:-clang-14}
while [ $# -gt 0 ]; do
    case $1 in
    -b) build=$2; shift 2 ;;
    -r) reps=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "grain.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
kumicc=$build/bin/kumicc kumirun=$build/bin/kumirun
[ -x "$kumicc" ] && [ -x "$kumirun" ] || { echo "grain.sh: no kumi build at $build" >&2; exit 2; }
[ -n "$out" ] || out=$(mktemp -d /tmp/kumi-grain.XXXXXX)
mkdir -p "$out" || exit 2
echo "# $out; $(uptime)"
for p in "$repo/tests/openmp/rows.c" "$repo/tests/openmp/pipeline.c" "$here/sync.c"; do
    b=$(basename "$p" .c)
    timeout 300 "$clang" -O2 -fopenmp "$p" -o "$out/$b.libomp" -lm || exit 1
    timeout 600 "$kumicc" -O2 -fopenmp "$p" -o "$out/$b.kumi" -lm || exit 1
done
# K [-e VAR=VALUE]... KUMIRUN-ARGS: kumirun with those variables set
K() {
    local envs=() args=()
    while [ $# -gt 0 ]; do
        if [ "$1" = -e ]; then envs+=("$2"); shift 2; else args+=("$1"); shift; fi
    done
    env "${envs[@]}" timeout 600 "$kumirun" --timeout 500 "${args[@]}"
}
msgs() { sed -n 's/^kumi: dsm stats PE [0-9]*: .* msgs_sent=\([0-9]*\) .*/\1/p' "$1" | awk '{s += $1} END {print s + 0}'; }
res=$out/results
: >"$res"
for r in $(seq 1 "$reps"); do
    for np in 2 4; do
        for mode in fit line; do
            a=$(K -n $np -e KUMI_DSM_STATS=1 -e KUMI_OMP_HEAP_BLOCK=$mode "$out/rows.kumi" 66 2 0 2>&1 >/dev/null | sed -n 's/.*msgs_sent=\([0-9]*\) .*/\1/p' | awk '{s+=$1} END {print s+0}')
            b=$(K -n $np -e KUMI_DSM_STATS=1 -e KUMI_OMP_HEAP_BLOCK=$mode "$out/rows.kumi" 66 6 0 2>&1 >/dev/null | sed -n 's/.*msgs_sent=\([0-9]*\) .*/\1/p' | awk '{s+=$1} END {print s+0}')
            t0=$(date +%s.%N)
            s=$(K -n $np -e KUMI_OMP_HEAP_BLOCK=$mode "$out/rows.kumi" 66 40 0 2>&1 >/dev/null | sed -n 's/^rows seconds=\([0-9.]*\) .*/\1/p')
            w=$(echo "$(date +%s.%N) - $t0" | bc)
            echo "rows kumi-$mode np=$np msgs_per_iter=$(( (b - a) / 4 )) iters40_s=$s run_s=$w" | tee -a "$res"
        done
        t0=$(date +%s.%N)
        s=$(OMP_NUM_THREADS=$np timeout 300 "$out/rows.libomp" 66 40 0 2>&1 >/dev/null | sed -n 's/^rows seconds=\([0-9.]*\) .*/\1/p')
        w=$(echo "$(date +%s.%N) - $t0" | bc)
        echo "rows libomp np=$np msgs_per_iter=- iters40_s=$s run_s=$w" | tee -a "$res"
        for sp in 0 1; do
            s=$(K -n $np -e KUMI_OMP_FLUSH_SPIN=$sp "$out/pipeline.kumi" 200 4 2>&1 >/dev/null | sed -n 's/^pipeline seconds=\([0-9.]*\) .*/\1/p')
            echo "pipe kumi-spin$sp np=$np s=$s" | tee -a "$res"
        done
        s=$(OMP_NUM_THREADS=$np timeout 300 "$out/pipeline.libomp" 200 4 2>&1 >/dev/null | sed -n 's/^pipeline seconds=\([0-9.]*\) .*/\1/p')
        echo "pipe libomp np=$np s=$s" | tee -a "$res"
    done
    for sp in 0 1; do
        l=$(K -n 2 -e KUMI_OMP_FLUSH_SPIN=$sp "$out/sync.kumi" 0.1 | sed -n 's/^us per op: \(.*\) (.*/\1/p')
        echo "sync kumi-spin$sp np=2 $l" | tee -a "$res"
    done
    l=$(OMP_NUM_THREADS=2 timeout 300 "$out/sync.libomp" 0.1 | sed -n 's/^us per op: \(.*\) (.*/\1/p')
    echo "sync libomp np=2 $l" | tee -a "$res"
done
# DSM messages per operation of sync.c (2 PEs; from scales 0.01 and 0.05)
for part in 1:fork 2:fork1 4:for 8:barrier 16:pipe_row; do
    bit=${part%%:*} name=${part#*:}
    a=$(K -n 2 -e KUMI_DSM_STATS=1 "$out/sync.kumi" 0.01 $bit 2>&1 >/dev/null | sed -n 's/.*msgs_sent=\([0-9]*\) .*/\1/p' | awk '{s+=$1} END {print s+0}')
    b=$(K -n 2 -e KUMI_DSM_STATS=1 "$out/sync.kumi" 0.05 $bit 2>&1 >/dev/null | sed -n 's/.*msgs_sent=\([0-9]*\) .*/\1/p' | awk '{s+=$1} END {print s+0}')
    [ "$bit" = 16 ] && ops=1600 || ops=800
    echo "sync msgs np=2 $name $(echo "scale=2; ($b - $a) / $ops" | bc) per op" | tee -a "$res"
done
echo "# medians ($reps runs; $(uptime))"
awk '
/^rows/ { k = $1 " " $2 " " $3; for (i = 4; i <= NF; i++) { split($i, kv, "="); v[k, kv[1], ++n[k, kv[1]]] = kv[2]; f[k] = f[k] " " kv[1] } keys[k] = 1 }
/^pipe/ { k = $1 " " $2 " " $3; split($4, kv, "="); v[k, "s", ++n[k, "s"]] = kv[2]; f[k] = " s"; keys[k] = 1 }
/^sync [a-z0-9-]+ np/ && !/msgs/ { k = $1 " " $2 " " $3; for (i = 4; i + 1 <= NF; i += 2) { v[k, $i, ++n[k, $i]] = $(i + 1); if (index(f[k], " " $i " ") == 0) f[k] = f[k] " " $i " " } keys[k] = 1 }
/^sync msgs/ { print }
END {
    for (k in keys) {
        line = k; split(f[k], names, " "); delete seen
        for (j in names) { nm = names[j]; if (nm == "" || (nm in seen)) continue; seen[nm] = 1
            m = n[k, nm]; delete a; for (i = 1; i <= m; i++) a[i] = v[k, nm, i]
            for (i = 1; i <= m; i++) for (jj = i + 1; jj <= m; jj++) if (a[jj] + 0 < a[i] + 0) { t = a[i]; a[i] = a[jj]; a[jj] = t }
            line = line " " nm "=" (m ? a[int((m + 1) / 2)] : "-") }
        print line
    }
}' "$res" | sort
