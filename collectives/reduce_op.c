/*
 * reduce_op.c -- the reduction kernels behind kumi_allreduce and
 * kumi_reduce. What they compute is documented in reduce_op.h; this file
 * is about making them fast without changing a bit of the result.
 *
 * One macro stamps out every kernel. Why it has the shape it has:
 *   - The two operands are restrict-qualified, so the compiler vectorizes
 *     without run-time overlap checks. Exact aliasing (inout == in), which
 *     restrict would make undefined, takes a one-pointer copy of the loop.
 *   - The main loop walks whole blocks of KUMI_COLL_OP_BLOCK elements: a
 *     constant trip count, which GCC vectorizes even under the "very cheap"
 *     cost model of -O2 (it refuses loops that need a scalar epilogue, i.e.
 *     every loop over an unknown count). The remainder runs scalar.
 *   - Signed integers wrap through the unsigned kernels: C lets an int32_t
 *     object be read and written as uint32_t, and unsigned arithmetic is
 *     modulo 2^32, so INT32 SUM/PROD have no overflow UB and are
 *     two's-complement wrapping. Only MIN/MAX need signed kernels.
 *   - Float MIN/MAX are written with & and | instead of && and ||: GCC does
 *     not if-convert a comparison that the source only evaluates
 *     conditionally (it might trap), so short-circuit code stays a branchy
 *     scalar loop. copysign rather than signbit: GCC vectorizes only the
 *     former for double on plain x86-64 (SSE2).
 *   - No -ffast-math and no reassociation: each element is one operation.
 *   - 8- and 16-bit integers promote to int before the operation; their
 *     products go through unsigned int (65535 * 65535 overflows int).
 *   - long double is loaded and stored with memcpy (the kernels accept any
 *     alignment) and only its value bytes are stored, followed by zeros:
 *     x86-64 keeps an 80-bit value in a 16-byte slot, and the padding a
 *     caller's buffer brings must not reach the result.
 *   - Complex SUM and PROD are C's own + and * on the _Complex types (GCC
 *     inlines the product and calls libgcc only when both parts come out
 *     NaN, to apply Annex G's infinity rules).
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "reduce_op.h"

#define KUMI_COLL_OP_BLOCK 16

#define KUMI_COLL_SUM(a, b)  ((a) + (b))
#define KUMI_COLL_PROD(a, b) ((a) * (b))
#define KUMI_COLL_MIN(a, b)  ((b) < (a) ? (b) : (a))
#define KUMI_COLL_MAX(a, b)  ((a) < (b) ? (b) : (a))
#define KUMI_COLL_BAND(a, b) ((a) & (b))
#define KUMI_COLL_BOR(a, b)  ((a) | (b))
#define KUMI_COLL_BXOR(a, b) ((a) ^ (b))

/* IEEE 754-2019 minimum/maximum. Keep a when it wins, when it is NaN, or
 * when a == b and a carries the winning sign (so -0.0 beats +0.0 for MIN);
 * otherwise b, which then wins, is NaN, or equals a bit for bit. cs is
 * copysign or copysignf. */
#define KUMI_COLL_FMIN(a, b, cs) \
    ((((a) < (b)) | ((a) != (a)) | (((a) == (b)) & (cs(1, (a)) < 0))) ? (a) : (b))
#define KUMI_COLL_FMAX(a, b, cs) \
    ((((a) > (b)) | ((a) != (a)) | (((a) == (b)) & (cs(1, (a)) > 0))) ? (a) : (b))
#define KUMI_COLL_MIN_F(a, b) KUMI_COLL_FMIN(a, b, copysignf)
#define KUMI_COLL_MAX_F(a, b) KUMI_COLL_FMAX(a, b, copysignf)
#define KUMI_COLL_MIN_D(a, b) KUMI_COLL_FMIN(a, b, copysign)
#define KUMI_COLL_MAX_D(a, b) KUMI_COLL_FMAX(a, b, copysign)
#define KUMI_COLL_MIN_L(a, b) KUMI_COLL_FMIN(a, b, copysignl)
#define KUMI_COLL_MAX_L(a, b) KUMI_COLL_FMAX(a, b, copysignl)
/* 8/16-bit products: operands promote to int, whose product may overflow */
#define KUMI_COLL_PROD_NARROW(a, b) ((unsigned)(a) * (unsigned)(b))

