/* reduce_op.c -- the reduction kernels of collectives/reduce_op.h against a
 * scalar reference written independently of them: every type x op, random
 * data seeded with edge values, counts around the kernels' block size, the
 * wrap, signed-zero and NaN rules, long double padding, complex products,
 * exact aliasing, and invalid pairs. */
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <complex.h>

#include "kumi.h"
#include "reduce_op.h"

#define NTYPES (KUMI_DOUBLE_COMPLEX + 1)
#define NOPS   (KUMI_BXOR + 1)
#define GUARD  8                   /* elements checked after the range */

typedef union {
    int8_t   i8;
    int16_t  i16;
    int32_t  i32;
    int64_t  i64;
    uint8_t  u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    float    f;
    double   d;
    long double ld;
    float _Complex  fc;
    double _Complex dc;
    unsigned char bytes[16];
} elem;

static int is_complex(kumi_type_t t)
{
    return t == KUMI_FLOAT_COMPLEX || t == KUMI_DOUBLE_COMPLEX;
}
static int is_float(kumi_type_t t)
{
    return t == KUMI_FLOAT || t == KUMI_DOUBLE || t == KUMI_LONG_DOUBLE || is_complex(t);
}
static int is_bitwise(kumi_op_t op) { return op == KUMI_BAND || op == KUMI_BOR || op == KUMI_BXOR; }
static int is_order(kumi_op_t op) { return op == KUMI_MIN || op == KUMI_MAX; }
/* the pairs reduce_op.h promises a kernel for */
static int valid_pair(kumi_type_t t, kumi_op_t op)
{
    return !(is_float(t) && is_bitwise(op)) && !(is_complex(t) && is_order(op));
}
/* bytes of an element that carry its value (long double: not the padding) */
static size_t value_bytes(kumi_type_t t)
{
    return t == KUMI_LONG_DOUBLE ? KUMI_COLL_LDBL_BYTES : kumi_coll_type_size(t);
}

static float f_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static double d_bits(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }

/* ------------------------------------------------------------ reference
 * Spelled out per element with branches, the way reduce_op.h words the
 * rules, so it shares no code or trick with the kernels. */
static double ref_fmin(double x, double y)
{
    if (isnan(x)) return x;
    if (isnan(y)) return y;
    if (x < y) return x;
    if (y < x) return y;
    return signbit(x) ? x : y;     /* equal: only +-0 can differ */
}

static double ref_fmax(double x, double y)
{
    if (isnan(x)) return x;
    if (isnan(y)) return y;
    if (x > y) return x;
    if (y > x) return y;
    return signbit(x) ? y : x;
}

static float ref_fminf(float x, float y)
{
    if (isnan(x)) return x;
    if (isnan(y)) return y;
    if (x < y) return x;
    if (y < x) return y;
    return signbit(x) ? x : y;
}

static float ref_fmaxf(float x, float y)
{
    if (isnan(x)) return x;
    if (isnan(y)) return y;
    if (x > y) return x;
    if (y > x) return y;
    return signbit(x) ? y : x;
}

static long double ref_fminl(long double x, long double y)
{
    if (isnan(x)) return x;
    if (isnan(y)) return y;
    if (x < y) return x;
    if (y < x) return y;
    return signbit(x) ? x : y;
}

static long double ref_fmaxl(long double x, long double y)
{
    if (isnan(x)) return x;
    if (isnan(y)) return y;
    if (x > y) return x;
    if (y > x) return y;
    return signbit(x) ? y : x;
}

#define REF_UINT(r, x, y, op) do {                                     \
        switch (op) {                                                  \
        case KUMI_SUM:  r = x + y; break;                              \
        case KUMI_PROD: r = x * y; break;                              \
        case KUMI_MIN:  r = x < y ? x : y; break;                      \
        case KUMI_MAX:  r = x > y ? x : y; break;                      \
        case KUMI_BAND: r = x & y; break;                              \
        case KUMI_BOR:  r = x | y; break;                              \
        case KUMI_BXOR: r = x ^ y; break;                              \
        }                                                              \
    } while (0)

static elem ref_op(kumi_type_t t, kumi_op_t op, elem x, elem y)
{
    elem r;
    memset(&r, 0, sizeof r);
    switch (t) {
    case KUMI_INT32:
        /* wrap: SUM/PROD/bitwise on the bit patterns, MIN/MAX signed */
        if (op == KUMI_MIN)      r.i32 = x.i32 < y.i32 ? x.i32 : y.i32;
        else if (op == KUMI_MAX) r.i32 = x.i32 > y.i32 ? x.i32 : y.i32;
        else                     REF_UINT(r.u32, x.u32, y.u32, op);
        break;
    case KUMI_INT64:
        if (op == KUMI_MIN)      r.i64 = x.i64 < y.i64 ? x.i64 : y.i64;
        else if (op == KUMI_MAX) r.i64 = x.i64 > y.i64 ? x.i64 : y.i64;
        else                     REF_UINT(r.u64, x.u64, y.u64, op);
        break;
    case KUMI_UINT32: REF_UINT(r.u32, x.u32, y.u32, op); break;
    case KUMI_UINT64: REF_UINT(r.u64, x.u64, y.u64, op); break;
    /* 8/16 bits: computed in uint32_t, then truncated (the wrap) */
    case KUMI_INT8:
        if (op == KUMI_MIN)      r.i8 = x.i8 < y.i8 ? x.i8 : y.i8;
        else if (op == KUMI_MAX) r.i8 = x.i8 > y.i8 ? x.i8 : y.i8;
        else { uint32_t w = 0; REF_UINT(w, (uint32_t)x.u8, (uint32_t)y.u8, op); r.u8 = (uint8_t)w; }
        break;
    case KUMI_INT16:
        if (op == KUMI_MIN)      r.i16 = x.i16 < y.i16 ? x.i16 : y.i16;
        else if (op == KUMI_MAX) r.i16 = x.i16 > y.i16 ? x.i16 : y.i16;
        else { uint32_t w = 0; REF_UINT(w, (uint32_t)x.u16, (uint32_t)y.u16, op); r.u16 = (uint16_t)w; }
        break;
    case KUMI_UINT8: {
        uint32_t w = 0;
        REF_UINT(w, (uint32_t)x.u8, (uint32_t)y.u8, op);
        r.u8 = (uint8_t)w;
        break;
    }
    case KUMI_UINT16: {
        uint32_t w = 0;
        REF_UINT(w, (uint32_t)x.u16, (uint32_t)y.u16, op);
        r.u16 = (uint16_t)w;
        break;
    }
    case KUMI_LONG_DOUBLE:
        switch (op) {
        case KUMI_SUM:  r.ld = x.ld + y.ld; break;
        case KUMI_PROD: r.ld = x.ld * y.ld; break;
        case KUMI_MIN:  r.ld = ref_fminl(x.ld, y.ld); break;
        case KUMI_MAX:  r.ld = ref_fmaxl(x.ld, y.ld); break;
        default: fail_msg("no long double reference for %d", (int)op);
        }
        /* the kernel's result slot: value bytes, then zeros */
        memset(r.bytes + KUMI_COLL_LDBL_BYTES, 0, sizeof(long double) - KUMI_COLL_LDBL_BYTES);
        break;
    /* complex: the parts one by one for SUM; PROD is C's own complex
     * product (what the kernel promises), checked against the textbook
     * formula on finite values by test_complex */
    case KUMI_FLOAT_COMPLEX:
        if (op == KUMI_SUM)
            r.fc = CMPLXF(crealf(x.fc) + crealf(y.fc), cimagf(x.fc) + cimagf(y.fc));
        else if (op == KUMI_PROD)
            r.fc = x.fc * y.fc;
        else
            fail_msg("no float complex reference for %d", (int)op);
        break;
    case KUMI_DOUBLE_COMPLEX:
        if (op == KUMI_SUM)
            r.dc = CMPLX(creal(x.dc) + creal(y.dc), cimag(x.dc) + cimag(y.dc));
        else if (op == KUMI_PROD)
            r.dc = x.dc * y.dc;
        else
            fail_msg("no double complex reference for %d", (int)op);
        break;
    case KUMI_FLOAT:
        switch (op) {
        case KUMI_SUM:  r.f = x.f + y.f; break;
        case KUMI_PROD: r.f = x.f * y.f; break;
        case KUMI_MIN:  r.f = ref_fminf(x.f, y.f); break;
        case KUMI_MAX:  r.f = ref_fmaxf(x.f, y.f); break;
        default: fail_msg("no float reference for %d", (int)op);
        }
        break;
    case KUMI_DOUBLE:
        switch (op) {
        case KUMI_SUM:  r.d = x.d + y.d; break;
        case KUMI_PROD: r.d = x.d * y.d; break;
        case KUMI_MIN:  r.d = ref_fmin(x.d, y.d); break;
        case KUMI_MAX:  r.d = ref_fmax(x.d, y.d); break;
        default: fail_msg("no double reference for %d", (int)op);
        }
        break;
    }
    return r;
}

