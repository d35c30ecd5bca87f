; @cp: memcpy between two pointer arguments: kumi_dsm_acquire(dst, n,
; WRITE=2) and (src, n, READ=1) right before it, each under a range check.
; @clear: memset of a private alloca: nothing.
declare void @llvm.memcpy.p0i8.p0i8.i64(i8* noalias nocapture writeonly, i8* noalias nocapture readonly, i64, i1 immarg)
declare void @llvm.memset.p0i8.i64(i8* nocapture writeonly, i8, i64, i1 immarg)

define void @cp(i8* %d, i8* %s, i64 %n) {
entry:
  call void @llvm.memcpy.p0i8.p0i8.i64(i8* %d, i8* %s, i64 %n, i1 false)
  ret void
}

define i8 @clear() {
entry:
  %a = alloca [64 x i8], align 16
  %c = getelementptr inbounds [64 x i8], [64 x i8]* %a, i64 0, i64 0
  call void @llvm.memset.p0i8.i64(i8* %c, i8 0, i64 64, i1 false)
  %v = load i8, i8* %c, align 1
  ret i8 %v
}
