/*
 * parallel.c -- parallel regions: fork/join, the worker loop, barriers,
 * the ICVs and the omp_* calls about threads and teams.
 *
 * Fork: the master (PE 0) fills a descriptor (the outlined function, its
 * arguments as clang passed them: pointers into the DSM or scalars, the
 * team size, the region id, the ICVs the team inherits) and puts it into
 * the fork box of each team member with kumi_put_signal; a worker waits
 * on its box's sequence word (kumi_wait_until, which serves DSM requests
 * meanwhile), runs the region as thread pe of the team, then the join
 * barrier, and waits again. A team of n is always PEs 0..n-1; its kumi
 * team is created once per size (collectively over all PEs: that one fork
 * goes to every PE). Nested regions run serialized (a team of one).
 */
#define _GNU_SOURCE   /* on_exit, personality, strcasecmp */
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "omp.h"
#include "omp_int.h"


struct kumi_omp_fork_hdr {
    uint64_t region;
    uint64_t fn;
    int32_t  argc, nth;
    int32_t  create_team;   /* 1: every PE creates the kumi team of nth PEs first */
    int32_t  run_sched, run_chunk, dynamic_var, max_active_levels, nthreads_var;
    int32_t  level;   /* the master's level at the fork (inactive regions around it) */
    uint64_t def_allocator;
};

struct kumi_omp_fork_box {   /* one per PE, in the symmetric area */
    uint64_t                 seq;
    uint64_t                 pad_[7];
    struct kumi_omp_fork_hdr hdr;
    void                    *args[KUMI_OMP_MAX_ARGS];
};

static struct kumi_omp_fork_box *kumi_omp_box;
static uint64_t                 *kumi_omp_sent;    /* master: messages sent to each PE */
static kumi_team_t              *kumi_omp_teams;   /* [n]: team of PEs 0..n-1          */
static uint64_t                  kumi_omp_region_next;

/* ------------------------------------------------------ hooks (T6) */
__attribute__((weak)) void kumi_omp_task_barrier(void)
{
}
__attribute__((weak)) int kumi_omp_task_idle(void)
{
    return 0;
}
__attribute__((weak)) void kumi_omp_task_region_begin(void)
{
}
__attribute__((weak)) void kumi_omp_task_region_end(void)
{
}
__attribute__((weak)) void kumi_omp_task_arrive(void)
{
}
__attribute__((weak)) void kumi_omp_task_barrier_passed(void)
{
}

void kumi_omp_fork_init(void)
{
    int n = kumi_size();

    kumi_omp_box   = kumi_omp_sym_alloc(sizeof(*kumi_omp_box));
    kumi_omp_sent  = calloc((size_t)n, sizeof(*kumi_omp_sent));
    kumi_omp_teams = calloc((size_t)n + 1, sizeof(*kumi_omp_teams));
    if (kumi_omp_sent == NULL || kumi_omp_teams == NULL)
        kumi_omp_fatal("kumi_omp_startup", "out of memory");
    kumi_omp_teams[n] = kumi_team_world();
}

/* ------------------------------------------------------------- ICVs */
static int kumi_omp_env_int(const char *name, int dflt, int lo)
{
    const char *s = getenv(name);
    char       *end;
    long        v;

    if (s == NULL || *s == '\0')
        return dflt;
    v = strtol(s, &end, 10);
    while (*end == ' ')
        end++;
    if (end == s || (*end != '\0' && *end != ',') || v < lo || v > 1 << 30) {
        if (kumi_rank() <= 0)
            fprintf(stderr, "kumi[%d]: omp: ignoring %s=%s (not an integer >= %d)\n", kumi_rank(),
                    name, s, lo);
        return dflt;
    }
    return (int)v;
}

/* OMP_SCHEDULE: [monotonic:|nonmonotonic:]kind[,chunk]; kind is static,
 * dynamic, guided, auto, or libomp's static_steal (= dynamic) */
