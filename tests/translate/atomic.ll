; atomics on a possibly-DSM pointer: the line is made exclusive first (the
; store check), then the program's atomic runs unchanged
define i32 @atomic(i32* %p) {
entry:
  %o = atomicrmw add i32* %p, i32 1 seq_cst
  %r = cmpxchg i32* %p, i32 %o, i32 0 seq_cst seq_cst
  %v = extractvalue { i32, i1 } %r, 0
  ret i32 %v
}
