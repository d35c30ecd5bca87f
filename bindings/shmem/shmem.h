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

/* ------------------------------------------------------------- constants */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define SHMEM_MAX_NAME_LEN  256
#define SHMEM_VENDOR_STRING "kumi 0.1.0 (OpenSHMEM 1.5)"

/* Thread support levels, in increasing order (shmem_init_thread). */
#define SHMEM_THREAD_SINGLE     0
#define SHMEM_THREAD_FUNNELED   1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE   3

/* Comparisons of wait_until, test and signal_wait_until (kumi's
 * KUMI_CMP_* values, so they pass straight through). */
#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_GE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_LE 5
/* Their type in the headers of the OpenSHMEM reference implementation and
 * of older Sandia OpenSHMEM, which programs and test suites written
 * against those name; the specification passes them as int. */
typedef int shmem_cmp_t;

/* Signal update of shmem_put_signal / shmem_put_signal_nbi. */
#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

/* shmem_ctx_create options (hints: kumi gives every context the strongest
 * guarantees, see bindings/shmem/README.md). */
#define SHMEM_CTX_PRIVATE    (1L << 0)
#define SHMEM_CTX_SERIALIZED (1L << 1)
#define SHMEM_CTX_NOSTORE    (1L << 2)

/* shmem_malloc_with_hints hints. */
#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE  (1L << 1)

/* shmem_team_config_t mask bits. */
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* pSync/pWrk sizes of the deprecated active-set collectives, in longs.
 * Chosen generously; shmem-coll, whose algorithms use them, may raise
 * them (never lower: programs compiled against a larger value stay valid). */
#define SHMEM_SYNC_VALUE              0L
#define SHMEM_BARRIER_SYNC_SIZE       64
#define SHMEM_BCAST_SYNC_SIZE         64
#define SHMEM_REDUCE_SYNC_SIZE        128
#define SHMEM_COLLECT_SYNC_SIZE       128
#define SHMEM_ALLTOALL_SYNC_SIZE      128
#define SHMEM_ALLTOALLS_SYNC_SIZE     128
#define SHMEM_SYNC_SIZE               128  /* the largest of the above */
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 16

/* ----------------------------------------------------------------- handles */
typedef struct kumi_shmem_ctx  *shmem_ctx_t;
typedef struct kumi_shmem_team *shmem_team_t;

typedef struct {
    int num_contexts;
} shmem_team_config_t;

/* The predefined handles are addresses of library objects (constant
 * expressions, comparable with ==, the same on every PE). */
extern struct kumi_shmem_ctx  kumi_shmem_ctx_default;
extern struct kumi_shmem_team kumi_shmem_team_world;
extern struct kumi_shmem_team kumi_shmem_team_shared;
#define SHMEM_CTX_DEFAULT  ((shmem_ctx_t)&kumi_shmem_ctx_default)
#define SHMEM_CTX_INVALID  ((shmem_ctx_t)0)
#define SHMEM_TEAM_WORLD   ((shmem_team_t)&kumi_shmem_team_world)
#define SHMEM_TEAM_SHARED  ((shmem_team_t)&kumi_shmem_team_shared)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)

#if defined(__GNUC__) || defined(__clang__)
#define KUMI_SHMEM_NORETURN __attribute__((__noreturn__))
#else
#define KUMI_SHMEM_NORETURN
#endif

/* ------------------------------------------------------- setup and query */
void  shmem_init(void);
int   shmem_init_thread(int requested, int *provided);
void  shmem_query_thread(int *provided);
void  shmem_finalize(void);
int   shmem_my_pe(void);
int   shmem_n_pes(void);
void  shmem_global_exit(int status) KUMI_SHMEM_NORETURN;
int   shmem_pe_accessible(int pe);
int   shmem_addr_accessible(const void *addr, int pe);
void *shmem_ptr(const void *dest, int pe);
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);
void  shmem_info_get_version(int *major, int *minor);
void  shmem_info_get_name(char *name);
void  shmem_pcontrol(const int level, ...);

/* ------------------------------------------------------------------ memory */
void *shmem_malloc(size_t size);
void *shmem_malloc_with_hints(size_t size, long hints);
void *shmem_calloc(size_t count, size_t size);
void *shmem_align(size_t alignment, size_t size);
void *shmem_realloc(void *ptr, size_t size);
void  shmem_free(void *ptr);

/* ---------------------------------------------------------------- contexts */
int  shmem_ctx_create(long options, shmem_ctx_t *ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);
int  shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);

/* -------------------------------------------------------------------- RMA
 * Every family with and without a context first argument, declared from
 * the tables above (rma.c defines them from the same lists). */
#define KUMI_SHMEM_DECL_RMA(T, N)                                                            \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);                   \
    void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,       \
                             int pe);                                                        \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);                   \
    void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,       \
                             int pe);                                                        \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);               \
    void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,   \
                                 int pe);                                                    \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);               \
    void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,   \
                                 int pe);                                                    \
    void shmem_##N##_p(T *dest, T value, int pe);                                            \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe);                       \
    T    shmem_##N##_g(const T *source, int pe);                                             \
    T    shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe);                        \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,            \
                          size_t nelems, int pe);                                            \
    void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,      \
                              ptrdiff_t sst, size_t nelems, int pe);                         \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,            \
                          size_t nelems, int pe);                                            \
    void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,      \
                              ptrdiff_t sst, size_t nelems, int pe);                         \
    void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, \
                                uint64_t signal, int sig_op, int pe);                        \
    void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source,               \
                                    size_t nelems, uint64_t *sig_addr, uint64_t signal,      \
                                    int sig_op, int pe);                                     \
    void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems,                 \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source,           \
                                        size_t nelems, uint64_t *sig_addr, uint64_t signal,  \
                                        int sig_op, int pe);
KUMI_SHMEM_RMA_TYPES(KUMI_SHMEM_DECL_RMA)
#undef KUMI_SHMEM_DECL_RMA

/* Sized forms: nelems elements of BITS bits (shmem_put64, shmem_iget32, ...). */
#define KUMI_SHMEM_DECL_SIZED(BITS, BYTES)                                                   \
    void shmem_put##BITS(void *dest, const void *source, size_t nelems, int pe);             \
    void shmem_ctx_put##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                             int pe);                                                        \
    void shmem_get##BITS(void *dest, const void *source, size_t nelems, int pe);             \
    void shmem_ctx_get##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                             int pe);                                                        \
    void shmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);       \
    void shmem_ctx_put##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,          \
                                   size_t nelems, int pe);                                   \
    void shmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);       \
    void shmem_ctx_get##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,          \
                                   size_t nelems, int pe);                                   \
    void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,      \
                          size_t nelems, int pe);                                            \
    void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, \
                              ptrdiff_t sst, size_t nelems, int pe);                         \
    void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,      \
                          size_t nelems, int pe);                                            \
    void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, \
                              ptrdiff_t sst, size_t nelems, int pe);                         \
    void shmem_put##BITS##_signal(void *dest, const void *source, size_t nelems,             \
                                  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);  \
    void shmem_ctx_put##BITS##_signal(shmem_ctx_t ctx, void *dest, const void *source,       \
                                      size_t nelems, uint64_t *sig_addr, uint64_t signal,    \
                                      int sig_op, int pe);                                   \
    void shmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems,         \
                                      uint64_t *sig_addr, uint64_t signal, int sig_op,       \
                                      int pe);                                               \
    void shmem_ctx_put##BITS##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,   \
                                          size_t nelems, uint64_t *sig_addr,                 \
                                          uint64_t signal, int sig_op, int pe);
KUMI_SHMEM_SIZES(KUMI_SHMEM_DECL_SIZED)
#undef KUMI_SHMEM_DECL_SIZED

