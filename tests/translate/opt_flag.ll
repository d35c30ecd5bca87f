; the flag a load is compared with: at an address that is a multiple of 4
; (alignment >= 4) the flag's first bytes, a constant; else shifted by the
; address's low bits (0x7fa5c3e77fa5c3e7 >> 8*(addr & 3), masked)
define i32 @aligned(i32* %p) {
entry:
  %v = load i32, i32* %p, align 4
  ret i32 %v
}
define i16 @half_aligned(i16* %p) {
entry:
  %v = load i16, i16* %p, align 2
  ret i16 %v
}
define i8 @byte_aligned4(i8* %p) {
entry:
  %v = load i8, i8* %p, align 4
  ret i8 %v
}
