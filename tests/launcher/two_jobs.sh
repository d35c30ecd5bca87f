#!/usr/bin/env bash
# Two jobs at once are isolated: different job ids and segments, and one
# job's failure or interruption does not touch the other.
. "$(dirname "$0")/lib.sh" "$@"

# each PE stays until the test lets it go (or 10 s have passed), so job
# B's PEs are still there to be counted however long A's end takes
GO=$TMP/go
pe='echo "$KUMI_JOB_ID" >"$OUT.$KUMI_RANK"; i=0
    while [ ! -e "$GO" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done'
export GO

OUT=$TMP/a kr_bg -n 2 sh -c "$pe" 2>"$TMP/a.err"
A=$KPID
OUT=$TMP/b kr_bg -n 2 sh -c "$pe" 2>"$TMP/b.err"
B=$KPID
wait_count $A 2 5
wait_count $B 2 5
ctl_a=$(job_shm $A) ctl_b=$(job_shm $B)
[ -n "$ctl_a" ] && [ -n "$ctl_b" ] || fail "each running job should have its control segment ('$ctl_a', '$ctl_b')"
for f in "$TMP"/a.0 "$TMP"/a.1 "$TMP"/b.0 "$TMP"/b.1; do
    end=$(( $(now_ms) + 3000 ))
    until [ -s "$f" ]; do
        [ "$(now_ms)" -ge "$end" ] && fail "no output $f"
        sleep 0.05
    done
done
[ "$(cat "$TMP"/a.0)" = "$(cat "$TMP"/a.1)" ] || fail "job A's PEs disagree on the job id"
[ "$(cat "$TMP"/b.0)" = "$(cat "$TMP"/b.1)" ] || fail "job B's PEs disagree on the job id"
[ "$(cat "$TMP"/a.0)" != "$(cat "$TMP"/b.0)" ] || fail "two jobs share the id $(cat "$TMP"/a.0)"
[ "/dev/shm/kumi-$(cat "$TMP"/a.0)-ctl" = "/dev/shm/$ctl_a" ] || fail "job A's segment '$ctl_a' is not named after its id"

# interrupting A leaves B running to its normal end
kill -TERM $A
wait_exit $A 5
expect_rc $RC 143 "job A interrupted"
assert_gone $A 1
[ "$(job_pids $B | wc -l)" -ge 2 ] || fail "job B lost PEs when job A was interrupted"
[ -n "$(job_shm $B)" ] || fail "job B lost its segment when job A ended"
touch "$GO"
wait_exit $B 5
expect_rc $RC 0 "job B"
[ -s "$TMP/b.err" ] && fail "job B printed: $(cat "$TMP/b.err")"
assert_gone $B 1

# a failing job next to a healthy one
kr_bg -n 2 sh -c 'sleep 0.3; exit 6' 2>"$TMP/a.err"
A=$KPID
kr_bg -n 2 sh -c 'sleep 1' 2>"$TMP/b.err"
B=$KPID
wait_exit $A 5
expect_rc $RC 6 "failing job"
wait_exit $B 5
expect_rc $RC 0 "healthy job next to a failing one"
assert_gone $A 1
assert_gone $B 1

pass