/* Bytes (mem forms). */
void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                          int pe);
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                          int pe);
void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                         uint64_t signal, int sig_op, int pe);
void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems,
                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,
                                 size_t nelems, uint64_t *sig_addr, uint64_t signal,
                                 int sig_op, int pe);

/* ----------------------------------------------------------------- signals */
uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ---------------------------------------------------------------- ordering */
void shmem_fence(void);
void shmem_ctx_fence(shmem_ctx_t ctx);
void shmem_quiet(void);
void shmem_ctx_quiet(shmem_ctx_t ctx);

/* --------------------------------------------------------- C11 generic RMA
 * shmem_put(dest, source, nelems, pe) and shmem_put(ctx, dest, source,
 * nelems, pe), ...: the form is chosen by the number of arguments, the
 * type by dest (by source for shmem_g). Fixed-width and size types are
 * typedefs of the C types listed, so they select the same functions. */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define KUMI_SHMEM_GENERIC_TYPES(X)                                                          \
    X(float, float) X(double, double) X(long double, longdouble) X(char, char)               \
    X(signed char, schar) X(short, short) X(int, int) X(long, long) X(long long, longlong)   \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)                  \
    X(unsigned long, ulong) X(unsigned long long, ulonglong)

/* the number of arguments (1..9): picks the form with or without ctx */
#define KUMI_SHMEM_NARGS_(a1, a2, a3, a4, a5, a6, a7, a8, a9, n, ...) n
#define KUMI_SHMEM_NARGS(...) KUMI_SHMEM_NARGS_(__VA_ARGS__, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define KUMI_SHMEM_CAT_(a, b) a##b
#define KUMI_SHMEM_CAT(a, b)  KUMI_SHMEM_CAT_(a, b)
#define KUMI_SHMEM_BY_NARGS(name, ...) \
    KUMI_SHMEM_CAT(name, KUMI_SHMEM_NARGS(__VA_ARGS__))(__VA_ARGS__)

/* associations ", T *: shmem_N_op" and ", T *: shmem_ctx_N_op" */
#define KUMI_SHMEM_G_PUT(T, N)            , T *: shmem_##N##_put
#define KUMI_SHMEM_G_CTX_PUT(T, N)        , T *: shmem_ctx_##N##_put
#define KUMI_SHMEM_G_GET(T, N)            , T *: shmem_##N##_get
#define KUMI_SHMEM_G_CTX_GET(T, N)        , T *: shmem_ctx_##N##_get
#define KUMI_SHMEM_G_PUT_NBI(T, N)        , T *: shmem_##N##_put_nbi
#define KUMI_SHMEM_G_CTX_PUT_NBI(T, N)    , T *: shmem_ctx_##N##_put_nbi
#define KUMI_SHMEM_G_GET_NBI(T, N)        , T *: shmem_##N##_get_nbi
#define KUMI_SHMEM_G_CTX_GET_NBI(T, N)    , T *: shmem_ctx_##N##_get_nbi
#define KUMI_SHMEM_G_P(T, N)              , T *: shmem_##N##_p
#define KUMI_SHMEM_G_CTX_P(T, N)          , T *: shmem_ctx_##N##_p
#define KUMI_SHMEM_G_G(T, N)              , T *: shmem_##N##_g, const T *: shmem_##N##_g
#define KUMI_SHMEM_G_CTX_G(T, N)          , T *: shmem_ctx_##N##_g, const T *: shmem_ctx_##N##_g
#define KUMI_SHMEM_G_IPUT(T, N)           , T *: shmem_##N##_iput
#define KUMI_SHMEM_G_CTX_IPUT(T, N)       , T *: shmem_ctx_##N##_iput
#define KUMI_SHMEM_G_IGET(T, N)           , T *: shmem_##N##_iget
#define KUMI_SHMEM_G_CTX_IGET(T, N)       , T *: shmem_ctx_##N##_iget
#define KUMI_SHMEM_G_PUT_SIG(T, N)        , T *: shmem_##N##_put_signal
#define KUMI_SHMEM_G_CTX_PUT_SIG(T, N)    , T *: shmem_ctx_##N##_put_signal
#define KUMI_SHMEM_G_PUT_SIG_NBI(T, N)    , T *: shmem_##N##_put_signal_nbi
#define KUMI_SHMEM_G_CTX_PUT_SIG_NBI(T, N), T *: shmem_ctx_##N##_put_signal_nbi
#define KUMI_SHMEM_GENERIC(x, G) _Generic((x) KUMI_SHMEM_GENERIC_TYPES(G))

#define shmem_put(...) KUMI_SHMEM_BY_NARGS(kumi_shmem_put_, __VA_ARGS__)
#define kumi_shmem_put_4(d, s, n, pe) KUMI_SHMEM_GENERIC(d, KUMI_SHMEM_G_PUT)(d, s, n, pe)
#define kumi_shmem_put_5(c, d, s, n, pe) \
    KUMI_SHMEM_GENERIC(d, KUMI_SHMEM_G_CTX_PUT)(c, d, s, n, pe)
#define shmem_get(...) KUMI_SHMEM_BY_NARGS(kumi_shmem_get_, __VA_ARGS__)
#define kumi_shmem_get_4(d, s, n, pe) KUMI_SHMEM_GENERIC(d, KUMI_SHMEM_G_GET)(d, s, n, pe)
#define kumi_shmem_get_5(c, d, s, n, pe) \
    KUMI_SHMEM_GENERIC(d, KUMI_SHMEM_G_CTX_GET)(c, d, s, n, pe)
#define shmem_put_nbi(...) KUMI_SHMEM_BY_NARGS(kumi_shmem_put_nbi_, __VA_ARGS__)
#define kumi_shmem_put_nbi_4(d, s, n, pe) \
    KUMI_SHMEM_GENERIC(d, KUMI_SHMEM_G_PUT_NBI)(d, s, n, pe)
#define kumi_shmem_put_nbi_5(c, d, s, n, pe) \
    KUMI_SHMEM_GENERIC(d, KUMI_SHMEM_G_CTX_PUT_NBI)(c, d, s, n, pe)
#define shmem_get_nbi(...) KUMI_SHMEM_BY_NARGS(kumi_shmem_get_nbi_, __VA_ARGS__)
#define kumi_shmem_get_nbi_4(d, s, n, pe) \
    KUMI_SHMEM_GENERIC(d, KUMI_SHMEM_G_GET_NBI)(d, s, n, pe)
#define kumi_shmem_get_nbi_5(c, d, s, n, pe) \
    KUMI_SHMEM_GENERIC(d, KUMI_SHMEM_G_CTX_GET_NBI)(c, d, s, n, pe)
#define shmem_p(...) KUMI_SHMEM_BY_NARGS(kumi_shmem_p_, __VA_ARGS__)
#define kumi_shmem_p_3(d, v, pe)    KUMI_SHMEM_GENERIC(d, KUMI_SHMEM_G_P)(d, v, pe)
#define kumi_shmem_p_4(c, d, v, pe) KUMI_SHMEM_GENERIC(d, KUMI_SHMEM_G_CTX_P)(c, d, v, pe)
#define shmem_g(...) KUMI_SHMEM_BY_NARGS(kumi_shmem_g_, __VA_ARGS__)
#define kumi_shmem_g_2(s, pe)    KUMI_SHMEM_GENERIC(s, KUMI_SHMEM_G_G)(s, pe)
#define kumi_shmem_g_3(c, s, pe) KUMI_SHMEM_GENERIC(s, KUMI_SHMEM_G_CTX_G)(c, s, pe)
#define shmem_iput(...) KUMI_SHMEM_BY_NARGS(kumi_shmem_iput_, __VA_ARGS__)
#define kumi_shmem_iput_6(d, s, ds, ss, n, pe) \
    KUMI_SHMEM_GENERIC(d, KUMI_SHMEM_G_IPUT)(d, s, ds, ss, n, pe)