static void kumi_omp_parse_schedule(const char *s, int *kind, int *chunk)
{
    static const struct { const char *name; int kind; } kinds[] = {
        { "static_steal", omp_sched_dynamic }, { "static", omp_sched_static },
        { "dynamic", omp_sched_dynamic }, { "guided", omp_sched_guided },
        { "auto", omp_sched_auto } };
    const char *p    = s;
    int         mono = 0;

    if (!strncasecmp(p, "monotonic:", 10)) {
        p += 10;
        mono = (int)omp_sched_monotonic;
    } else if (!strncasecmp(p, "nonmonotonic:", 13)) {
        p += 13;
    }
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        size_t l = strlen(kinds[i].name);
        if (!strncasecmp(p, kinds[i].name, l) && (p[l] == '\0' || p[l] == ',')) {
            *kind  = kinds[i].kind | mono;
            *chunk = p[l] == ',' ? atoi(p + l + 1) : 0;
            if (*chunk < 0)
                *chunk = 0;
            return;
        }
    }
    if (kumi_rank() <= 0)
        fprintf(stderr,
                "kumi[%d]: omp: ignoring OMP_SCHEDULE=%s "
                "([monotonic:|nonmonotonic:]static, dynamic, guided or auto[,chunk])\n",
                kumi_rank(), s);
}

void kumi_omp_icv_init(void)
{
    kumi_omp_thread_t *th = &kumi_omp_th;
    const char        *s;

    th->nthreads_var      = kumi_omp_env_int("OMP_NUM_THREADS", th->npes, 1);
    /* a team is never larger than the job either (kumi_omp_max_team) */
    th->thread_limit      = kumi_omp_env_int("OMP_THREAD_LIMIT", th->npes, 1);
    th->max_task_priority = kumi_omp_env_int("OMP_MAX_TASK_PRIORITY", 0, 0);
    th->dynamic_var       = 0;   /* OMP_DYNAMIC: no dynamic adjustment (omp_set_dynamic) */
    th->max_active_levels = kumi_omp_env_int("OMP_MAX_ACTIVE_LEVELS", 1, 0) > 0 ? 1 : 0;
    /* OMP_NESTED=true asks for more levels than kumi supports: stays 1 */
    th->run_sched = omp_sched_static;
    th->run_chunk = 0;
    s             = getenv("OMP_SCHEDULE");
    if (s != NULL && *s != '\0')
        kumi_omp_parse_schedule(s, &th->run_sched, &th->run_chunk);
}

/* ----------------------------------------------------------- barrier */
void kumi_omp_barrier_plain(void)
{
    kumi_omp_thread_t *th = &kumi_omp_th;

    if (th->nth <= 1 || th->team == NULL)
        return;
    kumi_omp_task_arrive();   /* once per barrier: the task barrier may have */
    if (kumi_barrier(th->team) != KUMI_OK)
        kumi_global_exit(1);   /* the job is ending (a peer failed or exited) */
    kumi_omp_task_barrier_passed();   /* before the epoch moves */
    kumi_omp_cancel_barrier_passed();
}

void kumi_omp_barrier(void)
{
    kumi_omp_task_barrier();
    kumi_omp_barrier_plain();
}

static int kumi_omp_cmp(uint64_t v, int cmp, uint64_t value)
{
    switch (cmp) {
    case KUMI_CMP_EQ: return v == value;
    case KUMI_CMP_NE: return v != value;
    case KUMI_CMP_GT: return v > value;
    case KUMI_CMP_GE: return v >= value;
    case KUMI_CMP_LT: return v < value;
    default: return v <= value;
    }
}

/* Between two looks at a remote word: serve DSM requests and the task
 * hook; then yield, and over a network back off (up to 64 us) so that the
 * waiters do not flood the word's PE with requests. */
