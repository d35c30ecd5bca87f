; @same: three loads of one pointer (%p, %p+4, %p again) in a block with no
; call between them: each is checked (flag first, range only on a match):
; the load of %p+4 in between may miss, and its miss serves requests that
; may take %p's line, so the repeated load is not covered by the first.
; @twice: two loads of %p back to back: the second needs no check. @call_between: a call between the
; loads ends the batch: two checks. @stores_far: two stores 128 bytes apart
; through one base share one range check (the object is in or out), each
; with its own state test.
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

define void @stores_far(i64* %p) {
entry:
  store i64 1, i64* %p, align 8
  %q = getelementptr inbounds i64, i64* %p, i64 16
  store i64 2, i64* %q, align 8
  ret void
}

define i32 @twice(i32* %p) {
entry:
  %a = load i32, i32* %p, align 4
  %b = load volatile i32, i32* %p, align 4
  %s = add i32 %a, %b
  ret i32 %s
}
