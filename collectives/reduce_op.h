/*
 * reduce_op.h -- the reduction kernels: one function per type x op that
 * folds in[0..count) into inout[0..count) element by element,
 * inout[i] = inout[i] OP in[i]. The order of operands is fixed, so a
 * reduction done in a fixed order of contributions gives bit-identical
 * results everywhere.
 *
 * Semantics of the kernels (tests/unit/reduce_op.c checks each rule):
 *   - Integers (8, 16, 32 and 64 bits): SUM and PROD wrap modulo 2^bits
 *     (two's complement for the signed types, computed in unsigned
 *     arithmetic: no UB on overflow). A signed type and its unsigned twin
 *     share their SUM/PROD/BAND/BOR/BXOR kernels; only MIN/MAX differ.
 *   - Floating point: each element is exactly one IEEE operation,
 *     inout[i] OP in[i], rounded to the type; nothing is reassociated or
 *     contracted. SUM/PROD with a NaN operand give a NaN; when both
 *     operands are NaN, which payload survives is unspecified.
 *   - Float MIN/MAX are IEEE 754-2019 minimum/maximum: a NaN operand
 *     propagates (the inout operand's NaN, bit for bit, when both are NaN,
 *     otherwise the NaN operand unchanged), and -0.0 < +0.0, so
 *     MIN(+0.0, -0.0) = -0.0 and MAX(-0.0, +0.0) = +0.0 in either order.
 *     (C23 fminimum/fmaximum; unlike fmin/fmax, which ignore a NaN.)
 *     KUMI_LONG_DOUBLE follows the same rules as float and double, in
 *     long double (x86-64: 80-bit extended in a 16-byte slot). Only the
 *     value bytes (KUMI_COLL_LDBL_BYTES) are read as the operand; the
 *     result slot gets the value bytes and then zeros, whatever padding the
 *     operands carried, so results are the same bytes on every member.
 *   - KUMI_FLOAT_COMPLEX/KUMI_DOUBLE_COMPLEX: SUM adds the real and the
 *     imaginary parts (one IEEE addition each); PROD is C's complex
 *     multiplication (x * y on the _Complex type, Annex G: an infinite
 *     operand gives an infinite product even where the textbook formula
 *     gives NaN). No MIN/MAX (complex numbers are not ordered).
 *   - Bitwise ops exist for the integer types only (lookup NULL otherwise).
 *   - inout == in is allowed (the result is x OP x); any other overlap of
 *     the two ranges is not. Both buffers must be aligned to the element
 *     type (long double: any alignment). count 0 touches nothing (the
 *     pointers may then be NULL).
 *
 * The kernels are plain loops that the compiler vectorizes (also at GCC's
 * -O2 cost model); kumi-micro (bench/micro/) measures them.
 */
#ifndef KUMI_REDUCE_OP_H
#define KUMI_REDUCE_OP_H

#include <float.h>
#include <stddef.h>

#include "kumi.h"

/* Bytes of a long double that hold its value: x87 extended precision
 * (64-bit mantissa) uses 10 of its 16, IEEE quad and double-double all. */
#if LDBL_MANT_DIG == 64
#define KUMI_COLL_LDBL_BYTES 10
#else
#define KUMI_COLL_LDBL_BYTES sizeof(long double)
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*kumi_coll_op_fn)(void *inout, const void *in, size_t count);

/* Bytes of one element of type, or 0 for an unknown type. */
size_t kumi_coll_type_size(kumi_type_t type);

/* The kernel for type x op, or NULL when the pair is invalid (unknown type
 * or op, a bitwise op on a floating type, MIN/MAX on a complex one). */
kumi_coll_op_fn kumi_coll_op_lookup(kumi_type_t type, kumi_op_t op);

/* Gives count elements of type in buf the bytes a kernel would write for
 * their values: zeroes long double padding (no-op for other types). For
 * results that no kernel wrote (a team of one copies src). */
void kumi_coll_type_canon(kumi_type_t type, void *buf, size_t count);

/* "KUMI_DOUBLE", "KUMI_SUM" for messages; "?" for an unknown value. */
const char *kumi_coll_type_name(kumi_type_t type);
const char *kumi_coll_op_name(kumi_op_t op);

#ifdef __cplusplus
}
#endif

#endif /* KUMI_REDUCE_OP_H */