static void kumi_omp_wait_pause(unsigned spins, int direct)
{
    kumi_dsm_poll();
    if (kumi_omp_task_idle() || spins < 64)
        return;
    if (direct) {
        sched_yield();
    } else {
        unsigned        shift = spins / 64 < 6 ? spins / 64 : 6;
        struct timespec ts    = { 0, 1000L << shift };
        nanosleep(&ts, NULL);
    }
}

/* A width-byte word of pe: read directly when pe's memory is mapped here
 * (shm), else by a remote atomic fetch. */
static uint64_t kumi_omp_look(void *word, const void *direct, int pe, int width)
{
    if (direct != NULL)
        return width == 8 ? __atomic_load_n((const uint64_t *)direct, __ATOMIC_ACQUIRE)
                          : __atomic_load_n((const uint32_t *)direct, __ATOMIC_ACQUIRE);
    if (width == 8) {
        uint64_t v;
        if (kumi_atomic_fetch_u64(word, pe, &v) != KUMI_OK)
            kumi_global_exit(1);   /* the job is ending */
        return v;
    } else {
        uint32_t v;
        if (kumi_atomic_fetch_u32(word, pe, &v) != KUMI_OK)
            kumi_global_exit(1);
        return v;
    }
}

static void kumi_omp_wait_remote(void *word, int pe, int width, int cmp, uint64_t value)
{
    const void *direct = kumi_ptr(word, pe);

    for (unsigned spins = 0; !kumi_omp_cmp(kumi_omp_look(word, direct, pe, width), cmp, value);
         spins++)
        kumi_omp_wait_pause(spins, direct != NULL);
}

void kumi_omp_wait_remote_u64(uint64_t *word, int pe, int cmp, uint64_t value)
{
    kumi_omp_wait_remote(word, pe, 8, cmp, value);
}

void kumi_omp_wait_remote_u32(uint32_t *word, int pe, int cmp, uint32_t value)
{
    kumi_omp_wait_remote(word, pe, 4, cmp, value);
}

/* ------------------------------------------------------- fork/join */
static void kumi_omp_team_create(int nth)
{
    kumi_team_t t = NULL;

    if (kumi_team_split_strided(kumi_team_world(), 0, 1, nth, &t) != KUMI_OK)
        kumi_omp_fatal("__kmpc_fork_call", "creating the team of %d PEs failed", nth);
    kumi_omp_teams[nth] = t;
    /* every PE has read its box before the master may write it again */
    if (kumi_barrier(kumi_team_world()) != KUMI_OK)
        kumi_global_exit(1);
}

/* Runs one region as thread th->pe of a team of h->nth (master and workers). */
static void kumi_omp_run_region(const struct kumi_omp_fork_hdr *h, void **args)
{
    kumi_omp_thread_t *th   = &kumi_omp_th;
    kumi_omp_thread_t  save = *th;
    int32_t            gtid = th->pe, btid = th->pe;

    th->tid = th->team_tid = th->pe;
    th->nth = th->team_nth = h->nth;
    th->team                = kumi_omp_teams[h->nth];
    th->level               = h->level + 1;
    th->team_level          = h->level + 1;
    th->active_level        = 1;
    th->region              = h->region;
    th->nthreads_var        = h->nthreads_var;
    th->run_sched           = h->run_sched;
    th->run_chunk           = h->run_chunk;
    th->dynamic_var         = h->dynamic_var;
    th->max_active_levels   = h->max_active_levels;
    th->def_allocator       = h->def_allocator;
    th->push_nth            = 0;
    th->single_count = th->loop_count = th->reduce_count = th->cp_count = 0;
    th->bar_epoch = th->cancel_seen = 0;
    kumi_omp_task_region_begin();
    kumi_omp_invoke((kumi_omp_microtask)(uintptr_t)h->fn, &gtid, &btid, h->argc, args);
    kumi_omp_barrier();   /* join */
    kumi_omp_cancel_join();
    kumi_omp_task_region_end();
    if (th->pe == 0) {
        /* the master's ICVs are its own again */
        *th = save;
    } else {
        th->tid = th->team_tid = 0;
        th->nth = th->team_nth = 1;
        th->team               = NULL;
        th->level = th->active_level = th->team_level = 0;
        th->region                                    = 0;
    }
}

