; @cp: memcpy between two pointer arguments (both may be DSM): under a range
; check of each, kumi_dsm_memmove(d, s, n) (line by line through a bounce
; buffer), else the intrinsic; no pair of acquires (the second could serve
; a request that takes a line of the first).
; @to_priv: memcpy from an argument into a private alloca: only
; kumi_dsm_acquire(src, n, READ=1) under one range check.
; @clear: memset of a private alloca: nothing.
declare void @llvm.memcpy.p0i8.p0i8.i64(i8* noalias nocapture writeonly, i8* noalias nocapture readonly, i64, i1 immarg)
declare void @llvm.memset.p0i8.i64(i8* nocapture writeonly, i8, i64, i1 immarg)

define void @cp(i8* %d, i8* %s, i64 %n) {
entry:
  call void @llvm.memcpy.p0i8.p0i8.i64(i8* %d, i8* %s, i64 %n, i1 false)
  ret void
}

define i8 @to_priv(i8* %s) {
entry:
  %a = alloca [64 x i8], align 16
  %c = getelementptr inbounds [64 x i8], [64 x i8]* %a, i64 0, i64 0
  call void @llvm.memcpy.p0i8.p0i8.i64(i8* %c, i8* %s, i64 64, i1 false)
  %v = load volatile i8, i8* %c, align 1
  ret i8 %v
}

define i8 @clear() {
entry:
  %a = alloca [64 x i8], align 16
  %c = getelementptr inbounds [64 x i8], [64 x i8]* %a, i64 0, i64 0
  call void @llvm.memset.p0i8.i64(i8* %c, i8 0, i64 64, i1 false)
  %v = load i8, i8* %c, align 1
  ret i8 %v
}
