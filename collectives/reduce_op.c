/* reduce_op.c -- placeholder, being written */
#include "rt.h"
#include "reduce_op.h"
size_t kumi_coll_type_size(kumi_type_t type) { (void)type; return 0; }
kumi_coll_op_fn kumi_coll_op_lookup(kumi_type_t type, kumi_op_t op) { (void)type; (void)op; return NULL; }
const char *kumi_coll_type_name(kumi_type_t type) { (void)type; return "?"; }
const char *kumi_coll_op_name(kumi_op_t op) { (void)op; return "?"; }
