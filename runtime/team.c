/* team.c -- teams (api.md "Teams"). This issue has the world team; strided
 * and arbitrary teams come with the collectives layer. */
#include <stdlib.h>

#include "rt.h"

void (*kumi_rt_team_coll_free)(struct kumi_team *team);

int kumi_rt_team_world_init(void)
{
    struct kumi_team *w = &kumi_rt.world;

    w->pes = malloc((size_t)kumi_rt.size * sizeof(int));
    if (w->pes == NULL)
        return kumi_rt_error(KUMI_ERR_NOMEM, "kumi_init", "no memory for the world team");
    for (int i = 0; i < kumi_rt.size; i++)
        w->pes[i] = i;
    w->rank     = kumi_rt.rank;
    w->size     = kumi_rt.size;
    w->coll     = NULL;
    w->llcm_off = kumi_rt_llcm_reserve(KUMI_TEAM_LLCM_BYTES, 64);
    if (w->llcm_off == (size_t)-1)
        return kumi_rt_error(KUMI_ERR_NOMEM, "kumi_init", "KUMI_LLCM_SIZE too small for the "
                             "world team");
    return KUMI_OK;
}

void kumi_rt_team_world_fini(void)
{
    if (kumi_rt.world.coll != NULL && kumi_rt_team_coll_free != NULL)
        kumi_rt_team_coll_free(&kumi_rt.world);
    free(kumi_rt.world.pes);
    kumi_rt.world.pes = NULL;
}

kumi_team_t kumi_team_world(void)
{
    return kumi_rt.state == 1 ? &kumi_rt.world : NULL;
}

int kumi_team_rank(kumi_team_t t)
{
    return t != NULL ? t->rank : -1;
}

int kumi_team_size(kumi_team_t t)
{
    return t != NULL ? t->size : 0;
}

int kumi_team_pe(kumi_team_t t, int r)
{
    return t != NULL && r >= 0 && r < t->size ? t->pes[r] : -1;
}

int kumi_team_split_strided(kumi_team_t parent, int start, int stride, int size, kumi_team_t *out)
{ (void)parent; (void)start; (void)stride; (void)size; (void)out; return KUMI_ERR_UNSUPPORTED; }
int kumi_team_create(kumi_team_t parent, const int *pes, int n, kumi_team_t *out)
{ (void)parent; (void)pes; (void)n; (void)out; return KUMI_ERR_UNSUPPORTED; }
int kumi_team_destroy(kumi_team_t t) { (void)t; return KUMI_ERR_UNSUPPORTED; }
