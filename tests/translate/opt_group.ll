; @unrolled: four stores of double at %p+0..24 (an unrolled loop body): one
; test of the first and last line of the 32 bytes (E), else
; kumi_dsm_acquire(p, 32, WRITE); no per-store checks. @apart: 128 bytes
; apart: no group, a state test each. @interleaved: a load of another
; object between two neighbouring stores: no group (see check_ir.sh).
define void @unrolled(double* %p, double %x) {
entry:
  store double %x, double* %p, align 8
  %p1 = getelementptr inbounds double, double* %p, i64 1
  store double %x, double* %p1, align 8
  %p2 = getelementptr inbounds double, double* %p, i64 2
  store double %x, double* %p2, align 8
  %p3 = getelementptr inbounds double, double* %p, i64 3
  store double %x, double* %p3, align 8
  ret void
}

define void @apart(double* %p, double %x) {
entry:
  store double %x, double* %p, align 8
  %p1 = getelementptr inbounds double, double* %p, i64 16
  store double %x, double* %p1, align 8
  ret void
}

define void @interleaved(double* %p, i64* %q, double %x) {
entry:
  store double %x, double* %p, align 8
  %v = load i64, i64* %q, align 8
  %p1 = getelementptr inbounds double, double* %p, i64 1
  %y = sitofp i64 %v to double
  store double %y, double* %p1, align 8
  ret void
}
