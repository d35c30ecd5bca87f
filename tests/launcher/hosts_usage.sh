#!/usr/bin/env bash
# --hosts and --rsh: usage errors (exit 2, before anything starts), ranks
# to hosts in list order, what a remote PE's rsh is given, and failures of
# remote PEs reported with their host. The "remote" host is 192.0.2.1
# (TEST-NET-1, never local); a fake rsh runs its command right here.
. "$(dirname "$0")/lib.sh" "$@"

out=$TMP/out err=$TMP/err

usage_error() {
    local what=$1 msg=$2 rc
    shift 2
    kr "$@" >"$out" 2>"$err"
    rc=$?
    expect_rc $rc 2 "$what"
    expect_grep "$err" "^kumirun: .*$msg"
    [ -s "$out" ] && fail "$what: printed on stdout: $(cat "$out")"
    return 0
}

usage_error "--hosts + --transport shm" "--hosts runs over tcp; it cannot be combined with --transport shm" \
    --hosts 127.0.0.1:2 --transport shm true
usage_error "--rsh alone"       "--rsh needs --hosts"            --rsh ssh -n 2 true
usage_error "--rsh empty"       "--rsh wants a command"          --hosts 127.0.0.1:1 --rsh ' ' true
usage_error "no count"          "--hosts wants ADDR:COUNT.*not '127.0.0.1'" --hosts 127.0.0.1 true
usage_error "count 0"           "not '127.0.0.1:0'"              --hosts 127.0.0.1:0 true
usage_error "count x"           "not '127.0.0.1:x'"              --hosts 127.0.0.1:x true
usage_error "no address"        "not ':2'"                       --hosts :2 true
usage_error "empty list"        "--hosts wants ADDR:COUNT"       --hosts , true
usage_error "-n mismatch"       "-n 4 does not match --hosts, which lists 5 PEs" \
    --hosts 127.0.0.1:2,127.0.0.1:3 -n 4 true
usage_error "too many"          "--hosts lists 4097 PEs; at most 4096" \
    --hosts 127.0.0.1:4096,127.0.0.1:1 true
usage_error "no local host"     "none of the --hosts is an address of this machine" \
    --hosts 192.0.2.1:2 true
usage_error "unresolvable"      "cannot resolve 'no-such-host.invalid'" \
    --hosts 127.0.0.1:1,no-such-host.invalid:1 true
usage_error "no program"        "no PROGRAM"                     --hosts 127.0.0.1:1

# -n omitted: the sum; all local: started directly, listening on their host
kr --hosts 127.0.0.1:2,127.0.0.1:1 sh -c 'echo "$KUMI_RANK $KUMI_SIZE $KUMI_TRANSPORT $KUMI_TCP_ADDR ${KUMI_REMOTE:-local}"' \
    >"$out" 2>"$err"
expect_rc $? 0 "local --hosts"
for r in 0 1 2; do expect_line "$out" "$r 3 tcp 127.0.0.1 local"; done

# a fake rsh: records its arguments, then runs the command here
cat >"$TMP/fakersh" <<'EOS'
#!/bin/sh
flag=$1 host=$2
shift 2
printf '%s\n' "$flag $host $*" >>"$FAKERSH_LOG"
exec "$@"
EOS
chmod +x "$TMP/fakersh"
export FAKERSH_LOG=$TMP/rsh.log

kr -n 3 --hosts 127.0.0.1:1,192.0.2.1:2 --rsh "$TMP/fakersh  -x" \
    sh -c 'echo "$KUMI_RANK $KUMI_TCP_ADDR ${KUMI_REMOTE:-local} $KUMI_SIZE $KUMI_TRANSPORT"' >"$out" 2>"$err"
expect_rc $? 0 "remote via rsh"
expect_line "$out" "0 127.0.0.1 local 3 tcp"
expect_line "$out" "1 192.0.2.1 1 3 tcp"
expect_line "$out" "2 192.0.2.1 1 3 tcp"
[ -s "$err" ] && fail "remote via rsh printed: $(cat "$err")"
# CMD HOST env KUMI_...=... /absolute/PROGRAM ARGS, every KUMI_* forwarded
expect_lines "$FAKERSH_LOG" "^-x 192\.0\.2\.1 env (KUMI_[A-Z_]+=[^ ]* )+/[^ ]*/sh -c echo" 2
for v in KUMI_RANK=1 KUMI_RANK=2 KUMI_REMOTE=1 KUMI_TCP_ADDR=192.0.2.1 KUMI_SIZE=3 \
         KUMI_TRANSPORT=tcp "KUMI_JOB_KEY=[0-9a-f]{32}" "KUMI_RDV=127\.0\.0\.1:[0-9]+" \
         KUMI_LAUNCHER_PID=[0-9]+ KUMI_JOB_ID=; do
    expect_grep "$FAKERSH_LOG" " $v"
done

# a remote PE that fails is named with its host; a missing rsh is 127
: >"$FAKERSH_LOG"
kr_bg --hosts 127.0.0.1:1,192.0.2.1:2 --rsh "$TMP/fakersh -x" \
    sh -c 'if [ "$KUMI_RANK" = 2 ]; then exit 5; fi; sleep 20' >"$out" 2>"$err"
wait_exit $KPID 5
expect_rc $RC 5 "remote PE exits 5"
expect_grep "$err" '^kumirun: PE 2 \(pid [0-9]+ on 192\.0\.2\.1\) exited with code 5; terminating the job$'
expect_lines "$err" 'terminating the job' 1
assert_gone $KPID 2

kr_bg --hosts 127.0.0.1:1,192.0.2.1:1 --rsh "$TMP/no-such-rsh" true >"$out" 2>"$err"
wait_exit $KPID 5
expect_rc $RC 127 "missing rsh"
expect_line "$err" "kumirun: cannot run '$TMP/no-such-rsh': No such file or directory"
assert_gone $KPID 2

kr --help >"$out" 2>"$err"
expect_grep "$out" '--hosts LIST'
expect_grep "$out" '--rsh CMD'

pass