#define kumi_shmem_iput_7(c, d, s, ds, ss, n, pe) \
    KUMI_SHMEM_GENERIC(d, KUMI_SHMEM_G_CTX_IPUT)(c, d, s, ds, ss, n, pe)
#define shmem_iget(...) KUMI_SHMEM_BY_NARGS(kumi_shmem_iget_, __VA_ARGS__)
#define kumi_shmem_iget_6(d, s, ds, ss, n, pe) \
    KUMI_SHMEM_GENERIC(d, KUMI_SHMEM_G_IGET)(d, s, ds, ss, n, pe)
#define kumi_shmem_iget_7(c, d, s, ds, ss, n, pe) \
    KUMI_SHMEM_GENERIC(d, KUMI_SHMEM_G_CTX_IGET)(c, d, s, ds, ss, n, pe)
#define shmem_put_signal(...) KUMI_SHMEM_BY_NARGS(kumi_shmem_put_signal_, __VA_ARGS__)
#define kumi_shmem_put_signal_7(d, s, n, sa, sv, so, pe) \
    KUMI_SHMEM_GENERIC(d, KUMI_SHMEM_G_PUT_SIG)(d, s, n, sa, sv, so, pe)
#define kumi_shmem_put_signal_8(c, d, s, n, sa, sv, so, pe) \
    KUMI_SHMEM_GENERIC(d, KUMI_SHMEM_G_CTX_PUT_SIG)(c, d, s, n, sa, sv, so, pe)
#define shmem_put_signal_nbi(...) KUMI_SHMEM_BY_NARGS(kumi_shmem_put_signal_nbi_, __VA_ARGS__)
#define kumi_shmem_put_signal_nbi_7(d, s, n, sa, sv, so, pe) \
    KUMI_SHMEM_GENERIC(d, KUMI_SHMEM_G_PUT_SIG_NBI)(d, s, n, sa, sv, so, pe)
#define kumi_shmem_put_signal_nbi_8(c, d, s, n, sa, sv, so, pe) \
    KUMI_SHMEM_GENERIC(d, KUMI_SHMEM_G_CTX_PUT_SIG_NBI)(c, d, s, n, sa, sv, so, pe)
#endif /* C11 */

/* ------------------------------------------------ type-list macros (compat)
 * Sandia OpenSHMEM's shmem.h has these, and programs and test suites
 * written against it use them: SHMEM_DECLARE_FOR_RMA(M) is M(TYPENAME,
 * TYPE); for every standard RMA type, and so on, from the tables above
 * (SHMEM_DECLARE_FOR_SIZES(M): M(BITS, BYTES);). */
#define KUMI_SHMEM_EXPAND_(...)        __VA_ARGS__
#define KUMI_SHMEM_NAME_TYPE_(T, N)    (N, T);
#define KUMI_SHMEM_BITS_BYTES_(B, Y)   (B, Y);
#define KUMI_SHMEM_FOR_(LIST, M, ORDER) KUMI_SHMEM_EXPAND_(LIST(M ORDER))
#define SHMEM_DECLARE_FOR_RMA(M) \
    KUMI_SHMEM_FOR_(KUMI_SHMEM_RMA_TYPES, M, KUMI_SHMEM_NAME_TYPE_)
#define SHMEM_DECLARE_FOR_AMO(M) \
    KUMI_SHMEM_FOR_(KUMI_SHMEM_AMO_STD_TYPES, M, KUMI_SHMEM_NAME_TYPE_)
#define SHMEM_DECLARE_FOR_EXTENDED_AMO(M) \
    KUMI_SHMEM_FOR_(KUMI_SHMEM_AMO_EXT_TYPES, M, KUMI_SHMEM_NAME_TYPE_)
#define SHMEM_DECLARE_FOR_BITWISE_AMO(M) \
    KUMI_SHMEM_FOR_(KUMI_SHMEM_AMO_BIT_TYPES, M, KUMI_SHMEM_NAME_TYPE_)
#define SHMEM_DECLARE_FOR_SIZES(M) \
    KUMI_SHMEM_FOR_(KUMI_SHMEM_SIZES, M, KUMI_SHMEM_BITS_BYTES_)

/* --- setup, memory, RMA, signals, contexts, ordering (shmem-core) end --- */

/* --- atomics, point-to-point synchronization, locks (shmem-amo) begin --- */

/* ------------------------------------------------------------- atomics
 * Every atomic of the specification for the types it lists, each with its
 * shmem_ctx_ form (the PE is then a rank of the context's team). The
 * non-fetching ones (set, inc, add, and, or, xor) may return before they
 * are done at the target (shmem_quiet completes them); the _nbi fetching
 * ones store the old value into *fetch by the next shmem_quiet (kumi
 * stores it before they return). float and double move as their bit
 * patterns. Declared here from the type tables; atomic.c defines them
 * from the same lists. */

/* Declares shmem_NAME_atomic_OP and shmem_ctx_NAME_atomic_OP: the same
 * parameters, the ctx form with the context first. */
#define KUMI_SHMEM_AMO_DECL(RET, NAME, OP, ...)                                              \
    RET shmem_##NAME##_atomic_##OP(__VA_ARGS__);                                             \
    RET shmem_ctx_##NAME##_atomic_##OP(shmem_ctx_t ctx, __VA_ARGS__);

/* Extended AMO types: fetch, set, swap and their non-blocking forms. */
#define KUMI_SHMEM_AMO_EXT_DECLS(TYPE, NAME)                                                 \
    KUMI_SHMEM_AMO_DECL(TYPE, NAME, fetch, const TYPE *source, int pe)                       \
    KUMI_SHMEM_AMO_DECL(void, NAME, set, TYPE *dest, TYPE value, int pe)                     \
    KUMI_SHMEM_AMO_DECL(TYPE, NAME, swap, TYPE *dest, TYPE value, int pe)                    \
    KUMI_SHMEM_AMO_DECL(void, NAME, fetch_nbi, TYPE *fetch, const TYPE *source, int pe)      \
    KUMI_SHMEM_AMO_DECL(void, NAME, swap_nbi, TYPE *fetch, TYPE *dest, TYPE value, int pe)
KUMI_SHMEM_AMO_EXT_TYPES(KUMI_SHMEM_AMO_EXT_DECLS)

/* Standard AMO types: compare_swap, fetch_inc, inc, fetch_add, add. */
#define KUMI_SHMEM_AMO_STD_DECLS(TYPE, NAME)                                                 \
    KUMI_SHMEM_AMO_DECL(TYPE, NAME, compare_swap, TYPE *dest, TYPE cond, TYPE value,         \
                        int pe)                                                              \
    KUMI_SHMEM_AMO_DECL(TYPE, NAME, fetch_inc, TYPE *dest, int pe)                           \
    KUMI_SHMEM_AMO_DECL(void, NAME, inc, TYPE *dest, int pe)                                 \
    KUMI_SHMEM_AMO_DECL(TYPE, NAME, fetch_add, TYPE *dest, TYPE value, int pe)               \
    KUMI_SHMEM_AMO_DECL(void, NAME, add, TYPE *dest, TYPE value, int pe)                     \
    KUMI_SHMEM_AMO_DECL(void, NAME, compare_swap_nbi, TYPE *fetch, TYPE *dest,               \
                        TYPE cond, TYPE value, int pe)                                       \
    KUMI_SHMEM_AMO_DECL(void, NAME, fetch_inc_nbi, TYPE *fetch, TYPE *dest, int pe)          \
    KUMI_SHMEM_AMO_DECL(void, NAME, fetch_add_nbi, TYPE *fetch, TYPE *dest, TYPE value,      \
                        int pe)
KUMI_SHMEM_AMO_STD_TYPES(KUMI_SHMEM_AMO_STD_DECLS)

