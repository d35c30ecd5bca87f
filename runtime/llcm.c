/* llcm.c -- LLCM allocation and the AOTF kick (api.md "AOTF/LLCM"). */
#include <string.h>

#include "rt.h"

size_t kumi_rt_llcm_reserve(size_t size, size_t align)
{
    size_t off = (kumi_rt.llcm_next + align - 1) & ~(align - 1);

    if (off > kumi_rt.tp.seg_size[KUMI_SEG_LLCM] || size > kumi_rt.tp.seg_size[KUMI_SEG_LLCM] - off)
        return (size_t)-1;
    kumi_rt.llcm_next = off + size;
    return off;
}

size_t kumi_llcm_alloc(size_t size)
{
    static const char call[] = "kumi_llcm_alloc";
    size_t   align = 8, off;
    uint64_t lo, hi;

    if (kumi_rt_check_state(call) != KUMI_OK)
        return (size_t)-1;
    while (align < size && align < 64)
        align *= 2;
    /* LLCM is never freed, so fresh space is still zero from the segment */
    off = kumi_rt_llcm_reserve(size == 0 ? 1 : size, align);
    if (kumi_rt_agree(call, off, &lo, &hi) != KUMI_OK)
        return (size_t)-1;
    if (lo != hi) {
        kumi_rt_error(KUMI_ERR_INVALID, call, "PEs got different offsets (%llu..%llu): was "
                      "kumi_llcm_alloc called with the same sizes in the same order on every PE?",
                      (unsigned long long)lo, (unsigned long long)hi);
        return (size_t)-1;
    }
    if (off == (size_t)-1) {
        kumi_rt_error(KUMI_ERR_NOMEM, call, "LLCM full: %zu more bytes do not fit in "
                      "KUMI_LLCM_SIZE=%zu (%zu used)", size, kumi_rt.tp.seg_size[KUMI_SEG_LLCM],
                      kumi_rt.llcm_next);
        return (size_t)-1;
    }
    return off;
}

volatile void *kumi_llcm(size_t offset)
{
    if (kumi_rt.state != 1 || offset >= kumi_rt.tp.seg_size[KUMI_SEG_LLCM])
        return NULL;
    return (volatile uint8_t *)kumi_rt.tp.local[KUMI_SEG_LLCM] + offset;
}

int kumi_kick(int pe, size_t llcm_offset, const void *val, size_t len)
{
    static const char call[] = "kumi_kick";
    uint64_t v = 0;

    if (__builtin_expect(kumi_rt.state != 1, 0))
        return kumi_rt_check_state(call);
    if (__builtin_expect((unsigned)pe >= (unsigned)kumi_rt.size, 0))
        return kumi_rt_error(KUMI_ERR_INVALID, call, "pe %d out of range (size %d)", pe,
                             kumi_rt.size);
    if (__builtin_expect(len == 0 || len > 8 || (len & (len - 1)) != 0, 0))
        return kumi_rt_error(KUMI_ERR_INVALID, call, "length %zu is not 1, 2, 4 or 8", len);
    if (__builtin_expect((llcm_offset & (len - 1)) != 0, 0))
        return kumi_rt_error(KUMI_ERR_INVALID, call, "offset %zu is not aligned to its length %zu",
                             llcm_offset, len);
    if (__builtin_expect(llcm_offset >= kumi_rt.tp.seg_size[KUMI_SEG_LLCM], 0))
        return kumi_rt_error(KUMI_ERR_INVALID, call, "offset %zu is outside the LLCM "
                             "(KUMI_LLCM_SIZE=%zu)", llcm_offset, kumi_rt.tp.seg_size[KUMI_SEG_LLCM]);
    if (__builtin_expect(val == NULL, 0))
        return kumi_rt_error(KUMI_ERR_INVALID, call, "val is NULL");
    switch (len) {   /* constant sizes: no call into libc's memcpy */
    case 1:  memcpy(&v, val, 1); break;
    case 2:  memcpy(&v, val, 2); break;
    case 4:  memcpy(&v, val, 4); break;
    default: memcpy(&v, val, 8); break;
    }
    int rc = kumi_tp_kick(&kumi_rt.tp, pe, llcm_offset, v, len);
    /* a transport that learns of a dead peer when it sends (ucx: the
     * endpoint's error) fails the kick itself: say so, as a wait would */
    return __builtin_expect(rc == KUMI_ERR_PEER, 0) ? kumi_rt_peer_error(call) : rc;
}
