/* reduce.c -- placeholder, being written */
#include "rt.h"
#include "reduce_op.h"
int kumi_allreduce(kumi_team_t team, void *dst, const void *src, size_t count, kumi_type_t type, kumi_op_t op)
{ (void)team; (void)dst; (void)src; (void)count; (void)type; (void)op; return KUMI_ERR_UNSUPPORTED; }
int kumi_reduce(kumi_team_t team, void *dst, const void *src, size_t count, kumi_type_t type, kumi_op_t op, int root)
{ (void)team; (void)dst; (void)src; (void)count; (void)type; (void)op; (void)root; return KUMI_ERR_UNSUPPORTED; }
