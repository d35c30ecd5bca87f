/*
 * rma.c -- put, get, p, g, iput, iget and their nbi forms for every type of
 * KUMI_SHMEM_RMA_TYPES, the sized (KUMI_SHMEM_SIZES) and the mem forms, each
 * with and without a context: all generated from the tables in shmem.h.
 *
 * The fast path is what kumi_put does, no more: a few compares (state,
 * context, PE, the symmetric range: heap inline, static data out of line),
 * then one call through the transport table. Errors are reported out of
 * line, once, naming the shmem call.
 *
 * Non-blocking forms complete locally at once (kumi's puts return with the
 * source reusable and its gets complete), which the specification allows;
 * shmem_quiet completes the puts remotely as for the blocking ones.
 */
#include <stdlib.h>
#include <string.h>

#include "shmem_impl.h"

/* nelems elements of size bytes, or nonzero after a message on overflow */
static int kumi_shmem_overflow(const char *call, size_t nelems, size_t size)
{
    return kumi_shmem_error(KUMI_ERR_INVALID, call, "%zu elements of %zu bytes overflow",
                            nelems, size);
}

KUMI_SHMEM_INLINE void kumi_shmem_put(const char *call, shmem_ctx_t ctx, void *dest,
                                  const void *src, size_t nelems, size_t size, int pe)
{
    struct kumi_shmem_target t;
    size_t n = nelems * size;
    int    rc;

    if (KUMI_SHMEM_UNLIKELY(size > 1 && nelems > SIZE_MAX / size)) {
        kumi_shmem_overflow(call, nelems, size);
        return;
    }
    if (KUMI_SHMEM_UNLIKELY(kumi_shmem_check(call, ctx, dest, n, src, pe, &t) != 0))
        return;
    rc = kumi_tp_put(&kumi_rt.tp, t.pe, t.seg, t.off, src, n);
    if (KUMI_SHMEM_UNLIKELY(rc != KUMI_OK))
        kumi_shmem_status(call, rc);
}

KUMI_SHMEM_INLINE void kumi_shmem_get(const char *call, shmem_ctx_t ctx, void *dest,
                                  const void *src, size_t nelems, size_t size, int pe)
{
    struct kumi_shmem_target t;
    size_t n = nelems * size;
    int    rc;

    if (KUMI_SHMEM_UNLIKELY(size > 1 && nelems > SIZE_MAX / size)) {
        kumi_shmem_overflow(call, nelems, size);
        return;
    }
    if (KUMI_SHMEM_UNLIKELY(kumi_shmem_check(call, ctx, src, n, dest, pe, &t) != 0))
        return;
    rc = kumi_tp_get(&kumi_rt.tp, dest, t.pe, t.seg, t.off, n);
    if (KUMI_SHMEM_UNLIKELY(rc != KUMI_OK))
        kumi_shmem_status(call, rc);
}

/* one element of size bytes (1, 2, 4, 8 or 16) */
static inline void kumi_shmem_copy1(void *d, const void *s, size_t size)
{
    switch (size) {
    case 1:  memcpy(d, s, 1); break;
    case 2:  memcpy(d, s, 2); break;
    case 4:  memcpy(d, s, 4); break;
    case 8:  memcpy(d, s, 8); break;
    default: memcpy(d, s, 16); break;
    }
}

/* Gets fetch the whole span [first, last element] in one transfer when it
 * is at most this large or at most 4x the elements it holds (one round
 * trip over tcp instead of one per element). */
#define KUMI_SHMEM_IGET_SPAN (64u << 10)

/* iput (is_put) and iget: nelems elements of size bytes, the symmetric
 * side at stride sym_stride elements, the local side at loc_stride. */
