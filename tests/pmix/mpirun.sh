#!/usr/bin/env bash
# mpirun.sh -- kumi programs started by Open MPI's mpirun (a PMIx launcher),
# no kumirun anywhere (tests/pmix/pmix.cmake, label pmix).
#
#   mpirun.sh run    NPES TRANSPORT PROGRAM ARGS...   the job succeeds
#   mpirun.sh fail   NPES TRANSPORT PE_FAIL           one PE dies in each of
#                    the ways tests/fail/pe_fail.c knows: the job ends with
#                    the status the rules give (see below), in bounded time
#   mpirun.sh exit   NPES TRANSPORT PE_GLOBAL_EXIT    kumi_global_exit: mpirun
#                    exits with the status asked for, 0 included
#   mpirun.sh orphan NPES TRANSPORT PE_LOOP           mpirun SIGKILLed: the PEs,
#                    which nobody will kill now, exit by themselves
#
# Every case: nothing of the job left in /dev/shm (its shm objects are
# /kumi-<mpirun's pid>-*: runtime/boot_pmix.c), no process of it left.
# Skips (77) when Open MPI's mpirun is not installed: the suite never
# depends on Open MPI to pass.
set -u
MODE=${1:?usage: $0 run|fail|exit|orphan NPES TRANSPORT PROGRAM [ARGS...]}
N=${2:?} TP=${3:?}
shift 3
MPIRUN=${KUMI_TEST_MPIRUN:-mpirun}
if ! command -v "$MPIRUN" >/dev/null 2>&1; then
    echo "skipped: '$MPIRUN' (Open MPI's mpirun, a PMIx launcher) is not installed"
    exit 77
fi
if ! "$MPIRUN" --version 2>&1 | grep -q "Open MPI"; then
    echo "skipped: '$MPIRUN' is not Open MPI's mpirun"
    exit 77
fi

# sanitizer builds: libpmix's own leaks are not the PEs' (lsan.supp)
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$(cd "$(dirname "$0")/../pmix" && pwd)/lsan.supp"
# and the segv case must die by SIGSEGV, not by ASan's report (exit 1)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/kumi-pmix.XXXXXX")
MARK="kumi-pmix-test-$$-$RANDOM$RANDOM"
fails=0

pids_with() {
    grep -lzxF -- "$1" /proc/[0-9]*/environ 2>/dev/null | sed -n 's|^/proc/\([0-9]*\)/environ$|\1|p'
}
cleanup() {
    local left
    left=$(pids_with "KPT_MARK=$MARK")
    [ -n "$left" ] && kill -9 $left 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# mr_bg OUT ARGS...: mpirun in the background, its pid in $MPID; every
# process of the job carries KPT_MARK
mr_bg() {
    local out=$1
    shift
    env KPT_MARK="$MARK" KUMI_TRANSPORT="$TP" "$MPIRUN" --oversubscribe --allow-run-as-root \
        --bind-to none -np "$N" "$@" >"$out" 2>&1 &
    MPID=$!
}

# mr_wait SECONDS: waits for $MPID; status in $RC, elapsed ms in $MS; a
# job still running then is killed and fails the case
mr_wait() {
    local start=$1 end=$(( $(now_ms) + $2 * 1000 ))
    while kill -0 "$MPID" 2>/dev/null; do
        if [ "$(now_ms)" -ge "$end" ]; then
            kill -9 "$MPID" 2>/dev/null
            wait "$MPID" 2>/dev/null
            RC=timeout
            MS=$(( $(now_ms) - start ))
            return
        fi
        sleep 0.05
    done
    wait "$MPID"
    RC=$?
    MS=$(( $(now_ms) - start ))
}

# leftovers NAME: processes of the job, and its shm objects
leftovers() {
    local bad="" left end=$(( $(now_ms) + 2000 ))
    while left=$(pids_with "KPT_MARK=$MARK") && [ -n "$left" ] && [ "$(now_ms)" -lt "$end" ]; do
        sleep 0.1
    done
    [ -n "$left" ] && { bad="$bad processes-left:$(echo $left)"; kill -9 $left 2>/dev/null; }
    local shm
    shm=$(ls /dev/shm 2>/dev/null | grep -E "^kumi-$MPID-" | tr '\n' ' ')
    [ -n "$shm" ] && { bad="$bad shm-left:$shm"; rm -f /dev/shm/kumi-"$MPID"-*; }
    echo "$bad"
}

# verdict NAME OUT BAD
verdict() {
    if [ -n "$3" ]; then
        echo "FAIL $1 (n=$N, $TP):$3"
        sed 's/^/    | /' "$2"
        fails=$((fails + 1))
    else
        echo "ok   $1 (n=$N, $TP, ${MS} ms, status $RC)"
    fi
}

# one_of STATUS ALLOWED...
one_of() {
    local s=$1
    shift
    for a in "$@"; do [ "$s" = "$a" ] && return 0; done
    return 1
}

case $MODE in
run)
    out=$TMP/out start=$(now_ms)
    mr_bg "$out" "$@"
    mr_wait "$start" 120
    bad=""
    [ "$RC" = 0 ] || bad=" status=$RC"
    bad="$bad$(leftovers)"
    verdict "run $(basename "$1")" "$out" "$bad"
    [ "$fails" = 0 ] && sed -n '1,5p' "$out"
    ;;
