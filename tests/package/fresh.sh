#!/usr/bin/env bash
# fresh.sh -- the Debian package on a fresh Debian 12 (label package,
# `make test-package`): makes a minimal bookworm root with debootstrap (kept
# as a tarball in KUMI_FRESH_CACHE, default /var/cache/kumi-test, so later
# runs download nothing for it), unpacks a pristine copy, and there, as a
# user who has nothing but Debian would: `apt-get install ./kumi_*.deb`
# (which must pull in every library and tool the package needs from the
# Debian archive), compiles a kumi hello with kumicc and an OpenSHMEM one
# with oshcc.kumi, runs each with kumirun -n 2, and removes the package.
# The copy is deleted afterwards, its mounts undone.
# Needs root, debootstrap and the Debian archive (deb.debian.org or the
# mirror in KUMI_FRESH_MIRROR): skips (77) without them, saying which.
# usage: fresh.sh BUILD_DIR SOURCE_DIR   (after smoke.sh built the package,
#        or builds it itself)
set -euo pipefail
build=$1 src=$2
mirror=${KUMI_FRESH_MIRROR:-http://deb.debian.org/debian}
cache=${KUMI_FRESH_CACHE:-/var/cache/kumi-test}
base=$cache/bookworm-minbase.tar

if [ "$(id -u)" -ne 0 ]; then
  echo "skipped: a chroot and its mounts need root (this is uid $(id -u))"
  exit 77
fi
command -v debootstrap >/dev/null ||
  { echo "skipped: debootstrap not found (apt-get install debootstrap)"; exit 77; }
host=${mirror#*://}; host=${host%%/*}
# the archive is needed every time: apt-get fetches the package's Depends
timeout 20 bash -c "exec 3<>/dev/tcp/$host/80" 2>/dev/null ||
  { echo "skipped: the Debian archive ($host) is not reachable"; exit 77; }

tmp=$(mktemp -d /var/tmp/kumi-fresh.XXXXXX)
root=$tmp/root
mounted=()
cleanup() {
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount -l "${mounted[i]}" 2>/dev/null || echo "fresh.sh: umount ${mounted[i]} failed"
  done
  rm -rf --one-file-system "$tmp"
}
trap cleanup EXIT

# 1. the package (smoke.sh's, or build it)
debs=("$build"/kumi_*_*.deb)
if [ ! -f "${debs[0]}" ]; then
  cmake --build "$build" --target package >"$tmp/cpack.log" 2>&1 ||
    { cat "$tmp/cpack.log"; echo "FAIL: cmake --build $build --target package"; exit 1; }
  debs=("$build"/kumi_*_*.deb)
fi
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] ||
  { echo "FAIL: no single kumi_<version>_<arch>.deb in $build: ${debs[*]}"; exit 1; }
deb=${debs[0]}

# 2. a pristine bookworm (minbase: no compiler, no kumi dependency)
if [ ! -f "$base" ]; then
  mkdir -p "$cache"
  echo "fresh.sh: debootstrap --variant=minbase bookworm from $mirror (once; cached in $base)"
  timeout 1200 debootstrap --variant=minbase bookworm "$tmp/base" "$mirror" \
    >"$tmp/debootstrap.log" 2>&1 ||
    { tail -30 "$tmp/debootstrap.log"; echo "FAIL: debootstrap bookworm"; exit 1; }
  tar -C "$tmp/base" -cf "$base.part" . && mv "$base.part" "$base"
  rm -rf --one-file-system "$tmp/base"
fi
mkdir "$root"
tar -C "$root" -xf "$base"
for p in gcc clang-14 libjemalloc2 libhwloc15; do
  if chroot "$root" dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
    echo "FAIL: the fresh root already has $p: not a fresh system"; exit 1
  fi
done
mount -t proc proc "$root/proc" && mounted+=("$root/proc")
mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev" && mounted+=("$root/dev")
mount -t tmpfs -o size=1g tmpfs "$root/dev/shm" && mounted+=("$root/dev/shm")
cp /etc/resolv.conf "$root/etc/resolv.conf"
echo "deb $mirror bookworm main" > "$root/etc/apt/sources.list"
cp "$deb" "$root/tmp/"
cp "$src/tests/install/consumer.c" "$src/tests/install/shmem_consumer.c" "$root/tmp/"

# 3. install it as a user would, then use it
in_root() { timeout "$1" chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
              HOME=/root DEBIAN_FRONTEND=noninteractive bash -c "$2"; }
in_root 900 "apt-get update -qq && apt-get install -y -qq --no-install-recommends \
  /tmp/$(basename "$deb")" >"$tmp/apt.log" 2>&1 ||
  { tail -40 "$tmp/apt.log"; echo "FAIL: apt-get install ./$(basename "$deb") on a fresh bookworm"; exit 1; }
n=$(grep -c '^Setting up ' "$tmp/apt.log" || true)
out=$(in_root 300 'set -e; cd /tmp
  [ -x /usr/bin/kumi-translate ] || export KUMI_TRANSLATE=0
  kumicc -O2 consumer.c -o hello
  oshcc.kumi -O2 shmem_consumer.c -o shmem_hello
  for exe in ./hello ./shmem_hello; do kumirun -n 2 --timeout 60 "$exe"; done' 2>&1) ||
  { echo "$out"; echo "FAIL: compiling or running with the installed package"; exit 1; }
[ "$(grep -c ': 42$' <<<"$out")" = 4 ] ||
  { echo "$out"; echo "FAIL: expected 2 lines ending ': 42' from each program"; exit 1; }
in_root 300 "apt-get remove -y -qq kumi" >"$tmp/apt.log" 2>&1 ||
  { cat "$tmp/apt.log"; echo "FAIL: apt-get remove kumi"; exit 1; }
[ ! -e "$root/usr/bin/kumirun" ] || { echo "FAIL: kumirun left after apt-get remove"; exit 1; }
echo "fresh bookworm: apt-get install ./$(basename "$deb") set up $n packages; kumicc and" \
     "oshcc.kumi programs ran under kumirun -n 2; removed"
