/*
 * op.c -- reduction operations: the predefined ops over exactly the type
 * groups of MPI-3.1 section 5.9.2, user ops (MPI_Op_create/free/
 * commutative), MPI_Reduce_local, and the mapping onto kumi's native
 * reductions that coll.c's fast paths use.
 *
 * Where the numbers are computed:
 *   - Every (op, type) pair kumi's own reductions know (integers of 8 to
 *     64 bits, float, double, long double, float and double complex; SUM,
 *     PROD, MIN, MAX, BAND, BOR, BXOR) runs kumi's kernel
 *     (collectives/reduce_op.h), so a reduction done here gives the same
 *     bits as kumi_allreduce does on coll.c's fast path: float MIN/MAX are
 *     IEEE 754-2019 minimum/maximum (a NaN propagates, -0.0 < +0.0),
 *     integers wrap, long double results carry zero padding.
 *   - C_BOOL's logical ops are kumi's bitwise ones on bytes (a _Bool holds
 *     0 or 1, where AND, OR and XOR are the logical ones).
 *   - The rest is generated here, one kernel per type of a group: the
 *     logical ops on C integers (result 0 or 1), long double complex SUM and
 *     PROD (C's own + and *), MAXLOC and MINLOC on the pair types (equal
 *     values keep the lower index, MPI's rule).
 *
 * Everything is generated from mpi.h's KMPI_PREDEFINED_TYPES: each type's
 * group is the token KMPI_GROUP_<name> below (a type added to mpi.h without
 * one does not compile), and the group decides which ops exist and which
 * kernels are stamped out.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_int.h"
#include "reduce_op.h"

/* ------------------------------------------------------------ type groups
 * MPI-3.1 5.9.2 (C and multi-language types; Fortran's do not exist here),
 * with one extension: MPI_CHAR and MPI_WCHAR count as C integers, as in
 * Open MPI and MPICH (the OSU benchmarks reduce MPI_CHAR with MPI_SUM).
 * MPI_PACKED belongs to no group: no predefined op is defined for it. */
#define KMPI_GROUP_MPI_CHAR                  CINT
#define KMPI_GROUP_MPI_SIGNED_CHAR           CINT
#define KMPI_GROUP_MPI_UNSIGNED_CHAR         CINT
#define KMPI_GROUP_MPI_BYTE                  BYTE
#define KMPI_GROUP_MPI_SHORT                 CINT
#define KMPI_GROUP_MPI_UNSIGNED_SHORT        CINT
#define KMPI_GROUP_MPI_INT                   CINT
#define KMPI_GROUP_MPI_UNSIGNED              CINT
#define KMPI_GROUP_MPI_LONG                  CINT
#define KMPI_GROUP_MPI_UNSIGNED_LONG         CINT
#define KMPI_GROUP_MPI_LONG_LONG_INT         CINT
#define KMPI_GROUP_MPI_UNSIGNED_LONG_LONG    CINT
#define KMPI_GROUP_MPI_FLOAT                 FLOAT
#define KMPI_GROUP_MPI_DOUBLE                FLOAT
#define KMPI_GROUP_MPI_LONG_DOUBLE           FLOAT
#define KMPI_GROUP_MPI_WCHAR                 CINT
#define KMPI_GROUP_MPI_C_BOOL                LOGICAL
#define KMPI_GROUP_MPI_INT8_T                CINT
#define KMPI_GROUP_MPI_INT16_T               CINT
#define KMPI_GROUP_MPI_INT32_T               CINT
#define KMPI_GROUP_MPI_INT64_T               CINT
#define KMPI_GROUP_MPI_UINT8_T               CINT
#define KMPI_GROUP_MPI_UINT16_T              CINT
#define KMPI_GROUP_MPI_UINT32_T              CINT
#define KMPI_GROUP_MPI_UINT64_T              CINT
#define KMPI_GROUP_MPI_C_FLOAT_COMPLEX       COMPLEX
#define KMPI_GROUP_MPI_C_DOUBLE_COMPLEX      COMPLEX
#define KMPI_GROUP_MPI_C_LONG_DOUBLE_COMPLEX COMPLEX
#define KMPI_GROUP_MPI_AINT                  MULTI
#define KMPI_GROUP_MPI_OFFSET                MULTI
#define KMPI_GROUP_MPI_COUNT                 MULTI
#define KMPI_GROUP_MPI_FLOAT_INT             PAIR
#define KMPI_GROUP_MPI_DOUBLE_INT            PAIR
#define KMPI_GROUP_MPI_LONG_INT              PAIR
#define KMPI_GROUP_MPI_2INT                  PAIR
#define KMPI_GROUP_MPI_SHORT_INT             PAIR
#define KMPI_GROUP_MPI_LONG_DOUBLE_INT       PAIR
#define KMPI_GROUP_MPI_PACKED                NONE