_Noreturn void kumi_omp_worker_loop(void)
{
    uint64_t seen = 0;
    void    *args[KUMI_OMP_MAX_ARGS + 4];

    for (;;) {
        struct kumi_omp_fork_hdr h;

        if (kumi_wait_until_u64(&kumi_omp_box->seq, KUMI_CMP_GT, seen) != KUMI_OK)
            kumi_global_exit(1);   /* the job is ending */
        seen = __atomic_load_n(&kumi_omp_box->seq, __ATOMIC_ACQUIRE);
        h    = kumi_omp_box->hdr;
        memcpy(args, kumi_omp_box->args, (size_t)h.argc * sizeof(void *));
        if (h.create_team)
            kumi_omp_team_create(h.nth);
        if (kumi_rank() < h.nth)
            kumi_omp_run_region(&h, args);
    }
}

/* The ICVs a region's implicit task inherits and may change for itself
 * only (omp_set_schedule, omp_set_num_threads, ... inside a region do
 * not reach the task that encountered it). */
struct kumi_omp_icvs {
    int      nthreads_var, dynamic_var, max_active_levels, run_sched, run_chunk;
    uint64_t def_allocator;
};

static struct kumi_omp_icvs kumi_omp_icvs_save(const kumi_omp_thread_t *th)
{
    return (struct kumi_omp_icvs){ th->nthreads_var, th->dynamic_var, th->max_active_levels,
                                   th->run_sched, th->run_chunk, th->def_allocator };
}

static void kumi_omp_icvs_restore(kumi_omp_thread_t *th, const struct kumi_omp_icvs *v)
{
    th->nthreads_var      = v->nthreads_var;
    th->dynamic_var       = v->dynamic_var;
    th->max_active_levels = v->max_active_levels;
    th->run_sched         = v->run_sched;
    th->run_chunk         = v->run_chunk;
    th->def_allocator     = v->def_allocator;
}

static void kumi_omp_serialized_call(kumi_omp_microtask fn, int argc, void **args)
{
    kumi_omp_thread_t   *th   = &kumi_omp_th;
    int                  tid  = th->tid, nth = th->nth, level = th->level;
    int32_t              gtid = th->pe, btid = 0;
    struct kumi_omp_icvs icv  = kumi_omp_icvs_save(th);

    struct kumi_omp_task_serial ts;

    th->tid      = 0;
    th->nth      = 1;
    th->level    = level + 1;
    th->push_nth = 0;
    kumi_omp_task_serial_begin(&ts);
    kumi_omp_invoke(fn, &gtid, &btid, argc, args);
    kumi_omp_task_barrier();   /* the region's end: its tasks have completed */
    kumi_omp_task_serial_end(&ts);
    th->tid   = tid;
    th->nth   = nth;
    th->level = level;
    kumi_omp_icvs_restore(th, &icv);
}

/* The largest team: OMP_THREAD_LIMIT, and never more than the PEs. */
static int kumi_omp_max_team(const kumi_omp_thread_t *th)
{
    return th->thread_limit < th->npes ? th->thread_limit : th->npes;
}

static int kumi_omp_team_size_for_fork(void)
{
    kumi_omp_thread_t *th = &kumi_omp_th;
    int                n  = th->push_nth > 0 ? th->push_nth : th->nthreads_var;

    th->push_nth = 0;
    /* nested in an active region: serialized (one active level); inside
     * inactive ones (if(0), a team of one) a team may still be forked */
    if (th->active_level > 0 || th->active_level >= th->max_active_levels)
        return 1;
    if (n > kumi_omp_max_team(th))
        n = kumi_omp_max_team(th);
    return n < 1 ? 1 : n;
}

