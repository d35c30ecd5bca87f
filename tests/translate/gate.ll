; the function gate (dsm/translate/README.md, "The gate"): each function
; with checks gets an unchecked copy, entered while kumi_dsm_g.size is 0
; (kumi.gate.none). In the copy no poll, no load of kumi_dsm_g.size, no
; store of the poll counter. A function that cannot reach kumi_init (it
; calls only libc functions such as malloc, and such functions) gets its
; copy as a function of its own, NAME.kumi.u, which the gate tail-calls,
; and the copies call each other's copies. In a function with a call that
; may reach kumi_init (ext, an indirect call, a function of the module that
; calls ext) the copy is blocks kumi.u* after the checked body; after such a
; call it tests the size again (kumi.gate.now) and goes on in the checked
; body; values live across such a call go through slots (kumi.gate.slot).
declare void @ext()
declare i8* @malloc(i64)

; a loop of checked loads, no calls: gated, no switch
define i64 @walk(i64* %p, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi i64 [ 0, %entry ], [ %s1, %loop ]
  %q = getelementptr inbounds i64, i64* %p, i64 %i
  %v = load i64, i64* %q, align 8
  %s1 = add i64 %s, %v
  %i1 = add nuw nsw i64 %i, 1
  %e = icmp eq i64 %i1, %n
  br i1 %e, label %done, label %loop
done:
  ret i64 %s1
}

; a store, then ext (may create the region), then a load: one switch
define i32 @with_ext(i32* %p, i32 %x) {
entry:
  %y = mul i32 %x, 3
  store i32 %y, i32* %p, align 4
  call void @ext()
  %v = load i32, i32* %p, align 4
  %r = add i32 %v, %y
  ret i32 %r
}

; only libc: no switch
define i32 @with_libc(i32* %p) {
entry:
  %m = call i8* @malloc(i64 16)
  %v = load i32, i32* %p, align 4
  ret i32 %v
}

; calls a function of the module that calls ext: a switch
define void @helper() {
entry:
  call void @ext()
  ret void
}
define i32 @calls_helper(i32* %p) {
entry:
  call void @helper()
  %v = load i32, i32* %p, align 4
  ret i32 %v
}

; an indirect call: a switch
define i32 @indirect(i32* %p, void ()* %f) {
entry:
  call void %f()
  %v = load i32, i32* %p, align 4
  ret i32 %v
}

; calls walk: its copy calls walk's copy
define i64 @twice(i64* %p, i64 %n) {
entry:
  %a = call i64 @walk(i64* %p, i64 %n)
  %b = call i64 @walk(i64* %p, i64 %n)
  %v = load i64, i64* %p, align 8
  %s = add i64 %a, %b
  %r = add i64 %s, %v
  ret i64 %r
}

; nothing checked (a private alloca): not gated
define i32 @priv(i32 %x) {
entry:
  %a = alloca i32, align 4
  store i32 %x, i32* %a, align 4
  %v = load i32, i32* %a, align 4
  ret i32 %v
}
