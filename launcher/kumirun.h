/*
 * kumirun.h -- the launcher's internal interface, shared by kumirun.c
 * (options, environment, control segment) and kumirun_supervise.c (starting
 * the PEs, watching them, ending the job). Nothing else includes it.
 */
#ifndef KUMI_KUMIRUN_H
#define KUMI_KUMIRUN_H

#include <signal.h>
#include <sys/types.h>
#include <time.h>

#include "launch.h"
#include "rdv_server.h"
#include "topology.h"

#define KUMI_RUN_MAX_PES   4096
#define KUMI_RUN_EXIT_USAGE   2   /* bad options or environment: nothing ran */
#define KUMI_RUN_EXIT_TIMEOUT 124 /* as timeout(1)                           */
#define KUMI_RUN_EXIT_EXEC    127 /* as the shells: command not runnable      */
#define KUMI_RUN_EXIT_LOST    1   /* a PE lost over the rendezvous: its status
                                     is unknown                              */

/* One entry of --hosts (or the implicit "this host" of a one-host job). */
struct kumi_run_host {
    char name[256];                  /* as given: what --rsh is told          */
    char addr[64];                   /* numeric: KUMI_TCP_ADDR of its PEs     */
    int  count;                      /* PEs on it                             */
    int  local;                      /* an address of this machine            */
};

/* What the rendezvous said about one PE (one that joined it). */
struct kumi_run_rdv_pe {
    unsigned char   joined, bye, finalized;
    unsigned char   lost;            /* enum kumi_rdv_event of the loss, or 0 */
    struct timespec lost_at;         /* report it then unless it exits first  */
    unsigned char   closed;          /* its rendezvous connection is gone     */
    /* a PE of this host once silent past the heartbeat timeout but alive:
     * the state of its process when last looked at (kumi_rdv_proc_state),
     * and how long it had been silent then (kumi_run_on_quiet) */
    char            quiet_state;
    double          quiet_s;
    /* a remote PE that exited 0 before its BYE arrived: the BYE travels on
     * another connection than the rsh's exit, and may come a little later */
    unsigned char   bye_wait;
    pid_t           bye_pid;
    struct timespec bye_at;          /* judge it then at the latest           */
};

struct kumi_run_job {
    /* set up by kumirun.c before kumi_run_spawn */
    char             job[64];        /* "<pid>-<hex>", see launch.h          */
    pid_t            self;           /* kumirun's pid                         */
    int              npes;
    char           **argv;           /* PROGRAM ARGS..., NULL-terminated      */
    struct kumi_ctl *ctl;
    size_t           ctl_bytes;
    struct kumi_topo topo;           /* ncores == 0 when hwloc failed         */
    int              bind;           /* bind PE i to core i                   */
    int              report_bindings;
    unsigned         ncores;         /* cores this host lets us use           */
    unsigned         timeout;        /* seconds, 0 for none                   */
    int              log;            /* KUMI_LOG: KUMI_LOG_ERROR..DEBUG       */
    unsigned         dead_s;         /* KUMI_HEARTBEAT_TIMEOUT                */
    int              wait_auto;      /* KUMI_WAIT=auto: the load may decide   */
    sigset_t         sigs;           /* blocked, taken by the supervisor      */

    /* hosts and the rendezvous: set up by kumirun.c */
    int                     multi;   /* --hosts given: messages name hosts    */
    struct kumi_run_host   *hosts;   /* nhosts entries                        */
    int                     nhosts;
    int                    *host_of; /* per rank: index into hosts            */
    int                    *node_of; /* per host: its node; hosts that are one
                                        machine share one, numbered in order
                                        of their lowest PE (KUMI_NODE_MAP)   */
    int                    *core_of; /* per rank: index among its host's PEs  */
    char                  **rsh;     /* --rsh split on spaces, NULL-terminated */
    char                   *rsh_words;
    const char             *program; /* PROGRAM as remote hosts run it        */
    struct kumi_rdv_server *rdv;     /* NULL until set up                     */
    struct kumi_run_rdv_pe *rdv_pe;  /* per rank                              */

    /* owned by kumirun_supervise.c */
    pid_t           *pids;           /* per rank; 0 once reaped               */
    struct kumi_run_exit { int rank; pid_t pid; int status; } *exits; /* reap's batch */
    /* the first PE that exited non-zero while the others live: judged
     * only after KUMI_RUN_CAUSE_GRACE_S, in case a PE killed by a signal
     * turns up meanwhile (then that is the cause, and this a consequence) */
    struct kumi_run_exit pending;
    int              pending_set;
    struct timespec  pending_at;
    int              live;           /* PEs started and not yet reaped        */
    int              bye_waits;      /* PEs with rdv_pe[].bye_wait set        */
    pid_t            pgid;           /* the PEs' process group (PE 0's pid)   */
    int              ending;         /* the job is being terminated           */
    int              by_request;     /* ... because a PE asked (global exit)  */
    int              termed;         /* SIGTERM sent                          */
    int              killed;         /* SIGKILL sent                          */
    int              exit_code;      /* kumirun's exit status                 */
    struct timespec  deadline;       /* --timeout, if any                     */
    struct timespec  term_at;        /* when the PEs' notice ends: SIGTERM    */
    struct timespec  report_until;   /* ... at the latest, while PEs in kumi
                                        may still be reporting (PE failure) */
    struct timespec  kill_at;        /* when SIGTERM turns into SIGKILL       */
};

/* Starts the PEs (signals in j->sigs must already be blocked). A failure
 * to start one (fork, exec) is reported once and begins ending the job,
 * which kumi_run_supervise then completes. */
void kumi_run_spawn(struct kumi_run_job *j);

/* Waits for the job to end, ending it on the first failure, on a signal to
 * kumirun or on --timeout; returns kumirun's exit status. Every PE has been
 * reaped when it returns. */
int kumi_run_supervise(struct kumi_run_job *j);

/* Called by the rendezvous server (a kumi_rdv_event_fn; arg is the job). */
void kumi_run_on_rdv(void *arg, int rank, enum kumi_rdv_event ev, int value);
/* ... and before it reports a PE silent (a kumi_rdv_quiet_fn): spares a PE
 * of this host whose process is alive (launcher/README.md, "Failures"). */
double kumi_run_on_quiet(void *arg, int rank, double silent);

/* "PE 3 (pid 1234)", or "PE 3 (pid 1234 on HOST)" in --hosts jobs. */
const char *kumi_run_pe_name(const struct kumi_run_job *j, int rank, pid_t pid, char *buf,
                             size_t len);

/* "SIGKILL" for 9; "SIG<n>" for a signal it does not know. */
const char *kumi_run_signame(int sig, char *buf, size_t len);

#endif /* KUMI_KUMIRUN_H */