void kumi_omp_take_args(const char *call, int32_t argc, va_list ap, void **args)
{
    if (argc < 0 || argc > KUMI_OMP_MAX_ARGS)
        kumi_omp_fatal(call, "%d arguments (at most %d)", argc, KUMI_OMP_MAX_ARGS);
    for (int i = 0; i < argc; i++)
        args[i] = va_arg(ap, void *);
}

void __kmpc_fork_call(kumi_omp_ident_t *loc, int32_t argc, kumi_omp_microtask fn, ...)
{
    kumi_omp_thread_t       *th = &kumi_omp_th;
    void                    *args[KUMI_OMP_MAX_ARGS + 4];
    struct kumi_omp_fork_hdr h;
    va_list                  ap;
    int                      nth;

    (void)loc;
    va_start(ap, fn);
    kumi_omp_take_args("__kmpc_fork_call", argc, ap, args);
    va_end(ap);
    if (!kumi_omp_ready && kumi_omp_ensure_init() != KUMI_OK)
        exit(1);
    nth = kumi_omp_team_size_for_fork();
    if (nth == 1 || th->pe != 0) {
        kumi_omp_serialized_call(fn, argc, args);
        return;
    }
    memset(&h, 0, sizeof(h));
    h.region            = ++kumi_omp_region_next;
    h.fn                = (uint64_t)(uintptr_t)fn;
    h.argc              = argc;
    h.nth               = nth;
    h.create_team       = kumi_omp_teams[nth] == NULL;
    h.run_sched         = th->run_sched;
    h.run_chunk         = th->run_chunk;
    h.dynamic_var       = th->dynamic_var;
    h.max_active_levels = th->max_active_levels;
    h.nthreads_var      = th->nthreads_var;
    h.level             = th->level;
    h.def_allocator     = th->def_allocator;
    memcpy(kumi_omp_box->args, args, (size_t)argc * sizeof(void *));
    kumi_omp_box->hdr = h;
    {
        int    last = h.create_team ? th->npes : nth;
        size_t len  = offsetof(struct kumi_omp_fork_box, args)
                     - offsetof(struct kumi_omp_fork_box, hdr) + (size_t)argc * sizeof(void *);
        for (int pe = 1; pe < last; pe++)
            if (kumi_put_signal(&kumi_omp_box->hdr, &kumi_omp_box->hdr, len, &kumi_omp_box->seq,
                                ++kumi_omp_sent[pe], pe) != KUMI_OK)
                kumi_global_exit(1);
    }
    if (h.create_team)
        kumi_omp_team_create(nth);
    kumi_omp_run_region(&h, args);
}

void __kmpc_push_num_threads(kumi_omp_ident_t *loc, int32_t gtid, int32_t n)
{
    (void)loc;
    (void)gtid;
    kumi_omp_th.push_nth = n;
}

/* proc_bind: one place per PE already (kumirun binds PEs to cores) */
void __kmpc_push_proc_bind(kumi_omp_ident_t *loc, int32_t gtid, int32_t bind)
{
    (void)loc;
    (void)gtid;
    (void)bind;
}

/* if(0) and nested regions clang runs itself: a team of one */
static struct kumi_omp_serial_frame {
    int                         tid, nth;
    struct kumi_omp_icvs        icv;
    struct kumi_omp_task_serial ts;
} kumi_omp_serial_stack[64];

void __kmpc_serialized_parallel(kumi_omp_ident_t *loc, int32_t gtid)
{
    kumi_omp_thread_t *th = &kumi_omp_th;

    (void)loc;
    (void)gtid;
    if (th->level < 64) {
        kumi_omp_serial_stack[th->level].tid = th->tid;
        kumi_omp_serial_stack[th->level].nth = th->nth;
        kumi_omp_serial_stack[th->level].icv = kumi_omp_icvs_save(th);
        kumi_omp_task_serial_begin(&kumi_omp_serial_stack[th->level].ts);
    }
    th->push_nth = 0;
    th->level++;
    th->tid = 0;
    th->nth = 1;
}

