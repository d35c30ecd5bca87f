#!/usr/bin/env bash
# startup.sh -- how long a kumi job takes to start and end under each
# launcher: kumirun, Open MPI's mpirun (PMIx), and Slurm's srun
# (--mpi=pmix, --mpi=pmi2) in a one-node Slurm of its own
# (tests/slurm/slurm.sh). The job is kumi-startup-hello: init, one
# barrier, finalize; the time is the launcher's whole run, wall clock,
# from fork to its exit, the median of REPS runs.
#
#   startup.sh [-b BUILD] [-r REPS] [-n "1 2 4 8 16"] [-t shm|tcp]
#              [-l "kumirun mpirun srun-pmix srun-pmi2"]
#
# A launcher that is not installed (or srun without root) is reported as
# such, not timed. Every run has a timeout (60 s); a failed run stops the
# script with the launcher's output.
set -u -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$HERE/../../build REPS=5 NS="1 2 4 8 16" KTP=shm
LAUNCHERS="kumirun mpirun srun-pmix srun-pmi2"
while getopts "b:r:n:t:l:h" o; do
    case $o in
    b) BUILD=$OPTARG ;;
    r) REPS=$OPTARG ;;
    n) NS=$OPTARG ;;
    t) KTP=$OPTARG ;;
    l) LAUNCHERS=$OPTARG ;;
    *) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
    esac
done
BUILD=$(cd "$BUILD" && pwd) || exit 2
HELLO=$BUILD/bin/kumi-startup-hello KUMIRUN=$BUILD/bin/kumirun
for f in "$HELLO" "$KUMIRUN"; do
    [ -x "$f" ] || { echo "startup.sh: $f not built (cmake --build $BUILD)" >&2; exit 2; }
done
OUT=$(mktemp "${TMPDIR:-/tmp}/kumi-startup.XXXXXX")
trap 'rm -f "$OUT"' EXIT

now_ns() { date +%s%N; }

# median of the numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
                                                 else printf "%.0f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# cmd_for LAUNCHER N: the command line that runs the job of N PEs
cmd_for() {
    case $1 in
    kumirun)   echo "$KUMIRUN -n $2 --timeout 60 $HELLO $2" ;;
    mpirun)    echo "mpirun --oversubscribe --allow-run-as-root --bind-to none -np $2 $HELLO $2" ;;
    srun-pmix) echo "srun --mpi=pmix -n $2 --overcommit $HELLO $2" ;;
    srun-pmi2) echo "srun --mpi=pmi2 -n $2 --overcommit $HELLO $2" ;;
    esac
}

# time_runs LAUNCHER N: prints the median in ms of REPS runs (one
# untimed run first: page cache, the launcher's own first start)
time_runs() {
    local l=$1 n=$2 cmd t0 t1 i
    cmd=$(cmd_for "$l" "$n")
    for i in $(seq 0 "$REPS"); do
        t0=$(now_ns)
        if ! KUMI_TRANSPORT=$KTP timeout -k 5 60 $cmd >"$OUT" 2>&1; then
            echo "startup.sh: $l -n $n failed:" >&2
            cat "$OUT" >&2
            return 1
        fi
        t1=$(now_ns)
        [ "$i" -gt 0 ] && echo $(( (t1 - t0) / 1000000 ))
    done | median
}

# runs every N for the launchers given; srun's inside one Slurm fixture
table_rows() {
    local l n row t
    for l in "$@"; do
        row="| $l |"
        for n in $NS; do
            t=$(time_runs "$l" "$n") || return 1
            row="$row $t |"
        done
        echo "$row"
    done
}

echo "kumi start-up, $(nproc) cores, transport $KTP, median of $REPS runs, ms"
echo "(init + one barrier + finalize, whole launcher run; $(date -u +%F), load $(cut -d' ' -f1-3 /proc/loadavg))"
hdr="| launcher |" sep="|---|"
for n in $NS; do hdr="$hdr $n PEs |"; sep="$sep---:|"; done
echo "$hdr"
echo "$sep"
plain="" slurm=""
for l in $LAUNCHERS; do
    case $l in
    kumirun) plain="$plain $l" ;;
    mpirun)
        if command -v mpirun >/dev/null && mpirun --version 2>&1 | grep -q "Open MPI"; then
            plain="$plain $l"
        else
            echo "| mpirun | not installed (Debian: openmpi-bin) |"
        fi ;;
    srun-pmix|srun-pmi2)
        if ! command -v srun >/dev/null; then
            echo "| $l | not installed (Debian: slurm-wlm, munge) |"
        elif [ "$(id -u)" != 0 ]; then
            echo "| $l | needs root (a private slurmd) |"
        else
            slurm="$slurm $l"
        fi ;;
    *) echo "startup.sh: unknown launcher $l" >&2; exit 2 ;;
    esac
done
[ -n "$plain" ] && { table_rows $plain || exit 1; }
if [ -n "$slurm" ]; then
    export -f table_rows time_runs cmd_for median now_ns
    export NS REPS KTP OUT HELLO KUMIRUN
    bash "$HERE/../../tests/slurm/slurm.sh" exec bash -c "table_rows $slurm" || exit 1
fi
