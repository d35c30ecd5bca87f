/*
 * kumirun_supervise.c -- starting the PEs, watching them, ending the job.
 *
 * The PEs share one process group of their own (PE 0 leads it), so a
 * terminal's Ctrl-C reaches only kumirun, which then ends the job in order,
 * and so kumirun can signal every process of the job, a PE's own children
 * included, at once. Each PE also dies with kumirun (PR_SET_PDEATHSIG), so
 * even a SIGKILLed kumirun leaves no PE behind; its segments are swept by
 * the next kumirun (kumi_launch_sweep_stale).
 *
 * Ending a job: the first failure (a PE that exits non-zero, is killed, or
 * exits after kumi_init without kumi_finalize) is reported once and written
 * into the control segment, where every waiting PE sees it and returns
 * KUMI_ERR_PEER; after a notice (so PEs blocked in kumi calls can say
 * where they were and exit on their own) SIGTERM to the group, SIGKILL 1 s
 * later. The notice is 0.3 s, but lasts while a PE of this host that
 * called kumi_init and not kumi_finalize is still alive, up to
 * KUMI_HEARTBEAT_TIMEOUT after the failure: such a PE sees the failure in
 * its next kumi call and leaves by itself, unless it gets no CPU (a loaded
 * machine) or computes outside kumi; the heartbeat timeout is how long kumi
 * waits for a silent peer anyway. A job whose PEs all left ends at once,
 * whatever the notice. An interrupt or --timeout gives no notice. Deaths
 * caused by that are consequences, not reported as failures.
 *
 * A PE may also end the job on purpose (kumi_global_exit): it records its
 * request in the control segment (or, from another host, sends EXIT over
 * the rendezvous) before it exits, so the request is known by the time
 * any exit it causes is judged. That is no failure: kumirun ends the job
 * as above with a shorter notice, prints nothing unless KUMI_LOG=info,
 * and exits with the status the PE asked for, 0 included.
 *
 * PEs that joined the rendezvous (rdv.h: a transport that exchanges
 * addresses, such as tcp) are watched over it too: kumirun also sends
 * FAIL over it when the job ends (PEs on other hosts have no control
 * segment), and a PE whose connection ends without BYE, or that falls
 * silent, is a failed PE. A PE on another host runs under an --rsh child
 * of ours, which stands for it in the process group: its exit status is
 * the PE's as far as the rsh passes it on. Signals arrive through a
 * signalfd, so one poll waits for them and for the rendezvous.
 */
#include "kumirun.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "kumi.h"

#define KUMI_RUN_TICK_NS      (100 * 1000000L) /* supervisor's longest sleep     */
#define KUMI_RUN_GRACE_S      1                /* SIGTERM .. SIGKILL             */
#define KUMI_RUN_NOTICE_NS    (300 * 1000000L) /* failure flag .. SIGTERM        */
#define KUMI_RUN_EXIT_NOTICE_NS (200 * 1000000L) /* exit request .. SIGTERM: PEs
                                                  blocked in kumi see it at once
                                                  and have nothing to report,
                                                  but may finalize and exit   */
#define KUMI_RUN_EXEC_WAIT_MS 10000            /* bound on "did every exec work" */
#define KUMI_RUN_CAUSE_GRACE_S 0.2             /* exit code .. judged, see below */
#define KUMI_RUN_BYE_GRACE_S 2.0               /* exit 0 .. its BYE, see below */
#define KUMI_RUN_LOST_GRACE_S 0.5              /* EOF .. "lost", if it has not
                                                  exited with a status by then  */
#define KUMI_RUN_QUIET_LOOK_S 0.5              /* a silent local PE is looked
                                                  at this often                 */

/* What a child whose exec failed tells kumirun, through a close-on-exec
 * pipe: EOF on it means every PE reached its program. */
struct kumi_run_exec_err {
    int32_t rank;
    int32_t err;
};

static int kumi_run_ts_reached(const struct timespec *now, const struct timespec *t)
{
    return now->tv_sec > t->tv_sec || (now->tv_sec == t->tv_sec && now->tv_nsec >= t->tv_nsec);
}

/* t += s seconds, s < 1 */
static void kumi_run_ts_add(struct timespec *t, double s)
{
    t->tv_nsec += (long)(s * 1e9);
    if (t->tv_nsec >= 1000000000L) {
        t->tv_sec++;
        t->tv_nsec -= 1000000000L;
    }
}

const char *kumi_run_pe_name(const struct kumi_run_job *j, int rank, pid_t pid, char *buf,
                             size_t len)
{
    if (j->multi)
        snprintf(buf, len, "PE %d (pid %ld on %s)", rank, (long)pid,
                 j->hosts[j->host_of[rank]].name);
    else
        snprintf(buf, len, "PE %d (pid %ld)", rank, (long)pid);
    return buf;
}

