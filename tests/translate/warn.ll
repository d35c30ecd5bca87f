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

; no warning for what cannot hold a DSM address: main's argv strings, a
; string from a constant table, the string kumi_strerror returns
@names = private constant [2 x i8*] [i8* getelementptr inbounds ([2 x i8], [2 x i8]* @s.a, i64 0, i64 0), i8* getelementptr inbounds ([2 x i8], [2 x i8]* @s.b, i64 0, i64 0)]
@s.a = private constant [2 x i8] c"a\00"
@s.b = private constant [2 x i8] c"b\00"
declare void @ext_str(i8*)
declare i8* @kumi_strerror(i32)

define i32 @main(i32 %argc, i8** %argv) {
entry:
  %ap = getelementptr inbounds i8*, i8** %argv, i64 1
  %a1 = load i8*, i8** %ap, align 8
  call void @ext_str(i8* %a1)
  %i = and i32 %argc, 1
  %ix = zext i32 %i to i64
  %np = getelementptr inbounds [2 x i8*], [2 x i8*]* @names, i64 0, i64 %ix
  %nm = load i8*, i8** %np, align 8
  call void @ext_str(i8* %nm)
  %e = call i8* @kumi_strerror(i32 %argc)
  call void @ext_str(i8* %e)
  ret i32 0
}
