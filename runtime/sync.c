/*
 * sync.c -- the runtime's own "agree" collective: a gather of one value per
 * PE to PE 0 and a release carrying the minimum and maximum back, all by
 * kicks into LLCM. kumi_init, kumi_malloc/free, kumi_llcm_alloc and
 * kumi_finalize use it; they cannot depend on collectives/ above. It is
 * O(PEs) at the root, which is fine for allocation and start-up; the
 * collectives layer has the fast barriers.
 *
 * Each PE contributes KUMI_RT_AGREE_N values; the release carries the
 * minimum and maximum of each. LLCM layout at llcm_sync_off (same on every
 * PE):
 *   release: { min[N], max[N], epoch }  (padded to 64)
 *   slots:   size x { value[N], arrival }  (used at PE 0 only)
 */
#include "rt.h"

#define KUMI_SYNC_RELEASE_BYTES 64

struct kumi_rt_sync_slot {
    uint64_t value[KUMI_RT_AGREE_N]; /* contribution, kicked before arrival */
    uint64_t arrival;                /* epoch, kicked after the values      */
};

struct kumi_rt_release {
    uint64_t min[KUMI_RT_AGREE_N], max[KUMI_RT_AGREE_N], epoch;
};
_Static_assert(sizeof(struct kumi_rt_release) <= KUMI_SYNC_RELEASE_BYTES, "release too big");

int kumi_rt_sync_setup(void)
{
    size_t bytes = KUMI_SYNC_RELEASE_BYTES + (size_t)kumi_rt.size * sizeof(struct kumi_rt_sync_slot);
    size_t off   = kumi_rt_llcm_reserve(bytes, 64);

    if (off == (size_t)-1 || bytes > kumi_rt.tp.seg_size[KUMI_SEG_LLCM] / 2)
        return kumi_rt_error(KUMI_ERR_NOMEM, "kumi_init",
                             "KUMI_LLCM_SIZE=%zu is too small for %d PEs (need more than %zu)",
                             kumi_rt.tp.seg_size[KUMI_SEG_LLCM], kumi_rt.size, 2 * bytes);
    kumi_rt.llcm_sync_off = off;
    kumi_rt.sync_epoch    = 0;
    return KUMI_OK;
}

static inline uint8_t *kumi_rt_llcm_local(size_t off)
{
    return (uint8_t *)kumi_rt.tp.local[KUMI_SEG_LLCM] + off;
}

int kumi_rt_agree_n(const char *call, const uint64_t *value, uint64_t *min, uint64_t *max)
{
    struct kumi_tp         *tp    = &kumi_rt.tp;
    const size_t            rel   = kumi_rt.llcm_sync_off;
    const size_t            slots = rel + KUMI_SYNC_RELEASE_BYTES;
    struct kumi_rt_release *mine  = (struct kumi_rt_release *)kumi_rt_llcm_local(rel);
    uint64_t                epoch = ++kumi_rt.sync_epoch;
    uint64_t                lo[KUMI_RT_AGREE_N], hi[KUMI_RT_AGREE_N];
    int                     rc = KUMI_OK;

    for (int i = 0; i < KUMI_RT_AGREE_N; i++)
        lo[i] = hi[i] = value[i];
    if (kumi_rt.rank != 0) {
        size_t slot = slots + (size_t)kumi_rt.rank * sizeof(struct kumi_rt_sync_slot);
        for (int i = 0; i < KUMI_RT_AGREE_N && rc == KUMI_OK; i++)
            rc = kumi_tp_kick(tp, 0, slot + offsetof(struct kumi_rt_sync_slot, value[i]),
                              value[i], 8);
        if (rc == KUMI_OK)   /* kicks arrive in order: the values are there first */
            rc = kumi_tp_kick(tp, 0, slot + offsetof(struct kumi_rt_sync_slot, arrival), epoch, 8);
        if (rc == KUMI_OK)
            rc = kumi_rt_wait(call, &mine->epoch, 8, KUMI_CMP_GE, epoch);
        if (rc != KUMI_OK)
            return rc;
        for (int i = 0; i < KUMI_RT_AGREE_N; i++) {
            lo[i] = mine->min[i];
            hi[i] = mine->max[i];
        }
    } else {
        struct kumi_rt_sync_slot *s = (struct kumi_rt_sync_slot *)kumi_rt_llcm_local(slots);
        for (int pe = 1; pe < kumi_rt.size; pe++) {
            rc = kumi_rt_wait(call, &s[pe].arrival, 8, KUMI_CMP_GE, epoch);
            if (rc != KUMI_OK)
                return rc;
            for (int i = 0; i < KUMI_RT_AGREE_N; i++) {
                uint64_t v = s[pe].value[i];
                lo[i] = v < lo[i] ? v : lo[i];
                hi[i] = v > hi[i] ? v : hi[i];
            }
        }
        for (int pe = 1; pe < kumi_rt.size; pe++) {
            for (int i = 0; i < KUMI_RT_AGREE_N && rc == KUMI_OK; i++) {
                rc = kumi_tp_kick(tp, pe, rel + offsetof(struct kumi_rt_release, min[i]), lo[i], 8);
                if (rc == KUMI_OK)
                    rc = kumi_tp_kick(tp, pe, rel + offsetof(struct kumi_rt_release, max[i]),
                                      hi[i], 8);
            }
            if (rc == KUMI_OK)
                rc = kumi_tp_kick(tp, pe, rel + offsetof(struct kumi_rt_release, epoch), epoch, 8);
            if (rc != KUMI_OK)
                return rc;
        }
    }
    for (int i = 0; i < KUMI_RT_AGREE_N; i++) {
        if (min != NULL)
            min[i] = lo[i];
        if (max != NULL)
            max[i] = hi[i];
    }
    return KUMI_OK;
}

int kumi_rt_agree(const char *call, uint64_t value, uint64_t *min, uint64_t *max)
{
    uint64_t v[KUMI_RT_AGREE_N] = { value }, lo[KUMI_RT_AGREE_N], hi[KUMI_RT_AGREE_N];
    int      rc = kumi_rt_agree_n(call, v, lo, hi);

    if (rc == KUMI_OK && min != NULL)
        *min = lo[0];
    if (rc == KUMI_OK && max != NULL)
        *max = hi[0];
    return rc;
}
