#!/bin/sh
# run.sh -- the cost of kumicc on code that never touches the DSM
# (bench/ptrchase/README.md): builds each program with clang-14 -O2 and
# with kumicc -O2 (translated), runs both alternately, prints the median
# of the timed parts and the ratio kumicc/clang, and the geometric mean.
#
#   bench/ptrchase/run.sh [--kumicc PATH] [--runs N] [--out DIR] [--keep] [PROG...]
#     --kumicc PATH   default: $KUMICC, else build/bin/kumicc of this tree
#     --runs N        runs per build (default 7; at least 5 is sensible)
#     --out DIR       where the executables go (default: a temporary dir)
#     PROG            interp hash tree (default: all)
# KUMI_TRANSLATE_FLAGS (e.g. --no-version) reaches kumi-translate through
# kumicc; KUMICC_CLANG is the reference compiler too (default clang-14).
# Exit status 1 if a build fails, a program fails its own check, or the
# two builds print different results.
set -eu

here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
kumicc="${KUMICC:-$here/../../build/bin/kumicc}"
clang="${KUMICC_CLANG:-clang-14}"
runs=7
out=
keep=0
progs=
while [ $# -gt 0 ]; do
    case "$1" in
        --kumicc) kumicc="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --keep) keep=1; shift ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
        *) progs="$progs $1"; shift ;;
    esac
done
[ -n "$progs" ] || progs="interp hash tree"
case "$runs" in '' | *[!0-9]*) echo "run.sh: --runs wants a number" >&2; exit 2 ;; esac
[ -x "$kumicc" ] || { echo "run.sh: no kumicc at $kumicc (--kumicc PATH)" >&2; exit 2; }
if [ -z "$out" ]; then
    out=$(mktemp -d "${TMPDIR:-/tmp}/ptrchase.XXXXXX")
    [ "$keep" = 1 ] || trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"

# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# timed PROG.BUILD: runs it once, checks "OK", prints the time, keeps the
# first line (the results) in PROG.BUILD.res
timed() {
    if ! "$out/$1" > "$out/$1.log" 2>&1 || ! grep -qx OK "$out/$1.log"; then
        echo "run.sh: $1 failed:" >&2
        cat "$out/$1.log" >&2
        exit 1
    fi
    head -n 1 "$out/$1.log" > "$out/$1.res"
    sed -n 's/^time //p' "$out/$1.log"
}

PROGRESS_NAME=run.sh
# progress on stderr, one line rewritten in place, only when stderr is a
# terminal (a log or a test's capture gets nothing); progress_end clears it
progress() { [ -t 2 ] && printf '\r\033[K%s: %s' "$PROGRESS_NAME" "$*" >&2; return 0; }
progress_end() { [ -t 2 ] && printf '\r\033[K' >&2; return 0; }

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg), $runs runs each, medians"
echo "# kumicc: $kumicc${KUMI_TRANSLATE_FLAGS:+ (KUMI_TRANSLATE_FLAGS=$KUMI_TRANSLATE_FLAGS)}"
printf '%-8s %10s %10s %7s\n' program clang_s kumicc_s ratio
logsum=0
n=0
for p in $progs; do
    src="$here/$p.c"
    [ -f "$src" ] || { echo "run.sh: no $src" >&2; exit 2; }
    "$clang" -O2 -o "$out/$p.clang" "$src"
    KUMI_TRANSLATE=1 "$kumicc" -O2 -w -o "$out/$p.kumicc" "$src"
    : > "$out/$p.clang.t"
    : > "$out/$p.kumicc.t"
    i=0
    while [ "$i" -lt "$runs" ]; do       # alternate, so load changes hit both
        progress "$p: run $((i + 1)) of $runs"
        timed "$p.clang" >> "$out/$p.clang.t"
        timed "$p.kumicc" >> "$out/$p.kumicc.t"
        i=$((i + 1))
    done
    if ! cmp -s "$out/$p.clang.res" "$out/$p.kumicc.res"; then
        echo "run.sh: $p: the builds disagree: $(cat "$out/$p.clang.res") / $(cat "$out/$p.kumicc.res")" >&2
        exit 1
    fi
    progress_end
    tc=$(median < "$out/$p.clang.t")
    tk=$(median < "$out/$p.kumicc.t")
    r=$(awk -v a="$tk" -v b="$tc" 'BEGIN { printf "%.3f", a / b }')
    printf '%-8s %10.4f %10.4f %7s\n' "$p" "$tc" "$tk" "$r"
    logsum=$(awk -v s="$logsum" -v r="$r" 'BEGIN { printf "%.6f", s + log(r) }')
    n=$((n + 1))
done
awk -v s="$logsum" -v n="$n" 'BEGIN { printf "%-8s %10s %10s %7.3f\n", "geomean", "", "", exp(s / n) }'
