/*
 * kumirun.c -- the launcher: `kumirun -n N PROGRAM ARGS...` runs N PEs of
 * PROGRAM on this host as one job; with --hosts, on several hosts (the
 * remote ones started through --rsh), over a transport that reaches
 * across hosts (tcp).
 *
 * This file checks the options and the KUMI_* environment (so a typo is an
 * error before anything starts), creates the job's control segment (see
 * launch.h for the contract with the PEs), decides binding and opens the
 * rendezvous (rdv.h), through which PEs that need to exchange addresses
 * meet (the kumirun bootstrap, boot_kumirun.c); kumirun_supervise.c
 * starts the PEs and watches them. kumirun knows transports only by the
 * registry (transport.h): their names and whether they span hosts. It exits with
 * 0 only when every PE succeeded, and never leaves PEs or segments behind.
 */
#include "kumirun.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <ifaddrs.h>
#include <limits.h>
#include <netdb.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
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
    const char        *hosts;        /* --hosts, or NULL                   */
    const char        *rsh;          /* --rsh, or NULL (ssh)               */
    char             **argv;
};

enum { KUMI_RUN_OPT_TRANSPORT = 256, KUMI_RUN_OPT_BIND, KUMI_RUN_OPT_REPORT,
       KUMI_RUN_OPT_TIMEOUT, KUMI_RUN_OPT_HELP_ENV, KUMI_RUN_OPT_HOSTS, KUMI_RUN_OPT_RSH,
       KUMI_RUN_OPT_VERSION };

/* "auto, shm or tcp": KUMI_TRANSPORT's choices, the transports built in. */
static const char *kumi_run_transport_names(void)
{
    static char names[160];
    size_t      at = 0;
    int         n = 0;

    while (kumi_tp_builtin(n) != NULL)
        n++;
    at = (size_t)snprintf(names, sizeof(names), "auto");
    for (int i = 0; i < n && at < sizeof(names); i++)
        at += (size_t)snprintf(names + at, sizeof(names) - at, "%s%s",
                               i == n - 1 ? " or " : ", ", kumi_tp_builtin(i)->name);
    return names;
}

/* What --hosts runs over: the transport of highest priority that reaches
 * across hosts. */
static const char *kumi_run_hosts_transport(void)
{
    const struct kumi_tp_ops *best = NULL;

    for (int i = 0; kumi_tp_builtin(i) != NULL; i++)
        if (!(kumi_tp_builtin(i)->flags & KUMI_TP_F_ONE_NODE) &&
            (best == NULL || kumi_tp_builtin(i)->priority > best->priority))
            best = kumi_tp_builtin(i);
    return best != NULL ? best->name : "none";
}

