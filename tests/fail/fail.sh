#!/usr/bin/env bash
# Failure handling of real kumi jobs under kumirun (issue: "Failure").
# usage: fail.sh KUMIRUN PE_FAIL NPES
# Each case: the job's exit status, kumirun's one-line report naming the PE,
# the whole job gone within 5 s, no PE processes left, nothing in /dev/shm.
set -u
kumirun=$1 prog=$2 n=$3
# in the sanitizer build a SIGSEGV must stay a signal, not an ASan report
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"
fails=0 cases=0

shm_of() { ls /dev/shm 2>/dev/null | grep -c "^kumi-$1-" ; }

# watchdog SECONDS PID...: SIGKILLs the PIDs after SECONDS; $! is its pid.
# Its output goes nowhere, so it never holds CTest's pipe open, and a TERM
# ends its sleep at once.
watchdog() {
  local secs=$1; shift
  ( trap 'kill $s 2>/dev/null; exit 0' TERM
    sleep "$secs" & s=$!; wait $s; kill -9 "$@" 2>/dev/null ) >/dev/null 2>&1 &
}

# run_case NAME MODE VICTIM EXPECT_STATUS EXPECT_REGEX [EXPECT_REGEX2]
run_case() {
  local name=$1 mode=$2 victim=$3 want=$4 regex=$5 regex2=${6:-}
  local tok="pefail-$$-$RANDOM" out start end status pid
  cases=$((cases + 1))
  out=$(mktemp)
  start=$(date +%s%N)
  "$kumirun" -n "$n" "$prog" "$mode" "$victim" "$tok" >"$out" 2>&1 &
  pid=$!
  watchdog 30 $pid; local dog=$!
  wait $pid; status=$?
  kill $dog 2>/dev/null; wait $dog 2>/dev/null
  end=$(date +%s%N)
  local ms=$(( (end - start) / 1000000 ))
  local bad=""
  [ "$status" = "$want" ] || bad="$bad status=$status(want $want)"
  [ -z "$regex" ] || grep -Eq "$regex" "$out" || bad="$bad no-message"
  [ -z "$regex2" ] || grep -Eq "$regex2" "$out" || bad="$bad no-message2"
  [ "$ms" -lt 5000 ] || bad="$bad took=${ms}ms"
  sleep 0.2
  if pgrep -f "$tok" >/dev/null; then bad="$bad orphans:$(pgrep -f "$tok" | tr '\n' ' ')"; pkill -9 -f "$tok"; fi
  # kumirun's pid is the first field of its job id
  [ "$(shm_of $pid)" = 0 ] || bad="$bad shm-left:$(ls /dev/shm | grep "^kumi-$pid-" | tr '\n' ' ')"
  if [ -n "$bad" ]; then
    echo "FAIL $name (n=$n):$bad"; sed 's/^/    | /' "$out"; fails=$((fails + 1))
  else
    echo "ok   $name (n=$n, ${ms} ms, status $status)"
  fi
  rm -f "$out"
}

v=$((n - 1))
run_case ok         ok         0   0   ''
# survivors blocked in kumi calls get KUMI_ERR_PEER, with kumi's own line
# (ucx may learn of the death when it sends: the kick says so)
run_case kill       kill       $v  137 "kumirun: PE $v \(pid [0-9]+\) killed by signal 9 \(SIGKILL\); terminating the job" \
  "kumi\[[0-9]+\]: kumi_(barrier|wait_until_u64|kick): PE $v failed \(status 137\); the job is ending"
run_case exit3      exit3      $v  3   "kumirun: PE $v \(pid [0-9]+\) exited with code 3; terminating the job"
run_case segv       segv       0   139 "kumirun: PE 0 \(pid [0-9]+\) killed by signal 11 \(SIGSEGV\)"
run_case nofinalize nofinalize $v  1   "PE $v \(pid [0-9]+\) exited without calling kumi_finalize"

# SIGINT to kumirun while the job runs: clean, status 130
cases=$((cases + 1))
tok="pefail-$$-int"
"$kumirun" -n "$n" "$prog" ok 0 "$tok" >/dev/null 2>&1 &
pid=$!
sleep 0.15
kill -INT $pid
wait $pid; status=$?
sleep 0.2
if [ "$status" = 130 ] && ! pgrep -f "$tok" >/dev/null && [ "$(shm_of $pid)" = 0 ]; then
  echo "ok   sigint (n=$n, status 130)"
else
  echo "FAIL sigint (n=$n): status=$status orphans=$(pgrep -f "$tok" | wc -l) shm=$(shm_of $pid)"
  pkill -9 -f "$tok"; fails=$((fails + 1))
fi

# two healthy jobs and a failing one at once: isolated from each other
cases=$((cases + 1))
tok="pefail-$$-two"
"$kumirun" -n "$n" "$prog" ok 0 "$tok-a" >/dev/null 2>&1 & a=$!
"$kumirun" -n "$n" "$prog" ok 0 "$tok-b" >/dev/null 2>&1 & b=$!
"$kumirun" -n "$n" "$prog" kill 0 "$tok-c" >/dev/null 2>&1 & c=$!
watchdog 60 $a $b $c; dog=$!
wait $a; sa=$?; wait $b; sb=$?; wait $c; sc=$?
kill $dog 2>/dev/null; wait $dog 2>/dev/null
sleep 0.2
if [ "$sa$sb$sc" = "00137" ] && ! pgrep -f "$tok" >/dev/null \
   && [ "$(shm_of $a)$(shm_of $b)$(shm_of $c)" = 000 ]; then
  echo "ok   three jobs at once (n=$n, status $sa $sb $sc)"
else
  echo "FAIL three jobs at once (n=$n): status $sa $sb $sc (want 0 0 137)"
  pkill -9 -f "$tok"; fails=$((fails + 1))
fi

echo "$((cases - fails)) passed, $fails failed"
[ "$fails" = 0 ]
