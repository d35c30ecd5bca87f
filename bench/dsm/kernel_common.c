/*
 * kernel_common.c -- the harness side of the DSM kernels' interface
 * (kernel.h): compiled by the project's compiler into kumi-bench, NOT
 * translated, so nothing here may load or store DSM memory.
 */
#include "kernel.h"

#include <kumi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* A kernel cannot return a status from here; a failed collective means the
 * job is failing (a peer died), so end this PE like kumi-bench does. */
static void kk_check(const char *call, int rc)
{
    if (rc != KUMI_OK) {
        fprintf(stderr, "kumi-bench[%d]: kernels: %s failed: %s\n", kumi_rank(), call,
                kumi_strerror(rc));
        exit(1);
    }
}

void *kk_share(void *p, int root)
{
    uint64_t a = (uint64_t)(uintptr_t)p;   /* a fixed width on every PE */

    kk_check("kumi_broadcast", kumi_broadcast(kumi_team_world(), &a, sizeof a, root));
    return (void *)(uintptr_t)a;
}

static void kk_stats_now(struct kk_stats *s)
{
    kumi_dsm_stats_t d;

    kk_check("kumi_dsm_stats", kumi_dsm_stats(&d));
    s->read_misses   = d.read_misses;
    s->write_misses  = d.write_misses;
    s->upgrades      = d.upgrades;
    s->msgs_sent     = d.msgs_sent;
    s->msgs_received = d.msgs_received;
}

void kk_timer_start(struct kk_result *r)
{
    kk_check("kumi_barrier", kumi_barrier(kumi_team_world()));
    kk_stats_now(&r->st0_);
    r->t0_ = kumi_wtime();
}

void kk_timer_stop(struct kk_result *r)
{
    struct kk_stats now;

    r->seconds = kumi_wtime() - r->t0_;
    /* the section ends for everyone at this barrier: what this PE serves
     * while it waits for slower PEs belongs to the section */
    kk_check("kumi_barrier", kumi_barrier(kumi_team_world()));
    kk_stats_now(&now);
    r->st.read_misses   = now.read_misses - r->st0_.read_misses;
    r->st.write_misses  = now.write_misses - r->st0_.write_misses;
    r->st.upgrades      = now.upgrades - r->st0_.upgrades;
    r->st.msgs_sent     = now.msgs_sent - r->st0_.msgs_sent;
    r->st.msgs_received = now.msgs_received - r->st0_.msgs_received;
    r->has_st           = 1;
}
