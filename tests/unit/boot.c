/* boot.c -- the bootstrap service (runtime/boot.h) in one process: the
 * blob format of a gather backend's fence (round trip, last value wins,
 * malformed blobs refused whole), the exchange built on each kind of
 * backend (the singleton's all-gather; a key-value backend of this test's
 * own), the transport registry's choice for one host and for several,
 * and KUMI_BOOTSTRAP naming a launcher that did not start the process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "boot.h"
#include "config.h"
#include "rt.h"

static void test_kv_round_trip(void **state)
{
    uint8_t       *buf = NULL;
    size_t         len = 0, cap = 0, vl = 0;
    const uint8_t *v = NULL;
    uint8_t        big[KUMI_BOOT_VAL_MAX + 1];
    (void)state;

    assert_int_equal(kumi_boot_kv_append(&buf, &len, &cap, "tcp.ep", "abc", 3), KUMI_OK);
    assert_int_equal(kumi_boot_kv_append(&buf, &len, &cap, "empty", NULL, 0), KUMI_OK);
    assert_int_equal(kumi_boot_kv_append(&buf, &len, &cap, "tcp.ep", "defg", 4), KUMI_OK);
    memset(big, 7, sizeof(big));
    assert_int_equal(kumi_boot_kv_append(&buf, &len, &cap, "big", big, KUMI_BOOT_VAL_MAX),
                     KUMI_OK);
    /* refused: too long a value, an empty key, too long a key */
    assert_int_equal(kumi_boot_kv_append(&buf, &len, &cap, "big", big, sizeof(big)),
                     KUMI_ERR_INVALID);
    assert_int_equal(kumi_boot_kv_append(&buf, &len, &cap, "", "x", 1), KUMI_ERR_INVALID);
    char longkey[KUMI_BOOT_KEY_MAX + 2];
    memset(longkey, 'k', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = '\0';
    assert_int_equal(kumi_boot_kv_append(&buf, &len, &cap, longkey, "x", 1), KUMI_ERR_INVALID);

    /* the last value of a key counts */
    assert_int_equal(kumi_boot_kv_find(buf, len, "tcp.ep", &v, &vl), 1);
    assert_int_equal(vl, 4);
    assert_memory_equal(v, "defg", 4);
    assert_int_equal(kumi_boot_kv_find(buf, len, "empty", &v, &vl), 1);
    assert_int_equal(vl, 0);
    assert_int_equal(kumi_boot_kv_find(buf, len, "big", &v, &vl), 1);
    assert_int_equal(vl, KUMI_BOOT_VAL_MAX);
    assert_int_equal(kumi_boot_kv_find(buf, len, "tcp", &v, &vl), 0);
    assert_int_equal(kumi_boot_kv_find(buf, 0, "tcp.ep", &v, &vl), 0);

    /* cut anywhere but between two pairs: refused, even though the key
     * came before the cut; outputs untouched */
    size_t ends[] = { 14, 24, 39, len };
    vl = 12345;
    for (size_t cut = 1; cut < len; cut++) {
        int boundary = 0;
        for (size_t e = 0; e < sizeof(ends) / sizeof(ends[0]); e++)
            boundary |= cut == ends[e];
        if (!boundary)
            assert_int_equal(kumi_boot_kv_find(buf, cut, "tcp.ep", &v, &vl), -1);
    }
    assert_int_equal(vl, 12345);
    assert_int_equal(kumi_boot_kv_find(buf, 14, "tcp.ep", &v, &vl), 1);
    assert_int_equal(vl, 3);
    uint8_t bad[16] = { 3, 'a', 'b', 'c', 0xff, 0xff, 0, 0 };   /* value of 65535 */
    assert_int_equal(kumi_boot_kv_find(bad, 8, "abc", &v, &vl), -1);
    bad[0] = 0;                                                   /* empty key */
    assert_int_equal(kumi_boot_kv_find(bad, 8, "abc", &v, &vl), -1);
    bad[0] = 9;                                                   /* key past the end */
    assert_int_equal(kumi_boot_kv_find(bad, 8, "abc", &v, &vl), -1);
    uint8_t *gp = NULL;
    size_t   gl = 0, gc = 0;
    assert_int_equal(kumi_boot_kv_append(&gp, &gl, &gc, "k", "v", 1), KUMI_OK);
    assert_int_equal(gl, 7);
    gp[gl] = 200;                                                 /* a key too long follows */
    assert_int_equal(kumi_boot_kv_find(gp, gl + 1, "k", &v, &vl), -1);
    free(gp);
    free(buf);
}

/* A key-value backend of one PE kept in this test: what PMIx and PMI-2
 * give the bootstrap. */
static uint8_t *kv_store;
static size_t   kv_len, kv_cap;
static int      kv_fences;

static int kv_put(struct kumi_boot *b, const char *key, const void *val, size_t len)
{
    (void)b;
    return kumi_boot_kv_append(&kv_store, &kv_len, &kv_cap, key, val, len);
}

static int kv_fence(struct kumi_boot *b)
{
    (void)b;
    kv_fences++;
    return KUMI_OK;
}

static int kv_get(struct kumi_boot *b, int pe, const char *key, void *val, size_t cap,
                  size_t *len)
{
    const uint8_t *v;
    size_t         vl;

    (void)b;
    (void)pe;
    if (kumi_boot_kv_find(kv_store, kv_len, key, &v, &vl) != 1 || vl > cap)
        return KUMI_ERR_INVALID;
    memcpy(val, v, vl);
    *len = vl;
    return KUMI_OK;
}

