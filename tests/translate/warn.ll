; a possibly-DSM pointer passed to a function without a body: a warning
; suggesting kumi_dsm_acquire (no debug info here: the function is named);
; a private alloca and kumi_* calls: no warning
declare void @ext_use(i32*)
declare void @kumi_dsm_free(i8*)

define void @warn(i32* %p) {
entry:
  %a = alloca i32, align 4
  call void @ext_use(i32* %p)
  %c = bitcast i32* %p to i8*
  call void @kumi_dsm_free(i8* %c)
  ret void
}
