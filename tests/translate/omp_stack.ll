; kumi-translate --openmp: locals that escape live on the DSM stack
; (tests/translate/omp.cmake checks the output)
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.ident_t = type { i32, i32, i32, i32, i8* }
%struct.va = type { i32, i32, i8*, i8* }

@loc = private unnamed_addr constant %struct.ident_t zeroinitializer, align 8
@tp = dso_local thread_local global i32 3, align 4

declare void @__kmpc_fork_call(%struct.ident_t*, i32, void (i32*, i32*, ...)*, ...)
declare void @__kmpc_for_static_init_4(%struct.ident_t*, i32, i32, i32*, i32*, i32*, i32*, i32, i32)
declare void @outlined(i32*, i32*, ...)
declare void @use(i32*)
declare void @look(i32* nocapture)
declare i32 @fstat(i32, i8*)
declare void @take(%struct.va* byval(%struct.va) align 8)
declare i32 @vprintf(i8*, %struct.va*)
declare void @llvm.va_start(i8*)
declare void @llvm.va_end(i8*)
declare void @llvm.lifetime.start.p0i8(i64 immarg, i8* nocapture)
declare void @llvm.lifetime.end.p0i8(i64 immarg, i8* nocapture)
declare i8* @llvm.stacksave()
declare void @llvm.stackrestore(i8*)

; shared: given to the fork (escapes); priv: loads and stores only;
; bounds: given to for_static_init only (private to the thread)
define i32 @master(i1 %c) {
entry:
  %shared = alloca i32, align 4
  %priv = alloca i32, align 4
  %lb = alloca i32, align 4
  %ub = alloca i32, align 4
  %st = alloca i32, align 4
  %last = alloca i32, align 4
  %0 = bitcast i32* %shared to i8*
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %0)
  store i32 1, i32* %priv, align 4
  call void (%struct.ident_t*, i32, void (i32*, i32*, ...)*, ...) @__kmpc_fork_call(%struct.ident_t* @loc, i32 1, void (i32*, i32*, ...)* @outlined, i32* %shared)
  call void @__kmpc_for_static_init_4(%struct.ident_t* @loc, i32 0, i32 34, i32* %last, i32* %lb, i32* %ub, i32* %st, i32 1, i32 1)
  %v = load i32, i32* %shared, align 4
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %0)
  br i1 %c, label %a, label %b
a:
  ret i32 %v
b:
  %p = load i32, i32* %priv, align 4
  ret i32 %p
}

; given only as nocapture or byval arguments: stays
define void @nocap() {
entry:
  %x = alloca i32, align 4
  call void @look(i32* %x)
  call void @look(i32* nocapture %x)
  %s = alloca %struct.va, align 8
  call void @take(%struct.va* byval(%struct.va) align 8 %s)
  ret void
}

; a libc function LLVM knows not to capture its argument (the pass
; infers libc's attributes itself, as the -O pipelines do): stays
define i32 @libc_local() {
entry:
  %st = alloca [144 x i8], align 16
  %p = getelementptr inbounds [144 x i8], [144 x i8]* %st, i64 0, i64 0
  %r = call i32 @fstat(i32 0, i8* %p)
  ret i32 %r
}

; strtok keeps a pointer into its string for its next calls, whose tokens
; point into it where the walk cannot follow: escapes
declare i8* @strtok(i8*, i8*)
define i8* @libc_keeps(i8* %d) {
entry:
  %s = alloca [16 x i8], align 16
  %p = getelementptr inbounds [16 x i8], [16 x i8]* %s, i64 0, i64 0
  %a = call i8* @strtok(i8* %p, i8* %d)
  %b = call i8* @strtok(i8* null, i8* %d)
  ret i8* %b
}

; stored as a value: escapes
define void @stored(i32** %out) {
entry:
  %x = alloca [4 x i32], align 16
  %g = getelementptr inbounds [4 x i32], [4 x i32]* %x, i64 0, i64 1
  store i32* %g, i32** %out, align 8
  ret void
}

; a VLA given to a call, its stack saved in a slot (clang -O0's way)
define void @vla(i64 %n) {
entry:
  %saved = alloca i8*, align 8
  %s = call i8* @llvm.stacksave()
  store i8* %s, i8** %saved, align 8
  %v = alloca i32, i64 %n, align 16
  call void @use(i32* %v)
  %r = load i8*, i8** %saved, align 8
  call void @llvm.stackrestore(i8* %r)
  ret void
}

; a va_list stays on the stack even when given to a call
define i32 @va(i8* %fmt, ...) {
entry:
  %ap = alloca %struct.va, align 16
  %0 = bitcast %struct.va* %ap to i8*
  call void @llvm.va_start(i8* %0)
  %r = call i32 @vprintf(i8* %fmt, %struct.va* %ap)
  call void @llvm.va_end(i8* %0)
  ret i32 %r
}

; copyin: the threadprivate's address given to the fork becomes a DSM copy
define void @copyin() {
entry:
  call void (%struct.ident_t*, i32, void (i32*, i32*, ...)*, ...) @__kmpc_fork_call(%struct.ident_t* @loc, i32 1, void (i32*, i32*, ...)* @outlined, i32* @tp)
  ret void
}

; copyin at -O0: an external threadprivate is reached through its thread
; wrapper; the wrapper's result is what gets copied
@tpa = dso_local thread_local global [4 x i32] [i32 1, i32 2, i32 3, i32 4], align 16

define weak_odr hidden [4 x i32]* @_ZTW3tpa() {
  ret [4 x i32]* @tpa
}

define void @copyin_wrapped() {
entry:
  %t = call [4 x i32]* @_ZTW3tpa()
  call void (%struct.ident_t*, i32, void (i32*, i32*, ...)*, ...) @__kmpc_fork_call(%struct.ident_t* @loc, i32 1, void (i32*, i32*, ...)* @outlined, [4 x i32]* %t)
  ret void
}
