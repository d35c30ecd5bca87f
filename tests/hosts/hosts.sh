#!/usr/bin/env bash
# Two hosts on one machine (network namespaces, netns.sh): kumirun runs in
# the first, --hosts 10.213.0.1:2,10.213.0.2:2 --rsh nsrsh.
#   hosts.sh KUMIRUN run    PROGRAM ARGS...  the job succeeds
#   hosts.sh KUMIRUN kill   PE_LOOP          PE 3 (second host) kill -9'd
#   hosts.sh KUMIRUN vanish PE_LOOP          the second host's link deleted
#   hosts.sh KUMIRUN exit   PE_GLOBAL_EXIT   PE 3 (second host) calls
#                                            kumi_global_exit(3) while the
#                                            others compute or wait
# Faults: kumirun ends the job within 5 s, names the PE and its host,
# exits non-zero; no process of the job and nothing in /dev/shm remains.
. "$(dirname "$0")/../launcher/lib.sh" "$1"
CASE=${2:?usage: $0 kumirun run|kill|vanish PROGRAM [ARGS...]}
shift 2
TEST="hosts-$CASE"
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/netns.sh"

out=$TMP/out err=$TMP/err
HOSTS="--hosts $HOST1:2,$HOST2:2 --rsh nsrsh"

# kumirun in the first namespace, in the background: $KPID
kr_ns_bg() {
    ip netns exec "$NS1" env KLT_MARK="$MARK" PATH="$HERE:$PATH" "$KUMIRUN" "$@" &
    KPID=$!
    LAUNCHERS="$LAUNCHERS $KPID"
}

wait_running() {
    local end=$(( $(now_ms) + 30000 ))
    until grep -q '^pe_loop: running$' "$out"; do
        kill -0 "$KPID" 2>/dev/null || { cat "$err" >&2; fail "job ended before running"; }
        [ "$(now_ms)" -ge "$end" ] && { cat "$err" >&2; fail "job not running after 30 s"; }
        sleep 0.05
    done
}

# the pid of PE $1 of job $KPID
pe_pid() {
    local p
    for p in $(job_pids "$KPID"); do
        grep -qzxF "KUMI_RANK=$1" /proc/$p/environ 2>/dev/null && { echo "$p"; return; }
    done
}

case $CASE in
run)
    kr_ns_bg $HOSTS --timeout 100 "$@" >"$out" 2>"$err"
    wait_exit $KPID 110
    [ "$RC" = 0 ] || { cat "$out" "$err" >&2; fail "job exited with $RC"; }
    assert_gone $KPID 2
    cat "$out"
    ;;
kill)
    kr_ns_bg $HOSTS --timeout 100 "$1" 60 >"$out" 2>"$err"
    wait_running
    victim=$(pe_pid 3)
    [ -n "$victim" ] || fail "no PE 3 found"
    # it really is on the second host
    [ "$(ip netns identify "$victim")" = "$NS2" ] || fail "PE 3 (pid $victim) not in $NS2"
    t0=$(now_ms)
    kill -9 "$victim"
    wait_exit $KPID 6
    ms=$(( $(now_ms) - t0 ))
    [ "$RC" = 137 ] || { cat "$out" "$err" >&2; fail "PE 3 killed: exit status $RC, want 137"; }
    expect_line "$err" "kumirun: PE 3 (pid $victim on $HOST2) killed by signal 9 (SIGKILL); terminating the job"
    expect_lines "$err" 'terminating the job' 1
    [ "$ms" -lt 5000 ] || { cat "$err" >&2; fail "the job took $ms ms to end"; }
    assert_gone $KPID 1
    echo "ended in $ms ms"
    ;;
vanish)
    # the shortest heartbeat silence allowed but 2 s, so the job must end
    # within 5 s of the link's deletion
    KUMI_HEARTBEAT_TIMEOUT=3 kr_ns_bg $HOSTS --timeout 100 "$1" 60 >"$out" 2>"$err"
    wait_running
    # no FIN, no RST: the second host simply stops answering
    t0=$(now_ms)
    ip -n "$NS1" link del "$VETH1" || fail "cannot delete $VETH1"
    # deleting a veth can itself take seconds on a busy machine (the kernel
    # waits for the network to quiesce): the job's clock starts when it is
    # surely gone, and the deletion's time is reported
    t1=$(now_ms)
    wait_exit $KPID 6
    ms=$(( $(now_ms) - t1 ))
    [ "$RC" != 0 ] || fail "the job exited 0"
    expect_grep "$err" "^kumirun: PE [23] \(pid [0-9]+ on $HOST2\) (lost: nothing heard from it for [0-9.]+ s|exited with code [0-9]+)"
    expect_lines "$err" 'terminating the job' 1
    [ "$ms" -lt 5000 ] || { cat "$err" >&2; fail "the job took $ms ms to end after the link was deleted ($((t1 - t0)) ms to delete it)"; }
    assert_gone $KPID 1
    echo "ended in $ms ms after the link was deleted (deleting it took $((t1 - t0)) ms), status $RC"
    ;;
exit)
    # a PE with no control segment ends the job over the rendezvous: the
    # job exits with its status within 2 s of the call, quietly; the PEs
    # blocked in a wait, on either host, get KUMI_ERR_PEER. Two hosts on
    # one machine's cores: block, not spin; and no barrier timing at start.
    for how in compute wait; do
        KUMI_WAIT=block KUMI_BARRIER=tree kr_ns_bg $HOSTS --timeout 100 "$1" exit last 3 $how \
            >"$out" 2>"$err"
        wait_exit $KPID 30
        t_end=$(date +%s%3N)
        [ "$RC" = 3 ] || { cat "$out" "$err" >&2; fail "$how: exit status $RC, want 3"; }
        t_ask=$(sed -n 's/^PE 3 asks at \([0-9]*\)$/\1/p' "$out")
        [ -n "$t_ask" ] || { cat "$out" "$err" >&2; fail "$how: PE 3 did not ask"; }
        ms=$(( t_end - t_ask ))
        [ "$ms" -lt 2000 ] || { cat "$out" "$err" >&2; fail "$how: the job ended $ms ms after the call"; }
        [ -s "$err" ] && { cat "$err" >&2; fail "$how: printed on stderr"; }
        expect_line "$out" "PE 3: buffered line"
        grep -q '^FAIL' "$out" && { cat "$out" >&2; fail "$how: a PE failed"; }
        [ "$how" = wait ] && expect_lines "$out" '^PE [012]: kumi_wait_until_u64 returned KUMI_ERR_PEER$' 3
        assert_gone $KPID 1
        echo "$how: ended $ms ms after PE 3's kumi_global_exit(3)"
    done
    ;;
*)
    fail "unknown case $CASE"
    ;;
esac
[ -s "$err" ] && sed 's/^/  | /' "$err"
pass
