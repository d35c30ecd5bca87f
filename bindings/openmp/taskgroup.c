/*
 * taskgroup.c -- taskgroups (__kmpc_taskgroup, __kmpc_end_taskgroup), their
 * cancellation (cancel taskgroup, cancellation point taskgroup) and task
 * reductions: task_reduction on taskgroup, in_reduction on task, reduction
 * on taskloop (__kmpc_taskred_init, __kmpc_task_reduction_init,
 * __kmpc_task_reduction_get_th_data) and reduction(task, ...) on parallel
 * and worksharing constructs (__kmpc_taskred_modifier_init,
 * __kmpc_task_reduction_modifier_fini).
 *
 * A taskgroup is a DSM record allocated by the PE whose task begins it:
 * cancelled flag, the enclosing taskgroup of that task, and the list of
 * its reduction items. Every task records the taskgroup it was created in
 * (task_int.h); the running task's current taskgroup is kept per frame. A
 * task is in a cancelled taskgroup when its group or any enclosing one is
 * cancelled: it is discarded if it has not started, and its cancellation
 * points say so.
 *
 * Task reductions: each item has, per PE, the copy that PE's tasks
 * accumulate into (DSM memory homed at that PE, made and initialized at
 * its first use there); the end of the taskgroup, once every descendant
 * has finished, combines the copies into the original item. In a team of
 * one the tasks run one after another and use the original itself.
 */
#include <stdlib.h>
#include <string.h>

#include "omp_libc.h"
#include "task_int.h"

struct tg_rec {
    uint64_t cancelled;
    uint64_t parent;   /* enclosing taskgroup of the task that began it */
    uint64_t nred;     /* reduction items                               */
    uint64_t red;      /* their list (DSM), 0: none                     */
};

/* one reduction item (DSM words); RED_PRIV is an array of one word per
 * PE: that PE's copy, 0 until its first use */
enum { RED_SHAR, RED_ORIG, RED_SIZE, RED_INIT, RED_FINI, RED_COMB, RED_ARGS, RED_PRIV, RED_WORDS };

/* reduction(task, ...) on parallel or a worksharing construct: every
 * thread's taskgroup gets a copy of one list of items (its own original,
 * the same copies per PE); PE 0's words, one set per kind of construct */
struct redmod_slot {
    uint64_t owner;   /* region << 32 | construct number of the list in use, 0: free */
    uint64_t list;    /* the list (DSM), 0 while the first thread makes it        */
    uint64_t fini;    /* threads that reached the end                           */
    uint64_t pad_;
};
static struct redmod_slot *redmod;   /* [2], symmetric */
static uint32_t            redmod_count;

static uint64_t frame_tg[KUMI_OMP_TASK_DEPTH];

static void rd(void *dst, const void *src, size_t n, const char *call)
{
    if (src == NULL)
        kumi_omp_fatal(call, "NULL argument");
    if (kumi_dsm_is_shared(src)) {
        if (kumi_dsm_read(dst, src, n) != KUMI_OK)
            kumi_global_exit(1);   /* the job is ending (reported by kumi) */
    } else {
        memcpy(dst, src, n);
    }
}

static void wr(void *dst, const void *src, size_t n)
{
    if (kumi_dsm_write(dst, src, n) != KUMI_OK)
        kumi_global_exit(1);
}

void kumi_omp_tg_init(void)
{
    memset(frame_tg, 0, sizeof frame_tg);
    redmod = kumi_omp_sym_alloc(2 * sizeof *redmod);
}

void kumi_omp_tg_region_begin(int base)
{
    frame_tg[base] = 0;
    redmod_count   = 0;
}

uint64_t kumi_omp_tg_current(void)
{
    return frame_tg[kumi_omp_task_depth()];
}

void kumi_omp_tg_enter_frame(int depth, uint64_t tg)
{
    frame_tg[depth] = tg;
}

/* ------------------------------------------------------ cancellation */

static int tg_chain_cancelled(uint64_t tg)
{
    while (tg != 0) {
        struct tg_rec r;
        rd(&r, (void *)(uintptr_t)tg, sizeof r, "__kmpc_cancellationpoint");
        if (r.cancelled)
            return 1;
        tg = r.parent;
    }
    return 0;
}

