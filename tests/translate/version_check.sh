#!/bin/sh
# version_check.sh NPES KUMIRUN [ARGS...] -- runs `KUMIRUN -n NPES ARGS`
# (tests/translate/version.c) and passes only if kumirun exits with 0 (it
# does not when any PE exits non-zero or without kumi_finalize), every PE
# 0..NPES-1 printed "version: PE p of NPES: exit 0", and PE 0 printed its
# summary with 0 bad.
# version_check.sh --fail NPES KUMIRUN [ARGS...] -- the negative control:
# passes only if kumirun exits non-zero and a PE printed "version: BAD".
fail=0
if [ "$1" = --fail ]; then
    fail=1
    shift
fi
n=$1 kumirun=$2
shift 2
out=$("$kumirun" -n "$n" "$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ $fail = 1 ]; then
    if [ $rc = 0 ]; then
        echo "version_check.sh: the job exited with 0, expected a failure"
        exit 1
    fi
    if ! printf '%s\n' "$out" | grep -q 'version: BAD'; then
        echo "version_check.sh: the job failed ($rc) but no PE printed 'version: BAD'"
        exit 1
    fi
    echo "version_check.sh: failed as it should (exit status $rc, BAD reported)"
    exit 0
fi
status=0
if [ $rc != 0 ]; then
    echo "version_check.sh: kumirun exited with $rc, expected 0"
    status=1
fi
p=0
while [ $p -lt "$n" ]; do
    if ! printf '%s\n' "$out" | grep -qx "version: PE $p of $n: exit 0"; then
        echo "version_check.sh: no 'version: PE $p of $n: exit 0' line (PE $p failed or did not finish)"
        status=1
    fi
    p=$((p + 1))
done
if ! printf '%s\n' "$out" | grep -Eq '^version: PE 0: [0-9]+ scans, [0-9]+ mixed, 0 bad ok$'; then
    echo "version_check.sh: no summary line of PE 0 with 0 bad"
    status=1
fi
if printf '%s\n' "$out" | grep -q 'BAD'; then
    echo "version_check.sh: a PE reported BAD"
    status=1
fi
[ $status = 0 ] && echo "version_check.sh: all $n PEs exited with 0, summary ok"
exit $status
