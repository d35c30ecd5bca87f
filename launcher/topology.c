/* topology.c -- allowed cores, their PUs and caches, from hwloc. */
#include "topology.h"

#include <errno.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kumi.h"

/* Appends the allowed part of every object of one type to t->core_pus.
 * Cores are what we bind to; PUs are the fallback for machines where hwloc
 * reports no Core objects (some VMs and exotic platforms). */
static int kumi_topo_collect(struct kumi_topo *t, hwloc_obj_type_t type,
                             hwloc_const_cpuset_t allowed)
{
    int    n = hwloc_get_nbobjs_by_type(t->topology, type);
    hwloc_obj_t obj = NULL;

    if (n <= 0)
        return KUMI_OK;
    t->core_pus = calloc((size_t)n, sizeof(*t->core_pus));
    if (t->core_pus == NULL)
        return KUMI_ERR_NOMEM;
    while ((obj = hwloc_get_next_obj_by_type(t->topology, type, obj)) != NULL) {
        hwloc_bitmap_t set;

        if (obj->cpuset == NULL || !hwloc_bitmap_intersects(obj->cpuset, allowed))
            continue;
        set = hwloc_bitmap_dup(obj->cpuset);
        if (set == NULL)
            return KUMI_ERR_NOMEM;
        hwloc_bitmap_and(set, set, allowed);
        t->core_pus[t->ncores++] = set;
    }
    return KUMI_OK;
}

/* Walks up from core 0 and records the data caches above it. */
static void kumi_topo_caches(struct kumi_topo *t)
{
    hwloc_obj_t obj, llc = NULL;
    int         first = hwloc_bitmap_first(t->core_pus[0]);

    obj = hwloc_get_pu_obj_by_os_index(t->topology, (unsigned)first);
    for (; obj != NULL; obj = obj->parent) {
        if (!hwloc_obj_type_is_dcache(obj->type) ||
            obj->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION)
            continue;
        switch (obj->type) {
        case HWLOC_OBJ_L1CACHE: t->l1d_bytes = obj->attr->cache.size; break;
        case HWLOC_OBJ_L2CACHE: t->l2_bytes  = obj->attr->cache.size; break;
        case HWLOC_OBJ_L3CACHE: t->l3_bytes  = obj->attr->cache.size; break;
        default: break;
        }
        llc = obj;      /* the walk goes outward, so the last one is the LLC */
    }

    t->llc_cores = 1;
    if (llc == NULL || llc->cpuset == NULL)
        return;
    t->llc_bytes = llc->attr->cache.size;
    t->llc_cores = 0;
    for (unsigned i = 0; i < t->ncores; i++)
        t->llc_cores += hwloc_bitmap_intersects(t->core_pus[i], llc->cpuset) != 0;
    if (t->llc_cores == 0)
        t->llc_cores = 1;
}

int kumi_topo_load(struct kumi_topo *t)
{
    hwloc_const_cpuset_t allowed;
    int                  rc = KUMI_ERR_TRANSPORT;

    memset(t, 0, sizeof(*t));
    if (hwloc_topology_init(&t->topology) != 0) {
        t->topology = NULL;
        return KUMI_ERR_TRANSPORT;
    }
    if (hwloc_topology_load(t->topology) != 0)
        goto err;

    /* hwloc 2 already drops what our cpuset forbids, unless told otherwise
     * (HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED, or HWLOC_* environment
     * variables a user may set); intersecting again keeps us honest. */
    allowed = hwloc_topology_get_allowed_cpuset(t->topology);
    if (allowed == NULL || hwloc_bitmap_iszero(allowed))
        goto err;
    t->npus = (unsigned)hwloc_get_nbobjs_inside_cpuset_by_type(t->topology, allowed,
                                                                 HWLOC_OBJ_PU);
    rc = kumi_topo_collect(t, HWLOC_OBJ_CORE, allowed);
    if (rc == KUMI_OK && t->ncores == 0) {
        free(t->core_pus);
        t->core_pus = NULL;
        rc = kumi_topo_collect(t, HWLOC_OBJ_PU, allowed);
    }
    if (rc != KUMI_OK || t->ncores == 0) {
        rc = rc != KUMI_OK ? rc : KUMI_ERR_TRANSPORT;
        goto err;
    }
    if (t->npus < t->ncores)
        t->npus = t->ncores;
    kumi_topo_caches(t);
    return KUMI_OK;

err:
    kumi_topo_free(t);
    return rc;
}

void kumi_topo_free(struct kumi_topo *t)
{
    if (t->core_pus != NULL) {
        for (unsigned i = 0; i < t->ncores; i++)
            hwloc_bitmap_free(t->core_pus[i]);
        free(t->core_pus);
    }
    if (t->topology != NULL)
        hwloc_topology_destroy(t->topology);
    memset(t, 0, sizeof(*t));
}

int kumi_topo_bind_core(const struct kumi_topo *t, unsigned index)
{
    if (t->ncores == 0) {
        errno = EINVAL;
        return KUMI_ERR_TRANSPORT;
    }
    /* PROCESS, not THREAD: a PE that already runs helper threads (it does
     * not, before exec, but the call may later be made from kumi_init)
     * must have all of them on its core. */
    if (hwloc_set_cpubind(t->topology, t->core_pus[index % t->ncores],
                          HWLOC_CPUBIND_PROCESS) != 0)
        return KUMI_ERR_TRANSPORT;
    return KUMI_OK;
}

char *kumi_topo_describe_core(const struct kumi_topo *t, unsigned index, char *buf,
                              size_t len)
{
    char pus[128];

    if (t->ncores == 0) {
        snprintf(buf, len, "no core");
        return buf;
    }
    index %= t->ncores;
    if (hwloc_bitmap_list_snprintf(pus, sizeof(pus), t->core_pus[index]) < 0)
        snprintf(pus, sizeof(pus), "?");
    snprintf(buf, len, "core %u (PUs %s)", index, pus);
    return buf;
}
