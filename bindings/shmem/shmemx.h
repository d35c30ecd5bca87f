/*
 * shmemx.h -- kumi's extensions to OpenSHMEM (the shmemx_ prefix the
 * specification reserves for them). Include after or instead of shmem.h.
 */
#ifndef KUMI_SHMEMX_H
#define KUMI_SHMEMX_H

#include "shmem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* This header's interfaces: the kumi version that added the last of them. */
#define SHMEMX_KUMI_VERSION 100   /* 0.1.0 */

/* Seconds on a monotonic clock (kumi_wtime): for timing, not dates.
 * HAVE_SHMEMX_WTIME says so to programs that otherwise define their own
 * (the convention of Sandia OpenSHMEM's shmemx.h). */
#define HAVE_SHMEMX_WTIME 1
double shmemx_wtime(void);

/* The node (host) world PE pe runs on, 0..shmemx_node_count()-1, numbered
 * in order of the lowest PE on each; PEs that share memory share a node
 * (SHMEM_TEAM_SHARED is the PEs of this node). -1 for a bad pe or before
 * shmem_init. */
int shmemx_pe_node(int pe);
int shmemx_node_count(void);

/* Symmetric heap bytes per PE in force (SHMEM_SYMMETRIC_SIZE, see
 * bindings/shmem/README.md); 0 before shmem_init. */
size_t shmemx_heap_size(void);

#ifdef __cplusplus
}
#endif
#endif /* KUMI_SHMEMX_H */
