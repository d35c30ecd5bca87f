/* bcast.c -- placeholder, being written */
#include "rt.h"
#include "reduce_op.h"
int kumi_broadcast(kumi_team_t team, void *buf, size_t n, int root)
{ (void)team; (void)buf; (void)n; (void)root; return KUMI_ERR_UNSUPPORTED; }
int kumi_allgather(kumi_team_t team, void *dst, const void *src, size_t n_each)
{ (void)team; (void)dst; (void)src; (void)n_each; return KUMI_ERR_UNSUPPORTED; }
