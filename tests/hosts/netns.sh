# netns.sh -- two "hosts" on this machine: network namespaces joined by a
# veth pair. Each host's address (10.213.0.1, 10.213.0.2) sits on its own
# lo, and the pair carries a transit /30 (10.213.1.1, 10.213.1.2) with a
# route to the other host: deleting the pair then cuts the hosts apart
# without taking a host's own address away (as a cut cable would not),
# so the surviving host's PEs and kumirun keep talking. Nothing outside
# the two namespaces is touched. Sourced by hosts.sh after
# tests/launcher/lib.sh; sets NS1 NS2 VETH1 HOST1 HOST2 NSRSH_MAP and
# removes everything on exit, whatever happens. Names carry our pid, so
# tests can run in parallel (the same addresses in other namespace pairs
# never meet). Exits 77 (skip) when not root or without `ip netns`.

HOST1=10.213.0.1 HOST2=10.213.0.2
NS1=kumi-h$$-1 NS2=kumi-h$$-2
VETH1=kv$$a VETH2=kv$$b          # interface names: at most 15 characters

netns_skip() {
    echo "SKIP [$TEST]: $* (the hosts tests need root and ip netns)"
    exit 77
}

netns_cleanup() {
    local ns pids
    for ns in "$NS1" "$NS2"; do
        ip netns list 2>/dev/null | grep -qw "^$ns" || continue
        pids=$(ip netns pids "$ns" 2>/dev/null)
        [ -n "$pids" ] && kill -9 $pids 2>/dev/null
        ip netns del "$ns" 2>/dev/null
    done
}

[ "$(id -u)" = 0 ] || netns_skip "not root"
command -v ip >/dev/null || netns_skip "no ip command"
trap 'netns_cleanup; klt_cleanup' EXIT
ip netns add "$NS1" 2>/dev/null || netns_skip "ip netns add failed"
ip netns add "$NS2" || fail "ip netns add $NS2"
ip link add "$VETH1" netns "$NS1" type veth peer name "$VETH2" netns "$NS2" ||
    fail "cannot create the veth pair"
ip -n "$NS1" link set lo up && ip -n "$NS2" link set lo up &&
ip -n "$NS1" addr add "$HOST1/32" dev lo && ip -n "$NS2" addr add "$HOST2/32" dev lo &&
ip -n "$NS1" addr add 10.213.1.1/30 dev "$VETH1" && ip -n "$NS1" link set "$VETH1" up &&
ip -n "$NS2" addr add 10.213.1.2/30 dev "$VETH2" && ip -n "$NS2" link set "$VETH2" up &&
ip -n "$NS1" route add "$HOST2/32" via 10.213.1.2 src "$HOST1" &&
ip -n "$NS2" route add "$HOST1/32" via 10.213.1.1 src "$HOST2" ||
    fail "cannot configure the namespaces"
export NSRSH_MAP="$HOST1=$NS1 $HOST2=$NS2"
# the pair is up when one host can reach the other
for _ in $(seq 50); do
    ip netns exec "$NS1" ping -c1 -W1 "$HOST2" >/dev/null 2>&1 && break
    sleep 0.1
done