/* a[i] = OP(a[i], b[i]) for i in [0, n): whole blocks, then the rest. */
#define KUMI_COLL_LOOP(a, b, n, OP)                                         \
    do {                                                                    \
        size_t i_ = 0;                                                      \
        for (; (n) - i_ >= KUMI_COLL_OP_BLOCK; i_ += KUMI_COLL_OP_BLOCK)    \
            for (size_t j_ = 0; j_ < KUMI_COLL_OP_BLOCK; j_++)              \
                (a)[i_ + j_] = OP((a)[i_ + j_], (b)[i_ + j_]);              \
        for (; i_ < (n); i_++)                                              \
            (a)[i_] = OP((a)[i_], (b)[i_]);                                 \
    } while (0)

/* kumi_coll_op_<name>: the kumi_coll_op_fn for element type T and OP. */
#define KUMI_COLL_KERNEL(name, T, OP)                                       \
    static void kumi_coll_op_##name##_two(T *restrict a, const T *restrict b, \
                                          size_t n)                         \
    {                                                                       \
        KUMI_COLL_LOOP(a, b, n, OP);                                        \
    }                                                                       \
    static void kumi_coll_op_##name##_self(T *a, size_t n)                  \
    {                                                                       \
        KUMI_COLL_LOOP(a, a, n, OP);                                        \
    }                                                                       \
    static void kumi_coll_op_##name(void *inout, const void *in, size_t n)  \
    {                                                                       \
        if (inout == in)                                                    \
            kumi_coll_op_##name##_self((T *)inout, n);                      \
        else                                                                \
            kumi_coll_op_##name##_two((T *)inout, (const T *)in, n);        \
    }

/* long double: one element at a time through memcpy (any alignment);
 * the value bytes, then zeros to the end of the slot. */
#define KUMI_COLL_LDBL_KERNEL(name, OP)                                     \
    static void kumi_coll_op_##name(void *inout, const void *in, size_t n)  \
    {                                                                       \
        unsigned char       *a = inout;                                     \
        const unsigned char *b = in;                                        \
        for (size_t i = 0; i < n; i++) {                                    \
            long double x, y, r;                                            \
            memcpy(&x, a + i * sizeof(x), sizeof(x));                       \
            memcpy(&y, b + i * sizeof(y), sizeof(y));                       \
            r = OP(x, y);                                                   \
            kumi_coll_ldbl_put(a + i * sizeof(r), r);                       \
        }                                                                   \
    }

static inline void kumi_coll_ldbl_put(unsigned char *slot, long double v)
{
    memcpy(slot, &v, KUMI_COLL_LDBL_BYTES);
    memset(slot + KUMI_COLL_LDBL_BYTES, 0, sizeof(long double) - KUMI_COLL_LDBL_BYTES);
}

/* Wrapping and bitwise kernels, shared by the signed types. */
KUMI_COLL_KERNEL(u8_sum,   uint8_t,  KUMI_COLL_SUM)
KUMI_COLL_KERNEL(u8_prod,  uint8_t,  KUMI_COLL_PROD_NARROW)
KUMI_COLL_KERNEL(u8_band,  uint8_t,  KUMI_COLL_BAND)
KUMI_COLL_KERNEL(u8_bor,   uint8_t,  KUMI_COLL_BOR)
KUMI_COLL_KERNEL(u8_bxor,  uint8_t,  KUMI_COLL_BXOR)
KUMI_COLL_KERNEL(u16_sum,  uint16_t, KUMI_COLL_SUM)
KUMI_COLL_KERNEL(u16_prod, uint16_t, KUMI_COLL_PROD_NARROW)
KUMI_COLL_KERNEL(u16_band, uint16_t, KUMI_COLL_BAND)
KUMI_COLL_KERNEL(u16_bor,  uint16_t, KUMI_COLL_BOR)
KUMI_COLL_KERNEL(u16_bxor, uint16_t, KUMI_COLL_BXOR)
KUMI_COLL_KERNEL(u32_sum,  uint32_t, KUMI_COLL_SUM)
KUMI_COLL_KERNEL(u32_prod, uint32_t, KUMI_COLL_PROD)
KUMI_COLL_KERNEL(u32_band, uint32_t, KUMI_COLL_BAND)
KUMI_COLL_KERNEL(u32_bor,  uint32_t, KUMI_COLL_BOR)
KUMI_COLL_KERNEL(u32_bxor, uint32_t, KUMI_COLL_BXOR)
KUMI_COLL_KERNEL(u64_sum,  uint64_t, KUMI_COLL_SUM)
KUMI_COLL_KERNEL(u64_prod, uint64_t, KUMI_COLL_PROD)
KUMI_COLL_KERNEL(u64_band, uint64_t, KUMI_COLL_BAND)
KUMI_COLL_KERNEL(u64_bor,  uint64_t, KUMI_COLL_BOR)
KUMI_COLL_KERNEL(u64_bxor, uint64_t, KUMI_COLL_BXOR)

