#!/usr/bin/env bash
# slurm.sh -- a Slurm of its own (munged, slurmctld, slurmd in a private
# directory, on free ports, stopped by their own pids) to run kumi
# programs under srun (tests/slurm/slurm.cmake, label slurm):
#
#   slurm.sh [--nodes 2] MPI NPES TRANSPORT PROGRAM ARGS...
#                                 srun --mpi=MPI (pmi2, pmix)
#   slurm.sh exec COMMAND ARGS... COMMAND with SLURM_CONF set
#                                 (bench/startup/startup.sh)
#
# One node by default. --nodes 2: two compute nodes on this machine, n1 and
# n2, each a slurmd in a network namespace of its own (10.253.X.1 and .2 on
# a bridge that holds slurmctld's 10.253.X.254), a UTS namespace (its own
# hostname, so kumi counts two hosts) and a mount namespace with a private
# TmpFS (Slurm's PMIx plugin names its per-step directories there by job
# and step only); NPES ranks, half on each node, tcp between the nodes.
#
# The job must succeed and leave nothing in /dev/shm (/kumi-<slurmstepd's
# pid>-*) and no process. Skips (77) when Slurm or munge is not installed
# (Debian: slurm-wlm, munge), or not as root (slurmd must be).
set -u
NODES=1 NSP= BR=
if [ "${1:-}" = --nodes ]; then
    NODES=${2:?}
    shift 2
    [ "$NODES" = 1 ] || [ "$NODES" = 2 ] || { echo "usage: --nodes 1|2"; exit 2; }
