#!/bin/sh
# omp_check_ir.sh TRANSLATOR SRCDIR NAME OUTDIR -- runs SRCDIR/NAME.ll
# through kumi-translate --openmp (to .ll, unoptimized, so what the OpenMP
# pass made is visible; and to an -O2 object, which must assemble and
# have the sections it should) and checks the output with grep. Prints
# what failed and exits 1. The .ll is made with --no-gate (the checked
# body alone); omp_stack also checks a gated translation (the unchecked
# copy a job of one PE runs: KUMI_DSM_SOLO).
set -u
kt=$1 src=$2 name=$3 out=$4
mkdir -p "$out"
ll="$out/$name.ll" obj="$out/$name.o"
"$kt" --openmp --stats --no-gate "$src/$name.ll" -o "$ll" 2>"$out/$name.stats" ||
    { cat "$out/$name.stats"; echo "FAIL: kumi-translate --openmp $name.ll"; exit 1; }
"$kt" --openmp -O2 --no-warn "$src/$name.ll" -o "$obj" ||
    { echo "FAIL: kumi-translate --openmp -O2 $name.ll -o $name.o"; exit 1; }
cat "$out/$name.stats"
fail=0
# fn NAME: the body of function NAME in the output
fn() { awk -v f="@$1(" 'index($0, "define") == 1 && index($0, f) { p = 1 } p { print } p && /^}/ { exit }' "$ll"; }
# expect N PATTERN [FUNCTION]: PATTERN occurs on exactly N lines
expect() {
    if [ $# -ge 3 ]; then n=$(fn "$3" | grep -c -e "$2"); else n=$(grep -c -e "$2" "$ll"); fi
    if [ "$n" != "$1" ]; then
        echo "FAIL: $name: expected $1 line(s) matching '$2'${3:+ in @$3}, found $n"
        fail=1
    fi
}
# stat WORDS: the pass's --stats line holds WORDS
stat() { grep -q "openmp: .*$1" "$out/$name.stats" || { echo "FAIL: $name: stats lack '$1'"; fail=1; }; }
# section NAME TYPE: the object's section NAME has type TYPE
section() {
    readelf -SW "$obj" | grep -q " $1 *$2 " || { echo "FAIL: $name: section $1 is not $2 in $name.o"; fail=1; }
}
case "$name" in
omp_globals)
    stat 'globals data 5 bss 2 fixups 4 | uses rebased 8 foreign 1 .* byval copies 2 '
    expect 1 '^@data = .*section "kumi_omp_data"'
    expect 1 '^@ptr = .*section "kumi_omp_data"'
    expect 1 '^@n1 = .*section "kumi_omp_data"'
    expect 1 '^@ctab = dso_local global .*section "kumi_omp_data"'   # was constant
    # zero-initialized: defined by module asm in a NOBITS section
    expect 3 'module asm "\\09.pushsection kumi_omp_bss,\\22aw\\22,@nobits"'   # zero, stat, the end byte
    # a byte after the module's part of each section (one-past-the-end pointers stay inside)
    expect 1 'module asm "kumi.omp.bss.end:"'
    expect 1 '^@kumi.omp.data.end = internal global i8 0, section "kumi_omp_data"'
    expect 1 'module asm "\\09.globl zero"'
    expect 0 'module asm "\\09.globl stat"'
    expect 1 '^@zero = external global \[100 x i32\], align 16'
    expect 1 '^@stat = external global double'
    # left where they are
    for g in cint tls .gomp_critical_user_.var kumi_thing insec; do
        expect 0 "^@$g = .*kumi_omp"
    done
    grep -q "warning: 'insec' is in section 'mysec'" "$out/$name.stats" || { echo "FAIL: $name: no warning for insec"; fail=1; }
    # fixups: @ptr, @n1 + 8, @ctab, @ctab + 8
    expect 1 '^@kumi.omp.fixups = internal constant \[4 x i8\*\] \[i8\* bitcast (i32\*\* @ptr to i8\*), i8\* getelementptr (i8, i8\* bitcast (%struct.node\* @n1 to i8\*), i64 8), i8\* bitcast (\[2 x i32\*\]\* @ctab to i8\*), i8\* getelementptr (i8, i8\* bitcast (\[2 x i32\*\]\* @ctab to i8\*), i64 8)\], section "kumi_omp_fixups"'
    expect 1 '^@llvm.compiler.used = .*@kumi.omp.fixups'
    # every use in code goes through the delta
    expect 1 'load i64, i64\* @kumi_omp_data_delta' direct
    expect 2 'load i64, i64\* @kumi_omp_bss_delta' direct   # @zero, @stat
    expect 0 'store double 1.000000e+00, double\* @stat' direct
    expect 1 'load i32, i32\* @cint' direct
    expect 1 'load i32, i32\* @tls' direct
    # phi: rebuilt in the predecessors, one value for both entries of %x
    expect 1 '%p = phi i32\* \[ %kumi.live, %entry \], \[ %[0-9]*, %x \], \[ %[0-9]*, %x \]' phi
    expect 2 'kumi_omp_.*_delta' phi
    expect 1 'store i32\* %kumi.live, i32\*\* %out' escape
    expect 2 'insertelement <2 x i32\*> .*%kumi.live' escape
    expect 1 'insertvalue %struct.pr undef, i32\* %kumi.live, 0' aggr
    expect 1 'insertvalue %struct.pr %[0-9]*, i32 1, 1' aggr
    expect 2 'call void @llvm.memcpy.p0i8.p0i8.i64(i8\* align 8 %[0-9]*, i8\* align 1 %[0-9]*, i64 16' byv
    expect 1 'call void @takenode(%struct.node\* byval(%struct.node) align 8 %kumi.byval)' byv
    expect 1 'call void @takenode(%struct.node\* byval(%struct.node) align 8 %kumi.byval1)' byv
    expect 1 'call void @takenode(%struct.node\* byval(%struct.node) align 8 %l)' byv
    # foreign: a range test per template range; libc's stdout as is
    expect 1 'load i64, i64\* @kumi_omp_data_lo' foreign
    expect 1 'load i64, i64\* @kumi_omp_bss_size' foreign
    expect 1 'load i8\*, i8\*\* @stdout' foreign
    expect 1 'load i32, i32\* @insec' foreign
    # no function uses a moved global but through ptrtoint + delta
    n=$(awk '/^define/ { p = 1 } p { print } /^}/ { p = 0 }' "$ll" | sed 's/ptrtoint ([^)]*)//g' |
        grep -c -e '@data[^_a-z]' -e '@zero[^_a-z]' -e '@stat[^_a-z]' -e '@ptr[^_a-z]' -e '@ext[^_a-z]')
    [ "$n" = 0 ] || { echo "FAIL: $name: $n direct use(s) of moved or foreign globals left"; fail=1; }
    section kumi_omp_bss NOBITS
    section kumi_omp_data PROGBITS
    section kumi_omp_fixups PROGBITS ;;