static void kumi_run_usage(FILE *out)
{
    fprintf(out,
        "usage: kumirun -n N [options] PROGRAM [ARGS...]\n"
        "       kumirun [-n N] --hosts ADDR:COUNT[,ADDR:COUNT...] [options] PROGRAM [ARGS...]\n"
        "Runs N processes (PEs) of PROGRAM as one kumi job, on this host or on\n"
        "the hosts listed.\n"
        "\n"
        "  -n, --npes N           number of PEs, 1..%d (required without --hosts)\n"
        "      --transport NAME   %s (sets KUMI_TRANSPORT for the PEs)\n"
        "      --hosts LIST       COUNT PEs on each ADDR, ranks in list order; N is\n"
        "                         the sum of the COUNTs. Implies --transport %s.\n"
        "                         A host whose address belongs to this machine runs\n"
        "                         its PEs directly, one of them must; the others run\n"
        "                         them through --rsh. The rendezvous listens on the\n"
        "                         first local ADDR.\n"
        "      --rsh CMD          how to start a PE on another host (default ssh):\n"
        "                         runs CMD HOST env KUMI_...=... /abs/PROGRAM ARGS\n"
        "                         (CMD is split on spaces)\n"
        "      --bind core|none   bind PE i to core i, or not at all\n"
        "                         (default: core, round-robin when oversubscribed,\n"
        "                         none when other work keeps the cores busy)\n"
        "      --report-bindings  print where each PE runs, on stderr\n"
        "      --timeout SEC      end the job after SEC seconds (exit status 124)\n"
        "  -h, --help             print this text\n"
        "      --help-env         print the KUMI_* environment variables\n"
        "      --version          print kumi's version\n"
        "\n"
        "Exit status: 0 when every PE succeeded; the status a PE passed to\n"
        "kumi_global_exit; else the exit status of the first PE that failed\n"
        "(128+signal if it was killed); 124 after --timeout; 128+signal when\n"
        "kumirun itself is interrupted; 2 for a usage error.\n",
        KUMI_RUN_MAX_PES, kumi_run_transport_names(), kumi_run_hosts_transport());
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
        { "hosts",           required_argument, NULL, KUMI_RUN_OPT_HOSTS },
        { "rsh",             required_argument, NULL, KUMI_RUN_OPT_RSH },
        { "version",         no_argument,       NULL, KUMI_RUN_OPT_VERSION },
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
            if (strcmp(optarg, "auto") != 0 && kumi_tp_lookup(optarg) == NULL) {
                char msg[160];
                snprintf(msg, sizeof(msg), "--transport wants %s, not '%%s'",
                         kumi_run_transport_names());
                return kumi_run_usage_error(msg, optarg);
            }
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
        case KUMI_RUN_OPT_VERSION:
            printf("kumirun (kumi) %d.%d.%d\n", KUMI_VERSION_MAJOR, KUMI_VERSION_MINOR,
                   KUMI_VERSION_PATCH);
            return 0;
        case KUMI_RUN_OPT_HOSTS:
            o->hosts = optarg;
            break;
        case KUMI_RUN_OPT_RSH:
            if (strspn(optarg, " ") == strlen(optarg))
                return kumi_run_usage_error("%s", "--rsh wants a command, not an empty "
                                            "string");
            o->rsh = optarg;
            break;
        case ':':
            return kumi_run_usage_error("option '%s' needs a value", argv[optind - 1]);
        default:
            return kumi_run_usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (o->rsh != NULL && o->hosts == NULL)
        return kumi_run_usage_error("%s", "--rsh needs --hosts");
    if (o->hosts != NULL && o->transport != NULL && strcmp(o->transport, "auto") != 0 &&
        (kumi_tp_lookup(o->transport)->flags & KUMI_TP_F_ONE_NODE)) {
        char msg[160];
        snprintf(msg, sizeof(msg), "--hosts runs over %s; it cannot be combined with "
                 "--transport %%s", kumi_run_hosts_transport());
        return kumi_run_usage_error(msg, o->transport);
    }
    if (o->hosts != NULL && (o->transport == NULL || strcmp(o->transport, "auto") == 0))
        o->transport = kumi_run_hosts_transport();
    if (o->npes == 0 && o->hosts == NULL)
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

/* KUMI_TRANSPORT=ucx (--transport ucx): the plugin (transport/plugin.c)
 * must load, or every PE would fail on its own after starting. Loaded in a
 * child, as kumi_init loads it (KUMI_PLUGIN_DIR, else beside libkumi: here
 * beside kumirun), so kumirun itself never maps UCX nor its signal
 * handlers. Checked on this host only. -1, or KUMI_RUN_EXIT_USAGE after
 * one line saying why. */
static int kumi_run_check_plugin(void)
{
    const char               *name = getenv("KUMI_TRANSPORT");
    const struct kumi_tp_ops *ops = name != NULL && strcmp(name, "ucx") == 0
                                    ? kumi_tp_lookup(name) : NULL;
    char                      why[1100] = "";
    int                       fd[2], status;
    ssize_t                   n, got = 0;
    pid_t                     pid;

    if (ops == NULL || ops->available == NULL)
        return -1;
    if (pipe(fd) != 0)
        return -1;                     /* no check: the PEs still say why */
    fflush(NULL);
    if ((pid = fork()) == 0) {
        close(fd[0]);
        if (ops->available(NULL, why, sizeof(why)) != KUMI_OK)
            (void)!write(fd[1], why, strnlen(why, sizeof(why) - 1) + 1);
        _exit(0);
    }
    close(fd[1]);
    while (pid > 0 && got < (ssize_t)sizeof(why) - 1
           && ((n = read(fd[0], why + got, sizeof(why) - 1 - (size_t)got)) > 0
               || (n < 0 && errno == EINTR)))
        got += n > 0 ? n : 0;
    close(fd[0]);
    why[got] = '\0';
    if (pid > 0)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
    if (got == 0)
        return -1;
    fprintf(stderr, "kumirun: KUMI_TRANSPORT=%s: %s\n", name, why);
    return KUMI_RUN_EXIT_USAGE;
}

/* Checks the configuration the PEs will read, so that a bad value fails
 * once, here, instead of once per PE after they started; j gets KUMI_LOG
 * (kumirun's own info messages follow it too) and KUMI_HEARTBEAT_TIMEOUT. */
static int kumi_run_check_env(const struct kumi_run_opts *o, struct kumi_run_job *j)
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
    j->log    = cfg.log;
    j->dead_s = (unsigned)cfg.heartbeat_timeout;
    j->wait_auto = cfg.wait == KUMI_WAIT_AUTO;
    return kumi_run_check_plugin();
}

