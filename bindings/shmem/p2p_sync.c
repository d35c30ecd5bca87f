/*
 * p2p_sync.c -- OpenSHMEM point-to-point synchronization: wait_until and
 * test on one symmetric object, on a set of them (_all, _any, _some, with
 * one comparison value or a vector of them), for every type of
 * KUMI_SHMEM_SYNC_TYPES, and the deprecated shmem_wait forms.
 *
 * Comparisons are made in the object's own type, so signed types compare
 * signed and 16-bit ones work as well as 64-bit ones. Waiting is the
 * runtime's (kumi_rt_wait_pred): its policy (spin, yield, sleep), transport
 * progress, the DSM poll hook and job failure, for any condition. A wait
 * first checks the condition inline a few times, as kumi_wait_until does,
 * because a 2-PE exchange on shm usually finds its word within a cache
 * line transfer.
 *
 * Sets: a status array (may be NULL) excludes element i when status[i] is
 * nonzero. _all remembers the first element it has not yet seen satisfied
 * and never looks back (an element satisfied once counts, as the
 * specification's "have satisfied"); _any scans from just after the
 * element this thread reported last, so a series of calls reports every
 * element that stays satisfied; _some reports every element that holds
 * when the first one is found.
 */
#include "shmem_impl.h"

static int kumi_shmem_cmp_valid(int cmp)
{
    switch (cmp) {
    case SHMEM_CMP_EQ: case SHMEM_CMP_NE: case SHMEM_CMP_GT:
    case SHMEM_CMP_GE: case SHMEM_CMP_LT: case SHMEM_CMP_LE:
        return 1;
    default:
        return 0;
    }
}

/* Checks a call's arguments: state, comparison, the objects (symmetric,
 * aligned to their width; a waited-on object nobody can write would hang),
 * the comparison values of the vector forms and the indices of _some.
 * 0, or nonzero after one message naming call. */
static int kumi_shmem_p2p_check(const char *call, const void *ivars, size_t nelems,
                                size_t width, int cmp, const void *values, int vector,
                                const size_t *indices, int some)
{
    enum kumi_seg seg;
    size_t        off;

    if (kumi_shmem_check_init(call) != 0)
        return -1;
    if (KUMI_SHMEM_UNLIKELY(!kumi_shmem_cmp_valid(cmp)))
        return kumi_shmem_error(KUMI_ERR_INVALID, call, "bad comparison %d (not one of "
                                "SHMEM_CMP_EQ, NE, GT, GE, LT, LE)", cmp);
    if (nelems == 0)
        return 0;
    if (KUMI_SHMEM_UNLIKELY(ivars == NULL || ((uintptr_t)ivars & (width - 1)) != 0))
        return kumi_shmem_error(KUMI_ERR_INVALID, call, "ivar%s %p is NULL or not %zu-byte "
                                "aligned", vector >= 0 ? "s" : "", ivars, width);
    if (KUMI_SHMEM_UNLIKELY(nelems > SIZE_MAX / width))
        return kumi_shmem_error(KUMI_ERR_INVALID, call, "nelems %zu is too large", nelems);
    if (KUMI_SHMEM_UNLIKELY(kumi_shmem_sym(call, ivars, nelems * width, &seg, &off) != 0))
        return -1;
    if (KUMI_SHMEM_UNLIKELY(vector > 0 && values == NULL))
        return kumi_shmem_error(KUMI_ERR_INVALID, call, "cmp_values is NULL");
    if (KUMI_SHMEM_UNLIKELY(some && indices == NULL))
        return kumi_shmem_error(KUMI_ERR_INVALID, call, "indices is NULL");
    return 0;
}

