#!/bin/sh
# run.sh BINDIR -- configure the autoconf project beside this script with
# CC=BINDIR/mpicc (as one configures the OSU micro-benchmarks), check what
# its link tests found, build osu_link.c with it and run that on 2 PEs
# with BINDIR/mpirun. Exit 77 (CTest: skipped) when autoconf is missing.
set -eu
bindir=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v autoconf >/dev/null 2>&1; then
    echo "SKIP: autoconf is not installed (make deps installs it)"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kumi-mpi-autoconf.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cp "$here/configure.ac" "$here/Makefile.in" "$here/result.txt.in" "$here/../osu_link.c" "$tmp/"
cd "$tmp"
autoconf
# mpicc is found on PATH by configure and by make alike (another MPI's
# mpicc may sit in /usr/bin)
PATH="$bindir:$PATH"
export PATH
CC=mpicc ./configure -q
want="one_sided=yes mpi3_rma=yes mpi4=no oshm=no"
got=$(cat result.txt)
if [ "$got" != "$want" ]; then
    echo "FAIL: configure with CC=mpicc found: $got (want: $want)"
    exit 1
fi
echo "configure: $got"
make -s
if ! ldd ./osu_link | grep -q 'libkumi-mpi'; then
    echo "FAIL: osu_link was not linked against libkumi-mpi:"
    ldd ./osu_link
    exit 1
fi
"$bindir/mpirun" -np 2 --timeout 60 ./osu_link