static int kumi_run_is_remote(const struct kumi_run_job *j, int rank)
{
    return j->host_of != NULL && !j->hosts[j->host_of[rank]].local;
}

/* Signals every process of the job. The group reaches PEs' own children;
 * a PE that left the group (setsid, setpgid) is signalled by pid. Only
 * while some PE is unreaped: until then the group id cannot be reused. */
static void kumi_run_signal_all(struct kumi_run_job *j, int sig)
{
    if (j->live == 0 || j->pgid <= 0)
        return;
    kill(-j->pgid, sig);
    for (int r = 0; r < j->npes; r++)
        if (j->pids[r] > 0 && getpgid(j->pids[r]) != j->pgid)
            kill(j->pids[r], sig);
}

static void kumi_run_kill(struct kumi_run_job *j)
{
    if (j->killed)
        return;
    j->killed = 1;
    /* a job that ends by request has nothing to report: a PE slow to die
     * (or ignoring SIGTERM) is kumirun's business then */
    if (j->live > 0 && (!j->by_request || j->log >= KUMI_LOG_DEBUG))
        fprintf(stderr, "kumirun: %d PE%s still running; sending SIGKILL\n", j->live,
                j->live == 1 ? "" : "s");
    kumi_run_signal_all(j, SIGKILL);
}

/* Starts ending the job; only the first cause counts. failed and status go
 * to the control segment (launch.h); status is also kumirun's exit status,
 * so PEs and kumirun tell the same story. */
static void kumi_run_end(struct kumi_run_job *j, uint32_t failed, int status)
{
    if (j->ending)
        return;
    j->ending    = 1;
    j->exit_code = status;
    __atomic_store_n(&j->ctl->fail_status, status, __ATOMIC_RELAXED);
    __atomic_store_n(&j->ctl->failed, failed, __ATOMIC_RELEASE);  /* status first */
    kumi_rdv_server_fail(j->rdv, failed, status);   /* for PEs without the segment */
    clock_gettime(CLOCK_MONOTONIC, &j->term_at);
    j->report_until = j->term_at;
    if (kumi_tp_fail_is_exit(failed)) {
        kumi_run_ts_add(&j->term_at, KUMI_RUN_EXIT_NOTICE_NS * 1e-9);
        j->report_until = j->term_at;
    } else if (failed != KUMI_CTL_FAIL_LAUNCHER) {
        kumi_run_ts_add(&j->report_until, j->dead_s > 0 ? (double)j->dead_s : 10.0);
        kumi_run_ts_add(&j->term_at, KUMI_RUN_NOTICE_NS * 1e-9);
    }
    j->kill_at = j->term_at;
    j->kill_at.tv_sec += KUMI_RUN_GRACE_S;
}

/* Is a PE of this host still in kumi (initialized, not finalized, not
 * reaped)? It will see the failure in its next kumi call and leave by
 * itself; the notice waits for it (up to report_until). */
static int kumi_run_pes_in_kumi(const struct kumi_run_job *j)
{
    for (int r = 0; r < j->npes; r++)
        if (j->pids[r] > 0 && !kumi_run_is_remote(j, r)
            && __atomic_load_n(&j->ctl->pe[r].state, __ATOMIC_ACQUIRE) == KUMI_PE_INITIALIZED)
            return 1;
    return 0;
}

/* The notice is over at term_at, or later while PEs are in kumi (never
 * after report_until): SIGTERM then, and SIGKILL a grace later. */
static int kumi_run_notice_over(struct kumi_run_job *j, const struct timespec *now)
{
    if (j->termed)
        return 0;
    if (!kumi_run_ts_reached(now, &j->term_at))
        return 0;
    if (!kumi_run_ts_reached(now, &j->report_until) && kumi_run_pes_in_kumi(j))
        return 0;
    j->kill_at = *now;
    j->kill_at.tv_sec += KUMI_RUN_GRACE_S;
    return 1;
}

/* A PE asked the job to end with status (kumi_global_exit): rank >= 0
 * when the rendezvous brought the request, -1 to look for one in the
 * control segment. Of concurrent requests the one in the segment wins (a
 * PE on this host swapped it in; kumirun swaps in a remote one's), so
 * kumirun and every PE name the same request. Returns 1 when this call
 * began ending the job, 0 when nobody asked (or the job was ending). */
