/*
 * kumirun.c -- the launcher: `kumirun -n N PROGRAM ARGS...` runs N PEs of
 * PROGRAM on this host as one job.
 *
 * This file checks the options and the KUMI_* environment (so a typo is an
 * error before anything starts), creates the job's control segment (see
 * launch.h for the contract with the PEs) and decides binding;
 * kumirun_supervise.c starts the PEs and watches them. kumirun exits with
 * 0 only when every PE succeeded, and never leaves PEs or segments behind.
 */
#include "kumirun.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "kumi.h"

extern char **environ;

enum kumi_run_bind { KUMI_RUN_BIND_AUTO, KUMI_RUN_BIND_CORE, KUMI_RUN_BIND_NONE };

struct kumi_run_opts {
    int                npes;
    const char        *transport;    /* NULL: KUMI_TRANSPORT as inherited */
    enum kumi_run_bind bind;
    int                report_bindings;
    unsigned           timeout;
    char             **argv;
};

enum { KUMI_RUN_OPT_TRANSPORT = 256, KUMI_RUN_OPT_BIND, KUMI_RUN_OPT_REPORT,
       KUMI_RUN_OPT_TIMEOUT, KUMI_RUN_OPT_HELP_ENV };

static void kumi_run_usage(FILE *out)
{
    fprintf(out,
        "usage: kumirun -n N [options] PROGRAM [ARGS...]\n"
        "Runs N processes (PEs) of PROGRAM on this host as one kumi job.\n"
        "\n"
        "  -n, --npes N           number of PEs, 1..%d (required)\n"
        "      --transport NAME   shm or tcp (sets KUMI_TRANSPORT for the PEs)\n"
        "      --bind core|none   bind PE i to core i, or not at all\n"
        "                         (default: bind when the PEs fit the cores)\n"
        "      --report-bindings  print where each PE runs, on stderr\n"
        "      --timeout SEC      end the job after SEC seconds (exit status 124)\n"
        "  -h, --help             print this text\n"
        "      --help-env         print the KUMI_* environment variables\n"
        "\n"
        "Exit status: 0 when every PE succeeded; else the exit status of the first\n"
        "PE that failed (128+signal if it was killed); 124 after --timeout;\n"
        "128+signal when kumirun itself is interrupted; 2 for a usage error.\n",
        KUMI_RUN_MAX_PES);
}

static int kumi_run_usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "kumirun: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    kumi_run_usage(stderr);
    return KUMI_RUN_EXIT_USAGE;
}

/* Strict decimal: digits only, no sign, no trailing text, within 1..max. */
static int kumi_run_parse_count(const char *text, unsigned long max, unsigned long *out)
{
    char         *end;
    unsigned long v;

    if (text[0] < '0' || text[0] > '9')
        return -1;
    errno = 0;
    v = strtoul(text, &end, 10);
    if (errno != 0 || *end != '\0' || v < 1 || v > max)
        return -1;
    *out = v;
    return 0;
}

