; @idx: a store through a variable inbounds GEP of %a: the range check is of
; %a (the object), not of the element's address, so it is loop-invariant
; where %a is. @noinb: without inbounds the address itself is checked.
define void @idx(double* %a, i64 %i, double %x) {
entry:
  %e = getelementptr inbounds double, double* %a, i64 %i
  store double %x, double* %e, align 8
  ret void
}

define void @noinb(double* %a, i64 %i, double %x) {
entry:
  %e = getelementptr double, double* %a, i64 %i
  store double %x, double* %e, align 8
  ret void
}
