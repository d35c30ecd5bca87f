/*
 * atomic.c -- OpenSHMEM atomic memory operations: every standard, extended
 * and bitwise AMO for the types the specification lists, their shmem_ctx_
 * forms, the non-blocking fetching ones, and the deprecated names.
 *
 * Each is one call through the transport table on the 4- or 8-byte word
 * (sizeof(TYPE)) after the checks every RMA call makes (shmem_impl.h:
 * state, context, PE, symmetric range) plus alignment. Values travel as
 * bit patterns: integers wrap as two's complement, float and double move
 * unchanged (they only have fetch, set and swap). The typed functions are
 * generated from the type tables of shmem.h, the lists that declare them.
 */
#include <string.h>

#include "shmem_impl.h"

/* the tables' types are all 4 or 8 bytes wide: kumi's remote atomics */
#define KUMI_SHMEM_AMO_WIDTH_OK(TYPE, NAME)                                                  \
    _Static_assert(sizeof(TYPE) == 4 || sizeof(TYPE) == 8,                                   \
                   "shmem_" #NAME " atomics need a 4- or 8-byte " #TYPE);
KUMI_SHMEM_AMO_EXT_TYPES(KUMI_SHMEM_AMO_WIDTH_OK)
KUMI_SHMEM_AMO_BIT_TYPES(KUMI_SHMEM_AMO_WIDTH_OK)

/* Runs op on pe's word at dest (width 4 or 8) for call; the old value for
 * the fetching ones, 0 for the others and after an error (reported once,
 * naming call; the program goes on unless KUMI_ABORT_ON_ERROR). Inlined
 * into every call, so op and width are constants, and for the plain calls
 * (ctx SHMEM_CTX_DEFAULT, a constant there) the fast path reads no
 * context: the default context's PEs are the world's. */
KUMI_SHMEM_INLINE uint64_t
kumi_shmem_amo(const char *call, shmem_ctx_t ctx, const void *dest, size_t width, int pe,
               enum kumi_amo op, uint64_t operand, uint64_t compare)
{
    struct kumi_shmem_target t;
    uint64_t                 old = 0;
    int                      rc;

    if (ctx == SHMEM_CTX_DEFAULT) {
        if (KUMI_SHMEM_UNLIKELY(kumi_rt.state != 1
                                || (unsigned)pe >= (unsigned)kumi_rt.size)) {
            if (kumi_shmem_check_slow(call, ctx, dest, width, dest, pe, &t) != 0)
                return 0;
        } else {
            t.pe = pe;
            if (KUMI_SHMEM_UNLIKELY(kumi_shmem_sym(call, dest, width, &t.seg, &t.off) != 0))
                return 0;
        }
    } else if (KUMI_SHMEM_UNLIKELY(kumi_shmem_check(call, ctx, dest, width, dest, pe, &t)
                                   != 0)) {
        return 0;
    }
    if (KUMI_SHMEM_UNLIKELY(((uintptr_t)dest & (width - 1)) != 0)) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "address %p is not %zu-byte aligned", dest,
                         width);
        return 0;
    }
    rc = kumi_tp_atomic(&kumi_rt.tp, t.pe, t.seg, t.off, op, width, operand, compare,
                        kumi_tp_amo_fetches(op) ? &old : NULL);
    if (KUMI_SHMEM_UNLIKELY(rc != KUMI_OK)) {
        kumi_shmem_status(call, rc);
        return 0;
    }
    return old;
}

/* TYPE <-> the bits of its 4- or 8-byte word (float and double unchanged,
 * signed integers as two's complement) */
#define KUMI_SHMEM_TO_BITS(TYPE, v)                                                          \
    (sizeof(TYPE) == 4 ? (uint64_t)kumi_shmem_bits32(&(v)) : kumi_shmem_bits64(&(v)))
