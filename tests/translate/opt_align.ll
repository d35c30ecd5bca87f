; @al: a load and a store of i64 aligned to 8 cannot cross a 64-byte line:
; no crossing test. @mis: the same with align 4: both keep it.
define i64 @al(i64* %p, i64* %q) {
entry:
  %v = load i64, i64* %p, align 8
  store i64 %v, i64* %q, align 8
  ret i64 %v
}

define i64 @mis(i64* %p, i64* %q) {
entry:
  %v = load i64, i64* %p, align 4
  store i64 %v, i64* %q, align 4
  ret i64 %v
}
