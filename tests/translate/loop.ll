; @loop: a counted loop summing p[0..n): one poll on its back-edge (the
; latch -> header edge), and the header's phis still verify.
; @straight: no loop, no poll.
define i64 @loop(i64* %p, i64 %n) {
entry:
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %i1, %body ]
  %s = phi i64 [ 0, %entry ], [ %s1, %body ]
  %c = icmp slt i64 %i, %n
  br i1 %c, label %body, label %exit
body:
  %e = getelementptr inbounds i64, i64* %p, i64 %i
  %v = load i64, i64* %e, align 8
  %s1 = add i64 %s, %v
  %i1 = add i64 %i, 1
  br label %head
exit:
  ret i64 %s
}

define i64 @straight(i64 %x) {
entry:
  %y = mul i64 %x, 3
  ret i64 %y
}