static void kumi_shmem_strided(const char *call, shmem_ctx_t ctx, int is_put, void *dest,
                               const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                               size_t size, int pe)
{
    const char *sym   = is_put ? (const char *)dest : (const char *)src;
    char       *loc   = is_put ? (char *)src : (char *)dest;
    ptrdiff_t   sstr  = is_put ? dst : sst;     /* symmetric stride, elements */
    ptrdiff_t   lstr  = is_put ? sst : dst;     /* local stride, elements     */
    struct kumi_shmem_target t;
    ptrdiff_t   reach, lo;
    size_t      span;
    int         rc = KUMI_OK;

    /* the symmetric elements lie in [sym + lo, sym + lo + span) */
    if (nelems > (size_t)PTRDIFF_MAX
        || __builtin_mul_overflow((ptrdiff_t)(nelems - (nelems > 0)), sstr, &reach)
        || __builtin_mul_overflow(reach, (ptrdiff_t)size, &reach)) {
        kumi_shmem_overflow(call, nelems, size);
        return;
    }
    lo   = reach < 0 ? reach : 0;
    span = (size_t)(reach < 0 ? -reach : reach) + size;
    if (kumi_shmem_check(call, ctx, sym + lo, nelems == 0 ? 0 : span, loc, pe, &t) != 0)
        return;
    size_t off0 = t.off - (size_t)lo;            /* offset of element 0 */
    ptrdiff_t sstep = sstr * (ptrdiff_t)size, lstep = lstr * (ptrdiff_t)size;

    /* mapped peer memory (shm, no doorbells to ring): plain loads/stores,
     * exactly what the transport's own put and get do there */
    char *peer = NULL;
    if (kumi_rt.tp.kicks_publish && !kumi_rt.tp.doorbells)
        peer = kumi_tp_peer_ptr(&kumi_rt.tp, t.pe, t.seg, off0);
    if (peer != NULL) {
        for (size_t i = 0; i < nelems; i++, peer += sstep, loc += lstep) {
            if (is_put)
                kumi_shmem_copy1(peer, loc, size);
            else
                kumi_shmem_copy1(loc, peer, size);
        }
        return;
    }
    if (!is_put && (span <= KUMI_SHMEM_IGET_SPAN || span / 4 <= nelems * size)) {
        char *tmp = malloc(span);
        if (tmp != NULL) {
            rc = kumi_tp_get(&kumi_rt.tp, tmp, t.pe, t.seg, t.off, span);
            for (size_t i = 0; rc == KUMI_OK && i < nelems; i++, loc += lstep)
                kumi_shmem_copy1(loc, tmp - lo + (ptrdiff_t)i * sstep, size);
            free(tmp);
            if (rc != KUMI_OK)
                kumi_shmem_status(call, rc);
            return;
        }
    }
    size_t off = off0;
    for (size_t i = 0; rc == KUMI_OK && i < nelems; i++, off += (size_t)sstep, loc += lstep)
        rc = is_put ? kumi_tp_put(&kumi_rt.tp, t.pe, t.seg, off, loc, size)
                    : kumi_tp_get(&kumi_rt.tp, loc, t.pe, t.seg, off, size);
    if (rc != KUMI_OK)
        kumi_shmem_status(call, rc);
}