/* The element's bytes in hex, most significant first, for messages. */
static const char *hex_of(kumi_type_t t, elem e, char *buf)
{
    size_t n = kumi_coll_type_size(t);
    for (size_t i = 0; i < n; i++)
        sprintf(buf + 2 * i, "%02x", e.bytes[n - 1 - i]);
    return buf;
}

/* Does the part of a floating value at byte offset off hold a NaN? */
static int part_isnan(kumi_type_t t, elem e, int part)
{
    switch (t) {
    case KUMI_FLOAT:          return isnan(e.f);
    case KUMI_DOUBLE:         return isnan(e.d);
    case KUMI_LONG_DOUBLE:    return isnan(e.ld);
    case KUMI_FLOAT_COMPLEX:  return isnan(part ? cimagf(e.fc) : crealf(e.fc));
    case KUMI_DOUBLE_COMPLEX: return isnan(part ? cimag(e.dc) : creal(e.dc));
    default:                  return 0;
    }
}

/* Bit for bit (long double: its value bytes, and zeros after them), except
 * that SUM/PROD may pick either NaN payload (the rule in reduce_op.h), part
 * by part for complex values; MIN/MAX must return the NaN operand itself. */
static int same_result(kumi_type_t t, kumi_op_t op, elem want, elem got)
{
    size_t vb = value_bytes(t), sz = kumi_coll_type_size(t);

    for (size_t i = vb; i < sz; i++)
        if (got.bytes[i] != 0)
            return 0;
    if (op == KUMI_SUM || op == KUMI_PROD) {
        int    parts = is_complex(t) ? 2 : 1;
        size_t psz   = vb / (size_t)parts;
        for (int p = 0; p < parts; p++) {
            if (part_isnan(t, want, p)) {
                if (!part_isnan(t, got, p))
                    return 0;
            } else if (memcmp(want.bytes + (size_t)p * psz, got.bytes + (size_t)p * psz, psz) != 0) {
                return 0;
            }
        }
        return 1;
    }
    return memcmp(want.bytes, got.bytes, vb) == 0;
}

static elem load(kumi_type_t t, const void *buf, size_t i)
{
    elem e;
    size_t sz = kumi_coll_type_size(t);
    memset(&e, 0, sizeof e);
    memcpy(e.bytes, (const char *)buf + i * sz, sz);
    return e;
}

static void store(kumi_type_t t, void *buf, size_t i, elem e)
{
    size_t sz = kumi_coll_type_size(t);
    memcpy((char *)buf + i * sz, e.bytes, sz);
}

static void report(kumi_type_t t, kumi_op_t op, const char *what, size_t n, size_t i,
                   elem x, elem y, elem want, elem got)
{
    char hx[40], hy[40], hw[40], hg[40];
    print_error("%s %s %s count %zu [%zu]: %s op %s = %s, kernel gave %s\n",
                kumi_coll_type_name(t), kumi_coll_op_name(op), what, n, i, hex_of(t, x, hx),
                hex_of(t, y, hy), hex_of(t, want, hw), hex_of(t, got, hg));
}

/* ----------------------------------------------------------- test data */
static uint64_t rng_state;

static uint64_t rng(void)                       /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static const int32_t i32_edges[] = { 0, 1, -1, 2, INT32_MIN, INT32_MAX, INT32_MIN + 1,
                                     INT32_MAX - 1, 0x10000, -0x10000 };
static const int64_t i64_edges[] = { 0, 1, -1, 2, INT64_MIN, INT64_MAX, INT64_MIN + 1,
                                     INT64_MAX - 1, INT64_C(0x100000000), INT32_MIN,
                                     INT32_MAX };
static const uint32_t u32_edges[] = { 0, 1, 2, UINT32_MAX, UINT32_MAX - 1, 0x80000000u,
                                      0x7fffffffu, 0x10000 };
static const uint64_t u64_edges[] = { 0, 1, 2, UINT64_MAX, UINT64_MAX - 1,
                                      UINT64_C(0x8000000000000000), INT64_MAX,
                                      UINT64_C(0x100000000), UINT32_MAX };
static const int8_t i8_edges[] = { 0, 1, -1, 2, INT8_MIN, INT8_MAX, INT8_MIN + 1, 16, -16 };
static const int16_t i16_edges[] = { 0, 1, -1, 2, INT16_MIN, INT16_MAX, INT16_MIN + 1, 0x100,
                                     -0x100, 0xff };
