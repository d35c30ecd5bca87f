/* config.c -- kumi_cfg_parse and friends (runtime/config.c) against a table
 * of variables instead of the environment: defaults, every variable's good
 * and bad values, size suffixes, and the "did you mean" check for typos. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"
#include "kumi.h"
#include "transport.h"

/* ------------------------------------------------------------ the getter */

struct vars {
    const char *name[8];
    const char *value[8];
    int         n;
};

static const char *vars_get(const char *name, void *arg)
{
    const struct vars *v = arg;
    for (int i = 0; i < v->n; i++)
        if (strcmp(v->name[i], name) == 0)
            return v->value[i];
    return NULL;
}

static char err[256];

/* Parses with one variable set; returns the status, message in err. */
static int parse1(struct kumi_cfg *cfg, const char *name, const char *value)
{
    struct vars v = { { name }, { value }, 1 };
    memset(err, 0, sizeof(err));
    return kumi_cfg_parse(cfg, vars_get, &v, err, sizeof(err));
}

#define EXPECT_OK(cfg, name, value)                                                   \
    do {                                                                              \
        int rc_ = parse1((cfg), (name), (value));                                     \
        if (rc_ != KUMI_OK)                                                           \
            print_error("%s='%s' rejected: rc %d, message '%s'\n", (name), (value),  \
                        rc_, err);                                                    \
        assert_int_equal(rc_, KUMI_OK);                                               \
    } while (0)

/* bad value: KUMI_ERR_INVALID and a message naming the variable and value */
#define EXPECT_BAD(name, value)                                                       \
    do {                                                                              \
        struct kumi_cfg c_;                                                           \
        char            quoted_[128];                                                 \
        int             rc_ = parse1(&c_, (name), (value));                           \
        if (rc_ != KUMI_ERR_INVALID)                                                  \
            print_error("%s='%s' accepted (rc %d)\n", (name), (value), rc_);          \
        assert_int_equal(rc_, KUMI_ERR_INVALID);                                      \
        if (strstr(err, (name)) == NULL)                                              \
            print_error("message for %s='%s' does not name it: '%s'\n", (name),       \
                        (value), err);                                                \
        assert_non_null(strstr(err, (name)));                                         \
        snprintf(quoted_, sizeof(quoted_), "'%s'", (value));                          \
        if (strcmp((name), "KUMI_LLCM_SIZE") != 0 || strstr(err, "4k") == NULL)       \
            assert_non_null(strstr(err, quoted_));                                    \
    } while (0)

/* ----------------------------------------------------------------- tests */

static void test_defaults(void **state)
{
    struct vars     none = { { NULL }, { NULL }, 0 };
    struct kumi_cfg cfg;
    (void)state;

    memset(&cfg, 0xa5, sizeof(cfg));
    assert_int_equal(kumi_cfg_parse(&cfg, vars_get, &none, err, sizeof(err)), KUMI_OK);
    assert_int_equal(cfg.transport, KUMI_TRANSPORT_AUTO);
    assert_int_equal(cfg.bootstrap, KUMI_BOOT_AUTO);
    assert_int_equal(cfg.heap_size, 256ull << 20);
    assert_int_equal(cfg.llcm_size, 256ull << 10);
    assert_int_equal(cfg.wait, KUMI_WAIT_AUTO);
    assert_int_equal(cfg.log, KUMI_LOG_WARN);
    assert_int_equal(cfg.abort_on_error, 0);
    assert_int_equal(cfg.startup_timeout, 30);
}

