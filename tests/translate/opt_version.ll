; Loop versions: an innermost loop whose accesses are affine in its
; induction variables gets unchecked copies (kumi.fast for short runs,
; kumi.fastl with a poll every 1024 iterations for long ones) behind a test
; of every line the accesses can reach (inline state word for up to eight
; lines, kumi_dsm_ready beyond), with the loop's iterations charged to the
; poll counter first. Loops with a call, an access that is not affine, or a
; volatile access keep only their checked form.
declare void @ext()

; a[i] += b[i]: two ranges (a written, b read), versioned
define void @axpy(double* %a, double* %b, i64 %n) {
entry:
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

; a column: p = a + i * stride (a run-time stride), stepping down, and a
; value of the loop used after it (through the exit's phi)
define double @column(double* %a, i64 %stride, i64 %n) {
entry:
  %c = icmp sgt i64 %n, 0
  br i1 %c, label %loop, label %done
loop:
  %i = phi i64 [ %n, %entry ], [ %i1, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc1, %loop ]
  %off = mul i64 %i, %stride
  %p = getelementptr inbounds double, double* %a, i64 %off
  %v = load double, double* %p, align 8
  %acc1 = fadd double %acc, %v
  %i1 = add nsw i64 %i, -1
  %e = icmp sgt i64 %i1, 0
  br i1 %e, label %loop, label %done
done:
  %r = phi double [ 0.0, %entry ], [ %acc1, %loop ]
  ret double %r
}

; a call in the loop: not versioned
define void @with_call(double* %a, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %pa = getelementptr inbounds double, double* %a, i64 %i
  store double 1.0, double* %pa, align 8
  call void @ext()
  %i1 = add nuw nsw i64 %i, 1
  %e = icmp eq i64 %i1, %n
  br i1 %e, label %done, label %loop
done:
  ret void
}

; a scatter a[idx[i]]: not affine, not versioned
define void @scatter(double* %a, i64* %idx, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %pi = getelementptr inbounds i64, i64* %idx, i64 %i
  %k = load i64, i64* %pi, align 8
  %pa = getelementptr inbounds double, double* %a, i64 %k
  store double 1.0, double* %pa, align 8
  %i1 = add nuw nsw i64 %i, 1
  %e = icmp eq i64 %i1, %n
  br i1 %e, label %done, label %loop
done:
  ret void
}

; a volatile load (a flag others write): not versioned
define i32 @spin(i32* %f, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi i32 [ 0, %entry ], [ %s1, %loop ]
  %pf = getelementptr inbounds i32, i32* %f, i64 %i
  %v = load volatile i32, i32* %pf, align 4
  %s1 = add i32 %s, %v
  %i1 = add nuw nsw i64 %i, 1
  %e = icmp eq i64 %i1, %n
  br i1 %e, label %done, label %loop
done:
  ret i32 %s1
}