static const uint8_t u8_edges[] = { 0, 1, 2, UINT8_MAX, UINT8_MAX - 1, 0x80, 0x7f, 0x10 };
static const uint16_t u16_edges[] = { 0, 1, 2, UINT16_MAX, UINT16_MAX - 1, 0x8000, 0x7fff,
                                      0x100, 0xff };
/* NaNs with payloads, signalling NaNs and a negative NaN as bit patterns */
static const uint32_t f_edges[] = {
    0x00000000u, 0x80000000u, 0x3f800000u, 0xbf800000u, 0x7f800000u, 0xff800000u,
    0x7fc00000u, 0xffc00000u, 0x7fc12345u, 0x7f800001u, 0x7f7fffffu, 0xff7fffffu,
    0x00800000u, 0x00000001u, 0x80000001u, 0x4b800000u /* 2^24 */ };
static const uint64_t d_edges[] = {
    0, UINT64_C(0x8000000000000000), UINT64_C(0x3ff0000000000000),
    UINT64_C(0xbff0000000000000), UINT64_C(0x7ff0000000000000),
    UINT64_C(0xfff0000000000000), UINT64_C(0x7ff8000000000000),
    UINT64_C(0xfff8000000000000), UINT64_C(0x7ff8000000012345),
    UINT64_C(0x7ff0000000000001), UINT64_C(0x7fefffffffffffff),
    UINT64_C(0xffefffffffffffff), UINT64_C(0x0010000000000000), 1,
    UINT64_C(0x8000000000000001), UINT64_C(0x4340000000000000) /* 2^53 */ };
#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* x87 extended bit patterns (sign+exponent, mantissa with its explicit
 * integer bit): zeros, +-1, infinities, quiet/negative/payload/signalling
 * NaNs, the largest and smallest normals, a subnormal, 2^64 */
static const struct { uint16_t se; uint64_t m; } ld_edges[] = {
    { 0x0000, 0 }, { 0x8000, 0 }, { 0x3fff, UINT64_C(1) << 63 }, { 0xbfff, UINT64_C(1) << 63 },
    { 0x7fff, UINT64_C(1) << 63 }, { 0xffff, UINT64_C(1) << 63 },
    { 0x7fff, UINT64_C(0xc000000000000000) }, { 0xffff, UINT64_C(0xc000000000000000) },
    { 0x7fff, UINT64_C(0xc000000000012345) }, { 0x7fff, UINT64_C(0x8000000000000001) },
    { 0x7ffe, UINT64_MAX }, { 0x0001, UINT64_C(1) << 63 }, { 0x0000, 1 },
    { 0x403f, UINT64_C(1) << 63 } };

/* A long double from an x87 pattern, with garbage in the padding (the
 * kernels must ignore it); elsewhere the pattern's bits go to a double. */
static void ld_from_bits(elem *e, uint16_t se, uint64_t m, uint64_t pad)
{
#if LDBL_MANT_DIG == 64
    memcpy(e->bytes, &m, 8);
    memcpy(e->bytes + 8, &se, 2);
    memcpy(e->bytes + 10, &pad, 16 - 10);
#else
    int sign = se >> 15, ex = se & 0x7fff;
    double d = ex == 0x7fff ? (m << 1 ? NAN : INFINITY) : ldexp((double)m, ex - 16383 - 63);
    (void)pad;
    e->ld = sign ? -(long double)d : (long double)d;
#endif
}

static float random_float(unsigned kind, int64_t small, uint64_t r)
{
    if (kind == 0) return f_bits(f_edges[r % NELEMS(f_edges)]);
    if (kind == 1) return (float)small;
    if (kind == 2) return f_bits((uint32_t)r);
    return (float)((double)(r >> 11) / 9007199254740992.0 * 2000 - 1000);
}

static double random_double(unsigned kind, int64_t small, uint64_t r)
{
    if (kind == 0) return d_bits(d_edges[r % NELEMS(d_edges)]);
    if (kind == 1) return (double)small;
    if (kind == 2) return d_bits(r);
    return (double)(r >> 11) / 9007199254740992.0 * 2000 - 1000;
}

/* A value that is an edge case a quarter of the time, a small integer
 * (so that operands are often equal, and products stay exact) a quarter,
 * random bits a quarter, and an ordinary magnitude otherwise. */
static elem random_elem(kumi_type_t t)
{
    elem e;
    uint64_t r = rng();
    unsigned kind = (unsigned)(r & 3);
    int64_t small = (int64_t)((r >> 2) % 7) - 3;

    memset(&e, 0, sizeof e);
    r = rng();
    switch (t) {
    case KUMI_INT32:
        e.i32 = kind == 0 ? i32_edges[r % NELEMS(i32_edges)]
              : kind == 1 ? (int32_t)small : (int32_t)(uint32_t)r;
        break;
    case KUMI_INT64:
        e.i64 = kind == 0 ? i64_edges[r % NELEMS(i64_edges)]
              : kind == 1 ? small : (int64_t)r;
        break;
    case KUMI_UINT32:
        e.u32 = kind == 0 ? u32_edges[r % NELEMS(u32_edges)]
              : kind == 1 ? (uint32_t)small : (uint32_t)r;
        break;
    case KUMI_UINT64:
        e.u64 = kind == 0 ? u64_edges[r % NELEMS(u64_edges)]
              : kind == 1 ? (uint64_t)small : r;
        break;
    case KUMI_FLOAT:
        if (kind == 0)      e.u32 = f_edges[r % NELEMS(f_edges)];
        else if (kind == 1) e.f = (float)small;
        else if (kind == 2) e.u32 = (uint32_t)r;
        else                e.f = (float)((double)(r >> 11) / 9007199254740992.0 * 2000 - 1000);
        break;
    case KUMI_DOUBLE:
        if (kind == 0)      e.u64 = d_edges[r % NELEMS(d_edges)];
        else if (kind == 1) e.d = (double)small;
        else if (kind == 2) e.u64 = r;
        else                e.d = (double)(r >> 11) / 9007199254740992.0 * 2000 - 1000;
        break;
    case KUMI_INT8:
        e.i8 = kind == 0 ? i8_edges[r % NELEMS(i8_edges)] : kind == 1 ? (int8_t)small : (int8_t)r;
        break;
    case KUMI_INT16:
        e.i16 = kind == 0 ? i16_edges[r % NELEMS(i16_edges)]
              : kind == 1 ? (int16_t)small : (int16_t)r;
        break;
    case KUMI_UINT8:
        e.u8 = kind == 0 ? u8_edges[r % NELEMS(u8_edges)] : kind == 1 ? (uint8_t)small : (uint8_t)r;
        break;
    case KUMI_UINT16:
        e.u16 = kind == 0 ? u16_edges[r % NELEMS(u16_edges)]
              : kind == 1 ? (uint16_t)small : (uint16_t)r;
        break;
    case KUMI_LONG_DOUBLE: {
        uint64_t pad = rng();
        if (kind == 0) {
            ld_from_bits(&e, ld_edges[r % NELEMS(ld_edges)].se, ld_edges[r % NELEMS(ld_edges)].m,
                         pad);
        } else if (kind == 2) {
            /* random well-formed bits: the integer bit set unless the
             * exponent is 0 (x87 rejects the other "unnormal" encodings) */
            uint16_t se = (uint16_t)(rng() & 0xffff);
            ld_from_bits(&e, se, (se & 0x7fff) != 0 ? r | UINT64_C(1) << 63 : r & INT64_MAX, pad);
        } else {
            e.ld = kind == 1 ? (long double)small
                             : (long double)(r >> 11) / 9007199254740992.0L * 2000 - 1000;
            memcpy(e.bytes + KUMI_COLL_LDBL_BYTES, &pad,
                   sizeof(long double) - KUMI_COLL_LDBL_BYTES);
        }
        break;
    }
    case KUMI_FLOAT_COMPLEX: {
        float re = random_float(kind, small, r), im;
        uint64_t r2 = rng();
        im = random_float((unsigned)(r2 & 3), (int64_t)((r2 >> 2) % 7) - 3, rng());
        e.fc = CMPLXF(re, im);
        break;
    }
    case KUMI_DOUBLE_COMPLEX: {
        double re = random_double(kind, small, r), im;
        uint64_t r2 = rng();
        im = random_double((unsigned)(r2 & 3), (int64_t)((r2 >> 2) % 7) - 3, rng());
        e.dc = CMPLX(re, im);
        break;
    }
    }
    return e;
}