/* ADDR as a numeric address: getaddrinfo, so host names work too. */
static int kumi_run_resolve(const char *name, char *addr, size_t len)
{
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
    struct addrinfo *res;
    int              rc = getaddrinfo(name, NULL, &hints, &res);

    if (rc != 0) {
        fprintf(stderr, "kumirun: --hosts: cannot resolve '%s': %s\n", name, gai_strerror(rc));
        return -1;
    }
    rc = getnameinfo(res->ai_addr, res->ai_addrlen, addr, (socklen_t)len, NULL, 0,
                     NI_NUMERICHOST);
    freeaddrinfo(res);
    if (rc != 0) {
        fprintf(stderr, "kumirun: --hosts: '%s': %s\n", name, gai_strerror(rc));
        return -1;
    }
    return 0;
}

/* Is addr (numeric) assigned to an interface of this machine? */
static int kumi_run_addr_is_local(const struct ifaddrs *ifs, const char *addr)
{
    char mine[NI_MAXHOST];

    for (const struct ifaddrs *i = ifs; i != NULL; i = i->ifa_next) {
        socklen_t sl;

        if (i->ifa_addr == NULL)
            continue;
        if (i->ifa_addr->sa_family == AF_INET)
            sl = sizeof(struct sockaddr_in);
        else if (i->ifa_addr->sa_family == AF_INET6)
            sl = sizeof(struct sockaddr_in6);
        else
            continue;
        if (getnameinfo(i->ifa_addr, sl, mine, sizeof(mine), NULL, 0, NI_NUMERICHOST) != 0)
            continue;
        char *scope = strchr(mine, '%');   /* fe80::1%eth0 */
        if (scope != NULL)
            *scope = '\0';
        if (strcmp(mine, addr) == 0)
            return 1;
    }
    return 0;
}

/* --hosts ADDR:COUNT[,ADDR:COUNT...] into j->hosts; checks -n against the
 * sum. Returns -1 to go on, else the exit status for main. */