static int kumi_run_exit_request(struct kumi_run_job *j, int rank, int status)
{
    uint64_t req = 0;
    char     who[320];
    pid_t    pid;

    if (j->ending)
        return 0;
    if (rank >= 0) {
        uint64_t mine = kumi_ctl_exit_req(rank, status);
        if (__atomic_compare_exchange_n(&j->ctl->exit_req, &req, mine, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            req = mine;   /* else req is the request that came first */
    } else {
        req = __atomic_load_n(&j->ctl->exit_req, __ATOMIC_ACQUIRE);
    }
    rank   = kumi_ctl_exit_req_pe(req);
    status = kumi_ctl_exit_req_status(req);
    /* PEs write the segment: a value no PE of ours could mean is ignored,
     * and the exits that follow are judged as they come */
    if (req == 0 || rank < 0 || rank >= j->npes || status < 0 || status > 255)
        return 0;
    if (j->log >= KUMI_LOG_INFO) {
        pid = j->pids != NULL && j->pids[rank] > 0 ? j->pids[rank] : j->ctl->pe[rank].pid;
        fprintf(stderr, "kumirun: info: %s called kumi_global_exit(%d); ending the job\n",
                kumi_run_pe_name(j, rank, pid, who, sizeof(who)), status);
    }
    kumi_run_end(j, KUMI_CTL_FAIL_EXIT | (uint32_t)(rank + 1), status);
    j->by_request = 1;
    return 1;
}

/* The notice is over: ask every process of the job to go. */
static void kumi_run_term(struct kumi_run_job *j)
{
    if (j->termed)
        return;
    j->termed = 1;
    kumi_run_signal_all(j, SIGTERM);
    kumi_run_signal_all(j, SIGCONT);   /* a stopped PE cannot act on SIGTERM */
}

/* In the child: CMD HOST env KUMI_...=... PROGRAM ARGS. Every KUMI_*
 * variable goes on the command line, since the remote side starts from
 * its own environment. Returns only if exec fails. */
static void kumi_run_exec_remote(struct kumi_run_job *j, int rank)
{
    extern char **environ;
    size_t        n = 0, nenv = 0, nargs = 0;
    char        **argv;

    while (j->rsh[n] != NULL)
        n++;
    for (char **e = environ; *e != NULL; e++)
        nenv += strncmp(*e, "KUMI_", 5) == 0;
    while (j->argv[nargs] != NULL)
        nargs++;
    argv = calloc(n + nenv + nargs + 3, sizeof(*argv));
    if (argv == NULL)
        return;
    memcpy(argv, j->rsh, n * sizeof(*argv));
    argv[n++] = j->hosts[j->host_of[rank]].name;
    argv[n++] = "env";
    for (char **e = environ; *e != NULL; e++)
        if (strncmp(*e, "KUMI_", 5) == 0)
            argv[n++] = *e;
    argv[n++] = (char *)j->program;
    for (size_t i = 1; i < nargs; i++)
        argv[n++] = j->argv[i];
    execvp(argv[0], argv);
}

/* What rank's child execs: PROGRAM, or the rsh for a remote PE. */
static const char *kumi_run_cmd_of(const struct kumi_run_job *j, int rank)
{
    return rank >= 0 && rank < j->npes && kumi_run_is_remote(j, rank) ? j->rsh[0] : j->argv[0];
}

/* In the child, between fork and exec. kumirun is single-threaded, so any
 * call is safe here (stdio, malloc, hwloc). */
static void __attribute__((noreturn))
kumi_run_child(struct kumi_run_job *j, int rank, int errfd)
{
    struct kumi_run_exec_err e;
    sigset_t                 none;
    char                     text[16];
    int                      fd;

    /* Die with kumirun, even if it is SIGKILLed. It may have died before
     * the prctl took effect: then we are an orphan already. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != j->self)
        _exit(KUMI_RUN_EXIT_EXEC);
    setpgid(0, j->pgid);   /* 0 for PE 0: it founds the group */

    /* N PEs reading one terminal would steal each other's input */
    fd = open("/dev/null", O_RDONLY);
    if (fd >= 0 && fd != STDIN_FILENO) {
        dup2(fd, STDIN_FILENO);
        close(fd);
    }
    snprintf(text, sizeof(text), "%d", rank);
    setenv(KUMI_ENV_RANK, text, 1);
    {
        const struct kumi_run_host *h = &j->hosts[j->host_of[rank]];

        /* the address its transports listen on */
        setenv(KUMI_ENV_TCP_ADDR, h->addr, 1);
        if (h->local)
            unsetenv(KUMI_ENV_REMOTE);
        else
            setenv(KUMI_ENV_REMOTE, "1", 1);
        /* assumes the other hosts have as many cores as this one */
        if (j->multi)
            setenv(KUMI_ENV_OVERSUB, (unsigned)h->count > j->ncores ? "1" : "0", 1);
    }

    /* The program gets the signal state a shell would give it, not
     * kumirun's (SIGPIPE ignored, our signals blocked). Dispositions
     * first, so nothing pending runs a stale one when the mask opens. */
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            signal(sig, SIG_DFL);   /* fails harmlessly for libc-reserved ones */

    if (kumi_run_is_remote(j, rank)) {
        /* the rsh is ours to signal: it stays unbound, in the job's group */
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        kumi_run_exec_remote(j, rank);
    } else {
        unsigned core = (unsigned)j->core_of[rank];

        if (j->bind && kumi_topo_bind_core(&j->topo, core) != KUMI_OK)
            fprintf(stderr, "kumirun: warning: PE %d: cannot bind to core %u: %s\n", rank,
                    core % j->topo.ncores, strerror(errno));
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execvp(j->argv[0], j->argv);
    }

    e.rank = rank;
    e.err  = errno;
    signal(SIGPIPE, SIG_IGN);   /* kumirun may have stopped listening */
    if (write(errfd, &e, sizeof(e)) != (ssize_t)sizeof(e))
        fprintf(stderr, "kumirun: cannot run '%s': %s\n", kumi_run_cmd_of(j, rank),
                strerror(e.err));
    _exit(KUMI_RUN_EXIT_EXEC);
}

/* Waits until every PE has exec'd its program or failed to; on a failure
 * reports it once (not once per PE) and ends the job with status 127. */
static void kumi_run_check_exec(struct kumi_run_job *j, int fd)
{
    struct kumi_run_exec_err e;
    struct pollfd            p[2] = { { .fd = fd, .events = POLLIN },
                                      { .fd = j->rdv ? kumi_rdv_server_fd(j->rdv) : -1,
                                        .events = POLLIN } };
    ssize_t                  n;
    struct timespec          t0, now;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        /* PEs that started first are joining meanwhile: keep the
         * rendezvous going, or they would take kumirun for dead */
        int ready = poll(p, 2, 100);

        if (j->rdv != NULL)
            kumi_rdv_server_service(j->rdv, kumi_tp_now());
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (ready < 0 && errno == EINTR)
            continue;   /* stopped and continued (Ctrl-Z, fg) */
        if (ready < 0 || (now.tv_sec - t0.tv_sec) * 1000 +
                         (now.tv_nsec - t0.tv_nsec) / 1000000 > KUMI_RUN_EXEC_WAIT_MS)
            break;
        if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        n = read(fd, &e, sizeof(e));
        if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
            return;   /* EOF: all exec'd */
        if (n != (ssize_t)sizeof(e) || j->ending)
            continue;
        fprintf(stderr, "kumirun: cannot run '%s': %s\n", kumi_run_cmd_of(j, e.rank),
                strerror(e.err));
        kumi_run_end(j, (uint32_t)e.rank + 1, KUMI_RUN_EXIT_EXEC);
    }
    /* a PE slower than that to exec is treated as started; the supervisor
     * still sees it exit with 127 if its exec fails */
}

static void kumi_run_report_bindings(const struct kumi_run_job *j)
{
    char where[160];

    for (int r = 0; r < j->npes; r++) {
        if (j->pids[r] <= 0)
            continue;
        if (kumi_run_is_remote(j, r))
            fprintf(stderr, "kumirun: PE %d (rsh pid %ld) on %s\n", r, (long)j->pids[r],
                    j->hosts[j->host_of[r]].name);
        else if (j->bind)
            fprintf(stderr, "kumirun: PE %d (pid %ld) bound to %s\n", r, (long)j->pids[r],
                    kumi_topo_describe_core(&j->topo, (unsigned)j->core_of[r], where,
                                            sizeof(where)));
        else
            fprintf(stderr, "kumirun: PE %d (pid %ld) not bound\n", r, (long)j->pids[r]);
    }
}

void kumi_run_spawn(struct kumi_run_job *j)
{
    int errpipe[2];

    j->exit_code = 0;
    clock_gettime(CLOCK_MONOTONIC, &j->deadline);
    j->deadline.tv_sec += j->timeout;
    j->pids  = calloc((size_t)j->npes, sizeof(*j->pids));
    j->exits = calloc((size_t)j->npes, sizeof(*j->exits));
    if (j->pids == NULL || j->exits == NULL || pipe2(errpipe, O_CLOEXEC) != 0) {
        fprintf(stderr, "kumirun: cannot start the job: %s\n", strerror(errno));
        kumi_run_end(j, KUMI_CTL_FAIL_LAUNCHER, 1);
        return;
    }
    /* A PE's orphaned children become ours, not init's: we can reap them
     * while ending the job and know when its process group is empty. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    fflush(NULL);   /* or children would flush our buffered output again */
    for (int r = 0; r < j->npes; r++) {
        pid_t pid = fork();

        if (pid < 0) {
            fprintf(stderr, "kumirun: cannot start PE %d: fork: %s\n", r, strerror(errno));
            kumi_run_end(j, KUMI_CTL_FAIL_LAUNCHER, 1);
            break;
        }
        if (pid == 0) {
            close(errpipe[0]);
            kumi_run_child(j, r, errpipe[1]);
        }
        if (r == 0)
            j->pgid = pid;
        /* the child does the same: whichever runs first, the PE is in the
         * group before kumirun could signal it (EACCES once it exec'd) */
        setpgid(pid, j->pgid);
        j->pids[r] = pid;
        j->live++;
    }
    close(errpipe[1]);
    kumi_run_check_exec(j, errpipe[0]);
    close(errpipe[0]);
    if (j->report_bindings && !j->ending)
        kumi_run_report_bindings(j);
}

/* A PE's exit while the job is healthy: success, or the job's failure. */
/* Did PE r, which exited 0, leave without kumi_finalize? The control
 * segment says so for PEs on this host; the rendezvous for the others
 * (and for local ones that kept the segment's state at STARTED). */
static int kumi_run_left_unfinalized(const struct kumi_run_job *j, int r)
{
    if (!kumi_run_is_remote(j, r)) {
        uint32_t state = __atomic_load_n(&j->ctl->pe[r].state, __ATOMIC_ACQUIRE);
        if (state != KUMI_PE_STARTED)
            return state == KUMI_PE_INITIALIZED;
    }
    return j->rdv_pe != NULL && j->rdv_pe[r].joined &&
           !(j->rdv_pe[r].bye && j->rdv_pe[r].finalized);
}

/* Reports PE r's exit and ends the job if it failed. */
static void kumi_run_pe_judge(struct kumi_run_job *j, int r, pid_t pid, int status)
{
    char name[16], who[320];
    int  code;

    kumi_run_pe_name(j, r, pid, who, sizeof(who));
    if (WIFSIGNALED(status)) {
        code = 128 + WTERMSIG(status);
        fprintf(stderr, "kumirun: %s killed by signal %d (%s); "
                "terminating the job\n", who, WTERMSIG(status),
                kumi_run_signame(WTERMSIG(status), name, sizeof(name)));
    } else if ((code = WEXITSTATUS(status)) != 0) {
        fprintf(stderr, "kumirun: %s exited with code %d; "
                "terminating the job\n", who, code);
    } else if (kumi_run_left_unfinalized(j, r)) {
        /* its peers would wait for it forever in the next collective */
        code = 1;
        fprintf(stderr, "kumirun: %s exited without calling kumi_finalize; "
                "terminating the job\n", who);
    } else {
        return;   /* finalized, or a program that never used kumi */
    }
    kumi_run_end(j, (uint32_t)r + 1, code);
}

/* An exit that can only be a cause, never a consequence of another PE's
 * failure: killed by a signal, or (a PE of this host) exit 0 without
 * kumi_finalize. A PE that sees a peer fail exits non-zero, and may do so
 * before kumirun hears of the one that failed: over ucx the survivor
 * learns of a PE that returned from main without kumi_finalize as soon
 * as its connections close, while that PE is still exiting. */
static int kumi_run_exit_is_cause(const struct kumi_run_job *j, int r, int status)
{
    return WIFSIGNALED(status)
        || (WEXITSTATUS(status) == 0 && !kumi_run_is_remote(j, r)
            && kumi_run_left_unfinalized(j, r));
}

/* A PE's exit while the job is healthy. A non-zero exit code waits a
 * little before it ends the job: when a PE is killed, its peers over tcp
 * see the connection reset and may exit with an error before kumirun
 * hears of the killed one (its exit is signalled only after its threads
 * and memory are torn down), and the report must name the cause. */
static void kumi_run_pe_exited(struct kumi_run_job *j, int r, pid_t pid, int status)
{
    /* a PE that asked the job to end, or one that left because of that */
    if (j->ending || kumi_run_exit_request(j, -1, 0))
        return;   /* most likely our own SIGTERM */
    if (kumi_run_exit_is_cause(j, r, status)) {
        j->pending_set = 0;   /* the cause; a pending exit was its consequence */
        kumi_run_pe_judge(j, r, pid, status);
        return;
    }
    if (j->pending_set)
        return;   /* after the pending one: its consequence, not the cause */
    if (WEXITSTATUS(status) != 0 && j->live > 0) {
        j->pending     = (struct kumi_run_exit){ .rank = r, .pid = pid, .status = status };
        j->pending_set = 1;
        clock_gettime(CLOCK_MONOTONIC, &j->pending_at);
        kumi_run_ts_add(&j->pending_at, KUMI_RUN_CAUSE_GRACE_S);
        return;
    }
    if (WEXITSTATUS(status) == 0 && kumi_run_is_remote(j, r) && j->rdv_pe != NULL &&
        j->rdv_pe[r].joined && !j->rdv_pe[r].bye && !j->rdv_pe[r].closed) {
        /* the rsh's exit overtook the BYE on the rendezvous connection:
         * judge when the BYE (or the connection's end) arrives */
        struct kumi_run_rdv_pe *p = &j->rdv_pe[r];

        p->bye_wait = 1;
        p->bye_pid  = pid;
        clock_gettime(CLOCK_MONOTONIC, &p->bye_at);
        kumi_run_ts_add(&p->bye_at, KUMI_RUN_BYE_GRACE_S);
        j->bye_waits++;
        return;
    }
    kumi_run_pe_judge(j, r, pid, status);
}

/* Remote PEs that exited 0 and whose BYE, or the end of whose rendezvous
 * connection, has arrived since (or whose grace ran out). */
static void kumi_run_check_bye(struct kumi_run_job *j, const struct timespec *now)
{
    for (int r = 0; j->bye_waits > 0 && r < j->npes; r++) {
        struct kumi_run_rdv_pe *p = &j->rdv_pe[r];

        if (!p->bye_wait || !(p->bye || p->closed || kumi_run_ts_reached(now, &p->bye_at)))
            continue;
        p->bye_wait = 0;
        j->bye_waits--;
        if (!j->ending && !kumi_run_exit_request(j, -1, 0))
            kumi_run_pe_judge(j, r, p->bye_pid, 0);
    }
}

/* Judges a pending exit whose grace ran out (or once no PE is left). */
static void kumi_run_check_pending(struct kumi_run_job *j, const struct timespec *now)
{
    if (j->pending_set && (j->live == 0 || kumi_run_ts_reached(now, &j->pending_at))) {
        j->pending_set = 0;
        if (!j->ending && !kumi_run_exit_request(j, -1, 0))
            kumi_run_pe_judge(j, j->pending.rank, j->pending.pid, j->pending.status);
    }
}

/* Reaps every PE that exited (and the PEs' orphans, ours as subreaper).
 * Exits that arrive together are judged causes first (killed ones, those
 * that left without kumi_finalize): when a PE is killed its peers may exit
 * non-zero, having seen it go, before kumirun hears of it, and the report
 * must name the cause, not a consequence. */
static void kumi_run_reap(struct kumi_run_job *j)
{
    pid_t pid;
    int   status, n = 0;

    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        for (int r = 0; r < j->npes; r++) {
            if (j->pids[r] != pid)
                continue;
            j->pids[r] = 0;
            j->live--;
            if (j->rdv_pe != NULL)
                j->rdv_pe[r].lost = 0;   /* its status tells more than its EOF */
            j->exits[n].rank   = r;
            j->exits[n].pid    = pid;
            j->exits[n].status = status;
            n++;
            break;
        }
    }
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++)
            if ((pass == 0) == kumi_run_exit_is_cause(j, j->exits[i].rank, j->exits[i].status))
                kumi_run_pe_exited(j, j->exits[i].rank, j->exits[i].pid, j->exits[i].status);
}