static void test_exchange(void **state)
{
    struct kumi_boot b;
    uint8_t          out[64];
    size_t           len = 0;
    uint64_t         mine = 0x1122334455667788ull, all = 0;
    (void)state;

    /* the singleton: a gather backend of one; put/fence/get on top */
    kumi_rt.cfg.startup_timeout = 5;
    assert_int_equal(kumi_boot_init(&b, KUMI_BOOT_SINGLETON), KUMI_OK);
    assert_string_equal(b.tp.name, "singleton");
    assert_int_equal(b.size, 1);
    assert_int_equal(b.nodes, 1);
    assert_int_equal(b.tp.local_size, 1);
    assert_int_equal(kumi_boot_put(&b, "a", "one", 3), KUMI_OK);
    assert_int_equal(kumi_boot_get(&b, 0, "a", out, sizeof(out), &len), KUMI_ERR_INVALID);
    assert_int_equal(kumi_boot_fence(&b), KUMI_OK);
    assert_int_equal(kumi_boot_get(&b, 0, "a", out, sizeof(out), &len), KUMI_OK);
    assert_int_equal(len, 3);
    assert_memory_equal(out, "one", 3);
    /* a later fence's value wins; earlier keys stay */
    assert_int_equal(kumi_boot_put(&b, "b", "two", 3), KUMI_OK);
    assert_int_equal(kumi_boot_put(&b, "a", "ONE!", 4), KUMI_OK);
    assert_int_equal(kumi_boot_fence(&b), KUMI_OK);
    assert_int_equal(kumi_boot_get(&b, 0, "a", out, sizeof(out), &len), KUMI_OK);
    assert_int_equal(len, 4);
    assert_int_equal(kumi_boot_get(&b, 0, "b", out, sizeof(out), &len), KUMI_OK);
    assert_int_equal(kumi_boot_get(&b, 1, "b", out, sizeof(out), &len), KUMI_ERR_INVALID);
    /* through the transports' view */
    assert_int_equal(b.tp.allgather(&b.tp, &mine, &all, sizeof(mine)), KUMI_OK);
    assert_int_equal(all, mine);
    kumi_boot_fini(&b, KUMI_BOOT_END_FINALIZED, 0);

    /* a key-value backend: the all-gather on top of it */
    static const struct kumi_boot_ops kv_ops = {
        .name = "kvtest", .kv_put = kv_put, .kv_fence = kv_fence, .kv_get = kv_get,
    };
    memset(&b, 0, sizeof(b));
    b.ops  = &kv_ops;
    b.size = 1;
    all    = 0;
    assert_int_equal(kumi_boot_allgather(&b, &mine, &all, sizeof(mine)), KUMI_OK);
    assert_int_equal(all, mine);
    assert_int_equal(kv_fences, 1);
    assert_int_equal(kumi_boot_allgather(&b, &mine, &all, sizeof(mine)), KUMI_OK);
    assert_int_equal(kv_fences, 2);   /* one fence per all-gather */
    assert_non_null(kv_store);
    assert_int_equal(kumi_boot_kv_find(kv_store, kv_len, "kumi.ag1", &(const uint8_t *){ 0 },
                                       &len), 1);
    free(kv_store);
}

static void test_transport_pick(void **state)
{
    int                   node_of[4] = { 0, 0, 1, 1 };
    struct kumi_tp_boot   tb = { .name = "test", .nodes = 1, .node_of = node_of };
    struct kumi_tp_params p = { .rank = 0, .size = 4, .boot = &tb };
    char                  why[256];
    (void)state;

    assert_string_equal(kumi_tp_pick(&p, why, sizeof(why))->name, "shm");
    assert_int_equal(kumi_tp_available(kumi_tp_lookup("shm"), &p, why, sizeof(why)), KUMI_OK);
    tb.nodes = 2;
    assert_string_equal(kumi_tp_pick(&p, why, sizeof(why))->name, "tcp");
    assert_int_equal(kumi_tp_available(kumi_tp_lookup("shm"), &p, why, sizeof(why)),
                     KUMI_ERR_UNSUPPORTED);
    assert_non_null(strstr(why, "one host"));
    assert_null(kumi_tp_lookup("ucx-not-here"));
    for (int i = 0; kumi_tp_builtin(i) != NULL; i++) {
        assert_non_null(kumi_tp_builtin(i)->name);
        assert_true(kumi_tp_builtin(i)->priority > 0);
    }
}

/* KUMI_BOOTSTRAP names a launcher that did not start this process: an
 * error naming it, never a quiet job of one */
static void test_wrong_launcher(void **state)
{
    struct kumi_boot b;
    (void)state;

    unsetenv("PMI_FD");
    unsetenv(KUMI_ENV_JOB_ID);
    unsetenv("PMIX_NAMESPACE");
    assert_int_not_equal(kumi_boot_init(&b, KUMI_BOOT_KUMIRUN), KUMI_OK);
    assert_int_not_equal(kumi_boot_init(&b, KUMI_BOOT_PMI2), KUMI_OK);
    /* auto, alone: the singleton */
    assert_int_equal(kumi_boot_init(&b, KUMI_BOOT_AUTO), KUMI_OK);
    assert_string_equal(b.ops->name, "singleton");
    kumi_boot_fini(&b, KUMI_BOOT_END_FINALIZED, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kv_round_trip),
        cmocka_unit_test(test_exchange),
        cmocka_unit_test(test_transport_pick),
        cmocka_unit_test(test_wrong_launcher),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
