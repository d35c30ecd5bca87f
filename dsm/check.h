/*
 * check.h -- the inline access checks of kumi's DSM, exactly what the
 * translator (kumi-translate) emits before loads and stores that may touch
 * the DSM region, and what hand-written internal code and tests use.
 *
 * Fast paths (Shasta's):
 *   load:  range check; the loaded value compared with the flag pattern
 *          that fills every invalid line; only a match calls
 *          kumi_dsm_load_miss, which looks at the state byte (real data
 *          equal to the flag is a valid line: the miss returns at once)
 *          and runs the protocol if the line is not readable.
 *   store: range check; the line's state byte must be E, else
 *          kumi_dsm_store_miss makes it exclusive first. (The translator
 *          tests the page summary pstate first: 1 = all 64 lines of the
 *          4 KiB page are E, 2 = all S or E, dsm/layout.h.)
 *   poll:  a counter; every KUMI_DSM_POLL_EVERY-th tick serves incoming
 *          requests (the translator puts one at each loop back-edge).
 * An access that crosses a 64-byte line always takes the slow path.
 *
 * DSM accesses are made by the thread that called kumi_init (the runtime
 * serves requests in that thread, so a request can never see half of a
 * store).
 */
#ifndef KUMI_DSM_CHECK_H
#define KUMI_DSM_CHECK_H

#include <stdint.h>
#include <string.h>

#include "kumi.h"
#include "layout.h"   /* struct kumi_dsm_g, line/page geometry, states, flag */

extern struct kumi_dsm_g kumi_dsm_g;

/* Slow paths: make the line(s) of [p, p+w) readable / writable (running
 * the protocol, serving requests meanwhile) and, for loads, return the
 * value now at p (w = 1, 2, 4 or 8). A failure (a dead peer) ends the
 * job with a message naming the PE and the address: translated code has
 * no status to return. */
uint64_t kumi_dsm_load_miss(const void *p, unsigned w);
void     kumi_dsm_store_miss(void *p, unsigned w);
/* memmove(dst, src, n) for translated code when both pointers may be DSM
 * (each may be private at run time): copies through a private buffer, each
 * line valid when its bytes move. Ends the job on a failure, as the misses. */
void     kumi_dsm_memmove(void *dst, const void *src, size_t n);
/* An allocation whose coherence block is sized to it (the power of two >=
 * size, 64..4096 bytes: a row of a grid moves in one miss, not one per
 * 64-byte line), or block-distributed from KUMI_DSM_DIST_MIN bytes as
 * kumi_dsm_malloc; zeroed when zero. For the OpenMP heap (not in kumi.h). */
void    *kumi_dsm_malloc_fit(size_t size, int zero);
/* kumi_dsm_malloc_fit (fit) or kumi_dsm_malloc/calloc (zero) of size bytes
 * holding an object of obj_size bytes that starts at the allocation's start
 * + hdr rounded up to obj_align (the OpenMP heap's header before it): when
 * the allocation is block-distributed, its parts are counted from the
 * object's first block, part k of P its blocks [k*nb/P, (k+1)*nb/P) (part 0
 * also the header's block, the last part the slack after the object), as
 * the static schedule gives thread k the k-th P-th of the object. */
void    *kumi_dsm_malloc_obj(size_t size, size_t hdr, size_t obj_align, size_t obj_size, int fit,
                             int zero);
/* 1 when every line of [lo, hi) is readable now (write: exclusive), or the
 * range lies wholly outside the region; 0 otherwise, also when the range
 * straddles the region's edge. Serves nothing and changes nothing. The
 * translator calls it before a loop whose accesses it has bounded and runs
 * the loop's unchecked copy when all are ready (dsm/translate/README.md,
 * "Loop versions"). */
int      kumi_dsm_ready(uintptr_t lo, uintptr_t hi, int write);

static inline int kumi_dsm_in(const void *p)
{
    return (uintptr_t)p - kumi_dsm_g.base < kumi_dsm_g.size;
}

/* The flag's bytes at p, for a w-byte load. */
static inline uint64_t kumi_dsm_flag_at(const void *p, unsigned w)
{
    uint64_t f = KUMI_DSM_FLAG64 >> (8u * ((uintptr_t)p & 3u));
    return w == 8 ? KUMI_DSM_FLAG64 : f & ((1ull << (8u * w)) - 1u);
}

static inline int kumi_dsm_crosses(const void *p, unsigned w)
{
    return ((uintptr_t)p & (KUMI_DSM_LINE - 1u)) > KUMI_DSM_LINE - w;
}

static inline uint8_t kumi_dsm_state_of(const void *p)
{
    return kumi_dsm_g.state[((uintptr_t)p - kumi_dsm_g.base) >> KUMI_DSM_LINE_SHIFT];
}

#define KUMI_DSM_LD(NAME, T, W)                                                    \
    static inline T NAME(const volatile T *p)                                       \
    {                                                                               \
        T v = *p;                                                                   \
        if (__builtin_expect(kumi_dsm_in((const void *)p), 0)) {                    \
            uint64_t bits = 0;                                                      \
            memcpy(&bits, &v, W);                                                   \
            if (__builtin_expect(bits == kumi_dsm_flag_at((const void *)p, W), 0)   \
                || kumi_dsm_crosses((const void *)p, W)) {                          \
                bits = kumi_dsm_load_miss((const void *)p, W);                      \
                memcpy(&v, &bits, W);                                               \
            }                                                                       \
        }                                                                           \
        return v;                                                                   \
    }
KUMI_DSM_LD(kumi_dsm_ld8, uint8_t, 1)
KUMI_DSM_LD(kumi_dsm_ld16, uint16_t, 2)
KUMI_DSM_LD(kumi_dsm_ld32, uint32_t, 4)
KUMI_DSM_LD(kumi_dsm_ld64, uint64_t, 8)
KUMI_DSM_LD(kumi_dsm_ldd, double, 8)
#undef KUMI_DSM_LD

/* The store check alone (the translator keeps the program's own store). */
static inline void kumi_dsm_check_store(void *p, unsigned w)
{
    if (__builtin_expect(kumi_dsm_in(p), 0)
        && (__builtin_expect(kumi_dsm_state_of(p) != KUMI_DSM_STATE_E, 0)
            || kumi_dsm_crosses(p, w)))
        kumi_dsm_store_miss(p, w);
}

#define KUMI_DSM_ST(NAME, T, W)                                                    \
    static inline void NAME(volatile T *p, T v)                                     \
    {                                                                               \
        kumi_dsm_check_store((void *)p, W);                                         \
        *p = v;                                                                     \
    }
KUMI_DSM_ST(kumi_dsm_st8, uint8_t, 1)
KUMI_DSM_ST(kumi_dsm_st16, uint16_t, 2)
KUMI_DSM_ST(kumi_dsm_st32, uint32_t, 4)
KUMI_DSM_ST(kumi_dsm_st64, uint64_t, 8)
KUMI_DSM_ST(kumi_dsm_std, double, 8)
#undef KUMI_DSM_ST

static inline void kumi_dsm_poll_tick(void)
{
    if (__builtin_expect((++kumi_dsm_g.tick & (KUMI_DSM_POLL_EVERY - 1u)) == 0, 0))
        kumi_dsm_poll();
}

#endif /* KUMI_DSM_CHECK_H */