/* ---------------------------------------------------------------- tests */
static const kumi_type_t all_types[] = { KUMI_INT32, KUMI_INT64, KUMI_UINT32, KUMI_UINT64,
                                         KUMI_FLOAT, KUMI_DOUBLE, KUMI_INT8, KUMI_INT16,
                                         KUMI_UINT8, KUMI_UINT16, KUMI_LONG_DOUBLE,
                                         KUMI_FLOAT_COMPLEX, KUMI_DOUBLE_COMPLEX };
static const kumi_op_t all_ops[] = { KUMI_SUM, KUMI_PROD, KUMI_MIN, KUMI_MAX, KUMI_BAND,
                                     KUMI_BOR, KUMI_BXOR };

static void test_names_sizes(void **state)
{
    (void)state;
    static const char *tnames[] = { "KUMI_INT32", "KUMI_INT64", "KUMI_UINT32", "KUMI_UINT64",
                                    "KUMI_FLOAT", "KUMI_DOUBLE", "KUMI_INT8", "KUMI_INT16",
                                    "KUMI_UINT8", "KUMI_UINT16", "KUMI_LONG_DOUBLE",
                                    "KUMI_FLOAT_COMPLEX", "KUMI_DOUBLE_COMPLEX" };
    static const size_t tsizes[] = { 4, 8, 4, 8, 4, 8, 1, 2, 1, 2, sizeof(long double), 8, 16 };
    static const char *onames[] = { "KUMI_SUM", "KUMI_PROD", "KUMI_MIN", "KUMI_MAX",
                                    "KUMI_BAND", "KUMI_BOR", "KUMI_BXOR" };

    for (size_t i = 0; i < NELEMS(all_types); i++) {
        assert_string_equal(kumi_coll_type_name(all_types[i]), tnames[i]);
        assert_int_equal(kumi_coll_type_size(all_types[i]), tsizes[i]);
    }
    for (size_t i = 0; i < NELEMS(all_ops); i++)
        assert_string_equal(kumi_coll_op_name(all_ops[i]), onames[i]);

    assert_int_equal(kumi_coll_type_size((kumi_type_t)NTYPES), 0);
    assert_int_equal(kumi_coll_type_size((kumi_type_t)-1), 0);
    assert_int_equal(kumi_coll_type_size((kumi_type_t)INT_MAX), 0);
    assert_string_equal(kumi_coll_type_name((kumi_type_t)NTYPES), "?");
    assert_string_equal(kumi_coll_type_name((kumi_type_t)-1), "?");
    assert_string_equal(kumi_coll_op_name((kumi_op_t)NOPS), "?");
    assert_string_equal(kumi_coll_op_name((kumi_op_t)-1), "?");
}

static void test_lookup(void **state)
{
    (void)state;
    for (size_t i = 0; i < NELEMS(all_types); i++)
        for (size_t j = 0; j < NELEMS(all_ops); j++) {
            kumi_coll_op_fn fn = kumi_coll_op_lookup(all_types[i], all_ops[j]);
            if (!valid_pair(all_types[i], all_ops[j]))
                assert_null(fn);
            else
                assert_non_null(fn);
        }
    /* unknown type or op, either end of the range */
    assert_null(kumi_coll_op_lookup((kumi_type_t)NTYPES, KUMI_SUM));
    assert_null(kumi_coll_op_lookup((kumi_type_t)-1, KUMI_SUM));
    assert_null(kumi_coll_op_lookup((kumi_type_t)INT_MAX, KUMI_SUM));
    assert_null(kumi_coll_op_lookup(KUMI_INT32, (kumi_op_t)NOPS));
    assert_null(kumi_coll_op_lookup(KUMI_INT32, (kumi_op_t)-1));
    assert_null(kumi_coll_op_lookup(KUMI_DOUBLE, (kumi_op_t)INT_MIN));
}

/* Runs the kernel on n random pairs placed off elements into the buffers
 * (so vector loads start unaligned too) and checks every result, that the
 * elements after the range are untouched and that in[] is unchanged. */
