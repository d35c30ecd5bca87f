/*
 * reduce.c -- the reductions: shmem_TYPENAME_{and,or,xor,max,min,sum,prod}
 * _reduce on teams (kumi_allreduce over the team's kumi team: the same
 * bits on every member) and the deprecated shmem_TYPENAME_OP_to_all on
 * active sets (active.c's engine), every type of the spec's tables.
 *
 * Each C type maps to the kumi type of its representation, decided at
 * compile time from the type itself: its size and signedness for the
 * integers (char as the compiler has it, long and long long and ptrdiff_t
 * to KUMI_INT64 on LP64, size_t to KUMI_UINT64), the floating and complex
 * types by name.
 */
#include <limits.h>

#include "shmem_team.h"

#define KUMI_SHMEM_SIGNED(T)                                                                 \
    _Generic((T)0, char: CHAR_MIN < 0, signed char: 1, short: 1, int: 1, long: 1,            \
             long long: 1, default: 0)
#define KUMI_SHMEM_INT_TYPE(T)                                                               \
    (sizeof(T) == 1   ? (KUMI_SHMEM_SIGNED(T) ? KUMI_INT8 : KUMI_UINT8)                      \
     : sizeof(T) == 2 ? (KUMI_SHMEM_SIGNED(T) ? KUMI_INT16 : KUMI_UINT16)                    \
     : sizeof(T) == 4 ? (KUMI_SHMEM_SIGNED(T) ? KUMI_INT32 : KUMI_UINT32)                    \
                      : (KUMI_SHMEM_SIGNED(T) ? KUMI_INT64 : KUMI_UINT64))
#define KUMI_SHMEM_TYPE(T)                                                                   \
    _Generic((T)0, float: KUMI_FLOAT, double: KUMI_DOUBLE, long double: KUMI_LONG_DOUBLE,    \
             float _Complex: KUMI_FLOAT_COMPLEX, double _Complex: KUMI_DOUBLE_COMPLEX,       \
             default: KUMI_SHMEM_INT_TYPE(T))

/* every integer type of the tables has a kumi type of its size */
#define KUMI_SHMEM_CHECK_TYPE(T, N)                                                          \
    _Static_assert(KUMI_SHMEM_TYPE(T) == KUMI_FLOAT || KUMI_SHMEM_TYPE(T) == KUMI_DOUBLE     \
                       || KUMI_SHMEM_TYPE(T) == KUMI_LONG_DOUBLE                             \
                       || KUMI_SHMEM_TYPE(T) == KUMI_FLOAT_COMPLEX                           \
                       || KUMI_SHMEM_TYPE(T) == KUMI_DOUBLE_COMPLEX                          \
                       || sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4                 \
                       || sizeof(T) == 8,                                                    \
                   "no kumi type for " #T);
KUMI_SHMEM_REDUCE_ARITH_TYPES(KUMI_SHMEM_CHECK_TYPE)
KUMI_SHMEM_REDUCE_BIT_TYPES(KUMI_SHMEM_CHECK_TYPE)
#undef KUMI_SHMEM_CHECK_TYPE
_Static_assert(KUMI_SHMEM_TYPE(signed char) == KUMI_INT8 && KUMI_SHMEM_TYPE(uint16_t)
                   == KUMI_UINT16 && KUMI_SHMEM_TYPE(size_t) == KUMI_UINT64
                   && KUMI_SHMEM_TYPE(ptrdiff_t) == KUMI_INT64,
               "the integer mapping");

static inline int kumi_shmem_reduce(const char *call, shmem_team_t team, void *dest,
                                    const void *source, size_t nreduce, kumi_type_t type,
                                    kumi_op_t op)
{
    struct kumi_shmem_team *t = kumi_shmem_team_peek(team);

    if (KUMI_SHMEM_UNLIKELY(t == NULL || (nreduce != 0 && (dest == NULL || source == NULL)))) {
        if (kumi_shmem_team_get(call, team) != NULL)
            kumi_shmem_error(KUMI_ERR_INVALID, call, "dest or source is NULL");
        return -1;
    }
    return kumi_allreduce(t->kt, dest, source, nreduce, type, op) == KUMI_OK ? 0 : -1;
}

#define KUMI_SHMEM_DEF_REDUCE(T, N, OP, KOP)                                                 \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source,               \
                                  size_t nreduce)                                            \
    {                                                                                        \
        return kumi_shmem_reduce("shmem_" #N "_" #OP "_reduce", team, dest, source, nreduce, \
                                 KUMI_SHMEM_TYPE(T), KOP);                                   \
    }
