#!/usr/bin/env bash
# kumi_global_exit ends the whole job: kumirun exits with the status asked
# for (0 included) within 2 s of the call, prints nothing (one info line
# with KUMI_LOG=info), the PEs blocked in kumi calls get KUMI_ERR_PEER
# without an error message, computing PEs are stopped, the caller's stdio
# is flushed, nothing is left running or in /dev/shm. Also
# kumi_pe_node/kumi_node_count, and a singleton's kumi_global_exit.
#   global_exit.sh KUMIRUN PE_GLOBAL_EXIT shm|tcp|remote NPES [quick|full]
# remote: --hosts 127.0.0.1:N/2,192.0.2.1:N/2 with a fake rsh that runs the
# second "host"'s PEs here: they have no control segment and hear of the
# job's end over the rendezvous only, as on a real second host.
. "$(dirname "$0")/lib.sh" "$1"
PROG=${2:?usage: $0 kumirun pe_global_exit shm|tcp|remote NPES [quick|full]}
TP=${3:?} N=${4:?} SET=${5:-quick}
TEST="global_exit-$TP-n$N-$SET"
[ -x "$PROG" ] || fail "$PROG is not an executable"
out=$TMP/out err=$TMP/err
# 2 s from the call to kumirun's exit; a sanitizer build's PEs take longer
# to end (the leak check at every exit): TEST_TIME_SCALE, set by the
# build for those, stretches the limit
LIMIT_MS=$(( 2000 * ${TEST_TIME_SCALE:-1} ))

# KUMI_BARRIER=auto times every barrier at the first one, which on a
# loaded machine can take seconds: not what these tests are about
BASE_ENV=(KUMI_BARRIER=tree)
case $TP in
shm|tcp)
    RUN=(-n "$N" --transport "$TP")
    NODES=one
    ;;
remote)
    [ "$N" -ge 2 ] || fail "remote needs 2 PEs or more"
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
    local_n=$(( N - N / 2 ))
    RUN=(--hosts "127.0.0.1:$local_n,192.0.2.1:$(( N / 2 ))" --rsh "$TMP/fakersh")
    NODES=$(for ((r = 0; r < N; r++)); do echo -n "$(( r >= local_n )),"; done)
    NODES=${NODES%,}
    # kumirun takes the two "hosts" for two machines, each with its cores
    # to itself, and lets the PEs spin; here they share this machine's
    BASE_ENV+=(KUMI_WAIT=block)
    ;;
*)
    fail "unknown transport $TP"
    ;;
esac

# the job in the background with extra environment $ENVS: $KPID
start_job() {
    env KLT_MARK="$MARK" "${BASE_ENV[@]}" "${ENVS[@]}" "$KUMIRUN" "$@" >"$out" 2>"$err" &
    KPID=$!
    LAUNCHERS="$LAUNCHERS $KPID"
}

