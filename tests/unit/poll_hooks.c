/* poll_hooks.c -- the bindings' poll hooks (runtime/wait.c): added in
 * order, the same function twice is one hook, removed, a full table is an
 * error, removed and added again; each hook runs exactly once per serve
 * of a real wait (one PE) and once per kumi_dsm_poll, and once per walk
 * when a hook removes itself or another during the walk. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kumi.h"
#include "rt.h"

static int  calls_a, calls_b, order[8], norder;
static long tests, bad_steps;

static int hook_a(void)
{
    calls_a++;
    if (norder < 8)
        order[norder++] = 'a';
    return 0;
}

static int hook_b(void)
{
    calls_b++;
    if (norder < 8)
        order[norder++] = 'b';
    return 0;
}

/* a wait's predicate: between two tests a wait serves at most once, so
 * each hook has run at most once since the last test, and a and b (both
 * added) as often as each other; true once hook a ran until */
struct watch {
    int until, last_a, last_b, with_b;
};

static int watch_ready(void *arg)
{
    struct watch *w = arg;

    tests++;
    if (calls_a - w->last_a > 1 || calls_b - w->last_b > 1
        || (w->with_b && calls_a != calls_b))
        bad_steps++;
    w->last_a = calls_a;
    w->last_b = calls_b;
    return calls_a >= w->until;
}

static void reset(void)
{
    calls_a = calls_b = norder = 0;
    tests = bad_steps = 0;
}

static void wait_for(int until, int with_b)
{
    struct watch w = { until, calls_a, calls_b, with_b };

    assert_int_equal(kumi_rt_wait_pred("poll_hooks", watch_ready, &w), KUMI_OK);
    assert_int_equal(bad_steps, 0);
    assert_true(tests > until);   /* the wait tested between its serves */
}

static void test_serve(void **state)
{
    (void)state;
    reset();
    assert_int_equal(kumi_rt_poll_hook_add(hook_a), KUMI_OK);
    assert_int_equal(kumi_rt_poll_hook_add(hook_b), KUMI_OK);
    assert_int_equal(kumi_rt_poll_hook_add(hook_a), KUMI_OK);   /* already there */
    assert_int_equal(kumi_rt_npoll_hooks, 2);

    /* one run: each once, in the order added */
    assert_int_equal(kumi_rt_poll_hooks_run(), 0);
    assert_int_equal(calls_a, 1);
    assert_int_equal(calls_b, 1);
    assert_memory_equal(order, ((int[]){ 'a', 'b' }), 2 * sizeof(int));

    /* kumi's waits: a and b once per serve */
    wait_for(6, 1);
    assert_int_equal(calls_a, 6);
    assert_int_equal(calls_b, 6);

    /* the DSM's poll (dsm/dsm.c) runs them too */
    kumi_dsm_poll();
    assert_int_equal(calls_a, 7);
    assert_int_equal(calls_b, 7);

    /* b removed: a alone, still once per serve */
    assert_int_equal(kumi_rt_poll_hook_remove(hook_b), KUMI_OK);
    assert_int_equal(kumi_rt_poll_hook_remove(hook_b), KUMI_ERR_INVALID);
    wait_for(12, 0);
    assert_int_equal(calls_a, 12);
    assert_int_equal(calls_b, 7);

    assert_int_equal(kumi_rt_poll_hook_remove(hook_a), KUMI_OK);
    assert_int_equal(kumi_rt_npoll_hooks, 0);
    assert_int_equal(kumi_rt_poll_hooks_run(), 0);
    assert_int_equal(calls_a, 12);
}

/* what the hooks served is what the walk returns */
static int hook_two(void)
{
    return 2;
}

#define FILLER(n) \
    static int filler##n(void) { return 0; }
FILLER(0) FILLER(1) FILLER(2) FILLER(3) FILLER(4) FILLER(5) FILLER(6) FILLER(7)
static int (*const fillers[])(void) = { filler0, filler1, filler2, filler3,
                                        filler4, filler5, filler6, filler7 };

