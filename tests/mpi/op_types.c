/*
 * op_types.c -- every predefined op on every type MPI-3.1 5.9.2 defines it
 * for (plus MPI_CHAR, and MPI_WCHAR on kumi, as C integers), checked
 * against the same fold computed here in rank order: MPI_Reduce_local and
 * Allreduce for every pair; Reduce (root last, in place), Scan, Exscan and
 * Reduce_scatter_block too for the pairs kumi's native reductions lack
 * (logical ops on integers, MAXLOC/MINLOC, long double complex) and every
 * fifth other pair. MAXLOC/MINLOC with ties whose lower index sits on a
 * higher rank. Pairs no op is defined for fail with MPI_ERR_OP.
 */
#include <complex.h>
#include <stdint.h>

#include "coll_util.h"

#define N 3   /* elements per call */

/* one (type, op) pair: rank r's element i, the fold acc = acc op x (acc
 * holding the lower ranks), equality */
struct pair {
    const char  *name;
    MPI_Datatype dt;
    MPI_Op       op;
    size_t       size;
    void (*val)(void *slot, int r, int i);
    void (*fold)(void *acc, const void *x);
    int (*eq)(const void *a, const void *b);
};

static size_t npairs;
static struct pair pairs[400];

static void add(const char *name, MPI_Datatype dt, MPI_Op op, size_t size,
                void (*val)(void *, int, int), void (*fold)(void *, const void *),
                int (*eq)(const void *, const void *))
{
    pairs[npairs++] = (struct pair){ name, dt, op, size, val, fold, eq };
}

/* ------------------------------------------------------------ types
 * X(handle, C type, id) */
#ifdef KUMI_MPI
#define WCHAR_TYPE(X) X(MPI_WCHAR, wchar_t, wchar)
#else
#define WCHAR_TYPE(X)   /* Open MPI defines no op for MPI_WCHAR */
#endif
#define CINT_TYPES(X)                                                                        \
    X(MPI_CHAR, char, char_) X(MPI_SIGNED_CHAR, signed char, schar)                          \
    X(MPI_UNSIGNED_CHAR, unsigned char, uchar) X(MPI_SHORT, short, short_)                   \
    X(MPI_UNSIGNED_SHORT, unsigned short, ushort) X(MPI_INT, int, int_)                      \
    X(MPI_UNSIGNED, unsigned, uint) X(MPI_LONG, long, long_)                                 \
    X(MPI_UNSIGNED_LONG, unsigned long, ulong) X(MPI_LONG_LONG_INT, long long, llong)        \
    X(MPI_LONG_LONG, long long, llong2) X(MPI_UNSIGNED_LONG_LONG, unsigned long long, ullong) \
    X(MPI_INT8_T, int8_t, i8) X(MPI_INT16_T, int16_t, i16) X(MPI_INT32_T, int32_t, i32)      \
    X(MPI_INT64_T, int64_t, i64) X(MPI_UINT8_T, uint8_t, u8) X(MPI_UINT16_T, uint16_t, u16)  \
    X(MPI_UINT32_T, uint32_t, u32) X(MPI_UINT64_T, uint64_t, u64) WCHAR_TYPE(X)
#define MULTI_TYPES(X) X(MPI_AINT, MPI_Aint, aint) X(MPI_OFFSET, MPI_Offset, off) \
    X(MPI_COUNT, MPI_Count, cnt)
#define FLOAT_TYPES(X) X(MPI_FLOAT, float, flt) X(MPI_DOUBLE, double, dbl) \
    X(MPI_LONG_DOUBLE, long double, ldbl)
#define COMPLEX_TYPES(X) X(MPI_C_FLOAT_COMPLEX, float _Complex, fcx) \
    X(MPI_C_COMPLEX, float _Complex, fcx2) X(MPI_C_DOUBLE_COMPLEX, double _Complex, dcx) \
    X(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex, ldcx)

struct float_int { float v; int i; };
struct double_int { double v; int i; };
struct long_int { long v; int i; };
struct int_int { int v; int i; };
struct short_int { short v; int i; };
struct ldouble_int { long double v; int i; };
#define PAIR_TYPES(X)                                                                        \
    X(MPI_FLOAT_INT, struct float_int, fi) X(MPI_DOUBLE_INT, struct double_int, di)          \
    X(MPI_LONG_INT, struct long_int, li) X(MPI_2INT, struct int_int, ii)                     \
    X(MPI_SHORT_INT, struct short_int, si) X(MPI_LONG_DOUBLE_INT, struct ldouble_int, ldi)