/* What a silent PE's process was doing when last looked at. */
static const char *kumi_run_state_name(char st)
{
    switch (st) {
    case 'R': return "running or waiting for a CPU";
    case 'D': return "waiting in the kernel";
    case 'T': return "stopped";
    case 'S': return "asleep";
    default:  return "exiting";
    }
}

/* A PE the rendezvous lost, reported like one that died here. */
static void kumi_run_lost(struct kumi_run_job *j, int r, enum kumi_rdv_event ev)
{
    char who[320];
    char st = j->rdv_pe[r].quiet_state;

    if (j->ending || kumi_run_exit_request(j, -1, 0))
        return;
    kumi_run_pe_name(j, r, j->pids[r], who, sizeof(who));
    if (ev == KUMI_RDV_EV_SILENT && st != 0)
        fprintf(stderr, "kumirun: %s hung: alive (%s) but nothing heard from it for %.1f s; "
                "terminating the job\n", who, kumi_run_state_name(st), j->rdv_pe[r].quiet_s);
    else if (ev == KUMI_RDV_EV_SILENT)
        fprintf(stderr, "kumirun: %s lost: nothing heard from it for %.1f s (host down or "
                "unreachable?); terminating the job\n", who, (double)j->dead_s);
    else if (ev == KUMI_RDV_EV_EOF)
        fprintf(stderr, "kumirun: %s lost: its rendezvous connection closed without BYE; "
                "terminating the job\n", who);
    else
        fprintf(stderr, "kumirun: %s lost: it broke the rendezvous protocol; "
                "terminating the job\n", who);
    kumi_run_end(j, (uint32_t)r + 1, KUMI_RUN_EXIT_LOST);
}