static void test_full(void **state)
{
    (void)state;
    assert_int_equal(KUMI_RT_POLL_HOOKS_MAX, 8);
    assert_int_equal(kumi_rt_poll_hook_add(hook_two), KUMI_OK);
    for (int i = 0; i < KUMI_RT_POLL_HOOKS_MAX - 1; i++)
        assert_int_equal(kumi_rt_poll_hook_add(fillers[i]), KUMI_OK);
    assert_int_equal(kumi_rt_poll_hook_add(fillers[7]), KUMI_ERR_NOMEM);
    assert_int_equal(kumi_rt_poll_hook_add(hook_two), KUMI_OK);   /* there: no error */
    assert_int_equal(kumi_rt_poll_hooks_run(), 2);
    /* the first removed: a slot free again */
    assert_int_equal(kumi_rt_poll_hook_remove(hook_two), KUMI_OK);
    assert_int_equal(kumi_rt_poll_hooks_run(), 0);
    assert_int_equal(kumi_rt_poll_hook_add(fillers[7]), KUMI_OK);
    for (int i = 0; i < KUMI_RT_POLL_HOOKS_MAX; i++)
        assert_int_equal(kumi_rt_poll_hook_remove(fillers[i]), KUMI_OK);
    assert_int_equal(kumi_rt_npoll_hooks, 0);
    assert_int_equal(kumi_rt_poll_hook_add(NULL), KUMI_ERR_INVALID);
}

/* add, remove, add again: one hook, run once per walk */
static void test_readd(void **state)
{
    (void)state;
    reset();
    for (int round = 1; round <= 3; round++) {
        assert_int_equal(kumi_rt_poll_hook_add(hook_a), KUMI_OK);
        assert_int_equal(kumi_rt_npoll_hooks, 1);
        assert_int_equal(kumi_rt_poll_hooks_run(), 0);
        assert_int_equal(calls_a, round);
        assert_int_equal(kumi_rt_poll_hook_remove(hook_a), KUMI_OK);
        assert_int_equal(kumi_rt_npoll_hooks, 0);
        assert_int_equal(kumi_rt_poll_hooks_run(), 0);
        assert_int_equal(calls_a, round);
    }
}

/* hooks that remove a hook while the walk runs them (MPI's non-blocking
 * collectives remove theirs from inside it when the last schedule ends):
 * every other hook still runs once in that walk */
static int calls_self, calls_first;

static int hook_self(void)
{
    calls_self++;
    kumi_rt_poll_hook_remove(hook_self);
    return 0;
}

static int hook_first(void)   /* removes hook_a, added before it */
{
    calls_first++;
    kumi_rt_poll_hook_remove(hook_a);
    return 0;
}

/* one walk, then every hook's calls so far and the table's size */
static void walk_expect(int self, int b, int a, int first, int nhooks)
{
    assert_int_equal(kumi_rt_poll_hooks_run(), 0);
    assert_int_equal(calls_self, self);
    assert_int_equal(calls_b, b);
    assert_int_equal(calls_a, a);
    assert_int_equal(calls_first, first);
    assert_int_equal(kumi_rt_npoll_hooks, nhooks);
}

static void test_remove_in_walk(void **state)
{
    (void)state;
    reset();
    calls_self = calls_first = 0;
    /* itself, first of three: b and a behind it run */
    assert_int_equal(kumi_rt_poll_hook_add(hook_self), KUMI_OK);
    assert_int_equal(kumi_rt_poll_hook_add(hook_b), KUMI_OK);
    assert_int_equal(kumi_rt_poll_hook_add(hook_a), KUMI_OK);
    walk_expect(1, 1, 1, 0, 2);
    /* the next walk without it */
    walk_expect(1, 2, 2, 0, 2);
    /* a hook before it: [b, a, first, self] -> first removes a (b, a ran
     * already), self behind it still runs; b and first stay */
    assert_int_equal(kumi_rt_poll_hook_add(hook_first), KUMI_OK);
    assert_int_equal(kumi_rt_poll_hook_add(hook_self), KUMI_OK);
    walk_expect(2, 3, 3, 1, 2);
    assert_int_equal(kumi_rt_poll_hook_remove(hook_b), KUMI_OK);
    assert_int_equal(kumi_rt_poll_hook_remove(hook_first), KUMI_OK);
    assert_int_equal(kumi_rt_npoll_hooks, 0);
}

static int setup(void **state)
{
    (void)state;
    return kumi_init() == KUMI_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return kumi_finalize() == KUMI_OK ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests_[] = {
        cmocka_unit_test(test_serve),
        cmocka_unit_test(test_full),
        cmocka_unit_test(test_readd),
        cmocka_unit_test(test_remove_in_walk),
    };
    return cmocka_run_group_tests(tests_, setup, teardown);
}
