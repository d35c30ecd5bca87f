# lib.sh -- shared by the launcher tests; sourced, never run.
#
# Usage in a test:  . "$(dirname "$0")/lib.sh" "$@"     ($1 = path to kumirun)
#
# Every kumirun a test starts (kr, kr_bg) carries KLT_MARK=<unique marker> in
# its environment, and so do its PEs and their children. That finds every
# process a test left behind -- by reading /proc/*/environ, which a program
# cannot hide by renaming itself -- and lets the EXIT trap kill them. The
# processes of one job are found by KUMI_LAUNCHER_PID=<kumirun's pid>, which
# kumirun sets for its PEs; zombies have an empty environ, so they do not
# count as left behind.

set -u

KUMIRUN=${1:?usage: $0 path/to/kumirun}
[ -x "$KUMIRUN" ] || { echo "FAIL: $KUMIRUN is not an executable" >&2; exit 1; }
TEST=$(basename "$0" .sh)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/kumi-launcher-$TEST.XXXXXX")
MARK="kumi-launcher-test-$$-$RANDOM$RANDOM"
LAUNCHERS=""

klt_cleanup() {
    local left
    left=$(pids_with "KLT_MARK=$MARK")
    [ -n "$left" ] && kill -9 $left 2>/dev/null
    for kp in $LAUNCHERS; do
        rm -f /dev/shm/kumi-"$kp"-* 2>/dev/null
    done
    rm -rf "$TMP"
}
trap klt_cleanup EXIT

fail() {
    echo "FAIL [$TEST]: $*" >&2
    exit 1
}

pass() {
    echo "PASS [$TEST]"
    exit 0
}

now_ms() {
    echo $(( $(date +%s%N) / 1000000 ))
}

# pids whose environment holds exactly the entry $1 (NAME=value)
pids_with() {
    grep -lzxF -- "$1" /proc/[0-9]*/environ 2>/dev/null | sed -n 's|^/proc/\([0-9]*\)/environ$|\1|p'
}

# pids of the job kumirun $1 started (PEs and their children)
job_pids() {
    pids_with "KUMI_LAUNCHER_PID=$1"
}

# /dev/shm entries of the job of kumirun $1
job_shm() {
    ls /dev/shm 2>/dev/null | grep -E "^kumi-$1-" || true
}

# kumirun in the foreground, bounded: a hung kumirun is SIGKILLed (and its
# PEs with it, by PDEATHSIG) and the test fails on the 137.
kr() {
    env KLT_MARK="$MARK" timeout -s KILL 30 "$KUMIRUN" "$@"
}

# kumirun in the background; its pid is in $KPID (env execs it: same pid).
# It keeps the caller's stdin (bash would give a background job /dev/null).
kr_bg() {
    env KLT_MARK="$MARK" "$KUMIRUN" "$@" 0<&0 &
    KPID=$!
    LAUNCHERS="$LAUNCHERS $KPID"
}

# wait_exit PID SECONDS: waits for background kumirun PID, at most SECONDS;
# the exit status is in $RC. Fails the test if it is still running then.
wait_exit() {
    local pid=$1 end=$(( $(now_ms) + $2 * 1000 ))
    while kill -0 "$pid" 2>/dev/null && ! [ -n "$(ps -o stat= -p "$pid" | grep Z)" ]; do
        if [ "$(now_ms)" -ge "$end" ]; then
            kill -9 "$pid" 2>/dev/null
            wait "$pid" 2>/dev/null
            fail "kumirun (pid $pid) still running after $2 s"
        fi
        sleep 0.05
    done
    wait "$pid"
    RC=$?
}

# wait_count PID N SECONDS: waits until job PID has at least N processes
wait_count() {
    local end=$(( $(now_ms) + $3 * 1000 )) n
    while :; do
        n=$(job_pids "$1" | wc -l)
        [ "$n" -ge "$2" ] && return 0
        [ "$(now_ms)" -ge "$end" ] && fail "job of kumirun $1: $n processes after $3 s, want $2"
        sleep 0.05
    done
}

# assert_gone PID SECONDS: nothing of job PID runs after SECONDS at most,
# and none of its segments is left in /dev/shm
assert_gone() {
    local end=$(( $(now_ms) + $2 * 1000 )) left
    while :; do
        left=$(job_pids "$1")
        [ -z "$left" ] && break
        if [ "$(now_ms)" -ge "$end" ]; then
            ps -o pid,ppid,pgid,stat,args -p "$(echo $left | tr ' ' ,)" >&2
            fail "processes of kumirun $1 left after $2 s: $left"
        fi
        sleep 0.05
    done
    left=$(job_shm "$1")
    [ -z "$left" ] || fail "segments of kumirun $1 left in /dev/shm: $left"
}

# expect_rc GOT WANT WHAT
expect_rc() {
    [ "$1" = "$2" ] || fail "$3: exit status $1, want $2"
}

# expect_line FILE EXACT-LINE: FILE holds the line exactly once
expect_line() {
    local n
    n=$(grep -cxF -- "$2" "$1")
    [ "$n" = 1 ] || { cat "$1" >&2; fail "want exactly one line '$2' in $(basename "$1"), found $n"; }
}

# expect_grep FILE ERE: some line of FILE matches
expect_grep() {
    grep -qE -- "$2" "$1" || { cat "$1" >&2; fail "no line matching '$2' in $(basename "$1")"; }
}

# expect_lines FILE ERE N: exactly N lines of FILE match
expect_lines() {
    local n
    n=$(grep -cE -- "$2" "$1")
    [ "$n" = "$3" ] || { cat "$1" >&2; fail "want $3 lines matching '$2' in $(basename "$1"), found $n"; }
}