void __kmpc_end_serialized_parallel(kumi_omp_ident_t *loc, int32_t gtid)
{
    kumi_omp_thread_t *th = &kumi_omp_th;

    (void)loc;
    (void)gtid;
    if (th->level <= 0)
        kumi_omp_fatal("__kmpc_end_serialized_parallel", "not in a serialized region");
    kumi_omp_task_barrier();   /* the region's end: its tasks have completed */
    th->level--;
    if (th->level < 64) {
        kumi_omp_task_serial_end(&kumi_omp_serial_stack[th->level].ts);
        th->tid = kumi_omp_serial_stack[th->level].tid;
        th->nth = kumi_omp_serial_stack[th->level].nth;
        kumi_omp_icvs_restore(th, &kumi_omp_serial_stack[th->level].icv);
    }
}

int32_t __kmpc_global_thread_num(kumi_omp_ident_t *loc)
{
    (void)loc;
    return kumi_omp_th.pe;
}

int32_t __kmpc_global_num_threads(kumi_omp_ident_t *loc)
{
    (void)loc;
    return kumi_omp_th.npes;
}

int32_t __kmpc_bound_thread_num(kumi_omp_ident_t *loc)
{
    (void)loc;
    return kumi_omp_th.tid;
}

int32_t __kmpc_bound_num_threads(kumi_omp_ident_t *loc)
{
    (void)loc;
    return kumi_omp_th.nth;
}

int32_t __kmpc_in_parallel(kumi_omp_ident_t *loc)
{
    (void)loc;
    return kumi_omp_th.active_level > 0;
}

void __kmpc_begin(kumi_omp_ident_t *loc, int32_t flags)
{
    (void)loc;
    (void)flags;
}

void __kmpc_end(kumi_omp_ident_t *loc)
{
    (void)loc;
}

void __kmpc_barrier(kumi_omp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    kumi_omp_barrier();
}

/* ------------------------------------------------------- omp_* API */
int omp_get_thread_num(void)
{
    return kumi_omp_th.tid;
}

int omp_get_num_threads(void)
{
    return kumi_omp_th.nth;
}

int omp_get_max_threads(void)
{
    kumi_omp_ensure_init();
    /* nthreads-var, as libomp reports it (OMP_THREAD_LIMIT only caps the
     * teams), but never more than the PEs: no team can be larger */
    int n = kumi_omp_th.nthreads_var;
    return n > kumi_omp_th.npes ? kumi_omp_th.npes : n;
}

void omp_set_num_threads(int n)
{
    if (n < 1) {
        fprintf(stderr, "kumi[%d]: omp_set_num_threads: %d is not a thread count (ignored)\n",
                kumi_rank(), n);
        return;
    }
    kumi_omp_th.nthreads_var = n;
}

int omp_get_num_procs(void)
{
    kumi_omp_ensure_init();
    return kumi_omp_th.npes;
}

int omp_in_parallel(void)
{
    return kumi_omp_th.active_level > 0;
}

/* Dynamic adjustment is not supported: dyn-var stays false (the spec's
 * rule for such implementations). */
void omp_set_dynamic(int flag)
{
    (void)flag;
}

int omp_get_dynamic(void)
{
    return 0;
}

/* One active level is all kumi runs (nested regions are serialized), so
 * max-active-levels-var is at most 1 and nesting reads as disabled. */
#define KUMI_OMP_SUPPORTED_LEVELS 1

void omp_set_nested(int flag)
{
    kumi_omp_th.max_active_levels = flag ? KUMI_OMP_SUPPORTED_LEVELS : 1;
}

int omp_get_nested(void)
{
    return kumi_omp_th.max_active_levels > 1;
}

void omp_set_max_active_levels(int n)
{
    if (n >= 0)
        kumi_omp_th.max_active_levels =
            n < KUMI_OMP_SUPPORTED_LEVELS ? n : KUMI_OMP_SUPPORTED_LEVELS;
}

