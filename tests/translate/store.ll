; a store through a pointer argument: its page's summary byte 1 (all E), or
; else its line's state byte E (2), else kumi_dsm_store_miss first; the
; program's store stays after the check
define void @store(double* %p, double %v) {
entry:
  store double %v, double* %p, align 8
  ret void
}