/* Returns -1 to go on, else the exit status for main. */
static int kumi_run_parse_opts(int argc, char **argv, struct kumi_run_opts *o)
{
    static const struct option longopts[] = {
        { "npes",            required_argument, NULL, 'n' },
        { "transport",       required_argument, NULL, KUMI_RUN_OPT_TRANSPORT },
        { "bind",            required_argument, NULL, KUMI_RUN_OPT_BIND },
        { "report-bindings", no_argument,       NULL, KUMI_RUN_OPT_REPORT },
        { "timeout",         required_argument, NULL, KUMI_RUN_OPT_TIMEOUT },
        { "help",            no_argument,       NULL, 'h' },
        { "help-env",        no_argument,       NULL, KUMI_RUN_OPT_HELP_ENV },
        { NULL, 0, NULL, 0 }
    };
    unsigned long v;
    int           c;

    memset(o, 0, sizeof(*o));
    o->bind = KUMI_RUN_BIND_AUTO;
    opterr = 0;   /* our own messages: getopt's would name argv[0], a path */
    /* '+': options end at PROGRAM, whose own options are its business */
    while ((c = getopt_long(argc, argv, "+:n:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (kumi_run_parse_count(optarg, KUMI_RUN_MAX_PES, &v) != 0)
                return kumi_run_usage_error("-n wants a number of PEs from 1 to 4096, "
                                            "not '%s'", optarg);
            o->npes = (int)v;
            break;
        case KUMI_RUN_OPT_TRANSPORT:
            if (strcmp(optarg, "shm") != 0 && strcmp(optarg, "tcp") != 0)
                return kumi_run_usage_error("--transport wants shm or tcp, not '%s'",
                                            optarg);
            o->transport = optarg;
            break;
        case KUMI_RUN_OPT_BIND:
            if (strcmp(optarg, "core") == 0)
                o->bind = KUMI_RUN_BIND_CORE;
            else if (strcmp(optarg, "none") == 0)
                o->bind = KUMI_RUN_BIND_NONE;
            else
                return kumi_run_usage_error("--bind wants core or none, not '%s'", optarg);
            break;
        case KUMI_RUN_OPT_REPORT:
            o->report_bindings = 1;
            break;
        case KUMI_RUN_OPT_TIMEOUT:
            if (kumi_run_parse_count(optarg, 100000000, &v) != 0)
                return kumi_run_usage_error("--timeout wants a positive number of "
                                            "seconds, not '%s'", optarg);
            o->timeout = (unsigned)v;
            break;
        case 'h':
            kumi_run_usage(stdout);
            return 0;
        case KUMI_RUN_OPT_HELP_ENV:
            kumi_cfg_print_help(stdout);
            return 0;
        case ':':
            return kumi_run_usage_error("option '%s' needs a value", argv[optind - 1]);
        default:
            return kumi_run_usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (o->npes == 0)
        return kumi_run_usage_error("%s", "-n N is required");
    if (optind >= argc)
        return kumi_run_usage_error("%s", "no PROGRAM to run");
    o->argv = argv + optind;
    return -1;
}

/* kumi_cfg_check_unknown reports each environment entry; a name can occur
 * twice in environ, and one warning per name is enough. */
struct kumi_run_seen {
    char names[16][128];
    int  count;
};

static void kumi_run_warn_unknown(const char *name, const char *suggestion, void *arg)
{
    struct kumi_run_seen *seen = arg;

    for (int i = 0; i < seen->count; i++)
        if (strcmp(seen->names[i], name) == 0)
            return;
    if (seen->count < 16)
        snprintf(seen->names[seen->count++], sizeof(seen->names[0]), "%s", name);
    if (suggestion != NULL)
        fprintf(stderr, "kumirun: warning: unknown variable %s (did you mean %s?)\n",
                name, suggestion);
    else
        fprintf(stderr, "kumirun: warning: unknown variable %s\n", name);
}

/* Checks the configuration the PEs will read, so that a bad value fails
 * once, here, instead of once per PE after they started. */
static int kumi_run_check_env(const struct kumi_run_opts *o)
{
    struct kumi_run_seen seen = { .count = 0 };
    struct kumi_cfg      cfg;
    char                 err[256];

    if (o->transport != NULL && setenv("KUMI_TRANSPORT", o->transport, 1) != 0) {
        fprintf(stderr, "kumirun: setenv: %s\n", strerror(errno));
        return KUMI_RUN_EXIT_USAGE;
    }
    kumi_cfg_check_unknown(environ, kumi_run_warn_unknown, &seen);
    if (kumi_cfg_load(&cfg, err, sizeof(err)) != KUMI_OK) {
        fprintf(stderr, "kumirun: %s\n", err);
        return KUMI_RUN_EXIT_USAGE;
    }
    if (cfg.transport == KUMI_TRANSPORT_TCP) {
        fprintf(stderr, "kumirun: transport '%s' is not available in this build\n",
                kumi_cfg_choice_name("KUMI_TRANSPORT", cfg.transport));
        return KUMI_RUN_EXIT_USAGE;
    }
    return -1;
}

/* The job id names every segment of the job. The random part keeps a job
 * from guessing (or colliding with) another job's names; the pid lets a
 * later kumirun recognize segments whose launcher died. */
static void kumi_run_make_job_id(struct kumi_run_job *j)
{
    uint64_t r = 0;

    if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
        struct timespec ts;
        /* no getrandom (old kernel, seccomp): still unique, less private */
        clock_gettime(CLOCK_REALTIME, &ts);
        r = ((uint64_t)ts.tv_sec * 1000000007ull) ^ (uint64_t)ts.tv_nsec ^
            ((uint64_t)(uintptr_t)&ts << 17);
    }
    snprintf(j->job, sizeof(j->job), "%ld-%016llx", (long)j->self, (unsigned long long)r);
}

static int kumi_run_ctl_create(struct kumi_run_job *j)
{
    char name[128];
    int  fd, rc;

    kumi_launch_segname(name, sizeof(name), j->job, "ctl");
    j->ctl_bytes = kumi_ctl_bytes((uint32_t)j->npes);
    fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) {
        fprintf(stderr, "kumirun: cannot create %s: %s\n", name, strerror(errno));
        return -1;
    }
    /* Reserve the pages now: on a full /dev/shm an ftruncate'd segment
     * would only fail later, as SIGBUS on first touch. */
    rc = ftruncate(fd, (off_t)j->ctl_bytes) != 0 ? errno
       : posix_fallocate(fd, 0, (off_t)j->ctl_bytes);
    if (rc == 0) {
        j->ctl = mmap(NULL, j->ctl_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (j->ctl == MAP_FAILED) {
            j->ctl = NULL;
            rc = errno;
        }
    }
    close(fd);
    if (rc != 0) {
        fprintf(stderr, "kumirun: cannot size or map %s (%zu bytes): %s\n", name,
                j->ctl_bytes, strerror(rc));
        shm_unlink(name);
        return -1;
    }
    /* The segment is zero-filled: every PE is KUMI_PE_STARTED, nothing failed. */
    j->ctl->version = KUMI_CTL_VERSION;
    j->ctl->npes    = (uint32_t)j->npes;
    /* magic last: a PE that sees it sees a complete header */
    __atomic_store_n(&j->ctl->magic, KUMI_CTL_MAGIC, __ATOMIC_RELEASE);
    return 0;
}

/* What every PE inherits; KUMI_RANK is set in each child. */
static int kumi_run_set_env(const struct kumi_run_job *j, int oversubscribed)
{
    char size[16], pid[24], llc[16];

    snprintf(size, sizeof(size), "%d", j->npes);
    snprintf(pid, sizeof(pid), "%ld", (long)j->self);
    /* cores sharing the last-level cache: the collectives' tree radix */
    snprintf(llc, sizeof(llc), "%u", j->topo.ncores > 0 ? j->topo.llc_cores : 0);
    if (setenv(KUMI_ENV_JOB_ID, j->job, 1) != 0 || setenv(KUMI_ENV_SIZE, size, 1) != 0 ||
        setenv(KUMI_ENV_LAUNCHER_PID, pid, 1) != 0 || setenv(KUMI_ENV_LLC_CORES, llc, 1) != 0 ||
        setenv(KUMI_ENV_OVERSUB, oversubscribed ? "1" : "0", 1) != 0) {
        fprintf(stderr, "kumirun: setenv: %s\n", strerror(errno));
        return -1;
    }
    return 0;
}

/* Loads the topology and decides binding; returns 1 if the job is
 * oversubscribed (more PEs than cores we may use). */
static int kumi_run_plan_binding(struct kumi_run_job *j, enum kumi_run_bind bind)
{
    unsigned ncores;

    if (kumi_topo_load(&j->topo) != KUMI_OK) {
        cpu_set_t set;
        /* without hwloc we cannot bind, but can still count what we may use */
        fprintf(stderr, "kumirun: warning: cannot read the machine topology (hwloc); "
                        "PEs are not bound\n");
        ncores = sched_getaffinity(0, sizeof(set), &set) == 0 ? (unsigned)CPU_COUNT(&set)
                                                              : 1;
        j->bind = 0;
        return (unsigned)j->npes > ncores;
    }
    ncores = j->topo.ncores;
    if (bind == KUMI_RUN_BIND_CORE && (unsigned)j->npes > ncores)
        fprintf(stderr, "kumirun: warning: %d PEs on %u cores: the job is oversubscribed; "
                        "binding them round-robin as --bind core asks\n", j->npes, ncores);
    j->bind = bind == KUMI_RUN_BIND_CORE ||
              (bind == KUMI_RUN_BIND_AUTO && (unsigned)j->npes <= ncores);
    return (unsigned)j->npes > ncores;
}

/* Signals kumirun takes synchronously (sigtimedwait in the supervisor):
 * blocked before the control segment exists and before the first fork,
 * so none can kill kumirun with a segment made or PEs half started. */
static void kumi_run_block_signals(struct kumi_run_job *j)
{
    struct sigaction old;

    sigemptyset(&j->sigs);
    sigaddset(&j->sigs, SIGCHLD);
    sigaddset(&j->sigs, SIGINT);
    sigaddset(&j->sigs, SIGTERM);
    sigaddset(&j->sigs, SIGQUIT);
    sigaddset(&j->sigs, SIGTSTP);
    sigaddset(&j->sigs, SIGCONT);
    /* under nohup, a hangup must not end the job */
    if (sigaction(SIGHUP, NULL, &old) != 0 || old.sa_handler != SIG_IGN)
        sigaddset(&j->sigs, SIGHUP);
    sigprocmask(SIG_BLOCK, &j->sigs, NULL);
    /* A shell starts background commands with SIGINT and SIGQUIT ignored;
     * kumirun must still hear them to end its job in order. Blocked, the
     * default action never runs: sigtimedwait takes them. */
    for (int sig = 1; sig < NSIG; sig++)
        if (sigismember(&j->sigs, sig) == 1)
            signal(sig, SIG_DFL);
    /* a closed stderr must not kill kumirun halfway through cleaning up */
    signal(SIGPIPE, SIG_IGN);
}

const char *kumi_run_signame(int sig, char *buf, size_t len)
{
    static const char *const names[] = {
        [SIGHUP] = "SIGHUP",   [SIGINT] = "SIGINT",   [SIGQUIT] = "SIGQUIT",
        [SIGILL] = "SIGILL",   [SIGTRAP] = "SIGTRAP", [SIGABRT] = "SIGABRT",
        [SIGBUS] = "SIGBUS",   [SIGFPE] = "SIGFPE",   [SIGKILL] = "SIGKILL",
        [SIGUSR1] = "SIGUSR1", [SIGSEGV] = "SIGSEGV", [SIGUSR2] = "SIGUSR2",
        [SIGPIPE] = "SIGPIPE", [SIGALRM] = "SIGALRM", [SIGTERM] = "SIGTERM",
        [SIGXCPU] = "SIGXCPU", [SIGXFSZ] = "SIGXFSZ", [SIGSYS] = "SIGSYS",
    };

    if (sig > 0 && (size_t)sig < sizeof(names) / sizeof(names[0]) && names[sig] != NULL)
        return names[sig];
    snprintf(buf, len, "SIG%d", sig);
    return buf;
}

int main(int argc, char **argv)
{
    struct kumi_run_opts opts;
    struct kumi_run_job  job;
    int                  rc, oversub;

    rc = kumi_run_parse_opts(argc, argv, &opts);
    if (rc >= 0)
        return rc;
    rc = kumi_run_check_env(&opts);
    if (rc >= 0)
        return rc;

    memset(&job, 0, sizeof(job));
    job.self            = getpid();
    job.npes            = opts.npes;
    job.argv            = opts.argv;
    job.report_bindings = opts.report_bindings;
    job.timeout         = opts.timeout;

    /* from here on a signal must not kill kumirun between creating the
     * segment and removing it: it waits, pending, for the supervisor */
    kumi_run_block_signals(&job);
    kumi_launch_sweep_stale();
    oversub = kumi_run_plan_binding(&job, opts.bind);
    kumi_run_make_job_id(&job);
    if (kumi_run_ctl_create(&job) != 0) {
        kumi_topo_free(&job.topo);
        return 1;
    }
    if (kumi_run_set_env(&job, oversub) != 0) {
        rc = 1;
        goto out;
    }
    kumi_run_spawn(&job);
    rc = kumi_run_supervise(&job);

out:
    /* PEs unlink their own segments once everyone has mapped them; a job
     * that failed early may not have, so sweep all of them (ENOENT is fine). */
    kumi_launch_unlink_job(job.job, job.npes);
    munmap(job.ctl, job.ctl_bytes);
    kumi_topo_free(&job.topo);
    free(job.pids);
    return rc;
}