/* values small enough that no sum or product leaves any type's range */
#define V_SUM(r, i)  ((r) * 3 + (i)) % 7 + 1
#define V_PROD(r, i) (((r) + (i)) % 4 == 1 ? 2 : 1)
#define V_MM(r, i)   ((r) * 5 + (i) * 3) % 11
#define V_LOG(r, i)  (((r) + (i)) % 3 == 0 ? 0 : (r) + 1)
#define V_BITS(r, i) ((0x5A ^ ((r) * 37 + (i) * 11)) & 0x7F)

#define SCALAR_COMMON(ctype, id)                                                             \
    static int id##_eq(const void *a, const void *b)                                         \
    {                                                                                        \
        return *(const ctype *)a == *(const ctype *)b;                                        \
    }                                                                                        \
    static void id##_v_sum(void *s, int r, int i) { *(ctype *)s = (ctype)(V_SUM(r, i)); }    \
    static void id##_v_prod(void *s, int r, int i) { *(ctype *)s = (ctype)(V_PROD(r, i)); }  \
    static void id##_f_sum(void *a, const void *x) { *(ctype *)a += *(const ctype *)x; }     \
    static void id##_f_prod(void *a, const void *x) { *(ctype *)a *= *(const ctype *)x; }
#define ORDERED(ctype, id)                                                                   \
    static void id##_v_mm(void *s, int r, int i) { *(ctype *)s = (ctype)(V_MM(r, i)); }      \
    static void id##_f_max(void *a, const void *x)                                           \
    {                                                                                        \
        if (*(const ctype *)x > *(ctype *)a)                                                 \
            *(ctype *)a = *(const ctype *)x;                                                 \
    }                                                                                        \
    static void id##_f_min(void *a, const void *x)                                           \
    {                                                                                        \
        if (*(const ctype *)x < *(ctype *)a)                                                 \
            *(ctype *)a = *(const ctype *)x;                                                 \
    }
#define LOGICAL(ctype, id)                                                                   \
    static void id##_v_log(void *s, int r, int i) { *(ctype *)s = (ctype)(V_LOG(r, i)); }    \
    static void id##_f_land(void *a, const void *x)                                          \
    {                                                                                        \
        *(ctype *)a = (ctype)(*(ctype *)a && *(const ctype *)x);                             \
    }                                                                                        \
    static void id##_f_lor(void *a, const void *x)                                           \
    {                                                                                        \
        *(ctype *)a = (ctype)(*(ctype *)a || *(const ctype *)x);                             \
    }                                                                                        \
    static void id##_f_lxor(void *a, const void *x)                                          \
    {                                                                                        \
        *(ctype *)a = (ctype)(!*(ctype *)a != !*(const ctype *)x);                           \
    }
#define BITWISE(ctype, id)                                                                   \
    static void id##_v_bits(void *s, int r, int i) { *(ctype *)s = (ctype)(V_BITS(r, i)); }  \
    static void id##_f_band(void *a, const void *x) { *(ctype *)a &= *(const ctype *)x; }    \
    static void id##_f_bor(void *a, const void *x) { *(ctype *)a |= *(const ctype *)x; }     \
    static void id##_f_bxor(void *a, const void *x) { *(ctype *)a ^= *(const ctype *)x; }

#define DEF_CINT(dt, ctype, id) SCALAR_COMMON(ctype, id) ORDERED(ctype, id) LOGICAL(ctype, id) \
    BITWISE(ctype, id)
#define DEF_MULTI(dt, ctype, id) SCALAR_COMMON(ctype, id) ORDERED(ctype, id) BITWISE(ctype, id)
#define DEF_FLOAT(dt, ctype, id) SCALAR_COMMON(ctype, id) ORDERED(ctype, id)
CINT_TYPES(DEF_CINT)
MULTI_TYPES(DEF_MULTI)
FLOAT_TYPES(DEF_FLOAT)
LOGICAL(_Bool, cbool)
static int cbool_eq(const void *a, const void *b) { return *(const _Bool *)a == *(const _Bool *)b; }
BITWISE(unsigned char, byte)
static int byte_eq(const void *a, const void *b)
{
    return *(const unsigned char *)a == *(const unsigned char *)b;
}