omp_stack)
    stat 'dsm stack allocas 4 copyin 2 '
    expect 1 '%kumi.mark = call i8\* @kumi_omp_stack_mark()' master
    expect 1 'call i8\* @kumi_omp_stack_push(i64 4, i64 4)' master
    expect 2 'call void @kumi_omp_stack_release(i8\* %kumi.mark)' master   # before both rets
    expect 5 '= alloca i32, align 4' master          # priv and the loop bounds stay
    expect 0 'llvm.lifetime' master
    expect 1 '__kmpc_fork_call(.*i32\* %[0-9]*)' master
    expect 1 'call i8\* @kumi_omp_stack_push(i64 16, i64 16)' stored
    expect 0 'kumi_omp_stack' nocap
    expect 0 'kumi_omp_stack' libc_local
    expect 1 'call i8\* @kumi_omp_stack_push(i64 16, i64 16)' libc_keeps
    # VLA: a mark after the stacksave, released before the stackrestore
    expect 1 'mul i64 4, %n' vla
    expect 2 '= call i8\* @kumi_omp_stack_mark()' vla
    expect 2 'call void @kumi_omp_stack_release' vla
    fn vla | grep -A1 'call void @kumi_omp_stack_release(i8\* %[0-9]*)' | grep -q 'call void @llvm.stackrestore' ||
        { echo "FAIL: $name: no release at the stackrestore"; fail=1; }
    expect 0 'kumi_omp_stack' va
    expect 1 'call void @llvm.memcpy.p0i8.p0i8.i64(i8\* align 4 %kumi.stk, i8\* align 4 bitcast (i32\* @tp to i8\*), i64 4' copyin
    expect 0 '__kmpc_fork_call(.*@tp)' copyin
    # the copy is released right after the region (a loop of regions)
    fn copyin | awk '/__kmpc_fork_call/ { f = 1; next } f && /kumi_omp_stack_release/ && !d { d = 1; ok = /%kumi.mark1\)/ } END { exit !ok }' ||
        { echo "FAIL: $name: the copyin copy is not released after the fork"; fail=1; }
    expect 1 'call i8\* @kumi_omp_stack_push(i64 16, i64 16)' copyin_wrapped
    expect 1 'call void @llvm.memcpy.p0i8.p0i8.i64(i8\* align 16 %kumi.stk, i8\* align 16 %[0-9]*, i64 16' copyin_wrapped
    expect 0 '__kmpc_fork_call(.*%t)' copyin_wrapped
    # gated (the default): every function with checks gets its unchecked
    # copy, which marks, pushes and releases the DSM stack as the checked
    # body does (a release before each of master's two rets in both)
    "$kt" --openmp --stats "$src/$name.ll" -o "$out/$name.gate.ll" 2>"$out/$name.gate.stats" ||
        { cat "$out/$name.gate.stats"; echo "FAIL: kumi-translate --openmp (gated) $name.ll"; exit 1; }
    grep -q 'gated functions 4 ' "$out/$name.gate.stats" ||
        { echo "FAIL: $name: expected 4 gated functions in --stats"; fail=1; }
    grep -q 'gated functions 4 (switches 0)' "$out/$name.gate.stats" ||
        { echo "FAIL: $name: with --openmp no call may make the region: expected no switches"; fail=1; }
    ll="$out/$name.gate.ll"
    expect 1 'kumi.gate.none = icmp eq i64' master
    expect 1 'tail call i32 @master.kumi.u(' master
    expect 1 '= call i8\* @kumi_omp_stack_mark()' master.kumi.u
    expect 1 'call i8\* @kumi_omp_stack_push(i64 4, i64 4)' master.kumi.u
    expect 2 'call void @kumi_omp_stack_release(i8\* %' master.kumi.u
    expect 1 '__kmpc_fork_call(' master.kumi.u
    # the checked body's allocas stay static: in the entry block, before the test
    fn master | awk '/^[a-z.0-9]*:/ { b++ } /= alloca / && b > 1 { bad = 1 } END { exit bad }' ||
        { echo "FAIL: $name: an alloca of master's checked body is not in the entry block"; fail=1; } ;;
