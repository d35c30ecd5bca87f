/*
 * fake_pe.c -- plays the PE's side of the launch contract (launch.h)
 * without the library, so the launcher tests can check what kumirun does
 * with a PE that initialized, finalized, or did neither, and what it
 * writes into the control segment when it ends a job.
 *
 *   kumi_test_fake_pe STEP...      steps run in order:
 *     init          map /kumi-<KUMI_JOB_ID>-ctl, check its header against
 *                   KUMI_SIZE, record pid, state = KUMI_PE_INITIALIZED
 *     finalize      state = KUMI_PE_FINALIZED
 *     ignore-term   ignore SIGTERM (to outlive kumirun's first signal)
 *     sleep:MS      sleep MS milliseconds
 *     ready:MS      wait until every PE initialized (MS at most), as a
 *                   PE's first kumi call after kumi_init could assume
 *     watch:MS      poll ctl->failed for up to MS ms, as a blocked kumi
 *                   wait does; prints "PE r saw failed=F status=S", or
 *                   "PE r saw no failure"
 *     exit:N        exit with status N
 *     exitreq:N     ask the job to end with status N, as kumi_global_exit
 *                   does on this host (swap kumi_ctl_exit_req into
 *                   exit_req, then failed; exit:N would follow); prints
 *                   "PE r lost the request to PE p (status s)" if another
 *                   came first
 *
 * A header that does not match exits 99 with a message.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "launch.h"
#include "transport.h"   /* what KUMI_CTL_FAIL_* stand for */

static struct kumi_ctl *ctl;
static int              rank = -1;

static void fake_die(const char *what)
{
    fprintf(stderr, "fake_pe[%d]: %s\n", rank, what);
    exit(99);
}

static void fake_sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static void fake_init(void)
{
    const char *job = getenv(KUMI_ENV_JOB_ID), *size = getenv(KUMI_ENV_SIZE);
    char        name[128];
    int         fd, npes = size ? atoi(size) : 0;

    if (job == NULL || npes < 1 || rank < 0 || rank >= npes)
        fake_die("KUMI_JOB_ID, KUMI_SIZE or KUMI_RANK missing or wrong");
    kumi_launch_segname(name, sizeof(name), job, "ctl");
    fd = shm_open(name, O_RDWR, 0);
    if (fd < 0)
        fake_die("cannot open the control segment");
    ctl = mmap(NULL, kumi_ctl_bytes((uint32_t)npes), PROT_READ | PROT_WRITE, MAP_SHARED,
               fd, 0);
    close(fd);
    if (ctl == MAP_FAILED)
        fake_die("cannot map the control segment");
    if (__atomic_load_n(&ctl->magic, __ATOMIC_ACQUIRE) != KUMI_CTL_MAGIC ||
        ctl->version != KUMI_CTL_VERSION || ctl->npes != (uint32_t)npes)
        fake_die("control segment header does not match");
    if (ctl->pe[rank].state != KUMI_PE_STARTED || ctl->failed != 0)
        fake_die("control segment not fresh");
    ctl->pe[rank].pid = (int32_t)getpid();
    __atomic_store_n(&ctl->pe[rank].state, KUMI_PE_INITIALIZED, __ATOMIC_RELEASE);
}

static void fake_ready(long ms)
{
    for (long waited = 0; waited < ms; waited += 5) {
        uint32_t r = 0;
        while (r < ctl->npes && __atomic_load_n(&ctl->pe[r].state, __ATOMIC_ACQUIRE)
                                    != KUMI_PE_STARTED)
            r++;
        if (r == ctl->npes)
            return;
        fake_sleep_ms(5);
    }
    fake_die("not every PE initialized in time");
}

static void fake_watch(long ms)
{
    for (long waited = 0; waited < ms; waited += 5) {
        uint32_t failed = __atomic_load_n(&ctl->failed, __ATOMIC_ACQUIRE);
        if (failed != 0) {
            printf("PE %d saw failed=%u status=%d\n", rank, failed, (int)ctl->fail_status);
            fflush(stdout);
            return;
        }
        fake_sleep_ms(5);
    }
    printf("PE %d saw no failure\n", rank);
    fflush(stdout);
}

static void fake_exit_request(int status)
{
    uint64_t req = 0;

    if (!__atomic_compare_exchange_n(&ctl->exit_req, &req, kumi_ctl_exit_req(rank, status), 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        printf("PE %d lost the request to PE %d (status %d)\n", rank, kumi_ctl_exit_req_pe(req),
               kumi_ctl_exit_req_status(req));
        fflush(stdout);
    } else {
        ctl->fail_status = status;
        __atomic_store_n(&ctl->failed, KUMI_CTL_FAIL_EXIT | (uint32_t)(rank + 1),
                         __ATOMIC_RELEASE);
    }
}

int main(int argc, char **argv)
{
    const char *r = getenv(KUMI_ENV_RANK);

    rank = r ? atoi(r) : -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *colon = strchr(a, ':');
        long        n = colon ? strtol(colon + 1, NULL, 10) : 0;

        if (strcmp(a, "init") == 0)
            fake_init();
        else if (strcmp(a, "finalize") == 0 && ctl != NULL)
            __atomic_store_n(&ctl->pe[rank].state, KUMI_PE_FINALIZED, __ATOMIC_RELEASE);
        else if (strcmp(a, "ignore-term") == 0)
            signal(SIGTERM, SIG_IGN);
        else if (strncmp(a, "sleep:", 6) == 0)
            fake_sleep_ms(n);
        else if (strncmp(a, "watch:", 6) == 0 && ctl != NULL)
            fake_watch(n);
        else if (strncmp(a, "ready:", 6) == 0 && ctl != NULL)
            fake_ready(n);
        else if (strncmp(a, "exit:", 5) == 0)
            exit((int)n);
        else if (strncmp(a, "exitreq:", 8) == 0 && ctl != NULL)
            fake_exit_request((int)n);
        else
            fake_die("bad step (or step before init)");
    }
    return 0;
}
