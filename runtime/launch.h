/*
 * launch.h -- the contract between kumirun and the PEs it starts.
 *
 * kumirun creates one small control segment per job, "/kumi-<job>-ctl"
 * (mode 0600, created exclusively), and passes its name to the PEs through
 * the environment below. PEs record there that they initialized and
 * finalized, and that one of them asked the whole job to end
 * (kumi_global_exit); kumirun records there that the job is ending, which
 * every wait in every PE checks, so blocked calls return KUMI_ERR_PEER
 * instead of hanging. Every shm object of a job (the control segment, a
 * transport's segments) is named "/kumi-<job>-<what>", where <job> is
 * "<launcher pid>-<random hex>": kumirun removes them all at the end, and
 * a later kumirun removes those whose launcher is gone (see
 * kumi_launch_sweep_stale). Jobs of other launchers use the same form
 * (runtime/boot.h: job_id), so the sweep covers them too.
 */
#ifndef KUMI_LAUNCH_H
#define KUMI_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

/* environment set by kumirun for each PE */
#define KUMI_ENV_JOB_ID       "KUMI_JOB_ID"        /* "<pid>-<hex>"            */
#define KUMI_ENV_RANK         "KUMI_RANK"
#define KUMI_ENV_SIZE         "KUMI_SIZE"
#define KUMI_ENV_OVERSUB      "KUMI_OVERSUBSCRIBED" /* "1" when PEs > cores    */
#define KUMI_ENV_LAUNCHER_PID "KUMI_LAUNCHER_PID"
#define KUMI_ENV_LLC_CORES    "KUMI_LLC_CORES"     /* cores per last-level cache */
/* the bootstrap's exchange (kumirun serves a rendezvous, rdv.h) */
#define KUMI_ENV_RDV          "KUMI_RDV"           /* "addr:port" of kumirun's rendezvous */
#define KUMI_ENV_JOB_KEY      "KUMI_JOB_KEY"       /* 32 hex digits, random per job */
#define KUMI_ENV_TCP_ADDR     "KUMI_TCP_ADDR"      /* numeric address of this PE's host
                                                      that transports listen on (any
                                                      launcher: the user may set it) */
#define KUMI_ENV_REMOTE       "KUMI_REMOTE"        /* "1": started on another host
                                                      (through --rsh): no control
                                                      segment; failures arrive over
                                                      the rendezvous channel */
#define KUMI_ENV_NODE_MAP     "KUMI_NODE_MAP"      /* "NODE:COUNT[,NODE:COUNT...]":
                                                      COUNT consecutive ranks (from
                                                      0) run on node NODE; nodes are
                                                      hosts, numbered in order of
                                                      their lowest PE */

#define KUMI_CTL_MAGIC   0x6b756d692d63746cULL     /* "kumi-ctl" */
#define KUMI_CTL_VERSION 2

enum kumi_pe_state {
    KUMI_PE_STARTED     = 0,   /* launched, kumi_init not (yet) called */
    KUMI_PE_INITIALIZED = 1,
    KUMI_PE_FINALIZED   = 2
};

struct kumi_ctl_pe {
    volatile uint32_t state;    /* enum kumi_pe_state, written by the PE */
    volatile int32_t  pid;      /* written by the PE in kumi_init        */
};

struct kumi_ctl {
    uint64_t magic;             /* KUMI_CTL_MAGIC, written last by kumirun */
    uint32_t version;
    uint32_t npes;
    /* 0 while the job is healthy; else 1 + the PE that failed,
     * KUMI_CTL_FAIL_LAUNCHER when kumirun ends the job (signal, timeout),
     * or KUMI_CTL_FAIL_EXIT | (1 + PE) when PE asked it to end (exit_req) */
    volatile uint32_t failed;
    volatile int32_t  fail_status;  /* kumirun's exit status for the job: the
                                       failed PE's code (128+signal if killed),
                                       1 for a PE that left without finalize,
                                       124 timeout, 127 exec, 128+sig interrupt,
                                       or the status a PE asked for (exit_req) */
    /* 0, or the one request to end the job (kumi_global_exit) as
     * kumi_ctl_exit_req(pe, status): the first PE to swap it in from 0
     * wins (kumirun swaps in the request of a PE on another host, which
     * arrives over the rendezvous), so everybody agrees on one status. */
    volatile uint64_t exit_req;
    struct kumi_ctl_pe pe[];        /* npes entries */
};
/* the same value the transports report (transport/transport.h, which a
 * user of this name includes too; this header stays free of it so the
 * launcher's tests can use it without the library's include paths) */
#define KUMI_CTL_FAIL_LAUNCHER KUMI_TP_FAIL_LAUNCHER
#define KUMI_CTL_FAIL_EXIT     KUMI_TP_FAIL_EXIT

/* The exit_req word: 1 + pe in the low half, the status (0..255) above. */
static inline uint64_t kumi_ctl_exit_req(int pe, int status)
{
    return (uint64_t)(uint32_t)status << 32 | (uint32_t)(pe + 1);
}
static inline int kumi_ctl_exit_req_pe(uint64_t req) { return (int)(uint32_t)req - 1; }
static inline int kumi_ctl_exit_req_status(uint64_t req) { return (int)(req >> 32); }

static inline size_t kumi_ctl_bytes(uint32_t npes)
{
    return sizeof(struct kumi_ctl) + (size_t)npes * sizeof(struct kumi_ctl_pe);
}

/* "/kumi-<job>-<what>" into buf; returns buf. */
char *kumi_launch_segname(char *buf, size_t len, const char *job, const char *what);

/* Removes /dev/shm/kumi-* segments whose launcher pid no longer exists.
 * Returns the number removed. Conservative: a segment whose pid was reused
 * by an unrelated process stays until that process is gone too. */
int kumi_launch_sweep_stale(void);

/* Unlinks every shm object of job ("/kumi-<job>-*": the control segment
 * and whatever the transports made); ignores missing. */
void kumi_launch_unlink_job(const char *job);

#endif /* KUMI_LAUNCH_H */
