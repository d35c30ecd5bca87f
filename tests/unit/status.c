/* status.c -- the status codes of kumi.h and kumi_strerror. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kumi.h"

static const struct { int code; const char *name; } codes[] = {
    { KUMI_OK, "KUMI_OK" },
    { KUMI_AGAIN, "KUMI_AGAIN" },
    { KUMI_ERR_INVALID, "KUMI_ERR_INVALID" },
    { KUMI_ERR_NOMEM, "KUMI_ERR_NOMEM" },
    { KUMI_ERR_PEER, "KUMI_ERR_PEER" },
    { KUMI_ERR_TIMEOUT, "KUMI_ERR_TIMEOUT" },
    { KUMI_ERR_TRANSPORT, "KUMI_ERR_TRANSPORT" },
    { KUMI_ERR_UNSUPPORTED, "KUMI_ERR_UNSUPPORTED" },
    { KUMI_ERR_STATE, "KUMI_ERR_STATE" },
    { KUMI_ERR_TRUNCATE, "KUMI_ERR_TRUNCATE" },
};
#define NCODES (sizeof(codes) / sizeof(codes[0]))

/* The values are part of the API (api.md): programs may store them. */
static void test_values(void **state)
{
    (void)state;
    assert_int_equal(KUMI_OK, 0);
    assert_int_equal(KUMI_AGAIN, 1);
    assert_int_equal(KUMI_ERR_INVALID, -1);
    assert_int_equal(KUMI_ERR_NOMEM, -2);
    assert_int_equal(KUMI_ERR_PEER, -3);
    assert_int_equal(KUMI_ERR_TIMEOUT, -4);
    assert_int_equal(KUMI_ERR_TRANSPORT, -5);
    assert_int_equal(KUMI_ERR_UNSUPPORTED, -6);
    assert_int_equal(KUMI_ERR_STATE, -7);
    assert_int_equal(KUMI_ERR_TRUNCATE, -8);
}

static void test_strerror_known(void **state)
{
    (void)state;
    for (size_t i = 0; i < NCODES; i++) {
        const char *s = kumi_strerror(codes[i].code);
        assert_non_null(s);
        assert_true(strlen(s) > strlen(codes[i].name));
        /* names its code exactly: "KUMI_ERR_PEER: ...", not a prefix of another */
        size_t n = strlen(codes[i].name);
        if (strncmp(s, codes[i].name, n) != 0 || (s[n] >= 'A' && s[n] <= 'Z') || s[n] == '_')
            print_error("kumi_strerror(%d) = '%s' does not start with %s\n", codes[i].code, s,
                        codes[i].name);
        assert_memory_equal(s, codes[i].name, n);
        assert_false(s[n] == '_' || (s[n] >= 'A' && s[n] <= 'Z'));
        for (size_t j = 0; j < i; j++) {
            if (strcmp(s, kumi_strerror(codes[j].code)) == 0)
                print_error("codes %d and %d share '%s'\n", codes[i].code, codes[j].code, s);
            assert_string_not_equal(s, kumi_strerror(codes[j].code));
        }
        /* static: the same string every time */
        assert_ptr_equal(s, kumi_strerror(codes[i].code));
    }
}

static void test_strerror_unknown(void **state)
{
    static const int unknown[] = { 2, -9, 100, -100, INT_MAX, INT_MIN };
    (void)state;
    for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
        const char *s = kumi_strerror(unknown[i]);
        assert_non_null(s);
        assert_true(strlen(s) > 0);
        for (size_t j = 0; j < NCODES; j++) {
            if (strstr(s, codes[j].name) != NULL)
                print_error("kumi_strerror(%d) = '%s' names %s\n", unknown[i], s, codes[j].name);
            assert_null(strstr(s, codes[j].name));
        }
    }
}

/* before kumi_init: strerror needs no runtime */
static void test_strerror_no_init(void **state)
{
    (void)state;
    assert_int_equal(kumi_rank(), -1);
    assert_non_null(strstr(kumi_strerror(KUMI_ERR_STATE), "KUMI_ERR_STATE"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_strerror_known),
        cmocka_unit_test(test_strerror_unknown),
        cmocka_unit_test(test_strerror_no_init),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