/* Waits until ready(arg): inline first, then the runtime's wait. */
KUMI_SHMEM_INLINE void kumi_shmem_p2p_wait(const char *call, int (*ready)(void *arg),
                                           void *arg)
{
    if (ready(arg))
        return;
    if (kumi_rt.wait_policy == KUMI_WAIT_SPIN && kumi_rt.tp.progress_mask != 0)
        for (int i = 0; i < KUMI_RT_INLINE_SPINS; i++) {
            kumi_rt_relax();
            if (ready(arg))
                return;
        }
    /* KUMI_ERR_PEER (the job is failing) was reported; the program ends */
    (void)kumi_rt_wait_pred(call, ready, arg);
}

/* A test that finds nothing serves the transport once and looks again:
 * on tcp the awaited update may be waiting in a socket. */
static inline void kumi_shmem_p2p_progress(void)
{
    kumi_tp_progress(&kumi_rt.tp);
}

/* Where this thread's next _any scan starts (after the last element it
 * reported), for the specification's "a series of calls must eventually
 * return i". */
static __thread size_t kumi_shmem_any_start;

/* Is the set empty (every element excluded)? */
static int kumi_shmem_p2p_empty(size_t nelems, const int *status)
{
    if (status == NULL)
        return nelems == 0;
    for (size_t i = 0; i < nelems; i++)
        if (status[i] == 0)
            return 0;
    return 1;
}

/* ------------------------------------------------------------ per type */