/* Bitwise AMO types: and, or, xor and their fetching forms. */
#define KUMI_SHMEM_AMO_BIT_DECLS(TYPE, NAME)                                                 \
    KUMI_SHMEM_AMO_DECL(TYPE, NAME, fetch_and, TYPE *dest, TYPE value, int pe)               \
    KUMI_SHMEM_AMO_DECL(void, NAME, and, TYPE *dest, TYPE value, int pe)                     \
    KUMI_SHMEM_AMO_DECL(TYPE, NAME, fetch_or, TYPE *dest, TYPE value, int pe)                \
    KUMI_SHMEM_AMO_DECL(void, NAME, or, TYPE *dest, TYPE value, int pe)                      \
    KUMI_SHMEM_AMO_DECL(TYPE, NAME, fetch_xor, TYPE *dest, TYPE value, int pe)               \
    KUMI_SHMEM_AMO_DECL(void, NAME, xor, TYPE *dest, TYPE value, int pe)                     \
    KUMI_SHMEM_AMO_DECL(void, NAME, fetch_and_nbi, TYPE *fetch, TYPE *dest, TYPE value,      \
                        int pe)                                                              \
    KUMI_SHMEM_AMO_DECL(void, NAME, fetch_or_nbi, TYPE *fetch, TYPE *dest, TYPE value,       \
                        int pe)                                                              \
    KUMI_SHMEM_AMO_DECL(void, NAME, fetch_xor_nbi, TYPE *fetch, TYPE *dest, TYPE value,      \
                        int pe)
KUMI_SHMEM_AMO_BIT_TYPES(KUMI_SHMEM_AMO_BIT_DECLS)

/* Deprecated atomics (OpenSHMEM 1.4): shmem_TYPENAME_{cswap, fadd, finc,
 * add, inc} for these types, and {swap, fetch, set} also for float and
 * double; each does what its shmem_TYPENAME_atomic_ replacement does. */
#define KUMI_SHMEM_AMO_DEPR_TYPES(X) X(int, int) X(long, long) X(long long, longlong)
#define KUMI_SHMEM_AMO_DEPR_EXT_TYPES(X)                                                     \
    X(float, float) X(double, double) KUMI_SHMEM_AMO_DEPR_TYPES(X)
#define KUMI_SHMEM_AMO_DEPR_DECLS(TYPE, NAME)                                                \
    TYPE shmem_##NAME##_cswap(TYPE *dest, TYPE cond, TYPE value, int pe);                    \
    TYPE shmem_##NAME##_fadd(TYPE *dest, TYPE value, int pe);                                \
    TYPE shmem_##NAME##_finc(TYPE *dest, int pe);                                            \
    void shmem_##NAME##_add(TYPE *dest, TYPE value, int pe);                                 \
    void shmem_##NAME##_inc(TYPE *dest, int pe);
#define KUMI_SHMEM_AMO_DEPR_EXT_DECLS(TYPE, NAME)                                            \
    TYPE shmem_##NAME##_swap(TYPE *dest, TYPE value, int pe);                                \
    TYPE shmem_##NAME##_fetch(const TYPE *source, int pe);                                   \
    void shmem_##NAME##_set(TYPE *dest, TYPE value, int pe);
KUMI_SHMEM_AMO_DEPR_TYPES(KUMI_SHMEM_AMO_DEPR_DECLS)
KUMI_SHMEM_AMO_DEPR_EXT_TYPES(KUMI_SHMEM_AMO_DEPR_EXT_DECLS)
/* The untyped OpenSHMEM 1.2 swap on a long (C11: the generic shmem_swap). */
long shmem_swap(long *dest, long value, int pe);

/* ------------------------------------ point-to-point synchronization
 * Waits on this PE's own symmetric objects, written by other PEs (or by
 * other threads of this PE through OpenSHMEM calls). cmp is one of
 * SHMEM_CMP_EQ, NE, GT, GE, LT, LE; signed types compare signed. status
 * (may be NULL) excludes element i from the set when status[i] != 0. A
 * wait follows kumi's waiting policy (KUMI_WAIT: spin, yield, sleep) and
 * serves the transport; it returns early, with nothing satisfied, only
 * when the job is failing. Empty sets (nelems 0, or every element
 * excluded): wait_until_all and test_all return at once (test_all 1),
 * _any returns SIZE_MAX, _some returns 0. _any and _some start their scan
 * after the element they reported last, so every satisfied element is
 * eventually reported. */
#define KUMI_SHMEM_SYNC_DECLS(TYPE, NAME)                                                    \
    void shmem_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value);                     \
    void shmem_##NAME##_wait_until_all(TYPE *ivars, size_t nelems, const int *status,        \
                                       int cmp, TYPE cmp_value);                             \
    size_t shmem_##NAME##_wait_until_any(TYPE *ivars, size_t nelems, const int *status,      \
                                         int cmp, TYPE cmp_value);                           \
    size_t shmem_##NAME##_wait_until_some(TYPE *ivars, size_t nelems, size_t *indices,       \
                                          const int *status, int cmp, TYPE cmp_value);       \
    void shmem_##NAME##_wait_until_all_vector(TYPE *ivars, size_t nelems,                    \
                                              const int *status, int cmp,                    \
                                              TYPE *cmp_values);                             \
    size_t shmem_##NAME##_wait_until_any_vector(TYPE *ivars, size_t nelems,                  \
                                                const int *status, int cmp,                  \
                                                TYPE *cmp_values);                           \
    size_t shmem_##NAME##_wait_until_some_vector(TYPE *ivars, size_t nelems,                 \
                                                 size_t *indices, const int *status,         \
                                                 int cmp, TYPE *cmp_values);                 \
    int shmem_##NAME##_test(TYPE *ivar, int cmp, TYPE cmp_value);                            \
    int shmem_##NAME##_test_all(TYPE *ivars, size_t nelems, const int *status, int cmp,      \
                                TYPE cmp_value);                                             \
    size_t shmem_##NAME##_test_any(TYPE *ivars, size_t nelems, const int *status,            \
                                   int cmp, TYPE cmp_value);                                 \
    size_t shmem_##NAME##_test_some(TYPE *ivars, size_t nelems, size_t *indices,             \
                                    const int *status, int cmp, TYPE cmp_value);             \
    int shmem_##NAME##_test_all_vector(TYPE *ivars, size_t nelems, const int *status,        \
                                       int cmp, TYPE *cmp_values);                           \
    size_t shmem_##NAME##_test_any_vector(TYPE *ivars, size_t nelems, const int *status,     \
                                          int cmp, TYPE *cmp_values);                        \
    size_t shmem_##NAME##_test_some_vector(TYPE *ivars, size_t nelems, size_t *indices,      \
                                           const int *status, int cmp, TYPE *cmp_values);
KUMI_SHMEM_SYNC_TYPES(KUMI_SHMEM_SYNC_DECLS)

/* Deprecated (OpenSHMEM 1.4): shmem_TYPENAME_wait(ivar, v) is
 * shmem_TYPENAME_wait_until(ivar, SHMEM_CMP_NE, v); shmem_wait and the
 * untyped shmem_wait_until take a long (C11: the generic ones). */
#define KUMI_SHMEM_SYNC_DEPR_TYPES(X)                                                        \
    X(short, short) X(int, int) X(long, long) X(long long, longlong)
#define KUMI_SHMEM_SYNC_DEPR_DECLS(TYPE, NAME)                                               \
    void shmem_##NAME##_wait(TYPE *ivar, TYPE cmp_value);
KUMI_SHMEM_SYNC_DEPR_TYPES(KUMI_SHMEM_SYNC_DEPR_DECLS)
void shmem_wait(long *ivar, long cmp_value);
void shmem_wait_until(long *ivar, int cmp, long cmp_value);

