/*
 * reduce_op.h -- the reduction kernels: one function per type x op that
 * folds in[0..count) into inout[0..count) element by element,
 * inout[i] = inout[i] OP in[i]. The order of operands is fixed, so a
 * reduction done in a fixed order of contributions gives bit-identical
 * results everywhere.
 */
#ifndef KUMI_REDUCE_OP_H
#define KUMI_REDUCE_OP_H

#include <stddef.h>

#include "kumi.h"

typedef void (*kumi_coll_op_fn)(void *inout, const void *in, size_t count);

/* Bytes of one element of type, or 0 for an unknown type. */
size_t kumi_coll_type_size(kumi_type_t type);

/* The kernel for type x op, or NULL when the pair is invalid (unknown type
 * or op, or a bitwise op on float/double). */
kumi_coll_op_fn kumi_coll_op_lookup(kumi_type_t type, kumi_op_t op);

/* "KUMI_DOUBLE", "KUMI_SUM" for messages. */
const char *kumi_coll_type_name(kumi_type_t type);
const char *kumi_coll_op_name(kumi_op_t op);

#endif /* KUMI_REDUCE_OP_H */