#define KUMI_SHMEM_P2P_DEFS(TYPE, NAME)                                                      \
    static inline int kumi_shmem_p2p_cmp_##NAME(TYPE a, int cmp, TYPE b)                     \
    {                                                                                        \
        switch (cmp) {                                                                       \
        case SHMEM_CMP_EQ: return a == b;                                                    \
        case SHMEM_CMP_NE: return a != b;                                                    \
        case SHMEM_CMP_GT: return a > b;                                                     \
        case SHMEM_CMP_GE: return a >= b;                                                    \
        case SHMEM_CMP_LT: return a < b;                                                     \
        default:           return a <= b;                                                    \
        }                                                                                    \
    }                                                                                        \
                                                                                             \
    /* a call's set: the objects, which are left out, the condition */                       \
    struct kumi_shmem_p2p_##NAME {                                                           \
        TYPE       *ivars;                                                                   \
        size_t      nelems;                                                                  \
        const int  *status;                                                                  \
        int         cmp;                                                                     \
        TYPE        value;        /* when values is NULL                 */                  \
        const TYPE *values;       /* the vector forms                    */                  \
        size_t      next;         /* _all: first not yet seen satisfied  */                  \
        size_t      found;        /* _any: the satisfied element         */                  \
    };                                                                                       \
                                                                                             \
    static inline int kumi_shmem_p2p_holds_##NAME(const struct kumi_shmem_p2p_##NAME *s,     \
                                                  size_t i)                                  \
    {                                                                                        \
        TYPE v = __atomic_load_n(&s->ivars[i], __ATOMIC_ACQUIRE);                            \
        return kumi_shmem_p2p_cmp_##NAME(v, s->cmp, s->values ? s->values[i] : s->value);    \
    }                                                                                        \
    static inline int kumi_shmem_p2p_in_##NAME(const struct kumi_shmem_p2p_##NAME *s,        \
                                               size_t i)                                     \
    {                                                                                        \
        return s->status == NULL || s->status[i] == 0;                                       \
    }                                                                                        \
    static int kumi_shmem_p2p_one_##NAME(void *arg)                                          \
    {                                                                                        \
        return kumi_shmem_p2p_holds_##NAME(arg, 0);                                          \
    }                                                                                        \
    static int kumi_shmem_p2p_all_##NAME(void *arg)                                          \
    {                                                                                        \
        struct kumi_shmem_p2p_##NAME *s = arg;                                               \
        while (s->next < s->nelems && (!kumi_shmem_p2p_in_##NAME(s, s->next)                 \
                                       || kumi_shmem_p2p_holds_##NAME(s, s->next)))          \
            s->next++;                                                                       \
        return s->next == s->nelems;                                                         \
    }                                                                                        \
    static int kumi_shmem_p2p_any_##NAME(void *arg)                                          \
    {                                                                                        \
        struct kumi_shmem_p2p_##NAME *s = arg;                                               \
        size_t i = kumi_shmem_any_start < s->nelems ? kumi_shmem_any_start : 0;              \
        for (size_t k = 0; k < s->nelems; k++, i = i + 1 < s->nelems ? i + 1 : 0)            \
            if (kumi_shmem_p2p_in_##NAME(s, i) && kumi_shmem_p2p_holds_##NAME(s, i)) {       \
                s->found = i;                                                                \
                return 1;                                                                    \
            }                                                                                \
        return 0;                                                                            \
    }                                                                                        \
    /* _any's result: the element found, where the next scan starts after */                 \
    static size_t kumi_shmem_p2p_took_##NAME(const struct kumi_shmem_p2p_##NAME *s)          \
    {                                                                                        \
        kumi_shmem_any_start = s->found + 1;                                                 \
        return s->found;                                                                     \
    }                                                                                        \
    /* _some's result: found (if any: it held during the call) and every                     \
     * other element that holds now */                                                       \
    static size_t kumi_shmem_p2p_collect_##NAME(const struct kumi_shmem_p2p_##NAME *s,       \
                                                size_t found, size_t *indices)               \
    {                                                                                        \
        size_t n = 0;                                                                        \
        if (found != SIZE_MAX)                                                               \
            indices[n++] = found;                                                            \
        for (size_t i = 0; i < s->nelems; i++)                                               \
            if (i != found && kumi_shmem_p2p_in_##NAME(s, i)                                 \
                && kumi_shmem_p2p_holds_##NAME(s, i))                                        \
                indices[n++] = i;                                                            \
        return n;                                                                            \
    }                                                                                        \
                                                                                             \
    /* the bodies, shared by the scalar and vector forms */                                  \
    static void kumi_shmem_wait_all_##NAME(const char *call, TYPE *ivars, size_t nelems,     \
                                           const int *status, int cmp, TYPE value,           \
                                           const TYPE *values, int vector)                   \
    {                                                                                        \
        struct kumi_shmem_p2p_##NAME s = { ivars, nelems, status, cmp, value, values, 0,     \
                                           0 };                                              \
        if (kumi_shmem_p2p_check(call, ivars, nelems, sizeof(TYPE), cmp, values, vector,     \
                                 NULL, 0) == 0)                                              \
            kumi_shmem_p2p_wait(call, kumi_shmem_p2p_all_##NAME, &s);                        \
    }                                                                                        \
    static size_t kumi_shmem_wait_any_##NAME(const char *call, TYPE *ivars, size_t nelems,   \
                                             const int *status, int cmp, TYPE value,         \
                                             const TYPE *values, int vector)                 \
    {                                                                                        \
        struct kumi_shmem_p2p_##NAME s = { ivars, nelems, status, cmp, value, values, 0,     \
                                           SIZE_MAX };                                       \
        if (kumi_shmem_p2p_check(call, ivars, nelems, sizeof(TYPE), cmp, values, vector,     \
                                 NULL, 0) != 0 || kumi_shmem_p2p_empty(nelems, status))      \
            return SIZE_MAX;                                                                 \
        kumi_shmem_p2p_wait(call, kumi_shmem_p2p_any_##NAME, &s);                            \
        if (s.found == SIZE_MAX)                                                             \
            return SIZE_MAX;              /* the job failed while we waited */               \
        return kumi_shmem_p2p_took_##NAME(&s);                                               \
    }                                                                                        \
    static size_t kumi_shmem_wait_some_##NAME(const char *call, TYPE *ivars, size_t nelems,  \
                                              size_t *indices, const int *status, int cmp,   \
                                              TYPE value, const TYPE *values, int vector)    \
    {                                                                                        \
        struct kumi_shmem_p2p_##NAME s = { ivars, nelems, status, cmp, value, values, 0,     \
                                           SIZE_MAX };                                       \
        if (kumi_shmem_p2p_check(call, ivars, nelems, sizeof(TYPE), cmp, values, vector,     \
                                 indices, 1) != 0 || kumi_shmem_p2p_empty(nelems, status))   \
            return 0;                                                                        \
        kumi_shmem_p2p_wait(call, kumi_shmem_p2p_any_##NAME, &s);                            \
        return kumi_shmem_p2p_collect_##NAME(&s, s.found, indices);                          \
    }                                                                                        \
    static int kumi_shmem_test_all_##NAME(const char *call, TYPE *ivars, size_t nelems,      \
                                          const int *status, int cmp, TYPE value,            \
                                          const TYPE *values, int vector)                    \
    {                                                                                        \
        struct kumi_shmem_p2p_##NAME s = { ivars, nelems, status, cmp, value, values, 0,     \
                                           0 };                                              \
        if (kumi_shmem_p2p_check(call, ivars, nelems, sizeof(TYPE), cmp, values, vector,     \
                                 NULL, 0) != 0)                                              \
            return 0;                                                                        \
        if (kumi_shmem_p2p_all_##NAME(&s))                                                   \
            return 1;                                                                        \
        kumi_shmem_p2p_progress();                                                           \
        return kumi_shmem_p2p_all_##NAME(&s);                                                \
    }                                                                                        \
    static size_t kumi_shmem_test_any_##NAME(const char *call, TYPE *ivars, size_t nelems,   \
                                             const int *status, int cmp, TYPE value,         \
                                             const TYPE *values, int vector)                 \
    {                                                                                        \
        struct kumi_shmem_p2p_##NAME s = { ivars, nelems, status, cmp, value, values, 0,     \
                                           0 };                                              \
        if (kumi_shmem_p2p_check(call, ivars, nelems, sizeof(TYPE), cmp, values, vector,     \
                                 NULL, 0) != 0)                                              \
            return SIZE_MAX;                                                                 \
        if (kumi_shmem_p2p_any_##NAME(&s))                                                   \
            return kumi_shmem_p2p_took_##NAME(&s);                                           \
        kumi_shmem_p2p_progress();                                                           \
        if (kumi_shmem_p2p_any_##NAME(&s))                                                   \
            return kumi_shmem_p2p_took_##NAME(&s);                                           \
        return SIZE_MAX;                                                                     \
    }                                                                                        \
    static size_t kumi_shmem_test_some_##NAME(const char *call, TYPE *ivars, size_t nelems,  \
                                              size_t *indices, const int *status, int cmp,   \
                                              TYPE value, const TYPE *values, int vector)    \
    {                                                                                        \
        struct kumi_shmem_p2p_##NAME s = { ivars, nelems, status, cmp, value, values, 0,     \
                                           0 };                                              \
        size_t n;                                                                            \
        if (kumi_shmem_p2p_check(call, ivars, nelems, sizeof(TYPE), cmp, values, vector,     \
                                 indices, 1) != 0)                                           \
            return 0;                                                                        \
        n = kumi_shmem_p2p_collect_##NAME(&s, SIZE_MAX, indices);                            \
        if (n == 0) {                                                                        \
            kumi_shmem_p2p_progress();                                                       \
            n = kumi_shmem_p2p_collect_##NAME(&s, SIZE_MAX, indices);                        \
        }                                                                                    \
        return n;                                                                            \
    }                                                                                        \
                                                                                             \
    /* ---- the public functions */                                                          \
    void shmem_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value)                      \
    {                                                                                        \
        static const char call[] = "shmem_" #NAME "_wait_until";                             \
        struct kumi_shmem_p2p_##NAME s = { ivar, 1, NULL, cmp, cmp_value, NULL, 0, 0 };      \
        if (kumi_shmem_p2p_check(call, ivar, 1, sizeof(TYPE), cmp, NULL, -1, NULL, 0) == 0)  \
            kumi_shmem_p2p_wait(call, kumi_shmem_p2p_one_##NAME, &s);                        \
    }                                                                                        \
    void shmem_##NAME##_wait_until_all(TYPE *ivars, size_t nelems, const int *status,        \
                                       int cmp, TYPE cmp_value)                              \
    {                                                                                        \
        kumi_shmem_wait_all_##NAME("shmem_" #NAME "_wait_until_all", ivars, nelems, status,  \
                                   cmp, cmp_value, NULL, 0);                                 \
    }                                                                                        \
    size_t shmem_##NAME##_wait_until_any(TYPE *ivars, size_t nelems, const int *status,      \
                                         int cmp, TYPE cmp_value)                            \
    {                                                                                        \
        return kumi_shmem_wait_any_##NAME("shmem_" #NAME "_wait_until_any", ivars, nelems,   \
                                          status, cmp, cmp_value, NULL, 0);                  \
    }                                                                                        \
    size_t shmem_##NAME##_wait_until_some(TYPE *ivars, size_t nelems, size_t *indices,       \
                                          const int *status, int cmp, TYPE cmp_value)        \
    {                                                                                        \
        return kumi_shmem_wait_some_##NAME("shmem_" #NAME "_wait_until_some", ivars, nelems, \
                                           indices, status, cmp, cmp_value, NULL, 0);        \
    }                                                                                        \
    void shmem_##NAME##_wait_until_all_vector(TYPE *ivars, size_t nelems, const int *status, \
                                              int cmp, TYPE *cmp_values)                     \
    {                                                                                        \
        kumi_shmem_wait_all_##NAME("shmem_" #NAME "_wait_until_all_vector", ivars, nelems,   \
                                   status, cmp, 0, cmp_values, 1);                           \
    }                                                                                        \
    size_t shmem_##NAME##_wait_until_any_vector(TYPE *ivars, size_t nelems,                  \
                                                const int *status, int cmp,                  \
                                                TYPE *cmp_values)                            \
    {                                                                                        \
        return kumi_shmem_wait_any_##NAME("shmem_" #NAME "_wait_until_any_vector", ivars,    \
                                          nelems, status, cmp, 0, cmp_values, 1);            \
    }                                                                                        \
    size_t shmem_##NAME##_wait_until_some_vector(TYPE *ivars, size_t nelems,                 \
                                                 size_t *indices, const int *status,         \
                                                 int cmp, TYPE *cmp_values)                  \
    {                                                                                        \
        return kumi_shmem_wait_some_##NAME("shmem_" #NAME "_wait_until_some_vector", ivars,  \
                                           nelems, indices, status, cmp, 0, cmp_values, 1);  \
    }                                                                                        \
    int shmem_##NAME##_test(TYPE *ivar, int cmp, TYPE cmp_value)                             \
    {                                                                                        \
        static const char call[] = "shmem_" #NAME "_test";                                   \
        struct kumi_shmem_p2p_##NAME s = { ivar, 1, NULL, cmp, cmp_value, NULL, 0, 0 };      \
        if (kumi_shmem_p2p_check(call, ivar, 1, sizeof(TYPE), cmp, NULL, -1, NULL, 0) != 0)  \
            return 0;                                                                        \
        if (kumi_shmem_p2p_holds_##NAME(&s, 0))                                              \
            return 1;                                                                        \
        kumi_shmem_p2p_progress();                                                           \
        return kumi_shmem_p2p_holds_##NAME(&s, 0);                                           \
    }                                                                                        \
    int shmem_##NAME##_test_all(TYPE *ivars, size_t nelems, const int *status, int cmp,      \
                                TYPE cmp_value)                                              \
    {                                                                                        \
        return kumi_shmem_test_all_##NAME("shmem_" #NAME "_test_all", ivars, nelems, status, \
                                          cmp, cmp_value, NULL, 0);                          \
    }                                                                                        \
    size_t shmem_##NAME##_test_any(TYPE *ivars, size_t nelems, const int *status, int cmp,   \
                                   TYPE cmp_value)                                           \
    {                                                                                        \
        return kumi_shmem_test_any_##NAME("shmem_" #NAME "_test_any", ivars, nelems, status, \
                                          cmp, cmp_value, NULL, 0);                          \
    }                                                                                        \
    size_t shmem_##NAME##_test_some(TYPE *ivars, size_t nelems, size_t *indices,             \
                                    const int *status, int cmp, TYPE cmp_value)              \
    {                                                                                        \
        return kumi_shmem_test_some_##NAME("shmem_" #NAME "_test_some", ivars, nelems,       \
                                           indices, status, cmp, cmp_value, NULL, 0);        \
    }                                                                                        \
    int shmem_##NAME##_test_all_vector(TYPE *ivars, size_t nelems, const int *status,        \
                                       int cmp, TYPE *cmp_values)                            \
    {                                                                                        \
        return kumi_shmem_test_all_##NAME("shmem_" #NAME "_test_all_vector", ivars, nelems,  \
                                          status, cmp, 0, cmp_values, 1);                    \
    }                                                                                        \
    size_t shmem_##NAME##_test_any_vector(TYPE *ivars, size_t nelems, const int *status,     \
                                          int cmp, TYPE *cmp_values)                         \
    {                                                                                        \
        return kumi_shmem_test_any_##NAME("shmem_" #NAME "_test_any_vector", ivars, nelems,  \
                                          status, cmp, 0, cmp_values, 1);                    \
    }                                                                                        \
    size_t shmem_##NAME##_test_some_vector(TYPE *ivars, size_t nelems, size_t *indices,      \
                                           const int *status, int cmp, TYPE *cmp_values)     \
    {                                                                                        \
        return kumi_shmem_test_some_##NAME("shmem_" #NAME "_test_some_vector", ivars,        \
                                           nelems, indices, status, cmp, 0, cmp_values, 1);  \
    }
