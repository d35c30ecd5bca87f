/*
 * rma.c -- one-sided put/get and remote atomics: argument checks, then one
 * call through the transport table. The checks are a few compares on the
 * fast path; reporting is out of line. A symmetric address is one of the
 * heap or (KUMI_INIT_SYMMETRIC_DATA) of the static data: kumi_rt_sym_lookup
 * checks the heap inline and static data only when that fails.
 */
#include "rt.h"

#define KUMI_LIKELY(x)   __builtin_expect(!!(x), 1)
#define KUMI_UNLIKELY(x) __builtin_expect(!!(x), 0)

static int kumi_rma_bad_pe(const char *call, int pe)
{
    return kumi_rt_error(KUMI_ERR_INVALID, call, "pe %d out of range (size %d)", pe, kumi_rt.size);
}

/* A transport returns KUMI_ERR_PEER silently (it cannot know the call's
 * name); the failure is reported here, once, naming the PE at fault. */
static inline int kumi_rma_status(const char *call, int rc)
{
    return KUMI_UNLIKELY(rc == KUMI_ERR_PEER) ? kumi_rt_peer_error(call) : rc;
}

/* Validates (state, pe, symmetric range, local buffer); *seg and *off on
 * success. */
static inline int kumi_rma_check(const char *call, int pe, const void *sym, size_t n,
                                 const void *local, enum kumi_seg *seg, size_t *off)
{
    if (KUMI_UNLIKELY(kumi_rt.state != 1))
        return kumi_rt_check_state(call);
    if (KUMI_UNLIKELY((unsigned)pe >= (unsigned)kumi_rt.size))
        return kumi_rma_bad_pe(call, pe);
    if (KUMI_UNLIKELY(kumi_rt_sym_lookup(sym, n, seg, off) != KUMI_OK))
        return kumi_rt_sym_error(call, sym, n);
    if (KUMI_UNLIKELY(local == NULL && n != 0))
        return kumi_rt_error(KUMI_ERR_INVALID, call, "local buffer is NULL");
    return KUMI_OK;
}

int kumi_put(void *dst_sym, const void *src, size_t n, int pe)
{
    enum kumi_seg seg = KUMI_SEG_HEAP;
    size_t        off = 0;
    int           rc = kumi_rma_check("kumi_put", pe, dst_sym, n, src, &seg, &off);

    if (KUMI_UNLIKELY(rc != KUMI_OK) || n == 0)
        return rc;
    return kumi_rma_status("kumi_put", kumi_tp_put(&kumi_rt.tp, pe, seg, off, src, n));
}

int kumi_get(void *dst, const void *src_sym, size_t n, int pe)
{
    enum kumi_seg seg = KUMI_SEG_HEAP;
    size_t        off = 0;
    int           rc = kumi_rma_check("kumi_get", pe, src_sym, n, dst, &seg, &off);

    if (KUMI_UNLIKELY(rc != KUMI_OK) || n == 0)
        return rc;
    return kumi_rma_status("kumi_get", kumi_tp_get(&kumi_rt.tp, dst, pe, seg, off, n));
}

int kumi_put_signal(void *dst_sym, const void *src, size_t n, uint64_t *sig_sym,
                    uint64_t sig_value, int pe)
{
    static const char call[] = "kumi_put_signal";
    enum kumi_seg     seg = KUMI_SEG_HEAP, sig_seg = KUMI_SEG_HEAP;
    size_t            off = 0, sig_off = 0;
    int               rc = kumi_rma_check(call, pe, dst_sym, n, src, &seg, &off);

    if (rc != KUMI_OK)
        return rc;
    rc = kumi_rma_check(call, pe, sig_sym, 8, sig_sym, &sig_seg, &sig_off);
    if (rc != KUMI_OK)
        return rc;
    if (KUMI_UNLIKELY((sig_off & 7) != 0))
        return kumi_rt_error(KUMI_ERR_INVALID, call, "signal word %p is not 8-byte aligned",
                             (void *)sig_sym);
    if (n != 0) {
        rc = kumi_tp_put(&kumi_rt.tp, pe, seg, off, src, n);
        if (rc == KUMI_OK)
            rc = kumi_tp_fence(&kumi_rt.tp);
        if (rc != KUMI_OK)
            return kumi_rma_status(call, rc);
    }
    /* one atomic store, so a waiter never sees half a signal */
    return kumi_rma_status(call, kumi_tp_atomic(&kumi_rt.tp, pe, sig_seg, sig_off,
                                                KUMI_AMO_SET, 8, sig_value, 0, NULL));
}

int kumi_fence(void)
{
    int rc = kumi_rt_check_state("kumi_fence");
    return rc != KUMI_OK ? rc : kumi_rma_status("kumi_fence", kumi_tp_fence(&kumi_rt.tp));
}