fail)
    prog=$1 v=$((N - 1))
    # case MODE VICTIM STATUS...: the statuses mpirun may exit with. On
    # shm the dead PE's is the only one (the others wait, mpirun ends
    # them by signal). Over tcp a survivor sees the connection go at once
    # and a kick to the dead PE fails at once; pe_fail then exits 1, and
    # mpirun names whichever abnormal exit it handles first (kumirun waits
    # 0.2 s to name the cause): the dead PE's status or 1.
    for c in "ok 0 0" "kill $v 137" "exit3 $v 3" "segv 0 139" "nofinalize $v 1"; do
        set -- $c
        m=$1 victim=$2 want=$3
        allowed="$want"
        [ "$TP" = tcp ] && [ "$want" != 0 ] && allowed="$want 1"
        out=$TMP/out.$m start=$(now_ms)
        mr_bg "$out" "$prog" "$m" "$victim" "$MARK"
        mr_wait "$start" 30
        bad=""
        one_of "$RC" $allowed || bad=" status=$RC(want $allowed)"
        [ "$RC" != timeout ] && [ "$MS" -ge 10000 ] && bad="$bad took=${MS}ms"
        # (over tcp a status of 1 may be a survivor's, named instead)
        if [ "$m" != ok ] && [ "$RC" = "$want" ] && ! { [ "$TP" = tcp ] && [ "$RC" = 1 ]; }; then
            # mpirun's own words for the dead PE
            case $m in
            kill) grep -q "rank $victim .* exited on signal 9" "$out" || bad="$bad no-report" ;;
            segv) grep -q "rank $victim .* exited on signal 11" "$out" || bad="$bad no-report" ;;
            exit3) grep -q "Exit code: *3" "$out" || bad="$bad no-report" ;;
            nofinalize) grep -qi "exiting improperly" "$out" || bad="$bad no-report" ;;
            esac
        fi
        bad="$bad$(leftovers)"
        verdict "$m" "$out" "$bad"
    done
    ;;
exit)
    prog=$1
    # WHO STATUS HOW ALLOWED...: PE 0 asks for STATUS, the last PE (both)
    # for STATUS+1; under PMIx nothing makes concurrent requests agree:
    # mpirun exits with whichever abort it handles first
    for c in "first 3 barrier 3" "last 0 wait 0" "first 255 compute 255" "both 7 barrier 7 8"; do
        set -- $c
        who=$1 st=$2 how=$3
        shift 3
        out=$TMP/out.$who.$st start=$(now_ms)
        mr_bg "$out" "$prog" exit "$who" "$st" "$how"
        mr_wait "$start" 30
        bad=""
        one_of "$RC" "$@" || bad=" status=$RC(want $*)"
        [ "$RC" != timeout ] && [ "$MS" -ge 10000 ] && bad="$bad took=${MS}ms"
        # exit() ran in the asking PE: its buffered line went out
        grep -q "buffered line" "$out" || bad="$bad no-buffered-line"
        grep -q "^FAIL" "$out" && bad="$bad FAIL-line"
        bad="$bad$(leftovers)"
        verdict "exit $who $st $how" "$out" "$bad"
    done
    ;;
orphan)
    prog=$1 out=$TMP/out start=$(now_ms)
    mr_bg "$out" "$prog" 60
    end=$(( $(now_ms) + 30000 ))
    until grep -q '^pe_loop: running$' "$out"; do
        kill -0 "$MPID" 2>/dev/null || { cat "$out"; echo "FAIL orphan: job ended before running"; exit 1; }
        [ "$(now_ms)" -ge "$end" ] && { cat "$out"; echo "FAIL orphan: not running after 30 s"; exit 1; }
        sleep 0.05
    done
    kill -9 "$MPID"
    wait "$MPID" 2>/dev/null
    RC=killed
    t0=$(now_ms)
    # PMIx says the launcher is gone; each PE exits 3 s later at most
    end=$(( t0 + 8000 ))
    while left=$(pids_with "KPT_MARK=$MARK") && [ -n "$left" ] && [ "$(now_ms)" -lt "$end" ]; do
        sleep 0.1
    done
    MS=$(( $(now_ms) - t0 ))
    bad=""
    [ -n "$left" ] && bad=" PEs-alive-after-8s:$(echo $left)"
    bad="$bad$(leftovers)"
    verdict "orphan" "$out" "$bad"
    ;;
*)
    echo "usage: $0 run|fail|exit|orphan NPES TRANSPORT PROGRAM [ARGS...]" >&2
    exit 2
    ;;
esac
[ "$fails" = 0 ] || exit 1
exit 0
