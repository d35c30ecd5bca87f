; kumi-translate --openmp: globals move to kumi_omp_data / kumi_omp_bss and
; every use is rebased (tests/translate/omp.cmake checks the output)
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.node = type { i32, %struct.node* }
%struct.pr = type { i32*, i32 }

@data = dso_local global i32 5, align 4                        ; -> kumi_omp_data
@zero = dso_local global [100 x i32] zeroinitializer, align 16 ; -> kumi_omp_bss (module asm)
@stat = internal global double 0.000000e+00, align 8           ; -> kumi_omp_bss, local symbol
@ptr = dso_local global i32* @data, align 8                    ; data, 1 fixup
@n1 = dso_local global %struct.node { i32 1, %struct.node* @n2 }, align 8   ; data, fixup at 8
@n2 = dso_local global %struct.node { i32 2, %struct.node* null }, align 8
@ctab = dso_local constant [2 x i32*] [i32* @data, i32* getelementptr inbounds ([100 x i32], [100 x i32]* @zero, i64 0, i64 3)], align 16 ; constant pointing at moved: moved, 2 fixups
@cint = dso_local constant i32 7, align 4                      ; stays
@.str = private unnamed_addr constant [3 x i8] c"hi\00", align 1 ; stays
@tls = dso_local thread_local global i32 3, align 4            ; stays (threadprivate)
@.gomp_critical_user_.var = common global [8 x i32] zeroinitializer ; stays (lock word)
@kumi_thing = dso_local global i32 0, align 4                  ; stays (runtime data)
@insec = dso_local global i32 1, section "mysec", align 4     ; stays, with a warning
@ext = external global i32, align 4                            ; foreign: range test
@stdout = external global i8*, align 8                         ; libc: as is

define i32 @direct() {
entry:
  %a = load i32, i32* @data, align 4
  %b = load i32, i32* getelementptr inbounds ([100 x i32], [100 x i32]* @zero, i64 0, i64 7), align 4
  store double 1.0, double* @stat, align 8
  %c = load i32, i32* @cint, align 4
  %d = load i32, i32* @tls, align 4
  %s = add i32 %a, %b
  %t = add i32 %s, %c
  %u = add i32 %t, %d
  ret i32 %u
}

define i32* @phi(i1 %c) {
entry:
  br i1 %c, label %x, label %y
x:
  switch i32 0, label %y [ i32 1, label %y ]
y:
  %p = phi i32* [ @data, %entry ], [ getelementptr inbounds ([100 x i32], [100 x i32]* @zero, i64 0, i64 1), %x ], [ getelementptr inbounds ([100 x i32], [100 x i32]* @zero, i64 0, i64 1), %x ]
  ret i32* %p
}

define void @escape(i32** %out) {
entry:
  store i32* @data, i32** %out, align 8
  %v = insertelement <2 x i32*> <i32* @data, i32* @data>, i32* null, i32 1
  %e = extractelement <2 x i32*> %v, i32 0
  store i32* %e, i32** %out, align 8
  ret void
}

define void @aggr(%struct.pr* %out) {
entry:
  store %struct.pr { i32* @data, i32 1 }, %struct.pr* %out, align 8
  ret void
}

; a byval argument is read by the call without checks: from memory that
; may be DSM it goes through a private copy made by llvm.memcpy
declare void @takenode(%struct.node* byval(%struct.node) align 8)
define void @byv(%struct.node* %p) {
entry:
  %l = alloca %struct.node, align 8
  call void @takenode(%struct.node* byval(%struct.node) align 8 @n1)
  call void @takenode(%struct.node* byval(%struct.node) align 8 %p)
  call void @takenode(%struct.node* byval(%struct.node) align 8 %l)
  ret void
}

define i32 @foreign() {
entry:
  %a = load i32, i32* @ext, align 4
  %f = load i8*, i8** @stdout, align 8
  %b = load i32, i32* @insec, align 4
  %c = add i32 %a, %b
  ret i32 %c
}
