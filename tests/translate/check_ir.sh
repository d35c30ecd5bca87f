#!/bin/sh
# check_ir.sh TRANSLATOR SRCDIR NAME OUTDIR -- runs SRCDIR/NAME.ll through
# kumi-translate (to .ll, unoptimized, so the inserted IR is visible; and to
# an -O2 object, so the result also compiles) and checks what was inserted
# with grep. Prints what failed and exits 1.
set -u
kt=$1 src=$2 name=$3 out=$4
mkdir -p "$out"
ll="$out/$name.ll"
# the function gate doubles every checked function (an unchecked copy);
# only the gate test looks at it, the others at the checked body alone
gate=--no-gate
case "$name" in gate*) gate= ;; esac
"$kt" "$src/$name.ll" -o "$ll" --stats $gate 2>"$out/$name.stats" || { cat "$out/$name.stats"; echo "FAIL: kumi-translate $name.ll"; exit 1; }
"$kt" "$src/$name.ll" -o "$out/$name.o" -O2 --no-warn $gate || { echo "FAIL: kumi-translate -O2 $name.ll -o $name.o"; exit 1; }
cat "$out/$name.stats"
fail=0
# opt_loop: what the optimizer makes of the checks of the checked loop
# (--no-version: without the unchecked copy and its test, opt_version's
# subject): expectations on the -O2 IR
case "$name" in opt_loop)
    "$kt" "$src/$name.ll" -o "$out/$name.O2.ll" -O2 --no-warn --no-version $gate || { echo "FAIL: kumi-translate -O2 $name.ll -o $name.O2.ll"; exit 1; }
    ll="$out/$name.O2.ll" ;;
esac
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
# some PATTERN [FUNCTION]: PATTERN occurs at least once
some() {
    if [ $# -ge 2 ]; then n=$(fn "$2" | grep -c -e "$1"); else n=$(grep -c -e "$1" "$ll"); fi
    if [ "$n" = 0 ]; then echo "FAIL: $name: expected '$1'${2:+ in @$2}"; fail=1; fi
}
range='= icmp ult i64 %kumi.off'
# ucopy NAME: the unchecked copy of function NAME (its blocks from the first kumi.u on)
ucopy() { fn "$1" | awk '/^kumi\.u[0-9]*:/ { p = 1 } p'; }
# uexpect N PATTERN FUNCTION: as expect, in the copy
uexpect() {
    n=$(ucopy "$3" | grep -c -e "$2")
    if [ "$n" != "$1" ]; then
        echo "FAIL: $name: expected $1 line(s) matching '$2' in the copy of @$3, found $n"
        fail=1
    fi
}
sizeld='load i64, i64\* bitcast (i8\* getelementptr inbounds (i8, i8\* bitcast (%kumi.dsm_g\* @kumi_dsm_g to i8\*), i64 8)'
tickst='store i32 .*, i32\* bitcast (i8\* getelementptr inbounds (i8, i8\* bitcast (%kumi.dsm_g\* @kumi_dsm_g to i8\*), i64 24)'
case "$name" in
load_arg)
    expect 1 "$range"
    expect 1 'call i64 @kumi_dsm_load_miss(i8\* %[^,]*, i32 4)'
    expect 1 '%kumi.isflag = icmp eq i64 %[0-9]*, 2141570023'   # aligned: the flag's low word (opt_flag)
    expect 1 '= phi i32 \[ %v, %entry \], \[ %v, %kumi.ld.chk \]'
    expect 1 'add i32 %[0-9]*, 1'
    # the flag test first, the range check only behind it
    awk -v r="$range" '/kumi.isflag/ && !f { f = NR } index($0, r) && !g { g = NR } END { exit !(f && g && f < g) }' "$ll" ||
        { echo "FAIL: load_arg: the range check does not follow the flag test"; fail=1; } ;;
load_alloca)
    expect 0 "$range" priv
    expect 0 'kumi_dsm' priv
    expect 1 "$range" esc
    expect 1 'call i64 @kumi_dsm_load_miss' esc ;;
load_global)
    expect 0 "$range"
    expect 0 'call .*@kumi_dsm' ;;
batch)
    expect 3 "$range" same
    expect 3 'call i64 @kumi_dsm_load_miss' same
    expect 1 'call i64 @kumi_dsm_load_miss' twice
    expect 2 "$range" call_between
    expect 1 "$range" stores_far
    expect 2 '%kumi.notE[0-9]* = icmp ne i8' stores_far
    expect 2 'call void @kumi_dsm_store_miss' stores_far
    grep -q 'batched 1 elided 1' "$out/$name.stats" || { echo "FAIL: batch: stats"; fail=1; } ;;
