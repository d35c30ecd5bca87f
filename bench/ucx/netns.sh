# shellcheck shell=bash
# bench/ucx/netns.sh -- the two "hosts" of run.sh and ab.sh, sourced by both:
# network namespaces joined by a veth pair, as tests/hosts/netns.sh makes
# them. Each host's address (UCXB_H1 10.213.0.1, UCXB_H2 10.213.0.2) sits on
# its own lo, the pair carries a transit /30 with a route to the other host,
# and both ends of the pair are named UCXB_DEV (kub0), so UCX_NET_DEVICES is
# one name on both hosts. Needs root.
#
#   ucxb_hosts_make TAG   makes namespaces TAG-1 and TAG-2 (UCXB_NS1,
#                         UCXB_NS2; TAG should carry the caller's pid) and
#                         waits until the pair is up; 1 on failure (said)
#   ucxb_hosts_del        kills whatever runs in them and deletes them
#                         (safe to call twice, or before make finished)
#   ucxb_rsh_write DIR CPU1 CPU2
#                         writes DIR/nsrsh (kumirun --rsh: HOST CMD... runs
#                         the argument vector CMD in HOST's namespace) and
#                         DIR/nsrsh-sh (Open MPI's plm_rsh_agent: its
#                         arguments are one shell command line, as for
#                         ssh); each host's processes run under taskset -c
#                         CPUn, or unpinned when CPUn is "all"

UCXB_H1=10.213.0.1 UCXB_H2=10.213.0.2 UCXB_DEV=kub0
UCXB_NS1="" UCXB_NS2=""

ucxb_hosts_del() {
    local ns pids
    for ns in $UCXB_NS1 $UCXB_NS2; do
        ip netns list 2>/dev/null | grep -qw "^$ns" || continue
        pids=$(ip netns pids "$ns" 2>/dev/null)
        # shellcheck disable=SC2086
        [ -n "$pids" ] && kill -9 $pids 2>/dev/null
        ip netns del "$ns" 2>/dev/null
    done
}

ucxb_hosts_make() {
    local tag=$1 a b
    UCXB_NS1=$tag-1 UCXB_NS2=$tag-2
    # veth names: at most 15 characters, unique per run (the pid in TAG)
    a=ub${tag//[!0-9]/}a b=ub${tag//[!0-9]/}b
    a=${a:0:15} b=${b:0:15}
    if ! { ip netns add "$UCXB_NS1" && ip netns add "$UCXB_NS2" &&
        ip link add "$a" netns "$UCXB_NS1" type veth peer name "$b" netns "$UCXB_NS2" &&
        ip -n "$UCXB_NS1" link set "$a" name "$UCXB_DEV" &&
        ip -n "$UCXB_NS2" link set "$b" name "$UCXB_DEV" &&
        ip -n "$UCXB_NS1" link set lo up && ip -n "$UCXB_NS2" link set lo up &&
        ip -n "$UCXB_NS1" addr add "$UCXB_H1/32" dev lo &&
        ip -n "$UCXB_NS2" addr add "$UCXB_H2/32" dev lo &&
        ip -n "$UCXB_NS1" addr add 10.213.1.1/30 dev "$UCXB_DEV" &&
        ip -n "$UCXB_NS1" link set "$UCXB_DEV" up &&
        ip -n "$UCXB_NS2" addr add 10.213.1.2/30 dev "$UCXB_DEV" &&
        ip -n "$UCXB_NS2" link set "$UCXB_DEV" up &&
        ip -n "$UCXB_NS1" route add "$UCXB_H2/32" via 10.213.1.2 src "$UCXB_H1" &&
        ip -n "$UCXB_NS2" route add "$UCXB_H1/32" via 10.213.1.1 src "$UCXB_H2"; }; then
        echo "netns.sh: cannot make the namespaces $UCXB_NS1, $UCXB_NS2" >&2
        return 1
    fi
    # UCX takes a device only once it is up with a carrier
    for _ in $(seq 100); do
        ip -n "$UCXB_NS1" -o link show "$UCXB_DEV" | grep -q 'state UP' &&
        ip -n "$UCXB_NS2" -o link show "$UCXB_DEV" | grep -q 'state UP' && return 0
        sleep 0.1
    done
    echo "netns.sh: the veth pair did not come up in 10 s" >&2
    return 1
}

ucxb_rsh_write() {
    local dir=$1 cpu1=$2 cpu2=$3 name run
    for name in nsrsh nsrsh-sh; do
        run='"$@"'
        [ "$name" = nsrsh-sh ] && run='sh -c "$*"'
        cat >"$dir/$name" <<EOF || return 1
#!/bin/sh
host=\$1
shift
case \$host in
$UCXB_H1) ns=$UCXB_NS1 cpu=$cpu1 ;;
$UCXB_H2) ns=$UCXB_NS2 cpu=$cpu2 ;;
*) echo "$name: no namespace plays host \$host" >&2; exit 255 ;;
esac
[ "\$cpu" = all ] && exec ip netns exec "\$ns" $run
exec ip netns exec "\$ns" taskset -c "\$cpu" $run
EOF
        chmod +x "$dir/$name" || return 1
    done
}
