; @wide: a 16-byte vector load of 4-byte lanes: the lanes compared with the
; flag word (<4 x i32>), only a match calls kumi_dsm_acquire(p, 16, READ=1)
; and reloads; a vector store: the state bytes of its first and last line
; must be E, else acquire WRITE=2.
; @unal: a vector load with alignment 1 (lanes not flag words): the state
; bytes (S or E) of its first and last line, else acquire READ.
define void @wide(<4 x i32>* %p, <4 x i32>* %q) {
entry:
  %v = load <4 x i32>, <4 x i32>* %p, align 16
  store <4 x i32> %v, <4 x i32>* %q, align 16
  ret void
}

define <2 x double> @unal(<2 x double>* %p) {
entry:
  %v = load <2 x double>, <2 x double>* %p, align 1
  ret <2 x double> %v
}

; @ptrs: a vector of pointers (the vectorizer makes them from loops over
; pointer arrays): lanes as integers first (a bitcast of pointers to
; <4 x i32> does not verify), then the lane-wise flag test
define <2 x i8*> @ptrs(<2 x i8*>* %p) {
entry:
  %v = load <2 x i8*>, <2 x i8*>* %p, align 16
  ret <2 x i8*> %v
}