static void test_heap_size(void **state)
{
    struct kumi_cfg cfg;
    (void)state;

    EXPECT_OK(&cfg, "KUMI_HEAP_SIZE", "1m");              /* the minimum */
    assert_int_equal(cfg.heap_size, 1ull << 20);
    EXPECT_OK(&cfg, "KUMI_HEAP_SIZE", "1048576");
    assert_int_equal(cfg.heap_size, 1ull << 20);
    EXPECT_OK(&cfg, "KUMI_HEAP_SIZE", "1t");              /* the maximum */
    assert_int_equal(cfg.heap_size, 1ull << 40);
    EXPECT_OK(&cfg, "KUMI_HEAP_SIZE", "256mb");
    assert_int_equal(cfg.heap_size, 256ull << 20);
    EXPECT_OK(&cfg, "KUMI_HEAP_SIZE", "2G");
    assert_int_equal(cfg.heap_size, 2ull << 30);
    EXPECT_OK(&cfg, "KUMI_HEAP_SIZE", "4096k");
    assert_int_equal(cfg.heap_size, 4ull << 20);
    EXPECT_OK(&cfg, "KUMI_HEAP_SIZE", "3000000");         /* plain bytes */
    assert_int_equal(cfg.heap_size, 3000000);

    EXPECT_BAD("KUMI_HEAP_SIZE", "12x");
    EXPECT_BAD("KUMI_HEAP_SIZE", "");
    EXPECT_BAD("KUMI_HEAP_SIZE", "-1");
    EXPECT_BAD("KUMI_HEAP_SIZE", "1.5g");
    EXPECT_BAD("KUMI_HEAP_SIZE", "99999999999999999999t");  /* overflows */
    EXPECT_BAD("KUMI_HEAP_SIZE", "16777216t");              /* 2^64 exactly */
    EXPECT_BAD("KUMI_HEAP_SIZE", "1k");                     /* below 1m */
    EXPECT_BAD("KUMI_HEAP_SIZE", "1048575");
    EXPECT_BAD("KUMI_HEAP_SIZE", "1025g");                  /* above 1t */
    EXPECT_BAD("KUMI_HEAP_SIZE", "2t");
    EXPECT_BAD("KUMI_HEAP_SIZE", "0");
    EXPECT_BAD("KUMI_HEAP_SIZE", " 1m");
    EXPECT_BAD("KUMI_HEAP_SIZE", "1m ");
    EXPECT_BAD("KUMI_HEAP_SIZE", "m");
    EXPECT_BAD("KUMI_HEAP_SIZE", "0x100000");
    EXPECT_BAD("KUMI_HEAP_SIZE", "+1m");
    EXPECT_BAD("KUMI_HEAP_SIZE", "1mm");
    EXPECT_BAD("KUMI_HEAP_SIZE", "1048576b");               /* b only after a suffix */
}

static void test_llcm_size(void **state)
{
    struct kumi_cfg cfg;
    (void)state;

    EXPECT_OK(&cfg, "KUMI_LLCM_SIZE", "16k");             /* the minimum */
    assert_int_equal(cfg.llcm_size, 16ull << 10);
    EXPECT_OK(&cfg, "KUMI_LLCM_SIZE", "64m");             /* the maximum */
    assert_int_equal(cfg.llcm_size, 64ull << 20);
    EXPECT_OK(&cfg, "KUMI_LLCM_SIZE", "20480");           /* 20k, a multiple of 4k */
    assert_int_equal(cfg.llcm_size, 20480);

    EXPECT_BAD("KUMI_LLCM_SIZE", "20000");                /* not a multiple of 4k */
    assert_non_null(strstr(err, "4k"));
    EXPECT_BAD("KUMI_LLCM_SIZE", "17k");
    assert_non_null(strstr(err, "4k"));
    EXPECT_BAD("KUMI_LLCM_SIZE", "8k");                   /* below 16k */
    EXPECT_BAD("KUMI_LLCM_SIZE", "65m");                  /* above 64m */
    EXPECT_BAD("KUMI_LLCM_SIZE", "big");
    EXPECT_BAD("KUMI_LLCM_SIZE", "");
}

