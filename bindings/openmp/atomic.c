/*
 * atomic.c -- the libatomic calls of translated OpenMP code: clang emits
 * __atomic_load/store/exchange/compare_exchange (generic: size and
 * pointers) and the sized __atomic_*_N when it cannot inline an atomic
 * (long double, 16-byte objects, odd sizes); kumi-translate --openmp
 * renames them to kumi_omp___atomic_*.
 *
 * On DSM memory the object's range is made exclusive here
 * (kumi_dsm_acquire for write) and the operation done with plain loads
 * and stores: nothing is served between the acquire and the last store,
 * no other PE can touch the lines meanwhile, the DSM is sequentially
 * consistent, and a PE runs one thread, so that is atomic for every
 * size. Operands behind pointers (expected, desired, the result) may be
 * DSM memory too (escaped locals): they are read before and written
 * after. On private memory (one thread per PE) the same plain operation.
 */
#include <stdbool.h>
#include <string.h>

#include "omp_libc.h"
#include "check.h"

static void rd(void *dst, const void *src, size_t n)
{
    if (kumi_dsm_is_shared(src)) {
        if (kumi_dsm_read(dst, src, n) != KUMI_OK)
            kumi_omp_fail("__atomic", "cannot read [%p, +%zu)", src, n);
    } else {
        memcpy(dst, src, n);
    }
}

static void wr(void *dst, const void *src, size_t n)
{
    if (kumi_dsm_is_shared(dst)) {
        if (kumi_dsm_write(dst, src, n) != KUMI_OK)
            kumi_omp_fail("__atomic", "cannot write [%p, +%zu)", dst, n);
    } else {
        memcpy(dst, src, n);
    }
}

/* Makes obj exclusive here when it is DSM memory. */
static void own(const char *call, void *obj, size_t n)
{
    if (kumi_dsm_is_shared(obj))
        kumi_omp_acquire1(call, obj, n, KUMI_DSM_WRITE);
}

#define ATOMIC_TMP_MAX 256

static void size_ok(const char *call, size_t n)
{
    if (n == 0 || n > ATOMIC_TMP_MAX)
        kumi_omp_fail(call, "atomic object of %zu bytes (supported: 1 to %d)", n,
                      ATOMIC_TMP_MAX);
}

void kumi_omp___atomic_load(size_t n, void *src, void *dst, int model)
{
    unsigned char v[ATOMIC_TMP_MAX];
    (void)model;
    size_ok("__atomic_load", n);
    own("__atomic_load", src, n);
    memcpy(v, src, n);
    wr(dst, v, n);
}

void kumi_omp___atomic_store(size_t n, void *dst, void *src, int model)
{
    unsigned char v[ATOMIC_TMP_MAX];
    (void)model;
    size_ok("__atomic_store", n);
    rd(v, src, n);
    own("__atomic_store", dst, n);
    memcpy(dst, v, n);
}

void kumi_omp___atomic_exchange(size_t n, void *obj, void *val, void *ret, int model)
{
    unsigned char v[ATOMIC_TMP_MAX], old[ATOMIC_TMP_MAX];
    (void)model;
    size_ok("__atomic_exchange", n);
    rd(v, val, n);
    own("__atomic_exchange", obj, n);
    memcpy(old, obj, n);
    memcpy(obj, v, n);
    wr(ret, old, n);
}

bool kumi_omp___atomic_compare_exchange(size_t n, void *obj, void *expected, void *desired,
                                        int success, int failure)
{
    unsigned char e[ATOMIC_TMP_MAX], d[ATOMIC_TMP_MAX], cur[ATOMIC_TMP_MAX];
    (void)success;
    (void)failure;
    size_ok("__atomic_compare_exchange", n);
    rd(e, expected, n);
    rd(d, desired, n);
    own("__atomic_compare_exchange", obj, n);
    memcpy(cur, obj, n);
    if (memcmp(cur, e, n) == 0) {
        memcpy(obj, d, n);
        return true;
    }
    wr(expected, cur, n);
    return false;
}