void kumi_run_on_rdv(void *arg, int rank, enum kumi_rdv_event ev, int value)
{
    struct kumi_run_job    *j = arg;
    struct kumi_run_rdv_pe *p = &j->rdv_pe[rank];

    switch (ev) {
    case KUMI_RDV_EV_JOINED:
        p->joined = 1;
        break;
    case KUMI_RDV_EV_BYE:
        p->bye       = 1;
        p->finalized = (unsigned char)(value != 0);
        break;
    case KUMI_RDV_EV_EXIT:
        kumi_run_exit_request(j, rank, value);
        break;
    case KUMI_RDV_EV_SILENT:
        p->closed = 1;
        /* a host that vanished: nothing better is coming */
        if (j->pids == NULL || j->pids[rank] > 0)
            kumi_run_lost(j, rank, ev);
        break;
    default:
        /* EOF: the PE most likely died, and its exit status (or the
         * rsh's) is the better report; wait a little for it */
        p->closed = 1;
        if (j->ending || j->pids == NULL || j->pids[rank] <= 0)
            break;
        p->lost = (unsigned char)ev;
        clock_gettime(CLOCK_MONOTONIC, &p->lost_at);
        kumi_run_ts_add(&p->lost_at, KUMI_RUN_LOST_GRACE_S);
        break;
    }
}

