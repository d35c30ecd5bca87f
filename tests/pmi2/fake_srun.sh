#!/usr/bin/env bash
# fake_srun.sh -- runs a kumi job the way srun --mpi=pmi2 would, with
# tests/pmi2/fake_pmi2.c standing in for Slurm's libpmi2 (label pmi2):
#
#   fake_srun.sh LIBDIR NPES TRANSPORT PROGRAM ARGS...
#
# LIBDIR holds the fake libpmi2.so.0. Each PE gets PMI_FD, PMI_RANK,
# PMI_SIZE, PMI_JOBID and the shared FAKE_PMI2_DIR; the first PE that
# fails ends the others (SIGTERM, then SIGKILL), and the script exits with
# its status, as srun would. Then: nothing of the job left in /dev/shm
# (/kumi-<this script's pid>-*: the PEs' parent names their job,
# runtime/boot_pmi2.c), no PE left.
set -u
LIBDIR=${1:?usage: $0 LIBDIR NPES TRANSPORT PROGRAM [ARGS...]} N=${2:?} TP=${3:?}
shift 3
DIR=$(mktemp -d "${TMPDIR:-/tmp}/kumi-fake-pmi2.XXXXXX")
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
    rm -rf "$DIR"
}
trap cleanup EXIT

for ((r = 0; r < N; r++)); do
    env PMI_FD=9 PMI_RANK=$r PMI_SIZE=$N PMI_JOBID=$$ FAKE_PMI2_DIR="$DIR" \
        KUMI_TRANSPORT="$TP" LD_LIBRARY_PATH="$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        "$@" &
    pids+=($!)
done
status=0 end=$(( $(date +%s) + 120 ))
while :; do
    live=0
    for i in "${!pids[@]}"; do
        p=${pids[$i]}
        [ -z "$p" ] && continue
        if kill -0 "$p" 2>/dev/null && ! ps -o stat= -p "$p" | grep -q Z; then
            live=$((live + 1))
            continue
        fi
        wait "$p"
        s=$?
        pids[$i]=""
        if [ "$s" != 0 ] && [ "$status" = 0 ]; then
            status=$s
            echo "fake_srun: PE $i exited with status $s; ending the job" >&2
            for q in "${pids[@]}"; do [ -n "$q" ] && kill -TERM "$q" 2>/dev/null; done
        fi
    done
    [ "$live" = 0 ] && break
    if [ "$(date +%s)" -ge "$end" ]; then
        echo "fake_srun: job still running after 120 s" >&2
        status=124
        break
    fi
    sleep 0.05
done
[ -f "$DIR/abort" ] && sed 's/^/fake_srun: abort: /' "$DIR/abort" >&2
left=$(ls /dev/shm 2>/dev/null | grep -E "^kumi-$$-" | tr '\n' ' ')
if [ -n "$left" ]; then
    echo "fake_srun: FAIL: left in /dev/shm: $left" >&2
    rm -f /dev/shm/kumi-$$-*
    [ "$status" = 0 ] && status=1
fi
exit "$status"
