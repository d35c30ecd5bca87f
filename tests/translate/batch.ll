; @same: three loads of one pointer (two of %p, one of %p+4) in a block with
; no call between them share one range check (and the repeated load of %p
; needs no check at all). @call_between: a call between the loads ends the
; batch: two range checks.
declare void @ext()

define i32 @same(i32* %p) {
entry:
  %a = load i32, i32* %p, align 4
  %q = getelementptr inbounds i32, i32* %p, i64 1
  %b = load i32, i32* %q, align 4
  %c = load volatile i32, i32* %p, align 4
  %s = add i32 %a, %b
  %t = add i32 %s, %c
  ret i32 %t
}

define i32 @call_between(i32* %p) {
entry:
  %a = load i32, i32* %p, align 4
  call void @ext()
  %b = load i32, i32* %p, align 4
  %s = add i32 %a, %b
  ret i32 %s
}