static int kumi_run_plan_hosts(const struct kumi_run_opts *o, struct kumi_run_job *j)
{
    struct ifaddrs *ifs = NULL;
    char           *list = strdup(o->hosts), *save = NULL, *item;
    unsigned long   sum = 0, count;
    int             rc = KUMI_RUN_EXIT_USAGE, cap = 0;

    if (list == NULL || getifaddrs(&ifs) != 0) {
        fprintf(stderr, "kumirun: --hosts: %s\n", strerror(errno));
        free(list);
        return 1;
    }
    for (item = strtok_r(list, ",", &save); item != NULL; item = strtok_r(NULL, ",", &save)) {
        char                 *colon = strrchr(item, ':');
        struct kumi_run_host *h;

        if (colon == NULL || colon == item ||
            kumi_run_parse_count(colon + 1, KUMI_RUN_MAX_PES, &count) != 0) {
            rc = kumi_run_usage_error("--hosts wants ADDR:COUNT[,ADDR:COUNT...] with COUNT "
                                      "from 1 to 4096, not '%s'", item);
            goto out;
        }
        *colon = '\0';
        if (item[0] == '[' && colon[-1] == ']') {   /* [v6]:COUNT */
            item++;
            colon[-1] = '\0';
        }
        if (item[0] == '\0' || strlen(item) >= sizeof(h->name)) {
            rc = kumi_run_usage_error("--hosts: bad address '%s'", item);
            goto out;
        }
        if (j->nhosts == cap) {
            cap = cap ? 2 * cap : 8;
            h = realloc(j->hosts, (size_t)cap * sizeof(*h));
            if (h == NULL) {
                rc = 1;
                goto out;
            }
            j->hosts = h;
        }
        h = &j->hosts[j->nhosts++];
        memset(h, 0, sizeof(*h));
        snprintf(h->name, sizeof(h->name), "%s", item);
        h->count = (int)count;
        sum += count;
        if (kumi_run_resolve(item, h->addr, sizeof(h->addr)) != 0)
            goto out;
        h->local = kumi_run_addr_is_local(ifs, h->addr);
    }
    if (j->nhosts == 0) {
        rc = kumi_run_usage_error("--hosts wants ADDR:COUNT[,ADDR:COUNT...], not '%s'",
                                  o->hosts);
        goto out;
    }
    if (sum > KUMI_RUN_MAX_PES) {
        fprintf(stderr, "kumirun: --hosts lists %lu PEs; at most %d\n", sum, KUMI_RUN_MAX_PES);
        goto out;
    }
    if (o->npes != 0 && (unsigned long)o->npes != sum) {
        char msg[96];
        snprintf(msg, sizeof(msg), "-n %d does not match --hosts, which lists %lu PEs",
                 o->npes, sum);
        rc = kumi_run_usage_error("%s", msg);
        goto out;
    }
    int any_local = 0;
    for (int h = 0; h < j->nhosts; h++)
        any_local |= j->hosts[h].local;
    if (!any_local) {
        rc = kumi_run_usage_error("%s", "none of the --hosts is an address of this machine; "
                                  "kumirun must run on one of them (it serves the rendezvous)");
        goto out;
    }
    j->npes  = (int)sum;
    j->multi = 1;
    rc = -1;
out:
    freeifaddrs(ifs);
    free(list);
    return rc;
}

/* Without --hosts: one local host, 127.0.0.1 for its PEs to listen on. */
static int kumi_run_plan_one_host(struct kumi_run_job *j)
{
    j->hosts = calloc(1, sizeof(*j->hosts));
    if (j->hosts == NULL)
        return -1;
    j->nhosts = 1;
    snprintf(j->hosts[0].name, sizeof(j->hosts[0].name), "localhost");
    snprintf(j->hosts[0].addr, sizeof(j->hosts[0].addr), "127.0.0.1");
    j->hosts[0].count = j->npes;
    j->hosts[0].local = 1;
    return 0;
}

/* Ranks to hosts in list order; each PE's index among its host's PEs
 * (binding counts the local PEs only). */
static int kumi_run_assign_ranks(struct kumi_run_job *j)
{
    int r = 0;

    j->host_of = calloc((size_t)j->npes, sizeof(*j->host_of));
    j->core_of = calloc((size_t)j->npes, sizeof(*j->core_of));
    if (j->host_of == NULL || j->core_of == NULL)
        return -1;
    int local = 0;
    for (int h = 0; h < j->nhosts; h++)
        for (int i = 0; i < j->hosts[h].count; i++, r++) {
            j->host_of[r] = h;
            j->core_of[r] = j->hosts[h].local ? local++ : i;
        }
    return 0;
}

/* Nodes are the machines of the job: host entries whose address is local
 * are all this machine, others are one machine per address (two names
 * of one remote machine cannot be told apart, and count as two). They
 * are numbered in list order, which is the order of their lowest PE. */
static int kumi_run_assign_nodes(struct kumi_run_job *j)
{
    int nodes = 0;

    j->node_of = calloc((size_t)j->nhosts, sizeof(*j->node_of));
    if (j->node_of == NULL)
        return -1;
    for (int h = 0; h < j->nhosts; h++) {
        j->node_of[h] = -1;
        for (int e = 0; e < h && j->node_of[h] < 0; e++)
            if (j->hosts[h].local ? j->hosts[e].local
                                  : strcmp(j->hosts[e].addr, j->hosts[h].addr) == 0)
                j->node_of[h] = j->node_of[e];
        if (j->node_of[h] < 0)
            j->node_of[h] = nodes++;
    }
    return 0;
}

