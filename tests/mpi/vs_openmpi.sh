#!/bin/sh
# vs_openmpi.sh -- builds MPI test programs with Open MPI's mpicc and with
# kumi's, runs both the same way and compares what they print (stdout) and
# whether they succeed. Run by hand (or `make`'s separate target), never by
# `make test`: it needs Open MPI and takes a while.
#
#   tests/mpi/vs_openmpi.sh [-b BUILD] [-n "2 3"] [--all] [CASE...]
#
#   -b BUILD   kumi's build directory (default: build): BUILD/bin/mpicc, mpirun
#   -n LIST    rank counts to run each case with (default: "2 3")
#   --all      every tests/mpi/*.c program with its default arguments, not
#              only the core cases below (programs whose output depends on
#              the MPI, such as the link test, may differ)
#   CASE       PROGRAM[:ARGS[:fail]] with ARGS comma-separated; "fail": the
#              run must fail (non-zero status) with both MPIs, and only the
#              lines printed before are compared
# OMPI_MPICC, OMPI_MPIRUN: Open MPI's wrappers (default /usr/bin/mpicc and
# /usr/bin/mpirun; they run with --oversubscribe --allow-run-as-root).
# Exit status: 0 when every case printed the same with both, 1 otherwise.
set -u
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
build=build
counts="2 3"
all=0
while [ $# -gt 0 ]; do
    case "$1" in
        -b) build=$2; shift 2 ;;
        -n) counts=$2; shift 2 ;;
        --all) all=1; shift ;;
        -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
        --) shift; break ;;
        -*) echo "vs_openmpi.sh: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
done
kmpicc="$build/bin/mpicc"
kmpirun="$build/bin/mpirun"
ompicc=${OMPI_MPICC:-/usr/bin/mpicc}
ompirun=${OMPI_MPIRUN:-/usr/bin/mpirun}
for tool in "$kmpicc" "$kmpirun" "$ompicc" "$ompirun"; do
    [ -x "$tool" ] || { echo "vs_openmpi.sh: $tool is missing (build kumi; install Open MPI)" >&2; exit 2; }
done

if [ $# -gt 0 ]; then
    cases="$*"
elif [ "$all" = 1 ]; then
    cases=
    for f in "$here"/*.c; do
        b=$(basename "$f" .c)
        case "$b" in
            err_fatal|err_peer|osu_link|win_err|win_errfatal|nbc_err) ;;   # fail on purpose / MPI-specific
            *) cases="$cases $b" ;;
        esac
    done
else
    cases="env_init env_init:plain env_init:after:fail p2p_match p2p_modes req_many comm_split
           err_return err_fatal:rank:fail err_fatal:abort:fail"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vs_openmpi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
differ=0
same=0
for c in $cases; do
    prog=${c%%:*}
    rest=${c#"$prog"}
    rest=${rest#:}
    args=${rest%%:*}
    want=${rest#"$args"}
    want=${want#:}
    src="$here/$prog.c"
    [ -f "$src" ] || { echo "vs_openmpi.sh: no $src" >&2; differ=$((differ + 1)); continue; }
    if [ ! -x "$tmp/$prog.kumi" ]; then
        if ! "$kmpicc" -O2 -I"$here" "$src" -o "$tmp/$prog.kumi" -lm 2>"$tmp/cc.err"; then
            echo "BUILD FAILED (kumi)       $prog"; cat "$tmp/cc.err"; differ=$((differ + 1)); continue
        fi
        if ! "$ompicc" -O2 -I"$here" "$src" -o "$tmp/$prog.ompi" -lm 2>"$tmp/cc.err"; then
            echo "BUILD FAILED (Open MPI)   $prog"; cat "$tmp/cc.err"; differ=$((differ + 1)); continue
        fi
    fi
    # shellcheck disable=SC2086
    set -- $(printf '%s' "$args" | tr ',' ' ')
    for n in $counts; do
        label="$prog${args:+ $args} -n $n"
        timeout 300 "$kmpirun" -np "$n" "$tmp/$prog.kumi" "$@" >"$tmp/out.kumi" 2>"$tmp/err.kumi"
        rk=$?
        timeout 300 "$ompirun" --oversubscribe --allow-run-as-root -np "$n" "$tmp/$prog.ompi" "$@" \
            >"$tmp/out.ompi" 2>"$tmp/err.ompi"
        ro=$?
        ok=1
        if [ "$want" = fail ]; then
            [ "$rk" != 0 ] && [ "$ro" != 0 ] || ok=0
        else
            [ "$rk" = 0 ] && [ "$ro" = 0 ] || ok=0
        fi
        if [ "$ok" = 1 ] && cmp -s "$tmp/out.kumi" "$tmp/out.ompi"; then
            printf 'same       %s\n' "$label"
            same=$((same + 1))
        else
            printf 'DIFFERENT  %s (exit status: kumi %s, Open MPI %s)\n' "$label" "$rk" "$ro"
            diff "$tmp/out.ompi" "$tmp/out.kumi" | sed 's/^/    /' | head -20
            [ "$rk" != 0 ] && sed 's/^/    kumi: /' "$tmp/err.kumi" | head -5
            [ "$ro" != 0 ] && sed 's/^/    Open MPI: /' "$tmp/err.ompi" | head -5
            differ=$((differ + 1))
        fi
    done
done
echo "vs_openmpi.sh: $same same, $differ different"
[ "$differ" = 0 ]
