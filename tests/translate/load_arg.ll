; a load through a pointer argument may touch DSM memory: checked
define i32 @load_arg(i32* %p) {
entry:
  %v = load i32, i32* %p, align 4
  %w = add i32 %v, 1
  ret i32 %w
}