/* --------------------------------------------------------------- locks
 * lock is a symmetric long (heap or static data), zero on every PE before
 * its first use and touched only by these calls. A fair (first come, first
 * served) queue lock between PEs: waiters queue behind the tail kept in
 * PE 0's copy and each spins on its own copy, which its predecessor writes
 * when it hands the lock over. shmem_clear_lock completes this PE's
 * earlier puts and atomics (shmem_quiet) before the next PE gets the lock.
 * shmem_test_lock returns 0 when it took the lock, 1 when the lock was set.
 * The lock is held by a PE; with SHMEM_THREAD_MULTIPLE threads of one PE
 * that use the same lock also take turns (first come, first served). */
void shmem_set_lock(long *lock);
void shmem_clear_lock(long *lock);
int  shmem_test_lock(long *lock);

/* ------------------------------------------------- C11 generic interfaces
 * shmem_atomic_OP(dest, ...) and shmem_atomic_OP(ctx, dest, ...) pick the
 * typed function from the type of dest (after a context, from the second
 * argument); shmem_wait_until, shmem_test and their forms from ivar(s).
 * The lists name each C type once: int32_t, int64_t, uint32_t, uint64_t,
 * size_t and ptrdiff_t are among these types on the LP64 targets kumi runs
 * on (the test amo_generic passes every type of every table). A type no
 * list has is a compile error (too many arguments to
 * kumi_shmem_generic_bad_type). The operation's name travels as _OP (a
 * user's macro named like an operation, or <iso646.h>'s and/or/xor, then
 * cannot touch it). */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define KUMI_SHMEM_AMO_STD_GTYPES(X, P)                                                      \
    X(int, int, P) X(long, long, P) X(long long, longlong, P) X(unsigned int, uint, P)       \
    X(unsigned long, ulong, P) X(unsigned long long, ulonglong, P)
#define KUMI_SHMEM_AMO_EXT_GTYPES(X, P)                                                      \
    X(float, float, P) X(double, double, P) KUMI_SHMEM_AMO_STD_GTYPES(X, P)
#define KUMI_SHMEM_AMO_BIT_GTYPES(X, P)                                                      \
    X(unsigned int, uint, P) X(unsigned long, ulong, P) X(unsigned long long, ulonglong, P)  \
    X(int32_t, int32, P) X(int64_t, int64, P)
#define KUMI_SHMEM_SYNC_GTYPES(X, P)                                                         \
    X(short, short, P) X(unsigned short, ushort, P) KUMI_SHMEM_AMO_STD_GTYPES(X, P)
#define KUMI_SHMEM_AMO_DEPR_GTYPES(X, P)                                                     \
    X(int, int, P) X(long, long, P) X(long long, longlong, P)
#define KUMI_SHMEM_AMO_DEPR_EXT_GTYPES(X, P)                                                 \
    X(float, float, P) X(double, double, P) KUMI_SHMEM_AMO_DEPR_GTYPES(X, P)
#define KUMI_SHMEM_SYNC_DEPR_GTYPES(X, P) X(short, short, P) KUMI_SHMEM_AMO_DEPR_GTYPES(X, P)

void kumi_shmem_generic_bad_type(void);   /* never defined: see above */

/* the first and second of a macro's arguments (at least one given) */
#define KUMI_SHMEM_ARG1(...) KUMI_SHMEM_ARG1_(__VA_ARGS__, 0)
#define KUMI_SHMEM_ARG1_(a, ...) a
#define KUMI_SHMEM_ARG2(...) KUMI_SHMEM_ARG2_(__VA_ARGS__, 0, 0)
#define KUMI_SHMEM_ARG2_(a, b, ...) b

/* generic associations: TYPE * (and const TYPE * where the argument is a
 * source, volatile TYPE * for the waits) to the typed function */
#define KUMI_SHMEM_GA(TYPE, NAME, OP)      TYPE *: shmem_##NAME##_atomic##OP,
#define KUMI_SHMEM_GA_CTX(TYPE, NAME, OP)  TYPE *: shmem_ctx_##NAME##_atomic##OP,
#define KUMI_SHMEM_GA_SRC(TYPE, NAME, OP)                                                    \
    TYPE *: shmem_##NAME##_atomic##OP, const TYPE *: shmem_##NAME##_atomic##OP,
#define KUMI_SHMEM_GA_SRC_CTX(TYPE, NAME, OP)                                                \
    TYPE *: shmem_ctx_##NAME##_atomic##OP, const TYPE *: shmem_ctx_##NAME##_atomic##OP,
#define KUMI_SHMEM_GA_OLD(TYPE, NAME, OP)  TYPE *: shmem_##NAME##OP,
#define KUMI_SHMEM_GA_OLD_SRC(TYPE, NAME, OP)                                                \
    TYPE *: shmem_##NAME##OP, const TYPE *: shmem_##NAME##OP,
#define KUMI_SHMEM_GA_SYNC(TYPE, NAME, OP)                                                   \
    TYPE *: shmem_##NAME##OP, volatile TYPE *: shmem_##NAME##OP,

/* an atomic with or without a context first */
#define KUMI_SHMEM_AMO_GENERIC(LIST, GA, GA_CTX, OP, ...)                                    \
    _Generic(KUMI_SHMEM_ARG1(__VA_ARGS__),                                                   \
             shmem_ctx_t: _Generic(KUMI_SHMEM_ARG2(__VA_ARGS__),                             \
                                   LIST(GA_CTX, OP) default: kumi_shmem_generic_bad_type),   \
             LIST(GA, OP) default: kumi_shmem_generic_bad_type)(__VA_ARGS__)
/* CLASS: STD, EXT or BIT (KUMI_SHMEM_AMO_<CLASS>_GTYPES) */
#define KUMI_SHMEM_AMO_G(CLASS, OP, ...)                                                     \
    KUMI_SHMEM_AMO_GENERIC(KUMI_SHMEM_AMO_##CLASS##_GTYPES, KUMI_SHMEM_GA, KUMI_SHMEM_GA_CTX, \
                           OP, __VA_ARGS__)
/* selected by the first argument only (no context form) */
#define KUMI_SHMEM_GENERIC1(LIST, GA, OP, first)                                             \
    _Generic((first), LIST(GA, OP) default: kumi_shmem_generic_bad_type)

#define shmem_atomic_fetch(...)                                                              \
    KUMI_SHMEM_AMO_GENERIC(KUMI_SHMEM_AMO_EXT_GTYPES, KUMI_SHMEM_GA_SRC,                     \
                           KUMI_SHMEM_GA_SRC_CTX, _fetch, __VA_ARGS__)