int kumi_omp_tg_discard(uint64_t tg)
{
    if (!kumi_omp_th.cancel_var)
        return 0;
    return kumi_omp_cancel_parallel_seen() || tg_chain_cancelled(tg);
}

int kumi_omp_tg_cancel(void)
{
    uint64_t tg  = kumi_omp_tg_current();
    uint64_t one = 1;
    if (tg == 0)
        return 0;   /* not inside a taskgroup: nothing to cancel */
    wr(&((struct tg_rec *)(uintptr_t)tg)->cancelled, &one, sizeof one);
    return 1;
}

int kumi_omp_tg_cancelled(void)
{
    return tg_chain_cancelled(kumi_omp_tg_current());
}

/* ---------------------------------------------------------- taskgroup */

void __kmpc_taskgroup(kumi_omp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    int            d   = kumi_omp_task_depth();
    struct tg_rec  r   = { 0, frame_tg[d], 0, 0 };
    struct tg_rec *rec = kumi_omp_dsm_alloc("__kmpc_taskgroup", sizeof r, 16);
    if (rec == NULL)
        kumi_omp_fatal("__kmpc_taskgroup", "no DSM memory for a taskgroup");
    wr(rec, &r, sizeof r);
    frame_tg[d] = (uint64_t)(uintptr_t)rec;
}

/* Combines every PE's copy of the n items of list into the items'
 * originals, then frees the copies. */
static void red_combine(const char *call, uint64_t list, uint64_t n)
{
    int       np   = kumi_omp_th.npes;
    uint64_t *priv = malloc((size_t)np * sizeof *priv);
    if (priv == NULL)
        kumi_omp_fatal(call, "out of memory");
    for (uint64_t i = 0; i < n; i++) {
        uint64_t it[RED_WORDS];
        rd(it, (uint64_t *)(uintptr_t)list + i * RED_WORDS, sizeof it, call);
        rd(priv, (void *)(uintptr_t)it[RED_PRIV], (size_t)np * sizeof *priv, call);
        void (*comb)(void *, void *) = (void (*)(void *, void *))(uintptr_t)it[RED_COMB];
        void (*fini)(void *)         = (void (*)(void *))(uintptr_t)it[RED_FINI];
        for (int pe = 0; pe < np; pe++) {
            if (priv[pe] == 0)
                continue;
            comb((void *)(uintptr_t)it[RED_SHAR], (void *)(uintptr_t)priv[pe]);
            if (fini != NULL)
                fini((void *)(uintptr_t)priv[pe]);
            kumi_omp_free((void *)(uintptr_t)priv[pe]);
        }
        kumi_omp_free((void *)(uintptr_t)it[RED_PRIV]);
    }
    free(priv);
}

/* Every task waits for its children before it ends, so waiting for the
 * current frame's children waits for all the group's descendants. */
void __kmpc_end_taskgroup(kumi_omp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    int      d  = kumi_omp_task_depth();
    uint64_t tg = frame_tg[d];
    if (tg == 0)
        kumi_omp_fatal("__kmpc_end_taskgroup", "no taskgroup began in this task");
    kumi_omp_task_wait_children();
    struct tg_rec r;
    rd(&r, (void *)(uintptr_t)tg, sizeof r, "__kmpc_end_taskgroup");
    if (r.nred > 0) {
        red_combine("__kmpc_end_taskgroup", r.red, r.nred);
        kumi_omp_free((void *)(uintptr_t)r.red);
    }
    frame_tg[d] = r.parent;
    kumi_omp_free((void *)(uintptr_t)tg);
}

/* ---------------------------------------------------- task reductions */

/* kmp_taskred_input_t (clang-14's __kmpc_taskred_init) */
struct kmp_taskred_input {
    void    *shar, *orig;
    size_t   size;
    void    *init, *fini, *comb;   /* init(priv, orig), fini(priv), comb(shar, priv) */
    uint32_t flags;
};
/* kmp_task_red_input_t (__kmpc_task_reduction_init) */
struct kmp_task_red_input {
    void    *shar;
    size_t   size;
    void    *init, *fini, *comb;   /* init(priv) */
    uint32_t flags;
};