/* Orderings. */
KUMI_COLL_KERNEL(i8_min,  int8_t,   KUMI_COLL_MIN)
KUMI_COLL_KERNEL(i8_max,  int8_t,   KUMI_COLL_MAX)
KUMI_COLL_KERNEL(u8_min,  uint8_t,  KUMI_COLL_MIN)
KUMI_COLL_KERNEL(u8_max,  uint8_t,  KUMI_COLL_MAX)
KUMI_COLL_KERNEL(i16_min, int16_t,  KUMI_COLL_MIN)
KUMI_COLL_KERNEL(i16_max, int16_t,  KUMI_COLL_MAX)
KUMI_COLL_KERNEL(u16_min, uint16_t, KUMI_COLL_MIN)
KUMI_COLL_KERNEL(u16_max, uint16_t, KUMI_COLL_MAX)
KUMI_COLL_KERNEL(i32_min, int32_t,  KUMI_COLL_MIN)
KUMI_COLL_KERNEL(i32_max, int32_t,  KUMI_COLL_MAX)
KUMI_COLL_KERNEL(u32_min, uint32_t, KUMI_COLL_MIN)
KUMI_COLL_KERNEL(u32_max, uint32_t, KUMI_COLL_MAX)
KUMI_COLL_KERNEL(i64_min, int64_t,  KUMI_COLL_MIN)
KUMI_COLL_KERNEL(i64_max, int64_t,  KUMI_COLL_MAX)
KUMI_COLL_KERNEL(u64_min, uint64_t, KUMI_COLL_MIN)
KUMI_COLL_KERNEL(u64_max, uint64_t, KUMI_COLL_MAX)

/* Floating point. */
KUMI_COLL_KERNEL(f_sum,  float,  KUMI_COLL_SUM)
KUMI_COLL_KERNEL(f_prod, float,  KUMI_COLL_PROD)
KUMI_COLL_KERNEL(f_min,  float,  KUMI_COLL_MIN_F)
KUMI_COLL_KERNEL(f_max,  float,  KUMI_COLL_MAX_F)
KUMI_COLL_KERNEL(d_sum,  double, KUMI_COLL_SUM)
KUMI_COLL_KERNEL(d_prod, double, KUMI_COLL_PROD)
KUMI_COLL_KERNEL(d_min,  double, KUMI_COLL_MIN_D)
KUMI_COLL_KERNEL(d_max,  double, KUMI_COLL_MAX_D)
KUMI_COLL_LDBL_KERNEL(ld_sum,  KUMI_COLL_SUM)
KUMI_COLL_LDBL_KERNEL(ld_prod, KUMI_COLL_PROD)
KUMI_COLL_LDBL_KERNEL(ld_min,  KUMI_COLL_MIN_L)
KUMI_COLL_LDBL_KERNEL(ld_max,  KUMI_COLL_MAX_L)
KUMI_COLL_KERNEL(fc_sum,  float _Complex,  KUMI_COLL_SUM)
KUMI_COLL_KERNEL(fc_prod, float _Complex,  KUMI_COLL_PROD)
KUMI_COLL_KERNEL(dc_sum,  double _Complex, KUMI_COLL_SUM)
KUMI_COLL_KERNEL(dc_prod, double _Complex, KUMI_COLL_PROD)

#define KUMI_COLL_NTYPES (KUMI_DOUBLE_COMPLEX + 1)
#define KUMI_COLL_NOPS   (KUMI_BXOR + 1)

/* [type][op]; a missing entry (bitwise on floating point, MIN/MAX on
 * complex) is NULL. */