static void check_random(kumi_type_t t, kumi_op_t op, size_t n, size_t off)
{
    kumi_coll_op_fn fn = kumi_coll_op_lookup(t, op);
    size_t sz = kumi_coll_type_size(t), total = off + n + GUARD;
    unsigned char *a = malloc(total * sz), *b = malloc(total * sz);
    unsigned char *a0 = malloc(total * sz), *b0 = malloc(total * sz);

    assert_non_null(fn);
    assert_true(a && b && a0 && b0);
    for (size_t i = 0; i < total; i++) {
        store(t, a, i, random_elem(t));
        store(t, b, i, random_elem(t));
    }
    memcpy(a0, a, total * sz);
    memcpy(b0, b, total * sz);

    fn(a + off * sz, b + off * sz, n);

    for (size_t i = 0; i < n; i++) {
        elem x = load(t, a0, off + i), y = load(t, b0, off + i);
        elem want = ref_op(t, op, x, y), got = load(t, a, off + i);
        if (!same_result(t, op, want, got)) {
            report(t, op, "random", n, i, x, y, want, got);
            fail();
        }
    }
    if (memcmp(a, a0, off * sz) != 0 || memcmp(a + (off + n) * sz, a0 + (off + n) * sz,
                                               GUARD * sz) != 0)
        fail_msg("%s %s count %zu wrote outside its range", kumi_coll_type_name(t),
                 kumi_coll_op_name(op), n);
    if (memcmp(b, b0, total * sz) != 0)
        fail_msg("%s %s count %zu changed in[]", kumi_coll_type_name(t),
                 kumi_coll_op_name(op), n);
    free(a); free(b); free(a0); free(b0);
}

static void test_random(void **state)
{
    /* 0, 1, 7: scalar tail only; 16, 17, 33: the block boundaries;
     * 1000: long vector runs plus a tail */
    static const size_t counts[] = { 0, 1, 7, 15, 16, 17, 33, 1000 };
    (void)state;
    for (size_t i = 0; i < NELEMS(all_types); i++)
        for (size_t j = 0; j < NELEMS(all_ops); j++) {
            if (!valid_pair(all_types[i], all_ops[j]))
                continue;
            for (size_t c = 0; c < NELEMS(counts); c++)
                for (size_t off = 0; off < 2; off++)
                    for (int rep = 0; rep < 3; rep++)
                        check_random(all_types[i], all_ops[j], counts[c], off);
        }
}

/* inout == in is allowed: the result is x OP x. */
static void test_alias(void **state)
{
    static const size_t counts[] = { 1, 7, 16, 1000 };
    (void)state;
    for (size_t i = 0; i < NELEMS(all_types); i++)
        for (size_t j = 0; j < NELEMS(all_ops); j++) {
            kumi_type_t t = all_types[i];
            kumi_op_t op = all_ops[j];
            kumi_coll_op_fn fn = kumi_coll_op_lookup(t, op);
            size_t sz = kumi_coll_type_size(t);
            if (fn == NULL)
                continue;
            for (size_t c = 0; c < NELEMS(counts); c++) {
                size_t n = counts[c];
                unsigned char *x = malloc(n * sz), *x0 = malloc(n * sz);
                assert_true(x && x0);
                for (size_t k = 0; k < n; k++)
                    store(t, x, k, random_elem(t));
                memcpy(x0, x, n * sz);
                fn(x, x, n);
                for (size_t k = 0; k < n; k++) {
                    elem v = load(t, x0, k);
                    elem want = ref_op(t, op, v, v), got = load(t, x, k);
                    if (!same_result(t, op, want, got)) {
                        report(t, op, "aliased", n, k, v, v, want, got);
                        fail();
                    }
                }
                free(x);
                free(x0);
            }
        }
}

/* count 0 touches nothing: NULL buffers are fine, others stay as they were */
static void test_count_zero(void **state)
{
    (void)state;
    for (size_t i = 0; i < NELEMS(all_types); i++)
        for (size_t j = 0; j < NELEMS(all_ops); j++) {
            kumi_coll_op_fn fn = kumi_coll_op_lookup(all_types[i], all_ops[j]);
            uint64_t a = 0x0123456789abcdefull, b = 0xfedcba9876543210ull;
            if (fn == NULL)
                continue;
            fn(NULL, NULL, 0);
            fn(&a, &b, 0);
            assert_true(a == 0x0123456789abcdefull && b == 0xfedcba9876543210ull);
        }
}

/* One pair repeated over 40 elements (two vector blocks and a scalar tail)
 * and once alone: every copy must equal want, bit for bit. */
static void check_case(kumi_type_t t, kumi_op_t op, elem x, elem y, elem want, int line)
{
    enum { N = 40 };
    _Alignas(16) unsigned char a[N * 16], b[N * 16];
    kumi_coll_op_fn fn = kumi_coll_op_lookup(t, op);
    static const size_t counts[] = { 1, N };

    assert_non_null(fn);
    for (size_t c = 0; c < NELEMS(counts); c++) {
        for (size_t i = 0; i < counts[c]; i++) {
            store(t, a, i, x);
            store(t, b, i, y);
        }
        fn(a, b, counts[c]);
        for (size_t i = 0; i < counts[c]; i++) {
            elem got = load(t, a, i);
            if (memcmp(got.bytes, want.bytes, kumi_coll_type_size(t)) != 0) {   /* padding too */
                print_error("case at line %d:\n", line);
                report(t, op, "case", counts[c], i, x, y, want, got);
                fail();
            }
        }
    }
}

#define CASE(t, field, op, x, y, want) do {                            \
        elem ex_, ey_, ew_;                                            \
        memset(&ex_, 0, sizeof ex_);                                   \
        memset(&ey_, 0, sizeof ey_);                                   \
        memset(&ew_, 0, sizeof ew_);                                   \
        ex_.field = (x); ey_.field = (y); ew_.field = (want);          \
        /* a long double store may leave anything in the padding */    \
        memset(ew_.bytes + value_bytes(t), 0,                          \
               kumi_coll_type_size(t) - value_bytes(t));               \
        check_case(t, op, ex_, ey_, ew_, __LINE__);                    \
    } while (0)