static inline uint32_t kumi_shmem_bits32(const void *v)
{
    uint32_t b;
    memcpy(&b, v, 4);
    return b;
}
static inline uint64_t kumi_shmem_bits64(const void *v)
{
    uint64_t b;
    memcpy(&b, v, 8);
    return b;
}
#define KUMI_SHMEM_FROM_BITS(TYPE, bits)                                                     \
    TYPE r_;                                                                                 \
    if (sizeof(TYPE) == 4) {                                                                 \
        uint32_t b32_ = (uint32_t)(bits);                                                    \
        memcpy(&r_, &b32_, sizeof r_);                                                       \
    } else {                                                                                 \
        uint64_t b64_ = (bits);                                                              \
        memcpy(&r_, &b64_, sizeof r_);                                                       \
    }

/* ------------------------------------------------------- the operations
 * One macro per shape: a helper H(NAME, OP) (inlined, like kumi_shmem_amo,
 * so that the plain call's SHMEM_CTX_DEFAULT is a constant in it) and the
 * public functions around it, each under its own name for messages. */
#define H(NAME, OP)          kumi_shmem_amo_##NAME##_##OP
#define CALL(NAME, OP)       "shmem_" #NAME "_atomic_" #OP
#define CTX_CALL(NAME, OP)   "shmem_ctx_" #NAME "_atomic_" #OP
#define DEF                  SHMEM_CTX_DEFAULT

/* TYPE op(dest, value): fetching with one operand (swap, fetch_add, ...),
 * and its _nbi form */
