/* process.c -- behaviour that ends or configures a whole process, each case
 * in a forked child (kumi starts once per process): KUMI_ABORT_ON_ERROR,
 * kumi_init's reports of bad variables and launcher environment, the
 * "did you mean" warning. The parent checks the child's exit status and
 * its stderr. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "kumi.h"

/* exit codes of the children themselves (the library's abort uses others) */
#define CHILD_OK          0
#define CHILD_INIT_FAILED 90
#define CHILD_RETURNED    91   /* a call returned that should have ended us */
#define CHILD_WRONG       92   /* a call returned the wrong status          */

struct child {
    int  status;               /* from waitpid */
    char err[8192];            /* its stderr   */
};

static void run_child(void (*fn)(void), struct child *c)
{
    int   fds[2];
    pid_t pid;
    size_t len = 0;

    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        close(fds[1]);
        /* nothing inherited from the shell running the tests */
        unsetenv("KUMI_ABORT_ON_ERROR");
        unsetenv("KUMI_HEAP_SIZE");
        unsetenv("KUMI_JOB_ID");
        unsetenv("KUMI_RANK");
        unsetenv("KUMI_SIZE");
        setenv("KUMI_HEAP_SIZE", "16m", 1);
        fn();
        fflush(NULL);
        _exit(CHILD_OK);
    }
    close(fds[1]);
    for (;;) {
        ssize_t n = read(fds[0], c->err + len, sizeof(c->err) - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    c->err[len] = '\0';
    close(fds[0]);
    while (waitpid(pid, &c->status, 0) < 0)
        assert_int_equal(errno, EINTR);
}

static void expect_exit(const struct child *c, int code)
{
    if (!WIFEXITED(c->status) || WEXITSTATUS(c->status) != code)
        print_error("child ended with status 0x%x (exit %d), expected exit %d; stderr:\n%s\n",
                    c->status, WIFEXITED(c->status) ? WEXITSTATUS(c->status) : -1, code, c->err);
    assert_true(WIFEXITED(c->status));
    assert_int_equal(WEXITSTATUS(c->status), code);
}

/* ended by kumi: a non-zero exit that is none of the child's own codes */
static void expect_aborted(const struct child *c)
{
    int code = WIFEXITED(c->status) ? WEXITSTATUS(c->status) : -1;
    if (!WIFEXITED(c->status) || code == 0 || code == CHILD_INIT_FAILED
        || code == CHILD_RETURNED || code == CHILD_WRONG)
        print_error("child was not ended by kumi: status 0x%x (exit %d); stderr:\n%s\n",
                    c->status, code, c->err);
    assert_true(WIFEXITED(c->status));
    assert_int_not_equal(code, 0);
    assert_int_not_equal(code, CHILD_INIT_FAILED);
    assert_int_not_equal(code, CHILD_RETURNED);
    assert_int_not_equal(code, CHILD_WRONG);
}

static void expect_stderr(const struct child *c, const char *needle)
{
    if (strstr(c->err, needle) == NULL)
        print_error("child's stderr lacks '%s':\n%s\n", needle, c->err);
    assert_non_null(strstr(c->err, needle));
}

static void init_or_exit(void)
{
    if (kumi_init() != KUMI_OK)
        _exit(CHILD_INIT_FAILED);
}

/* -------------------------------------------------- KUMI_ABORT_ON_ERROR */

static void child_abort_put(void)
{
    char buf[8] = { 0 };
    setenv("KUMI_ABORT_ON_ERROR", "1", 1);
    init_or_exit();
    void *p = kumi_malloc(64);
    if (p == NULL)
        _exit(CHILD_WRONG);
    kumi_put(p, buf, 8, 7);
    _exit(CHILD_RETURNED);
}

static void child_abort_kick(void)
{
    uint64_t v = 1;
    setenv("KUMI_ABORT_ON_ERROR", "yes", 1);
    init_or_exit();
    kumi_kick(0, 0, &v, 3);
    _exit(CHILD_RETURNED);
}

static void child_abort_atomic(void)
{
    setenv("KUMI_ABORT_ON_ERROR", "1", 1);
    init_or_exit();
    uint8_t *p = kumi_malloc(64);
    if (p == NULL)
        _exit(CHILD_WRONG);
    kumi_atomic_add_u64((uint64_t *)(p + 4), 1, 0);
    _exit(CHILD_RETURNED);
}

static void child_abort_heap(void)
{
    setenv("KUMI_ABORT_ON_ERROR", "1", 1);
    setenv("KUMI_HEAP_SIZE", "8m", 1);
    init_or_exit();
    kumi_malloc((size_t)64 << 20);
    _exit(CHILD_RETURNED);
}

static void child_abort_finalized(void)
{
    setenv("KUMI_ABORT_ON_ERROR", "1", 1);
    init_or_exit();
    if (kumi_finalize() != KUMI_OK)
        _exit(CHILD_WRONG);
    kumi_finalize();
    _exit(CHILD_RETURNED);
}

/* without the variable the same call returns */
static void child_no_abort(void)
{
    char buf[8] = { 0 };
    setenv("KUMI_ABORT_ON_ERROR", "0", 1);
    init_or_exit();
    void *p = kumi_malloc(64);
    if (p == NULL || kumi_put(p, buf, 8, 7) != KUMI_ERR_INVALID)
        _exit(CHILD_WRONG);
    if (kumi_finalize() != KUMI_OK)
        _exit(CHILD_WRONG);
}

static void test_abort_put(void **state)
{
    struct child c;
    (void)state;
    run_child(child_abort_put, &c);
    expect_aborted(&c);
    expect_stderr(&c, "kumi[0]: kumi_put: pe 7 out of range (size 1)\n");
    expect_stderr(&c, "KUMI_ABORT_ON_ERROR");
}

static void test_abort_kick(void **state)
{
    struct child c;
    (void)state;
    run_child(child_abort_kick, &c);
    expect_aborted(&c);
    expect_stderr(&c, "kumi[0]: kumi_kick: length 3 is not 1, 2, 4 or 8");
}

static void test_abort_atomic(void **state)
{
    struct child c;
    (void)state;
    run_child(child_abort_atomic, &c);
    expect_aborted(&c);
    expect_stderr(&c, "kumi[0]: kumi_atomic_add_u64: ");
    expect_stderr(&c, "not 8-byte aligned");
}

static void test_abort_heap(void **state)
{
    struct child c;
    (void)state;
    run_child(child_abort_heap, &c);
    expect_aborted(&c);
    expect_stderr(&c, "kumi[0]: kumi_malloc: ");
    expect_stderr(&c, "KUMI_HEAP_SIZE");
}

static void test_abort_finalized(void **state)
{
    struct child c;
    (void)state;
    run_child(child_abort_finalized, &c);
    expect_aborted(&c);
    expect_stderr(&c, "kumi_finalize: ");
}

static void test_no_abort(void **state)
{
    struct child c;
    (void)state;
    run_child(child_no_abort, &c);
    expect_exit(&c, CHILD_OK);
    expect_stderr(&c, "kumi[0]: kumi_put: pe 7 out of range (size 1)\n");
    assert_null(strstr(c.err, "abort"));
}

/* -------------------------------------------------- kumi_init's reports */

static const char *bad_name, *bad_value;

static void child_bad_variable(void)
{
    setenv(bad_name, bad_value, 1);
    int rc = kumi_init();
    if (rc != KUMI_ERR_INVALID)
        _exit(CHILD_WRONG);
    if (kumi_rank() != -1 || kumi_size() != 0)
        _exit(CHILD_WRONG);
    /* fixed, kumi starts */
    unsetenv(bad_name);
    if (kumi_init() != KUMI_OK || kumi_size() != 1)
        _exit(CHILD_INIT_FAILED);
    if (kumi_finalize() != KUMI_OK)
        _exit(CHILD_WRONG);
}

static void test_init_bad_variables(void **state)
{
    static const char *const cases[][2] = {
        { "KUMI_HEAP_SIZE", "12x" },          { "KUMI_HEAP_SIZE", "" },
        { "KUMI_HEAP_SIZE", "-1" },           { "KUMI_HEAP_SIZE", "1.5g" },
        { "KUMI_HEAP_SIZE", "99999999999999999999t" },
        { "KUMI_HEAP_SIZE", "1k" },           { "KUMI_HEAP_SIZE", "2t" },
        { "KUMI_LLCM_SIZE", "20000" },        { "KUMI_LLCM_SIZE", "1k" },
        { "KUMI_WAIT", "bogus" },             { "KUMI_ABORT_ON_ERROR", "maybe" },
        { "KUMI_TRANSPORT", "carrier-pigeon" },
        { "KUMI_LOG", "loud" },               { "KUMI_STARTUP_TIMEOUT", "0" },
    };
    (void)state;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct child c;
        bad_name  = cases[i][0];
        bad_value = cases[i][1];
        run_child(child_bad_variable, &c);
        print_message("%s='%s': %s", bad_name, bad_value, c.err);
        expect_exit(&c, CHILD_OK);
        expect_stderr(&c, "kumi_init: ");
        expect_stderr(&c, bad_name);
        assert_int_equal(strchr(c.err, '\n') - c.err + 1, (long)strlen(c.err)); /* one line */
    }
}