#define shmem_atomic_set(...)      KUMI_SHMEM_AMO_G(EXT, _set, __VA_ARGS__)
#define shmem_atomic_swap(...)     KUMI_SHMEM_AMO_G(EXT, _swap, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...)                                                          \
    KUMI_SHMEM_AMO_G(EXT, _fetch_nbi, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...)                                                           \
    KUMI_SHMEM_AMO_G(EXT, _swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap(...)                                                       \
    KUMI_SHMEM_AMO_G(STD, _compare_swap, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...)                                                          \
    KUMI_SHMEM_AMO_G(STD, _fetch_inc, __VA_ARGS__)
#define shmem_atomic_inc(...)      KUMI_SHMEM_AMO_G(STD, _inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...)                                                          \
    KUMI_SHMEM_AMO_G(STD, _fetch_add, __VA_ARGS__)
#define shmem_atomic_add(...)      KUMI_SHMEM_AMO_G(STD, _add, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...)                                                   \
    KUMI_SHMEM_AMO_G(STD, _compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...)                                                      \
    KUMI_SHMEM_AMO_G(STD, _fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...)                                                      \
    KUMI_SHMEM_AMO_G(STD, _fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_and(...)                                                          \
    KUMI_SHMEM_AMO_G(BIT, _fetch_and, __VA_ARGS__)
#define shmem_atomic_and(...)      KUMI_SHMEM_AMO_G(BIT, _and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...)                                                           \
    KUMI_SHMEM_AMO_G(BIT, _fetch_or, __VA_ARGS__)
#define shmem_atomic_or(...)       KUMI_SHMEM_AMO_G(BIT, _or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...)                                                          \
    KUMI_SHMEM_AMO_G(BIT, _fetch_xor, __VA_ARGS__)
#define shmem_atomic_xor(...)      KUMI_SHMEM_AMO_G(BIT, _xor, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...)                                                      \
    KUMI_SHMEM_AMO_G(BIT, _fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...)                                                       \
    KUMI_SHMEM_AMO_G(BIT, _fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...)                                                      \
    KUMI_SHMEM_AMO_G(BIT, _fetch_xor_nbi, __VA_ARGS__)

/* deprecated (OpenSHMEM 1.4). The specification lists int, long and long
 * long (float and double for swap, fetch, set); like the headers of Sandia
 * OpenSHMEM and OSHMPI, each name also takes every type and the context
 * form of its replacement (shmem_cswap is shmem_atomic_compare_swap), so
 * programs written against those build unchanged. The listed types call the
 * deprecated typed functions (their messages name them), the others the
 * replacement's. */
#define KUMI_SHMEM_AMO_DEPR_G(LIST, GA, OP, NEWLIST, NGA, NGA_CTX, NEWOP, ...)                 \
    _Generic(KUMI_SHMEM_ARG1(__VA_ARGS__),                                                   \
             shmem_ctx_t: _Generic(KUMI_SHMEM_ARG2(__VA_ARGS__), NEWLIST(NGA_CTX, NEWOP)     \
                                   default: kumi_shmem_generic_bad_type),                    \
             LIST(GA, OP)                                                                    \
             default: _Generic(KUMI_SHMEM_ARG1(__VA_ARGS__), NEWLIST(NGA, NEWOP)             \
                               default: kumi_shmem_generic_bad_type))(__VA_ARGS__)
#define KUMI_SHMEM_AMO_DEPR_STD(OP, NEWOP, ...)                                              \
    KUMI_SHMEM_AMO_DEPR_G(KUMI_SHMEM_AMO_DEPR_GTYPES, KUMI_SHMEM_GA_OLD, OP,                 \
                          KUMI_SHMEM_AMO_STD_GTYPES, KUMI_SHMEM_GA, KUMI_SHMEM_GA_CTX, NEWOP, \
                          __VA_ARGS__)
#define KUMI_SHMEM_AMO_DEPR_EXT(OP, NEWOP, ...)                                              \
    KUMI_SHMEM_AMO_DEPR_G(KUMI_SHMEM_AMO_DEPR_EXT_GTYPES, KUMI_SHMEM_GA_OLD, OP,             \
                          KUMI_SHMEM_AMO_EXT_GTYPES, KUMI_SHMEM_GA, KUMI_SHMEM_GA_CTX, NEWOP, \
                          __VA_ARGS__)
#define shmem_cswap(...) KUMI_SHMEM_AMO_DEPR_STD(_cswap, _compare_swap, __VA_ARGS__)
#define shmem_fadd(...)  KUMI_SHMEM_AMO_DEPR_STD(_fadd, _fetch_add, __VA_ARGS__)
#define shmem_finc(...)  KUMI_SHMEM_AMO_DEPR_STD(_finc, _fetch_inc, __VA_ARGS__)
#define shmem_add(...)   KUMI_SHMEM_AMO_DEPR_STD(_add, _add, __VA_ARGS__)
#define shmem_inc(...)   KUMI_SHMEM_AMO_DEPR_STD(_inc, _inc, __VA_ARGS__)
#define shmem_swap(...)  KUMI_SHMEM_AMO_DEPR_EXT(_swap, _swap, __VA_ARGS__)
#define shmem_set(...)   KUMI_SHMEM_AMO_DEPR_EXT(_set, _set, __VA_ARGS__)
#define shmem_fetch(...)                                                                     \
    KUMI_SHMEM_AMO_DEPR_G(KUMI_SHMEM_AMO_DEPR_EXT_GTYPES, KUMI_SHMEM_GA_OLD_SRC, _fetch,      \
                          KUMI_SHMEM_AMO_EXT_GTYPES, KUMI_SHMEM_GA_SRC, KUMI_SHMEM_GA_SRC_CTX, \
                          _fetch, __VA_ARGS__)

/* point-to-point synchronization (no context forms), selected by ivar(s) */
#define KUMI_SHMEM_SYNC_G(OP, ...)                                                           \
    KUMI_SHMEM_GENERIC1(KUMI_SHMEM_SYNC_GTYPES, KUMI_SHMEM_GA_SYNC, OP,                      \
                        KUMI_SHMEM_ARG1(__VA_ARGS__))(__VA_ARGS__)
#define shmem_wait_until(...)              KUMI_SHMEM_SYNC_G(_wait_until, __VA_ARGS__)
#define shmem_wait_until_all(...)          KUMI_SHMEM_SYNC_G(_wait_until_all, __VA_ARGS__)
#define shmem_wait_until_any(...)          KUMI_SHMEM_SYNC_G(_wait_until_any, __VA_ARGS__)
#define shmem_wait_until_some(...)         KUMI_SHMEM_SYNC_G(_wait_until_some, __VA_ARGS__)
#define shmem_wait_until_all_vector(...)                                                     \
    KUMI_SHMEM_SYNC_G(_wait_until_all_vector, __VA_ARGS__)
#define shmem_wait_until_any_vector(...)                                                     \
    KUMI_SHMEM_SYNC_G(_wait_until_any_vector, __VA_ARGS__)
#define shmem_wait_until_some_vector(...)                                                    \
    KUMI_SHMEM_SYNC_G(_wait_until_some_vector, __VA_ARGS__)
#define shmem_test(...)                    KUMI_SHMEM_SYNC_G(_test, __VA_ARGS__)
#define shmem_test_all(...)                KUMI_SHMEM_SYNC_G(_test_all, __VA_ARGS__)
#define shmem_test_any(...)                KUMI_SHMEM_SYNC_G(_test_any, __VA_ARGS__)
#define shmem_test_some(...)               KUMI_SHMEM_SYNC_G(_test_some, __VA_ARGS__)
#define shmem_test_all_vector(...)         KUMI_SHMEM_SYNC_G(_test_all_vector, __VA_ARGS__)
#define shmem_test_any_vector(...)         KUMI_SHMEM_SYNC_G(_test_any_vector, __VA_ARGS__)
#define shmem_test_some_vector(...)        KUMI_SHMEM_SYNC_G(_test_some_vector, __VA_ARGS__)
/* deprecated (OpenSHMEM 1.4) */
#define shmem_wait(...)                                                                      \
    KUMI_SHMEM_GENERIC1(KUMI_SHMEM_SYNC_DEPR_GTYPES, KUMI_SHMEM_GA_SYNC, _wait,               \
                        KUMI_SHMEM_ARG1(__VA_ARGS__))(__VA_ARGS__)
#endif /* C11 */

/* --- atomics, point-to-point synchronization, locks (shmem-amo) end --- */

/* --- teams and collectives (shmem-coll) begin --- */

/* ------------------------------------------------------------------- teams
 * shmem_team_t, shmem_team_config_t and the handles SHMEM_TEAM_WORLD,
 * SHMEM_TEAM_SHARED, SHMEM_TEAM_INVALID are declared with the other
 * handles above. */
int  shmem_team_my_pe(shmem_team_t team);
int  shmem_team_n_pes(shmem_team_t team);
int  shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
int  shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int  shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                              const shmem_team_config_t *config, long config_mask,
                              shmem_team_t *new_team);
int  shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                         const shmem_team_config_t *xaxis_config, long xaxis_mask,
                         shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                         long yaxis_mask, shmem_team_t *yaxis_team);