/* complex: sums and products of small Gaussian integers are exact */
#define DEF_COMPLEX(dt, ctype, id)                                                           \
    static int id##_eq(const void *a, const void *b)                                         \
    {                                                                                        \
        return *(const ctype *)a == *(const ctype *)b;                                        \
    }                                                                                        \
    static void id##_v_sum(void *s, int r, int i)                                            \
    {                                                                                        \
        *(ctype *)s = (ctype)((r) + (i)) + (ctype)((r) - 2 * (i)) * (ctype)I;                \
    }                                                                                        \
    static void id##_v_prod(void *s, int r, int i)                                           \
    {                                                                                        \
        *(ctype *)s = ((r) + (i)) % 3 == 1 ? (ctype)1 + (ctype)I : (ctype)((r) % 2 ? -1 : 1); \
    }                                                                                        \
    static void id##_f_sum(void *a, const void *x) { *(ctype *)a += *(const ctype *)x; }     \
    static void id##_f_prod(void *a, const void *x) { *(ctype *)a *= *(const ctype *)x; }
COMPLEX_TYPES(DEF_COMPLEX)

/* pairs: few distinct values (ties), and indices that decrease with the
 * rank, so the lower index of a tie is not the first rank's */
#define DEF_PAIR(dt, ctype, id)                                                              \
    static int id##_eq(const void *a, const void *b)                                         \
    {                                                                                        \
        return ((const ctype *)a)->v == ((const ctype *)b)->v &&                             \
               ((const ctype *)a)->i == ((const ctype *)b)->i;                               \
    }                                                                                        \
    static void id##_v_loc(void *s, int r, int i)                                            \
    {                                                                                        \
        ((ctype *)s)->v = (r * 5 + i) % 3;                                                   \
        ((ctype *)s)->i = (cu_size - r) * 10 + i;                                            \
    }                                                                                        \
    static void id##_f_maxloc(void *a, const void *x)                                        \
    {                                                                                        \
        ctype *p = a;                                                                        \
        const ctype *q = x;                                                                  \
        if (q->v > p->v || (q->v == p->v && q->i < p->i))                                    \
            *p = *q;                                                                         \
    }                                                                                        \
    static void id##_f_minloc(void *a, const void *x)                                        \
    {                                                                                        \
        ctype *p = a;                                                                        \
        const ctype *q = x;                                                                  \
        if (q->v < p->v || (q->v == p->v && q->i < p->i))                                    \
            *p = *q;                                                                         \
    }
PAIR_TYPES(DEF_PAIR)

