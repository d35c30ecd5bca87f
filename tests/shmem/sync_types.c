/*
 * sync_types.c -- point-to-point synchronization for every type of
 * KUMI_SHMEM_SYNC_TYPES (the list shmem.h declares the calls from), every
 * comparison, every form: wait_until, wait_until_all/any/some and their
 * _vector forms, test, test_all/any/some and their _vector forms, with
 * status arrays that exclude elements, empty sets, and the deprecated
 * shmem_TYPENAME_wait, shmem_wait, shmem_wait_until.
 *
 * Every PE waits on objects its left neighbour writes (itself on 1 PE).
 * The values are chosen so that a comparison made with the wrong
 * signedness gives the wrong answer: signed types compare negative values
 * with positive ones, unsigned types values above the signed maximum. The
 * test forms are checked first (before and after the writes, separated by
 * barriers), so a wrong comparison fails a CHECK instead of hanging a wait.
 * Targets: the symmetric heap and static arrays.
 */
#include <stdint.h>

#include "amo_test.h"

#define N 4   /* elements of a set */

static int me, npes, left, right;
static int checks;

#define IS_SIGNED(T) ((T)-1 < (T)1)

static const int cmps[6] = { SHMEM_CMP_EQ, SHMEM_CMP_NE, SHMEM_CMP_GT,
                             SHMEM_CMP_GE, SHMEM_CMP_LT, SHMEM_CMP_LE };
static const char *const cmp_names[6] = { "EQ", "NE", "GT", "GE", "LT", "LE" };

/* per comparison: an initial value that fails it, a final one that holds,
 * the comparison value; as signed (negative vs positive) and as unsigned
 * (M stands for the type's maximum minus the number) */
static const long long s_case[6][3] = {
    { 5, -3, -3 }, { -3, 4, -3 }, { -7, 3, -5 }, { -6, 2, -5 }, { 3, -7, -5 }, { 2, -5, -5 },
};
#define M(x) (-1 - (x))   /* (T)M(x) is the maximum minus x */
static const long long u_case[6][3] = {
    { 5, M(2), M(2) }, { M(2), 4, M(2) }, { 3, M(0), 5 },
    { 4, M(1), 5 },    { M(0), 3, 5 },    { M(1), 5, 5 },
};

/* statics: one set per type */
#define STATICS(T, NAME) static T st_##NAME[2 * N + 1];
KUMI_SHMEM_SYNC_TYPES(STATICS)

/* element i's value of case c, column k (0 init, 1 final, 2 cmp value):
 * signed types step +i, unsigned -i, which keeps every comparison */
#define CASEV(T, c, k, i)                                                                    \
    (IS_SIGNED(T) ? (T)((T)s_case[c][k] + (T)(i)) : (T)((T)u_case[c][k] - (T)(i)))