#define KUMI_SHMEM_AMO_FETCH1(TYPE, NAME, OP, KOP)                                           \
    KUMI_SHMEM_INLINE TYPE H(NAME, OP)(const char *call, shmem_ctx_t ctx, TYPE *dest,        \
                                       TYPE value, int pe)                                   \
    {                                                                                        \
        uint64_t old = kumi_shmem_amo(call, ctx, dest, sizeof(TYPE), pe, KOP,                \
                                      KUMI_SHMEM_TO_BITS(TYPE, value), 0);                   \
        KUMI_SHMEM_FROM_BITS(TYPE, old)                                                      \
        return r_;                                                                           \
    }                                                                                        \
    TYPE shmem_ctx_##NAME##_atomic_##OP(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe)     \
    {                                                                                        \
        return H(NAME, OP)(CTX_CALL(NAME, OP), ctx, dest, value, pe);                        \
    }                                                                                        \
    TYPE shmem_##NAME##_atomic_##OP(TYPE *dest, TYPE value, int pe)                          \
    {                                                                                        \
        return H(NAME, OP)(CALL(NAME, OP), DEF, dest, value, pe);                            \
    }                                                                                        \
    void shmem_ctx_##NAME##_atomic_##OP##_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest,      \
                                              TYPE value, int pe)                            \
    {                                                                                        \
        *fetch = H(NAME, OP)(CTX_CALL(NAME, OP##_nbi), ctx, dest, value, pe);                \
    }                                                                                        \
    void shmem_##NAME##_atomic_##OP##_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe)       \
    {                                                                                        \
        *fetch = H(NAME, OP)(CALL(NAME, OP##_nbi), DEF, dest, value, pe);                    \
    }

/* void op(dest, value): non-fetching with one operand (set, add, and, ...) */
#define KUMI_SHMEM_AMO_PLAIN1(TYPE, NAME, OP, KOP)                                           \
    void shmem_ctx_##NAME##_atomic_##OP(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe)     \
    {                                                                                        \
        kumi_shmem_amo(CTX_CALL(NAME, OP), ctx, dest, sizeof(TYPE), pe, KOP,                 \
                       KUMI_SHMEM_TO_BITS(TYPE, value), 0);                                  \
    }                                                                                        \
    void shmem_##NAME##_atomic_##OP(TYPE *dest, TYPE value, int pe)                          \
    {                                                                                        \
        kumi_shmem_amo(CALL(NAME, OP), DEF, dest, sizeof(TYPE), pe, KOP,                     \
                       KUMI_SHMEM_TO_BITS(TYPE, value), 0);                                  \
    }

/* fetch (and fetch_nbi): an atomic load */
#define KUMI_SHMEM_AMO_FETCH(TYPE, NAME)                                                     \
    KUMI_SHMEM_INLINE TYPE H(NAME, fetch)(const char *call, shmem_ctx_t ctx,                 \
                                          const TYPE *source, int pe)                        \
    {                                                                                        \
        uint64_t old = kumi_shmem_amo(call, ctx, source, sizeof(TYPE), pe, KUMI_AMO_FETCH,   \
                                      0, 0);                                                 \
        KUMI_SHMEM_FROM_BITS(TYPE, old)                                                      \
        return r_;                                                                           \
    }                                                                                        \
    TYPE shmem_ctx_##NAME##_atomic_fetch(shmem_ctx_t ctx, const TYPE *source, int pe)        \
    {                                                                                        \
        return H(NAME, fetch)(CTX_CALL(NAME, fetch), ctx, source, pe);                       \
    }                                                                                        \
    TYPE shmem_##NAME##_atomic_fetch(const TYPE *source, int pe)                             \
    {                                                                                        \
        return H(NAME, fetch)(CALL(NAME, fetch), DEF, source, pe);                           \
    }                                                                                        \
    void shmem_ctx_##NAME##_atomic_fetch_nbi(shmem_ctx_t ctx, TYPE *fetch,                   \
                                             const TYPE *source, int pe)                     \
    {                                                                                        \
        *fetch = H(NAME, fetch)(CTX_CALL(NAME, fetch_nbi), ctx, source, pe);                 \
    }                                                                                        \
    void shmem_##NAME##_atomic_fetch_nbi(TYPE *fetch, const TYPE *source, int pe)            \
    {                                                                                        \
        *fetch = H(NAME, fetch)(CALL(NAME, fetch_nbi), DEF, source, pe);                     \
    }

/* compare_swap (and _nbi): value replaces *dest where *dest == cond */
#define KUMI_SHMEM_AMO_CSWAP(TYPE, NAME)                                                     \
    KUMI_SHMEM_INLINE TYPE H(NAME, cswap)(const char *call, shmem_ctx_t ctx, TYPE *dest,     \
                                          TYPE cond, TYPE value, int pe)                     \
    {                                                                                        \
        uint64_t old = kumi_shmem_amo(call, ctx, dest, sizeof(TYPE), pe, KUMI_AMO_CSWAP,     \
                                      KUMI_SHMEM_TO_BITS(TYPE, value),                       \
                                      KUMI_SHMEM_TO_BITS(TYPE, cond));                       \
        KUMI_SHMEM_FROM_BITS(TYPE, old)                                                      \
        return r_;                                                                           \
    }                                                                                        \
    TYPE shmem_ctx_##NAME##_atomic_compare_swap(shmem_ctx_t ctx, TYPE *dest, TYPE cond,      \
                                                TYPE value, int pe)                          \
    {                                                                                        \
        return H(NAME, cswap)(CTX_CALL(NAME, compare_swap), ctx, dest, cond, value, pe);     \
    }                                                                                        \
    TYPE shmem_##NAME##_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value, int pe)       \
    {                                                                                        \
        return H(NAME, cswap)(CALL(NAME, compare_swap), DEF, dest, cond, value, pe);         \
    }                                                                                        \
    void shmem_ctx_##NAME##_atomic_compare_swap_nbi(shmem_ctx_t ctx, TYPE *fetch,            \
                                                    TYPE *dest, TYPE cond, TYPE value,       \
                                                    int pe)                                  \
    {                                                                                        \
        *fetch = H(NAME, cswap)(CTX_CALL(NAME, compare_swap_nbi), ctx, dest, cond, value,    \
                                pe);                                                         \
    }                                                                                        \
    void shmem_##NAME##_atomic_compare_swap_nbi(TYPE *fetch, TYPE *dest, TYPE cond,          \
                                                TYPE value, int pe)                          \
    {                                                                                        \
        *fetch = H(NAME, cswap)(CALL(NAME, compare_swap_nbi), DEF, dest, cond, value, pe);   \
    }

