/*
 * topology.h -- what the machine looks like to this process, from hwloc.
 *
 * kumirun uses it to decide whether a job fits the cores it may use and to
 * bind PE i to core i; the runtime will use the cache figures to pick the
 * radix of its collective trees (PEs sharing a last-level cache synchronize
 * cheaply with each other, so they belong under one parent).
 *
 * Everything here counts only what the process is *allowed* to use (its
 * cpuset: taskset, cgroups, a batch scheduler's allocation), not the whole
 * machine: a job that fits the machine but not the allocation is
 * oversubscribed all the same.
 *
 * "Core i" below is the i-th allowed core in hwloc's logical order (0 ..
 * ncores-1), not an OS index; the PUs a core holds are printed with OS
 * indices, the numbers taskset and /proc show.
 */
#ifndef KUMI_TOPOLOGY_H
#define KUMI_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>

/* hwloc's handle types, declared here so that users of this header do not
 * need hwloc.h (they are the structs behind hwloc_topology_t and
 * hwloc_bitmap_t). */
struct hwloc_topology;
struct hwloc_bitmap_s;

struct kumi_topo {
    struct hwloc_topology  *topology;
    struct hwloc_bitmap_s **core_pus;   /* ncores entries: allowed PUs of core i */
    unsigned                ncores;     /* cores with at least one allowed PU    */
    unsigned                npus;       /* allowed PUs (hardware threads)        */

    /* Caches seen from core 0; 0 when hwloc does not know. The last-level
     * cache is the outermost one present (usually L3, else L2). */
    uint64_t                l1d_bytes;
    uint64_t                l2_bytes;
    uint64_t                l3_bytes;
    uint64_t                llc_bytes;
    unsigned                llc_cores;  /* allowed cores sharing that cache (>= 1) */
};

/* Discovers the topology. Returns KUMI_OK, or KUMI_ERR_TRANSPORT (hwloc
 * failed; t is then zeroed and needs no kumi_topo_free). */
int kumi_topo_load(struct kumi_topo *t);

/* Releases what kumi_topo_load allocated; t may be zeroed. */
void kumi_topo_free(struct kumi_topo *t);

/* Binds the calling process (all its threads) to the PUs of core
 * index % ncores. Returns KUMI_OK, or KUMI_ERR_TRANSPORT with errno set.
 * Safe in a child after fork of a single-threaded parent: the topology the
 * parent loaded is a private copy there. */
int kumi_topo_bind_core(const struct kumi_topo *t, unsigned index);

/* "core 3 (PUs 3,7)" for core index % ncores into buf; returns buf. */
char *kumi_topo_describe_core(const struct kumi_topo *t, unsigned index, char *buf,
                              size_t len);

#endif /* KUMI_TOPOLOGY_H */
