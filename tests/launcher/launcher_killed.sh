#!/usr/bin/env bash
# kumirun SIGKILLed: its PEs die with it (PDEATHSIG) within 2 s, and the
# segments it could not remove are swept by the next kumirun.
. "$(dirname "$0")/lib.sh" "$@"

kr_bg -n 3 sleep 30 2>"$TMP/err"
wait_count $KPID 3 5
[ -n "$(job_shm $KPID)" ] || fail "no control segment /dev/shm/kumi-$KPID-* while the job runs"
kill -9 $KPID
wait "$KPID" 2>/dev/null
left=""
end=$(( $(now_ms) + 2000 ))
while :; do
    left=$(job_pids $KPID)
    [ -z "$left" ] && break
    [ "$(now_ms)" -ge "$end" ] && fail "PEs outlived a SIGKILLed kumirun by 2 s: $left"
    sleep 0.05
done

# the dead launcher's segments stay until another kumirun sweeps them
[ -n "$(job_shm $KPID)" ] || fail "segment of the killed job vanished by itself (test cannot check the sweep)"
kr -n 1 true || fail "kumirun -n 1 true failed"
left=$(job_shm $KPID)
[ -z "$left" ] || fail "stale segments not swept: $left"

pass