/* fetch_inc (and _nbi) and inc: add 1 */
#define KUMI_SHMEM_AMO_INC(TYPE, NAME)                                                       \
    TYPE shmem_ctx_##NAME##_atomic_fetch_inc(shmem_ctx_t ctx, TYPE *dest, int pe)            \
    {                                                                                        \
        return H(NAME, fetch_add)(CTX_CALL(NAME, fetch_inc), ctx, dest, (TYPE)1, pe);        \
    }                                                                                        \
    TYPE shmem_##NAME##_atomic_fetch_inc(TYPE *dest, int pe)                                 \
    {                                                                                        \
        return H(NAME, fetch_add)(CALL(NAME, fetch_inc), DEF, dest, (TYPE)1, pe);            \
    }                                                                                        \
    void shmem_ctx_##NAME##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest,   \
                                                 int pe)                                     \
    {                                                                                        \
        *fetch = H(NAME, fetch_add)(CTX_CALL(NAME, fetch_inc_nbi), ctx, dest, (TYPE)1, pe);  \
    }                                                                                        \
    void shmem_##NAME##_atomic_fetch_inc_nbi(TYPE *fetch, TYPE *dest, int pe)                \
    {                                                                                        \
        *fetch = H(NAME, fetch_add)(CALL(NAME, fetch_inc_nbi), DEF, dest, (TYPE)1, pe);      \
    }                                                                                        \
    void shmem_ctx_##NAME##_atomic_inc(shmem_ctx_t ctx, TYPE *dest, int pe)                  \
    {                                                                                        \
        kumi_shmem_amo(CTX_CALL(NAME, inc), ctx, dest, sizeof(TYPE), pe, KUMI_AMO_ADD, 1,    \
                       0);                                                                   \
    }                                                                                        \
    void shmem_##NAME##_atomic_inc(TYPE *dest, int pe)                                       \
    {                                                                                        \
        kumi_shmem_amo(CALL(NAME, inc), DEF, dest, sizeof(TYPE), pe, KUMI_AMO_ADD, 1, 0);    \
    }

/* --------------------------------------------------------- the families */

#define KUMI_SHMEM_AMO_EXT_DEFS(TYPE, NAME)                                                  \
    KUMI_SHMEM_AMO_FETCH(TYPE, NAME)                                                         \
    KUMI_SHMEM_AMO_PLAIN1(TYPE, NAME, set, KUMI_AMO_SET)                                     \
    KUMI_SHMEM_AMO_FETCH1(TYPE, NAME, swap, KUMI_AMO_SWAP)
KUMI_SHMEM_AMO_EXT_TYPES(KUMI_SHMEM_AMO_EXT_DEFS)

#define KUMI_SHMEM_AMO_STD_DEFS(TYPE, NAME)                                                  \
    KUMI_SHMEM_AMO_CSWAP(TYPE, NAME)                                                         \
    KUMI_SHMEM_AMO_FETCH1(TYPE, NAME, fetch_add, KUMI_AMO_FETCH_ADD)                         \
    KUMI_SHMEM_AMO_PLAIN1(TYPE, NAME, add, KUMI_AMO_ADD)                                     \
    KUMI_SHMEM_AMO_INC(TYPE, NAME)
KUMI_SHMEM_AMO_STD_TYPES(KUMI_SHMEM_AMO_STD_DEFS)

