; kumi-translate --openmp: heap, libc and atomic calls renamed
; (tests/translate/omp.cmake checks the output)
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str = private unnamed_addr constant [4 x i8] c"%d\0A\00", align 1
@fp = dso_local global i8* (i64)* @malloc, align 8   ; a function pointer: renamed too
@sink = dso_local global i8* null, align 8

declare noalias i8* @malloc(i64)
declare noalias i8* @calloc(i64, i64)
declare i8* @realloc(i8*, i64)
declare void @free(i8*)
declare noalias i8* @strdup(i8*)
declare i32 @posix_memalign(i8**, i64, i64)
declare i32 @printf(i8*, ...)
declare i64 @strlen(i8*)
declare void @exit(i32)
declare void @__atomic_load(i64, i8*, i8*, i32)
declare i1 @__atomic_compare_exchange_16(i8*, i8*, i128, i32, i32)
declare i32 @__atomic_fetch_add_4(i8*, i32, i32)
declare i32 @unrelated(i8*)

; a header's inline copy of a libc function (glibc's atoi at -O2): the
; call goes to the wrapper
declare i64 @strtol(i8*, i8**, i32)
define available_externally i32 @atoi(i8* %s) {
  %r = call i64 @strtol(i8* %s, i8** null, i32 10)
  %t = trunc i64 %r to i32
  ret i32 %t
}

; defined here: a user's own function of a libc name is not renamed
define i32 @strcmp(i8* %a, i8* %b) {
  ret i32 0
}

define i32 @calls(i8* %s, i8* %d) {
entry:
  %m = call i8* @malloc(i64 16)
  %c = call i8* @calloc(i64 2, i64 8)
  store i8* %c, i8** @sink, align 8               ; published: stays DSM memory
  %r = call i8* @realloc(i8* %m, i64 32)
  %u = call i8* @strdup(i8* %s)
  %p = alloca i8*, align 8
  %pm = call i32 @posix_memalign(i8** %p, i64 64, i64 64)
  call void @free(i8* %r)
  %n = call i64 @strlen(i8* %s)
  %n32 = trunc i64 %n to i32
  %q = call i32 (i8*, ...) @printf(i8* getelementptr inbounds ([4 x i8], [4 x i8]* @.str, i64 0, i64 0), i32 %n32)
  call void @__atomic_load(i64 16, i8* %s, i8* %d, i32 5)
  %x = call i1 @__atomic_compare_exchange_16(i8* %s, i8* %d, i128 0, i32 5, i32 5)
  %y = call i32 @__atomic_fetch_add_4(i8* %s, i32 1, i32 5)
  %z = call i32 @strcmp(i8* %s, i8* %d)
  %w = call i32 @unrelated(i8* %s)
  %ai = call i32 @atoi(i8* %s)
  call void @exit(i32 3)
  unreachable
}

; the private heap: a buffer whose pointer never leaves the function but
; for free gets libc's heap, and its accesses no check
define double @scratch(i64 %n) {
entry:
  %b = call i8* @malloc(i64 64)
  %d = bitcast i8* %b to double*
  %e = getelementptr inbounds double, double* %d, i64 %n
  store double 1.0, double* %e, align 8
  %v = load double, double* %d, align 8
  %z = call i8* @calloc(i64 4, i64 8)
  %zd = bitcast i8* %z to double*
  store double %v, double* %zd, align 8
  call void @free(i8* %b)
  call void @free(i8* %z)
  ret double %v
}

; every way out keeps it DSM memory: returned, stored, as an integer,
; given to a function that may keep it, through a phi that is stored
define i8* @returned() {
  %r = call i8* @malloc(i64 64)
  ret i8* %r
}
define i64 @as_int(i1 %c, i8** %slot) {
  %a = call i8* @malloc(i64 64)
  %i = ptrtoint i8* %a to i64
  %b = call i8* @malloc(i64 64)
  %u = call i32 @unrelated(i8* %b)
  %p = call i8* @malloc(i64 64)
  %q = call i8* @calloc(i64 1, i64 64)
  %s = select i1 %c, i8* %p, i8* %q
  store i8* %s, i8** %slot, align 8
  ret i64 %i
}

; strtok hands out pointers into its string on later calls: stays DSM
declare i8* @strtok(i8*, i8*)
define i8* @tokens(i8* %d) {
  %t = call i8* @malloc(i64 64)
  %a = call i8* @strtok(i8* %t, i8* %d)
  %b = call i8* @strtok(i8* null, i8* %d)
  ret i8* %b
}