/* --------------------------------------------------------------- typed */
#define KUMI_SHMEM_DEF_RMA(T, N)                                                             \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe)                    \
    {                                                                                        \
        kumi_shmem_put("shmem_" #N "_put", SHMEM_CTX_DEFAULT, dest, source, nelems,          \
                       sizeof(T), pe);                                                       \
    }                                                                                        \
    void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,       \
                             int pe)                                                         \
    {                                                                                        \
        kumi_shmem_put("shmem_ctx_" #N "_put", ctx, dest, source, nelems, sizeof(T), pe);    \
    }                                                                                        \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe)                \
    {                                                                                        \
        kumi_shmem_put("shmem_" #N "_put_nbi", SHMEM_CTX_DEFAULT, dest, source, nelems,      \
                       sizeof(T), pe);                                                       \
    }                                                                                        \
    void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,   \
                                 int pe)                                                     \
    {                                                                                        \
        kumi_shmem_put("shmem_ctx_" #N "_put_nbi", ctx, dest, source, nelems, sizeof(T),     \
                       pe);                                                                  \
    }                                                                                        \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe)                    \
    {                                                                                        \
        kumi_shmem_get("shmem_" #N "_get", SHMEM_CTX_DEFAULT, dest, source, nelems,          \
                       sizeof(T), pe);                                                       \
    }                                                                                        \
    void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,       \
                             int pe)                                                         \
    {                                                                                        \
        kumi_shmem_get("shmem_ctx_" #N "_get", ctx, dest, source, nelems, sizeof(T), pe);    \
    }                                                                                        \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe)                \
    {                                                                                        \
        kumi_shmem_get("shmem_" #N "_get_nbi", SHMEM_CTX_DEFAULT, dest, source, nelems,      \
                       sizeof(T), pe);                                                       \
    }                                                                                        \
    void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,   \
                                 int pe)                                                     \
    {                                                                                        \
        kumi_shmem_get("shmem_ctx_" #N "_get_nbi", ctx, dest, source, nelems, sizeof(T),     \
                       pe);                                                                  \
    }                                                                                        \
    void shmem_##N##_p(T *dest, T value, int pe)                                             \
    {                                                                                        \
        kumi_shmem_put("shmem_" #N "_p", SHMEM_CTX_DEFAULT, dest, &value, 1, sizeof(T), pe); \
    }                                                                                        \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe)                        \
    {                                                                                        \
        kumi_shmem_put("shmem_ctx_" #N "_p", ctx, dest, &value, 1, sizeof(T), pe);           \
    }                                                                                        \
    T shmem_##N##_g(const T *source, int pe)                                                 \
    {                                                                                        \
        T v = 0;                                                                             \
        kumi_shmem_get("shmem_" #N "_g", SHMEM_CTX_DEFAULT, &v, source, 1, sizeof(T), pe);   \
        return v;                                                                            \
    }                                                                                        \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe)                            \
    {                                                                                        \
        T v = 0;                                                                             \
        kumi_shmem_get("shmem_ctx_" #N "_g", ctx, &v, source, 1, sizeof(T), pe);             \
        return v;                                                                            \
    }                                                                                        \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,            \
                          size_t nelems, int pe)                                             \
    {                                                                                        \
        kumi_shmem_strided("shmem_" #N "_iput", SHMEM_CTX_DEFAULT, 1, dest, source, dst,     \
                           sst, nelems, sizeof(T), pe);                                      \
    }                                                                                        \
    void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,      \
                              ptrdiff_t sst, size_t nelems, int pe)                          \
    {                                                                                        \
        kumi_shmem_strided("shmem_ctx_" #N "_iput", ctx, 1, dest, source, dst, sst, nelems,  \
                           sizeof(T), pe);                                                   \
    }                                                                                        \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,            \
                          size_t nelems, int pe)                                             \
    {                                                                                        \
        kumi_shmem_strided("shmem_" #N "_iget", SHMEM_CTX_DEFAULT, 0, dest, source, dst,     \
                           sst, nelems, sizeof(T), pe);                                      \
    }                                                                                        \
    void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,      \
                              ptrdiff_t sst, size_t nelems, int pe)                          \
    {                                                                                        \
        kumi_shmem_strided("shmem_ctx_" #N "_iget", ctx, 0, dest, source, dst, sst, nelems,  \
                           sizeof(T), pe);                                                   \
    }
KUMI_SHMEM_RMA_TYPES(KUMI_SHMEM_DEF_RMA)

