; @inc: *p += 1: the load is checked for the store that follows (state E)
; and neither needs another test: no load_miss, one store_miss. @other: the
; store goes elsewhere: the load keeps its flag test. @between: a load of
; another object between the load and the store (its miss could take the
; line): both loads keep their flag tests, the store its state test.
define void @inc(i64* %p) {
entry:
  %v = load i64, i64* %p, align 8
  %w = add i64 %v, 1
  store i64 %w, i64* %p, align 8
  ret void
}

define void @other(i64* %p, i64* %q) {
entry:
  %v = load i64, i64* %p, align 8
  %w = add i64 %v, 1
  store i64 %w, i64* %q, align 8
  ret void
}

define void @between(i64* %p, i64* %q) {
entry:
  %v = load i64, i64* %p, align 8
  %u = load i64, i64* %q, align 8
  %w = add i64 %v, %u
  store i64 %w, i64* %p, align 8
  ret void
}
