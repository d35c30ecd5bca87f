/*
 * amo_symbols.c -- every function of the shmem-amo section of shmem.h
 * exists in the library: the atomics' addresses are taken through the
 * very lists that declare them (shmem.h's KUMI_SHMEM_AMO_*_DECLS, with
 * KUMI_SHMEM_AMO_DECL redefined to name both forms), the waits', tests'
 * and deprecated names' by the type tables; a missing definition fails
 * the link. Runs on 1 PE to check the count.
 */
#include "amo_test.h"

typedef void (*fn_t)(void);

#undef KUMI_SHMEM_AMO_DECL
#define KUMI_SHMEM_AMO_DECL(RET, NAME, OP, ...)                                              \
    (fn_t)shmem_##NAME##_atomic_##OP, (fn_t)shmem_ctx_##NAME##_atomic_##OP,

#define SYNC_FNS(T, NAME)                                                                    \
    (fn_t)shmem_##NAME##_wait_until, (fn_t)shmem_##NAME##_wait_until_all,                    \
    (fn_t)shmem_##NAME##_wait_until_any, (fn_t)shmem_##NAME##_wait_until_some,               \
    (fn_t)shmem_##NAME##_wait_until_all_vector, (fn_t)shmem_##NAME##_wait_until_any_vector,  \
    (fn_t)shmem_##NAME##_wait_until_some_vector, (fn_t)shmem_##NAME##_test,                  \
    (fn_t)shmem_##NAME##_test_all, (fn_t)shmem_##NAME##_test_any,                            \
    (fn_t)shmem_##NAME##_test_some, (fn_t)shmem_##NAME##_test_all_vector,                    \
    (fn_t)shmem_##NAME##_test_any_vector, (fn_t)shmem_##NAME##_test_some_vector,
#define DEPR_FNS(T, NAME)                                                                    \
    (fn_t)shmem_##NAME##_cswap, (fn_t)shmem_##NAME##_fadd, (fn_t)shmem_##NAME##_finc,        \
    (fn_t)shmem_##NAME##_add, (fn_t)shmem_##NAME##_inc,
#define DEPR_EXT_FNS(T, NAME)                                                                \
    (fn_t)shmem_##NAME##_swap, (fn_t)shmem_##NAME##_fetch, (fn_t)shmem_##NAME##_set,
#define DEPR_WAIT_FNS(T, NAME) (fn_t)shmem_##NAME##_wait,

static const fn_t fns[] = {
    KUMI_SHMEM_AMO_EXT_TYPES(KUMI_SHMEM_AMO_EXT_DECLS)
    KUMI_SHMEM_AMO_STD_TYPES(KUMI_SHMEM_AMO_STD_DECLS)
    KUMI_SHMEM_AMO_BIT_TYPES(KUMI_SHMEM_AMO_BIT_DECLS)
    KUMI_SHMEM_SYNC_TYPES(SYNC_FNS)
    KUMI_SHMEM_AMO_DEPR_TYPES(DEPR_FNS)
    KUMI_SHMEM_AMO_DEPR_EXT_TYPES(DEPR_EXT_FNS)
    KUMI_SHMEM_SYNC_DEPR_TYPES(DEPR_WAIT_FNS)
    (fn_t)(shmem_swap), (fn_t)(shmem_wait), (fn_t)(shmem_wait_until),
    (fn_t)shmem_set_lock, (fn_t)shmem_clear_lock, (fn_t)shmem_test_lock,
};

#define COUNT1(T, NAME) +1
int main(void)
{
    /* atomics: 5 ext, 8 std, 9 bit calls per type, each with a ctx form;
     * 14 sync calls per type; deprecated 5 + 3 per type, wait per type */
    const size_t want = 2 * (5 * (0 KUMI_SHMEM_AMO_EXT_TYPES(COUNT1))
                             + 8 * (0 KUMI_SHMEM_AMO_STD_TYPES(COUNT1))
                             + 9 * (0 KUMI_SHMEM_AMO_BIT_TYPES(COUNT1)))
                        + 14 * (0 KUMI_SHMEM_SYNC_TYPES(COUNT1))
                        + 5 * (0 KUMI_SHMEM_AMO_DEPR_TYPES(COUNT1))
                        + 3 * (0 KUMI_SHMEM_AMO_DEPR_EXT_TYPES(COUNT1))
                        + (0 KUMI_SHMEM_SYNC_DEPR_TYPES(COUNT1)) + 3 + 3;

    shmem_init();
    CHECK(sizeof fns / sizeof fns[0] == want, "%zu functions, expected %zu",
          sizeof fns / sizeof fns[0], want);
    for (size_t i = 0; i < want; i++)
        CHECK(fns[i] != NULL, "function %zu", i);
    if (shmem_my_pe() == 0)
        printf("amo_symbols: %zu functions\n", want);
    shmem_finalize();
    return 0;
}
