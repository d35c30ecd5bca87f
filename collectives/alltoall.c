/* alltoall.c -- placeholder, being written */
#include "rt.h"
#include "reduce_op.h"
int kumi_alltoall(kumi_team_t team, void *dst, const void *src, size_t n_each)
{ (void)team; (void)dst; (void)src; (void)n_each; return KUMI_ERR_UNSUPPORTED; }