# run_case WHO STATUS HOW [VAR=value...]
cases=0
run_case() {
    local who=$1 status=$2 how=$3 want asks t_ask t_end ms nwait what name
    shift 3
    ENVS=("$@")
    cases=$((cases + 1))
    what="$who asks $status, others in $how${ENVS[*]:+ (${ENVS[*]})}"
    want=$status asks="0"
    case $who in
    last) asks=$(( N - 1 )) ;;
    both) want="$status|$(( (status + 1) & 255 ))" asks="0 $(( N - 1 ))" ;;
    esac
    start_job "${RUN[@]}" --timeout 60 "$PROG" exit "$who" "$status" "$how"
    wait_exit $KPID 20
    t_end=$(date +%s%3N)
    echo "$RC" | grep -qxE "$want" || { cat "$out" "$err" >&2; fail "$what: exit status $RC, want $want"; }
    grep -q '^FAIL' "$out" && { cat "$out" "$err" >&2; fail "$what: a PE failed"; }
    t_ask=$(sed -n 's/^PE [0-9]* asks at \([0-9]*\)$/\1/p' "$out" | sort -n | head -1)
    [ -n "$t_ask" ] || { cat "$out" "$err" >&2; fail "$what: nobody asked"; }
    ms=$(( t_end - t_ask ))
    [ "$ms" -lt "$LIMIT_MS" ] || { cat "$out" "$err" >&2; fail "$what: the job ended $ms ms after the call"; }
    for r in $asks; do
        expect_line "$out" "PE $r: buffered line"
    done
    # nothing alarming: silence, or exactly one info line from kumirun
    if [ "${#ENVS[@]}" -gt 0 ]; then
        name="PE [0-9]+ \(pid [0-9]+( on [0-9.]+)?\)"
        expect_lines "$err" "^kumirun: info: $name called kumi_global_exit\(($want)\); ending the job$" 1
        expect_lines "$err" '^kumirun:' 1
        expect_lines "$err" '^kumi\[[0-9]+\]: info: ' "$(grep -c . "$err" | awk '{print $1 - 1}')"
    elif [ -s "$err" ]; then
        cat "$out" "$err" >&2
        fail "$what: printed on stderr"
    fi
    if [ "$how" != compute ]; then
        # every PE that did not ask was blocked and got KUMI_ERR_PEER
        nwait=$(( N - $(echo $asks | wc -w) ))
        [ "$who" = both ] && [ "$N" = 2 ] && nwait=0
        what="$what: kumi_$( [ "$how" = barrier ] && echo barrier || echo wait_until_u64)"
        expect_lines "$out" "^PE [0-9]+: kumi_(barrier|wait_until_u64) returned KUMI_ERR_PEER$" $nwait
        expect_lines "$out" "^PE [0-9]+: kumi_finalize returned KUMI_ERR_PEER$" $nwait
    fi
    assert_gone $KPID 1
    echo "ok   $what: status $RC, $ms ms after the call"
}

# nodes first: the map the PEs get must be right before anything else
ENVS=()
start_job "${RUN[@]}" --timeout 60 "$PROG" nodes "$NODES"
wait_exit $KPID 30
[ "$RC" = 0 ] || { cat "$out" "$err" >&2; fail "nodes $NODES: exit status $RC"; }
[ -s "$err" ] && fail "nodes: printed on stderr: $(cat "$err")"
cat "$out"
if [ "$TP" = remote ] && [ "$N" = 4 ]; then
    # hosts listed twice: this machine's entries are one node
    start_job --hosts 127.0.0.1:1,192.0.2.1:2,127.0.0.1:1 --rsh "$TMP/fakersh" --timeout 60 \
        "$PROG" nodes 0,1,1,0
    wait_exit $KPID 30
    [ "$RC" = 0 ] || { cat "$out" "$err" >&2; fail "nodes 0,1,1,0: exit status $RC"; }
    cat "$out"
fi

if [ "$TP" = shm ] && [ "$N" = 2 ] && [ "$SET" = quick ]; then
    # without kumirun: exit(status), before kumi_init too
    for c in "alone 7" "alone 0" "early 5"; do
        env -u KUMI_JOB_ID -u KUMI_RANK -u KUMI_SIZE KLT_MARK="$MARK" "$PROG" $c >"$out" 2>"$err"
        rc=$?
        expect_rc $rc "${c#* }" "singleton: $c"
        expect_grep "$out" 'buffered line$'
        [ -s "$err" ] && fail "singleton: $c: printed on stderr: $(cat "$err")"
    done
    echo "ok   singleton: alone 7, alone 0, early 5"
fi

if [ "$SET" = full ]; then
    for who in first last; do
        for how in barrier wait compute; do
            for status in 0 3 255; do
                run_case $who $status $how
            done
        done
    done
    for how in barrier wait compute; do
        run_case both 0 $how
        run_case both 255 $how
    done
    run_case first 9 barrier KUMI_LOG=info
    run_case last 0 compute KUMI_LOG=info
else
    run_case first 0 barrier
    run_case last 3 wait
    run_case first 255 compute
    run_case last 255 barrier
    run_case first 0 wait
    run_case last 3 compute
    run_case both 255 barrier
    run_case last 0 wait KUMI_LOG=info
fi
echo "$cases cases"
pass