static const kumi_coll_op_fn kumi_coll_ops[KUMI_COLL_NTYPES][KUMI_COLL_NOPS] = {
    [KUMI_INT32] = {
        [KUMI_SUM] = kumi_coll_op_u32_sum,   [KUMI_PROD] = kumi_coll_op_u32_prod,
        [KUMI_MIN] = kumi_coll_op_i32_min,   [KUMI_MAX]  = kumi_coll_op_i32_max,
        [KUMI_BAND] = kumi_coll_op_u32_band, [KUMI_BOR]  = kumi_coll_op_u32_bor,
        [KUMI_BXOR] = kumi_coll_op_u32_bxor,
    },
    [KUMI_INT64] = {
        [KUMI_SUM] = kumi_coll_op_u64_sum,   [KUMI_PROD] = kumi_coll_op_u64_prod,
        [KUMI_MIN] = kumi_coll_op_i64_min,   [KUMI_MAX]  = kumi_coll_op_i64_max,
        [KUMI_BAND] = kumi_coll_op_u64_band, [KUMI_BOR]  = kumi_coll_op_u64_bor,
        [KUMI_BXOR] = kumi_coll_op_u64_bxor,
    },
    [KUMI_UINT32] = {
        [KUMI_SUM] = kumi_coll_op_u32_sum,   [KUMI_PROD] = kumi_coll_op_u32_prod,
        [KUMI_MIN] = kumi_coll_op_u32_min,   [KUMI_MAX]  = kumi_coll_op_u32_max,
        [KUMI_BAND] = kumi_coll_op_u32_band, [KUMI_BOR]  = kumi_coll_op_u32_bor,
        [KUMI_BXOR] = kumi_coll_op_u32_bxor,
    },
    [KUMI_UINT64] = {
        [KUMI_SUM] = kumi_coll_op_u64_sum,   [KUMI_PROD] = kumi_coll_op_u64_prod,
        [KUMI_MIN] = kumi_coll_op_u64_min,   [KUMI_MAX]  = kumi_coll_op_u64_max,
        [KUMI_BAND] = kumi_coll_op_u64_band, [KUMI_BOR]  = kumi_coll_op_u64_bor,
        [KUMI_BXOR] = kumi_coll_op_u64_bxor,
    },
    [KUMI_FLOAT] = {
        [KUMI_SUM] = kumi_coll_op_f_sum,     [KUMI_PROD] = kumi_coll_op_f_prod,
        [KUMI_MIN] = kumi_coll_op_f_min,     [KUMI_MAX]  = kumi_coll_op_f_max,
    },
    [KUMI_DOUBLE] = {
        [KUMI_SUM] = kumi_coll_op_d_sum,     [KUMI_PROD] = kumi_coll_op_d_prod,
        [KUMI_MIN] = kumi_coll_op_d_min,     [KUMI_MAX]  = kumi_coll_op_d_max,
    },
    [KUMI_INT8] = {
        [KUMI_SUM] = kumi_coll_op_u8_sum,    [KUMI_PROD] = kumi_coll_op_u8_prod,
        [KUMI_MIN] = kumi_coll_op_i8_min,    [KUMI_MAX]  = kumi_coll_op_i8_max,
        [KUMI_BAND] = kumi_coll_op_u8_band,  [KUMI_BOR]  = kumi_coll_op_u8_bor,
        [KUMI_BXOR] = kumi_coll_op_u8_bxor,
    },
    [KUMI_INT16] = {
        [KUMI_SUM] = kumi_coll_op_u16_sum,   [KUMI_PROD] = kumi_coll_op_u16_prod,
        [KUMI_MIN] = kumi_coll_op_i16_min,   [KUMI_MAX]  = kumi_coll_op_i16_max,
        [KUMI_BAND] = kumi_coll_op_u16_band, [KUMI_BOR]  = kumi_coll_op_u16_bor,
        [KUMI_BXOR] = kumi_coll_op_u16_bxor,
    },
    [KUMI_UINT8] = {
        [KUMI_SUM] = kumi_coll_op_u8_sum,    [KUMI_PROD] = kumi_coll_op_u8_prod,
        [KUMI_MIN] = kumi_coll_op_u8_min,    [KUMI_MAX]  = kumi_coll_op_u8_max,
        [KUMI_BAND] = kumi_coll_op_u8_band,  [KUMI_BOR]  = kumi_coll_op_u8_bor,
        [KUMI_BXOR] = kumi_coll_op_u8_bxor,
    },
    [KUMI_UINT16] = {
        [KUMI_SUM] = kumi_coll_op_u16_sum,   [KUMI_PROD] = kumi_coll_op_u16_prod,
        [KUMI_MIN] = kumi_coll_op_u16_min,   [KUMI_MAX]  = kumi_coll_op_u16_max,
        [KUMI_BAND] = kumi_coll_op_u16_band, [KUMI_BOR]  = kumi_coll_op_u16_bor,
        [KUMI_BXOR] = kumi_coll_op_u16_bxor,
    },
    [KUMI_LONG_DOUBLE] = {
        [KUMI_SUM] = kumi_coll_op_ld_sum,    [KUMI_PROD] = kumi_coll_op_ld_prod,
        [KUMI_MIN] = kumi_coll_op_ld_min,    [KUMI_MAX]  = kumi_coll_op_ld_max,
    },
    [KUMI_FLOAT_COMPLEX] = {
        [KUMI_SUM] = kumi_coll_op_fc_sum,    [KUMI_PROD] = kumi_coll_op_fc_prod,
    },
    [KUMI_DOUBLE_COMPLEX] = {
        [KUMI_SUM] = kumi_coll_op_dc_sum,    [KUMI_PROD] = kumi_coll_op_dc_prod,
    },
};

