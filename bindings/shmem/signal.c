/*
 * signal.c -- put-with-signal for every RMA type, the sized and mem forms
 * (blocking and nbi, with and without a context), shmem_signal_fetch and
 * shmem_signal_wait_until.
 *
 * A put-with-signal is the data put, a fence (the data is delivered before
 * the signal on every transport), then one 8-byte remote atomic on the
 * signal word (SET: an atomic store, ADD: an atomic add), so a waiter never
 * sees half a signal and never sees the signal before the data. The signal
 * word may be in the symmetric heap or in static data.
 */
#include "shmem_impl.h"

static void kumi_shmem_put_signal(const char *call, shmem_ctx_t ctx, void *dest,
                                  const void *src, size_t nelems, size_t size,
                                  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    struct kumi_shmem_target t, s;
    size_t n = nelems * size;
    int    rc;

    if (KUMI_SHMEM_UNLIKELY(size > 1 && nelems > SIZE_MAX / size)) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "%zu elements of %zu bytes overflow", nelems,
                         size);
        return;
    }
    /* the signal is checked as an 8-byte "transfer" from itself */
    if (KUMI_SHMEM_UNLIKELY(kumi_shmem_check(call, ctx, sig_addr, 8, sig_addr, pe, &s) != 0))
        return;
    if (KUMI_SHMEM_UNLIKELY(((uintptr_t)sig_addr & 7) != 0)) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "signal word %p is not 8-byte aligned",
                         (void *)sig_addr);
        return;
    }
    if (KUMI_SHMEM_UNLIKELY(sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "sig_op %d is neither SHMEM_SIGNAL_SET (%d) "
                         "nor SHMEM_SIGNAL_ADD (%d)", sig_op, SHMEM_SIGNAL_SET, SHMEM_SIGNAL_ADD);
        return;
    }
    rc = kumi_shmem_check(call, ctx, dest, n, src, pe, &t);
    if (rc == 0) {
        rc = kumi_tp_put(&kumi_rt.tp, t.pe, t.seg, t.off, src, n);
        if (rc == KUMI_OK)
            rc = kumi_tp_fence(&kumi_rt.tp);
        if (rc != KUMI_OK) {
            kumi_shmem_status(call, rc);
            return;
        }
    } else if (n != 0) {
        return;                          /* reported: no signal for data that was not put */
    }
    rc = kumi_tp_atomic(&kumi_rt.tp, s.pe, s.seg, s.off,
                        sig_op == SHMEM_SIGNAL_SET ? KUMI_AMO_SET : KUMI_AMO_ADD, 8,
                        signal, 0, NULL);
    if (KUMI_SHMEM_UNLIKELY(rc != KUMI_OK))
        kumi_shmem_status(call, rc);
}

#define KUMI_SHMEM_DEF_PUT_SIGNAL(N, T_DEST, SIZE, NAME)                                      \
    void shmem_##N##_signal(T_DEST *dest, const T_DEST *source, size_t nelems,                 \
                            uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)           \
    {                                                                                          \
        kumi_shmem_put_signal("shmem_" NAME "_signal", SHMEM_CTX_DEFAULT, dest, source,        \
                              nelems, SIZE, sig_addr, signal, sig_op, pe);                     \
    }                                                                                          \
    void shmem_ctx_##N##_signal(shmem_ctx_t ctx, T_DEST *dest, const T_DEST *source,           \
                                size_t nelems, uint64_t *sig_addr, uint64_t signal,            \
                                int sig_op, int pe)                                            \
    {                                                                                          \
        kumi_shmem_put_signal("shmem_ctx_" NAME "_signal", ctx, dest, source, nelems, SIZE,    \
                              sig_addr, signal, sig_op, pe);                                   \
    }                                                                                          \
    void shmem_##N##_signal_nbi(T_DEST *dest, const T_DEST *source, size_t nelems,             \
                                uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)       \
    {                                                                                          \
        kumi_shmem_put_signal("shmem_" NAME "_signal_nbi", SHMEM_CTX_DEFAULT, dest, source,    \
                              nelems, SIZE, sig_addr, signal, sig_op, pe);                     \
    }                                                                                          \
    void shmem_ctx_##N##_signal_nbi(shmem_ctx_t ctx, T_DEST *dest, const T_DEST *source,       \
                                    size_t nelems, uint64_t *sig_addr, uint64_t signal,        \
                                    int sig_op, int pe)                                        \
    {                                                                                          \
        kumi_shmem_put_signal("shmem_ctx_" NAME "_signal_nbi", ctx, dest, source, nelems,      \
                              SIZE, sig_addr, signal, sig_op, pe);                             \
    }

/* typed: shmem_TYPENAME_put_signal; sized: shmem_putBITS_signal; mem */
#define KUMI_SHMEM_DEF_TYPED_SIGNAL(T, N) KUMI_SHMEM_DEF_PUT_SIGNAL(N##_put, T, sizeof(T), #N "_put")
#define KUMI_SHMEM_DEF_SIZED_SIGNAL(BITS, BYTES) \
    KUMI_SHMEM_DEF_PUT_SIGNAL(put##BITS, void, BYTES, "put" #BITS)
KUMI_SHMEM_RMA_TYPES(KUMI_SHMEM_DEF_TYPED_SIGNAL)
KUMI_SHMEM_SIZES(KUMI_SHMEM_DEF_SIZED_SIGNAL)
KUMI_SHMEM_DEF_PUT_SIGNAL(putmem, void, 1, "putmem")

uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
    if (KUMI_SHMEM_UNLIKELY(sig_addr == NULL)) {
        kumi_shmem_error(KUMI_ERR_INVALID, "shmem_signal_fetch", "sig_addr is NULL");
        return 0;
    }
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    static const char call[] = "shmem_signal_wait_until";
    uint64_t v;

    if (KUMI_SHMEM_UNLIKELY(kumi_shmem_check_init(call) != 0))
        return 0;
    if (KUMI_SHMEM_UNLIKELY(sig_addr == NULL || ((uintptr_t)sig_addr & 7) != 0)) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "sig_addr %p is %s", (void *)sig_addr,
                         sig_addr == NULL ? "NULL" : "not 8-byte aligned");
        return 0;
    }
    if (KUMI_SHMEM_UNLIKELY(cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE)) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "cmp %d is not a SHMEM_CMP_* value", cmp);
        return 0;
    }
    /* return a value that satisfied the condition, not a later one */
    for (;;) {
        if (kumi_rt_wait_fast(call, sig_addr, 8, cmp, cmp_value, 0) != KUMI_OK)
            return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);   /* job failing: reported */
        v = __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
        if (kumi_rt_cmp(v, cmp, cmp_value) == 1)
            return v;
    }
}
