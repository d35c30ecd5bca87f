/*
 * barrier.c -- kumi_barrier. For now one algorithm: dissemination over
 * kicks (ceil(log2 n) rounds; in round k a member kicks the barrier's epoch
 * into its partner rank+2^k's slot k and waits for its own slot k). Epochs
 * only grow, so a partner already in the next barrier cannot confuse us.
 * Uses only the transport table and the runtime's waits.
 */
#include <stdlib.h>

#include "rt.h"

struct kumi_coll_team {
    uint64_t epoch;
};

static void kumi_coll_team_free(struct kumi_team *team)
{
    free(team->coll);
    team->coll = NULL;
}

static struct kumi_coll_team *kumi_coll_state(struct kumi_team *team)
{
    if (team->coll == NULL) {
        team->coll = calloc(1, sizeof(struct kumi_coll_team));
        kumi_rt_team_coll_free = kumi_coll_team_free;
    }
    return team->coll;
}

int kumi_barrier(kumi_team_t team)
{
    static const char call[] = "kumi_barrier";
    struct kumi_tp        *tp = &kumi_rt.tp;
    struct kumi_coll_team *st;
    volatile uint64_t     *slot;
    uint64_t               epoch;
    int                    rc = kumi_rt_check_state(call);

    if (rc != KUMI_OK)
        return rc;
    if (team == NULL)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "team is NULL");
    if (team->rank < 0)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "PE %d is not a member of the team",
                             kumi_rt.rank);
    st = kumi_coll_state(team);
    if (st == NULL)
        return kumi_rt_error(KUMI_ERR_NOMEM, call, "no memory for barrier state");
    rc = tp->ops->quiet(tp);
    if (rc != KUMI_OK || team->size == 1)
        return rc;

    epoch = ++st->epoch;
    slot  = (volatile uint64_t *)((uint8_t *)tp->local[KUMI_SEG_LLCM] + team->llcm_off);
    for (int k = 0, dist = 1; dist < team->size; k++, dist <<= 1) {
        int partner = team->pes[(team->rank + dist) % team->size];
        rc = tp->ops->kick(tp, partner, team->llcm_off + 8 * (size_t)k, epoch, 8);
        if (rc == KUMI_OK)
            rc = kumi_rt_wait(call, &slot[k], 8, KUMI_CMP_GE, epoch);
        if (rc != KUMI_OK)
            return rc;
    }
    return KUMI_OK;
}