fi
if [ "${1:-}" = exec ]; then
    MPI=exec N=0 TP=none
    shift
    [ $# -gt 0 ] || { echo "usage: $0 exec COMMAND [ARGS...]"; exit 2; }
else
    MPI=${1:?usage: $0 pmi2|pmix NPES TRANSPORT PROGRAM [ARGS...]} N=${2:?} TP=${3:?}
    shift 3
fi
for c in munged slurmctld slurmd srun; do
    command -v "$c" >/dev/null 2>&1 || { echo "skipped: $c not installed (Debian: slurm-wlm, munge)"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "skipped: a private slurmd needs root"; exit 77; }
if [ "$NODES" = 2 ]; then
    for c in ip nsenter unshare; do
        command -v "$c" >/dev/null 2>&1 || { echo "skipped: $c not installed (two nodes need network namespaces)"; exit 77; }
    done
    [ $(( N % 2 )) = 0 ] || { echo "usage: --nodes 2 needs an even NPES"; exit 2; }
fi

# sanitizer builds: libpmix's own leaks are not the PEs' (lsan.supp)
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$(cd "$(dirname "$0")/../pmix" && pwd)/lsan.supp"
# What a run killed without its EXIT trap (SIGKILL: a timeout of ctest's
# or of a caller) left behind: its directory, daemons, namespaces and
# bridge, found by the run's pid (the owner file; the namespaces' names).
# A run whose pid is alive is left alone.
sweep_stale() {
    local d o f ns p i left
    for d in "${TMPDIR:-/tmp}"/kumi-slurm.*; do
        [ -f "$d/owner" ] || continue
        o=$(cat "$d/owner" 2>/dev/null)
        [ -n "$o" ] && kill -0 "$o" 2>/dev/null && continue
        for f in "$d"/munged.pid "$d"/slurmctld.pid "$d"/slurmd.*.pid; do
            [ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
        done
        rm -rf "$d"
    done
    command -v ip >/dev/null 2>&1 || return 0
    for ns in $(ip netns list 2>/dev/null | sed -n 's/^\(kst[0-9][0-9]*\)-n[12]\b.*/\1/p' | sort -u); do
        p=${ns#kst}
        kill -0 "$p" 2>/dev/null && continue
        for i in 1 2; do
            left=$(ip netns pids "$ns-n$i" 2>/dev/null)
            [ -n "$left" ] && kill -KILL $left 2>/dev/null
            ip netns del "$ns-n$i" 2>/dev/null
        done
        ip link del "kstbr$(( p % 100000 ))" 2>/dev/null
    done
    return 0
}
sweep_stale
D=$(mktemp -d "${TMPDIR:-/tmp}/kumi-slurm.XXXXXX")
chmod 700 "$D"
echo $$ >"$D/owner"
pids=""
MARK="kumi-slurm-test-$$-$RANDOM"
# processes of the job (srun passes its environment on to the PEs)
marked() {
    grep -lzxF -- "KST_MARK=$MARK" /proc/[0-9]*/environ 2>/dev/null | sed -n 's|^/proc/\([0-9]*\)/environ$|\1|p'
}
stop() {
    local left
    left=$(marked)
    [ -n "$left" ] && kill -KILL $left 2>/dev/null
    for p in $pids; do kill -TERM "$p" 2>/dev/null; done
    sleep 0.5
    for p in $pids; do kill -KILL "$p" 2>/dev/null; done
    [ -f "$D/munged.pid" ] && kill -KILL "$(cat "$D/munged.pid")" 2>/dev/null
    if [ -n "$NSP" ]; then
        for i in 1 2; do
            left=$(ip netns pids "$NSP-n$i" 2>/dev/null)
            [ -n "$left" ] && kill -KILL $left 2>/dev/null
            ip netns del "$NSP-n$i" 2>/dev/null
        done
        [ -n "$BR" ] && ip link del "$BR" 2>/dev/null
        # a node's private TmpFS went with its mount namespace
    fi
    rm -rf "$D"
}
trap stop EXIT
fail() {
    echo "FAIL [slurm $MPI $TP]: $*"
    for f in "$D"/*.log; do echo "--- $f"; tail -20 "$f"; done
    exit 1
}
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# munge, on a socket of its own
dd if=/dev/urandom of="$D/munge.key" bs=1024 count=1 status=none
chmod 400 "$D/munge.key"
munged --force --socket="$D/munge.sock" --key-file="$D/munge.key" --pid-file="$D/munged.pid" \
    --log-file="$D/munged.log" --seed-file="$D/munged.seed" >/dev/null 2>&1 ||
    fail "munged did not start"

host=$(hostname -s)
nodes="NodeName=$host NodeAddr=127.0.0.1 CPUs=16 State=UNKNOWN"
part=$host ctl="$host(127.0.0.1)"
if [ "$NODES" = 2 ]; then
    # names of at most 15 characters; a subnet of this run's own
    NSP=kst$$ BR=kstbr$(( $$ % 100000 ))
    # the first 10.253.X/24 from this pid's on that no address of this host is in
    x=$(( $$ % 250 ))
    for k in $(seq 0 249); do
        ip -4 -o addr show 2>/dev/null | grep -qF "inet 10.253.$(( (x + k) % 250 + 1 ))." || break
    done
    NET=10.253.$(( (x + k) % 250 + 1 ))
    ip link add "$BR" type bridge 2>/dev/null || { echo "skipped: cannot make a bridge (ip link add type bridge)"; exit 77; }
    ip addr add "$NET.254/24" dev "$BR" && ip link set "$BR" up || fail "bridge $BR"
    for i in 1 2; do
        ip netns add "$NSP-n$i" &&
        ip link add "kv$$$i" type veth peer name eth0 netns "$NSP-n$i" &&
        ip link set "kv$$$i" master "$BR" up &&
        ip -n "$NSP-n$i" addr add "$NET.$i/24" dev eth0 &&
        ip -n "$NSP-n$i" link set eth0 up &&
        ip -n "$NSP-n$i" link set lo up || fail "network namespace $NSP-n$i"
    done
    nodes="NodeName=n1 NodeAddr=$NET.1 CPUs=8 State=UNKNOWN
NodeName=n2 NodeAddr=$NET.2 CPUs=8 State=UNKNOWN
TmpFS=$D/nodetmp"
    part=n1,n2 ctl="$host($NET.254)"
    mkdir -p "$D/nodetmp"
fi
cat >"$D/slurm.conf" <<EOF
ClusterName=kumitest
SlurmctldHost=$ctl
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SrunPortRange=$(( 40000 + RANDOM % 20000 ))-$(( 40000 + RANDOM % 20000 + 100 ))
AuthType=auth/munge
AuthInfo=socket=$D/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool.%n
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.%n.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
$nodes
PartitionName=kumi Nodes=$part Default=YES MaxTime=10 State=UP OverSubscribe=FORCE:8
EOF
mkdir -p "$D/state" "$D/spool.$host" "$D/spool.n1" "$D/spool.n2"
export SLURM_CONF=$D/slurm.conf
slurmctld -D -i -f "$SLURM_CONF" >"$D/slurmctld.out" 2>&1 &
pids="$pids $!"
if [ "$NODES" = 1 ]; then
    slurmd -D -f "$SLURM_CONF" -N "$host" >"$D/slurmd.out" 2>&1 &
    pids="$pids $!"
else
    # nsenter, not ip netns exec: that one remounts /sys, hiding the
    # cgroup file systems slurmd reads
    for i in 1 2; do
        nsenter --net="/var/run/netns/$NSP-n$i" unshare --uts --mount --propagation private \
            sh -c "mount -t tmpfs kumi-slurm-tmp '$D/nodetmp' && hostname n$i &&
                   exec slurmd -D -f '$SLURM_CONF' -N n$i" >"$D/slurmd.n$i.out" 2>&1 &
        pids="$pids $!"
    done
fi

# the node up: sinfo says idle, 30 s at most
end=$(( $(now_ms) + 30000 ))
until [ "$(sinfo -h -o %t 2>/dev/null | sort -u)" = idle ] &&
      [ "$(sinfo -h -o %D 2>/dev/null)" = "$NODES" ]; do
    [ "$(now_ms)" -ge "$end" ] && fail "the nodes are not up after 30 s: $(sinfo -h 2>&1)"
    sleep 0.2
done

if [ "$MPI" = exec ]; then
    env KST_MARK="$MARK" "$@"
    exit $?
fi

out=$D/out start=$(now_ms)
before=$(ls /dev/shm 2>/dev/null | grep -E '^kumi-' | sort)
spread=
[ "$NODES" = 2 ] && spread="-N 2 --ntasks-per-node=$(( N / 2 ))"
env KST_MARK="$MARK" KUMI_TRANSPORT="$TP" timeout -k 5 120 srun --mpi="$MPI" -n "$N" $spread \
    --overcommit "$@" >"$out" 2>&1
rc=$?
ms=$(( $(now_ms) - start ))
[ "$rc" = 0 ] || { cat "$out"; fail "srun exited with $rc"; }
sleep 0.3
# new shm objects whose pid (the job's slurmstepd: runtime/boot_pmi2.c)
# is gone: left behind (other jobs of the machine name live launchers)
left=$(ls /dev/shm 2>/dev/null | grep -E '^kumi-' | sort | comm -13 <(echo "$before") - |
    while read -r f; do
        p=${f#kumi-}
        p=${p%%-*}
        kill -0 "$p" 2>/dev/null || echo "$f"
    done)
# another launcher's job that just ended removes its own a moment later
[ -n "$left" ] && sleep 1 && left=$(for f in $left; do [ -e "/dev/shm/$f" ] && echo "$f"; done)
[ -n "$left" ] && fail "left in /dev/shm: $left"
left=$(marked)
[ -n "$left" ] && fail "processes of the job left: $left"
echo "ok   srun --mpi=$MPI -n $N $spread $(basename "$1") on $TP (${ms} ms)"
sed -n '1,5p' "$out"
exit 0
