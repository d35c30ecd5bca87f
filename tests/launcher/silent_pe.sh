#!/bin/bash
# silent_pe.sh KUMIRUN PE_SILENT -- a PE that says nothing on the
# rendezvous while alive (launcher/README.md, "Failures"), with the
# shortest heartbeat timeout (KUMI_HEARTBEAT_TIMEOUT=2), over tcp:
#   - on kumirun's host, stopped for 3 s and continued: not lost, the job
#     succeeds;
#   - on kumirun's host, stopped for good: reported hung (alive, stopped)
#     once its silence reaches 6 x the timeout, and the job ends;
#   - on "another host" (--hosts with a fake rsh): lost after the timeout,
#     as a host that vanished.
. "$(dirname "$0")/lib.sh" "$@"
PROG=${2:?usage: $0 kumirun pe_silent}
# one barrier algorithm: the first collective would otherwise time every
# candidate (thousands of barriers; tens of seconds over tcp on a loaded
# machine)
export KUMI_HEARTBEAT_TIMEOUT=2 KUMI_BARRIER=dissem

# stopped for 3 s, continued
t0=$(now_ms)
kr_bg --transport tcp -n 2 --timeout 60 "$PROG" 3 2>"$TMP/err1"
wait_exit $KPID 30
[ "$RC" = 0 ] || { cat "$TMP/err1" >&2; fail "stopped for 3 s and continued: exit $RC, want 0"; }
grep -E "lost|hung" "$TMP/err1" && fail "stopped for 3 s and continued: reported"
assert_gone $KPID 5

# stopped for good: hung after 12 s of silence (6 x 2), well before 30
t0=$(now_ms)
kr_bg --transport tcp -n 2 --timeout 60 "$PROG" 0 2>"$TMP/err2"
wait_exit $KPID 30
took=$(( $(now_ms) - t0 ))
[ "$RC" != 0 ] || fail "stopped for good: exit 0"
expect_grep "$TMP/err2" \
    "^kumirun: PE 1 \(pid [0-9]+\) hung: alive \(stopped\) but nothing heard from it for 1[2-4]\.[0-9] s; terminating the job"
[ "$took" -ge 12000 ] || fail "stopped for good: ended after $took ms, before 12 s"
assert_gone $KPID 5

# PE 1 on "another host": its silence is its loss after the timeout
cat >"$TMP/fakersh" <<'EOS'
#!/bin/sh
# fakersh HOST CMD...: runs CMD on this machine, its PE listening on
# 127.0.0.1 instead of HOST's address
shift
for a; do
    shift
    case $a in KUMI_TCP_ADDR=*) a=KUMI_TCP_ADDR=127.0.0.1 ;; esac
    set -- "$@" "$a"
done
exec "$@"
EOS
chmod +x "$TMP/fakersh"
t0=$(now_ms)
kr_bg --hosts 127.0.0.1:1,192.0.2.1:1 --rsh "$TMP/fakersh" --timeout 60 "$PROG" 6 2>"$TMP/err3"
wait_exit $KPID 30
took=$(( $(now_ms) - t0 ))
[ "$RC" != 0 ] || fail "remote, stopped for 6 s: exit 0"
expect_grep "$TMP/err3" \
    "^kumirun: PE 1 \(pid [0-9]+ on 192\.0\.2\.1\) lost: nothing heard from it for 2\.0 s"
[ "$took" -lt 6000 ] || fail "remote, stopped: ended after $took ms, not at the timeout"
assert_gone $KPID 5
pass