/* KUMI_NODE_MAP (launch.h): "NODE:COUNT" per run of ranks on one node. */
static int kumi_run_set_node_map(const struct kumi_run_job *j)
{
    size_t len = (size_t)j->nhosts * 24 + 1, pos = 0;
    char  *map = malloc(len);
    int    rc;

    if (map == NULL)
        return -1;
    map[0] = '\0';
    for (int h = 0; h < j->nhosts;) {
        int node = j->node_of[h], count = 0;

        for (; h < j->nhosts && j->node_of[h] == node; h++)
            count += j->hosts[h].count;
        pos += (size_t)snprintf(map + pos, len - pos, "%s%d:%d", pos ? "," : "", node, count);
    }
    rc = setenv(KUMI_ENV_NODE_MAP, map, 1);
    free(map);
    return rc;
}

/* --rsh split on spaces; PROGRAM as an absolute path when this host can
 * find it (the remote host may not have our PATH). */
static int kumi_run_plan_remote(const struct kumi_run_opts *o, struct kumi_run_job *j)
{
    char *words = strdup(o->rsh != NULL ? o->rsh : "ssh"), *save = NULL, *w;
    int   n = 0;

    j->rsh = calloc(strlen(words != NULL ? words : "") / 2 + 2, sizeof(char *));
    if (words == NULL || j->rsh == NULL) {
        free(words);
        return -1;
    }
    j->rsh_words = words;   /* j->rsh points into it */
    for (w = strtok_r(words, " ", &save); w != NULL; w = strtok_r(NULL, " ", &save))
        j->rsh[n++] = w;

    /* absolute, but symlinks kept: the remote side resolves its own */
    static char path[PATH_MAX];
    const char *prog = j->argv[0], *env = getenv("PATH");
    char        cwd[PATH_MAX];

    j->program = prog;
    if (strchr(prog, '/') == NULL) {
        for (const char *p = env; p != NULL && *p != '\0';) {
            const char *end = strchr(p, ':');
            size_t      dl  = end ? (size_t)(end - p) : strlen(p);

            if (dl > 0 && dl + strlen(prog) + 2 <= sizeof(path)) {
                memcpy(path, p, dl);
                path[dl] = '/';
                memcpy(path + dl + 1, prog, strlen(prog) + 1);
                if (access(path, X_OK) == 0) {
                    prog = path;
                    break;
                }
            }
            p = end ? end + 1 : NULL;
        }
        if (prog != path)
            return 0;   /* not here: perhaps in the remote PATH */
    }
    if (prog[0] == '/') {
        j->program = prog;
    } else if (getcwd(cwd, sizeof(cwd)) != NULL &&
               strlen(cwd) + strlen(prog) + 2 <= sizeof(path)) {
        char rel[PATH_MAX];
        snprintf(rel, sizeof(rel), "%s", prog);
        memcpy(path, cwd, strlen(cwd));
        path[strlen(cwd)] = '/';
        memcpy(path + strlen(cwd) + 1, rel, strlen(rel) + 1);
        j->program = path;
    }
    return 0;
}

/* The job key and the rendezvous; what every PE inherits (a PE joins when
 * its transport publishes an address). */