/* The sized forms: the value travels in registers, only the object (and
 * compare_exchange's expected) behind pointers. */
#define SIZED(N, T)                                                                \
    T kumi_omp___atomic_load_##N(T *p, int model)                                  \
    {                                                                              \
        T v;                                                                       \
        (void)model;                                                               \
        own("__atomic_load_" #N, p, N);                                            \
        memcpy(&v, p, N);                                                          \
        return v;                                                                  \
    }                                                                              \
    void kumi_omp___atomic_store_##N(T *p, T v, int model)                         \
    {                                                                              \
        (void)model;                                                               \
        own("__atomic_store_" #N, p, N);                                           \
        memcpy(p, &v, N);                                                          \
    }                                                                              \
    T kumi_omp___atomic_exchange_##N(T *p, T v, int model)                         \
    {                                                                              \
        T old;                                                                     \
        (void)model;                                                               \
        own("__atomic_exchange_" #N, p, N);                                        \
        memcpy(&old, p, N);                                                        \
        memcpy(p, &v, N);                                                          \
        return old;                                                                \
    }                                                                              \
    bool kumi_omp___atomic_compare_exchange_##N(T *p, T *expected, T desired,      \
                                                int success, int failure)          \
    {                                                                              \
        T e, cur;                                                                  \
        (void)success;                                                             \
        (void)failure;                                                             \
        rd(&e, expected, N);                                                       \
        own("__atomic_compare_exchange_" #N, p, N);                                \
        memcpy(&cur, p, N);                                                        \
        if (memcmp(&cur, &e, N) == 0) {                                            \
            memcpy(p, &desired, N);                                                \
            return true;                                                           \
        }                                                                          \
        wr(expected, &cur, N);                                                     \
        return false;                                                              \
    }                                                                              \
    SIZED_OP(N, T, add, +)                                                         \
    SIZED_OP(N, T, sub, -)                                                         \
    SIZED_OP(N, T, and, &)                                                         \
    SIZED_OP(N, T, or, |)                                                          \
    SIZED_OP(N, T, xor, ^)                                                         \
    SIZED_NAND(N, T)

#define SIZED_OP(N, T, NAME, OP)                                                   \
    T kumi_omp___atomic_fetch_##NAME##_##N(T *p, T v, int model)                   \
    {                                                                              \
        T old, nv;                                                                 \
        (void)model;                                                               \
        own("__atomic_fetch_" #NAME "_" #N, p, N);                                 \
        memcpy(&old, p, N);                                                        \
        nv = (T)(old OP v);                                                        \
        memcpy(p, &nv, N);                                                         \
        return old;                                                                \
    }                                                                              \
    T kumi_omp___atomic_##NAME##_fetch_##N(T *p, T v, int model)                   \
    {                                                                              \
        return (T)(kumi_omp___atomic_fetch_##NAME##_##N(p, v, model) OP v);        \
    }

#define SIZED_NAND(N, T)                                                           \
    T kumi_omp___atomic_fetch_nand_##N(T *p, T v, int model)                       \
    {                                                                              \
        T old, nv;                                                                 \
        (void)model;                                                               \
        own("__atomic_fetch_nand_" #N, p, N);                                      \
        memcpy(&old, p, N);                                                        \
        nv = (T) ~(old & v);                                                       \
        memcpy(p, &nv, N);                                                         \
        return old;                                                                \
    }                                                                              \
    T kumi_omp___atomic_nand_fetch_##N(T *p, T v, int model)                       \
    {                                                                              \
        return (T) ~(kumi_omp___atomic_fetch_nand_##N(p, v, model) & v);           \
    }

SIZED(1, uint8_t)
SIZED(2, uint16_t)
SIZED(4, uint32_t)
SIZED(8, uint64_t)
SIZED(16, unsigned __int128)
