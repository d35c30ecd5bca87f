#!/usr/bin/env bash
# bench/ucx/ab.sh -- two builds of the ucx plugin side by side, interleaved
# (A, B, A, B, ...), on the two "hosts" of run.sh (network namespaces and a
# veth pair, UCX_TLS=tcp,self): kumi-bench's pingpong, put 8 B + quiet,
# get 8 B, barrier and 1 MiB put rows, one libkumi and kumi-bench, the
# plugin chosen with KUMI_PLUGIN_DIR. Prints every value and the medians.
# --lat: instead, lat.c here (every operation timed on its own: medians,
# steadier under load than kumi-bench's means) for A and B, and with
# --oshmem lat_shmem.c under Open MPI's oshrun, interleaved.
# Needs root (ip netns). See README.md here.
set -u

usage() {
    cat <<'EOF'
usage: bench/ucx/ab.sh -b BUILD -a DIR_A -B DIR_B [-r REPS] [-i ITERS] [-t SECONDS] [--rows LIST]
  -b BUILD  build holding bin/kumirun and bin/kumi-bench
  -a DIR_A / -B DIR_B   directories each holding a libkumi-ucx.so
  -r REPS   repetitions of each (A then B) pair (5)
  -i ITERS  iterations of the latency rows (5000; 1 MiB: ITERS/16)
  --rows    comma-separated subset of pingpong,put,get,barrier,putbw
  --pin     every process of the first host on CPU 0, of the second on CPU 1
            (with both hosts free to use both CPUs, runs differ by where the
            two PEs landed)
  --lat     per-operation medians from lat.c (put, get, pingpong, barrier;
            put1m: 1 MiB put + quiet; getbusy, getcomp: gets while PE 1
            computes)
  --oshmem  with --lat: a third column, lat_shmem.c under oshrun (OSHRUN,
            default /usr/bin/oshrun; built with oshcc beside it)
  --oshmem-x VAR=VALUE  with --oshmem: also pass VAR=VALUE to OSHMEM's PEs
            (oshrun -x; repeatable), e.g. UCX_TCP_TX_SEG_SIZE=64k, the
            fragments kumi's plugin asks for
  --perftest with --lat: a column of ucx_perftest (UCX_PERFTEST, default
            ucx_perftest), server on the second host, client on the first,
            interleaved with the others: its 50th percentile of ucp_am_lat
            (row pingpong), ucp_put_lat (putpp: a put ping-pong, half a
            round trip) and, for put1m, 1 MiB / the mean bandwidth of
            ucp_put_bw (it has no median of bandwidth)
  --perftest-x VAR=VALUE  with --perftest: also set VAR=VALUE for both of
            ucx_perftest's processes (repeatable), e.g.
            UCX_TCP_TX_SEG_SIZE=64k: its put1m on kumi's fragments
  --ns PREFIX  the namespaces' names begin with PREFIX (kab): PREFIX-PID-1,
            PREFIX-PID-2
EOF
}
die() { echo "ab.sh: $*" >&2; exit 1; }

BUILD="" A="" B="" REPS=5 ITERS=5000 TMO=120 ROWS=pingpong,put,get,barrier,putbw LAT=0 OSH=0 CPU1=all CPU2=all
PT=0 OSHX=() PTX=() NSP=kab
OSHRUN=${OSHRUN:-/usr/bin/oshrun} PERFTEST=${UCX_PERFTEST:-ucx_perftest}
HERE=$(cd "$(dirname "$0")" && pwd)
while [ $# -gt 0 ]; do
    case $1 in
    -b) BUILD=${2:?}; shift 2 ;;
    -a) A=${2:?}; shift 2 ;;
    -B) B=${2:?}; shift 2 ;;
    -r) REPS=${2:?}; shift 2 ;;
    -i) ITERS=${2:?}; shift 2 ;;
    -t) TMO=${2:?}; shift 2 ;;
    --rows) ROWS=${2:?}; shift 2 ;;
    --lat) LAT=1; shift ;;
    --pin) CPU1=0 CPU2=1; shift ;;
    --oshmem) OSH=1; shift ;;
    --perftest) PT=1; shift ;;
    --oshmem-x) OSHX+=(-x "${2:?}"); shift 2 ;;
    --perftest-x) PTX+=("${2:?}"); shift 2 ;;
    --ns) NSP=${2:?}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
    esac
done
case $REPS$ITERS$TMO in *[!0-9]*|"") die "-r, -i and -t take plain numbers" ;; esac
[ -n "$BUILD" ] && [ -n "$A" ] && [ -n "$B" ] || { usage >&2; exit 2; }
BUILD=$(cd "$BUILD" && pwd) || die "no build $BUILD"
A=$(cd "$A" && pwd) && B=$(cd "$B" && pwd) || die "no plugin directory"
for d in "$A" "$B"; do [ -e "$d/libkumi-ucx.so" ] || die "no $d/libkumi-ucx.so"; done
[ "$(id -u)" = 0 ] || die "needs root (ip netns)"

