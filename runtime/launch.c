/* launch.c -- job-private shm names and cleanup, shared by kumirun and PEs. */
#include "launch.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>

char *kumi_launch_segname(char *buf, size_t len, const char *job, const char *what)
{
    snprintf(buf, len, "/kumi-%s-%s", job, what);
    return buf;
}

int kumi_launch_sweep_stale(void)
{
    DIR           *dir = opendir("/dev/shm");
    struct dirent *de;
    int            removed = 0;

    if (dir == NULL)
        return 0;
    while ((de = readdir(dir)) != NULL) {
        char *end;
        long  pid;

        if (strncmp(de->d_name, "kumi-", 5) != 0)
            continue;
        pid = strtol(de->d_name + 5, &end, 10);
        if (end == de->d_name + 5 || *end != '-' || pid <= 0)
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;   /* its launcher still runs (or is not ours to judge) */
        char name[300];
        snprintf(name, sizeof(name), "/%s", de->d_name);
        if (shm_unlink(name) == 0)
            removed++;
    }
    closedir(dir);
    return removed;
}

void kumi_launch_unlink_job(const char *job)
{
    DIR           *dir = opendir("/dev/shm");
    struct dirent *de;
    char           prefix[96], name[300];
    size_t         plen;

    /* every shm object of the job, whatever its transport made */
    plen = (size_t)snprintf(prefix, sizeof(prefix), "kumi-%s-", job);
    if (dir == NULL || plen >= sizeof(prefix)) {
        if (dir != NULL)
            closedir(dir);
        return;
    }
    while ((de = readdir(dir)) != NULL) {
        if (strncmp(de->d_name, prefix, plen) != 0)
            continue;
        snprintf(name, sizeof(name), "/%s", de->d_name);
        shm_unlink(name);
    }
    closedir(dir);
}
