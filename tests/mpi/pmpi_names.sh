#!/bin/sh
# pmpi_names.sh -- the profiling interface is complete: every MPI_ function
# that mpi.h declares has a PMPI_ twin declared there with the same
# signature, and libkumi-mpi (shared and static) defines the PMPI_ name
# and the MPI_ name as a weak symbol at the same address, so a tool may
# define MPI_X and call PMPI_X. A function added to mpi.h without its twin,
# or defined without the weak alias, fails this test.
#
#   tests/mpi/pmpi_names.sh CC MPI_H_DIR LIBKUMI_MPI_SO LIBKUMI_MPI_A
set -u
[ $# -eq 4 ] || { echo "usage: pmpi_names.sh CC MPI_H_DIR SO A" >&2; exit 2; }
cc=$1 inc=$2 so=$3 ar=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmpi_names.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
printf '#include <mpi.h>\n' > "$tmp/h.c"
# -aux-info: one line per declared function, "extern RET NAME (ARGS);"
"$cc" -I"$inc" -aux-info "$tmp/aux" -c "$tmp/h.c" -o "$tmp/h.o" || exit 2
sed -n 's/^\/\*[^*]*\*\/ extern //p' "$tmp/aux" \
    | awk 'match($0, / P?MPI_[A-Za-z0-9_]* \(/) {
               name = substr($0, RSTART + 1, RLENGTH - 3)
               print name "|" substr($0, 1, RSTART - 1) "|" substr($0, RSTART + RLENGTH) }' \
    | sort > "$tmp/decls"
grep '^MPI_' "$tmp/decls" > "$tmp/mpi"
grep '^PMPI_' "$tmp/decls" | sed 's/^P//' > "$tmp/pmpi"
n=$(wc -l < "$tmp/mpi")
[ "$n" -gt 200 ] || { echo "pmpi_names: only $n MPI_ functions found in mpi.h" >&2; exit 1; }
fail=0
# the same names with the same return and argument types
if ! cmp -s "$tmp/mpi" "$tmp/pmpi"; then
    echo "pmpi_names: MPI_ and PMPI_ declarations in mpi.h differ (< MPI_, > PMPI_):"
    diff "$tmp/mpi" "$tmp/pmpi" | grep '^[<>]'
    fail=1
fi
# symbol tables: NAME TYPE VALUE (the shared library's dynamic ones)
nm -D --defined-only "$so" | awk 'NF == 3 { print $3, $2, $1 }' | sort > "$tmp/so.syms"
nm --defined-only "$ar" 2>/dev/null | awk 'NF == 3 { print $3, $2, $1 }' | sort > "$tmp/a.syms"
# one awk pass a library (a grep a name took minutes on a loaded machine)
cut -d'|' -f1 "$tmp/mpi" > "$tmp/names"
for lib in so a; do
    awk -v lib="$lib" '
        FNR == NR { if (!($1 in type)) { type[$1] = $2; addr[$1] = $3 }; next }
        {
            name = $1; p = "P" name
            tp = (p in type) ? type[p] : "missing"
            tw = (name in type) ? type[name] : "missing"
            if (tp != "T")
                printf "pmpi_names: %s: %s is not defined (T): %s\n", lib, p, tp
            if (tw != "W")
                printf "pmpi_names: %s: %s is not a weak symbol (W): %s\n", lib, name, tw
            # the weak name is an alias: same address as the PMPI_ name
            else if (addr[p] != addr[name])
                printf "pmpi_names: %s: %s and %s differ\n", lib, name, p
        }' "$tmp/$lib.syms" "$tmp/names" >> "$tmp/bad"
done
[ -s "$tmp/bad" ] && cat "$tmp/bad"
[ -s "$tmp/bad" ] && fail=1
[ $fail -eq 0 ] && echo "pmpi_names: $n MPI_ functions, each with its PMPI_ twin (shared and static)"
exit $fail