/* The rendezvous' question before it reports PE rank silent (rdv.h,
 * "Silence is not always absence"). A PE on another host is lost now: its
 * host may be gone. A PE of this host whose process is alive is starved
 * of CPU (a loaded machine: its serving thread waits for a core), stopped
 * (SIGSTOP, a debugger) or stuck, none of which is a vanished host: it is
 * looked at again every KUMI_RUN_QUIET_LOOK_S and reported hung only when
 * the silence reaches KUMI_RDV_ALIVE_FACTOR x the heartbeat timeout. One
 * that is exiting gets the grace an EOF gets: its exit status, which
 * kumirun reaps, is the better report. The PE's own pid is the one it
 * wrote into the control segment (the child may be a wrapper). */
double kumi_run_on_quiet(void *arg, int rank, double silent)
{
    struct kumi_run_job    *j = arg;
    struct kumi_run_rdv_pe *p = &j->rdv_pe[rank];
    long                    pid;
    char                    st;

    if (j->pids == NULL || j->pids[rank] <= 0 || kumi_run_is_remote(j, rank))
        return 0;
    pid = __atomic_load_n(&j->ctl->pe[rank].pid, __ATOMIC_RELAXED);
    st  = kumi_rdv_proc_state(pid > 0 ? pid : (long)j->pids[rank]);
    if (st == 0 && pid > 0 && pid != j->pids[rank])
        st = kumi_rdv_proc_state((long)j->pids[rank]);   /* its wrapper lives on */
    if (silent >= (double)j->dead_s * KUMI_RDV_ALIVE_FACTOR) {
        p->quiet_s = silent;
        if (st == 0)
            st = p->quiet_state != 0 ? p->quiet_state : 'X';
        p->quiet_state = st;
        return 0;
    }
    if (st == 0)
        return KUMI_RUN_LOST_GRACE_S;
    if (p->quiet_state == 0 && j->log >= KUMI_LOG_INFO) {
        char who[320];
        fprintf(stderr, "kumirun: info: %s silent for %.1f s but alive (%s); waiting up to "
                "%.0f s\n", kumi_run_pe_name(j, rank, j->pids[rank], who, sizeof(who)), silent,
                kumi_run_state_name(st), (double)j->dead_s * KUMI_RDV_ALIVE_FACTOR);
    }
    p->quiet_state = st;
    p->quiet_s     = silent;
    return KUMI_RUN_QUIET_LOOK_S;
}

