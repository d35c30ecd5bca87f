#!/usr/bin/env bash
# Usage and configuration errors: exit status 2 with a message, before any
# PE starts; --help and --help-env succeed.
. "$(dirname "$0")/lib.sh" "$@"

out=$TMP/out err=$TMP/err

# usage_error WHAT ERE ARGS...: exit 2, message on stderr, usage text too
usage_error() {
    local what=$1 msg=$2 rc
    shift 2
    kr "$@" >"$out" 2>"$err"
    rc=$?
    expect_rc $rc 2 "$what"
    expect_grep "$err" "^kumirun: .*$msg"
    expect_grep "$err" '^usage: kumirun -n N'
    [ -s "$out" ] && fail "$what: printed on stdout: $(cat "$out")"
    return 0
}

usage_error "no arguments"        "-n N is required"
usage_error "-n without program"  "no PROGRAM"            -n 2
usage_error "-n 0"                "from 1 to 4096, not '0'" -n 0 true
usage_error "-n 4097"             "not '4097'"            -n 4097 true
usage_error "-n abc"              "not 'abc'"             -n abc true
usage_error "-n -1"               "not '-1'"              -n -1 true
usage_error "-n missing value"    "needs a value"         -n
usage_error "unknown option"      "unknown option '--bogus'" --bogus -n 2 true
usage_error "--bind bogus"        "--bind wants core or none, not 'bogus'" --bind bogus -n 2 true
usage_error "--timeout 0"         "--timeout wants a positive number of seconds, not '0'" --timeout 0 -n 1 true
usage_error "--timeout x"         "not 'x'"               --timeout x -n 1 true
usage_error "--transport bogus"   "--transport wants auto, shm(,| or) tcp( or ucx)?, not 'ib'" --transport ib -n 1 true

# options after PROGRAM belong to PROGRAM ("+" mode)
kr -n 1 sh -c 'echo "$@"' sh --bogus -n 7 >"$out" 2>"$err"
expect_rc $? 0 "options after PROGRAM"
expect_line "$out" "--bogus -n 7"

kr --help >"$out" 2>"$err"
expect_rc $? 0 "--help"
expect_grep "$out" '^usage: kumirun -n N'
[ -s "$err" ] && fail "--help printed on stderr"

kr --help-env >"$out" 2>"$err"
expect_rc $? 0 "--help-env"
expect_grep "$out" '^ +KUMI_HEAP_SIZE '
expect_grep "$out" '^ +KUMI_TRANSPORT '

# a bad value fails once, in kumirun, naming the variable
KUMI_HEAP_SIZE=12x kr -n 2 true >"$out" 2>"$err"
expect_rc $? 2 "KUMI_HEAP_SIZE=12x"
expect_grep "$err" "^kumirun: .*KUMI_HEAP_SIZE.*12x"
KUMI_TRANSPORT=carrier-pigeon kr -n 2 true >"$out" 2>"$err"
expect_rc $? 2 "KUMI_TRANSPORT=carrier-pigeon"
expect_grep "$err" "^kumirun: .*KUMI_TRANSPORT"

# a typo is a warning, once, with a suggestion; the job still runs
KUMI_HEAPSIZE=1m kr -n 2 true >"$out" 2>"$err"
expect_rc $? 0 "KUMI_HEAPSIZE typo"
expect_line "$err" "kumirun: warning: unknown variable KUMI_HEAPSIZE (did you mean KUMI_HEAP_SIZE?)"

# tcp: a rendezvous on 127.0.0.1, a 128-bit key, both ways of asking for it
for how in "--transport tcp" "env"; do
    if [ "$how" = env ]; then
        KUMI_TRANSPORT=tcp kr -n 2 sh -c 'echo "$KUMI_TRANSPORT $KUMI_TCP_ADDR ${KUMI_RDV%:*} ${#KUMI_JOB_KEY} ${KUMI_REMOTE:-local}"' >"$out" 2>"$err"
    else
        kr --transport tcp -n 2 sh -c 'echo "$KUMI_TRANSPORT $KUMI_TCP_ADDR ${KUMI_RDV%:*} ${#KUMI_JOB_KEY} ${KUMI_REMOTE:-local}"' >"$out" 2>"$err"
    fi
    expect_rc $? 0 "tcp ($how)"
    expect_lines "$out" '^tcp 127\.0\.0\.1 127\.0\.0\.1 32 local$' 2
    [ -s "$err" ] && fail "tcp ($how) printed: $(cat "$err")"
done

# --transport shm reaches the PEs
kr --transport shm -n 2 sh -c 'echo "$KUMI_TRANSPORT"' >"$out" 2>"$err"
expect_rc $? 0 "--transport shm"
expect_lines "$out" '^shm$' 2

# a program that cannot run: 127, said once, no PE left
kr_bg -n 3 "$TMP/no-such-program" arg >"$out" 2>"$err"
wait_exit $KPID 10
expect_rc $RC 127 "nonexistent program"
expect_line "$err" "kumirun: cannot run '$TMP/no-such-program': No such file or directory"
expect_lines "$err" 'terminating the job' 0
assert_gone $KPID 2

# a plain program that never uses kumi and succeeds is a successful job
kr -n 3 true >"$out" 2>"$err"
expect_rc $? 0 "-n 3 true"
[ -s "$err" ] && fail "-n 3 true printed: $(cat "$err")"

pass
