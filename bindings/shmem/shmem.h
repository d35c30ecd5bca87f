/*
 * shmem.h -- OpenSHMEM 1.5 on kumi.
 *
 * Build programs with build/bin/oshcc (or `pkg-config --cflags --libs
 * kumi-shmem`, CMake `kumi::shmem`) and run them with oshrun. See
 * bindings/shmem/README.md for what is implementation-defined here.
 *
 * The typed families (shmem_TYPENAME_put, shmem_TYPENAME_atomic_fetch_add,
 * shmem_TYPENAME_sum_reduce, ...) are declared from the type tables below,
 * one X-macro list per type class of the specification; the library
 * defines them from the same lists, so declaration and definition cannot
 * drift apart. Each list entry is X(TYPE, TYPENAME).
 */
#ifndef KUMI_SHMEM_H
#define KUMI_SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ type tables */

/* Standard RMA types (RMA, broadcast, collect, alltoall). */
#define KUMI_SHMEM_RMA_TYPES(X)                                                          \
    X(float, float) X(double, double) X(long double, longdouble) X(char, char)           \
    X(signed char, schar) X(short, short) X(int, int) X(long, long)                     \
    X(long long, longlong) X(unsigned char, uchar) X(unsigned short, ushort)             \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)       \
    X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) X(int64_t, int64)               \
    X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64)       \
    X(size_t, size) X(ptrdiff_t, ptrdiff)

/* Standard AMO types (inc, add, compare_swap and their fetching forms). */
#define KUMI_SHMEM_AMO_STD_TYPES(X)                                                      \
    X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint)               \
    X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32)           \
    X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)            \
    X(ptrdiff_t, ptrdiff)

/* Extended AMO types (fetch, set, swap): the standard ones plus float and double. */
#define KUMI_SHMEM_AMO_EXT_TYPES(X) X(float, float) X(double, double) KUMI_SHMEM_AMO_STD_TYPES(X)

/* Bitwise AMO types (and, or, xor and their fetching forms). */
#define KUMI_SHMEM_AMO_BIT_TYPES(X)                                                      \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)       \
    X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)

/* Point-to-point synchronization types (wait_until, test and their forms). */
#define KUMI_SHMEM_SYNC_TYPES(X)                                                         \
    X(short, short) X(int, int) X(long, long) X(long long, longlong)                     \
    X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)              \
    X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64)                 \
    X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)

/* Reduction types, by operation class (team-based shmem_TYPENAME_OP_reduce). */
#define KUMI_SHMEM_REDUCE_BIT_TYPES(X)                                                   \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)              \
    X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8)             \
    X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8)             \
    X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)

#define KUMI_SHMEM_REDUCE_MINMAX_TYPES(X)                                                \
    X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)        \
    X(long long, longlong) X(ptrdiff_t, ptrdiff) X(unsigned char, uchar)                 \
    X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)              \
    X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) \
    X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32)          \
    X(uint64_t, uint64) X(size_t, size) X(float, float) X(double, double)                \
    X(long double, longdouble)

#define KUMI_SHMEM_REDUCE_ARITH_TYPES(X)                                                 \
    KUMI_SHMEM_REDUCE_MINMAX_TYPES(X) X(double _Complex, complexd)                       \
    X(float _Complex, complexf)

/* Deprecated active-set reductions (shmem_TYPENAME_OP_to_all). */
#define KUMI_SHMEM_TO_ALL_BIT_TYPES(X)                                                   \
    X(short, short) X(int, int) X(long, long) X(long long, longlong)
#define KUMI_SHMEM_TO_ALL_MINMAX_TYPES(X)                                                \
    KUMI_SHMEM_TO_ALL_BIT_TYPES(X) X(float, float) X(double, double)                     \
    X(long double, longdouble)
#define KUMI_SHMEM_TO_ALL_ARITH_TYPES(X)                                                 \
    KUMI_SHMEM_TO_ALL_MINMAX_TYPES(X) X(double _Complex, complexd)                       \
    X(float _Complex, complexf)

/* Sized RMA (shmem_put8 ... shmem_put128): X(BITS, BYTES). */
#define KUMI_SHMEM_SIZES(X) X(8, 1) X(16, 2) X(32, 4) X(64, 8) X(128, 16)

/* --- setup, memory, RMA, signals, contexts, ordering (shmem-core) begin --- */
/* --- setup, memory, RMA, signals, contexts, ordering (shmem-core) end --- */

/* --- atomics, point-to-point synchronization, locks (shmem-amo) begin --- */
/* --- atomics, point-to-point synchronization, locks (shmem-amo) end --- */

/* --- teams and collectives (shmem-coll) begin --- */
/* --- teams and collectives (shmem-coll) end --- */

/* --- deprecated interfaces (shmem-core) begin --- */
/* --- deprecated interfaces (shmem-core) end --- */

#ifdef __cplusplus
}
#endif

/* C11 generic interfaces: each section above defines its own, under
 * #if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L */

#endif /* KUMI_SHMEM_H */