/* Losses whose grace ran out without an exit status. */
static void kumi_run_check_lost(struct kumi_run_job *j, const struct timespec *now)
{
    if (j->rdv_pe == NULL || j->ending)
        return;
    for (int r = 0; r < j->npes; r++)
        if (j->rdv_pe[r].lost && j->pids[r] > 0 && kumi_run_ts_reached(now, &j->rdv_pe[r].lost_at)) {
            enum kumi_rdv_event ev = (enum kumi_rdv_event)j->rdv_pe[r].lost;
            j->rdv_pe[r].lost = 0;
            kumi_run_lost(j, r, ev);
        }
}

static void kumi_run_on_signal(struct kumi_run_job *j, int sig)
{
    char name[16];

    switch (sig) {
    case SIGCHLD:
        break;   /* the caller reaps */
    case SIGTSTP:
        /* Ctrl-Z reaches kumirun only: stop the PEs, then ourselves */
        if (!j->ending) {
            kumi_run_signal_all(j, SIGSTOP);
            raise(SIGSTOP);
        }
        break;
    case SIGCONT:
        kumi_run_signal_all(j, SIGCONT);
        break;
    default:   /* SIGINT, SIGTERM, SIGHUP, SIGQUIT */
        if (!j->ending) {
            fprintf(stderr, "kumirun: interrupted by %s; terminating the job\n",
                    kumi_run_signame(sig, name, sizeof(name)));
            kumi_run_end(j, KUMI_CTL_FAIL_LAUNCHER, 128 + sig);
            kumi_run_term(j);
        } else {
            kumi_run_kill(j);   /* asked twice: no more grace */
        }
        break;
    }
}

