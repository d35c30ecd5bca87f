; globals and constants are never DSM memory: no check
@g = global i64 0, align 8
@tab = constant [4 x i32] [i32 1, i32 2, i32 3, i32 4], align 16

define i64 @load_global(i64 %i) {
entry:
  %v = load i64, i64* @g, align 8
  %p = getelementptr inbounds [4 x i32], [4 x i32]* @tab, i64 0, i64 %i
  %t = load i32, i32* %p, align 4
  %t64 = sext i32 %t to i64
  %s = add i64 %v, %t64
  store i64 %s, i64* @g, align 8
  ret i64 %s
}
