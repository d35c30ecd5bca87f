#!/usr/bin/env bash
# --timeout SEC ends a job that runs longer: exit 124, one message, nothing
# left; a job that ends in time is not affected.
. "$(dirname "$0")/lib.sh" "$@"

err=$TMP/err

t0=$(now_ms)
kr_bg -n 2 --timeout 1 sh -c 'sleep 30; echo survived' 2>"$err"
wait_exit $KPID 5
dt=$(( $(now_ms) - t0 ))
expect_rc $RC 124 "--timeout 1"
[ $dt -ge 950 ] || fail "--timeout 1 fired after $dt ms"
[ $dt -lt 3000 ] || fail "--timeout 1 took $dt ms"
expect_line "$err" "kumirun: job exceeded --timeout 1 s; terminating the job"
expect_lines "$err" '^kumirun: PE' 0
grep -q survived "$err" && fail "a PE outlived the job"
assert_gone $KPID 1

kr_bg -n 2 --timeout 5 sh -c 'sleep 0.2' 2>"$err"
wait_exit $KPID 5
expect_rc $RC 0 "job shorter than --timeout"
[ -s "$err" ] && fail "printed: $(cat "$err")"
assert_gone $KPID 1

pass