/* Item i of a clause's data (either layout) as list words (no copies). */
static void red_item(const char *call, const void *data, int i, int two_arg_init, uint64_t *it)
{
    memset(it, 0, RED_WORDS * sizeof *it);
    if (two_arg_init) {
        struct kmp_taskred_input in;
        rd(&in, (const struct kmp_taskred_input *)data + i, sizeof in, call);
        it[RED_SHAR] = (uint64_t)(uintptr_t)in.shar;
        it[RED_ORIG] = (uint64_t)(uintptr_t)(in.orig != NULL ? in.orig : in.shar);
        it[RED_SIZE] = in.size;
        it[RED_INIT] = (uint64_t)(uintptr_t)in.init;
        it[RED_FINI] = (uint64_t)(uintptr_t)in.fini;
        it[RED_COMB] = (uint64_t)(uintptr_t)in.comb;
    } else {
        struct kmp_task_red_input in;
        rd(&in, (const struct kmp_task_red_input *)data + i, sizeof in, call);
        it[RED_SHAR] = (uint64_t)(uintptr_t)in.shar;
        it[RED_ORIG] = (uint64_t)(uintptr_t)in.shar;
        it[RED_SIZE] = in.size;
        it[RED_INIT] = (uint64_t)(uintptr_t)in.init;
        it[RED_FINI] = (uint64_t)(uintptr_t)in.fini;
        it[RED_COMB] = (uint64_t)(uintptr_t)in.comb;
    }
    it[RED_ARGS] = two_arg_init ? 2 : 1;
    if (it[RED_COMB] == 0)
        kumi_omp_fatal(call, "reduction item %d has no combiner", i);
}

static uint64_t *dsm_zalloc(const char *call, size_t words)
{
    uint64_t *p = kumi_omp_dsm_alloc(call, words * sizeof *p, 16);
    if (p == NULL)
        kumi_omp_fatal(call, "no DSM memory for task reduction data");
    for (size_t k = 0; k < words; k++) {
        uint64_t zero = 0;
        wr(p + k, &zero, sizeof zero);
    }
    return p;
}

/* A new list of num items, each with its own array of copies. */
static uint64_t red_list_new(const char *call, int num, const void *data, int two_arg_init)
{
    uint64_t *list = dsm_zalloc(call, (size_t)num * RED_WORDS);
    for (int i = 0; i < num; i++) {
        uint64_t it[RED_WORDS];
        red_item(call, data, i, two_arg_init, it);
        it[RED_PRIV] = (uint64_t)(uintptr_t)dsm_zalloc(call, (size_t)kumi_omp_th.npes);
        wr(list + (size_t)i * RED_WORDS, it, sizeof it);
    }
    return (uint64_t)(uintptr_t)list;
}

/* The current taskgroup reduces over list (num items); returns it. */
static void *red_attach(const char *call, uint64_t list, int num)
{
    uint64_t tg = kumi_omp_tg_current();
    if (tg == 0)
        kumi_omp_fatal(call, "task reductions outside a taskgroup");
    struct tg_rec r;
    rd(&r, (void *)(uintptr_t)tg, sizeof r, call);
    if (r.nred != 0)
        kumi_omp_fatal(call, "a second set of task reductions for one taskgroup");
    r.nred = (uint64_t)num;
    r.red  = list;
    wr((void *)(uintptr_t)tg, &r, sizeof r);
    return (void *)(uintptr_t)tg;
}

static void *red_init(const char *call, int num, const void *data, int two_arg_init)
{
    if (kumi_omp_tg_current() == 0)
        kumi_omp_fatal(call, "task reductions outside a taskgroup");
    if (num <= 0)
        return (void *)(uintptr_t)kumi_omp_tg_current();
    return red_attach(call, red_list_new(call, num, data, two_arg_init), num);
}

void *__kmpc_taskred_init(int32_t gtid, int32_t num, void *data)
{
    (void)gtid;
    return red_init("__kmpc_taskred_init", num, data, 1);
}

