#!/usr/bin/env bash
# The control segment contract (runtime/launch.h), with fake PEs that play
# the library's part: a PE that exits after init without finalize fails
# the job; kumirun records every failure in ctl->failed / fail_status,
# where PEs blocked in a wait see it; a PE's request to end the job
# (kumi_global_exit) is no failure.
#   ctl.sh KUMIRUN FAKE_PE
. "$(dirname "$0")/lib.sh" "$@"

FAKE=${2:?usage: $0 kumirun fake_pe}
[ -x "$FAKE" ] || fail "$FAKE is not an executable"
export FAKE
out=$TMP/out err=$TMP/err

# all PEs init and finalize: success, nothing printed
kr_bg -n 4 "$FAKE" init sleep:100 finalize >"$out" 2>"$err"
wait_exit $KPID 10
expect_rc $RC 0 "init+finalize"
[ -s "$err" ] && fail "printed: $(cat "$err")"
assert_gone $KPID 1

# PE 2 exits 0 after init, without finalize: status 1, named, the others
# see failed = 3 (1 + PE) and status 1
kr_bg -n 4 sh -c 'if [ "$KUMI_RANK" = 2 ]; then exec "$FAKE" init sleep:300 exit:0; fi
                  exec "$FAKE" ignore-term init watch:10000 finalize' >"$out" 2>"$err"
wait_exit $KPID 5
expect_rc $RC 1 "exit without finalize"
expect_grep "$err" '^kumirun: PE 2 \(pid [0-9]+\) exited without calling kumi_finalize; terminating the job$'
expect_lines "$err" 'terminating the job' 1
expect_lines "$out" '^PE [013] saw failed=3 status=1$' 3
assert_gone $KPID 1

# the same when that PE is the last one
kr_bg -n 2 sh -c 'if [ "$KUMI_RANK" = 1 ]; then exec "$FAKE" init sleep:300 exit:0; fi
                  exec "$FAKE" init finalize' >"$out" 2>"$err"
wait_exit $KPID 5
expect_rc $RC 1 "last PE exits without finalize"
expect_grep "$err" '^kumirun: PE 1 \(pid [0-9]+\) exited without calling kumi_finalize; terminating the job$'
assert_gone $KPID 1

# a PE that finalized may exit while others still run
kr_bg -n 2 sh -c 'if [ "$KUMI_RANK" = 0 ]; then exec "$FAKE" init finalize; fi
                  exec "$FAKE" init sleep:500 finalize' >"$out" 2>"$err"
wait_exit $KPID 5
expect_rc $RC 0 "early finalized exit"
[ -s "$err" ] && fail "printed: $(cat "$err")"

# exit code and signal reach the PEs as fail_status
kr_bg -n 3 sh -c 'if [ "$KUMI_RANK" = 0 ]; then exec "$FAKE" init sleep:300 exit:3; fi
                  exec "$FAKE" ignore-term init watch:10000' >"$out" 2>"$err"
wait_exit $KPID 5
expect_rc $RC 3 "exit 3 after init"
expect_lines "$out" '^PE [12] saw failed=1 status=3$' 2
kr_bg -n 2 sh -c 'if [ "$KUMI_RANK" = 1 ]; then "$FAKE" init sleep:300; kill -KILL $$; fi
                  exec "$FAKE" ignore-term init watch:10000' >"$out" 2>"$err"
wait_exit $KPID 5
expect_rc $RC 137 "SIGKILL after init"
expect_line "$out" 'PE 0 saw failed=2 status=137'

# kumirun's own reasons: failed = KUMI_CTL_FAIL_LAUNCHER (0xffffffff)
kr_bg -n 2 --timeout 1 "$FAKE" ignore-term init watch:10000 >"$out" 2>"$err"
wait_exit $KPID 5
expect_rc $RC 124 "timeout"
expect_lines "$out" '^PE [01] saw failed=4294967295 status=124$' 2
kr_bg -n 2 "$FAKE" ignore-term init watch:10000 >"$out" 2>"$err"
wait_count $KPID 2 5
sleep 0.2
kill -INT $KPID
wait_exit $KPID 5
expect_rc $RC 130 "SIGINT"
expect_lines "$out" '^PE [01] saw failed=4294967295 status=130$' 2
assert_gone $KPID 1

# a PE asks the job to end (kumi_global_exit): its status, 0 included, no
# message, the others see failed = KUMI_CTL_FAIL_EXIT | (1 + PE) at once
for st in 0 5; do
    kr_bg -n 3 sh -c 'if [ "$KUMI_RANK" = 1 ]; then exec "$FAKE" init ready:10000 exitreq:'$st' exit:'$st'; fi
                      exec "$FAKE" ignore-term init watch:10000' >"$out" 2>"$err"
    wait_exit $KPID 5
    expect_rc $RC $st "exit request $st"
    [ -s "$err" ] && fail "exit request $st printed: $(cat "$err")"
    expect_lines "$out" "^PE [02] saw failed=2147483650 status=$st\$" 2
    assert_gone $KPID 1
done

# KUMI_LOG=info: one line naming the PE and the status
KUMI_LOG=info kr_bg -n 2 sh -c 'if [ "$KUMI_RANK" = 0 ]; then exec "$FAKE" init ready:10000 exitreq:7 exit:7; fi
                                exec "$FAKE" init watch:10000' >"$out" 2>"$err"
wait_exit $KPID 5
expect_rc $RC 7 "exit request, KUMI_LOG=info"
expect_grep "$err" '^kumirun: info: PE 0 \(pid [0-9]+\) called kumi_global_exit\(7\); ending the job$'
expect_lines "$err" . 1

# a PE that asked but does not exit (slow atexit handlers): the job ends
# all the same, long before the PEs' sleep is over, with its status
kr_bg -n 2 sh -c 'if [ "$KUMI_RANK" = 0 ]; then exec "$FAKE" init ready:10000 exitreq:9 sleep:30000; fi
                  exec "$FAKE" init sleep:30000' >"$out" 2>"$err"
wait_exit $KPID 10
expect_rc $RC 9 "exit request, asker still running"
[ -s "$err" ] && fail "exit request, asker still running: printed $(cat "$err")"
assert_gone $KPID 1

# two PEs ask at once: the job ends with the one the segment holds, and
# the other PE learnt which
kr_bg -n 3 sh -c 'case $KUMI_RANK in 0) exec "$FAKE" init ready:10000 exitreq:3 exit:3;;
                  2) exec "$FAKE" init ready:10000 exitreq:4 exit:4;;
                  *) exec "$FAKE" init watch:10000;; esac' >"$out" 2>"$err"
wait_exit $KPID 5
[ "$RC" = 3 ] || [ "$RC" = 4 ] || fail "two exit requests: exit status $RC, want 3 or 4"
[ -s "$err" ] && fail "two exit requests printed: $(cat "$err")"
if grep -q 'lost the request' "$out"; then
    expect_grep "$out" "^PE [02] lost the request to PE [02] \(status $RC\)\$"
fi
expect_line "$out" "PE 1 saw failed=$((2147483648 + (RC == 3 ? 1 : 3))) status=$RC"
assert_gone $KPID 1

pass