/* An X macro for KMPI_PREDEFINED_TYPES that dispatches on the group:
 *   #define M(name, ctype, h) KMPI_BY_GROUP(M, KMPI_GROUP_##name, name, ctype, h)
 * calls M_<group>(name, ctype, h). The paste must happen in M itself,
 * while name is still the type's name: further down the preprocessor has
 * replaced it by the handle (so the kernels are kmpi_land_7 and such). */
#define KMPI_BY_GROUP(M, g, name, ctype, h)  KMPI_BY_GROUP_(M, g, name, ctype, h)
#define KMPI_BY_GROUP_(M, g, name, ctype, h) M##_##g(name, ctype, h)

enum kmpi_group { KMPI_G_NONE, KMPI_G_CINT, KMPI_G_MULTI, KMPI_G_FLOAT, KMPI_G_LOGICAL,
                  KMPI_G_COMPLEX, KMPI_G_BYTE, KMPI_G_PAIR };

#define KMPI_BIT(op) (1u << (op))
/* the ops MPI-3.1 5.9.2 defines for each group */
static const unsigned kmpi_group_ops[] = {
    [KMPI_G_NONE]    = 0,
    [KMPI_G_CINT]    = KMPI_BIT(MPI_MAX) | KMPI_BIT(MPI_MIN) | KMPI_BIT(MPI_SUM) |
                       KMPI_BIT(MPI_PROD) | KMPI_BIT(MPI_LAND) | KMPI_BIT(MPI_LOR) |
                       KMPI_BIT(MPI_LXOR) | KMPI_BIT(MPI_BAND) | KMPI_BIT(MPI_BOR) |
                       KMPI_BIT(MPI_BXOR),
    [KMPI_G_MULTI]   = KMPI_BIT(MPI_MAX) | KMPI_BIT(MPI_MIN) | KMPI_BIT(MPI_SUM) |
                       KMPI_BIT(MPI_PROD) | KMPI_BIT(MPI_BAND) | KMPI_BIT(MPI_BOR) |
                       KMPI_BIT(MPI_BXOR),
    [KMPI_G_FLOAT]   = KMPI_BIT(MPI_MAX) | KMPI_BIT(MPI_MIN) | KMPI_BIT(MPI_SUM) |
                       KMPI_BIT(MPI_PROD),
    [KMPI_G_LOGICAL] = KMPI_BIT(MPI_LAND) | KMPI_BIT(MPI_LOR) | KMPI_BIT(MPI_LXOR),
    [KMPI_G_COMPLEX] = KMPI_BIT(MPI_SUM) | KMPI_BIT(MPI_PROD),
    [KMPI_G_BYTE]    = KMPI_BIT(MPI_BAND) | KMPI_BIT(MPI_BOR) | KMPI_BIT(MPI_BXOR),
    [KMPI_G_PAIR]    = KMPI_BIT(MPI_MAXLOC) | KMPI_BIT(MPI_MINLOC),
};