static void test_choices(void **state)
{
    static const char *const waits[] = { "auto", "spin", "yield", "block" };
    static const char *const logs[]  = { "error", "warn", "info", "debug" };
    struct kumi_cfg cfg;
    (void)state;

    for (int i = 0; i < 4; i++) {
        EXPECT_OK(&cfg, "KUMI_WAIT", waits[i]);
        assert_int_equal(cfg.wait, i);
        assert_string_equal(kumi_cfg_choice_name("KUMI_WAIT", i), waits[i]);
        EXPECT_OK(&cfg, "KUMI_LOG", logs[i]);
        assert_int_equal(cfg.log, i);
        assert_string_equal(kumi_cfg_choice_name("KUMI_LOG", i), logs[i]);
    }
    assert_int_equal(KUMI_WAIT_SPIN, 1);
    assert_int_equal(KUMI_WAIT_BLOCK, 3);
    /* KUMI_TRANSPORT: auto, then the built-in transports in registry order */
    int ntp = 0;
    assert_string_equal(kumi_cfg_choice_name("KUMI_TRANSPORT", 0), "auto");
    for (; kumi_tp_builtin(ntp) != NULL; ntp++) {
        EXPECT_OK(&cfg, "KUMI_TRANSPORT", kumi_tp_builtin(ntp)->name);
        assert_int_equal(cfg.transport, ntp + 1);
        assert_string_equal(kumi_cfg_choice_name("KUMI_TRANSPORT", ntp + 1),
                            kumi_tp_builtin(ntp)->name);
    }
    assert_true(ntp >= 2);
    assert_non_null(kumi_tp_lookup("shm"));
    assert_non_null(kumi_tp_lookup("tcp"));
    assert_string_equal(kumi_cfg_choice_name("KUMI_TRANSPORT", ntp + 1), "?");
    assert_string_equal(kumi_cfg_choice_name("KUMI_TRANSPORT", -1), "?");
    EXPECT_OK(&cfg, "KUMI_BOOTSTRAP", "pmix");
    assert_int_equal(cfg.bootstrap, KUMI_BOOT_PMIX);
    EXPECT_BAD("KUMI_BOOTSTRAP", "slurm");
    assert_string_equal(kumi_cfg_choice_name("KUMI_HEAP_SIZE", 0), "?");
    assert_string_equal(kumi_cfg_choice_name("KUMI_NOPE", 0), "?");

    EXPECT_BAD("KUMI_WAIT", "bogus");
    assert_non_null(strstr(err, "auto|spin|yield|block"));
    EXPECT_BAD("KUMI_WAIT", "");
    EXPECT_BAD("KUMI_WAIT", "spi");
    EXPECT_BAD("KUMI_WAIT", "spinning");
    EXPECT_BAD("KUMI_WAIT", "spin|yield");
    EXPECT_BAD("KUMI_TRANSPORT", "ib");
    EXPECT_BAD("KUMI_TRANSPORT", "shm ");
    EXPECT_BAD("KUMI_LOG", "verbose");
}

static void test_bool(void **state)
{
    static const char *const yes[] = { "1", "yes", "true", "on", "YES", "True" };
    static const char *const no[]  = { "0", "no", "false", "off", "OFF" };
    struct kumi_cfg cfg;
    (void)state;

    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        EXPECT_OK(&cfg, "KUMI_ABORT_ON_ERROR", yes[i]);
        assert_int_equal(cfg.abort_on_error, 1);
    }
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        EXPECT_OK(&cfg, "KUMI_ABORT_ON_ERROR", no[i]);
        assert_int_equal(cfg.abort_on_error, 0);
    }
    EXPECT_BAD("KUMI_ABORT_ON_ERROR", "maybe");
    EXPECT_BAD("KUMI_ABORT_ON_ERROR", "2");
    EXPECT_BAD("KUMI_ABORT_ON_ERROR", "");
    EXPECT_BAD("KUMI_ABORT_ON_ERROR", "y");
    EXPECT_BAD("KUMI_ABORT_ON_ERROR", "10");
}