#define KUMI_SHMEM_DEF_TO_ALL(T, N, OP, KOP)                                                 \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,      \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync)      \
    {                                                                                        \
        (void)pWrk;   /* the members' sources are read in place */                           \
        kumi_shmem_to_all_fast("shmem_" #N "_" #OP "_to_all", dest, source, nreduce,         \
                               sizeof(T), KUMI_SHMEM_TYPE(T), KOP, PE_start, logPE_stride,   \
                               PE_size, pSync);                                              \
    }

#define KUMI_SHMEM_DEF_BIT(T, N)                                                             \
    KUMI_SHMEM_DEF_REDUCE(T, N, and, KUMI_BAND)                                              \
    KUMI_SHMEM_DEF_REDUCE(T, N, or, KUMI_BOR)                                                \
    KUMI_SHMEM_DEF_REDUCE(T, N, xor, KUMI_BXOR)
#define KUMI_SHMEM_DEF_MINMAX(T, N)                                                          \
    KUMI_SHMEM_DEF_REDUCE(T, N, max, KUMI_MAX)                                               \
    KUMI_SHMEM_DEF_REDUCE(T, N, min, KUMI_MIN)
#define KUMI_SHMEM_DEF_ARITH(T, N)                                                           \
    KUMI_SHMEM_DEF_REDUCE(T, N, sum, KUMI_SUM)                                               \
    KUMI_SHMEM_DEF_REDUCE(T, N, prod, KUMI_PROD)
#define KUMI_SHMEM_DEF_BIT_TO_ALL(T, N)                                                      \
    KUMI_SHMEM_DEF_TO_ALL(T, N, and, KUMI_BAND)                                              \
    KUMI_SHMEM_DEF_TO_ALL(T, N, or, KUMI_BOR)                                                \
    KUMI_SHMEM_DEF_TO_ALL(T, N, xor, KUMI_BXOR)
#define KUMI_SHMEM_DEF_MINMAX_TO_ALL(T, N)                                                   \
    KUMI_SHMEM_DEF_TO_ALL(T, N, max, KUMI_MAX)                                               \
    KUMI_SHMEM_DEF_TO_ALL(T, N, min, KUMI_MIN)
#define KUMI_SHMEM_DEF_ARITH_TO_ALL(T, N)                                                    \
    KUMI_SHMEM_DEF_TO_ALL(T, N, sum, KUMI_SUM)                                               \
    KUMI_SHMEM_DEF_TO_ALL(T, N, prod, KUMI_PROD)

KUMI_SHMEM_REDUCE_BIT_TYPES(KUMI_SHMEM_DEF_BIT)
KUMI_SHMEM_REDUCE_MINMAX_TYPES(KUMI_SHMEM_DEF_MINMAX)
KUMI_SHMEM_REDUCE_ARITH_TYPES(KUMI_SHMEM_DEF_ARITH)
KUMI_SHMEM_TO_ALL_BIT_TYPES(KUMI_SHMEM_DEF_BIT_TO_ALL)
KUMI_SHMEM_TO_ALL_MINMAX_TYPES(KUMI_SHMEM_DEF_MINMAX_TO_ALL)
KUMI_SHMEM_TO_ALL_ARITH_TYPES(KUMI_SHMEM_DEF_ARITH_TO_ALL)
