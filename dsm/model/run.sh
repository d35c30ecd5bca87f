#!/usr/bin/env bash
# run.sh -- check kumi's DSM coherence protocol with SPIN (CTest dsm.model).
#
#   1. gen.py --check: table.pml is what dsm/protocol.def generates;
#   2. safety: spin -a dsm.pml, pan compiled with -DSAFETY, exhaustive
#      search (assertions, invalid end states); it must report
#      "errors: 0" and no truncated search;
#   3. liveness: the ltl claim of dsm.pml for PE LIVE_PE, pan -a
#      (acceptance cycles), same conditions.
# On an error it searches again with small depth bounds for a short
# counterexample and prints its steps (the model's printf log).
#
#   run.sh                  check the real table
#   run.sh --def FILE       check another table (mutation experiments);
#                           skips the staleness check
#   run.sh --no-live        safety only
#   run.sh --live-pe "0 2"  liveness for these PEs (default 0; PE 1 is PE 0
#                           with the blocks swapped, PE 2 homes nothing)
#   run.sh --keep           keep the work directory
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
def=""
live_pes="0"
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --def) def=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
    --no-live) live_pes=""; shift ;;
    --live-pe) live_pes="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

for tool in python3 spin gcc; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "dsm.model: FAILED: '$tool' is not installed (the SPIN check needs python3, spin and" \
         "gcc; .ci/deps installs them: spin is the Debian package 'spin')" >&2
    exit 1
  fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/kumi-dsm-model.XXXXXX")
cleanup() { if [ "$keep" = 1 ]; then echo "work directory kept: $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT

# 1. the table
if [ -z "$def" ]; then
  python3 "$here/gen.py" --check
  cp "$here/table.pml" "$work/table.pml"
else
  echo "dsm.model: table from $def"
  python3 "$here/gen.py" --def "$def" --out "$work/table.pml"
fi
cp "$here/dsm.pml" "$work/dsm.pml"

# CFLAGS: -O1 (pan.c is large: -O2 doubles the compile time for a few
# seconds of search); COLLAPSE compresses the state vector losslessly;
# MEMLIM stops pan at 4 GB (then the search is incomplete: a failure).
PAN_CFLAGS="-O1 -DCOLLAPSE -DMEMLIM=4096 -DVECTORSZ=2048"
DEPTH=3000000        # DFS depth bound (the searches reach ~0.4e6)

# short counterexample: depth-bounded searches, shallowest first
short_trail() {   # $1 = spin -D flags, $2 = pan flags
  local m
  for m in 15 20 25 30 40 50 60 80 100 150 200 300 500; do
    rm -f dsm.pml.trail
    ./pan $2 -m$m -w22 >short.out 2>&1 || true
    [ -f dsm.pml.trail ] && break
  done
  if [ ! -f dsm.pml.trail ]; then
    ./pan $2 -m$DEPTH -w24 >short.out 2>&1 || true   # the full search's own trail
  fi
  [ -f dsm.pml.trail ] || { echo "(no trail written)"; return; }
  grep -E "^pan:[0-9]+:" short.out | head -1
  echo "---- counterexample (spin -t; data: 1 = last write, 0 = older, 2 = flag) ----"
  spin $1 -t dsm.pml 2>&1 | sed -n '1,/trail ends after/p' \
    | grep -vE '^[[:space:]]+[A-Za-z_][A-Za-z_0-9]*(\[[0-9]+\])? = |^[[:space:]]+queue [0-9]+ ' \
    | sed 's/^[[:space:]]*//' | grep -v '^$'
  spin $1 -t dsm.pml 2>&1 | sed -n '/trail ends after/,$p' | grep -E "proc .*pe:|quiesce" || true
  echo "----"
}

# One search in its own directory (run it in a subshell).
# $1 = directory, $2 = name, $3 = spin -D flags, $4 = pan compile flags,
# $5 = pan run flags
search() {
  local dir=$1 name=$2 sflags=$3 cflags=$4 rflags=$5 t0 t1
  mkdir -p "$work/$dir"
  cp "$work/dsm.pml" "$work/table.pml" "$work/$dir/"
  cd "$work/$dir"
  spin $sflags -a dsm.pml >spin.out 2>&1 || { cat spin.out; echo "dsm.model: FAILED: spin -a ($name)"; exit 1; }
  gcc $PAN_CFLAGS $cflags -o pan pan.c 2>gcc.out || { cat gcc.out; echo "dsm.model: FAILED: gcc ($name)"; exit 1; }
  [ -e "$work/abort" ] && exit 1
  t0=$(date +%s.%N)
  ./pan $rflags -m$DEPTH -w24 >pan.out 2>&1 &
  echo $! >pan.pid
  wait $! || true
  t1=$(date +%s.%N)
  local states depth errors
  states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' pan.out | head -1)
  depth=$(sed -n 's/.*depth reached \([0-9]*\).*/\1/p' pan.out | head -1)
  errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' pan.out | head -1)
  printf 'dsm.model: %-26s %s states, depth %s, %.1f s, errors: %s\n' "$name" "${states:-?}" \
    "${depth:-?}" "$(awk "BEGIN { print $t1 - $t0 }")" "${errors:-?}"
  if [ "${errors:-}" != 0 ]; then
    grep -E "^pan:|error" pan.out | head -5
    echo "dsm.model: FAILED: $name found an error"
    short_trail "$sflags" "$rflags"
    exit 1
  fi
  if grep -qE "depth too small|Search not completed|reached -DMEMLIM|out of memory" pan.out; then
    cat pan.out
    echo "dsm.model: FAILED: $name: the search was not exhaustive"
    exit 1
  fi
}

start=$(date +%s)
# the liveness searches (the longer ones) run beside the safety search
live_pid=""
if [ -n "$live_pes" ]; then
  (
    for p in $live_pes; do
      ( search "live$p" "liveness (PE $p's misses)" "-DLIVENESS -DLIVE_PE=$p" "" "-a" ) || exit 1
    done
  ) >"$work/live.log" 2>&1 &
  live_pid=$!
fi
if ! ( search safety "safety+deadlock" "" "-DSAFETY" "" ); then
  if [ -n "$live_pid" ]; then   # stop the liveness search: this already failed
    touch "$work/abort"
    for f in "$work"/live*/pan.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
    wait "$live_pid" 2>/dev/null || true
  fi
  exit 1
fi
rc=0
if [ -n "$live_pid" ]; then
  wait "$live_pid" || rc=1
  cat "$work/live.log"
fi
[ "$rc" = 0 ] || exit 1
echo "dsm.model: passed in $(( $(date +%s) - start )) s"
