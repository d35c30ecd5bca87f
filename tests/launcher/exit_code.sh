#!/usr/bin/env bash
# A PE that exits non-zero ends the job: one message naming it, its code as
# kumirun's, every process of the job (PEs' children too) gone within 5 s,
# no segment left.
. "$(dirname "$0")/lib.sh" "$@"

err=$TMP/err

# PE 2 fails while the others run; their `sleep` is a child of sh, so only
# the process-group kill reaches it
t0=$(now_ms)
kr_bg -n 4 sh -c 'if [ "$KUMI_RANK" = 2 ]; then sleep 0.3; exit 3; fi; sleep 30; echo survived' 2>"$err"
wait_count $KPID 7 5   # 4 sh + 3 sleep
wait_exit $KPID 5
expect_rc $RC 3 "PE 2 exits 3"
[ $(( $(now_ms) - t0 )) -lt 5000 ] || fail "job took $(( $(now_ms) - t0 )) ms to end"
pe2=$(sed -n 's/^kumirun: PE 2 (pid \([0-9]*\)) exited with code 3; terminating the job$/\1/p' "$err")
[ -n "$pe2" ] || { cat "$err" >&2; fail "no 'PE 2 (pid N) exited with code 3' message"; }
expect_lines "$err" '^kumirun: PE [0-9]+ .*terminating the job$' 1
grep -q survived "$err" && fail "a PE outlived the job"
assert_gone $KPID 1

# the failing PE is the last one: still the job's failure
kr_bg -n 3 sh -c 'if [ "$KUMI_RANK" = 1 ]; then sleep 0.5; exit 5; fi; exit 0' 2>"$err"
wait_exit $KPID 5
expect_rc $RC 5 "last PE exits 5"
expect_grep "$err" '^kumirun: PE 1 \(pid [0-9]+\) exited with code 5; terminating the job$'
assert_gone $KPID 1

# only the first failure counts: PE 0 fails first, PE 1 fails later on its own
kr_bg -n 3 sh -c 'case $KUMI_RANK in 0) exit 7;; 1) trap "sleep 0.2; exit 9" TERM; sleep 30 & wait;; *) sleep 30;; esac' 2>"$err"
wait_exit $KPID 5
expect_rc $RC 7 "first failure decides"
expect_lines "$err" 'terminating the job' 1
expect_grep "$err" '^kumirun: PE 0 \(pid [0-9]+\) exited with code 7; terminating the job$'
assert_gone $KPID 2

# all succeed: 0, silent
kr_bg -n 4 sh -c 'exit 0' 2>"$err"
wait_exit $KPID 5
expect_rc $RC 0 "all exit 0"
[ -s "$err" ] && fail "successful job printed: $(cat "$err")"
assert_gone $KPID 1

pass
