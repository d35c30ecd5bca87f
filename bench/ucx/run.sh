#!/usr/bin/env bash
# bench/ucx/run.sh -- kumi over UCX set against UCX itself (ucx_perftest),
# Open MPI's OSHMEM (which runs over UCX) and kumi's own tcp and shm
# transports, in one run, as one table of medians. See README.md here.
#
# Two "hosts": network namespaces joined by a veth pair (as tests/hosts
# makes them), 10.213.0.1 and 10.213.0.2, UCX_TLS=tcp,self (with --pin every
# process of the first host on CPU 0, of the second on CPU 1). One host: no
# namespaces, UCX_TLS=sm,self against kumi's shm transport.
# Needs root (ip netns). Everything it starts runs under `timeout`; the
# namespaces are deleted on exit whatever happens.
set -u

usage() {
    cat <<'EOF'
usage: bench/ucx/run.sh [-b BUILD] [-r REPS] [-i ITERS] [-t SECONDS] [-o DIR]
                        [--two-hosts-only | --one-host-only] [--no-oshmem] [--pin]
  -b BUILD   kumi build directory holding bin/kumirun, bin/kumi-bench,
             bin/kumi-bench-shmem, lib/kumi/libkumi-ucx.so
             (default: $KUMI_BUILD, else ./build)
  -r REPS    repetitions of every measurement; the table shows medians (3)
  -i ITERS   iterations of the latency loops (10000); the 1 MiB rows run
             ITERS/16 (kumi-bench's own rule for sizes above 64 KiB)
  -t SECONDS timeout of each single command (180)
  -o DIR     keep every raw output and the raw values (DIR/values.tsv)
  --no-oshmem      leave the OSHMEM column out
  --pin      two hosts: every process of the first host on CPU 0, of the
             second on CPU 1 (default: both hosts may use every CPU)
  --two-hosts-only / --one-host-only   one of the two tables only
Environment: OSHRUN (default /usr/bin/oshrun: Open MPI's, not kumi's),
UCX_PERFTEST (default ucx_perftest), KUMI_UCX_SM_TLS (default sm,self).
EOF
}

die() { echo "run.sh: $*" >&2; exit 1; }

BUILD=${KUMI_BUILD:-build}
REPS=3 ITERS=10000 TMO=180 KEEP="" OSHMEM=1 TWO=1 ONE=1 PIN=0
OSHRUN=${OSHRUN:-/usr/bin/oshrun}
PERFTEST=${UCX_PERFTEST:-ucx_perftest}
SM_TLS=${KUMI_UCX_SM_TLS:-sm,self}
while [ $# -gt 0 ]; do
    case $1 in
    -b) BUILD=${2:?-b needs a directory}; shift 2 ;;
    -r) REPS=${2:?-r needs a number}; shift 2 ;;
    -i) ITERS=${2:?-i needs a number}; shift 2 ;;
    -t) TMO=${2:?-t needs seconds}; shift 2 ;;
    -o) KEEP=${2:?-o needs a directory}; shift 2 ;;
    --no-oshmem) OSHMEM=0; shift ;;
    --pin) PIN=1; shift ;;
    --two-hosts-only) ONE=0; shift ;;
    --one-host-only) TWO=0; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
    esac
done
case $REPS$ITERS$TMO in *[!0-9]*) die "-r, -i and -t take plain numbers" ;; esac
[ "$REPS" -ge 1 ] && [ "$ITERS" -ge 16 ] || die "-r must be >= 1 and -i >= 16"
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || die "no build directory $BUILD (-b)"
KUMIRUN=$BUILD/bin/kumirun BENCH=$BUILD/bin/kumi-bench SHBENCH=$BUILD/bin/kumi-bench-shmem
for f in "$KUMIRUN" "$BENCH"; do [ -x "$f" ] || die "$f not found (-b BUILD)"; done
[ -e "$BUILD/lib/kumi/libkumi-ucx.so" ] || die "$BUILD/lib/kumi/libkumi-ucx.so not found: kumi built without UCX"
command -v "$PERFTEST" >/dev/null || die "$PERFTEST not found (Debian: ucx-utils)"
if [ "$OSHMEM" = 1 ]; then
    if [ ! -x "$SHBENCH" ] || [ ! -x "$OSHRUN" ]; then
        echo "run.sh: no $SHBENCH or $OSHRUN: no OSHMEM column" >&2
        OSHMEM=0
    fi