int kumi_quiet(void)
{
    int rc = kumi_rt_check_state("kumi_quiet");
    return rc != KUMI_OK ? rc : kumi_rma_status("kumi_quiet", kumi_tp_quiet(&kumi_rt.tp));
}

/* ------------------------------------------------------------- atomics */

/* Segments start page-aligned on every PE, so an offset's alignment is the
 * address's. */
static inline int kumi_amo(const char *call, const void *dst_sym, size_t width, int pe,
                           enum kumi_amo op, uint64_t operand, uint64_t compare, uint64_t *old)
{
    enum kumi_seg seg = KUMI_SEG_HEAP;
    size_t        off = 0;
    int           rc = kumi_rma_check(call, pe, dst_sym, width, dst_sym, &seg, &off);

    if (KUMI_UNLIKELY(rc != KUMI_OK))
        return rc;
    if (KUMI_UNLIKELY(((uintptr_t)dst_sym & (width - 1)) != 0))
        return kumi_rt_error(KUMI_ERR_INVALID, call, "address %p is not %zu-byte aligned",
                             dst_sym, width);
    if (KUMI_UNLIKELY(kumi_tp_amo_fetches(op) && old == NULL))
        return kumi_rt_error(KUMI_ERR_INVALID, call, "%s is NULL",
                             op == KUMI_AMO_FETCH ? "out" : "old");
    return kumi_rma_status(call, kumi_tp_atomic(&kumi_rt.tp, pe, seg, off, op, width,
                                                operand, compare, old));
}

/* The public atomics, one line each: NAME, the operation, and for the
 * fetching ones where the old value goes (the transport stores 64 bits). */
#define KUMI_AMO_PLAIN(NAME, OP, T, W)                                                       \
    int kumi_atomic_##NAME##_##W(T *dst_sym, T v, int pe)                                    \
    {                                                                                        \
        return kumi_amo("kumi_atomic_" #NAME "_" #W, dst_sym, sizeof(T), pe, OP, v, 0, NULL); \
    }
#define KUMI_AMO_FETCHING(NAME, OP, T, W)                                                    \
    int kumi_atomic_##NAME##_##W(T *dst_sym, T v, int pe, T *old)                            \
    {                                                                                        \
        uint64_t o;                                                                          \
        int rc = kumi_amo("kumi_atomic_" #NAME "_" #W, dst_sym, sizeof(T), pe, OP, v, 0,     \
                          old ? &o : NULL);                                                  \
        if (rc == KUMI_OK)                                                                   \
            *old = (T)o;                                                                     \
        return rc;                                                                           \
    }

#define KUMI_AMO_API(T, W)                                                                   \
    KUMI_AMO_PLAIN(add, KUMI_AMO_ADD, T, W)                                                  \
    KUMI_AMO_PLAIN(and, KUMI_AMO_AND, T, W)                                                  \
    KUMI_AMO_PLAIN(or, KUMI_AMO_OR, T, W)                                                    \
    KUMI_AMO_PLAIN(xor, KUMI_AMO_XOR, T, W)                                                  \
    KUMI_AMO_PLAIN(set, KUMI_AMO_SET, T, W)                                                  \
    KUMI_AMO_FETCHING(fetch_add, KUMI_AMO_FETCH_ADD, T, W)                                   \
    KUMI_AMO_FETCHING(fetch_and, KUMI_AMO_FETCH_AND, T, W)                                   \
    KUMI_AMO_FETCHING(fetch_or, KUMI_AMO_FETCH_OR, T, W)                                     \
    KUMI_AMO_FETCHING(fetch_xor, KUMI_AMO_FETCH_XOR, T, W)                                   \
    KUMI_AMO_FETCHING(swap, KUMI_AMO_SWAP, T, W)                                             \
    int kumi_atomic_cswap_##W(T *dst_sym, T expected, T desired, int pe, T *old)             \
    {                                                                                        \
        uint64_t o;                                                                          \
        int rc = kumi_amo("kumi_atomic_cswap_" #W, dst_sym, sizeof(T), pe, KUMI_AMO_CSWAP,   \
                          desired, expected, old ? &o : NULL);                               \
        if (rc == KUMI_OK)                                                                   \
            *old = (T)o;                                                                     \
        return rc;                                                                           \
    }                                                                                        \
    int kumi_atomic_fetch_##W(const T *src_sym, int pe, T *out)                              \
    {                                                                                        \
        uint64_t o;                                                                          \
        int rc = kumi_amo("kumi_atomic_fetch_" #W, src_sym, sizeof(T), pe, KUMI_AMO_FETCH,   \
                          0, 0, out ? &o : NULL);                                            \
        if (rc == KUMI_OK)                                                                   \
            *out = (T)o;                                                                     \
        return rc;                                                                           \
    }

KUMI_AMO_API(uint64_t, u64)
KUMI_AMO_API(uint32_t, u32)