static void child_launcher_env(void)
{
    /* a job id without rank and size: not started by kumirun, not alone */
    setenv("KUMI_JOB_ID", "1-0123456789abcdef", 1);
    if (kumi_init() != KUMI_ERR_INVALID)
        _exit(CHILD_WRONG);
    setenv("KUMI_RANK", "3", 1);
    setenv("KUMI_SIZE", "2", 1);
    if (kumi_init() != KUMI_ERR_INVALID)
        _exit(CHILD_WRONG);
}

static void test_init_launcher_env(void **state)
{
    struct child c;
    (void)state;
    run_child(child_launcher_env, &c);
    expect_exit(&c, CHILD_OK);
    expect_stderr(&c, "kumi_init: ");
    expect_stderr(&c, "KUMI_RANK");
    expect_stderr(&c, "kumirun");
}

static void child_typo(void)
{
    setenv("KUMI_HEAPSIZE", "64m", 1);
    setenv("KUMI_RANK", "0", 1);         /* a launcher variable: no warning */
    init_or_exit();
    if (kumi_size() != 1 || kumi_finalize() != KUMI_OK)
        _exit(CHILD_WRONG);
}

static void test_init_typo_warning(void **state)
{
    struct child c;
    (void)state;
    run_child(child_typo, &c);
    expect_exit(&c, CHILD_OK);
    expect_stderr(&c, "KUMI_HEAPSIZE");
    expect_stderr(&c, "did you mean KUMI_HEAP_SIZE");
    assert_null(strstr(c.err, "KUMI_RANK"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_abort_put),
        cmocka_unit_test(test_abort_kick),
        cmocka_unit_test(test_abort_atomic),
        cmocka_unit_test(test_abort_heap),
        cmocka_unit_test(test_abort_finalized),
        cmocka_unit_test(test_no_abort),
        cmocka_unit_test(test_init_bad_variables),
        cmocka_unit_test(test_init_launcher_env),
        cmocka_unit_test(test_init_typo_warning),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
