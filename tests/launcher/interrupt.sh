#!/usr/bin/env bash
# SIGINT/SIGTERM/SIGHUP to kumirun end the job: 128+signal, one message,
# nothing left. (Started in the background, kumirun inherits SIGINT
# ignored from the shell -- it must hear it anyway.)
. "$(dirname "$0")/lib.sh" "$@"

err=$TMP/err

# interrupt SIG STATUS
interrupt() {
    kr_bg -n 2 sh -c 'sleep 30; echo survived' 2>"$err"
    wait_count $KPID 4 5
    kill -"$1" $KPID
    wait_exit $KPID 5
    expect_rc $RC "$2" "kumirun got SIG$1"
    expect_line "$err" "kumirun: interrupted by SIG$1; terminating the job"
    expect_lines "$err" '^kumirun: PE' 0
    grep -q survived "$err" && fail "a PE outlived the job"
    assert_gone $KPID 1
}

interrupt INT 130
interrupt TERM 143
interrupt HUP 129

# a second interrupt while PEs ignore SIGTERM: SIGKILL at once, no grace
kr_bg -n 2 sh -c 'trap "" TERM; sleep 30' 2>"$err"
wait_count $KPID 4 5
t0=$(now_ms)
kill -INT $KPID
sleep 0.2
kill -INT $KPID
wait_exit $KPID 5
dt=$(( $(now_ms) - t0 ))
expect_rc $RC 130 "two SIGINTs"
[ $dt -lt 900 ] || fail "second SIGINT did not cut the grace period ($dt ms)"
assert_gone $KPID 1

# under nohup SIGHUP is ignored: the job goes on (and ends by itself)
env KLT_MARK="$MARK" nohup "$KUMIRUN" -n 2 sh -c 'sleep 1; exit 0' >/dev/null 2>"$err" &
KPID=$!
LAUNCHERS="$LAUNCHERS $KPID"
wait_count $KPID 2 5
kill -HUP $KPID
wait_exit $KPID 5
expect_rc $RC 0 "SIGHUP under nohup"
assert_gone $KPID 1

pass