static void test_uint(void **state)
{
    struct kumi_cfg cfg;
    (void)state;

    EXPECT_OK(&cfg, "KUMI_STARTUP_TIMEOUT", "1");
    assert_int_equal(cfg.startup_timeout, 1);
    EXPECT_OK(&cfg, "KUMI_STARTUP_TIMEOUT", "3600");
    assert_int_equal(cfg.startup_timeout, 3600);
    EXPECT_BAD("KUMI_STARTUP_TIMEOUT", "0");
    EXPECT_BAD("KUMI_STARTUP_TIMEOUT", "3601");
    EXPECT_BAD("KUMI_STARTUP_TIMEOUT", "-5");
    EXPECT_BAD("KUMI_STARTUP_TIMEOUT", "10s");
    EXPECT_BAD("KUMI_STARTUP_TIMEOUT", "");
    EXPECT_BAD("KUMI_STARTUP_TIMEOUT", "99999999999999999999999");
    EXPECT_BAD("KUMI_STARTUP_TIMEOUT", "1k");   /* numbers, not sizes */
}

/* The first bad variable stops the parse; good ones around it do not matter. */
static void test_several(void **state)
{
    struct vars v = { { "KUMI_WAIT", "KUMI_HEAP_SIZE", "KUMI_LLCM_SIZE" },
                      { "block", "64m", "32k" }, 3 };
    struct kumi_cfg cfg;
    (void)state;

    assert_int_equal(kumi_cfg_parse(&cfg, vars_get, &v, err, sizeof(err)), KUMI_OK);
    assert_int_equal(cfg.wait, KUMI_WAIT_BLOCK);
    assert_int_equal(cfg.heap_size, 64ull << 20);
    assert_int_equal(cfg.llcm_size, 32ull << 10);

    v.value[1] = "64q";
    assert_int_equal(kumi_cfg_parse(&cfg, vars_get, &v, err, sizeof(err)), KUMI_ERR_INVALID);
    assert_non_null(strstr(err, "KUMI_HEAP_SIZE='64q'"));

    /* a tiny message buffer truncates, never overflows */
    char small[8];
    memset(small, 'x', sizeof(small));
    assert_int_equal(kumi_cfg_parse(&cfg, vars_get, &v, small, 6), KUMI_ERR_INVALID);
    assert_int_equal(strlen(small), 5);
    assert_int_equal(small[6], 'x');
}

static void test_parse_size(void **state)
{
    static const struct { const char *text; uint64_t value; } good[] = {
        { "0", 0 },                     { "1", 1 },
        { "1k", 1024 },                 { "1K", 1024 },
        { "3m", 3ull << 20 },           { "3M", 3ull << 20 },
        { "2g", 2ull << 30 },           { "2G", 2ull << 30 },
        { "1t", 1ull << 40 },           { "1T", 1ull << 40 },
        { "256mb", 256ull << 20 },      { "256MB", 256ull << 20 },
        { "4kb", 4096 },                { "4Kb", 4096 },
        { "0k", 0 },                    { "007", 7 },
        { "16777215t", 16777215ull << 40 },
        { "18446744073709551615", UINT64_MAX },
    };
    static const char *const bad[] = {
        "", "k", "1kk", "1b", "1 k", " 1", "1 ", "+1", "-1", "1.0", "1.5g", "0x10",
        "12x", "1p", "1e6", "16777216t", "18446744073709551616",
        "99999999999999999999t", "1mbb", "1bm",
    };
    (void)state;

    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        uint64_t v = 12345;
        int      rc = kumi_cfg_parse_size(good[i].text, &v);
        if (rc != KUMI_OK || v != good[i].value)
            print_error("parse_size('%s') = %d, %llu; expected %llu\n", good[i].text, rc,
                        (unsigned long long)v, (unsigned long long)good[i].value);
        assert_int_equal(rc, KUMI_OK);
        assert_true(v == good[i].value);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        uint64_t v = 12345;
        int      rc = kumi_cfg_parse_size(bad[i], &v);
        if (rc != KUMI_ERR_INVALID)
            print_error("parse_size('%s') accepted: %llu\n", bad[i], (unsigned long long)v);
        assert_int_equal(rc, KUMI_ERR_INVALID);
        assert_true(v == 12345);          /* output only on success */
    }
    uint64_t v = 1;
    assert_int_equal(kumi_cfg_parse_size(NULL, &v), KUMI_ERR_INVALID);
}

