; Loop versions of a loop whose carried values rotate (prev <- cur <- a[i],
; as clang -O2 leaves `prev = cur; cur = next`): the header phi %prev takes
; the header phi %cur from the latch. The long copy's bail enters the
; checked loop with the copy's values, so %prev's entry from the bail is the
; copy's %cur: a phi of the copy's header (kumi.fastl), which the copy's
; header keeps after its back edge went to the count block.
define double @rot(double* %a, double* %b, i64 %n) {
entry:
  %c = icmp sgt i64 %n, 2
  br i1 %c, label %loop, label %done
loop:
  %i = phi i64 [ 2, %entry ], [ %i1, %loop ]
  %prev = phi double [ 0.0, %entry ], [ %cur, %loop ]
  %cur = phi double [ 1.0, %entry ], [ %next, %loop ]
  %pa = getelementptr inbounds double, double* %a, i64 %i
  %next = load double, double* %pa, align 8
  %t = fadd double %prev, %next
  %s = fsub double %t, %cur
  %pb = getelementptr inbounds double, double* %b, i64 %i
  store double %s, double* %pb, align 8
  %i1 = add nuw nsw i64 %i, 1
  %e = icmp eq i64 %i1, %n
  br i1 %e, label %done, label %loop
done:
  %r = phi double [ 0.0, %entry ], [ %cur, %loop ]
  ret double %r
}
