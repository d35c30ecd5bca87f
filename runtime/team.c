/* team.c -- the runtime's side of teams: the world team, team slots (LLCM
 * areas) and heap scratch areas (both reserved at init, see rt.h), and the
 * accessors. Making and destroying teams and agreeing on an area are
 * collective, so they live in collectives/team.c. */
#include <stdlib.h>
#include <string.h>

#include "rt.h"

void (*kumi_rt_team_coll_free)(struct kumi_team *team);

void kumi_rt_team_bind_slot(struct kumi_team *team, int slot)
{
    team->slot        = slot;
    team->llcm_off    = kumi_rt.llcm_teams_off + (size_t)slot * KUMI_TEAM_LLCM_BYTES;
    team->scratch     = -1;
    team->scratch_off = 0;
    kumi_rt.team_slots_used[slot / 64] |= 1ull << (slot % 64);
    team->coll = NULL;
}

void kumi_rt_team_bind_scratch(struct kumi_team *team, int area)
{
    team->scratch     = area;
    team->scratch_off = kumi_rt.scratch_off + (size_t)area * kumi_rt.cfg.coll_scratch;
    kumi_rt.scratch_used[area / 64] |= 1ull << (area % 64);
}

void kumi_rt_team_release_slot(struct kumi_team *team)
{
    if (team->coll != NULL && kumi_rt_team_coll_free != NULL)
        kumi_rt_team_coll_free(team);
    if (team->slot >= 0)
        kumi_rt.team_slots_used[team->slot / 64] &= ~(1ull << (team->slot % 64));
    if (team->scratch >= 0)
        kumi_rt.scratch_used[team->scratch / 64] &= ~(1ull << (team->scratch % 64));
    team->slot    = -1;
    team->scratch = -1;
}

size_t kumi_rt_team_scratch_bytes(void)
{
    return (size_t)kumi_rt.cfg.coll_scratch_areas * (size_t)kumi_rt.cfg.coll_scratch;
}

int kumi_rt_team_world_init(void)
{
    struct kumi_team *w = &kumi_rt.world;
    size_t            llcm = kumi_rt.tp.seg_size[KUMI_SEG_LLCM];

    /* The rule: a quarter of the LLCM at most goes to team areas of 4 KiB,
     * so KUMI_LLCM_SIZE / 16 KiB teams (world included) exist at once, at
     * most KUMI_TEAM_MAX: 16 with the default 256k, 128 from 2m up;
     * programs keep more than half of the LLCM. */
    kumi_rt.team_slots = (int)(llcm / 4 / KUMI_TEAM_LLCM_BYTES);
    if (kumi_rt.team_slots > KUMI_TEAM_MAX)
        kumi_rt.team_slots = KUMI_TEAM_MAX;
    kumi_rt.llcm_teams_off = kumi_rt_llcm_reserve((size_t)kumi_rt.team_slots
                                                  * KUMI_TEAM_LLCM_BYTES, 64);
    if (kumi_rt.team_slots < 1 || kumi_rt.llcm_teams_off == (size_t)-1)
        return kumi_rt_error(KUMI_ERR_NOMEM, "kumi_init", "KUMI_LLCM_SIZE too small for the "
                             "team areas");
    memset(kumi_rt.team_slots_used, 0, sizeof(kumi_rt.team_slots_used));
    memset(kumi_rt.scratch_used, 0, sizeof(kumi_rt.scratch_used));
    /* The scratch pool before any team is bound: areas point into it. It
     * is address space: pages are committed where a team first uses them
     * (teams take the lowest free area, so areas are reused). */
    kumi_rt.scratch_areas = (int)kumi_rt.cfg.coll_scratch_areas;
    int rc = kumi_rt_heap_scratch_init(kumi_rt_team_scratch_bytes());
    if (rc != KUMI_OK)
        return rc;
    w->pes = malloc((size_t)kumi_rt.size * sizeof(int));
    if (w->pes == NULL)
        return kumi_rt_error(KUMI_ERR_NOMEM, "kumi_init", "no memory for the world team");
    for (int i = 0; i < kumi_rt.size; i++)
        w->pes[i] = i;
    w->rank = kumi_rt.rank;
    w->size = kumi_rt.size;
    kumi_rt_team_bind_slot(w, 0);
    kumi_rt_team_bind_scratch(w, 0);
    return KUMI_OK;
}

void kumi_rt_team_world_fini(void)
{
    kumi_rt_team_release_slot(&kumi_rt.world);
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

int kumi_rt_check_team(const char *call, const struct kumi_team *team)
{
    int rc = kumi_rt_check_state(call);

    if (rc != KUMI_OK)
        return rc;
    if (team == NULL)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "team is NULL");
    if (team->rank < 0)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "PE %d is not a member of the team",
                             kumi_rt.rank);
    return KUMI_OK;
}