# shellcheck source=bench/ucx/netns.sh
. "$HERE/netns.sh"
TMP=$(mktemp -d /tmp/kumi-ucxab.XXXXXX) || die "mktemp"
CHILD= SERVER=
cleanup() {
    [ -n "$CHILD" ] && kill -TERM "$CHILD" 2>/dev/null && wait "$CHILD" 2>/dev/null
    [ -n "$SERVER" ] && kill -9 "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null
    ucxb_hosts_del
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

ucxb_hosts_make "$NSP-$$" || die "cannot make the two hosts"
ucxb_rsh_write "$TMP" "$CPU1" "$CPU2" || die "cannot write the rsh wrappers"
H1=$UCXB_H1 H2=$UCXB_H2 DEV=$UCXB_DEV NS1=$UCXB_NS1 NS2=$UCXB_NS2
# --pin: the launchers run on the first host's CPU too (as in run.sh). The
# first host's PE is their own child, not started through nsrsh: without
# this it was not pinned at all, and whenever the scheduler moved it onto
# the second host's CPU every message waited for the two PEs to take turns
# there (README: Numbers, "the 20-40x slow runs")
PIN1=()
[ "$CPU1" != all ] && PIN1=(taskset -c "$CPU1")

# one WHICH ROW: one kumi-bench job, prints the value
one() {
    local dir=$1 row=$2 op args field=avg_us out=$TMP/out
    case $row in
    pingpong) op=pingpong args="--iters $ITERS" ;;
    put) op=put args="--bytes 8 --iters $ITERS" ;;
    get) op=get args="--bytes 8 --iters $ITERS" ;;
    barrier) op=barrier args="--iters $ITERS" ;;
    putbw) op=put args="--bytes 1048576 --iters $ITERS" field=mb_per_s ;;
    *) die "unknown row $row" ;;
    esac
    # shellcheck disable=SC2086
    ip netns exec "$NS1" env UCX_TLS=tcp,self UCX_NET_DEVICES="$DEV" KUMI_PLUGIN_DIR="$dir" \
        timeout -k 5 "$TMO" "${PIN1[@]}" "$BUILD/bin/kumirun" --hosts "$H1:1,$H2:1" --rsh "$TMP/nsrsh" \
        --transport ucx --bind none --timeout "$TMO" "$BUILD/bin/kumi-bench" $op $args \
        --json - >"$out" 2>"$out.err" &
    CHILD=$!
    wait "$CHILD" || echo "ab.sh: $dir $row failed: $(tail -1 "$out.err")" >&2
    CHILD=
    sed -n "s/.*\"op\":\"$op\".*\"$field\":\([0-9.eE+-]*\).*/\1/p" "$out" | head -1
}

