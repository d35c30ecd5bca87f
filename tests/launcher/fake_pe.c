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
 *     watch:MS      poll ctl->failed for up to MS ms, as a blocked kumi
 *                   wait does; prints "PE r saw failed=F status=S", or
 *                   "PE r saw no failure"
 *     exit:N        exit with status N
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
        else if (strncmp(a, "exit:", 5) == 0)
            exit((int)n);
        else
            fake_die("bad step (or step before init)");
    }
    return 0;
}