fi
[ "$TWO" = 0 ] || [ "$(id -u)" = 0 ] || die "the two-host table needs root (ip netns); --one-host-only runs without"
command -v python3 >/dev/null || die "python3 not found (it prints the table)"

NCPU=$(nproc)
CPU1=0-$(( NCPU - 1 )) CPU2=$CPU1
if [ "$PIN" = 1 ]; then
    [ "$NCPU" -ge 2 ] || die "--pin needs 2 CPUs"
    CPU1=0 CPU2=1
fi
BW_ITERS=$(( ITERS / 16 ))
PT_ITERS=$ITERS PT_WARM=$(( ITERS / 10 ))
PT_BW_ITERS=$BW_ITERS PT_BW_WARM=$(( BW_ITERS / 10 > 2 ? BW_ITERS / 10 : 2 ))

TMP=$(mktemp -d /tmp/kumi-ucxbench.XXXXXX) || die "mktemp failed"
VALS=$TMP/values.tsv
: >"$VALS"
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/ucx/netns.sh
. "$HERE/netns.sh"
H1=$UCXB_H1 H2=$UCXB_H2 DEV=$UCXB_DEV
SERVER_PID=

cleanup() {
    if [ -n "$CHILD_PID" ]; then kill -TERM "$CHILD_PID" 2>/dev/null; wait "$CHILD_PID" 2>/dev/null; fi
    if [ -n "$SERVER_PID" ]; then kill -9 "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; fi
    ucxb_hosts_del
    if [ -n "$KEEP" ]; then
        mkdir -p "$KEEP" && cp -r "$TMP"/. "$KEEP"/ && echo "run.sh: raw outputs in $KEEP" >&2
    fi
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

log() { echo "run.sh: $*" >&2; }
# bounded CMD...: CMD (itself under `timeout`) in the background, waited
# for, so a signal to this script is taken at once and the cleanup can
# end CMD by its pid (timeout passes the TERM on to what it runs)
CHILD_PID=
bounded() {
    local rc
    "$@" &
    CHILD_PID=$!
    wait "$CHILD_PID"
    rc=$?
    CHILD_PID=
    return $rc
}
# record SECTION IMPL ROW VALUE
record() { [ -n "$4" ] && printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$VALS"; }
# a field of a kumi-bench / kumi-bench-shmem JSON line
jfield() { sed -n "s/.*\"op\":\"$2\".*\"$3\":\([0-9.eE+-]*\).*/\1/p" "$1" | head -1; }

# ---- two hosts -------------------------------------------------------------
# (netns.sh makes them; its nsrsh and nsrsh-sh wrappers start the PEs there)

# kumi_two TRANSPORT TAG OP ARGS...: one kumi-bench job on the two hosts
kumi_two() {
    local tp=$1 tag=$2 op=$3 out
    shift 3
    out=$TMP/two.$tp.$tag.$REP
    bounded ip netns exec "$NS1" env UCX_TLS=tcp,self UCX_NET_DEVICES="$DEV" \
        timeout -k 5 "$TMO" taskset -c "$CPU1" "$KUMIRUN" --hosts "$H1:1,$H2:1" --rsh "$TMP/nsrsh" \
        --transport "$tp" --bind none --timeout "$TMO" \
        "$BENCH" "$op" "$@" --json - >"$out" 2>"$out.err" ||
        log "kumi over $tp, two hosts, $op $*: exit $? ($(tail -1 "$out.err"))"
    OUT=$out
}

# oshmem_two TAG OP ARGS...
oshmem_two() {
    local tag=$1 op=$2 out
    shift 2
    out=$TMP/two.oshmem.$tag.$REP
    bounded ip netns exec "$NS1" timeout -k 5 "$TMO" taskset -c "$CPU1" "$OSHRUN" --allow-run-as-root \
        --host "$H1,$H2" -n 2 --bind-to none --mca plm_rsh_agent "$TMP/nsrsh-sh" \
        --mca btl self,tcp -x UCX_TLS=tcp,self -x UCX_NET_DEVICES="$DEV" \
        "$SHBENCH" "$op" "$@" --json - >"$out" 2>"$out.err" ||
        log "OSHMEM, two hosts, $op $*: exit $? ($(tail -1 "$out.err"))"
    OUT=$out
}

# perftest WHERE TAG TEST ARGS...: ucx_perftest server and client; WHERE
# is two (server on the second host, client on the first) or one (both
# here, UCX_TLS=$SM_TLS). Prints the client's output file.
PORT=$(( 20000 + $$ % 20000 ))
perftest() {
    local where=$1 tag=$2 out srv_pre cli_pre srv_addr
    shift 2
    out=$TMP/$where.perftest.$tag.$REP
    if [ "$where" = two ]; then
        srv_pre="ip netns exec $NS2 env UCX_TLS=tcp,self UCX_NET_DEVICES=$DEV taskset -c $CPU2"
        cli_pre="ip netns exec $NS1 env UCX_TLS=tcp,self UCX_NET_DEVICES=$DEV taskset -c $CPU1"
        srv_addr=$H2
    else
        srv_pre="env UCX_TLS=$SM_TLS"
        cli_pre="env UCX_TLS=$SM_TLS"
        srv_addr=127.0.0.1
    fi
    PORT=$(( PORT + 1 ))
    # shellcheck disable=SC2086
    timeout -k 5 "$TMO" $srv_pre "$PERFTEST" -p "$PORT" >"$out.srv" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 100); do
        grep -q 'Waiting for connection' "$out.srv" 2>/dev/null && break
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.05
    done
    # shellcheck disable=SC2086
    bounded timeout -k 5 "$TMO" $cli_pre "$PERFTEST" "$srv_addr" -p "$PORT" "$@" -f -v >"$out" 2>"$out.err" ||
        log "ucx_perftest ($where) $*: exit $? ($(tail -1 "$out.err"))"
    bounded timeout 10 tail --pid="$SERVER_PID" -f /dev/null
    kill -9 "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
    SERVER_PID=
    OUT=$out
}
# a column of ucx_perftest's -v CSV line: overall_lat (us), overall_bw (MiB/s)
pcol() {
    awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
        c && NF > 1 { gsub(/ /, "", $c); print $c; exit }' "$1"
}
mib_to_mb() { [ -n "$1" ] && awk -v v="$1" 'BEGIN { printf "%.1f\n", v * 1.048576 }'; }

# bench_rows SECTION IMPL RUNNER ARGS...: the five rows from RUNNER
# (kumi_two TRANSPORT | kumi_one TRANSPORT | oshmem_two | oshmem_one)
bench_rows() {
    local sec=$1 impl=$2
    shift 2
    "$@" pp pingpong --iters "$ITERS"; record "$sec" "$impl" pingpong "$(jfield "$OUT" pingpong avg_us)"
    "$@" put8 put --bytes 8 --iters "$ITERS"; record "$sec" "$impl" put "$(jfield "$OUT" put avg_us)"
    "$@" get8 get --bytes 8 --iters "$ITERS"; record "$sec" "$impl" get "$(jfield "$OUT" get avg_us)"
    "$@" bar barrier --iters "$ITERS"; record "$sec" "$impl" barrier "$(jfield "$OUT" barrier avg_us)"
    "$@" bw put --bytes 1048576 --iters "$ITERS"; record "$sec" "$impl" putbw "$(jfield "$OUT" put mb_per_s)"
}
perftest_rows() {
    local where=$1
    perftest "$where" am -t ucp_am_lat -s 8 -n "$PT_ITERS" -w "$PT_WARM"
    record "$where" perftest pingpong "$(pcol "$OUT" overall_lat)"
    perftest "$where" putlat -t ucp_put_lat -s 8 -n "$PT_ITERS" -w "$PT_WARM"
    record "$where" perftest put "$(pcol "$OUT" overall_lat)"
    perftest "$where" get -t ucp_get -s 8 -n "$PT_ITERS" -w "$PT_WARM"
    record "$where" perftest get "$(pcol "$OUT" overall_lat)"
    perftest "$where" putbw -t ucp_put_bw -s 1048576 -n "$PT_BW_ITERS" -w "$PT_BW_WARM"
    record "$where" perftest putbw "$(mib_to_mb "$(pcol "$OUT" overall_bw)")"
}

# ---- one host ---------------------------------------------------------------
kumi_one() {
    local tp=$1 tag=$2 op=$3 out
    shift 3
    out=$TMP/one.$tp.$tag.$REP
    bounded env UCX_TLS="$SM_TLS" timeout -k 5 "$TMO" "$KUMIRUN" -n 2 --transport "$tp" --timeout "$TMO" \
        "$BENCH" "$op" "$@" --json - >"$out" 2>"$out.err" ||
        log "kumi over $tp, one host, $op $*: exit $? ($(tail -1 "$out.err"))"
    OUT=$out
}
oshmem_one() {
    local tag=$1 op=$2 out
    shift 2
    out=$TMP/one.oshmem.$tag.$REP
    bounded timeout -k 5 "$TMO" "$OSHRUN" --allow-run-as-root -n 2 -x UCX_TLS="$SM_TLS" \
        "$SHBENCH" "$op" "$@" --json - >"$out" 2>"$out.err" ||
        log "OSHMEM, one host, $op $*: exit $? ($(tail -1 "$out.err"))"
    OUT=$out
}

# ---- run ---------------------------------------------------------------------
if [ "$TWO" = 1 ]; then
    ucxb_hosts_make "kub-$$" || die "cannot make the two hosts"
    ucxb_rsh_write "$TMP" "$CPU1" "$CPU2" || die "cannot write $TMP/nsrsh"
    NS1=$UCXB_NS1 NS2=$UCXB_NS2
fi
START=$(date -u '+%Y-%m-%d %H:%M UTC')
for REP in $(seq "$REPS"); do
    if [ "$TWO" = 1 ]; then
        log "repetition $REP/$REPS: two hosts"
        bench_rows two kumi-ucx kumi_two ucx
        bench_rows two kumi-tcp kumi_two tcp
        perftest_rows two
        [ "$OSHMEM" = 1 ] && bench_rows two oshmem oshmem_two
    fi
    if [ "$ONE" = 1 ]; then
        log "repetition $REP/$REPS: one host"
        bench_rows one kumi-ucx kumi_one ucx
        bench_rows one kumi-shm kumi_one shm
        perftest_rows one
        [ "$OSHMEM" = 1 ] && bench_rows one oshmem oshmem_one
    fi
done

echo "# bench/ucx/run.sh: started $START, $REPS repetitions, medians; iters $ITERS (1 MiB rows: $BW_ITERS)"
echo "# latency rows in us (lower is better), putbw in MB/s = 10^6 B/s (higher is better)"
python3 - "$VALS" "$SM_TLS" <<'EOF'
import sys, statistics
vals = {}
for line in open(sys.argv[1]):
    sec, impl, row, v = line.rstrip("\n").split("\t")
    try:
        vals.setdefault((sec, impl, row), []).append(float(v))
    except ValueError:
        pass
def med(sec, impl, row):
    v = vals.get((sec, impl, row))
    return statistics.median(v) if v else None
def fmt(x):
    return "-" if x is None else ("%.0f" % x if x >= 1000 else "%.2f" % x)
def ratio(a, b):
    return "-" if a is None or b is None or b == 0 else "%.2f" % (a / b)
rows = [("pingpong", "pingpong 8 B (half RTT)"), ("put", "put 8 B + quiet"),
        ("get", "get 8 B"), ("barrier", "barrier"), ("putbw", "put 1 MiB MB/s")]
sections = [("two", "two hosts (netns + veth), UCX_TLS=tcp,self", "kumi-tcp"),
            ("one", "one host, UCX_TLS=" + sys.argv[2], "kumi-shm")]
for sec, title, own in sections:
    if not any(k[0] == sec for k in vals):
        continue
    print("\n## " + title)
    head = ["row", "kumi-ucx", own, "ucx_perftest", "OSHMEM",
            "ucx/" + own.split("-")[1], "ucx/perftest", "ucx/OSHMEM"]
    table = [head]
    for row, label in rows:
        u = med(sec, "kumi-ucx", row); o = med(sec, own, row)
        p = med(sec, "perftest", row); s = med(sec, "oshmem", row)
        n = len(vals.get((sec, "kumi-ucx", row), []))
        table.append([label, fmt(u), fmt(o), fmt(p), fmt(s),
                      ratio(u, o), ratio(u, p), ratio(u, s)])
    w = [max(len(r[i]) for r in table) for i in range(len(head))]
    for r in table:
        print("  ".join(c.ljust(w[0]) if i == 0 else c.rjust(w[i]) for i, c in enumerate(r)))
    missing = [f"{impl}/{row}" for impl in ("kumi-ucx", own, "perftest", "oshmem")
               if any(k[:2] == (sec, impl) for k in vals)
               for row, _ in rows if (sec, impl, row) not in vals
               and not (impl == "perftest" and row == "barrier")]
    if missing:
        print("# no value (failed or left out): " + ", ".join(missing))
EOF
