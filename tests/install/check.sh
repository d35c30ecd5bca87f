#!/usr/bin/env bash
# Installs kumi from the build tree into a temporary prefix and builds a
# program against it with find_package(kumi), pkg-config and kumicc; runs
# each, alone and under the installed kumirun.
# usage: check.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name libkumi.a | head -n 1)")
libdir=${libdir#"$prefix"/}
for f in include/kumi.h bin/kumirun bin/kumicc $libdir/libkumi.so $libdir/libkumi.a \
         $libdir/pkgconfig/kumi.pc $libdir/cmake/kumi/kumiConfig.cmake \
         include/shmem.h include/shmemx.h $libdir/libkumi-shmem.so $libdir/libkumi-shmem.a \
         bin/oshcc bin/oshc++ bin/oshrun $libdir/pkgconfig/kumi-shmem.pc \
         include/kumi-mpi/mpi.h $libdir/libkumi-mpi.so $libdir/libkumi-mpi.a \
         bin/mpicc bin/mpicxx bin/mpirun bin/mpiexec $libdir/pkgconfig/kumi-mpi.pc; do
  [ -e "$prefix/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
# kumi-bench (kumi-compare and kumi-kernels run it from the bindir), and
# the man pages of docs/man (kumi-translate's only with the translator)
"$prefix/bin/kumi-bench" --list-ops | grep -qx barrier || { echo "FAIL: installed kumi-bench"; exit 1; }
for page in kumirun kumicc kumi-bench kumi-compare kumi-kernels oshcc oshc++ oshrun \
            mpicc mpicxx mpic++ mpirun mpiexec; do
  [ -n "$(find "$prefix" -path "*/man1/$page.1")" ] || { echo "FAIL: man page $page.1 not installed"; exit 1; }
done
# every program installed into bin has its page (docs/man; a new tool needs one)
for exe in "$prefix"/bin/*; do
  page=$(basename "$exe").1
  [ -n "$(find "$prefix" -path "*/man1/$page")" ] ||
    { echo "FAIL: bin/$(basename "$exe") is installed without a man page (add docs/man/$page)"; exit 1; }
done
# kumi.h, the OpenSHMEM binding's shmem.h and shmemx.h, and the OpenMP
# and MPI bindings' omp.h and mpi.h in their own directories (kumicc
# -fopenmp and mpicc add them; they must not shadow libomp's omp.h or
# another MPI's mpi.h for other compilers)
if ls "$prefix"/include | grep -qvE '^(kumi|shmem|shmemx)\.h$|^kumi-omp$|^kumi-mpi$'; then
  echo "FAIL: headers other than kumi.h, shmem.h, shmemx.h, kumi-omp/, kumi-mpi/ installed"; exit 1
fi
# the installed mpicc builds an MPI program that the installed mpirun runs
cat > "$tmp/mpi_hello.c" <<'EOF2'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank, size, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi ranks %d sum %d\n", size, sum);
    MPI_Finalize();
    return 0;
}
EOF2
"$prefix/bin/mpicc" "$tmp/mpi_hello.c" -o "$tmp/mpi_hello"
case $("$prefix/bin/mpicc" --showme:compile) in
  *"$prefix"*kumi-mpi*) ;;
  *) echo "FAIL: the installed mpicc does not name the install's include/kumi-mpi"; exit 1 ;;
esac
out=$("$prefix/bin/mpirun" -np 2 --timeout 60 "$tmp/mpi_hello")
[ "$out" = "mpi ranks 2 sum 1" ] || { echo "FAIL: installed mpicc/mpirun: $out"; exit 1; }

# 1. CMake package
cmake -S "$src/tests/install" -B "$tmp/cm" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/cm" >/dev/null
# 2. pkg-config (shared)
PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
export PKG_CONFIG_PATH
cc "$src/tests/install/consumer.c" -o "$tmp/pc" $(pkg-config --cflags --libs kumi) \
   -Wl,-rpath,"$prefix/$libdir"
