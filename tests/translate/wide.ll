; a 16-byte vector load: the state byte (S or E) inline, else
; kumi_dsm_acquire(p, 16, READ=1); a vector store: E, else acquire WRITE=2
define void @wide(<4 x i32>* %p, <4 x i32>* %q) {
entry:
  %v = load <4 x i32>, <4 x i32>* %p, align 16
  store <4 x i32> %v, <4 x i32>* %q, align 16
  ret void
}