static void test_int_edges(void **state)
{
    (void)state;
    /* two's-complement wrap, no UB (UBSan runs this in the sanitizer build) */
    CASE(KUMI_INT32, i32, KUMI_SUM, INT32_MAX, 1, INT32_MIN);
    CASE(KUMI_INT32, i32, KUMI_SUM, INT32_MIN, -1, INT32_MAX);
    CASE(KUMI_INT32, i32, KUMI_PROD, INT32_MIN, -1, INT32_MIN);
    CASE(KUMI_INT32, i32, KUMI_PROD, 0x10000, 0x10000, 0);
    CASE(KUMI_INT32, i32, KUMI_PROD, INT32_MAX, 2, -2);
    CASE(KUMI_INT32, i32, KUMI_MIN, INT32_MIN, INT32_MAX, INT32_MIN);
    CASE(KUMI_INT32, i32, KUMI_MAX, INT32_MIN, -1, -1);
    CASE(KUMI_INT32, i32, KUMI_BXOR, -1, INT32_MAX, INT32_MIN);
    CASE(KUMI_INT64, i64, KUMI_SUM, INT64_MAX, 1, INT64_MIN);
    CASE(KUMI_INT64, i64, KUMI_SUM, INT64_MIN, INT64_MIN, 0);
    CASE(KUMI_INT64, i64, KUMI_PROD, INT64_MIN, -1, INT64_MIN);
    CASE(KUMI_INT64, i64, KUMI_PROD, INT64_C(0x100000000), INT64_C(0x100000000), 0);
    CASE(KUMI_INT64, i64, KUMI_MIN, -1, 0, -1);
    CASE(KUMI_INT64, i64, KUMI_MAX, INT64_MIN, INT64_MAX, INT64_MAX);
    CASE(KUMI_INT64, i64, KUMI_BAND, -1, INT64_MIN, INT64_MIN);
    CASE(KUMI_UINT32, u32, KUMI_SUM, UINT32_MAX, 1, 0);
    CASE(KUMI_UINT32, u32, KUMI_PROD, UINT32_MAX, UINT32_MAX, 1);
    CASE(KUMI_UINT32, u32, KUMI_MIN, 0x80000000u, 1, 1);          /* unsigned order */
    CASE(KUMI_UINT32, u32, KUMI_MAX, 0x80000000u, 0x7fffffffu, 0x80000000u);
    CASE(KUMI_UINT32, u32, KUMI_BOR, 0xf0f0f0f0u, 0x0f0f0f0fu, UINT32_MAX);
    CASE(KUMI_UINT64, u64, KUMI_SUM, UINT64_MAX, 2, 1);
    CASE(KUMI_UINT64, u64, KUMI_PROD, UINT64_MAX, UINT64_MAX, 1);
    CASE(KUMI_UINT64, u64, KUMI_MIN, UINT64_C(0x8000000000000000), 1, 1);
    CASE(KUMI_UINT64, u64, KUMI_MAX, UINT64_MAX, 0, UINT64_MAX);
    CASE(KUMI_UINT64, u64, KUMI_BXOR, UINT64_MAX, UINT64_MAX, 0);
}

static void test_float_edges(void **state)
{
    const float fnan = f_bits(0x7fc12345u), fnan2 = f_bits(0xffc00000u);
    const float fsnan = f_bits(0x7f800001u);
    const double dnan = d_bits(UINT64_C(0x7ff8000000012345));
    const double dnan2 = d_bits(UINT64_C(0xfff8000000000000));
    const double dsnan = d_bits(UINT64_C(0x7ff0000000000001));
    (void)state;

    /* signed zeros: -0.0 < +0.0 for MIN/MAX in either order */
    CASE(KUMI_FLOAT, f, KUMI_MIN, 0.0f, -0.0f, -0.0f);
    CASE(KUMI_FLOAT, f, KUMI_MIN, -0.0f, 0.0f, -0.0f);
    CASE(KUMI_FLOAT, f, KUMI_MAX, 0.0f, -0.0f, 0.0f);
    CASE(KUMI_FLOAT, f, KUMI_MAX, -0.0f, 0.0f, 0.0f);
    CASE(KUMI_DOUBLE, d, KUMI_MIN, 0.0, -0.0, -0.0);
    CASE(KUMI_DOUBLE, d, KUMI_MIN, -0.0, 0.0, -0.0);
    CASE(KUMI_DOUBLE, d, KUMI_MAX, 0.0, -0.0, 0.0);
    CASE(KUMI_DOUBLE, d, KUMI_MAX, -0.0, 0.0, 0.0);
    /* and IEEE addition of zeros */
    CASE(KUMI_FLOAT, f, KUMI_SUM, -0.0f, -0.0f, -0.0f);
    CASE(KUMI_FLOAT, f, KUMI_SUM, -0.0f, 0.0f, 0.0f);
    CASE(KUMI_DOUBLE, d, KUMI_SUM, -0.0, -0.0, -0.0);
    CASE(KUMI_DOUBLE, d, KUMI_PROD, -0.0, 5.0, -0.0);

    /* NaN propagates through MIN/MAX, as the operand itself */
    CASE(KUMI_FLOAT, f, KUMI_MIN, fnan, 1.0f, fnan);
    CASE(KUMI_FLOAT, f, KUMI_MIN, 1.0f, fnan, fnan);
    CASE(KUMI_FLOAT, f, KUMI_MAX, -INFINITY, fnan, fnan);
    CASE(KUMI_FLOAT, f, KUMI_MAX, fnan, INFINITY, fnan);
    CASE(KUMI_FLOAT, f, KUMI_MIN, fnan, fnan2, fnan);            /* both: inout's */
    CASE(KUMI_FLOAT, f, KUMI_MAX, fnan2, fnan, fnan2);
    CASE(KUMI_FLOAT, f, KUMI_MIN, fsnan, 0.0f, fsnan);           /* unchanged bits */
    CASE(KUMI_DOUBLE, d, KUMI_MIN, dnan, 1.0, dnan);
    CASE(KUMI_DOUBLE, d, KUMI_MIN, 1.0, dnan, dnan);
    CASE(KUMI_DOUBLE, d, KUMI_MAX, dnan, -1.0, dnan);
    CASE(KUMI_DOUBLE, d, KUMI_MAX, INFINITY, dnan, dnan);
    CASE(KUMI_DOUBLE, d, KUMI_MIN, dnan2, dnan, dnan2);
    CASE(KUMI_DOUBLE, d, KUMI_MAX, dnan, dnan2, dnan);
    CASE(KUMI_DOUBLE, d, KUMI_MAX, -0.0, dsnan, dsnan);

    /* infinities */
    CASE(KUMI_FLOAT, f, KUMI_MIN, -INFINITY, -FLT_MAX, -INFINITY);
    CASE(KUMI_FLOAT, f, KUMI_SUM, FLT_MAX, FLT_MAX, INFINITY);
    CASE(KUMI_DOUBLE, d, KUMI_MAX, INFINITY, DBL_MAX, INFINITY);
    CASE(KUMI_DOUBLE, d, KUMI_SUM, DBL_MAX, DBL_MAX, INFINITY);
    CASE(KUMI_DOUBLE, d, KUMI_PROD, -DBL_MAX, 2.0, -INFINITY);
    CASE(KUMI_DOUBLE, d, KUMI_MIN, -INFINITY, INFINITY, -INFINITY);

    /* one rounding in the type itself: not computed wider and rounded twice,
     * not fused, not reassociated */
    CASE(KUMI_FLOAT, f, KUMI_SUM, 16777216.0f, 1.0f, 16777216.0f);   /* 2^24 + 1 */
    CASE(KUMI_FLOAT, f, KUMI_SUM, 1.0f, 0x1p-24f, 1.0f);
    CASE(KUMI_FLOAT, f, KUMI_SUM, 1.0f, 0x1.000002p-24f, 0x1.000002p+0f);
    CASE(KUMI_DOUBLE, d, KUMI_SUM, 9007199254740992.0, 1.0, 9007199254740992.0);
    CASE(KUMI_DOUBLE, d, KUMI_SUM, 1e16, -1e16, 0.0);
    CASE(KUMI_DOUBLE, d, KUMI_PROD, 0x1.0000001p0, 0x1.0000001p0, 0x1.0000002p0);
    CASE(KUMI_DOUBLE, d, KUMI_PROD, DBL_MIN, 0.5, DBL_MIN / 2);       /* subnormal */
}