# lat WHICH: lat.c with plugin dir WHICH, or lat_shmem.c (WHICH = oshmem):
# prints "row median p10 p90" lines
lat() {
    local out=$TMP/lat.out
    if [ "$1" = oshmem ]; then
        ip netns exec "$NS1" timeout -k 5 "$TMO" "${PIN1[@]}" "$OSHRUN" --allow-run-as-root --host "$H1,$H2" -n 2 \
            --bind-to none --mca plm_rsh_agent "$TMP/nsrsh-sh" --mca btl self,tcp \
            -x UCX_TLS=tcp,self -x UCX_NET_DEVICES="$DEV" "${OSHX[@]}" "$TMP/lat_shmem" "$ITERS" >"$out" 2>"$out.err" &
    else
        ip netns exec "$NS1" env UCX_TLS=tcp,self UCX_NET_DEVICES="$DEV" KUMI_PLUGIN_DIR="$1" \
            timeout -k 5 "$TMO" "${PIN1[@]}" "$BUILD/bin/kumirun" --hosts "$H1:1,$H2:1" --rsh "$TMP/nsrsh" \
            --transport ucx --bind none --timeout "$TMO" "$TMP/lat" "$ITERS" >"$out" 2>"$out.err" &
    fi
    CHILD=$!
    # OSHMEM 4.1 sometimes dies of SIGSEGV in shmem_finalize, after its rows
    wait "$CHILD" || echo "ab.sh: lat $1 exited $?: $(grep -m1 -i 'signal\|error' "$out" "$out.err")" >&2
    CHILD=
    grep -E '^(put|get|pingpong|putpp|barrier|put1m|getbusy|getcomp) [0-9.]+ ' "$out"
}
# pt TEST SIZE FIELD: one ucx_perftest run (server on the second host,
# client on the first, pinned as the others); prints FIELD of its -v CSV
PORT=$(( 20000 + $$ % 20000 ))
pt() {
    local out=$TMP/pt.out n=$ITERS
    [ "$2" -gt 8 ] && n=$(( ITERS / 20 > 10 ? ITERS / 20 : 10 ))
    PORT=$(( PORT + 1 ))
    ip netns exec "$NS2" env UCX_TLS=tcp,self UCX_NET_DEVICES="$DEV" "${PTX[@]}" timeout -k 5 "$TMO" \
        taskset -c "$CPU2" "$PERFTEST" -p "$PORT" >"$out.srv" 2>&1 &
    SERVER=$!
    for _ in $(seq 100); do
        grep -q 'Waiting for connection' "$out.srv" 2>/dev/null && break
        kill -0 "$SERVER" 2>/dev/null || break
        sleep 0.05
    done
    ip netns exec "$NS1" env UCX_TLS=tcp,self UCX_NET_DEVICES="$DEV" "${PTX[@]}" timeout -k 5 "$TMO" \
        taskset -c "$CPU1" "$PERFTEST" "$H2" -p "$PORT" -t "$1" -s "$2" -n "$n" -w $(( n / 10 )) \
        -f -v >"$out" 2>"$out.err" || echo "ab.sh: ucx_perftest $1 exited $?: $(tail -1 "$out.err")" >&2
    timeout 10 tail --pid="$SERVER" -f /dev/null
    kill -9 "$SERVER" 2>/dev/null
    wait "$SERVER" 2>/dev/null
    SERVER=
    awk -F, -v name="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
        c && NF > 1 { gsub(/ /, "", $c); print $c; exit }' "$out"
}
# perftest's rows, as lat() prints them
ptrows() {
    local v
    v=$(pt ucp_am_lat 8 50.0_percentile_lat) && [ -n "$v" ] && echo "pingpong $v"
    v=$(pt ucp_put_lat 8 50.0_percentile_lat) && [ -n "$v" ] && echo "putpp $v"
    v=$(pt ucp_put_bw 1048576 overall_bw) && [ -n "$v" ] && awk -v b="$v" 'BEGIN { if (b > 0) printf "put1m %.2f\n", 1e6 / b }'
}
if [ "$LAT" = 1 ]; then
    ${CC:-cc} -O2 -std=c11 -I"$HERE/../../include" "$HERE/lat.c" -o "$TMP/lat" -L"$BUILD/lib" \
        -lkumi -Wl,-rpath,"$BUILD/lib" || die "cannot build lat.c"
    cols="A B"
    if [ "$OSH" = 1 ]; then
        "$(dirname "$OSHRUN")/oshcc" -O2 "$HERE/lat_shmem.c" -o "$TMP/lat_shmem" || die "cannot build lat_shmem.c"
        cols="A B oshmem"
    fi
    [ "$PT" = 1 ] && cols="$cols perftest"
    echo "# ab.sh --lat $(date -u '+%Y-%m-%d %H:%M UTC'), load: $(cut -d' ' -f1-3 /proc/loadavg); A=$A B=$B; $ITERS ops each, per-op median (us) per run${OSHX[*]:+; oshmem: ${OSHX[*]}}${PTX[*]:+; perftest: ${PTX[*]}}"
    for _ in $(seq "$REPS"); do
        lat "$A" | sed 's/^/A /' >>"$TMP/lat.all"
        lat "$B" | sed 's/^/B /' >>"$TMP/lat.all"
        [ "$OSH" = 1 ] && lat oshmem | sed 's/^/oshmem /' >>"$TMP/lat.all"
        [ "$PT" = 1 ] && ptrows | sed 's/^/perftest /' >>"$TMP/lat.all"
    done
    python3 - "$TMP/lat.all" $cols <<'EOF'
import sys, statistics
v = {}
for line in open(sys.argv[1]):
    c, row, med = line.split()[:3]
    v.setdefault((row, c), []).append(float(med))
cols = sys.argv[2:]
print("row       " + "  ".join("%9s" % c for c in cols) + "    B/A" + ("  B/oshmem" if "oshmem" in cols else "") + ("  B/perftest" if "perftest" in cols else "") + "  runs")
for row in ("put", "get", "pingpong", "putpp", "barrier", "put1m", "getbusy", "getcomp"):
    m = {c: statistics.median(v[(row, c)]) if (row, c) in v else float("nan") for c in cols}
    r = "  %5.2f" % (m["B"] / m["A"])
    if "oshmem" in cols:
        r += "  %9.2f" % (m["B"] / m["oshmem"])
    if "perftest" in cols:
        r += "  %11.2f" % (m["B"] / m["perftest"])
    runs = "; ".join(c + ": " + " ".join("%.2f" % x for x in v.get((row, c), [])) for c in cols)
    print("%-9s " % row + "  ".join("%9.2f" % m[c] for c in cols) + r + "  " + runs)
EOF
    echo "# load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
    exit 0
fi
echo "# ab.sh $(date -u '+%Y-%m-%d %H:%M UTC'), load: $(cut -d' ' -f1-3 /proc/loadavg); A=$A B=$B"
for row in ${ROWS//,/ }; do
    va="" vb=""
    for _ in $(seq "$REPS"); do
        va="$va $(one "$A" "$row")"
        vb="$vb $(one "$B" "$row")"
    done
    python3 - "$row" "$va" "$vb" <<'EOF'
import sys, statistics
row, a, b = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
ma = statistics.median(a) if a else float("nan"); mb = statistics.median(b) if b else float("nan")
print(f"{row:9s} A {ma:9.2f}  B {mb:9.2f}  B/A {mb / ma if ma else float('nan'):5.2f}   A: {' '.join('%.2f' % x for x in a)}   B: {' '.join('%.2f' % x for x in b)}")
EOF
done
echo "# load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