void shmem_team_destroy(shmem_team_t team);
int  shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);

/* ------------------------------------------------------------ collectives
 * Team-based (return 0, or nonzero for an invalid team or arguments), then
 * the deprecated active-set forms (PE_start, logPE_stride, PE_size, pSync),
 * declared from the type tables above (coll.c, reduce.c and active.c
 * define them from the same lists). */
int  shmem_team_sync(shmem_team_t team);
void shmem_sync_all(void);
void shmem_barrier_all(void);
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);

#define KUMI_SHMEM_DECL_COLL(T, N)                                                           \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,    \
                              int PE_root);                                                  \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems);     \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems);    \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems);    \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,    \
                              ptrdiff_t sst, size_t nelems);
KUMI_SHMEM_RMA_TYPES(KUMI_SHMEM_DECL_COLL)
#undef KUMI_SHMEM_DECL_COLL

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root);
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems);

/* Active-set forms: nelems elements of 32 or 64 bits. */
#define KUMI_SHMEM_DECL_ACTIVE(BITS)                                                         \
    void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root,   \
                               int PE_start, int logPE_stride, int PE_size, long *pSync);    \
    void shmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start,    \
                             int logPE_stride, int PE_size, long *pSync);                    \
    void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems, int PE_start,   \
                              int logPE_stride, int PE_size, long *pSync);                   \
    void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start,   \
                              int logPE_stride, int PE_size, long *pSync);                   \
    void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                               size_t nelems, int PE_start, int logPE_stride, int PE_size,   \
                               long *pSync);
KUMI_SHMEM_DECL_ACTIVE(32)
KUMI_SHMEM_DECL_ACTIVE(64)
#undef KUMI_SHMEM_DECL_ACTIVE

/* ------------------------------------------------------------- reductions
 * shmem_TYPENAME_OP_reduce by operation class, and the deprecated
 * shmem_TYPENAME_OP_to_all (pWrk: max(nreduce/2 + 1,
 * SHMEM_REDUCE_MIN_WRKDATA_SIZE) elements; pSync: SHMEM_REDUCE_SYNC_SIZE). */
#define KUMI_SHMEM_DECL_REDUCE(T, N, OP)                                                     \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source,               \
                                  size_t nreduce);
#define KUMI_SHMEM_DECL_TO_ALL(T, N, OP)                                                     \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,      \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync);
#define KUMI_SHMEM_DECL_BIT(T, N)                                                            \
    KUMI_SHMEM_DECL_REDUCE(T, N, and) KUMI_SHMEM_DECL_REDUCE(T, N, or)                       \
    KUMI_SHMEM_DECL_REDUCE(T, N, xor)
#define KUMI_SHMEM_DECL_MINMAX(T, N)                                                         \
    KUMI_SHMEM_DECL_REDUCE(T, N, max) KUMI_SHMEM_DECL_REDUCE(T, N, min)
#define KUMI_SHMEM_DECL_ARITH(T, N)                                                          \
    KUMI_SHMEM_DECL_REDUCE(T, N, sum) KUMI_SHMEM_DECL_REDUCE(T, N, prod)
#define KUMI_SHMEM_DECL_BIT_TO_ALL(T, N)                                                     \
    KUMI_SHMEM_DECL_TO_ALL(T, N, and) KUMI_SHMEM_DECL_TO_ALL(T, N, or)                       \
    KUMI_SHMEM_DECL_TO_ALL(T, N, xor)
#define KUMI_SHMEM_DECL_MINMAX_TO_ALL(T, N)                                                  \
    KUMI_SHMEM_DECL_TO_ALL(T, N, max) KUMI_SHMEM_DECL_TO_ALL(T, N, min)
#define KUMI_SHMEM_DECL_ARITH_TO_ALL(T, N)                                                   \
    KUMI_SHMEM_DECL_TO_ALL(T, N, sum) KUMI_SHMEM_DECL_TO_ALL(T, N, prod)
KUMI_SHMEM_REDUCE_BIT_TYPES(KUMI_SHMEM_DECL_BIT)
KUMI_SHMEM_REDUCE_MINMAX_TYPES(KUMI_SHMEM_DECL_MINMAX)
KUMI_SHMEM_REDUCE_ARITH_TYPES(KUMI_SHMEM_DECL_ARITH)
KUMI_SHMEM_TO_ALL_BIT_TYPES(KUMI_SHMEM_DECL_BIT_TO_ALL)
KUMI_SHMEM_TO_ALL_MINMAX_TYPES(KUMI_SHMEM_DECL_MINMAX_TO_ALL)
KUMI_SHMEM_TO_ALL_ARITH_TYPES(KUMI_SHMEM_DECL_ARITH_TO_ALL)
#undef KUMI_SHMEM_DECL_REDUCE
#undef KUMI_SHMEM_DECL_TO_ALL
#undef KUMI_SHMEM_DECL_BIT
#undef KUMI_SHMEM_DECL_MINMAX
#undef KUMI_SHMEM_DECL_ARITH
#undef KUMI_SHMEM_DECL_BIT_TO_ALL
#undef KUMI_SHMEM_DECL_MINMAX_TO_ALL
#undef KUMI_SHMEM_DECL_ARITH_TO_ALL

/* ------------------------------------------------- C11 generic collectives
 * shmem_broadcast(team, dest, source, nelems, PE_root), shmem_collect,
 * shmem_fcollect, shmem_alltoall, shmem_alltoalls, and shmem_and_reduce,
 * ..., shmem_prod_reduce(team, dest, source, nreduce): the type is chosen
 * by dest. shmem_sync(team) is shmem_team_sync; shmem_sync with four
 * arguments stays the active-set routine. Fixed-width and size types are
 * typedefs of C types and select those types' functions (the bitwise
 * reductions' signed C types: the fixed-width function of their size). */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
/* The bitwise reductions' table has signed types only as int8_t ... int64_t,
 * which are typedefs of some of the signed C types: programs pass short *,
 * int *, long * or long long *, so each signed C type has a function here
 * that goes to the fixed-width function of its size. */
#define KUMI_SHMEM_GENERIC_SIGNED_BIT_TYPES(X)                                               \
    X(signed char, schar) X(short, short) X(int, int) X(long, long) X(long long, longlong)
#define KUMI_SHMEM_SIGNED_BIT(T, N, OP)                                                      \
    static inline int kumi_shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest,            \
                                                     const T *source, size_t nreduce)        \
    {                                                                                        \
        return sizeof(T) == 1   ? shmem_int8_##OP##_reduce(team, (int8_t *)(void *)dest,     \
                                      (const int8_t *)(const void *)source, nreduce)         \
               : sizeof(T) == 2 ? shmem_int16_##OP##_reduce(team, (int16_t *)(void *)dest,   \
                                      (const int16_t *)(const void *)source, nreduce)        \
               : sizeof(T) == 4 ? shmem_int32_##OP##_reduce(team, (int32_t *)(void *)dest,   \
                                      (const int32_t *)(const void *)source, nreduce)        \
                                : shmem_int64_##OP##_reduce(team, (int64_t *)(void *)dest,   \
                                      (const int64_t *)(const void *)source, nreduce);       \
    }
#define KUMI_SHMEM_SIGNED_BITS(T, N)                                                         \
    KUMI_SHMEM_SIGNED_BIT(T, N, and) KUMI_SHMEM_SIGNED_BIT(T, N, or)                         \
    KUMI_SHMEM_SIGNED_BIT(T, N, xor)
KUMI_SHMEM_GENERIC_SIGNED_BIT_TYPES(KUMI_SHMEM_SIGNED_BITS)
#undef KUMI_SHMEM_SIGNED_BITS
#undef KUMI_SHMEM_SIGNED_BIT