#define KMPI_GROUP_ROW_NONE(name, ctype, h)    [h] = KMPI_G_NONE,
#define KMPI_GROUP_ROW_CINT(name, ctype, h)    [h] = KMPI_G_CINT,
#define KMPI_GROUP_ROW_MULTI(name, ctype, h)   [h] = KMPI_G_MULTI,
#define KMPI_GROUP_ROW_FLOAT(name, ctype, h)   [h] = KMPI_G_FLOAT,
#define KMPI_GROUP_ROW_LOGICAL(name, ctype, h) [h] = KMPI_G_LOGICAL,
#define KMPI_GROUP_ROW_COMPLEX(name, ctype, h) [h] = KMPI_G_COMPLEX,
#define KMPI_GROUP_ROW_BYTE(name, ctype, h)    [h] = KMPI_G_BYTE,
#define KMPI_GROUP_ROW_PAIR(name, ctype, h)    [h] = KMPI_G_PAIR,
#define KMPI_GROUP_ROW(name, ctype, h) \
    KMPI_BY_GROUP(KMPI_GROUP_ROW, KMPI_GROUP_##name, name, ctype, h)
static const unsigned char kmpi_type_group[KMPI_BASIC_MAX] = {
    KMPI_PREDEFINED_TYPES(KMPI_GROUP_ROW)
};

/* ------------------------------------------------------------ kumi's types
 * Integers by size and signedness, floating types by size (a long double
 * that is a double is KUMI_DOUBLE), complex likewise; -1: kumi has none. */
#define KMPI_SIGNED(ctype) ((ctype)-1 < (ctype)1)   /* not "< 0": -Wtype-limits */
#define KMPI_KINT(ctype)                                                              \
    (sizeof(ctype) == 1 ? (KMPI_SIGNED(ctype) ? KUMI_INT8 : KUMI_UINT8)                \
     : sizeof(ctype) == 2 ? (KMPI_SIGNED(ctype) ? KUMI_INT16 : KUMI_UINT16)            \
     : sizeof(ctype) == 4 ? (KMPI_SIGNED(ctype) ? KUMI_INT32 : KUMI_UINT32)            \
     : sizeof(ctype) == 8 ? (KMPI_SIGNED(ctype) ? KUMI_INT64 : KUMI_UINT64) : -1)
#define KMPI_KUMI_NONE(name, ctype, h)    [h] = -1,
#define KMPI_KUMI_CINT(name, ctype, h)    [h] = KMPI_KINT(ctype),
#define KMPI_KUMI_MULTI(name, ctype, h)   [h] = KMPI_KINT(ctype),
#define KMPI_KUMI_BYTE(name, ctype, h)    [h] = KMPI_KINT(ctype),
#define KMPI_KUMI_LOGICAL(name, ctype, h) [h] = KMPI_KINT(ctype),
#define KMPI_KUMI_FLOAT(name, ctype, h)                                               \
    [h] = sizeof(ctype) == sizeof(float) ? KUMI_FLOAT                                  \
        : sizeof(ctype) == sizeof(double) ? KUMI_DOUBLE : KUMI_LONG_DOUBLE,
#define KMPI_KUMI_COMPLEX(name, ctype, h)                                             \
    [h] = sizeof(ctype) == sizeof(float _Complex) ? KUMI_FLOAT_COMPLEX                 \
        : sizeof(ctype) == sizeof(double _Complex) ? KUMI_DOUBLE_COMPLEX : -1,
#define KMPI_KUMI_PAIR(name, ctype, h)    [h] = -1,
#define KMPI_KUMI_ROW(name, ctype, h) KMPI_BY_GROUP(KMPI_KUMI, KMPI_GROUP_##name, name, ctype, h)
static const signed char kmpi_kumi_types[KMPI_BASIC_MAX] = {
    KMPI_PREDEFINED_TYPES(KMPI_KUMI_ROW)
};

/* kumi has 8-, 16-, 32- and 64-bit integers: every C integer must be one */
#define KMPI_INT_SIZE_OK(name, ctype, h)                                              \
    _Static_assert(sizeof(ctype) == 1 || sizeof(ctype) == 2 || sizeof(ctype) == 4 ||   \
                   sizeof(ctype) == 8, #ctype " has a size kumi's reductions lack");
#define KMPI_SIZE_CHECK_NONE(name, ctype, h)
#define KMPI_SIZE_CHECK_CINT(name, ctype, h)    KMPI_INT_SIZE_OK(name, ctype, h)
#define KMPI_SIZE_CHECK_MULTI(name, ctype, h)   KMPI_INT_SIZE_OK(name, ctype, h)
#define KMPI_SIZE_CHECK_BYTE(name, ctype, h)    KMPI_INT_SIZE_OK(name, ctype, h)
#define KMPI_SIZE_CHECK_LOGICAL(name, ctype, h) KMPI_INT_SIZE_OK(name, ctype, h)
#define KMPI_SIZE_CHECK_FLOAT(name, ctype, h)
#define KMPI_SIZE_CHECK_COMPLEX(name, ctype, h)
#define KMPI_SIZE_CHECK_PAIR(name, ctype, h)
#define KMPI_SIZE_CHECK(name, ctype, h) \
    KMPI_BY_GROUP(KMPI_SIZE_CHECK, KMPI_GROUP_##name, name, ctype, h)
KMPI_PREDEFINED_TYPES(KMPI_SIZE_CHECK)

/* ------------------------------------------------------------ own kernels
 * Same shape as kumi's (kumi_coll_op_fn): inout[i] = in[i] op inout[i]. */
typedef void (*kmpi_kernel_fn)(void *inout, const void *in, size_t n);

#define KMPI_LOOP(ctype, EXPR)                                                        \
    {                                                                                 \
        ctype       *o_ = inout;                                                      \
        const ctype *i_ = in;                                                         \
        for (size_t k_ = 0; k_ < n; k_++)                                             \
            EXPR;                                                                     \
    }
/* the logical ops on C integers; normalize: every element to 0 or 1 */
#define KMPI_KERNELS_CINT(name, ctype, h)                                             \
    static void kmpi_land_##name(void *inout, const void *in, size_t n)               \
        KMPI_LOOP(ctype, o_[k_] = (ctype)(i_[k_] != 0 && o_[k_] != 0))                \
    static void kmpi_lor_##name(void *inout, const void *in, size_t n)                \
        KMPI_LOOP(ctype, o_[k_] = (ctype)(i_[k_] != 0 || o_[k_] != 0))                \
    static void kmpi_lxor_##name(void *inout, const void *in, size_t n)               \
        KMPI_LOOP(ctype, o_[k_] = (ctype)((i_[k_] != 0) != (o_[k_] != 0)))            \
    static void kmpi_norm_##name(void *inout, const void *in, size_t n)               \
        KMPI_LOOP(ctype, o_[k_] = (ctype)(i_[k_] != 0))
#define KMPI_KERNELS_COMPLEX(name, ctype, h)                                          \
    static void kmpi_sum_##name(void *inout, const void *in, size_t n)                \
        KMPI_LOOP(ctype, o_[k_] = i_[k_] + o_[k_])                                    \
    static void kmpi_prod_##name(void *inout, const void *in, size_t n)               \
        KMPI_LOOP(ctype, o_[k_] = i_[k_] * o_[k_])
/* MPI-3.1 5.9.4: the larger (smaller) value wins; equal values keep the
 * lower index. Only the winning index is stored when the values are equal,
 * so the result does not depend on the operands' order. */
#define KMPI_KERNELS_PAIR(name, ctype, h)                                             \
    static void kmpi_maxloc_##name(void *inout, const void *in, size_t n)             \
        KMPI_LOOP(ctype, if (i_[k_].v > o_[k_].v) o_[k_] = i_[k_];                     \
                  else if (i_[k_].v == o_[k_].v && i_[k_].i < o_[k_].i)                \
                      o_[k_].i = i_[k_].i)                                            \
    static void kmpi_minloc_##name(void *inout, const void *in, size_t n)             \
        KMPI_LOOP(ctype, if (i_[k_].v < o_[k_].v) o_[k_] = i_[k_];                     \
                  else if (i_[k_].v == o_[k_].v && i_[k_].i < o_[k_].i)                \
                      o_[k_].i = i_[k_].i)
#define KMPI_KERNELS_NONE(name, ctype, h)
#define KMPI_KERNELS_MULTI(name, ctype, h)
#define KMPI_KERNELS_FLOAT(name, ctype, h)
#define KMPI_KERNELS_LOGICAL(name, ctype, h)
#define KMPI_KERNELS_BYTE(name, ctype, h)
#define KMPI_KERNELS(name, ctype, h) KMPI_BY_GROUP(KMPI_KERNELS, KMPI_GROUP_##name, name, ctype, h)
KMPI_PREDEFINED_TYPES(KMPI_KERNELS)

#define KMPI_OWN_CINT(name, ctype, h)                                                 \
    [MPI_LAND][h] = kmpi_land_##name, [MPI_LOR][h] = kmpi_lor_##name,                  \
    [MPI_LXOR][h] = kmpi_lxor_##name, [0][h] = kmpi_norm_##name,
#define KMPI_OWN_COMPLEX(name, ctype, h)                                              \
    [MPI_SUM][h] = kmpi_sum_##name, [MPI_PROD][h] = kmpi_prod_##name,
#define KMPI_OWN_PAIR(name, ctype, h)                                                 \
    [MPI_MAXLOC][h] = kmpi_maxloc_##name, [MPI_MINLOC][h] = kmpi_minloc_##name,
#define KMPI_OWN_NONE(name, ctype, h)
#define KMPI_OWN_MULTI(name, ctype, h)
#define KMPI_OWN_FLOAT(name, ctype, h)
#define KMPI_OWN_LOGICAL(name, ctype, h)
#define KMPI_OWN_BYTE(name, ctype, h)
#define KMPI_OWN(name, ctype, h) KMPI_BY_GROUP(KMPI_OWN, KMPI_GROUP_##name, name, ctype, h)
/* [op][type]; row 0 holds the C integers' normalizers (x != 0) */
static const kmpi_kernel_fn kmpi_own[MPI_MINLOC + 1][KMPI_BASIC_MAX] = {
    KMPI_PREDEFINED_TYPES(KMPI_OWN)
};

/* ------------------------------------------------------------ predefined ops */
static const char *const kmpi_op_names[] = {
    [MPI_OP_NULL] = "MPI_OP_NULL", [MPI_MAX] = "MPI_MAX", [MPI_MIN] = "MPI_MIN",
    [MPI_SUM] = "MPI_SUM", [MPI_PROD] = "MPI_PROD", [MPI_LAND] = "MPI_LAND",
    [MPI_BAND] = "MPI_BAND", [MPI_LOR] = "MPI_LOR", [MPI_BOR] = "MPI_BOR",
    [MPI_LXOR] = "MPI_LXOR", [MPI_BXOR] = "MPI_BXOR", [MPI_MAXLOC] = "MPI_MAXLOC",
    [MPI_MINLOC] = "MPI_MINLOC", [MPI_REPLACE] = "MPI_REPLACE", [MPI_NO_OP] = "MPI_NO_OP",
};

static const signed char kmpi_kumi_ops[MPI_NO_OP + 1] = {
    [MPI_OP_NULL] = -1, [MPI_MAX] = KUMI_MAX, [MPI_MIN] = KUMI_MIN, [MPI_SUM] = KUMI_SUM,
    [MPI_PROD] = KUMI_PROD, [MPI_LAND] = -1, [MPI_BAND] = KUMI_BAND, [MPI_LOR] = -1,
    [MPI_BOR] = KUMI_BOR, [MPI_LXOR] = -1, [MPI_BXOR] = KUMI_BXOR, [MPI_MAXLOC] = -1,
    [MPI_MINLOC] = -1, [MPI_REPLACE] = -1, [MPI_NO_OP] = -1,
};

/* LAND/LOR/LXOR as the bitwise op on values that are 0 or 1 */
static const signed char kmpi_logical_as_bitwise[MPI_NO_OP + 1] = {
    [MPI_LAND] = KUMI_BAND, [MPI_LOR] = KUMI_BOR, [MPI_LXOR] = KUMI_BXOR,
};

static struct kmpi_op kmpi_predefined_ops[MPI_NO_OP + 1] = {
#define KMPI_PREDEF_OP(op) [op] = { .predefined = op, .commute = 1, .fn = NULL }
    KMPI_PREDEF_OP(MPI_MAX),    KMPI_PREDEF_OP(MPI_MIN),    KMPI_PREDEF_OP(MPI_SUM),
    KMPI_PREDEF_OP(MPI_PROD),   KMPI_PREDEF_OP(MPI_LAND),   KMPI_PREDEF_OP(MPI_BAND),
    KMPI_PREDEF_OP(MPI_LOR),    KMPI_PREDEF_OP(MPI_BOR),    KMPI_PREDEF_OP(MPI_LXOR),
    KMPI_PREDEF_OP(MPI_BXOR),   KMPI_PREDEF_OP(MPI_MAXLOC), KMPI_PREDEF_OP(MPI_MINLOC),
    KMPI_PREDEF_OP(MPI_REPLACE), KMPI_PREDEF_OP(MPI_NO_OP),
#undef KMPI_PREDEF_OP
};

/* ------------------------------------------------------------ user ops
 * Handles KMPI_OP_USER0, KMPI_OP_USER0 + 1, ...; a freed slot (fn NULL)
 * is reused. */
#define KMPI_OP_USER0 16
static struct kmpi_op *kmpi_user_ops;
static int             kmpi_user_cap;

struct kmpi_op *kmpi_op(MPI_Op op)
{
    if (op >= MPI_MAX && op <= MPI_NO_OP)
        return &kmpi_predefined_ops[op];
    if (op >= KMPI_OP_USER0 && op - KMPI_OP_USER0 < kmpi_user_cap &&
        kmpi_user_ops[op - KMPI_OP_USER0].fn != NULL)
        return &kmpi_user_ops[op - KMPI_OP_USER0];
    return NULL;
}

const char *kmpi_op_name(MPI_Op op)
{
    if (op >= MPI_OP_NULL && op <= MPI_NO_OP)
        return kmpi_op_names[op];
    return kmpi_op(op) != NULL ? "a user op" : "an invalid op";
}

static int kmpi_basic_ok(int basic)
{
    return basic > 0 && basic < KMPI_BASIC_MAX;
}

static int kmpi_op_defined(int op, int basic)
{
    return op >= MPI_MAX && op <= MPI_MINLOC && kmpi_basic_ok(basic) &&
           (kmpi_group_ops[kmpi_type_group[basic]] & KMPI_BIT(op)) != 0;
}

int kmpi_kumi_type(int basic)
{
    return kmpi_basic_ok(basic) ? kmpi_kumi_types[basic] : -1;
}

int kmpi_kumi_op(MPI_Op op)
{
    return op >= MPI_OP_NULL && op <= MPI_NO_OP ? kmpi_kumi_ops[op] : -1;
}

int kmpi_op_native(MPI_Op op, int basic, kumi_type_t *type, kumi_op_t *kop)
{
    int kt, ko, mode = KMPI_NATIVE;

    if (!kmpi_op_defined(op, basic) || (kt = kmpi_kumi_types[basic]) < 0)
        return KMPI_NATIVE_NO;
    ko = kmpi_kumi_ops[op];
    if (ko < 0 && (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)) {
        ko   = kmpi_logical_as_bitwise[op];
        mode = kmpi_type_group[basic] == KMPI_G_LOGICAL ? KMPI_NATIVE : KMPI_NATIVE_NORMALIZED;
    }
    if (ko < 0)   /* kumi has a kernel for every pair left (op_types tests each) */
        return KMPI_NATIVE_NO;
    *type = (kumi_type_t)kt;
    *kop  = (kumi_op_t)ko;
    return mode;
}

void kmpi_op_normalize(int basic, void *buf, size_t n)
{
    kmpi_kernel_fn fn = kmpi_basic_ok(basic) ? kmpi_own[0][basic] : NULL;

    if (fn != NULL && n != 0)
        fn(buf, buf, n);
}

int kmpi_op_apply_basic(int op, int basic, const void *in, void *inout, size_t n)
{
    kumi_type_t     kt;
    kumi_op_t       ko;
    kmpi_kernel_fn  own;

    if (!kmpi_op_defined(op, basic))
        return MPI_ERR_OP;
    if (n == 0)
        return MPI_SUCCESS;
    if (kmpi_op_native(op, basic, &kt, &ko) == KMPI_NATIVE &&
        (own = kumi_coll_op_lookup(kt, ko)) != NULL) {
        own(inout, in, n);
        return MPI_SUCCESS;
    }
    own = kmpi_own[op][basic];
    if (own == NULL)   /* every defined pair has a kernel: checked by op tests */
        return MPI_ERR_INTERN;
    own(inout, in, n);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ work layout */
int kmpi_work_direct(const struct kmpi_type *t)
{
    const struct kmpi_type *b;

    if (t->predefined)
        return 1;
    if (!t->contig || !kmpi_basic_ok(t->basic))
        return 0;
    b = kmpi_type(t->basic);
    return b != NULL && b->contig;
}

size_t kmpi_work_bytes(const struct kmpi_type *t, size_t count)
{
    return count * t->nbasic * kmpi_basic_size(t->basic);
}

/* A basic type whose C layout has padding (MPI_DOUBLE_INT: 12 bytes of
 * data in 16) packs tighter than its C array; everything else packs into
 * exactly its C array. */
int kmpi_work_in(const void *buf, size_t count, const struct kmpi_type *t, void *work)
{
    const struct kmpi_type *b = kmpi_type(t->basic);
    void                   *tmp;

    if (count == 0)
        return MPI_SUCCESS;
    if (kmpi_work_direct(t)) {
        memcpy(work, kmpi_at(buf, t->true_lb), kmpi_work_bytes(t, count));
        return MPI_SUCCESS;
    }
    if (b->contig) {
        kmpi_pack(buf, count, t, work);
        return MPI_SUCCESS;
    }
    tmp = malloc(count * t->size);
    if (tmp == NULL)
        return MPI_ERR_NO_MEM;
    kmpi_pack(buf, count, t, tmp);
    kmpi_unpack(tmp, count * t->nbasic, b, work);
    free(tmp);
    return MPI_SUCCESS;
}

int kmpi_work_out(const void *work, size_t count, const struct kmpi_type *t, void *buf)
{
    const struct kmpi_type *b = kmpi_type(t->basic);
    void                   *tmp;

    if (count == 0)
        return MPI_SUCCESS;
    if (kmpi_work_direct(t)) {
        memcpy(kmpi_at(buf, t->true_lb), work, kmpi_work_bytes(t, count));
        return MPI_SUCCESS;
    }
    if (b->contig) {
        kmpi_unpack(work, count, t, buf);
        return MPI_SUCCESS;
    }
    tmp = malloc(count * t->size);
    if (tmp == NULL)
        return MPI_ERR_NO_MEM;
    kmpi_pack(work, count * t->nbasic, b, tmp);
    kmpi_unpack(tmp, count, t, buf);
    free(tmp);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ applying ops */
int kmpi_op_check(MPI_Comm comm, const char *call, MPI_Op op, MPI_Datatype dt)
{
    const struct kmpi_op   *o = kmpi_op(op);
    const struct kmpi_type *t = kmpi_type(dt);

    if (o == NULL)
        return kmpi_error(comm, MPI_ERR_OP, call, "invalid operation %d", op);
    if (o->predefined == MPI_REPLACE || o->predefined == MPI_NO_OP)
        return kmpi_error(comm, MPI_ERR_OP, call,
                          "%s is for one-sided accumulates only, not for reductions",
                          kmpi_op_name(op));
    if (o->predefined == 0 || t == NULL)
        return MPI_SUCCESS;   /* a user op takes any datatype; the caller checks dt */
    if (t->basic == 0)
        return kmpi_error(comm, MPI_ERR_OP, call,
                          "%s is not defined for datatype %s, which mixes basic types",
                          kmpi_op_name(op), t->name);
    if (!kmpi_op_defined(op, t->basic)) {
        const struct kmpi_type *b = kmpi_type(t->basic);
        return kmpi_error(comm, MPI_ERR_OP, call, "%s is not defined for %s%s%s (MPI-3.1 5.9.2)",
                          kmpi_op_name(op), b != NULL ? b->name : "?",
                          t->predefined ? "" : ", the elements of ",
                          t->predefined ? "" : t->name);
    }
    return MPI_SUCCESS;
}

int kmpi_op_apply(MPI_Op op, MPI_Datatype dt, const void *in, void *inout, int count)
{
    const struct kmpi_op   *o = kmpi_op(op);
    const struct kmpi_type *t = kmpi_type(dt);
    size_t                  bytes;
    void                   *wi, *wo;
    int                     rc;

    if (o == NULL)
        return MPI_ERR_OP;
    if (t == NULL)
        return MPI_ERR_TYPE;
    if (count <= 0)
        return count < 0 ? MPI_ERR_COUNT : MPI_SUCCESS;
    if (o->predefined == 0) {
        MPI_Datatype d   = dt;
        int          len = count;
        o->fn((void *)in, inout, &len, &d);
        return MPI_SUCCESS;
    }
    if (!kmpi_op_defined(o->predefined, t->basic))
        return MPI_ERR_OP;
    if (kmpi_work_direct(t))
        return kmpi_op_apply_basic(o->predefined, t->basic, kmpi_at(in, t->true_lb),
                                   kmpi_at(inout, t->true_lb), (size_t)count * t->nbasic);
    /* scattered elements: gather both operands, combine, scatter back */
    bytes = kmpi_work_bytes(t, (size_t)count);
    wi    = malloc(bytes);
    wo    = malloc(bytes);
    rc    = wi == NULL || wo == NULL ? MPI_ERR_NO_MEM : MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        rc = kmpi_work_in(in, (size_t)count, t, wi);
    if (rc == MPI_SUCCESS)
        rc = kmpi_work_in(inout, (size_t)count, t, wo);
    if (rc == MPI_SUCCESS)
        rc = kmpi_op_apply_basic(o->predefined, t->basic, wi, wo, (size_t)count * t->nbasic);
    if (rc == MPI_SUCCESS)
        rc = kmpi_work_out(wo, (size_t)count, t, inout);
    free(wo);
    free(wi);
    return rc;
}

/* ------------------------------------------------------------ MPI calls */
#pragma weak MPI_Op_create = PMPI_Op_create
int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    static const char call[] = "MPI_Op_create";
    int               rc     = kmpi_check_live(call), slot;

    if (rc != MPI_SUCCESS)
        return rc;
    if (user_fn == NULL || op == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "%s is NULL",
                          user_fn == NULL ? "user_fn" : "op");
    for (slot = 0; slot < kmpi_user_cap && kmpi_user_ops[slot].fn != NULL; slot++)
        ;
    if (slot == kmpi_user_cap) {
        int             cap = kmpi_user_cap ? 2 * kmpi_user_cap : 8;
        struct kmpi_op *n   = realloc(kmpi_user_ops, (size_t)cap * sizeof(*n));
        if (n == NULL)
            return kmpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "out of memory");
        memset(n + kmpi_user_cap, 0, (size_t)(cap - kmpi_user_cap) * sizeof(*n));
        kmpi_user_ops = n;
        kmpi_user_cap = cap;
    }
    kmpi_user_ops[slot] = (struct kmpi_op){ .predefined = 0, .commute = commute != 0,
                                            .fn = user_fn };
    *op = KMPI_OP_USER0 + slot;
    return MPI_SUCCESS;
}

#pragma weak MPI_Op_free = PMPI_Op_free
int PMPI_Op_free(MPI_Op *op)
{
    static const char call[] = "MPI_Op_free";
    int               rc     = kmpi_check_live(call);

    if (rc != MPI_SUCCESS)
        return rc;
    if (op == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "op is NULL");
    if (kmpi_op(*op) == NULL || kmpi_op(*op)->predefined != 0)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_OP, call, "%s %d cannot be freed",
                          kmpi_op(*op) == NULL ? "invalid operation" : "predefined operation",
                          *op);
    kmpi_user_ops[*op - KMPI_OP_USER0].fn = NULL;
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Op_commutative = PMPI_Op_commutative
int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    static const char     call[] = "MPI_Op_commutative";
    const struct kmpi_op *o;
    int                   rc = kmpi_check_live(call);

    if (rc != MPI_SUCCESS)
        return rc;
    if (commute == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "commute is NULL");
    o = kmpi_op(op);
    if (o == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_OP, call, "invalid operation %d", op);
    *commute = o->commute;
    return MPI_SUCCESS;
}

#pragma weak MPI_Reduce_local = PMPI_Reduce_local
int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op)
{
    static const char       call[] = "MPI_Reduce_local";
    const struct kmpi_type *t;
    int                     rc = kmpi_check_live(call);

    if (rc != MPI_SUCCESS)
        return rc;
    if (count < 0)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_COUNT, call, "count %d is negative", count);
    t = kmpi_type(datatype);
    if (t == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_TYPE, call, "invalid datatype %d", datatype);
    if (!t->committed)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_TYPE, call, "datatype %s is not committed",
                          t->name);
    rc = kmpi_op_check(MPI_COMM_NULL, call, op, datatype);
    if (rc != MPI_SUCCESS)
        return rc;
    if (count > 0 && (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE))
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_BUFFER, call, "MPI_IN_PLACE is not allowed");
    rc = kmpi_op_apply(op, datatype, inbuf, inoutbuf, count);
    if (rc != MPI_SUCCESS)
        return kmpi_error(MPI_COMM_NULL, rc, call, "%s on %d elements of %s failed",
                          kmpi_op_name(op), count, t->name);
    return MPI_SUCCESS;
}