KUMI_SHMEM_SYNC_TYPES(KUMI_SHMEM_P2P_DEFS)

/* ------------------------------------------------------------- deprecated */

#define KUMI_SHMEM_P2P_DEPR_DEFS(TYPE, NAME)                                                 \
    void shmem_##NAME##_wait(TYPE *ivar, TYPE cmp_value)                                     \
    {                                                                                        \
        static const char call[] = "shmem_" #NAME "_wait";                                   \
        struct kumi_shmem_p2p_##NAME s = { ivar, 1, NULL, SHMEM_CMP_NE, cmp_value, NULL, 0,  \
                                           0 };                                              \
        if (kumi_shmem_p2p_check(call, ivar, 1, sizeof(TYPE), SHMEM_CMP_NE, NULL, -1, NULL,  \
                                 0) == 0)                                                    \
            kumi_shmem_p2p_wait(call, kumi_shmem_p2p_one_##NAME, &s);                        \
    }
KUMI_SHMEM_SYNC_DEPR_TYPES(KUMI_SHMEM_P2P_DEPR_DEFS)

/* (parenthesized: in C11 these names are also the generic macros) */
void (shmem_wait)(long *ivar, long cmp_value)
{
    struct kumi_shmem_p2p_long s = { ivar, 1, NULL, SHMEM_CMP_NE, cmp_value, NULL, 0, 0 };

    if (kumi_shmem_p2p_check("shmem_wait", ivar, 1, sizeof(long), SHMEM_CMP_NE, NULL, -1,
                             NULL, 0) == 0)
        kumi_shmem_p2p_wait("shmem_wait", kumi_shmem_p2p_one_long, &s);
}

void (shmem_wait_until)(long *ivar, int cmp, long cmp_value)
{
    struct kumi_shmem_p2p_long s = { ivar, 1, NULL, cmp, cmp_value, NULL, 0, 0 };

    if (kumi_shmem_p2p_check("shmem_wait_until", ivar, 1, sizeof(long), cmp, NULL, -1, NULL,
                             0) == 0)
        kumi_shmem_p2p_wait("shmem_wait_until", kumi_shmem_p2p_one_long, &s);
}
