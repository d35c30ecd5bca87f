#!/usr/bin/env bash
# What each PE is told: KUMI_RANK 0..N-1 once each, KUMI_SIZE, one
# KUMI_JOB_ID "<kumirun pid>-<16 hex>", KUMI_LAUNCHER_PID, KUMI_OVERSUBSCRIBED;
# stdin is /dev/null; --report-bindings prints one true line per PE.
. "$(dirname "$0")/lib.sh" "$@"

out=$TMP/out err=$TMP/err
pe='printf "%s %s %s %s %s %s %s\n" "$KUMI_RANK" "$KUMI_SIZE" "$KUMI_JOB_ID" "$KUMI_LAUNCHER_PID" "$KUMI_OVERSUBSCRIBED" $$ "$(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status)"; if read -r x; then echo "PE $KUMI_RANK read stdin"; fi'

# check_env N: checks $out for an N-PE job of kumirun $KPID
check_env() {
    local n=$1 ids
    [ "$(wc -l <"$out")" = "$n" ] || { cat "$out" >&2; fail "want $n lines from $n PEs"; }
    grep -q 'read stdin' "$out" && fail "a PE could read stdin"
    [ "$(cut -d' ' -f1 "$out" | sort -n | tr '\n' ' ')" = "$(seq 0 $((n - 1)) | tr '\n' ' ')" ] ||
        { cat "$out" >&2; fail "KUMI_RANK is not 0..$((n - 1)) once each"; }
    [ "$(cut -d' ' -f2 "$out" | sort -u)" = "$n" ] || fail "KUMI_SIZE is not $n everywhere"
    ids=$(cut -d' ' -f3 "$out" | sort -u)
    [ "$(echo "$ids" | wc -l)" = 1 ] || fail "PEs disagree on KUMI_JOB_ID: $ids"
    echo "$ids" | grep -qxE "$KPID-[0-9a-f]{16}" || fail "KUMI_JOB_ID '$ids' is not '$KPID-<16 hex>'"
    [ "$(cut -d' ' -f4 "$out" | sort -u)" = "$KPID" ] || fail "KUMI_LAUNCHER_PID is not $KPID"
}

# check_report N: one line per PE naming its real pid; a bound PE's
# affinity is the PU list reported
check_report() {
    local n=$1 r pid line pus
    expect_lines "$err" '^kumirun: PE [0-9]+ \(pid [0-9]+\) (bound to core [0-9]+ \(PUs [0-9,-]+\)|not bound)$' "$n"
    for r in $(seq 0 $((n - 1))); do
        pid=$(awk -v r=$r '$1 == r { print $6 }' "$out")
        line=$(grep -E "^kumirun: PE $r \(pid $pid\) " "$err") || fail "no report line for PE $r (pid $pid)"
        pus=$(echo "$line" | sed -n 's/.*bound to core [0-9]* (PUs \(.*\))$/\1/p')
        if [ -n "$pus" ]; then
            [ "$(awk -v r=$r '$1 == r { print $7 }' "$out")" = "$pus" ] ||
                fail "PE $r reported on PUs $pus but runs on $(awk -v r=$r '$1 == r { print $7 }' "$out")"
        fi
    done
}

ncpu=$(nproc)
# binding and KUMI_OVERSUBSCRIBED as the PE count decides them: with
# KUMI_WAIT=auto, other work running at start-up decides too (loaded.sh)
export KUMI_WAIT=spin
# kumirun's stdin has a line to read; PEs must not get it
echo "input for kumirun" >"$TMP/in"

# one PE always fits: bound, not oversubscribed
kr_bg -n 1 --report-bindings sh -c "$pe" <"$TMP/in" >"$out" 2>"$err"
wait_exit $KPID 10
expect_rc $RC 0 "-n 1"
check_env 1
[ "$(cut -d' ' -f5 "$out")" = 0 ] || fail "-n 1: KUMI_OVERSUBSCRIBED is not 0"
expect_grep "$err" '^kumirun: PE 0 \(pid [0-9]+\) bound to core 0 \(PUs [0-9,-]+\)$'
check_report 1

# four PEs, whatever the machine
kr_bg -n 4 --report-bindings sh -c "$pe" <"$TMP/in" >"$out" 2>"$err"
wait_exit $KPID 10
expect_rc $RC 0 "-n 4"
check_env 4
check_report 4

# more PEs than PUs (so than cores): oversubscribed, bound round-robin
# by default, without a warning
n=$((ncpu + 1))
kr_bg -n $n --report-bindings sh -c "$pe" <"$TMP/in" >"$out" 2>"$err"
wait_exit $KPID 10
expect_rc $RC 0 "-n $n (oversubscribed)"
check_env $n
[ "$(cut -d' ' -f5 "$out" | sort -u)" = 1 ] || fail "-n $n on $ncpu CPUs: KUMI_OVERSUBSCRIBED is not 1"
expect_lines "$err" 'bound to core' $n
grep -q warning "$err" && fail "-n $n: a warning without --bind core: $(grep warning "$err")"
check_report $n

# --bind core asked for explicitly: a warning, then the same round-robin
kr_bg -n $n --bind core --report-bindings sh -c "$pe" <"$TMP/in" >"$out" 2>"$err"
wait_exit $KPID 10
expect_rc $RC 0 "-n $n --bind core"
expect_grep "$err" "^kumirun: warning: $n PEs on [0-9]+ cores: the job is oversubscribed"
expect_lines "$err" 'bound to core' $n
check_report $n
ncores=$(sed -n "s/^kumirun: warning: $n PEs on \([0-9]*\) cores: .*/\1/p" "$err")
expect_grep "$err" "^kumirun: PE $((n - 1)) \(pid [0-9]+\) bound to core $(( (n - 1) % ncores )) "

# --bind none
kr_bg -n 2 --bind none --report-bindings sh -c "$pe" <"$TMP/in" >"$out" 2>"$err"
wait_exit $KPID 10
expect_rc $RC 0 "--bind none"
expect_lines "$err" 'not bound$' 2
check_report 2

# without --report-bindings kumirun is silent
kr_bg -n 2 true >"$out" 2>"$err"
wait_exit $KPID 10
expect_rc $RC 0 "-n 2 true"
[ -s "$err" ] && fail "printed without --report-bindings: $(cat "$err")"

pass
