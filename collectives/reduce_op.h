/*
 * reduce_op.h -- the reduction kernels: one function per type x op that
 * folds in[0..count) into inout[0..count) element by element,
 * inout[i] = inout[i] OP in[i]. The order of operands is fixed, so a
 * reduction done in a fixed order of contributions gives bit-identical
 * results everywhere.
 *
 * Semantics of the kernels (tests/unit/reduce_op.c checks each rule):
 *   - Integers: SUM and PROD wrap modulo 2^bits (two's complement for the
 *     signed types, computed in unsigned arithmetic: no UB on overflow).
 *     KUMI_INT32 and KUMI_UINT32 share their SUM/PROD/BAND/BOR/BXOR
 *     kernels (likewise the 64-bit types); only MIN/MAX differ.
 *   - Floating point: each element is exactly one IEEE operation,
 *     inout[i] OP in[i], rounded to the type; nothing is reassociated or
 *     contracted. SUM/PROD with a NaN operand give a NaN; when both
 *     operands are NaN, which payload survives is unspecified.
 *   - Float MIN/MAX are IEEE 754-2019 minimum/maximum: a NaN operand
 *     propagates (the inout operand's NaN, bit for bit, when both are NaN,
 *     otherwise the NaN operand unchanged), and -0.0 < +0.0, so
 *     MIN(+0.0, -0.0) = -0.0 and MAX(-0.0, +0.0) = +0.0 in either order.
 *     (C23 fminimum/fmaximum; unlike fmin/fmax, which ignore a NaN.)
 *   - Bitwise ops on KUMI_FLOAT/KUMI_DOUBLE have no kernel (lookup NULL).
 *   - inout == in is allowed (the result is x OP x); any other overlap of
 *     the two ranges is not. Both buffers must be aligned to the element
 *     type. count 0 touches nothing (the pointers may then be NULL).
 *
 * The kernels are plain loops that the compiler vectorizes (also at GCC's
 * -O2 cost model); kumi-micro (bench/micro/) measures them.
 */
#ifndef KUMI_REDUCE_OP_H
#define KUMI_REDUCE_OP_H

#include <stddef.h>

#include "kumi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*kumi_coll_op_fn)(void *inout, const void *in, size_t count);

/* Bytes of one element of type, or 0 for an unknown type. */
size_t kumi_coll_type_size(kumi_type_t type);

/* The kernel for type x op, or NULL when the pair is invalid (unknown type
 * or op, or a bitwise op on float/double). */
kumi_coll_op_fn kumi_coll_op_lookup(kumi_type_t type, kumi_op_t op);

/* "KUMI_DOUBLE", "KUMI_SUM" for messages; "?" for an unknown value. */
const char *kumi_coll_type_name(kumi_type_t type);
const char *kumi_coll_op_name(kumi_op_t op);

#ifdef __cplusplus
}
#endif

#endif /* KUMI_REDUCE_OP_H */