static const size_t kumi_coll_type_sizes[KUMI_COLL_NTYPES] = {
    [KUMI_INT32] = sizeof(int32_t),   [KUMI_INT64] = sizeof(int64_t),
    [KUMI_UINT32] = sizeof(uint32_t), [KUMI_UINT64] = sizeof(uint64_t),
    [KUMI_FLOAT] = sizeof(float),     [KUMI_DOUBLE] = sizeof(double),
    [KUMI_INT8] = sizeof(int8_t),     [KUMI_INT16] = sizeof(int16_t),
    [KUMI_UINT8] = sizeof(uint8_t),   [KUMI_UINT16] = sizeof(uint16_t),
    [KUMI_LONG_DOUBLE] = sizeof(long double),
    [KUMI_FLOAT_COMPLEX] = sizeof(float _Complex),
    [KUMI_DOUBLE_COMPLEX] = sizeof(double _Complex),
};

static const char *const kumi_coll_type_names[KUMI_COLL_NTYPES] = {
    [KUMI_INT32] = "KUMI_INT32",   [KUMI_INT64] = "KUMI_INT64",
    [KUMI_UINT32] = "KUMI_UINT32", [KUMI_UINT64] = "KUMI_UINT64",
    [KUMI_FLOAT] = "KUMI_FLOAT",   [KUMI_DOUBLE] = "KUMI_DOUBLE",
    [KUMI_INT8] = "KUMI_INT8",     [KUMI_INT16] = "KUMI_INT16",
    [KUMI_UINT8] = "KUMI_UINT8",   [KUMI_UINT16] = "KUMI_UINT16",
    [KUMI_LONG_DOUBLE] = "KUMI_LONG_DOUBLE",
    [KUMI_FLOAT_COMPLEX] = "KUMI_FLOAT_COMPLEX",
    [KUMI_DOUBLE_COMPLEX] = "KUMI_DOUBLE_COMPLEX",
};

static const char *const kumi_coll_op_names[KUMI_COLL_NOPS] = {
    [KUMI_SUM] = "KUMI_SUM",   [KUMI_PROD] = "KUMI_PROD", [KUMI_MIN] = "KUMI_MIN",
    [KUMI_MAX] = "KUMI_MAX",   [KUMI_BAND] = "KUMI_BAND", [KUMI_BOR] = "KUMI_BOR",
    [KUMI_BXOR] = "KUMI_BXOR",
};

/* The enums may hold any int (a caller's cast), negative ones included:
 * compare as unsigned so both ends are checked at once. */
static int kumi_coll_type_ok(kumi_type_t type)
{
    return (unsigned)type < KUMI_COLL_NTYPES;
}

static int kumi_coll_op_ok(kumi_op_t op)
{
    return (unsigned)op < KUMI_COLL_NOPS;
}

size_t kumi_coll_type_size(kumi_type_t type)
{
    return kumi_coll_type_ok(type) ? kumi_coll_type_sizes[type] : 0;
}

kumi_coll_op_fn kumi_coll_op_lookup(kumi_type_t type, kumi_op_t op)
{
    if (!kumi_coll_type_ok(type) || !kumi_coll_op_ok(op))
        return NULL;
    return kumi_coll_ops[type][op];
}

void kumi_coll_type_canon(kumi_type_t type, void *buf, size_t count)
{
    unsigned char *p = buf;

    if (type != KUMI_LONG_DOUBLE || KUMI_COLL_LDBL_BYTES == sizeof(long double))
        return;
    for (size_t i = 0; i < count; i++, p += sizeof(long double))
        memset(p + KUMI_COLL_LDBL_BYTES, 0, sizeof(long double) - KUMI_COLL_LDBL_BYTES);
}

const char *kumi_coll_type_name(kumi_type_t type)
{
    return kumi_coll_type_ok(type) ? kumi_coll_type_names[type] : "?";
}

const char *kumi_coll_op_name(kumi_op_t op)
{
    return kumi_coll_op_ok(op) ? kumi_coll_op_names[op] : "?";
}