loop)
    expect 1 'call void @kumi_dsm_poll()' loop
    expect 1 '= add i32 %[0-9]*, 1' loop
    expect 1 'and i32 %kumi.tick, 1023' loop
    expect 2 'br label %head' loop   # entry and the poll's join block
    expect 1 '%i = phi i64 \[ 0, %entry \], \[ %i1, %kumi.poll.done \]' loop
    expect 0 'kumi_dsm_poll' straight ;;
store)
    expect 1 "$range"
    expect 1 '%kumi.notE[0-9]* = icmp ne i8 %kumi.state[0-9]*, 2'
    expect 1 'call void @kumi_dsm_store_miss(i8\* %[^,]*, i32 8)'
    # first the page's summary: all E goes straight to the store
    expect 1 '%kumi.pageE[0-9]* = icmp eq i8 %kumi.pstate[0-9]*, 1'
    expect 1 'br i1 %kumi.pageE[0-9]*, label %kumi.st.cont, label %kumi.st.line'
    # the program's store comes after the check
    awk '/kumi.st.cont:/ { c = 1 } c && /store double %v, double\* %p/ { ok = 1 } END { exit !ok }' "$ll" ||
        { echo "FAIL: store: the store is not in the continuation block"; fail=1; } ;;
memcpy)
    expect 1 'call void @kumi_dsm_memmove(i8\* %d, i8\* %s, i64 %n)' cp
    expect 0 'kumi_dsm_acquire' cp
    expect 2 "$range" cp
    expect 1 'call void @llvm.memcpy' cp
    expect 1 'call i32 @kumi_dsm_acquire(i8\* %s, i64 64, i32 1)' to_priv
    expect 1 "$range" to_priv
    expect 0 'kumi_dsm_memmove' to_priv
    expect 0 'kumi_dsm' clear ;;
atomic)
    expect 2 'call void @kumi_dsm_store_miss(i8\* %[^,]*, i32 4)'
    expect 2 '%kumi.notE[0-9]* = icmp ne i8 %kumi.state[0-9]*, 2'
    expect 1 'atomicrmw add i32\* %p, i32 1 seq_cst'
    expect 1 'cmpxchg i32\* %p' ;;
wide)
    expect 1 '%kumi.vflag[0-9]* = icmp eq <4 x i32> %[0-9a-z]*, <i32 2141570023, i32 2141570023, i32 2141570023, i32 2141570023>' wide
    expect 1 'call i32 @kumi_dsm_acquire(i8\* %[^,]*, i64 16, i32 1)' wide
    expect 1 '%kumi.reload = load <4 x i32>, <4 x i32>\* %p, align 16' wide
    expect 1 'call i32 @kumi_dsm_acquire(i8\* %[^,]*, i64 16, i32 2)' wide
    expect 0 '%kumi.notSE' wide
    expect 2 '%kumi.notE[0-9]* = icmp ne i8 %kumi.state[0-9]*, 2' wide
    expect 1 'add i64 %kumi.a[0-9]*, 15' wide
    expect 0 'kumi.vflag' unal
    expect 2 '%kumi.notSE[0-9]* = icmp ugt i8' unal
    expect 1 'call i32 @kumi_dsm_acquire(i8\* %[^,]*, i64 16, i32 1)' unal
    expect 1 'ptrtoint <2 x i8\*> %v to <2 x i64>' ptrs
    expect 1 '%kumi.vflag[0-9]* = icmp eq <4 x i32>' ptrs ;;
opt_align)
    expect 0 'kumi.cross' al
    expect 2 '%kumi.cross[0-9]* = icmp ugt i64 %[0-9]*, 56' mis ;;
opt_rmw)
    expect 0 'kumi_dsm_load_miss' inc
    expect 0 'kumi.isflag' inc
    expect 1 '%kumi.notE[0-9]* = icmp ne i8' inc
    expect 1 'call void @kumi_dsm_store_miss(i8\* %[^,]*, i32 8)' inc
    expect 1 'call i64 @kumi_dsm_load_miss' other
    # another load between the load and the store: no read-modify-write
    expect 2 'call i64 @kumi_dsm_load_miss' between
    expect 1 'call void @kumi_dsm_store_miss' between
    grep -q 'rmw 1 ' "$out/$name.stats" || { echo "FAIL: opt_rmw: stats"; fail=1; } ;;
opt_group)
    expect 0 'kumi_dsm_store_miss' unrolled
    expect 2 '%kumi.notE[0-9]* = icmp ne i8' unrolled
    expect 1 'call i32 @kumi_dsm_acquire(i8\* %[^,]*, i64 32, i32 2)' unrolled
    expect 2 'call void @kumi_dsm_store_miss' apart
    expect 0 'kumi_dsm_acquire' apart
    # a load of another object between two neighbouring stores: no group
    # (the load's miss may serve a request that takes the first store's
    # line), each store its own test
    expect 2 'call void @kumi_dsm_store_miss' interleaved
    expect 0 'kumi_dsm_acquire' interleaved
    expect 1 'call i64 @kumi_dsm_load_miss' interleaved ;;
