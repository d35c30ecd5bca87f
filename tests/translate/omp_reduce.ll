; kumi-translate --openmp: a reduction's private copy whose address only
; goes into the reduce list stays a private alloca; the list gets a DSM
; stack slot, filled before the reduce call and copied back after it
; (tests/translate/omp_check_ir.sh checks the output)
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.ident_t = type { i32, i32, i32, i32, i8* }

@loc = private unnamed_addr constant %struct.ident_t zeroinitializer, align 8
@.gomp_critical_user_.reduction.var = common global [8 x i32] zeroinitializer, align 8

declare i32 @__kmpc_reduce_nowait(%struct.ident_t*, i32, i32, i64, i8*, void (i8*, i8*)*, [8 x i32]*)
declare i32 @__kmpc_reduce(%struct.ident_t*, i32, i32, i64, i8*, void (i8*, i8*)*, [8 x i32]*)
declare void @__kmpc_end_reduce_nowait(%struct.ident_t*, i32, [8 x i32]*)
declare void @__kmpc_end_reduce(%struct.ident_t*, i32, [8 x i32]*)
declare i8* @__kmpc_taskred_init(i32, i32, i8*)
declare void @redfn(i8*, i8*)
declare void @use(i64*)
declare void @llvm.lifetime.start.p0i8(i64 immarg, i8* nocapture)
declare void @llvm.lifetime.end.p0i8(i64 immarg, i8* nocapture)

; clang's shape (-O2): %s and %a in the loop, their addresses into the
; list, the list to __kmpc_reduce_nowait, case 1 reads the copies
define void @nowait(i32 %gtid, i32 %n, double* %out, i64* %outa) {
entry:
  %s = alloca double, align 8
  %a = alloca [4 x i64], align 16
  %list = alloca [2 x i8*], align 8
  %a8 = bitcast [4 x i64]* %a to i8*
  call void @llvm.lifetime.start.p0i8(i64 32, i8* %a8)
  store double 0.0, double* %s, align 8
  %a0 = getelementptr inbounds [4 x i64], [4 x i64]* %a, i64 0, i64 0
  store i64 0, i64* %a0, align 16
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %v = load double, double* %s, align 8
  %v1 = fadd double %v, 1.0
  store double %v1, double* %s, align 8
  %k = and i32 %i, 3
  %k64 = zext i32 %k to i64
  %ap = getelementptr inbounds [4 x i64], [4 x i64]* %a, i64 0, i64 %k64
  %q = load i64, i64* %ap, align 8
  %q1 = add i64 %q, 1
  store i64 %q1, i64* %ap, align 8
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  %l0 = bitcast [2 x i8*]* %list to double**
  store double* %s, double** %l0, align 8
  %l1 = getelementptr inbounds [2 x i8*], [2 x i8*]* %list, i64 0, i64 1
  %l1c = bitcast i8** %l1 to [4 x i64]**
  store [4 x i64]* %a, [4 x i64]** %l1c, align 8
  %lp = bitcast [2 x i8*]* %list to i8*
  %r = call i32 @__kmpc_reduce_nowait(%struct.ident_t* @loc, i32 %gtid, i32 2, i64 16, i8* %lp, void (i8*, i8*)* @redfn, [8 x i32]* @.gomp_critical_user_.reduction.var)
  switch i32 %r, label %done [ i32 1, label %case1 ]
case1:
  %f = load double, double* %s, align 8
  store double %f, double* %out, align 8
  %fa = load i64, i64* %a0, align 16
  store i64 %fa, i64* %outa, align 8
  call void @__kmpc_end_reduce_nowait(%struct.ident_t* @loc, i32 %gtid, [8 x i32]* @.gomp_critical_user_.reduction.var)
  br label %done
done:
  call void @llvm.lifetime.end.p0i8(i64 32, i8* %a8)
  ret void
}

; blocking, the list stored through an i8* cast
define void @blocking(i32 %gtid, i64* %out) {
entry:
  %s = alloca i64, align 8
  %list = alloca [1 x i8*], align 8
  store i64 5, i64* %s, align 8
  %s8 = bitcast i64* %s to i8*
  %l0 = getelementptr inbounds [1 x i8*], [1 x i8*]* %list, i64 0, i64 0
  store i8* %s8, i8** %l0, align 8
  %lp = bitcast [1 x i8*]* %list to i8*
  %r = call i32 @__kmpc_reduce(%struct.ident_t* @loc, i32 %gtid, i32 1, i64 8, i8* %lp, void (i8*, i8*)* @redfn, [8 x i32]* @.gomp_critical_user_.reduction.var)
  %one = icmp eq i32 %r, 1
  br i1 %one, label %case1, label %done
case1:
  %f = load i64, i64* %s, align 8
  store i64 %f, i64* %out, align 8
  call void @__kmpc_end_reduce(%struct.ident_t* @loc, i32 %gtid, [8 x i32]* @.gomp_critical_user_.reduction.var)
  br label %done
done:
  ret void
}

; kept on the DSM stack: the copy's address also goes to a call
define void @escapes(i32 %gtid) {
entry:
  %s = alloca i64, align 8
  %list = alloca [1 x i8*], align 8
  call void @use(i64* %s)
  %l0 = bitcast [1 x i8*]* %list to i64**
  store i64* %s, i64** %l0, align 8
  %lp = bitcast [1 x i8*]* %list to i8*
  %r = call i32 @__kmpc_reduce_nowait(%struct.ident_t* @loc, i32 %gtid, i32 1, i64 8, i8* %lp, void (i8*, i8*)* @redfn, [8 x i32]* @.gomp_critical_user_.reduction.var)
  ret void
}

; kept: a section of run-time size (a VLA copy)
define void @vla(i32 %gtid, i64 %n) {
entry:
  %s = alloca i64, i64 %n, align 8
  %list = alloca [1 x i8*], align 8
  %l0 = bitcast [1 x i8*]* %list to i64**
  store i64* %s, i64** %l0, align 8
  %lp = bitcast [1 x i8*]* %list to i8*
  %r = call i32 @__kmpc_reduce_nowait(%struct.ident_t* @loc, i32 %gtid, i32 1, i64 8, i8* %lp, void (i8*, i8*)* @redfn, [8 x i32]* @.gomp_critical_user_.reduction.var)
  ret void
}

; kept: a task reduction's item (the list goes to __kmpc_taskred_init)
define void @taskred(i32 %gtid) {
entry:
  %s = alloca i64, align 8
  %list = alloca [1 x i8*], align 8
  %l0 = bitcast [1 x i8*]* %list to i64**
  store i64* %s, i64** %l0, align 8
  %lp = bitcast [1 x i8*]* %list to i8*
  %t = call i8* @__kmpc_taskred_init(i32 %gtid, i32 1, i8* %lp)
  ret void
}

; kept: the list is read back (not only the reduce call's)
define i64* @listread(i32 %gtid) {
entry:
  %s = alloca i64, align 8
  %list = alloca [1 x i8*], align 8
  %l0 = bitcast [1 x i8*]* %list to i64**
  store i64* %s, i64** %l0, align 8
  %lp = bitcast [1 x i8*]* %list to i8*
  %r = call i32 @__kmpc_reduce_nowait(%struct.ident_t* @loc, i32 %gtid, i32 1, i64 8, i8* %lp, void (i8*, i8*)* @redfn, [8 x i32]* @.gomp_critical_user_.reduction.var)
  %p = load i64*, i64** %l0, align 8
  ret i64* %p
}
