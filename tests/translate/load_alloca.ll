; @priv: a non-escaping alloca (lifetime markers only): no check.
; @esc: the alloca's address goes to an external function: checked.
declare void @llvm.lifetime.start.p0i8(i64, i8* nocapture)
declare void @llvm.lifetime.end.p0i8(i64, i8* nocapture)
declare void @use(i32*)

define i32 @priv(i32 %x) {
entry:
  %a = alloca [4 x i32], align 16
  %c = bitcast [4 x i32]* %a to i8*
  call void @llvm.lifetime.start.p0i8(i64 16, i8* %c)
  %e = getelementptr inbounds [4 x i32], [4 x i32]* %a, i64 0, i64 2
  store volatile i32 %x, i32* %e, align 4
  %v = load volatile i32, i32* %e, align 4
  call void @llvm.lifetime.end.p0i8(i64 16, i8* %c)
  ret i32 %v
}

define i32 @esc(i32 %x) {
entry:
  %a = alloca i32, align 4
  call void @use(i32* %a)
  %v = load i32, i32* %a, align 4
  ret i32 %v
}
