/*
 * rma.c -- one-sided put/get and remote atomics: argument checks, then one
 * call through the transport table. The checks are a few compares on the
 * fast path; reporting is out of line.
 */
#include "rt.h"

#define KUMI_LIKELY(x)   __builtin_expect(!!(x), 1)
#define KUMI_UNLIKELY(x) __builtin_expect(!!(x), 0)

static int kumi_rma_bad_pe(const char *call, int pe)
{
    return kumi_rt_error(KUMI_ERR_INVALID, call, "pe %d out of range (size %d)", pe, kumi_rt.size);
}

static int kumi_rma_bad_addr(const char *call, const void *sym, size_t n)
{
    uint8_t *base = kumi_rt.tp.local[KUMI_SEG_HEAP];
    return kumi_rt_error(KUMI_ERR_INVALID, call, "address %p (+%zu bytes) is outside the "
                         "symmetric heap [%p, %p)", sym, n, (void *)base,
                         (void *)(base + kumi_rt.tp.seg_size[KUMI_SEG_HEAP]));
}

/* A transport returns KUMI_ERR_PEER silently (it cannot know the call's
 * name); the failure is reported here, once, naming the PE at fault. */
static inline int kumi_rma_status(const char *call, int rc)
{
    return KUMI_UNLIKELY(rc == KUMI_ERR_PEER) ? kumi_rt_peer_error(call) : rc;
}

/* Validates (state, pe, symmetric range, local buffer); *off on success. */
static inline int kumi_rma_check(const char *call, int pe, const void *sym, size_t n,
                                 const void *local, size_t *off)
{
    if (KUMI_UNLIKELY(kumi_rt.state != 1))
        return kumi_rt_check_state(call);
    if (KUMI_UNLIKELY((unsigned)pe >= (unsigned)kumi_rt.size))
        return kumi_rma_bad_pe(call, pe);
    *off = kumi_rt_heap_off(sym, n);
    if (KUMI_UNLIKELY(*off == (size_t)-1))
        return kumi_rma_bad_addr(call, sym, n);
    if (KUMI_UNLIKELY(local == NULL && n != 0))
        return kumi_rt_error(KUMI_ERR_INVALID, call, "local buffer is NULL");
    return KUMI_OK;
}

int kumi_put(void *dst_sym, const void *src, size_t n, int pe)
{
    size_t off = 0;
    int    rc = kumi_rma_check("kumi_put", pe, dst_sym, n, src, &off);

    if (KUMI_UNLIKELY(rc != KUMI_OK) || n == 0)
        return rc;
    return kumi_rma_status("kumi_put", kumi_rt.tp.ops->put(&kumi_rt.tp, pe, KUMI_SEG_HEAP, off,
                                                           src, n));
}

int kumi_get(void *dst, const void *src_sym, size_t n, int pe)
{
    size_t off = 0;
    int    rc = kumi_rma_check("kumi_get", pe, src_sym, n, dst, &off);

    if (KUMI_UNLIKELY(rc != KUMI_OK) || n == 0)
        return rc;
    return kumi_rma_status("kumi_get", kumi_rt.tp.ops->get(&kumi_rt.tp, dst, pe, KUMI_SEG_HEAP,
                                                           off, n));
}

int kumi_put_signal(void *dst_sym, const void *src, size_t n, uint64_t *sig_sym,
                    uint64_t sig_value, int pe)
{
    static const char call[] = "kumi_put_signal";
    size_t off = 0, sig_off = 0;
    int    rc = kumi_rma_check(call, pe, dst_sym, n, src, &off);

    if (rc != KUMI_OK)
        return rc;
    rc = kumi_rma_check(call, pe, sig_sym, 8, sig_sym, &sig_off);
    if (rc != KUMI_OK)
        return rc;
    if (KUMI_UNLIKELY((sig_off & 7) != 0))
        return kumi_rt_error(KUMI_ERR_INVALID, call, "signal word %p is not 8-byte aligned",
                             (void *)sig_sym);
    if (n != 0) {
        rc = kumi_rt.tp.ops->put(&kumi_rt.tp, pe, KUMI_SEG_HEAP, off, src, n);
        if (rc == KUMI_OK)
            rc = kumi_rt.tp.ops->fence(&kumi_rt.tp);
        if (rc != KUMI_OK)
            return kumi_rma_status(call, rc);
    }
    /* one atomic store, so a waiter never sees half a signal */
    return kumi_rma_status(call, kumi_rt.tp.ops->atomic(&kumi_rt.tp, pe, KUMI_SEG_HEAP, sig_off,
                                                        KUMI_AMO_SWAP, 8, sig_value, 0, NULL));
}