void *__kmpc_task_reduction_init(int32_t gtid, int32_t num, void *data)
{
    (void)gtid;
    return red_init("__kmpc_task_reduction_init", num, data, 0);
}

/* Whether data names item `it`: its original, or inside any PE's copy (a
 * task nested in a task that got a copy names that copy: the copy of the
 * PE that ran the outer task, maybe not this one). *off: where in it. */
static int red_names(const char *call, const uint64_t *it, const void *data, uint64_t *off)
{
    uintptr_t d    = (uintptr_t)data;
    uint64_t  size = it[RED_SIZE] ? it[RED_SIZE] : 1;
    if (d == it[RED_SHAR]) {
        *off = 0;
        return 1;
    }
    for (int pe = 0; pe < kumi_omp_th.npes; pe++) {
        uint64_t priv;
        rd(&priv, (uint64_t *)(uintptr_t)it[RED_PRIV] + pe, sizeof priv, call);
        if (priv != 0 && d >= priv && d < priv + size) {
            *off = d - priv;
            return 1;
        }
    }
    return 0;
}

/* This PE's copy of the reduction item `data` (its original, or any PE's
 * copy) of taskgroup tg (NULL: the current task's) or an enclosing one. */
void *__kmpc_task_reduction_get_th_data(int32_t gtid, void *tskgrp, void *data)
{
    static const char call[] = "__kmpc_task_reduction_get_th_data";
    uint64_t          tg     = tskgrp != NULL ? (uint64_t)(uintptr_t)tskgrp : kumi_omp_tg_current();
    int               me     = kumi_omp_th.pe;
    uint64_t          it[RED_WORDS], off;
    (void)gtid;

    if (kumi_omp_th.nth <= 1)
        return data;
    while (tg != 0) {
        struct tg_rec r;
        rd(&r, (void *)(uintptr_t)tg, sizeof r, call);
        for (uint64_t i = 0; i < r.nred; i++) {
            uint64_t priv;
            rd(it, (uint64_t *)(uintptr_t)r.red + i * RED_WORDS, sizeof it, call);
            if (!red_names(call, it, data, &off))
                continue;
            uint64_t *slot = (uint64_t *)(uintptr_t)it[RED_PRIV] + me;
            rd(&priv, slot, sizeof priv, call);
            if (priv == 0) {
                void *p = kumi_omp_dsm_alloc(call, it[RED_SIZE] ? it[RED_SIZE] : 1, 16);
                if (p == NULL)
                    kumi_omp_fatal(call, "no DSM memory for a reduction copy of %llu bytes",
                                   (unsigned long long)it[RED_SIZE]);
                if (it[RED_INIT] == 0) {
                    for (uint64_t k = 0; k < it[RED_SIZE]; k += 8) {
                        uint64_t zero = 0;
                        wr((char *)p + k, &zero, it[RED_SIZE] - k < 8 ? it[RED_SIZE] - k : 8);
                    }
                } else if (it[RED_ARGS] == 2) {
                    ((void (*)(void *, void *))(uintptr_t)it[RED_INIT])(
                        p, (void *)(uintptr_t)it[RED_ORIG]);
                } else {
                    ((void (*)(void *))(uintptr_t)it[RED_INIT])(p);
                }
                priv = (uint64_t)(uintptr_t)p;
                wr(slot, &priv, sizeof priv);
            }
            return (void *)(uintptr_t)(priv + off);
        }
        tg = r.parent;
    }
    kumi_omp_fatal(call, "%p is not a reduction item of the enclosing taskgroups", data);
}

/* ------------------------------------- reduction(task, ...) modifiers */