static int kumi_run_rdv_setup(struct kumi_run_job *j)
{
    uint8_t     key[KUMI_RDV_KEY_BYTES];
    char        hex[2 * KUMI_RDV_KEY_BYTES + 1], err[256];
    const char *addr = NULL;

    /* no fallback: a guessable key would let anyone join the job */
    if (getrandom(key, sizeof(key), 0) != (ssize_t)sizeof(key)) {
        fprintf(stderr, "kumirun: cannot make a job key: getrandom: %s\n", strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < sizeof(key); i++) {
        hex[2 * i]     = "0123456789abcdef"[key[i] >> 4];
        hex[2 * i + 1] = "0123456789abcdef"[key[i] & 15];
    }
    hex[sizeof(hex) - 1] = '\0';
    for (int h = 0; h < j->nhosts && addr == NULL; h++)
        if (j->hosts[h].local)
            addr = j->hosts[h].addr;
    j->rdv_pe = calloc((size_t)j->npes, sizeof(*j->rdv_pe));
    if (j->rdv_pe == NULL ||
        kumi_rdv_server_open(&j->rdv, addr, j->npes, key, j->dead_s, kumi_run_on_rdv, j, err,
                             sizeof(err)) != KUMI_OK) {
        fprintf(stderr, "kumirun: %s\n", j->rdv_pe == NULL ? strerror(ENOMEM) : err);
        return -1;
    }
    kumi_rdv_server_set_quiet(j->rdv, kumi_run_on_quiet);
    if (setenv(KUMI_ENV_RDV, kumi_rdv_server_address(j->rdv), 1) != 0 ||
        setenv(KUMI_ENV_JOB_KEY, hex, 1) != 0) {
        fprintf(stderr, "kumirun: setenv: %s\n", strerror(errno));
        return -1;
    }
    memset(key, 0, sizeof(key));
    return 0;
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
        setenv(KUMI_ENV_OVERSUB, oversubscribed ? "1" : "0", 1) != 0 ||
        kumi_run_set_node_map(j) != 0) {
        fprintf(stderr, "kumirun: setenv: %s\n", strerror(errno));
        return -1;
    }
    return 0;
}

/* Other work running on this machine: the fewest runnable tasks (the
 * "R" of /proc/loadavg's "R/T", less kumirun itself) in a few samples
 * KUMI_RUN_LOAD_GAP_NS apart, so a task that runs for a moment (a shell,
 * a compiler's start) does not count and a busy one does. 0 when the file
 * cannot be read. */
#define KUMI_RUN_LOAD_SAMPLES 5
#define KUMI_RUN_LOAD_GAP_NS  2000000L
static unsigned kumi_run_others_running(void)
{
    unsigned fewest = UINT_MAX;

    for (int i = 0; i < KUMI_RUN_LOAD_SAMPLES && fewest > 0; i++) {
        const struct timespec gap = { 0, KUMI_RUN_LOAD_GAP_NS };
        FILE    *f = fopen("/proc/loadavg", "r");
        unsigned running = 0, total = 0;
        int      n;

        if (f == NULL)
            return 0;
        n = fscanf(f, "%*s %*s %*s %u/%u", &running, &total);
        fclose(f);
        if (n != 2)
            return 0;
        running = running > 0 ? running - 1 : 0;
        fewest  = running < fewest ? running : fewest;
        if (fewest > 0 && i + 1 < KUMI_RUN_LOAD_SAMPLES)
            nanosleep(&gap, NULL);
    }
    return fewest == UINT_MAX ? 0 : fewest;
}

/* Loads the topology and decides binding of the PEs on this host;
 * returns 1 if they oversubscribe it: more PEs than cores we may use, or
 * (KUMI_WAIT=auto) than the cores other running work leaves idle at
 * start-up; then the PEs block when they wait, and other work also leaves
 * them unbound unless --bind core asks. */