#define KUMI_SHMEM_GENERIC_BIT_TYPES(X)                                                      \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)                  \
    X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define KUMI_SHMEM_GENERIC_MINMAX_TYPES(X)                                                   \
    X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)            \
    X(long long, longlong) X(unsigned char, uchar) X(unsigned short, ushort)                 \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)           \
    X(float, float) X(double, double) X(long double, longdouble)
#define KUMI_SHMEM_GENERIC_ARITH_TYPES(X)                                                    \
    KUMI_SHMEM_GENERIC_MINMAX_TYPES(X) X(double _Complex, complexd)                          \
    X(float _Complex, complexf)

#define KUMI_SHMEM_G_BROADCAST(T, N)  , T *: shmem_##N##_broadcast
#define KUMI_SHMEM_G_COLLECT(T, N)    , T *: shmem_##N##_collect
#define KUMI_SHMEM_G_FCOLLECT(T, N)   , T *: shmem_##N##_fcollect
#define KUMI_SHMEM_G_ALLTOALL(T, N)   , T *: shmem_##N##_alltoall
#define KUMI_SHMEM_G_ALLTOALLS(T, N)  , T *: shmem_##N##_alltoalls
#define KUMI_SHMEM_G_AND(T, N)        , T *: shmem_##N##_and_reduce
#define KUMI_SHMEM_G_OR(T, N)         , T *: shmem_##N##_or_reduce
#define KUMI_SHMEM_G_XOR(T, N)        , T *: shmem_##N##_xor_reduce
#define KUMI_SHMEM_G_SAND(T, N)       , T *: kumi_shmem_##N##_and_reduce
#define KUMI_SHMEM_G_SOR(T, N)        , T *: kumi_shmem_##N##_or_reduce
#define KUMI_SHMEM_G_SXOR(T, N)       , T *: kumi_shmem_##N##_xor_reduce
#define KUMI_SHMEM_G_MAX(T, N)        , T *: shmem_##N##_max_reduce
#define KUMI_SHMEM_G_MIN(T, N)        , T *: shmem_##N##_min_reduce
#define KUMI_SHMEM_G_SUM(T, N)        , T *: shmem_##N##_sum_reduce
#define KUMI_SHMEM_G_PROD(T, N)       , T *: shmem_##N##_prod_reduce

#define shmem_broadcast(team, dest, source, nelems, PE_root)                                 \
    KUMI_SHMEM_GENERIC(dest, KUMI_SHMEM_G_BROADCAST)(team, dest, source, nelems, PE_root)
#define shmem_collect(team, dest, source, nelems)                                            \
    KUMI_SHMEM_GENERIC(dest, KUMI_SHMEM_G_COLLECT)(team, dest, source, nelems)
#define shmem_fcollect(team, dest, source, nelems)                                           \
    KUMI_SHMEM_GENERIC(dest, KUMI_SHMEM_G_FCOLLECT)(team, dest, source, nelems)
#define shmem_alltoall(team, dest, source, nelems)                                           \
    KUMI_SHMEM_GENERIC(dest, KUMI_SHMEM_G_ALLTOALL)(team, dest, source, nelems)
#define shmem_alltoalls(team, dest, source, dst, sst, nelems)                                \
    KUMI_SHMEM_GENERIC(dest, KUMI_SHMEM_G_ALLTOALLS)(team, dest, source, dst, sst, nelems)
#define shmem_and_reduce(team, dest, source, nreduce)                                        \
    _Generic((dest) KUMI_SHMEM_GENERIC_BIT_TYPES(KUMI_SHMEM_G_AND)                           \
             KUMI_SHMEM_GENERIC_SIGNED_BIT_TYPES(KUMI_SHMEM_G_SAND))(team, dest, source,     \
                                                                     nreduce)
#define shmem_or_reduce(team, dest, source, nreduce)                                         \
    _Generic((dest) KUMI_SHMEM_GENERIC_BIT_TYPES(KUMI_SHMEM_G_OR)                            \
             KUMI_SHMEM_GENERIC_SIGNED_BIT_TYPES(KUMI_SHMEM_G_SOR))(team, dest, source,      \
                                                                    nreduce)
#define shmem_xor_reduce(team, dest, source, nreduce)                                        \
    _Generic((dest) KUMI_SHMEM_GENERIC_BIT_TYPES(KUMI_SHMEM_G_XOR)                           \
             KUMI_SHMEM_GENERIC_SIGNED_BIT_TYPES(KUMI_SHMEM_G_SXOR))(team, dest, source,     \
                                                                     nreduce)
#define shmem_max_reduce(team, dest, source, nreduce)                                        \
    _Generic((dest) KUMI_SHMEM_GENERIC_MINMAX_TYPES(KUMI_SHMEM_G_MAX))(team, dest, source,   \
                                                                       nreduce)
#define shmem_min_reduce(team, dest, source, nreduce)                                        \
    _Generic((dest) KUMI_SHMEM_GENERIC_MINMAX_TYPES(KUMI_SHMEM_G_MIN))(team, dest, source,   \
                                                                       nreduce)
#define shmem_sum_reduce(team, dest, source, nreduce)                                        \
    _Generic((dest) KUMI_SHMEM_GENERIC_ARITH_TYPES(KUMI_SHMEM_G_SUM))(team, dest, source,    \
                                                                      nreduce)
#define shmem_prod_reduce(team, dest, source, nreduce)                                       \
    _Generic((dest) KUMI_SHMEM_GENERIC_ARITH_TYPES(KUMI_SHMEM_G_PROD))(team, dest, source,   \
                                                                       nreduce)

/* shmem_sync(team) or shmem_sync(PE_start, logPE_stride, PE_size, pSync) */
#define shmem_sync(...) KUMI_SHMEM_BY_NARGS(kumi_shmem_sync_, __VA_ARGS__)
#define kumi_shmem_sync_1(team) shmem_team_sync(team)
#define kumi_shmem_sync_4(start, logstride, size, psync) (shmem_sync)(start, logstride, size, psync)
#endif /* C11 */

/* --- teams and collectives (shmem-coll) end --- */

/* --- deprecated interfaces (shmem-core) begin --- */
/* Still provided for the codes and benchmark suites that use them. */
#define _SHMEM_MAJOR_VERSION           SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION           SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN            SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING           SHMEM_VENDOR_STRING
#define _SHMEM_CMP_EQ                  SHMEM_CMP_EQ
#define _SHMEM_CMP_NE                  SHMEM_CMP_NE
#define _SHMEM_CMP_GT                  SHMEM_CMP_GT
#define _SHMEM_CMP_GE                  SHMEM_CMP_GE
#define _SHMEM_CMP_LT                  SHMEM_CMP_LT
#define _SHMEM_CMP_LE                  SHMEM_CMP_LE
#define _SHMEM_SYNC_VALUE              SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE       SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE         SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE        SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE       SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

void  start_pes(int npes);      /* shmem_init; finalized at exit        */
int   _my_pe(void);             /* shmem_my_pe                          */
int   _num_pes(void);           /* shmem_n_pes                          */
void *shmalloc(size_t size);    /* shmem_malloc                         */
void *shmemalign(size_t alignment, size_t size);
void *shrealloc(void *ptr, size_t size);
void  shfree(void *ptr);

/* Cache management: no-ops (kumi's memory is coherent). */
void shmem_clear_cache_inv(void);
void shmem_set_cache_inv(void);
void shmem_clear_cache_line_inv(void *dest);
void shmem_set_cache_line_inv(void *dest);
void shmem_udcflush(void);
void shmem_udcflush_line(void *dest);
/* --- deprecated interfaces (shmem-core) end --- */

#ifdef __cplusplus
}
#endif

/* C11 generic interfaces: each section above defines its own, under
 * #if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L */

#endif /* KUMI_SHMEM_H */