opt_root)
    expect 1 '%kumi.r = ptrtoint double\* %a to i64' idx
    expect 1 '%kumi.r = ptrtoint double\* %e to i64' noinb ;;
opt_loop)
    some 'load <2 x double>' axpy
    some 'store <2 x double>' axpy
    # base, size, state: one load each, after the call, none in the loop
    expect 1 'load i64, i64\* getelementptr inbounds (%kumi.dsm_g, %kumi.dsm_g\* @kumi_dsm_g, i64 0, i32 0)' axpy
    expect 1 'load i64, i64\* getelementptr inbounds (%kumi.dsm_g, %kumi.dsm_g\* @kumi_dsm_g, i64 0, i32 1)' axpy
    expect 1 'load i8\*, i8\*\* getelementptr inbounds (%kumi.dsm_g, %kumi.dsm_g\* @kumi_dsm_g, i64 0, i32 2)' axpy
    # the poll counter in a register in the loops: the global loaded after
    # the call, stored before the return (TBAA-tagged), nowhere else
    some '%kumi.tick[0-9]* = add i32 %kumi.tickp' axpy
    expect 1 'load i32, i32\* getelementptr inbounds (%kumi.dsm_g, %kumi.dsm_g\* @kumi_dsm_g, i64 0, i32 3)' axpy
    expect 1 'store i32 %[a-z.0-9]*, i32\* getelementptr inbounds (%kumi.dsm_g, %kumi.dsm_g\* @kumi_dsm_g, i64 0, i32 3).*!tbaa' axpy
    expect 1 '!"kumi dsm tick"' ;;
opt_version)
    grep -q 'versioned loops 2 ' "$out/$name.stats" || { echo "FAIL: opt_version: expected 2 versioned loops"; fail=1; }
    # fastblk FUNCTION: the unchecked copy's blocks of FUNCTION
    fastblk() { fn "$1" | awk '/^kumi\.fastl?[0-9]*:/ { p = 1; next } /^[a-z.0-9]*:/ { p = 0 } p'; }
    for f in axpy column; do
        some '^kumi\.fast[0-9]*:' $f
        some '^kumi\.ver\.poll[0-9]*:' $f
        # the bail: a poll, the ranges again, back to the copy or the checked loop
        fn $f | awk '/^kumi\.ver\.bail[0-9]*:/ { p = 1; next } /^[a-z.0-9]*:/ { p = 0 } p' >"$out/$name.bail"
        grep -q 'call void @kumi_dsm_poll()' "$out/$name.bail" &&
            grep -q 'br i1 .*label %kumi\.fastl[0-9]*, label %loop' "$out/$name.bail" ||
            { echo "FAIL: opt_version: @$f's bail does not poll and go on in the copy or the loop"; fail=1; }
        [ "$(fastblk $f | grep -c -e 'kumi_dsm' -e '%kumi\.off' -e 'kumi\.tick')" = 0 ] ||
            { echo "FAIL: opt_version: a check, poll or tick in @$f's unchecked copy"; fail=1; }
    done
    # a: read and written, one test for E; b: read; each range tested
    # before the loop and again in the bail every 1024 iterations
    expect 4 'call i32 @kumi_dsm_ready(i64 %kumi.lo[0-9]*, i64 %kumi.hi[0-9]*, i32 [01])' axpy
    expect 2 'call i32 @kumi_dsm_ready(.*, i32 1)' axpy
    expect 2 '%kumi.states[0-9]* = load i64, i64\* %[0-9]*, align 1' axpy
    expect 2 '%kumi.pstates[0-9]* = load i64, i64\* %[0-9]*, align 1' axpy
    [ "$(fastblk axpy | grep -c -e '= load double' -e 'store double')" = 6 ] ||
        { echo "FAIL: opt_version: @axpy's copies lack their two loads and store"; fail=1; }
    expect 2 'call i32 @kumi_dsm_ready(.*, i32 0)' column
    # the window cache: a hit goes to the copies without the ranges' tests;
    # the epoch is read in the test and kept
    for f in axpy column; do
        some '^kumi\.ver\.cached[0-9]*:' $f
        some 'load i32, i32\* bitcast (.*@kumi_dsm_g to i8\*), i64 40)' $f
        some 'store i32 %[0-9]*, i32\* %kumi\.wep' $f
        some 'call i64 @llvm\.cttz\.i64' $f
    done
    some 'mul i64 %stride' column
    some '%r = phi double .*, %kumi[.]fast[0-9]* ]' column
    for f in with_call scatter spin; do
        expect 0 'kumi\.fast' $f
        expect 0 'kumi_dsm_ready' $f
    done ;;