int kumi_fence(void)
{
    int rc = kumi_rt_check_state("kumi_fence");
    return rc != KUMI_OK ? rc : kumi_rma_status("kumi_fence", kumi_rt.tp.ops->fence(&kumi_rt.tp));
}

int kumi_quiet(void)
{
    int rc = kumi_rt_check_state("kumi_quiet");
    return rc != KUMI_OK ? rc : kumi_rma_status("kumi_quiet", kumi_rt.tp.ops->quiet(&kumi_rt.tp));
}

/* ------------------------------------------------------------- atomics */

static inline int kumi_amo(const char *call, void *dst_sym, size_t width, int pe,
                           enum kumi_amo op, uint64_t operand, uint64_t compare, uint64_t *old,
                           int fetching)
{
    size_t off = 0;
    int    rc = kumi_rma_check(call, pe, dst_sym, width, dst_sym, &off);

    if (KUMI_UNLIKELY(rc != KUMI_OK))
        return rc;
    if (KUMI_UNLIKELY(((uintptr_t)dst_sym & (width - 1)) != 0))
        return kumi_rt_error(KUMI_ERR_INVALID, call, "address %p is not %zu-byte aligned",
                             dst_sym, width);
    if (KUMI_UNLIKELY(fetching && old == NULL))
        return kumi_rt_error(KUMI_ERR_INVALID, call, "old is NULL");
    return kumi_rma_status(call, kumi_rt.tp.ops->atomic(&kumi_rt.tp, pe, KUMI_SEG_HEAP, off, op,
                                                        width, operand, compare, old));
}

#define KUMI_AMO_API(T, W)                                                                   \
    int kumi_atomic_add_##W(T *dst_sym, T v, int pe)                                         \
    {                                                                                        \
        return kumi_amo("kumi_atomic_add_" #W, dst_sym, sizeof(T), pe, KUMI_AMO_ADD, v, 0,    \
                        NULL, 0);                                                            \
    }                                                                                        \
    int kumi_atomic_fetch_add_##W(T *dst_sym, T v, int pe, T *old)                           \
    {                                                                                        \
        uint64_t o;                                                                          \
        int rc = kumi_amo("kumi_atomic_fetch_add_" #W, dst_sym, sizeof(T), pe,               \
                          KUMI_AMO_FETCH_ADD, v, 0, old ? &o : NULL, 1);                     \
        if (rc == KUMI_OK)                                                                   \
            *old = (T)o;                                                                     \
        return rc;                                                                           \
    }                                                                                        \
    int kumi_atomic_swap_##W(T *dst_sym, T v, int pe, T *old)                                \
    {                                                                                        \
        uint64_t o;                                                                          \
        int rc = kumi_amo("kumi_atomic_swap_" #W, dst_sym, sizeof(T), pe, KUMI_AMO_SWAP, v,  \
                          0, old ? &o : NULL, 1);                                            \
        if (rc == KUMI_OK)                                                                   \
            *old = (T)o;                                                                     \
        return rc;                                                                           \
    }                                                                                        \
    int kumi_atomic_cswap_##W(T *dst_sym, T expected, T desired, int pe, T *old)             \
    {                                                                                        \
        uint64_t o;                                                                          \
        int rc = kumi_amo("kumi_atomic_cswap_" #W, dst_sym, sizeof(T), pe, KUMI_AMO_CSWAP,   \
                          desired, expected, old ? &o : NULL, 1);                            \
        if (rc == KUMI_OK)                                                                   \
            *old = (T)o;                                                                     \
        return rc;                                                                           \
    }

KUMI_AMO_API(uint64_t, u64)
KUMI_AMO_API(uint32_t, u32)
