; a[i] += b[i] over n doubles after a call (which may move the region):
; translated with -O2, (1) the loop is vectorized (the program is optimized
; before the checks go in): <2 x double> loads and stores in the output;
; (2) the vector load of b gets the lane-wise flag test; (3) the loop body
; has no load of kumi_dsm_g's base, size or state (shadowed in registers,
; reloaded after the call only); (4) the poll counter is a register in the
; loops, the global loaded after the call and stored before the return,
; with its own TBAA type.
declare void @ext()

define void @axpy(double* noalias %a, double* noalias %b, i64 %n) {
entry:
  call void @ext()
  %c = icmp sgt i64 %n, 0
  br i1 %c, label %loop, label %done
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %pb = getelementptr inbounds double, double* %b, i64 %i
  %vb = load double, double* %pb, align 8
  %pa = getelementptr inbounds double, double* %a, i64 %i
  %va = load double, double* %pa, align 8
  %s = fadd double %va, %vb
  store double %s, double* %pa, align 8
  %i1 = add nuw nsw i64 %i, 1
  %e = icmp eq i64 %i1, %n
  br i1 %e, label %done, label %loop
done:
  ret void
}