static int kumi_run_plan_binding(struct kumi_run_job *j, enum kumi_run_bind bind)
{
    unsigned ncores;
    int      nlocal = 0;

    for (int h = 0; h < j->nhosts; h++)
        nlocal += j->hosts[h].local ? j->hosts[h].count : 0;

    if (kumi_topo_load(&j->topo) != KUMI_OK) {
        cpu_set_t set;
        /* without hwloc we cannot bind, but can still count what we may use */
        fprintf(stderr, "kumirun: warning: cannot read the machine topology (hwloc); "
                        "PEs are not bound\n");
        ncores = sched_getaffinity(0, sizeof(set), &set) == 0 ? (unsigned)CPU_COUNT(&set)
                                                              : 1;
        j->ncores = ncores;
        j->bind   = 0;
        return (unsigned)nlocal > ncores;
    }
    ncores    = j->topo.ncores;
    j->ncores = ncores;
    if (bind == KUMI_RUN_BIND_CORE && (unsigned)nlocal > ncores)
        fprintf(stderr, "kumirun: warning: %d PEs on %u cores: the job is oversubscribed; "
                        "binding them round-robin as --bind core asks\n", nlocal, ncores);
    /* oversubscribed too: PE i on core i % ncores. Left unbound, the
     * scheduler's balancing moves PEs between cores and a collective waits
     * for PEs queued twice over (bound is about twice as fast at 8 PEs on
     * 2 cores: bench/README.md, "Measurements behind choices in the code") */
    j->bind = bind != KUMI_RUN_BIND_NONE;
    /* Other work on our cores deschedules a PE while its peer waits for it
     * (runtime/README.md, "Waiting"). Bound, the peer spins on a core it
     * may not leave and the descheduled PE may not move to a free one:
     * with other work running, PEs that fit the cores wait as when
     * oversubscribed (block), and PEs are left unbound unless --bind core
     * asks. The running count is the machine's, so it is set against all
     * its online CPUs: on a large machine, work on other cores does not
     * make a few PEs block. Not with
     * --hosts: each host's PEs are told from their own count there
     * (kumirun_supervise.c), and PEs that disagree on the policy would
     * disagree on the collectives' algorithms too. */
    if (j->wait_auto && !j->multi && nlocal > 0) {
        long     online = sysconf(_SC_NPROCESSORS_ONLN);
        unsigned size   = online > (long)ncores ? (unsigned)online : ncores;
        unsigned spare  = size > (unsigned)nlocal ? size - (unsigned)nlocal : 0;
        unsigned others = kumi_run_others_running();

        if (others > spare) {
            if (bind == KUMI_RUN_BIND_AUTO)
                j->bind = 0;
            if (j->log >= KUMI_LOG_DEBUG)
                fprintf(stderr, "kumirun: %u other tasks running on %u CPUs: the PEs block "
                                "when they wait%s\n", others, size,
                        j->bind ? "" : " and are not bound");
            return 1;
        }
    }
    return (unsigned)nlocal > ncores;
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
    memset(&job, 0, sizeof(job));
    job.self            = getpid();
    job.npes            = opts.npes;
    job.argv            = opts.argv;
    job.report_bindings = opts.report_bindings;
    job.timeout         = opts.timeout;
    if (opts.hosts != NULL && (rc = kumi_run_plan_hosts(&opts, &job)) >= 0)
        goto out_hosts;
    rc = kumi_run_check_env(&opts, &job);
    if (rc >= 0)
        goto out_hosts;
    if ((!job.multi && kumi_run_plan_one_host(&job) != 0) || kumi_run_assign_ranks(&job) != 0 ||
        kumi_run_assign_nodes(&job) != 0 ||
        (job.multi && kumi_run_plan_remote(&opts, &job) != 0)) {
        fprintf(stderr, "kumirun: %s\n", strerror(ENOMEM));
        rc = 1;
        goto out_hosts;
    }

    /* from here on a signal must not kill kumirun between creating the
     * segment and removing it: it waits, pending, for the supervisor */
    kumi_run_block_signals(&job);
    kumi_launch_sweep_stale();
    oversub = kumi_run_plan_binding(&job, opts.bind);
    kumi_run_make_job_id(&job);
    if (kumi_run_ctl_create(&job) != 0) {
        kumi_topo_free(&job.topo);
        rc = 1;
        goto out_hosts;
    }
    if (kumi_run_set_env(&job, oversub) != 0 || kumi_run_rdv_setup(&job) != 0) {
        rc = 1;
        goto out;
    }
    kumi_run_spawn(&job);
    rc = kumi_run_supervise(&job);

out:
    /* PEs unlink their own segments once everyone has mapped them; a job
     * that failed early may not have, so sweep all of them (ENOENT is fine). */
    kumi_launch_unlink_job(job.job);
    munmap(job.ctl, job.ctl_bytes);
    kumi_topo_free(&job.topo);
    kumi_rdv_server_close(job.rdv);
    free(job.pids);
    free(job.exits);
    free(job.rdv_pe);
out_hosts:
    free(job.rsh_words);
    free(job.rsh);
    free(job.hosts);
    free(job.host_of);
    free(job.core_of);
    free(job.node_of);
    return rc;
}