# 3. the installed kumicc; --showme names the install, not the build tree
# (a kumi built with -DKUMI_TRANSLATOR=OFF has no kumi-translate: kumicc
# then stops unless told to compile without DSM checks)
[ -x "$prefix/bin/kumi-translate" ] || export KUMI_TRANSLATE=0
show=$("$prefix/bin/kumicc" --showme -O2 x.c -o x)
case "$show" in
  *"$build"*) echo "FAIL: installed kumicc points into the build tree: $show"; exit 1 ;;
  *"-L$prefix/bin/../$libdir -Wl"*"-lkumi"*) ;;
  *) echo "FAIL: kumicc --showme: $show"; exit 1 ;;
esac
"$prefix/bin/kumicc" -O2 "$src/tests/install/consumer.c" -o "$tmp/kc"

for exe in "$tmp/cm/consumer_shared" "$tmp/cm/consumer_static" "$tmp/pc" "$tmp/kc"; do
  "$exe" | grep -q 'PE 0 of 1 on shm: 42' || { echo "FAIL: $exe alone"; exit 1; }
  out=$("$prefix/bin/kumirun" -n 2 --timeout 60 "$exe")
  [ "$(grep -c ': 42$' <<<"$out")" = 2 ] || { echo "FAIL: $exe under kumirun: $out"; exit 1; }
done

# OpenSHMEM: the installed oshcc (and its --showme), pkg-config kumi-shmem,
# find_package(kumi) with kumi::shmem and kumi::shmem_static; run alone
# and with the installed oshrun
show=$("$prefix/bin/oshcc" --showme -O2 x.c -o x)
case "$show" in
  *"$build"*) echo "FAIL: installed oshcc points into the build tree: $show"; exit 1 ;;
  *"-I$prefix/bin/../include -O2 x.c -o x -L$prefix/bin/../$libdir -Wl,"*"-lkumi-shmem -lkumi") ;;
  *) echo "FAIL: oshcc --showme: $show"; exit 1 ;;
esac
"$prefix/bin/oshcc" -O2 "$src/tests/install/shmem_consumer.c" -o "$tmp/osh"
cc "$src/tests/install/shmem_consumer.c" -o "$tmp/pcsh" $(pkg-config --cflags --libs kumi-shmem) \
   -Wl,-rpath,"$prefix/$libdir"
for exe in "$tmp/osh" "$tmp/pcsh" "$tmp/cm/shmem_consumer_shared" "$tmp/cm/shmem_consumer_static"; do
  "$exe" | grep -q 'PE 0 of 1: 42' || { echo "FAIL: $exe alone"; exit 1; }
  out=$("$prefix/bin/oshrun" -np 2 --timeout 60 "$exe")
  [ "$(grep -c ': 42$' <<<"$out")" = 2 ] || { echo "FAIL: $exe under oshrun: $out"; exit 1; }
done
# OpenMP: the installed kumicc -fopenmp (when the translator is built)
nomp=0
if [ -x "$prefix/bin/kumi-translate" ]; then
  for f in include/kumi-omp/omp.h $libdir/libkumi-omp.so $libdir/kumi-omp-start.o; do
    [ -e "$prefix/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
  done
  show=$("$prefix/bin/kumicc" --showme -fopenmp -O2 x.c -o x)
  case "$show" in
    *"$build"*) echo "FAIL: installed kumicc -fopenmp points into the build tree: $show"; exit 1 ;;
  esac
  "$prefix/bin/kumicc" -fopenmp -O2 "$src/tests/install/omp_consumer.c" -o "$tmp/omp"
  out=$("$prefix/bin/kumirun" -n 2 --timeout 60 "$tmp/omp")
  [ "$out" = "threads 2 sum 42" ] || { echo "FAIL: kumicc -fopenmp program under kumirun: $out"; exit 1; }
  nomp=1
fi
echo "install: $((8 + nomp)) consumers built and ran (kumi: cmake shared, cmake static, pkg-config, kumicc;"
echo "         shmem: oshcc, pkg-config kumi-shmem, cmake kumi::shmem, kumi::shmem_static;"
echo "         openmp: kumicc -fopenmp, when the translator is built)"