#define ADD(dt, ctype, id, op, v, f) \
    add(#dt " " #op, dt, op, sizeof(ctype), id##_v_##v, id##_f_##f, id##_eq);
#define ADD_CINT(dt, ctype, id)                                                              \
    ADD(dt, ctype, id, MPI_SUM, sum, sum) ADD(dt, ctype, id, MPI_PROD, prod, prod)           \
    ADD(dt, ctype, id, MPI_MAX, mm, max) ADD(dt, ctype, id, MPI_MIN, mm, min)                \
    ADD(dt, ctype, id, MPI_LAND, log, land) ADD(dt, ctype, id, MPI_LOR, log, lor)            \
    ADD(dt, ctype, id, MPI_LXOR, log, lxor) ADD(dt, ctype, id, MPI_BAND, bits, band)         \
    ADD(dt, ctype, id, MPI_BOR, bits, bor) ADD(dt, ctype, id, MPI_BXOR, bits, bxor)
#define ADD_MULTI(dt, ctype, id)                                                             \
    ADD(dt, ctype, id, MPI_SUM, sum, sum) ADD(dt, ctype, id, MPI_PROD, prod, prod)           \
    ADD(dt, ctype, id, MPI_MAX, mm, max) ADD(dt, ctype, id, MPI_MIN, mm, min)                \
    ADD(dt, ctype, id, MPI_BAND, bits, band) ADD(dt, ctype, id, MPI_BOR, bits, bor)          \
    ADD(dt, ctype, id, MPI_BXOR, bits, bxor)
#define ADD_FLOAT(dt, ctype, id)                                                             \
    ADD(dt, ctype, id, MPI_SUM, sum, sum) ADD(dt, ctype, id, MPI_PROD, prod, prod)           \
    ADD(dt, ctype, id, MPI_MAX, mm, max) ADD(dt, ctype, id, MPI_MIN, mm, min)
#define ADD_COMPLEX(dt, ctype, id)                                                           \
    ADD(dt, ctype, id, MPI_SUM, sum, sum) ADD(dt, ctype, id, MPI_PROD, prod, prod)
#define ADD_PAIR(dt, ctype, id)                                                              \
    ADD(dt, ctype, id, MPI_MAXLOC, loc, maxloc) ADD(dt, ctype, id, MPI_MINLOC, loc, minloc)

static void build(void)
{
    CINT_TYPES(ADD_CINT)
    MULTI_TYPES(ADD_MULTI)
    FLOAT_TYPES(ADD_FLOAT)
    COMPLEX_TYPES(ADD_COMPLEX)
    PAIR_TYPES(ADD_PAIR)
    ADD(MPI_C_BOOL, _Bool, cbool, MPI_LAND, log, land)
    ADD(MPI_C_BOOL, _Bool, cbool, MPI_LOR, log, lor)
    ADD(MPI_C_BOOL, _Bool, cbool, MPI_LXOR, log, lxor)
    ADD(MPI_BYTE, unsigned char, byte, MPI_BAND, bits, band)
    ADD(MPI_BYTE, unsigned char, byte, MPI_BOR, bits, bor)
    ADD(MPI_BYTE, unsigned char, byte, MPI_BXOR, bits, bxor)
}

/* ------------------------------------------------------------ the checks */

#define SLOT 64   /* bytes: any element fits */

/* want[i] = fold of ranks [lo, hi) */
static void expect(const struct pair *p, int lo, int hi, unsigned char *want)
{
    for (int i = 0; i < N; i++) {
        unsigned char x[SLOT];
        p->val(want + i * p->size, lo, i);
        for (int r = lo + 1; r < hi; r++) {
            p->val(x, r, i);
            p->fold(want + i * p->size, x);
        }
    }
}

static void check(const struct pair *p, const char *what, const unsigned char *got,
                  const unsigned char *want, int n)
{
    for (int i = 0; i < n; i++)
        CU_CHECK(p->eq(got + i * p->size, want + i * p->size), "%s: %s element %d", p->name,
                 what, i);
}

static void run(const struct pair *p, int all_calls)
{
    unsigned char mine[N * SLOT], got[N * SLOT], want[N * SLOT], in[N * SLOT];
    unsigned char *all = malloc((size_t)cu_size * p->size), *rs = malloc(p->size);
    const int      last = cu_size - 1;

    for (int i = 0; i < N; i++)
        p->val(mine + i * p->size, cu_rank, i);

    /* Reduce_local: inout = in op inout */
    for (int i = 0; i < N; i++) {
        p->val(in + i * p->size, 1, i);
        p->val(got + i * p->size, 0, i);
    }
    CU_OK(MPI_Reduce_local(in, got, N, p->dt, p->op));
    expect(p, 0, 2, want);
    check(p, "Reduce_local", got, want, N);

    expect(p, 0, cu_size, want);
    memset(got, 0, sizeof got);
    CU_OK(MPI_Allreduce(mine, got, N, p->dt, p->op, MPI_COMM_WORLD));
    check(p, "Allreduce", got, want, N);
    if (!all_calls) {
        free(rs);
        free(all);
        return;
    }

    memcpy(got, mine, sizeof got);
    CU_OK(MPI_Reduce(cu_rank == last ? MPI_IN_PLACE : mine, got, N, p->dt, p->op, last,
                     MPI_COMM_WORLD));
    if (cu_rank == last)
        check(p, "Reduce", got, want, N);

    expect(p, 0, cu_rank + 1, want);
    CU_OK(MPI_Scan(mine, got, N, p->dt, p->op, MPI_COMM_WORLD));
    check(p, "Scan", got, want, N);
    if (cu_rank > 0)
        expect(p, 0, cu_rank, want);
    CU_OK(MPI_Exscan(mine, got, N, p->dt, p->op, MPI_COMM_WORLD));
    if (cu_rank > 0)
        check(p, "Exscan", got, want, N);

    /* element j of every rank's vector goes to rank j: rank r's value for
     * element j is val(r, j % N) */
    for (int j = 0; j < cu_size; j++)
        p->val(all + j * p->size, cu_rank, j % N);
    CU_OK(MPI_Reduce_scatter_block(all, rs, 1, p->dt, p->op, MPI_COMM_WORLD));
    p->val(want, 0, cu_rank % N);   /* the fold over ranks of val(r, cu_rank % N) */
    for (int r = 1; r < cu_size; r++) {
        unsigned char x[SLOT];
        p->val(x, r, cu_rank % N);
        p->fold(want, x);
    }
    check(p, "Reduce_scatter_block", rs, want, 1);
    free(rs);
    free(all);
}

/* pairs no op is defined for */
struct bad { MPI_Datatype dt; MPI_Op op; const char *name; };

static void test_undefined(void)
{
    static const struct bad common[] = {
        { MPI_DOUBLE, MPI_BAND, "BAND on DOUBLE" }, { MPI_FLOAT, MPI_BOR, "BOR on FLOAT" },
        { MPI_LONG_DOUBLE, MPI_BXOR, "BXOR on LONG_DOUBLE" },
        { MPI_DOUBLE, MPI_LAND, "LAND on DOUBLE" },
        { MPI_C_BOOL, MPI_SUM, "SUM on C_BOOL" }, { MPI_C_BOOL, MPI_MAX, "MAX on C_BOOL" },
        { MPI_C_DOUBLE_COMPLEX, MPI_MAX, "MAX on C_DOUBLE_COMPLEX" },
        { MPI_C_FLOAT_COMPLEX, MPI_BAND, "BAND on C_FLOAT_COMPLEX" },
        { MPI_INT, MPI_MAXLOC, "MAXLOC on INT" }, { MPI_DOUBLE, MPI_MINLOC, "MINLOC on DOUBLE" },
        { MPI_2INT, MPI_SUM, "SUM on 2INT" }, { MPI_DOUBLE_INT, MPI_MAX, "MAX on DOUBLE_INT" },
        { MPI_INT, MPI_REPLACE, "REPLACE" }, { MPI_INT, MPI_NO_OP, "NO_OP" },
        { MPI_PACKED, MPI_SUM, "SUM on PACKED" },
#ifdef KUMI_MPI   /* MPI-3.1 5.9.2 forbids these too; Open MPI accepts them */
        { MPI_BYTE, MPI_SUM, "SUM on BYTE" }, { MPI_BYTE, MPI_MAX, "MAX on BYTE" },
        { MPI_BYTE, MPI_LAND, "LAND on BYTE" }, { MPI_AINT, MPI_LAND, "LAND on AINT" },
        { MPI_OFFSET, MPI_LXOR, "LXOR on OFFSET" }, { MPI_PACKED, MPI_BAND, "BAND on PACKED" },
#endif
    };
    int a[8] = { 0 }, b[8] = { 0 };

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (size_t k = 0; k < sizeof common / sizeof common[0]; k++) {
        int rc = MPI_Reduce_local(a, b, 1, common[k].dt, common[k].op);
        CU_CHECK(cu_class(rc) == MPI_ERR_OP, "Reduce_local %s: class %d", common[k].name,
                 cu_class(rc));
        rc = MPI_Allreduce(a, b, 1, common[k].dt, common[k].op, MPI_COMM_WORLD);
        CU_CHECK(cu_class(rc) == MPI_ERR_OP, "Allreduce %s: class %d", common[k].name,
                 cu_class(rc));
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    cu_section("undefined pairs: MPI_ERR_OP");
}

int main(int argc, char **argv)
{
    int commute = -1;

    cu_init(&argc, &argv);
    build();
    for (size_t k = 0; k < npairs; k++) {
        MPI_Op op = pairs[k].op;
        run(&pairs[k], k % 5 == 0 || op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR ||
                           op == MPI_MAXLOC || op == MPI_MINLOC ||
                           pairs[k].dt == MPI_C_LONG_DOUBLE_COMPLEX);
    }
    cu_section("every op on every type");
    CU_OK(MPI_Op_commutative(MPI_SUM, &commute));
    CU_CHECK(commute == 1, "MPI_SUM commutes: %d", commute);
    CU_OK(MPI_Op_commutative(MPI_MAXLOC, &commute));
    CU_CHECK(commute == 1, "MPI_MAXLOC commutes: %d", commute);
    cu_section("predefined ops commute");
    test_undefined();
    return cu_finish();
}
