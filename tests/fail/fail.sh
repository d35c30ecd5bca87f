#!/usr/bin/env bash
# Failure handling of real kumi jobs under kumirun (issue: "Failure").
# usage: fail.sh KUMIRUN PE_FAIL NPES
# Each case: the job's exit status, kumirun's one-line report naming the PE,
# the whole job gone (a watchdog SIGKILLs it after 30 s: then the status is
# wrong), no PE processes left, nothing in /dev/shm. The time each took is
# printed, not judged (a loaded machine may take long).
set -u
kumirun=$1 prog=$2 n=$3
# in the sanitizer build a SIGSEGV must stay a signal, not an ASan report
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"
fails=0 cases=0

shm_of() { ls /dev/shm 2>/dev/null | grep -c "^kumi-$1-" ; }

# gone TOKEN: waits (at most 5 s) until no process carries TOKEN; 1 if
# some still do then. kumirun has exited by then, but its PEs may still be
# on their way out.
gone() {
  local i
  for i in $(seq 100); do
    pgrep -f "$1" >/dev/null || return 0
    sleep 0.05
  done
  ! pgrep -f "$1" >/dev/null
}

# lines_in FILE COUNT REGEX: waits (at most 20 s) until FILE has COUNT
# lines matching REGEX; 1 if not by then.
lines_in() {
  local i
  for i in $(seq 400); do
    [ "$(grep -Ec "$3" "$1" 2>/dev/null)" -ge "$2" ] && return 0
    sleep 0.05
  done
  return 1
}

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
  if ! gone "$tok"; then bad="$bad orphans:$(pgrep -f "$tok" | tr '\n' ' ')"; pkill -9 -f "$tok"; fi
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
out=$(mktemp)
# hold: every PE says it runs, then waits to be ended; SIGINT once all did
"$kumirun" -n "$n" "$prog" hold 0 "$tok" >"$out" 2>&1 &
pid=$!
watchdog 60 $pid; dog=$!
running=yes
lines_in "$out" "$n" '^pe_fail\[[0-9]+\]: running$' || running=no
kill -INT $pid
wait $pid; status=$?
kill $dog 2>/dev/null; wait $dog 2>/dev/null
if [ $running = yes ] && [ "$status" = 130 ] && gone "$tok" && [ "$(shm_of $pid)" = 0 ]; then
  echo "ok   sigint (n=$n, status 130)"
else
  echo "FAIL sigint (n=$n): all running=$running status=$status orphans=$(pgrep -f "$tok" | wc -l) shm=$(shm_of $pid)"
  sed 's/^/    | /' "$out"
  pkill -9 -f "$tok"; fails=$((fails + 1))
fi
rm -f "$out"


# two healthy jobs and a failing one at once: isolated from each other
cases=$((cases + 1))
tok="pefail-$$-two"
"$kumirun" -n "$n" "$prog" ok 0 "$tok-a" >/dev/null 2>&1 & a=$!
"$kumirun" -n "$n" "$prog" ok 0 "$tok-b" >/dev/null 2>&1 & b=$!
"$kumirun" -n "$n" "$prog" kill 0 "$tok-c" >/dev/null 2>&1 & c=$!
watchdog 60 $a $b $c; dog=$!
wait $a; sa=$?; wait $b; sb=$?; wait $c; sc=$?
kill $dog 2>/dev/null; wait $dog 2>/dev/null
if [ "$sa$sb$sc" = "00137" ] && gone "$tok" \
   && [ "$(shm_of $a)$(shm_of $b)$(shm_of $c)" = 000 ]; then
  echo "ok   three jobs at once (n=$n, status $sa $sb $sc)"
else
  echo "FAIL three jobs at once (n=$n): status $sa $sb $sc (want 0 0 137)"
  pkill -9 -f "$tok"; fails=$((fails + 1))
fi

echo "$((cases - fails)) passed, $fails failed"
[ "$fails" = 0 ]
