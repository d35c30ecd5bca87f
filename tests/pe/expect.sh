#!/bin/sh
# expect.sh RC REGEX COMMAND [ARGS...]
# Runs COMMAND; passes only if it exits with status RC and its output
# (stdout and stderr) has a line matching the extended regular expression
# REGEX. For tests whose point is that a job fails in a particular way.
want=$1 regex=$2
shift 2
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" != "$want" ]; then
    echo "expect.sh: '$*' exited with $rc, expected $want"
    exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$regex"; then
    echo "expect.sh: no line of the output matches '$regex'"
    exit 1
fi
echo "expect.sh: exit status $rc and message as expected"
