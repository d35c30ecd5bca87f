#!/usr/bin/env bash
# smoke.sh -- the Debian package end to end (label package, `make
# test-package`): builds it (`cmake --build BUILD --target package`),
# installs it on this machine with apt-get (offline when its Depends are
# already installed, as after .ci/deps), compiles a kumi hello with the
# installed kumicc and an OpenSHMEM one with oshcc.kumi, runs each with the
# installed kumirun -n 2, then removes the package and checks that nothing
# it installed is left (files, directories, the mpicc/mpirun alternatives).
# Needs root: skips (77) otherwise. Refuses to run when a kumi package is
# already installed (it would remove someone's install).
# usage: smoke.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
if [ "$(id -u)" -ne 0 ]; then
  echo "skipped: installing a Debian package needs root (this is uid $(id -u))"
  exit 77
fi
for t in apt-get dpkg dpkg-deb update-alternatives; do
  command -v $t >/dev/null || { echo "skipped: $t not found (not a Debian system)"; exit 77; }
done
if dpkg-query -W -f='${Status}' kumi 2>/dev/null | grep -q 'install ok installed'; then
  echo "FAIL: a kumi package is already installed; remove it first (apt-get remove kumi)"
  exit 1
fi
tmp=$(mktemp -d)
installed=0
cleanup() {
  if [ $installed -eq 1 ]; then
    apt-get remove -y -qq kumi >/dev/null 2>&1 || echo "smoke.sh: apt-get remove kumi failed"
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# 1. build it (a stale package from an older build must not be tested)
rm -f "$build"/kumi_*.deb
cmake --build "$build" --target package >"$tmp/cpack.log" 2>&1 ||
  { cat "$tmp/cpack.log"; echo "FAIL: cmake --build $build --target package"; exit 1; }
debs=("$build"/kumi_*_*.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] ||
  { echo "FAIL: no single kumi_<version>_<arch>.deb in $build: ${debs[*]}"; exit 1; }
deb=${debs[0]}
ver=$(dpkg-deb -f "$deb" Version) arch=$(dpkg-deb -f "$deb" Architecture)
[ "$(basename "$deb")" = "kumi_${ver}_${arch}.deb" ] ||
  { echo "FAIL: $(basename "$deb") is not named kumi_${ver}_${arch}.deb"; exit 1; }
deps=$(dpkg-deb -f "$deb" Depends)
for d in libjemalloc2 libhwloc15 clang-14 gcc; do
  grep -qE "(^|, )$d( |,|$)" <<<"$deps" || { echo "FAIL: Depends lacks $d: $deps"; exit 1; }
done
if dpkg-deb -c "$deb" | grep -E 'kumi-bench-(mpi|shmem)'; then
  echo "FAIL: the package holds the Open MPI peers"; exit 1
fi

# 2. install it (no network needed when the Depends are there already)
export DEBIAN_FRONTEND=noninteractive
installed=1
apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=120 "$deb" \
  >"$tmp/apt.log" 2>&1 || { cat "$tmp/apt.log"; echo "FAIL: apt-get install $deb"; exit 1; }
dpkg -L kumi > "$tmp/files"
for f in /usr/bin/kumirun /usr/bin/kumicc /usr/bin/oshcc.kumi /usr/bin/mpicc.kumi \
         /usr/include/kumi.h /usr/include/shmem.h /usr/lib/pkgconfig/kumi.pc \
         /usr/share/man/man1/kumirun.1.gz /usr/share/man/man1/mpicc.kumi.1.gz; do
  grep -qx "$f" "$tmp/files" || { echo "FAIL: the package does not install $f"; exit 1; }
done
if grep -q '/man1/.*\.1$' "$tmp/files"; then
  echo "FAIL: the package installs uncompressed man pages:"; grep '/man1/.*\.1$' "$tmp/files"; exit 1
fi
if command -v man >/dev/null; then
  man -w kumirun 2>/dev/null | grep -q 'kumirun\.1\.gz$' ||
    { echo "FAIL: man -w kumirun does not find the installed page"; exit 1; }
fi
update-alternatives --list mpi | grep -qx /usr/bin/mpicc.kumi ||
  { echo "FAIL: mpicc.kumi is not an alternative of mpi"; exit 1; }

# 3. use it: everything from /usr, nothing from the build tree
cd "$tmp"
cp "$src/tests/install/consumer.c" "$src/tests/install/shmem_consumer.c" .
[ -x /usr/bin/kumi-translate ] || export KUMI_TRANSLATE=0
/usr/bin/kumicc -O2 consumer.c -o hello
/usr/bin/oshcc.kumi -O2 shmem_consumer.c -o shmem_hello
for exe in ./hello ./shmem_hello; do
  for l in $(ldd "$exe" | awk '/libkumi/ { print $3 }'); do
    case $(readlink -f "$l") in
      /usr/lib/*) ;;
      *) echo "FAIL: $exe loads $l, not the installed one"; exit 1 ;;
    esac
  done
  out=$(/usr/bin/kumirun -n 2 --timeout 60 "$exe")
  [ "$(grep -c ': 42$' <<<"$out")" = 2 ] || { echo "FAIL: $exe under kumirun -n 2: $out"; exit 1; }
done
# pkg-config finds the installed kumi.pc in its default path
cc consumer.c -o pc_hello $(pkg-config --cflags --libs kumi)
./pc_hello | grep -q 'PE 0 of 1 on shm: 42' || { echo "FAIL: the pkg-config build of consumer.c"; exit 1; }
cd /

# 4. remove it: nothing it installed is left
installed=0
apt-get remove -y -qq -o DPkg::Lock::Timeout=120 kumi >"$tmp/apt.log" 2>&1 ||
  { cat "$tmp/apt.log"; echo "FAIL: apt-get remove kumi"; exit 1; }
left=0
while read -r f; do
  [ -z "$f" ] || [ "$f" = /. ] && continue
  if [ -d "$f" ] && [ ! -L "$f" ]; then
    # a directory of its own (with kumi in its name) must be gone too
    case $f in *kumi*) echo "left: directory $f"; left=1 ;; esac
  elif [ -e "$f" ] || [ -L "$f" ]; then
    echo "left: $f"; left=1
  fi
done < "$tmp/files"
if update-alternatives --list mpi 2>/dev/null | grep -q kumi ||
   update-alternatives --list mpirun 2>/dev/null | grep -q kumi; then
  echo "left: kumi's mpicc/mpirun alternatives"; left=1
fi
[ $left -eq 0 ] || { echo "FAIL: apt-get remove kumi left files behind"; exit 1; }
# the maintainer scripts keep a removed package's record ("rc"): purge it
dpkg --purge kumi >/dev/null
echo "package: $(basename "$deb") ($(wc -l < "$tmp/files") paths) installed, kumicc and oshcc.kumi" \
     "programs ran under kumirun -n 2, removed without leftovers"