#define SYNC_TEST(T, NAME)                                                                   \
    static void sync_##NAME(T *x, const char *where)                                         \
    {                                                                                        \
        /* x[0..N-1]: the set; x[N]: the scalar; x[N+1..2N]: the vector set */               \
        T      *set = x, *one = x + N, *vec = x + N + 1;                                     \
        T       cv[N];                                                                       \
        size_t  idx[N];                                                                      \
        const int st_all[N] = { 0, 1, 0, 0 }, st_any[N] = { 1, 0, 1, 1 },                    \
                  st_none[N] = { 1, 1, 1, 1 }, st02[N] = { 1, 0, 1, 0 },                     \
                  st2[N] = { 1, 1, 0, 1 }, st23[N] = { 1, 1, 0, 0 };                         \
                                                                                             \
        for (int c = 0; c < 6; c++) {                                                        \
            const int cmp = cmps[c];                                                         \
            const T   init = CASEV(T, c, 0, 0), fin = CASEV(T, c, 1, 0),                     \
                      val = CASEV(T, c, 2, 0);                                               \
            for (int i = 0; i < N; i++) {                                                    \
                set[i] = init;                                                               \
                vec[i] = CASEV(T, c, 0, i);                                                  \
                cv[i] = CASEV(T, c, 2, i);                                                   \
            }                                                                                \
            *one = init;                                                                     \
            shmem_barrier_all();                                                             \
                                                                                             \
            /* nothing written yet: every test fails */                                      \
            CHECK(shmem_##NAME##_test(one, cmp, val) == 0, #NAME " %s test %s before",       \
                  where, cmp_names[c]);                                                      \
            CHECK(shmem_##NAME##_test_all(set, N, st_all, cmp, val) == 0,                    \
                  #NAME " %s test_all %s before", where, cmp_names[c]);                      \
            CHECK(shmem_##NAME##_test_any(set, N, NULL, cmp, val) == SIZE_MAX,               \
                  #NAME " %s test_any %s before", where, cmp_names[c]);                      \
            CHECK(shmem_##NAME##_test_some(set, N, idx, NULL, cmp, val) == 0,                \
                  #NAME " %s test_some %s before", where, cmp_names[c]);                     \
            CHECK(shmem_##NAME##_test_all_vector(vec, N, NULL, cmp, cv) == 0,                \
                  #NAME " %s test_all_vector %s before", where, cmp_names[c]);               \
            CHECK(shmem_##NAME##_test_any_vector(vec, N, NULL, cmp, cv) == SIZE_MAX,         \
                  #NAME " %s test_any_vector %s before", where, cmp_names[c]);               \
            CHECK(shmem_##NAME##_test_some_vector(vec, N, idx, NULL, cmp, cv) == 0,          \
                  #NAME " %s test_some_vector %s before", where, cmp_names[c]);              \
            shmem_barrier_all();                                                             \
                                                                                             \
            /* right's objects: the scalar, set elements 0, 2, 3 (1 stays),                  \
             * vector elements 1 and 3 */                                                    \
            shmem_##NAME##_p(one, fin, right);                                               \
            shmem_##NAME##_p(&set[0], fin, right);                                           \
            shmem_##NAME##_p(&set[2], fin, right);                                           \
            shmem_##NAME##_p(&set[3], fin, right);                                           \
            shmem_##NAME##_p(&vec[1], CASEV(T, c, 1, 1), right);                             \
            shmem_##NAME##_p(&vec[3], CASEV(T, c, 1, 3), right);                             \
            shmem_quiet();                                                                   \
            shmem_barrier_all();                                                             \
                                                                                             \
            CHECK(shmem_##NAME##_test(one, cmp, val) == 1, #NAME " %s test %s after", where, \
                  cmp_names[c]);                                                             \
            CHECK(shmem_##NAME##_test_all(set, N, st_all, cmp, val) == 1,                    \
                  #NAME " %s test_all %s after", where, cmp_names[c]);                       \
            CHECK(shmem_##NAME##_test_all(set, N, NULL, cmp, val) == 0,                      \
                  #NAME " %s test_all %s (element 1 unmasked)", where, cmp_names[c]);        \
            {                                                                                \
                /* any with element 1 and 2 left in: only 2 holds; unmasked,                 \
                 * successive calls report each of 0, 2, 3 */                                \
                const int st12[N] = { 1, 0, 0, 1 };                                          \
                int       seen[N] = { 0 };                                                   \
                CHECK(shmem_##NAME##_test_any(set, N, st12, cmp, val) == 2,                  \
                      #NAME " %s test_any %s after", where, cmp_names[c]);                   \
                for (int k = 0; k < 2 * N; k++) {                                            \
                    size_t i = shmem_##NAME##_test_any(set, N, NULL, cmp, val);              \
                    CHECK(i == 0 || i == 2 || i == 3, #NAME " %s test_any %s: %zu", where,   \
                          cmp_names[c], i);                                                  \
                    seen[i] = 1;                                                             \
                }                                                                            \
                CHECK(seen[0] && seen[2] && seen[3], #NAME " %s test_any %s: not fair",      \
                      where, cmp_names[c]);                                                  \
            }                                                                                \
            {                                                                                \
                size_t n = shmem_##NAME##_test_some(set, N, idx, st_all, cmp, val);          \
                int    got = 0;                                                              \
                for (size_t k = 0; k < n; k++)                                               \
                    got |= 1 << idx[k];                                                      \
                CHECK(n == 3 && got == 0xd, #NAME " %s test_some %s: %zu, %#x", where,       \
                      cmp_names[c], n, got);                                                 \
                n = shmem_##NAME##_test_some_vector(vec, N, idx, NULL, cmp, cv);             \
                got = 0;                                                                     \
                for (size_t k = 0; k < n; k++)                                               \
                    got |= 1 << idx[k];                                                      \
                CHECK(n == 2 && got == 0xa, #NAME " %s test_some_vector %s: %zu, %#x",       \
                      where, cmp_names[c], n, got);                                          \
            }                                                                                \
            {                                                                                \
                CHECK(shmem_##NAME##_test_all_vector(vec, N, st02, cmp, cv) == 1,            \
                      #NAME " %s test_all_vector %s after", where, cmp_names[c]);            \
                CHECK(shmem_##NAME##_test_all_vector(vec, N, NULL, cmp, cv) == 0,            \
                      #NAME " %s test_all_vector %s (unmasked)", where, cmp_names[c]);       \
                CHECK(shmem_##NAME##_test_any_vector(vec, N, st02, cmp, cv) != SIZE_MAX,     \
                      #NAME " %s test_any_vector %s after", where, cmp_names[c]);            \
                CHECK(shmem_##NAME##_test_any_vector(vec, N, st_any, cmp, cv) == 1,          \
                      #NAME " %s test_any_vector %s (only 1 in)", where, cmp_names[c]);      \
            }                                                                                \
            /* waits on what holds return at once, with the same answers */                  \
            shmem_##NAME##_wait_until(one, cmp, val);                                        \
            shmem_##NAME##_wait_until_all(set, N, st_all, cmp, val);                         \
            shmem_##NAME##_wait_until_all_vector(vec, N, st02, cmp,                          \
                                                 cv);                                        \
            CHECK(shmem_##NAME##_wait_until_any(set, N, st2, cmp,                            \
                                                val) == 2,                                   \
                  #NAME " %s wait_until_any %s held", where, cmp_names[c]);                  \
            CHECK(shmem_##NAME##_wait_until_any_vector(vec, N, st_any, cmp, cv) == 1,        \
                  #NAME " %s wait_until_any_vector %s held", where, cmp_names[c]);           \
            CHECK(shmem_##NAME##_wait_until_some(set, N, idx, st_all, cmp, val) == 3,        \
                  #NAME " %s wait_until_some %s held", where, cmp_names[c]);                 \
            CHECK(shmem_##NAME##_wait_until_some_vector(vec, N, idx, NULL, cmp, cv) == 2,    \
                  #NAME " %s wait_until_some_vector %s held", where, cmp_names[c]);          \
                                                                                             \
            /* empty sets: nothing to wait for */                                            \
            shmem_##NAME##_wait_until_all(set, N, st_none, cmp, val);                        \
            shmem_##NAME##_wait_until_all(set, 0, NULL, cmp, val);                           \
            shmem_##NAME##_wait_until_all_vector(vec, N, st_none, cmp, cv);                  \
            CHECK(shmem_##NAME##_wait_until_any(set, N, st_none, cmp, val) == SIZE_MAX,      \
                  #NAME " empty wait_until_any");                                            \
            CHECK(shmem_##NAME##_wait_until_any_vector(vec, 0, NULL, cmp, cv) == SIZE_MAX,   \
                  #NAME " empty wait_until_any_vector");                                     \
            CHECK(shmem_##NAME##_wait_until_some(set, N, idx, st_none, cmp, val) == 0,       \
                  #NAME " empty wait_until_some");                                           \
            CHECK(shmem_##NAME##_wait_until_some_vector(vec, 0, idx, NULL, cmp, cv) == 0,    \
                  #NAME " empty wait_until_some_vector");                                    \
            CHECK(shmem_##NAME##_test_all(set, 0, NULL, cmp, val) == 1,                      \
                  #NAME " empty test_all");                                                  \
            CHECK(shmem_##NAME##_test_all_vector(vec, N, st_none, cmp, cv) == 1,             \
                  #NAME " empty test_all_vector");                                           \
            CHECK(shmem_##NAME##_test_any(set, N, st_none, cmp, val) == SIZE_MAX,            \
                  #NAME " empty test_any");                                                  \
            CHECK(shmem_##NAME##_test_any_vector(vec, 0, NULL, cmp, cv) == SIZE_MAX,         \
                  #NAME " empty test_any_vector");                                           \
            CHECK(shmem_##NAME##_test_some(set, 0, idx, NULL, cmp, val) == 0,                \
                  #NAME " empty test_some");                                                 \
            CHECK(shmem_##NAME##_test_some_vector(vec, N, idx, st_none, cmp, cv) == 0,       \
                  #NAME " empty test_some_vector");                                          \
                                                                                             \
            /* blocking: back to the initial values, then right's objects are                \
             * written while their owner waits (odd cases: after a pause) */                 \
            shmem_barrier_all();                                                             \
            for (int i = 0; i < N; i++) {                                                    \
                set[i] = init;                                                               \
                vec[i] = CASEV(T, c, 0, i);                                                  \
            }                                                                                \
            *one = init;                                                                     \
            shmem_barrier_all();                                                             \
            if (c & 1) {                                                                     \
                double t0 = amo_test_now();                                                  \
                while (amo_test_now() - t0 < 1e-3)                                           \
                    ;                                                                        \
            }                                                                                \
            shmem_##NAME##_p(one, fin, right);                                               \
            for (int i = N - 1; i >= 0; i--)                                                 \
                shmem_##NAME##_p(&set[i], i == 1 ? init : fin, right);                       \
            shmem_##NAME##_p(&vec[3], CASEV(T, c, 1, 3), right);                             \
            shmem_##NAME##_p(&vec[1], CASEV(T, c, 1, 1), right);                             \
            shmem_quiet();                                                                   \
            shmem_##NAME##_wait_until(one, cmp, val);                                        \
            CHECK(*one == fin, #NAME " %s wait_until %s returned early", where,              \
                  cmp_names[c]);                                                             \
            {                                                                                \
                size_t i = shmem_##NAME##_wait_until_any(set, N, st23, cmp, val);            \
                CHECK(i == 2 || i == 3, #NAME " %s wait_until_any %s: %zu", where,           \
                      cmp_names[c], i);                                                      \
                CHECK(set[i] == fin, #NAME " %s wait_until_any %s: value", where,            \
                      cmp_names[c]);                                                         \
                size_t n = shmem_##NAME##_wait_until_some_vector(vec, N, idx, NULL, cmp,     \
                                                                 cv);                        \
                CHECK(n >= 1 && n <= 2, #NAME " %s wait_until_some_vector %s: %zu", where,   \
                      cmp_names[c], n);                                                      \
                for (size_t k = 0; k < n; k++)                                               \
                    CHECK((idx[k] == 1 || idx[k] == 3) && (n == 1 || idx[0] != idx[1])       \
                          && vec[idx[k]] == CASEV(T, c, 1, idx[k]),                          \
                          #NAME " %s wait_until_some_vector %s: index %zu", where,           \
                          cmp_names[c], idx[k]);                                             \
            }                                                                                \
            shmem_##NAME##_wait_until_all(set, N, st_all, cmp, val);                         \
            CHECK(set[0] == fin && set[2] == fin && set[3] == fin && set[1] == init,         \
                  #NAME " %s wait_until_all %s returned early", where, cmp_names[c]);        \
            shmem_##NAME##_wait_until_all_vector(vec, N, st02, cmp,                          \
                                                 cv);                                        \
            CHECK(vec[1] == CASEV(T, c, 1, 1) && vec[3] == CASEV(T, c, 1, 3),                \
                  #NAME " %s wait_until_all_vector %s returned early", where, cmp_names[c]); \
            {                                                                                \
                size_t n = shmem_##NAME##_wait_until_some(set, N, idx, st_all, cmp, val);    \
                CHECK(n == 3, #NAME " %s wait_until_some %s: %zu", where, cmp_names[c], n);  \
                size_t i = shmem_##NAME##_wait_until_any_vector(vec, N, NULL, cmp, cv);      \
                CHECK(i == 1 || i == 3, #NAME " %s wait_until_any_vector %s: %zu", where,    \
                      cmp_names[c], i);                                                      \
            }                                                                                \
            shmem_barrier_all();                                                             \
            checks++;                                                                        \
        }                                                                                    \
    }
KUMI_SHMEM_SYNC_TYPES(SYNC_TEST)

/* deprecated: shmem_TYPENAME_wait (until not equal) */
#define DEPR_TEST(T, NAME)                                                                   \
    static void depr_##NAME(T *x)                                                            \
    {                                                                                        \
        x[0] = (T)-2;                                                                        \
        shmem_barrier_all();                                                                 \
        shmem_##NAME##_p(&x[0], (T)-9, right);                                               \
        shmem_##NAME##_wait(&x[0], (T)-2);                                                   \
        CHECK(x[0] == (T)-9, #NAME "_wait");                                                 \
        shmem_barrier_all();                                                                 \
    }
KUMI_SHMEM_SYNC_DEPR_TYPES(DEPR_TEST)

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    (void)left;

#define RUN(T, NAME)                                                                         \
    {                                                                                        \
        T *heap = shmem_malloc((2 * N + 1) * sizeof(T));                                     \
        CHECK(heap != NULL, "shmem_malloc");                                                 \
        sync_##NAME(heap, "heap");                                                           \
        sync_##NAME(st_##NAME, "static");                                                    \
        shmem_free(heap);                                                                    \
    }
    KUMI_SHMEM_SYNC_TYPES(RUN)
#define RUN_DEPR(T, NAME) depr_##NAME(st_##NAME);
    KUMI_SHMEM_SYNC_DEPR_TYPES(RUN_DEPR)

    /* the untyped deprecated ones, on a long (in C11 shmem_wait and
     * shmem_wait_until are also the generic macros: call the functions) */
    st_long[0] = 1;
    shmem_barrier_all();
    shmem_long_p(&st_long[0], -4, right);
    (shmem_wait)(&st_long[0], 1);
    CHECK(st_long[0] == -4, "shmem_wait");
    shmem_barrier_all();
    shmem_long_p(&st_long[0], -6, right);
    (shmem_wait_until)(&st_long[0], SHMEM_CMP_LT, -5);
    CHECK(st_long[0] == -6, "shmem_wait_until");
    shmem_barrier_all();

    if (me == 0)
        printf("sync_types: %d type/target/comparison runs passed on %d PEs\n", checks, npes);
    shmem_finalize();
    return 0;
}
