/*
 * atomic_kmpc.c -- the __kmpc_atomic_<type>_<op> entry points of the LLVM
 * OpenMP ABI (the runtime-call form of `omp atomic` that compilers may
 * emit, and hand-written code calls): update and capture, for the C
 * integer and floating types. clang-14 inlines C atomics itself; these
 * serve code built by other front ends or written against the ABI.
 *
 * As in atomic.c: on DSM memory the object is made exclusive here and
 * updated with plain loads and stores (nothing is served in between, a PE
 * runs one thread), which is atomic.
 */
#include <stdint.h>

#include "omp_int.h"
#include "omp_libc.h"

static void own(const char *call, void *obj, size_t n)
{
    if (kumi_dsm_is_shared(obj))
        kumi_omp_acquire1(call, obj, n, KUMI_DSM_WRITE);
}

#define OP_add(a, b)  ((a) + (b))
#define OP_sub(a, b)  ((a) - (b))
#define OP_mul(a, b)  ((a) * (b))
#define OP_div(a, b)  ((a) / (b))
#define OP_min(a, b)  ((b) < (a) ? (b) : (a))
#define OP_max(a, b)  ((b) > (a) ? (b) : (a))
#define OP_andb(a, b) ((a) & (b))
#define OP_orb(a, b)  ((a) | (b))
#define OP_xor(a, b)  ((a) ^ (b))
#define OP_shl(a, b)  ((a) << (b))
#define OP_shr(a, b)  ((a) >> (b))
#define OP_andl(a, b) ((a) && (b))
#define OP_orl(a, b)  ((a) || (b))
#define OP_eqv(a, b)  (~((a) ^ (b)))
#define OP_neqv(a, b) ((a) ^ (b))

/* x = x op rhs; and the capture form, which returns the new value
 * (flag != 0) or the old one */
#define KMPC_ATOMIC(NAME, T, OP)                                                               \
    void __kmpc_atomic_##NAME##_##OP(kumi_omp_ident_t *loc, int32_t gtid, T *lhs, T rhs)      \
    {                                                                                          \
        (void)loc;                                                                             \
        (void)gtid;                                                                            \
        own("__kmpc_atomic_" #NAME "_" #OP, lhs, sizeof *lhs);                                 \
        *lhs = (T)OP_##OP(*lhs, rhs);                                                          \
    }                                                                                          \
    T __kmpc_atomic_##NAME##_##OP##_cpt(kumi_omp_ident_t *loc, int32_t gtid, T *lhs, T rhs,   \
                                        int flag)                                              \
    {                                                                                          \
        (void)loc;                                                                             \
        (void)gtid;                                                                            \
        own("__kmpc_atomic_" #NAME "_" #OP "_cpt", lhs, sizeof *lhs);                          \
        T old = *lhs;                                                                          \
        *lhs  = (T)OP_##OP(old, rhs);                                                          \
        return flag ? *lhs : old;                                                              \
    }

#define KMPC_ATOMIC_INT(NAME, T)                                                               \
    KMPC_ATOMIC(NAME, T, add)                                                                  \
    KMPC_ATOMIC(NAME, T, sub)                                                                  \
    KMPC_ATOMIC(NAME, T, mul)                                                                  \
    KMPC_ATOMIC(NAME, T, div)                                                                  \
    KMPC_ATOMIC(NAME, T, min)                                                                  \
    KMPC_ATOMIC(NAME, T, max)                                                                  \
    KMPC_ATOMIC(NAME, T, andb)                                                                 \
    KMPC_ATOMIC(NAME, T, orb)                                                                  \
    KMPC_ATOMIC(NAME, T, xor)                                                                  \
    KMPC_ATOMIC(NAME, T, shl)                                                                  \
    KMPC_ATOMIC(NAME, T, shr)                                                                  \
    KMPC_ATOMIC(NAME, T, andl)                                                                 \
    KMPC_ATOMIC(NAME, T, orl)                                                                  \
    KMPC_ATOMIC(NAME, T, eqv)                                                                  \
    KMPC_ATOMIC(NAME, T, neqv)

#define KMPC_ATOMIC_FLOAT(NAME, T)                                                             \
    KMPC_ATOMIC(NAME, T, add)                                                                  \
    KMPC_ATOMIC(NAME, T, sub)                                                                  \
    KMPC_ATOMIC(NAME, T, mul)                                                                  \
    KMPC_ATOMIC(NAME, T, div)                                                                  \
    KMPC_ATOMIC(NAME, T, min)                                                                  \
    KMPC_ATOMIC(NAME, T, max)

/* the signed and unsigned kinds differ only where the operation does */
#define KMPC_ATOMIC_UNSIGNED(NAME, T)                                                          \
    KMPC_ATOMIC(NAME, T, div)                                                                  \
    KMPC_ATOMIC(NAME, T, shr)

KMPC_ATOMIC_INT(fixed1, int8_t)
KMPC_ATOMIC_INT(fixed2, int16_t)
KMPC_ATOMIC_INT(fixed4, int32_t)
KMPC_ATOMIC_INT(fixed8, int64_t)
KMPC_ATOMIC_UNSIGNED(fixed1u, uint8_t)
KMPC_ATOMIC_UNSIGNED(fixed2u, uint16_t)
KMPC_ATOMIC_UNSIGNED(fixed4u, uint32_t)
KMPC_ATOMIC_UNSIGNED(fixed8u, uint64_t)
KMPC_ATOMIC_FLOAT(float4, float)
KMPC_ATOMIC_FLOAT(float8, double)
KMPC_ATOMIC_FLOAT(float10, long double)

/* reads and writes */
#define KMPC_ATOMIC_RW(NAME, T)                                                                \
    T __kmpc_atomic_##NAME##_rd(kumi_omp_ident_t *loc, int32_t gtid, T *src)                  \
    {                                                                                          \
        (void)loc;                                                                             \
        (void)gtid;                                                                            \
        own("__kmpc_atomic_" #NAME "_rd", src, sizeof *src);                                   \
        return *src;                                                                           \
    }                                                                                          \
    void __kmpc_atomic_##NAME##_wr(kumi_omp_ident_t *loc, int32_t gtid, T *lhs, T rhs)        \
    {                                                                                          \
        (void)loc;                                                                             \
        (void)gtid;                                                                            \
        own("__kmpc_atomic_" #NAME "_wr", lhs, sizeof *lhs);                                   \
        *lhs = rhs;                                                                            \
    }                                                                                          \
    T __kmpc_atomic_##NAME##_swp(kumi_omp_ident_t *loc, int32_t gtid, T *lhs, T rhs)          \
    {                                                                                          \
        (void)loc;                                                                             \
        (void)gtid;                                                                            \
        own("__kmpc_atomic_" #NAME "_swp", lhs, sizeof *lhs);                                  \
        T old = *lhs;                                                                          \
        *lhs  = rhs;                                                                           \
        return old;                                                                            \
    }
KMPC_ATOMIC_RW(fixed1, int8_t)
KMPC_ATOMIC_RW(fixed2, int16_t)
KMPC_ATOMIC_RW(fixed4, int32_t)
KMPC_ATOMIC_RW(fixed8, int64_t)
KMPC_ATOMIC_RW(float4, float)
KMPC_ATOMIC_RW(float8, double)
KMPC_ATOMIC_RW(float10, long double)