omp_reduce)
    # the private copies stay allocas; the list gets their DSM stack slots
    stat 'dsm stack allocas 10 copyin 0 byval copies 0 reduction slots 3 '
    expect 1 '%s = alloca double, align 8' nowait
    expect 1 '%a = alloca \[4 x i64\], align 16' nowait
    expect 3 'call i8\* @kumi_omp_stack_push(' nowait   # two slots, the list
    expect 0 'store double\* %s, ' nowait
    expect 0 'store \[4 x i64\]\* %a, ' nowait
    expect 2 'call void @llvm.memcpy.p0i8.p0i8.i64(i8\* align [0-9]* %kumi.stk[12], i8\* align' nowait
    expect 2 'call void @llvm.memcpy.p0i8.p0i8.i64(i8\* align [0-9]* %[0-9]*, i8\* align [0-9]* %kumi.stk[12],' nowait
    expect 1 '%s = alloca i64, align 8' blocking
    expect 1 'store i8\* %kumi.stk1, i8\*\* %l0' blocking
    # copy -> slot right before the reduce call, slot -> copy after it,
    # before case 1 reads the copy
    fn blocking | awk '/memcpy.*\(i8\* align 8 %kumi.stk1, / { a = NR } /call i32 @__kmpc_reduce\(/ { c = NR }
                       /memcpy.*, i8\* align 8 %kumi.stk1, / { d = NR } /load i64, i64\* %s/ { l = NR }
                       END { exit !(a && c && d && l && a < c && c < d && d < l) }' ||
        { echo "FAIL: $name: the copies are not around the reduce call"; fail=1; }
    for f in escapes vla taskred listread; do   # the old handling
        expect 0 '%s = alloca' $f
        expect 0 'llvm.memcpy' $f
        expect 2 'call i8\* @kumi_omp_stack_push(' $f
    done ;;
omp_calls)
    for f in calloc realloc free strdup posix_memalign; do expect 1 "call .*@kumi_omp_$f(" calls; done
    expect 1 'call .*@kumi_omp_private_malloc(' calls   # only given to realloc, which does not keep it
    for f in printf strlen exit; do expect 1 "call .*@kumi_omp_libc_$f(" calls; done
    expect 1 'call void @kumi_omp___atomic_load(' calls
    expect 1 'call i1 @kumi_omp___atomic_compare_exchange_16(' calls
    expect 1 'call i32 @__atomic_fetch_add_4(' calls
    expect 1 'call i32 @strcmp(' calls                   # defined here: not renamed
    expect 1 'call i32 @unrelated(' calls
    # the private heap: @scratch's buffers, unchecked; every other one DSM
    stat 'private heap 3$'
    expect 1 'call i8\* @kumi_omp_private_malloc(' scratch
    expect 1 'call i8\* @kumi_omp_private_calloc(' scratch
    expect 0 'kumi_dsm_g' scratch
    expect 2 'call void @kumi_omp_free(' scratch
    expect 1 'call i8\* @kumi_omp_malloc(' returned
    expect 3 'call i8\* @kumi_omp_malloc(' as_int
    expect 1 'call i8\* @kumi_omp_calloc(' as_int
    expect 0 'kumi_omp_private' as_int
    expect 1 'call i8\* @kumi_omp_malloc(' tokens
    expect 1 'call i32 @kumi_omp_libc_atoi(' calls
    expect 0 'define available_externally'
    expect 1 '^@fp = .*@kumi_omp_malloc'
    expect 0 '^declare.* @malloc(' ;;
*)  echo "omp_check_ir.sh: no expectations for $name"; exit 1 ;;
esac
[ "$fail" = 0 ] && echo "ok: $name"
exit "$fail"
