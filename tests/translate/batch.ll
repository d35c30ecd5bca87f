; @same: three loads of one pointer (two of %p, one of %p+4) in a block with
; no call between them: the repeated load of %p needs no check at all; the
; other two test the flag first and range-check only on a match (two range
; checks, each behind its flag test). @call_between: a call between the
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