/* Operands invalid together give NaN for SUM/PROD. */
static void test_float_invalid(void **state)
{
    float fa[20], fb[20];
    double da[20], db[20];
    (void)state;
    for (int i = 0; i < 20; i++) {
        fa[i] = i & 1 ? INFINITY : 0.0f;
        fb[i] = i & 1 ? -INFINITY : INFINITY;
        da[i] = fa[i];
        db[i] = fb[i];
    }
    kumi_coll_op_lookup(KUMI_FLOAT, KUMI_SUM)(fa, fb, 20);    /* inf + -inf, 0 + inf */
    kumi_coll_op_lookup(KUMI_DOUBLE, KUMI_PROD)(da, db, 20);  /* inf * -inf, 0 * inf */
    for (int i = 0; i < 20; i++) {
        assert_true(i & 1 ? isnan(fa[i]) : fa[i] == INFINITY);
        assert_true(i & 1 ? da[i] == -INFINITY : isnan(da[i]));
    }
}

static void test_narrow_int_edges(void **state)
{
    (void)state;
    /* wrap modulo 2^8 and 2^16; products through unsigned (UBSan: no
     * signed overflow in 65535 * 65535) */
    CASE(KUMI_INT8, i8, KUMI_SUM, INT8_MAX, 1, INT8_MIN);
    CASE(KUMI_INT8, i8, KUMI_SUM, INT8_MIN, -1, INT8_MAX);
    CASE(KUMI_INT8, i8, KUMI_PROD, INT8_MIN, -1, INT8_MIN);
    CASE(KUMI_INT8, i8, KUMI_PROD, 16, 16, 0);
    CASE(KUMI_INT8, i8, KUMI_PROD, -3, 5, -15);
    CASE(KUMI_INT8, i8, KUMI_MIN, INT8_MIN, INT8_MAX, INT8_MIN);
    CASE(KUMI_INT8, i8, KUMI_MAX, -1, -100, -1);
    CASE(KUMI_INT8, i8, KUMI_BXOR, -1, INT8_MAX, INT8_MIN);
    CASE(KUMI_INT8, i8, KUMI_BAND, -1, 0x5a, 0x5a);
    CASE(KUMI_INT16, i16, KUMI_SUM, INT16_MAX, 1, INT16_MIN);
    CASE(KUMI_INT16, i16, KUMI_PROD, INT16_MIN, -1, INT16_MIN);
    CASE(KUMI_INT16, i16, KUMI_PROD, 0x100, 0x100, 0);
    CASE(KUMI_INT16, i16, KUMI_PROD, -300, 7, -2100);
    CASE(KUMI_INT16, i16, KUMI_MIN, -1, 0, -1);
    CASE(KUMI_INT16, i16, KUMI_MAX, INT16_MIN, INT16_MAX, INT16_MAX);
    CASE(KUMI_INT16, i16, KUMI_BOR, 0x0f00, 0x00f0, 0x0ff0);
    CASE(KUMI_UINT8, u8, KUMI_SUM, UINT8_MAX, 1, 0);
    CASE(KUMI_UINT8, u8, KUMI_PROD, UINT8_MAX, UINT8_MAX, 1);
    CASE(KUMI_UINT8, u8, KUMI_MIN, 0x80, 1, 1);                  /* unsigned order */
    CASE(KUMI_UINT8, u8, KUMI_MAX, 0x80, 0x7f, 0x80);
    CASE(KUMI_UINT8, u8, KUMI_BXOR, 0xf0, 0xff, 0x0f);
    CASE(KUMI_UINT16, u16, KUMI_SUM, UINT16_MAX, 2, 1);
    CASE(KUMI_UINT16, u16, KUMI_PROD, UINT16_MAX, UINT16_MAX, 1);
    CASE(KUMI_UINT16, u16, KUMI_PROD, 0x8000, 2, 0);
    CASE(KUMI_UINT16, u16, KUMI_MIN, 0x8000, 0x7fff, 0x7fff);
    CASE(KUMI_UINT16, u16, KUMI_MAX, UINT16_MAX, 0, UINT16_MAX);
    CASE(KUMI_UINT16, u16, KUMI_BAND, 0xff0f, 0x0ff0, 0x0f00);
}