#define KUMI_SHMEM_AMO_BIT_DEFS(TYPE, NAME)                                                  \
    KUMI_SHMEM_AMO_FETCH1(TYPE, NAME, fetch_and, KUMI_AMO_FETCH_AND)                         \
    KUMI_SHMEM_AMO_PLAIN1(TYPE, NAME, and, KUMI_AMO_AND)                                     \
    KUMI_SHMEM_AMO_FETCH1(TYPE, NAME, fetch_or, KUMI_AMO_FETCH_OR)                           \
    KUMI_SHMEM_AMO_PLAIN1(TYPE, NAME, or, KUMI_AMO_OR)                                       \
    KUMI_SHMEM_AMO_FETCH1(TYPE, NAME, fetch_xor, KUMI_AMO_FETCH_XOR)                         \
    KUMI_SHMEM_AMO_PLAIN1(TYPE, NAME, xor, KUMI_AMO_XOR)
KUMI_SHMEM_AMO_BIT_TYPES(KUMI_SHMEM_AMO_BIT_DEFS)

/* ----------------------------------------------------- deprecated names
 * Messages name the deprecated call the program made. */

#define KUMI_SHMEM_AMO_DEPR_DEFS(TYPE, NAME)                                                 \
    TYPE shmem_##NAME##_cswap(TYPE *dest, TYPE cond, TYPE value, int pe)                     \
    {                                                                                        \
        return H(NAME, cswap)("shmem_" #NAME "_cswap", DEF, dest, cond, value, pe);          \
    }                                                                                        \
    TYPE shmem_##NAME##_fadd(TYPE *dest, TYPE value, int pe)                                 \
    {                                                                                        \
        return H(NAME, fetch_add)("shmem_" #NAME "_fadd", DEF, dest, value, pe);             \
    }                                                                                        \
    TYPE shmem_##NAME##_finc(TYPE *dest, int pe)                                             \
    {                                                                                        \
        return H(NAME, fetch_add)("shmem_" #NAME "_finc", DEF, dest, (TYPE)1, pe);           \
    }                                                                                        \
    void shmem_##NAME##_add(TYPE *dest, TYPE value, int pe)                                  \
    {                                                                                        \
        kumi_shmem_amo("shmem_" #NAME "_add", DEF, dest, sizeof(TYPE), pe, KUMI_AMO_ADD,     \
                       KUMI_SHMEM_TO_BITS(TYPE, value), 0);                                  \
    }                                                                                        \
    void shmem_##NAME##_inc(TYPE *dest, int pe)                                              \
    {                                                                                        \
        kumi_shmem_amo("shmem_" #NAME "_inc", DEF, dest, sizeof(TYPE), pe, KUMI_AMO_ADD, 1,  \
                       0);                                                                   \
    }
KUMI_SHMEM_AMO_DEPR_TYPES(KUMI_SHMEM_AMO_DEPR_DEFS)

#define KUMI_SHMEM_AMO_DEPR_EXT_DEFS(TYPE, NAME)                                             \
    TYPE shmem_##NAME##_swap(TYPE *dest, TYPE value, int pe)                                 \
    {                                                                                        \
        return H(NAME, swap)("shmem_" #NAME "_swap", DEF, dest, value, pe);                  \
    }                                                                                        \
    TYPE shmem_##NAME##_fetch(const TYPE *source, int pe)                                    \
    {                                                                                        \
        return H(NAME, fetch)("shmem_" #NAME "_fetch", DEF, source, pe);                     \
    }                                                                                        \
    void shmem_##NAME##_set(TYPE *dest, TYPE value, int pe)                                  \
    {                                                                                        \
        kumi_shmem_amo("shmem_" #NAME "_set", DEF, dest, sizeof(TYPE), pe, KUMI_AMO_SET,     \
                       KUMI_SHMEM_TO_BITS(TYPE, value), 0);                                  \
    }
KUMI_SHMEM_AMO_DEPR_EXT_TYPES(KUMI_SHMEM_AMO_DEPR_EXT_DEFS)

/* (parenthesized: in C11 shmem_swap is also the generic macro) */
long (shmem_swap)(long *dest, long value, int pe)
{
    return H(long, swap)("shmem_swap", DEF, dest, value, pe);
}