/* ------------------------------------------------------- unknown variables */

struct warned {
    char name[8][64];
    char suggestion[8][64];
    int  n;
};

static void record(const char *name, const char *suggestion, void *arg)
{
    struct warned *w = arg;
    if (w->n < 8) {
        snprintf(w->name[w->n], 64, "%s", name);
        snprintf(w->suggestion[w->n], 64, "%s", suggestion ? suggestion : "(none)");
    }
    w->n++;
}

static void test_check_unknown(void **state)
{
    char *envp[] = {
        "PATH=/usr/bin",
        "KUMI_HEAPSIZE=64m",             /* typo */
        "KUMI_HEAP_SIZE=64m",
        "KUMI_RANK=0",                   /* set by kumirun: known */
        "KUMI_SIZE=4",
        "KUMI_JOB_ID=1-abc",
        "KUMI_OVERSUBSCRIBED=1",
        "KUMI_LAUNCHER_PID=42",
        "KUMI_WAIT=spin",
        "KUMIX=1",                       /* not a KUMI_ variable */
        "kumi_heap_size=1m",             /* neither (case matters) */
        "KUMI_WAITT=spin",               /* typo */
        "KUMI_SOMETHING_ELSE_ENTIRELY=1",/* unknown, nothing close */
        "KUMI_LLCM_SIZE",                /* no '=': still a name */
        NULL,
    };
    struct warned w = { .n = 0 };
    (void)state;

    int count = kumi_cfg_check_unknown(envp, record, &w);
    for (int i = 0; i < w.n && i < 8; i++)
        print_message("unknown: %s (suggestion %s)\n", w.name[i], w.suggestion[i]);
    assert_int_equal(count, 3);
    assert_int_equal(w.n, 3);
    assert_string_equal(w.name[0], "KUMI_HEAPSIZE");
    assert_string_equal(w.suggestion[0], "KUMI_HEAP_SIZE");
    assert_string_equal(w.name[1], "KUMI_WAITT");
    assert_string_equal(w.suggestion[1], "KUMI_WAIT");
    assert_string_equal(w.name[2], "KUMI_SOMETHING_ELSE_ENTIRELY");
    assert_string_equal(w.suggestion[2], "(none)");

    char *clean[] = { "KUMI_RANK=1", "KUMI_TRANSPORT=shm", "HOME=/", NULL };
    w.n = 0;
    assert_int_equal(kumi_cfg_check_unknown(clean, record, &w), 0);
    assert_int_equal(w.n, 0);
    assert_int_equal(kumi_cfg_check_unknown(NULL, record, &w), 0);
}

static void test_help(void **state)
{
    static const char *const names[] = {
        "KUMI_TRANSPORT", "KUMI_HEAP_SIZE", "KUMI_LLCM_SIZE", "KUMI_WAIT", "KUMI_LOG",
        "KUMI_ABORT_ON_ERROR", "KUMI_STARTUP_TIMEOUT",
    };
    char  *text = NULL;
    size_t len  = 0;
    FILE  *f    = open_memstream(&text, &len);
    (void)state;

    assert_non_null(f);
    kumi_cfg_print_help(f);
    fclose(f);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strstr(text, names[i]) == NULL)
            print_error("--help-env text lacks %s:\n%s\n", names[i], text);
        assert_non_null(strstr(text, names[i]));
    }
    assert_non_null(strstr(text, "256m"));
    assert_non_null(strstr(text, "auto|spin|yield|block"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_heap_size),
        cmocka_unit_test(test_llcm_size),
        cmocka_unit_test(test_choices),
        cmocka_unit_test(test_bool),
        cmocka_unit_test(test_uint),
        cmocka_unit_test(test_several),
        cmocka_unit_test(test_parse_size),
        cmocka_unit_test(test_check_unknown),
        cmocka_unit_test(test_help),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