/* After the PEs are gone, a child of theirs may linger in the group (one
 * that ignores SIGTERM, or is slow to die): give it the rest of the grace
 * period, then SIGKILL. The group id cannot be reused while a member
 * lives, and the kernel does not hand out a just-freed pid again soon. */
static void kumi_run_sweep_group(struct kumi_run_job *j)
{
    struct timespec now, nap = { 0, 20 * 1000000L };

    for (;;) {
        /* orphans of the job are ours (subreaper): reap them, or their
         * zombies would keep the group alive */
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        if (j->pgid <= 0 || kill(-j->pgid, 0) != 0)
            return;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (j->killed || kumi_run_ts_reached(&now, &j->kill_at))
            break;
        nanosleep(&nap, NULL);
    }
    kill(-j->pgid, SIGKILL);
}

/* Waits up to one tick for a signal or the rendezvous and handles what
 * came. sfd < 0: no signalfd, signals by sigtimedwait (the rendezvous is
 * then serviced once per tick, still well within a heartbeat). */
static void kumi_run_wait_tick(struct kumi_run_job *j, int sfd)
{
    struct pollfd p[2] = { { .fd = sfd, .events = POLLIN },
                           { .fd = j->rdv ? kumi_rdv_server_fd(j->rdv) : -1,
                             .events = POLLIN } };

    if (sfd >= 0) {
        struct signalfd_siginfo si;

        if (poll(p, 2, KUMI_RUN_TICK_NS / 1000000) > 0 && (p[0].revents & POLLIN))
            while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
                kumi_run_on_signal(j, (int)si.ssi_signo);
    } else {
        /* A tick, not the exact deadline: SIGCHLD wakes us for exits, and
         * deadlines need no better than 0.1 s. */
        struct timespec tick = { 0, KUMI_RUN_TICK_NS };
        siginfo_t       info;
        int             sig = sigtimedwait(&j->sigs, &info, &tick);

        if (sig > 0)
            kumi_run_on_signal(j, sig);
    }
    if (j->rdv != NULL)
        kumi_rdv_server_service(j->rdv, kumi_tp_now());
}

int kumi_run_supervise(struct kumi_run_job *j)
{
    struct timespec now;
    /* the signals are blocked already: the fd only makes them pollable */
    int             sfd = signalfd(-1, &j->sigs, SFD_NONBLOCK | SFD_CLOEXEC);

    for (;;) {
        kumi_run_reap(j);
        clock_gettime(CLOCK_MONOTONIC, &now);
        kumi_run_check_pending(j, &now);
        if (j->bye_waits > 0)
            kumi_run_check_bye(j, &now);
        if (j->live == 0 && j->bye_waits == 0)
            break;
        kumi_run_check_lost(j, &now);
        /* a request whose PE is slow to exit (atexit handlers, a full
         * pipe) ends the job all the same */
        kumi_run_exit_request(j, -1, 0);
        if (j->ending && kumi_run_notice_over(j, &now))
            kumi_run_term(j);
        if (j->ending && j->termed && kumi_run_ts_reached(&now, &j->kill_at))
            kumi_run_kill(j);
        if (!j->ending && j->timeout > 0 && kumi_run_ts_reached(&now, &j->deadline)) {
            fprintf(stderr, "kumirun: job exceeded --timeout %u s; terminating the job\n",
                    j->timeout);
            kumi_run_end(j, KUMI_CTL_FAIL_LAUNCHER, KUMI_RUN_EXIT_TIMEOUT);
            kumi_run_term(j);
            continue;
        }
        kumi_run_wait_tick(j, sfd);
    }
    if (sfd >= 0)
        close(sfd);
    if (j->ending)
        kumi_run_sweep_group(j);
    return j->exit_code;
}
