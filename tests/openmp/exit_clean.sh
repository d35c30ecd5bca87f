#!/bin/sh
# exit_clean.sh KUMIRUN DIR N TRANSPORT -- every PE of DIR/kumi (a
# tests/openmp program built by omp_test.sh) ends with status 0, none by a
# signal. kumirun does not judge a PE's status once the job is ending (the
# master's exit ends it), so each PE runs under a shell that records the
# program's own status: a worker that crashed in its exit handlers
# (kumi_global_exit entered a second time from libkumi-omp's on_exit
# handler, with the bootstrap already gone) shows up as 139 here.
set -u
kumirun=$1 dir=$2 n=$3 tp=$4
kumienv=
[ -n "${KUMI_OMP_TEST_PRELOAD:-}" ] && kumienv="LD_PRELOAD=$KUMI_OMP_TEST_PRELOAD"
[ -x "$dir/kumi" ] || { echo "exit_clean: $dir/kumi missing (the build test failed)" >&2; exit 1; }
st=$(mktemp -d "${TMPDIR:-/tmp}/kumi-exit-clean.XXXXXX") || exit 1
trap 'rm -rf "$st"' EXIT
"$kumirun" -n "$n" --transport "$tp" --timeout 60 sh -c \
    'env '"$kumienv"' "$1" >/dev/null; s=$?; echo $s > "$2/st.$$"; exit $s' \
    exit_clean "$dir/kumi" "$st"
rc=$?
got=$(cat "$st"/st.* 2>/dev/null | sort | tr '\n' ' ')
echo "exit_clean: kumirun status $rc; the PEs' statuses: $got"
[ "$rc" = 0 ] || { echo "exit_clean: kumirun failed"; exit 1; }
[ "$(ls "$st" | wc -l)" = "$n" ] || { echo "exit_clean: expected $n statuses"; exit 1; }
for f in "$st"/st.*; do
    [ "$(cat "$f")" = 0 ] || { echo "exit_clean: a PE ended with status $(cat "$f")"; exit 1; }
done
