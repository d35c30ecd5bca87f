#!/usr/bin/env bash
# While a tcp job runs, its rendezvous turns away a hello with the wrong
# job key and a connection that sends garbage: each is closed and logged
# once, and the job still succeeds.
#   rdv_key.sh KUMIRUN PE_LOOP
. "$(dirname "$0")/../launcher/lib.sh" "$1"
LOOP=${2:?usage: $0 kumirun pe_loop}
out=$TMP/out err=$TMP/err

kr_bg --transport tcp -n 2 "$LOOP" 4 >"$out" 2>"$err"
end=$(( $(now_ms) + 20000 ))
until grep -q '^pe_loop: running$' "$out"; do
    [ "$(now_ms)" -ge "$end" ] && { cat "$err" >&2; fail "job not running after 20 s"; }
    sleep 0.05
done
# a PE's KUMI_RDV (retried: /proc reads can race with the PEs' start)
rdv=
for _ in $(seq 50); do
    for pe in $(job_pids $KPID); do
        rdv=$(tr '\0' '\n' </proc/$pe/environ 2>/dev/null | sed -n 's/^KUMI_RDV=//p')
        [ -n "$rdv" ] && break 2
    done
    sleep 0.1
done
[ -n "$rdv" ] || fail "no PE of kumirun $KPID with KUMI_RDV in its environment"

# closed_by_server HEXBYTES: sends them, then the server must hang up
closed_by_server() {
    exec 3<>"/dev/tcp/${rdv%:*}/${rdv##*:}" || fail "cannot connect to $rdv"
    printf "$1" >&3
    timeout 6 cat <&3 >/dev/null || fail "connection not closed by the rendezvous"
    exec 3<&-
}
# a well-formed hello (PE 0 of 2) with a key that is not the job's
# (header: type 1 HELLO, version 3 of runtime/rdv_wire.h)
closed_by_server '\x01\x03\x00\x00\x20\x00\x00\x00KRDV\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\xaa\xbb\xcc\xdd\xaa\xbb\xcc\xdd\xaa\xbb\xcc\xdd\xaa\xbb\xcc\xdd'
closed_by_server 'GET / HTTP/1.0\r\n\r\n'

wait_exit $KPID 20
expect_rc $RC 0 "job with intruders"
expect_grep "$err" "^kumirun: rendezvous: rejected a connection from 127\.0\.0\.1:[0-9]+: wrong job key$"
expect_grep "$err" "^kumirun: rendezvous: rejected a connection from 127\.0\.0\.1:[0-9]+: not a kumi rendezvous hello$"
expect_lines "$err" "rejected a connection" 2
assert_gone $KPID 2
pass
