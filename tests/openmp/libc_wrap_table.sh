#!/bin/sh
# libc_wrap_table.sh DEF LIB -- every KUMI_OMP_WRAP(name) row of DEF
# (bindings/openmp/libc_wrap.def, the table kumi-translate --openmp
# renames calls by) has kumi_omp_libc_name defined in LIB (libkumi-omp):
# a row without its wrapper would link-fail every program calling name.
set -u
def=$1 lib=$2
syms=$(nm -D --defined-only "$lib" | awk '{print $3}') || exit 1
rows=$(sed -n 's/^KUMI_OMP_WRAP(\([A-Za-z0-9_]*\).*/\1/p' "$def")
[ -n "$rows" ] || { echo "libc_wrap_table: no rows in $def"; exit 1; }
missing=0 n=0
for r in $rows; do
    n=$((n + 1))
    echo "$syms" | grep -qx "kumi_omp_libc_$r" || { echo "missing: kumi_omp_libc_$r"; missing=1; }
done
[ $missing = 0 ] && echo "libc_wrap_table: all $n rows have their wrapper"
exit $missing