/* --------------------------------------------------------------- sized */
#define KUMI_SHMEM_DEF_SIZED(BITS, BYTES)                                                    \
    void shmem_put##BITS(void *dest, const void *source, size_t nelems, int pe)              \
    {                                                                                        \
        kumi_shmem_put("shmem_put" #BITS, SHMEM_CTX_DEFAULT, dest, source, nelems, BYTES,    \
                       pe);                                                                  \
    }                                                                                        \
    void shmem_ctx_put##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                             int pe)                                                         \
    {                                                                                        \
        kumi_shmem_put("shmem_ctx_put" #BITS, ctx, dest, source, nelems, BYTES, pe);         \
    }                                                                                        \
    void shmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe)        \
    {                                                                                        \
        kumi_shmem_put("shmem_put" #BITS "_nbi", SHMEM_CTX_DEFAULT, dest, source, nelems,    \
                       BYTES, pe);                                                           \
    }                                                                                        \
    void shmem_ctx_put##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,          \
                                   size_t nelems, int pe)                                    \
    {                                                                                        \
        kumi_shmem_put("shmem_ctx_put" #BITS "_nbi", ctx, dest, source, nelems, BYTES, pe);  \
    }                                                                                        \
    void shmem_get##BITS(void *dest, const void *source, size_t nelems, int pe)              \
    {                                                                                        \
        kumi_shmem_get("shmem_get" #BITS, SHMEM_CTX_DEFAULT, dest, source, nelems, BYTES,    \
                       pe);                                                                  \
    }                                                                                        \
    void shmem_ctx_get##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                             int pe)                                                         \
    {                                                                                        \
        kumi_shmem_get("shmem_ctx_get" #BITS, ctx, dest, source, nelems, BYTES, pe);         \
    }                                                                                        \
    void shmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe)        \
    {                                                                                        \
        kumi_shmem_get("shmem_get" #BITS "_nbi", SHMEM_CTX_DEFAULT, dest, source, nelems,    \
                       BYTES, pe);                                                           \
    }                                                                                        \
    void shmem_ctx_get##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,          \
                                   size_t nelems, int pe)                                    \
    {                                                                                        \
        kumi_shmem_get("shmem_ctx_get" #BITS "_nbi", ctx, dest, source, nelems, BYTES, pe);  \
    }                                                                                        \
    void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,      \
                          size_t nelems, int pe)                                             \
    {                                                                                        \
        kumi_shmem_strided("shmem_iput" #BITS, SHMEM_CTX_DEFAULT, 1, dest, source, dst, sst, \
                           nelems, BYTES, pe);                                               \
    }                                                                                        \
    void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, \
                              ptrdiff_t sst, size_t nelems, int pe)                          \
    {                                                                                        \
        kumi_shmem_strided("shmem_ctx_iput" #BITS, ctx, 1, dest, source, dst, sst, nelems,   \
                           BYTES, pe);                                                       \
    }                                                                                        \
    void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,      \
                          size_t nelems, int pe)                                             \
    {                                                                                        \
        kumi_shmem_strided("shmem_iget" #BITS, SHMEM_CTX_DEFAULT, 0, dest, source, dst, sst, \
                           nelems, BYTES, pe);                                               \
    }                                                                                        \
    void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, \
                              ptrdiff_t sst, size_t nelems, int pe)                          \
    {                                                                                        \
        kumi_shmem_strided("shmem_ctx_iget" #BITS, ctx, 0, dest, source, dst, sst, nelems,   \
                           BYTES, pe);                                                       \
    }
KUMI_SHMEM_SIZES(KUMI_SHMEM_DEF_SIZED)

/* ----------------------------------------------------------------- mem */
void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    kumi_shmem_put("shmem_putmem", SHMEM_CTX_DEFAULT, dest, source, nelems, 1, pe);
}

void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    kumi_shmem_put("shmem_ctx_putmem", ctx, dest, source, nelems, 1, pe);
}

void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
    kumi_shmem_put("shmem_putmem_nbi", SHMEM_CTX_DEFAULT, dest, source, nelems, 1, pe);
}

void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    kumi_shmem_put("shmem_ctx_putmem_nbi", ctx, dest, source, nelems, 1, pe);
}

void shmem_getmem(void *dest, const void *source, size_t nelems, int pe)
{
    kumi_shmem_get("shmem_getmem", SHMEM_CTX_DEFAULT, dest, source, nelems, 1, pe);
}

void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    kumi_shmem_get("shmem_ctx_getmem", ctx, dest, source, nelems, 1, pe);
}

void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
    kumi_shmem_get("shmem_getmem_nbi", SHMEM_CTX_DEFAULT, dest, source, nelems, 1, pe);
}

void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    kumi_shmem_get("shmem_ctx_getmem_nbi", ctx, dest, source, nelems, 1, pe);
}
