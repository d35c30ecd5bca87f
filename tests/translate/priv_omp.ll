; the OpenMP pass's shared data (dsm/translate/privacy.c): a global in
; section kumi_omp_data or kumi_omp_bss is a template whose live copy is in
; the DSM, so its accesses are checked (an ordinary global's are not); a GEP
; from a template by the run-time delta is the access's root (the range
; check tests the live address, not the template's), inbounds or not; and
; what a kumi_omp_* call returns (DSM heap, DSM stack) is checked
@sd = global i64 0, section "kumi_omp_data", align 8
@sb = global i64 0, section "kumi_omp_bss", align 8
@plain = global i64 0, align 8
@kumi_omp_data_delta = external global i64

declare i8* @kumi_omp_malloc(i64)

define i64 @sect() {
entry:
  %a = load i64, i64* @sd, align 8
  %b = load i64, i64* @sb, align 8
  %c = load i64, i64* @plain, align 8
  %s = add i64 %a, %b
  %t = add i64 %s, %c
  ret i64 %t
}

define i64 @rebased() {
entry:
  %d = load i64, i64* @kumi_omp_data_delta, align 8
  %p = getelementptr inbounds i8, i8* bitcast (i64* @sd to i8*), i64 %d
  %q = bitcast i8* %p to i64*
  %v = load i64, i64* %q, align 8
  ret i64 %v
}

define void @heap() {
entry:
  %m = call i8* @kumi_omp_malloc(i64 8)
  %p = bitcast i8* %m to i64*
  store i64 1, i64* %p, align 8
  ret void
}