int omp_get_max_active_levels(void)
{
    return kumi_omp_th.max_active_levels;
}

int omp_get_supported_active_levels(void)
{
    return KUMI_OMP_SUPPORTED_LEVELS;
}

int omp_get_level(void)
{
    return kumi_omp_th.level;
}

int omp_get_active_level(void)
{
    return kumi_omp_th.active_level;
}

int omp_get_ancestor_thread_num(int level)
{
    const kumi_omp_thread_t *th = &kumi_omp_th;

    if (level < 0 || level > th->level)
        return -1;
    if (level == 0)
        return 0;
    if (level == th->level)
        return th->tid;
    /* the levels around the active one are regions of one thread */
    return th->active_level && level == th->team_level ? th->team_tid : 0;
}

int omp_get_team_size(int level)
{
    const kumi_omp_thread_t *th = &kumi_omp_th;

    if (level < 0 || level > th->level)
        return -1;
    if (level == 0)
        return 1;
    if (level == th->level)
        return th->nth;
    return th->active_level && level == th->team_level ? th->team_nth : 1;
}

int omp_get_thread_limit(void)
{
    kumi_omp_ensure_init();
    return kumi_omp_th.thread_limit;
}

void omp_set_schedule(omp_sched_t kind, int chunk)
{
    int k = (int)((unsigned)kind & ~(unsigned)omp_sched_monotonic);

    if (k < omp_sched_static || k > omp_sched_auto) {
        fprintf(stderr, "kumi[%d]: omp_set_schedule: unknown kind %d (ignored)\n", kumi_rank(), k);
        return;
    }
    kumi_omp_th.run_sched = (int)kind;   /* the monotonic modifier kept as given */
    kumi_omp_th.run_chunk = chunk < 1 ? 0 : chunk;
}

/* A chunk left unspecified reads as 0 for static (an even split) and as
 * the default chunk, 1, for the others, as libomp reports it. */
void omp_get_schedule(omp_sched_t *kind, int *chunk)
{
    int k = kumi_omp_th.run_sched & ~(int)omp_sched_monotonic;

    *kind  = (omp_sched_t)kumi_omp_th.run_sched;
    *chunk = kumi_omp_th.run_chunk < 1 && k != omp_sched_static ? 1 : kumi_omp_th.run_chunk;
}

double omp_get_wtime(void)
{
    return kumi_wtime();
}

double omp_get_wtick(void)
{
    struct timespec ts;

    clock_getres(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int omp_in_final(void) __attribute__((weak));
int omp_in_final(void)
{
    return 0;   /* task.c has the real one */
}

omp_proc_bind_t omp_get_proc_bind(void)
{
    return omp_proc_bind_false;
}

int omp_get_num_places(void)
{
    return 0;
}

int omp_get_default_device(void)
{
    return 0;
}

void omp_set_default_device(int d)
{
    (void)d;
}

int omp_get_num_devices(void)
{
    return 0;
}

int omp_get_num_teams(void)
{
    return 1;
}

int omp_get_team_num(void)
{
    return 0;
}

int omp_is_initial_device(void)
{
    return 1;
}

int omp_get_initial_device(void)
{
    return 0;
}

int omp_get_device_num(void)
{
    return omp_get_initial_device();   /* the host */
}

int omp_get_max_task_priority(void)
{
    kumi_omp_ensure_init();
    return kumi_omp_th.max_task_priority;   /* priorities are hints: tasks run in creation order */
}

/* places: none (omp_get_num_places is 0) */
int omp_get_place_num_procs(int place)
{
    (void)place;
    return 0;
}

void omp_get_place_proc_ids(int place, int *ids)
{
    (void)place;
    (void)ids;
}

int omp_get_place_num(void)
{
    return -1;
}

int omp_get_partition_num_places(void)
{
    return 0;
}

void omp_get_partition_place_nums(int *place_nums)
{
    (void)place_nums;
}
