/* shm_guard.c -- the shm transport's start-up guard (transport/shm/shm.c):
 * a PE killed by SIGTERM while it waits for a peer's segment removes its
 * own segment's name from /dev/shm, then dies of the signal as before, or
 * runs the program's own SIGTERM handler. The PE is a child process that
 * opens the transport as PE 0 of 2 and waits in connect for a PE 1 that
 * never comes. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "transport.h"

static void on_term(int sig)
{
    (void)sig;
    _exit(42);
}

/* the child: PE 0 of a job of 2 that waits for PE 1 */
static void __attribute__((noreturn)) pe0(const char *job, int own_handler)
{
    static volatile uint32_t failed;
    static volatile int32_t  status;
    struct kumi_tp           tp;
    int                      node_of[2] = { 0, 0 };
    struct kumi_tp_boot      boot = { .name = "test", .nodes = 1, .node_of = node_of,
                                      .local_size = 2, .job_id = job };
    struct kumi_tp_params    p = {
        .rank = 0, .size = 2, .job_id = job, .llcm_size = 64 << 10, .heap_size = 2 << 20,
        .heap_align = 2 << 20, .connect_timeout = 20,
        .failed = &failed, .fail_status = &status, .boot = &boot,
    };

    if (own_handler)
        signal(SIGTERM, on_term);
    memset(&tp, 0, sizeof(tp));
    tp.ops = kumi_tp_lookup("shm");
    if (kumi_tp_open(&tp, &p) != KUMI_OK)
        _exit(3);
    kumi_tp_connect(&tp);   /* waits for PE 1: only the signal ends it */
    _exit(4);
}

static int exists(const char *path)
{
    return access(path, F_OK) == 0;
}

static void run_case(int own_handler)
{
    char            job[64], path[128];
    pid_t           pid;
    int             status, waited = 0;
    struct timespec nap = { 0, 10000000 };

    snprintf(job, sizeof(job), "%d-5eed%012x", (int)getpid(), own_handler);
    snprintf(path, sizeof(path), "/dev/shm/kumi-%s-0", job);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        pe0(job, own_handler);
    while (!exists(path) && waited++ < 1000)
        nanosleep(&nap, NULL);
    assert_true(exists(path));
    nanosleep(&nap, NULL);   /* into connect's wait */
    assert_int_equal(kill(pid, SIGTERM), 0);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (own_handler) {
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 42);
    } else {
        assert_true(WIFSIGNALED(status));
        assert_int_equal(WTERMSIG(status), SIGTERM);
    }
    int left = exists(path);
    if (left)
        unlink(path);   /* not left for the next test, whatever happened */
    assert_false(left);
}

static void test_default(void **state)
{
    (void)state;
    run_case(0);
}

static void test_own_handler(void **state)
{
    (void)state;
    run_case(1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default),
        cmocka_unit_test(test_own_handler),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
