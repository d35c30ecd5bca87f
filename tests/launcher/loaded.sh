#!/usr/bin/env bash
# Other work keeping the cores busy at start-up (KUMI_WAIT=auto): kumirun
# tells the PEs they are oversubscribed (they block when they wait) and
# leaves them unbound; --bind core still binds; KUMI_WAIT=spin turns the
# check off (bound, not oversubscribed). The load: one busy loop per CPU
# and one more, each bounded by timeout and killed on exit.
. "$(dirname "$0")/lib.sh" "$@"

out=$TMP/out err=$TMP/err
pe='printf "%s %s %s\n" "$KUMI_RANK" "$KUMI_OVERSUBSCRIBED" "$(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status)"'
ncpu=$(nproc)
busy=""
stop_busy() {
    [ -n "$busy" ] && kill $busy 2>/dev/null
    klt_cleanup
}
trap stop_busy EXIT
for i in $(seq 0 "$ncpu"); do
    timeout 30 sh -c 'while :; do :; done' &
    busy="$busy $!"
done
sleep 0.2

# loaded: oversubscribed, not bound, and (KUMI_LOG=debug) one line saying so
KUMI_LOG=debug kr_bg -n 1 --report-bindings sh -c "$pe" >"$out" 2>"$err"
wait_exit $KPID 10
expect_rc $RC 0 "-n 1 under load"
topo=1
grep -q 'cannot read the machine topology' "$err" && topo=0
[ "$(cut -d' ' -f2 "$out")" = 1 ] || fail "-n 1 under load: KUMI_OVERSUBSCRIBED is not 1: $(cat "$out" "$err")"
expect_grep "$err" '^kumirun: [0-9]+ other tasks running on [0-9]+ CPUs: the PEs block when they wait and are not bound$'
expect_grep "$err" '^kumirun: PE 0 \(pid [0-9]+\) not bound$'

if [ $topo = 1 ]; then
    # --bind core: bound all the same, still blocking
    kr_bg -n 1 --bind core --report-bindings sh -c "$pe" >"$out" 2>"$err"
    wait_exit $KPID 10
    expect_rc $RC 0 "-n 1 --bind core under load"
    [ "$(cut -d' ' -f2 "$out")" = 1 ] || fail "--bind core under load: KUMI_OVERSUBSCRIBED is not 1"
    expect_grep "$err" '^kumirun: PE 0 \(pid [0-9]+\) bound to core 0 '

    # KUMI_WAIT=spin: no check, the PE count alone decides
    KUMI_WAIT=spin kr_bg -n 1 --report-bindings sh -c "$pe" >"$out" 2>"$err"
    wait_exit $KPID 10
    expect_rc $RC 0 "-n 1 KUMI_WAIT=spin under load"
    [ "$(cut -d' ' -f2 "$out")" = 0 ] || fail "KUMI_WAIT=spin under load: KUMI_OVERSUBSCRIBED is not 0"
    expect_grep "$err" '^kumirun: PE 0 \(pid [0-9]+\) bound to core 0 '
fi
pass
