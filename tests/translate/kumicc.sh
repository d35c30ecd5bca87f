#!/bin/sh
# kumicc.sh KUMICC OUTDIR -- kumicc never makes an unchecked program
# silently, and -fopenmp links kumi's OpenMP runtime, never libomp:
#   - a missing translator, a missing clang, a failing translator or a
#     failing clang stop kumicc with an error naming the step (exit != 0,
#     no output file);
#   - KUMI_TRANSLATE=0 compiles without the translator (the opt-out);
#   - -S and -c -o NAME give translated code (the load's miss call is in
#     the assembly; the object's symbols name it) whatever the suffix;
#   - -fopenmp: clang -fopenmp to bitcode, kumi-translate --openmp, the link
#     with kumi-omp-start.o -lkumi-omp -lkumi and without -fopenmp/-lomp;
#     with KUMI_TRANSLATE=0 clang -fopenmp -c, linked the same way;
#     -fopenmp=libgomp is refused.
# Prints what failed and exits 1.
set -u
kc=$1 out=$2
mkdir -p "$out"
cd "$out" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
printf 'int get(int *p) { return *p; }\nint main(void) { return 0; }\n' > kc_get.c
printf 'int main(void) { return x; }\n' > kc_bad.c

# stops: exit status != 0, the message, no output
stops() {   # stops WHAT PATTERN ENV... -- ARGS...
    what=$1 pat=$2
    shift 2
    rm -f kc_out
    env "$@" > kc_msg 2>&1 && bad "$what: kumicc succeeded"
    grep -q -e "$pat" kc_msg || bad "$what: no '$pat' in: $(cat kc_msg)"
    [ -e kc_out ] && bad "$what: kumicc left kc_out"
}
stops "no translator" "kumicc: cannot translate: no kumi-translate" KUMI_TRANSLATE_BIN=/nonexistent/kumi-translate "$kc" -O2 kc_get.c -o kc_out
stops "no clang" "kumicc: cannot translate: clang-99 not found" KUMICC_CLANG=clang-99 "$kc" -O2 kc_get.c -o kc_out
stops "translator fails" "kumicc: kumi-translate failed" KUMI_TRANSLATE_FLAGS=--bogus "$kc" -O2 kc_get.c -o kc_out
stops "clang fails" "kumicc: clang-14 failed" "$kc" -O2 kc_bad.c -o kc_out
stops "-fopenmp=libgomp" "only libomp's ABI" "$kc" -fopenmp=libgomp kc_get.c -o kc_out
stops "-x" "kumicc: -x" "$kc" -x c kc_get.c -o kc_out

# the opt-out: no translator needed
rm -f kc_out
KUMI_TRANSLATE=0 KUMI_TRANSLATE_BIN=/nonexistent "$kc" -O2 kc_get.c -o kc_out || bad "KUMI_TRANSLATE=0: kumicc failed"
[ -x kc_out ] || bad "KUMI_TRANSLATE=0: no kc_out"

# translated assembly and objects under any name
rm -f kc_get.s kc_get.obj
"$kc" -O2 -S kc_get.c || bad "-S: kumicc failed"
grep -q kumi_dsm_load_miss kc_get.s 2>/dev/null || bad "-S: kc_get.s has no kumi_dsm_load_miss (not translated)"
"$kc" -O2 -c kc_get.c -o kc_get.obj || bad "-c -o kc_get.obj: kumicc failed"
nm kc_get.obj 2>/dev/null | grep -q kumi_dsm_load_miss || bad "-c -o kc_get.obj: not a translated object"

# -fopenmp: the commands
show=$("$kc" --showme -fopenmp -O2 kc_get.c -o kc_out)
echo "$show" | grep -q '^clang-14 .*-fopenmp.* -emit-llvm -c kc_get.c' || bad "-fopenmp: no clang -fopenmp to bitcode: $show"
echo "$show" | grep -q 'kumi-translate .* --openmp' || bad "-fopenmp: no kumi-translate --openmp: $show"
link=$(echo "$show" | tail -n 1)
case "$link" in
    *kumi-omp-start.o*-lkumi-omp\ -lkumi) ;;
    *) bad "-fopenmp: the link lacks kumi-omp-start.o ... -lkumi-omp -lkumi: $link" ;;
esac
case "$link" in *-fopenmp* | *-lomp* | *-lgomp* | *-liomp*) bad "-fopenmp: the link would take libomp/libgomp: $link" ;; esac
show=$(KUMI_TRANSLATE=0 "$kc" --showme -fopenmp -O2 kc_get.c -o kc_out)
echo "$show" | grep -q '^clang-14 .*-fopenmp.* -c kc_get.c' || bad "KUMI_TRANSLATE=0 -fopenmp: no clang -fopenmp -c: $show"
echo "$show" | grep -q 'kumi-translate' && bad "KUMI_TRANSLATE=0 -fopenmp: translated: $show"
link=$(echo "$show" | tail -n 1)
case "$link" in
    *kumi-omp-start.o*-lkumi-omp\ -lkumi) ;;
    *) bad "KUMI_TRANSLATE=0 -fopenmp: the link lacks kumi-omp-start.o ... -lkumi-omp -lkumi: $link" ;;
esac
case "$link" in *-fopenmp* | *-lomp*) bad "KUMI_TRANSLATE=0 -fopenmp: the link would take libomp: $link" ;; esac

[ "$fail" = 0 ] && echo "ok: kumicc"
exit "$fail"