static void test_long_double(void **state)
{
    elem nan1, nan2, snan, x, y;
    (void)state;

    /* the float rules, in long double */
    CASE(KUMI_LONG_DOUBLE, ld, KUMI_MIN, 0.0L, -0.0L, -0.0L);
    CASE(KUMI_LONG_DOUBLE, ld, KUMI_MIN, -0.0L, 0.0L, -0.0L);
    CASE(KUMI_LONG_DOUBLE, ld, KUMI_MAX, 0.0L, -0.0L, 0.0L);
    CASE(KUMI_LONG_DOUBLE, ld, KUMI_MAX, -0.0L, 0.0L, 0.0L);
    CASE(KUMI_LONG_DOUBLE, ld, KUMI_SUM, -0.0L, -0.0L, -0.0L);
    CASE(KUMI_LONG_DOUBLE, ld, KUMI_MIN, -INFINITY, -LDBL_MAX, -INFINITY);
    CASE(KUMI_LONG_DOUBLE, ld, KUMI_SUM, LDBL_MAX, LDBL_MAX, INFINITY);
    CASE(KUMI_LONG_DOUBLE, ld, KUMI_PROD, -LDBL_MAX, 2.0L, -INFINITY);
    CASE(KUMI_LONG_DOUBLE, ld, KUMI_PROD, 3.0L, -7.0L, -21.0L);
#if LDBL_MANT_DIG == 64
    /* 64 bits of mantissa: 2^63 + 1 is exact, 2^64 + 1 is not (in double
     * both round away) */
    CASE(KUMI_LONG_DOUBLE, ld, KUMI_SUM, 0x1p63L, 1.0L, 0x1.0000000000000002p63L);
    CASE(KUMI_LONG_DOUBLE, ld, KUMI_SUM, 0x1p64L, 1.0L, 0x1p64L);
#endif

    /* NaNs: MIN/MAX keep the NaN operand's value bytes (inout's when both
     * are NaN); garbage padding never reaches the result */
    memset(&nan1, 0, sizeof nan1);
    memset(&nan2, 0, sizeof nan2);
    memset(&snan, 0, sizeof snan);
    ld_from_bits(&nan1, 0x7fff, UINT64_C(0xc000000000012345), 0);
    ld_from_bits(&nan2, 0xffff, UINT64_C(0xc000000000000000), 0);
    ld_from_bits(&snan, 0x7fff, UINT64_C(0x8000000000000001), 0);
    memset(&x, 0, sizeof x);
    x.ld = 1.0L;
    check_case(KUMI_LONG_DOUBLE, KUMI_MIN, nan1, x, nan1, __LINE__);
    check_case(KUMI_LONG_DOUBLE, KUMI_MAX, x, nan1, nan1, __LINE__);
    check_case(KUMI_LONG_DOUBLE, KUMI_MIN, nan1, nan2, nan1, __LINE__);
    check_case(KUMI_LONG_DOUBLE, KUMI_MAX, nan2, nan1, nan2, __LINE__);
    check_case(KUMI_LONG_DOUBLE, KUMI_MIN, snan, x, snan, __LINE__);

#if LDBL_MANT_DIG == 64
    {
        /* padding garbage in both operands, for every op: the result's
         * padding is zero and its value is the value's */
        static const kumi_op_t ops[] = { KUMI_SUM, KUMI_PROD, KUMI_MIN, KUMI_MAX };
        static const long double want[] = { 5.0L, 6.0L, 2.0L, 3.0L };
        for (size_t k = 0; k < NELEMS(ops); k++) {
            elem w;
            memset(&w, 0, sizeof w);
            x.ld = 2.0L;
            y.ld = 3.0L;
            w.ld = want[k];
            memset(x.bytes + 10, 0xa5, 6);
            memset(y.bytes + 10, 0x3c, 6);
            memset(w.bytes + 10, 0, 6);
            check_case(KUMI_LONG_DOUBLE, ops[k], x, y, w, __LINE__);
        }
    }
#endif
    /* a result no kernel wrote is made canonical the same way */
    {
        _Alignas(16) unsigned char buf[3 * sizeof(long double)];
        long double v = -1.5L, back;
        memset(buf, 0xee, sizeof buf);
        for (int i = 0; i < 3; i++)
            memcpy(buf + (size_t)i * sizeof v, &v, KUMI_COLL_LDBL_BYTES);
        kumi_coll_type_canon(KUMI_LONG_DOUBLE, buf, 3);
        for (int i = 0; i < 3; i++) {
            memcpy(&back, buf + (size_t)i * sizeof v, sizeof v);
            assert_true(back == v);
            for (size_t b = KUMI_COLL_LDBL_BYTES; b < sizeof v; b++)
                assert_int_equal(buf[(size_t)i * sizeof v + b], 0);
        }
        uint32_t u = 0xdeadbeefu;     /* other types: untouched */
        kumi_coll_type_canon(KUMI_UINT32, &u, 1);
        assert_true(u == 0xdeadbeefu);
    }
}

static void test_complex(void **state)
{
    (void)state;
    /* exact values: (1+2i)(3+4i) = -5+10i, sums part by part */
    CASE(KUMI_FLOAT_COMPLEX, fc, KUMI_SUM, CMPLXF(1, 2), CMPLXF(3, -4), CMPLXF(4, -2));
    CASE(KUMI_FLOAT_COMPLEX, fc, KUMI_PROD, CMPLXF(1, 2), CMPLXF(3, 4), CMPLXF(-5, 10));
    CASE(KUMI_FLOAT_COMPLEX, fc, KUMI_PROD, CMPLXF(0, 1), CMPLXF(0, 1), CMPLXF(-1, 0));
    CASE(KUMI_DOUBLE_COMPLEX, dc, KUMI_SUM, CMPLX(1e16, -0.0), CMPLX(-1e16, -0.0),
         CMPLX(0.0, -0.0));
    CASE(KUMI_DOUBLE_COMPLEX, dc, KUMI_PROD, CMPLX(1, 2), CMPLX(3, 4), CMPLX(-5, 10));
    CASE(KUMI_DOUBLE_COMPLEX, dc, KUMI_PROD, CMPLX(-2, 0.5), CMPLX(4, -8), CMPLX(-4, 18));
    /* Annex G: an infinite operand times a nonzero finite one is infinite,
     * where the textbook formula gives NaN + NaN i (inf*0 - ...) */
    {
        double _Complex a[20], b[20];
        float _Complex fa[20], fb[20];
        for (int i = 0; i < 20; i++) {
            a[i]  = CMPLX(INFINITY, NAN);
            b[i]  = CMPLX(1.0, 0.0);
            fa[i] = CMPLXF(INFINITY, INFINITY);
            fb[i] = CMPLXF(0.0f, 1.0f);
        }
        kumi_coll_op_lookup(KUMI_DOUBLE_COMPLEX, KUMI_PROD)(a, b, 20);
        kumi_coll_op_lookup(KUMI_FLOAT_COMPLEX, KUMI_PROD)(fa, fb, 20);
        for (int i = 0; i < 20; i++) {
            assert_true(isinf(creal(a[i])) || isinf(cimag(a[i])));
            assert_true(isinf(crealf(fa[i])) || isinf(cimagf(fa[i])));
        }
    }
    /* on finite operands with exact products, the textbook formula */
    for (int rep = 0; rep < 1000; rep++) {
        double p = (double)((int)(rng() % 2001) - 1000), q = (double)((int)(rng() % 2001) - 1000);
        double r = (double)((int)(rng() % 2001) - 1000), s = (double)((int)(rng() % 2001) - 1000);
        double _Complex x = CMPLX(p, q), y = CMPLX(r, s);
        kumi_coll_op_lookup(KUMI_DOUBLE_COMPLEX, KUMI_PROD)(&x, &y, 1);
        assert_true(creal(x) == p * r - q * s && cimag(x) == p * s + q * r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_sizes),
        cmocka_unit_test(test_lookup),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_alias),
        cmocka_unit_test(test_count_zero),
        cmocka_unit_test(test_int_edges),
        cmocka_unit_test(test_float_edges),
        cmocka_unit_test(test_float_invalid),
        cmocka_unit_test(test_narrow_int_edges),
        cmocka_unit_test(test_long_double),
        cmocka_unit_test(test_complex),
    };
    const char *seed = getenv("KUMI_TEST_SEED");

    rng_state = seed ? strtoull(seed, NULL, 0) : 0x6b756d69ull;   /* "kumi" */
    printf("# reduce_op: seed %#" PRIx64 " (set KUMI_TEST_SEED to change)\n", rng_state);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