priv_omp)
    expect 2 'call i64 @kumi_dsm_load_miss' sect
    expect 0 'load_miss(i8\* bitcast (i64\* @plain' sect
    expect 1 'call i64 @kumi_dsm_load_miss' rebased
    expect 1 '%kumi.r[0-9]* = ptrtoint i8\* %p to i64' rebased
    expect 1 'call void @kumi_dsm_store_miss' heap ;;
opt_flag)
    expect 1 '%kumi.isflag = icmp eq i64 %[0-9]*, 2141570023' aligned   # 0x7fa5c3e7
    expect 0 'lshr i64 9197973213020537831' aligned
    expect 1 'lshr i64 9197973213020537831' half_aligned
    expect 1 '%kumi.isflag = icmp eq i64 %[0-9]*, %kumi.flag' half_aligned
    expect 1 '%kumi.isflag = icmp eq i64 %[0-9]*, 231' byte_aligned4 ;;   # 0xe7
gate)
    for f in walk with_ext with_libc calls_helper indirect twice; do
        expect 1 'kumi.gate.none = icmp eq i64' $f
        some 'call i64 @kumi_dsm_load_miss' $f         # the checked body keeps its checks
    done
    for f in walk with_libc twice; do                   # copies of their own
        expect 1 "tail call .*@$f.kumi.u(" $f
        expect 0 '^kumi\.u[0-9]*:' $f
        expect 0 "$sizeld" $f.kumi.u
        expect 0 "$tickst" $f.kumi.u
        expect 0 'call void @kumi_dsm_poll' $f.kumi.u
    done
    some 'call void @kumi_dsm_poll' walk
    expect 2 'call i64 @walk.kumi.u(' twice.kumi.u
    expect 0 'call i64 @walk(' twice.kumi.u
    for f in with_ext calls_helper indirect; do         # copies in the function
        some '^kumi\.u[0-9]*:' $f
        uexpect 0 "$tickst" $f
        uexpect 0 'call void @kumi_dsm_poll' $f
    done
    expect 0 'kumi.gate' priv
    expect 0 'kumi.gate.now' walk
    expect 0 'kumi.gate.now' with_libc
    for f in with_ext calls_helper indirect; do
        expect 1 'kumi.gate.now = icmp ne i64' $f
        uexpect 1 "$sizeld" $f                         # only the switch's own
    done
    # a value live across the switch (%y) goes through a slot; with only
    # arguments live there, nothing does
    some 'kumi.gate.slot' with_ext
    expect 0 'kumi.gate.slot' calls_helper
    expect 0 'kumi.gate.slot' indirect
    # the switch: in the copy, after the call, to the checked body's
    # continuation (a block before the copy)
    ucopy with_ext | grep -q 'br i1 %kumi.gate.now, label %kumi.gate.cont, label %kumi.u' ||
        { echo "FAIL: gate: the copy's switch does not lead to the checked kumi.gate.cont"; fail=1; }
    grep -q 'gated functions 6 (switches 3)' "$out/$name.stats" ||
        { echo "FAIL: gate: expected 6 gated functions and 3 switches in --stats"; fail=1; } ;;
warn)
    n=$(grep -c "in warn: warning: argument 1 of 'ext_use' may point to DSM memory.*kumi_dsm_acquire" "$out/$name.stats")
    [ "$n" = 1 ] || { echo "FAIL: warn: expected one warning for ext_use, found $n"; fail=1; }
    grep -q "kumi_dsm_free" "$out/$name.stats" && { echo "FAIL: warn: warned for a kumi_ call"; fail=1; }
    grep -q "ext_str" "$out/$name.stats" && { echo "FAIL: warn: warned for argv, a constant table's string or kumi_strerror's"; fail=1; } ;;
opt_version_rot)
    grep -q 'versioned loops 1 ' "$out/$name.stats" || { echo "FAIL: opt_version_rot: expected 1 versioned loop"; fail=1; }
    # %prev's entry from the bail: the long copy's %cur, i.e. the phi of
    # kumi.fastl that starts at 1.0 (a value the copy's header still has)
    v=$(grep '^  %prev = phi double' "$ll" | sed -n 's/.*\[ \(%[^ ,]*\), %kumi\.ver\.bail[0-9]* \].*/\1/p')
    [ -n "$v" ] && awk '/^kumi\.fastl[0-9]*:/ { p = 1; next } /^[a-z.0-9]*:/ { p = 0 } p' "$ll" |
        grep -q "^  $v = phi double \[ 1.000000e+00, " ||
        { echo "FAIL: opt_version_rot: %prev's entry from the bail ('$v') is not the copy's %cur"; fail=1; } ;;
*)  echo "check_ir.sh: no expectations for $name"; exit 1 ;;
esac
[ "$fail" = 0 ] && echo "ok: $name"
exit "$fail"
