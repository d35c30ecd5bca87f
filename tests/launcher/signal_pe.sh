#!/usr/bin/env bash
# A PE killed by a signal ends the job with 128+signal and names the signal;
# PEs that ignore SIGTERM are SIGKILLed after the grace period.
. "$(dirname "$0")/lib.sh" "$@"

err=$TMP/err

t0=$(now_ms)
kr_bg -n 4 sh -c 'if [ "$KUMI_RANK" = 1 ]; then sleep 0.3; kill -9 $$; fi; exec sleep 30' 2>"$err"
wait_exit $KPID 5
expect_rc $RC 137 "PE 1 SIGKILLed"
[ $(( $(now_ms) - t0 )) -lt 5000 ] || fail "job took $(( $(now_ms) - t0 )) ms to end"
expect_grep "$err" '^kumirun: PE 1 \(pid [0-9]+\) killed by signal 9 \(SIGKILL\); terminating the job$'
expect_lines "$err" 'terminating the job' 1
assert_gone $KPID 1

kr_bg -n 2 sh -c 'if [ "$KUMI_RANK" = 0 ]; then sleep 0.3; kill -SEGV $$; fi; exec sleep 30' 2>"$err"
wait_exit $KPID 5
expect_rc $RC 139 "PE 0 SIGSEGV"
expect_grep "$err" '^kumirun: PE 0 \(pid [0-9]+\) killed by signal 11 \(SIGSEGV\); terminating the job$'
assert_gone $KPID 1

# PEs 1..3 ignore SIGTERM (and so does their sleep, which inherits it)
t0=$(now_ms)
kr_bg -n 4 sh -c 'if [ "$KUMI_RANK" = 0 ]; then sleep 0.5; exit 4; fi; trap "" TERM; sleep 30; echo survived' 2>"$err"
wait_count $KPID 7 5
wait_exit $KPID 5
dt=$(( $(now_ms) - t0 ))
expect_rc $RC 4 "PE 0 exits 4, others ignore SIGTERM"
[ $dt -ge 1400 ] || fail "SIGTERM-ignoring PEs ended after $dt ms: no grace period?"
[ $dt -lt 5000 ] || fail "job took $dt ms to end"
expect_line "$err" "kumirun: 3 PEs still running; sending SIGKILL"
grep -q survived "$err" && fail "a PE outlived the job"
assert_gone $KPID 1

pass