static void *redmod_init(const char *call, int is_ws, int num, const void *data, int two_arg_init)
{
    kumi_omp_thread_t *th = &kumi_omp_th;

    __kmpc_taskgroup(NULL, th->pe);   /* every thread's own */
    if (th->nth <= 1 || num <= 0)
        return (void *)(uintptr_t)kumi_omp_tg_current();   /* the tasks use the originals */
    struct redmod_slot *sl  = &redmod[is_ws ? 1 : 0];
    uint64_t            key = th->region << 32 | ++redmod_count;
    uint64_t            list;
    for (;;) {
        uint64_t old = kumi_omp_w_cswap(&sl->owner, 0, key, 0);
        if (old == 0) {   /* the first thread: makes the list */
            list = red_list_new(call, num, data, two_arg_init);
            kumi_omp_w_set(&sl->list, list, 0);
            break;
        }
        if (old == key) {
            kumi_omp_wait_remote_u64(&sl->list, 0, KUMI_CMP_NE, 0);
            list = kumi_omp_w_fetch(&sl->list, 0);
            break;
        }
        /* an earlier construct's list is still in use: wait for its end */
        kumi_omp_wait_remote_u64(&sl->owner, 0, KUMI_CMP_NE, old);
    }
    /* this thread's copy of the list: its own originals, the shared copies */
    uint64_t *mine = kumi_omp_dsm_alloc(call, (size_t)num * RED_WORDS * sizeof *mine, 16);
    if (mine == NULL)
        kumi_omp_fatal(call, "no DSM memory for task reduction data");
    for (int i = 0; i < num; i++) {
        uint64_t it[RED_WORDS], own[RED_WORDS];
        rd(it, (uint64_t *)(uintptr_t)list + (size_t)i * RED_WORDS, sizeof it, call);
        red_item(call, data, i, two_arg_init, own);
        it[RED_SHAR] = own[RED_SHAR];
        it[RED_ORIG] = own[RED_ORIG];
        wr(mine + (size_t)i * RED_WORDS, it, sizeof it);
    }
    return red_attach(call, (uint64_t)(uintptr_t)mine, num);
}

void *__kmpc_taskred_modifier_init(kumi_omp_ident_t *loc, int32_t gtid, int32_t is_ws,
                                   int32_t num, void *data)
{
    (void)loc;
    (void)gtid;
    return redmod_init("__kmpc_taskred_modifier_init", is_ws, num, data, 1);
}

void *__kmpc_task_reduction_modifier_init(kumi_omp_ident_t *loc, int32_t gtid, int32_t is_ws,
                                          int32_t num, void *data)
{
    (void)loc;
    (void)gtid;
    return redmod_init("__kmpc_task_reduction_modifier_init", is_ws, num, data, 0);
}

/* Each thread ends its taskgroup (waiting for its tasks); the last one
 * combines every PE's copies into its own originals, which the
 * construct's ordinary reduction then adds to the others'. */
void __kmpc_task_reduction_modifier_fini(kumi_omp_ident_t *loc, int32_t gtid, int32_t is_ws)
{
    static const char  call[] = "__kmpc_task_reduction_modifier_fini";
    kumi_omp_thread_t *th     = &kumi_omp_th;
    int                d      = kumi_omp_task_depth();
    uint64_t           tg     = frame_tg[d];
    struct tg_rec      r;

    if (tg == 0)
        kumi_omp_fatal(call, "no task reduction began in this task");
    if (th->nth <= 1) {
        __kmpc_end_taskgroup(loc, gtid);
        return;
    }
    kumi_omp_task_wait_children();
    rd(&r, (void *)(uintptr_t)tg, sizeof r, call);
    if (r.nred > 0) {
        struct redmod_slot *sl = &redmod[is_ws ? 1 : 0];
        if (kumi_omp_w_add(&sl->fini, 1, 0) == (uint64_t)th->nth - 1) {
            uint64_t list = kumi_omp_w_fetch(&sl->list, 0);
            red_combine(call, r.red, r.nred);   /* into this thread's originals */
            kumi_omp_free((void *)(uintptr_t)list);
            kumi_omp_w_set(&sl->fini, 0, 0);
            kumi_omp_w_set(&sl->list, 0, 0);
            kumi_omp_w_set(&sl->owner, 0, 0);
        }
        kumi_omp_free((void *)(uintptr_t)r.red);
    }
    frame_tg[d] = r.parent;
    kumi_omp_free((void *)(uintptr_t)tg);
}
