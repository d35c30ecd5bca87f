/*
 * task.c -- explicit tasks (OpenMP 4.5 task, taskwait, taskyield,
 * task if(0), taskgroup, depend): the __kmpc_omp_task* entry points
 * clang-14 emits, with deferred tasks run by whichever PE of the team is
 * idle.
 *
 * The task record is DSM memory (kumi_omp_dsm_alloc on the creating PE):
 * a header of ours, then the kmp_task_t clang fills (shareds pointer,
 * routine, part id, the privates), then the shareds block the shareds
 * pointer names. Any PE can run it: the routine is translated code and
 * reaches the record and what the shareds point at through the DSM.
 *
 * Queues: every PE has one in its symmetric scratch (a ring of record
 * addresses under a lock word driven by kumi atomics). The creator pushes
 * and pops at the tail (LIFO: its own newest task, usually the child it
 * waits for); a thief takes from the head. PE 0's copy of two words
 * counts the team's tasks: outstanding (created and not finished: a
 * barrier returns when it is 0) and queued (a hint: idle PEs look at the
 * queues only when it is not 0).
 *
 * Children: a PE running a task opens a frame (a depth, 0 being the
 * implicit task of the region), and each frame has a child counter in the
 * PE's symmetric scratch; a child knows (PE, depth) of its parent's frame
 * and decrements it with a kumi atomic when it finishes. taskwait waits
 * for the counter, running its own children meanwhile (never unrelated
 * tasks: a tied task's thread may only take its descendants, OpenMP's
 * task scheduling constraint, which also keeps locks the waiting task
 * holds safe). Every task waits for its own children before it finishes,
 * so frames nest and a finished frame's counter is 0 when reused; this
 * also makes end_taskgroup (all descendants) a taskwait.
 *
 * Tasks run at once (undeferred) when the team has one thread, for
 * if(0), when the frame depth or the queue is full, and for tasks with
 * depend clauses: running each at its creation respects every dependence
 * between siblings, so __kmpc_omp_wait_deps has nothing left to wait for.
 */
#include <sched.h>
#include <string.h>
#include <time.h>

#include "omp_int.h"
#include "omp_libc.h"

#define TASK_RING   2048            /* queued tasks per PE              */
#define TASK_DEPTH  64              /* nested running tasks per PE      */
#define TASK_MAGIC  0x6b756d697461736bull   /* "kumitask"            */

/* kmp_task_t as clang-14 lays it out (the LLVM OpenMP ABI). */
typedef int32_t (*kmp_routine_t)(int32_t gtid, void *task);
typedef struct kmp_task {
    void         *shareds;
    kmp_routine_t routine;
    int32_t       part_id;
    void         *data1, *data2;    /* destructors / priority (C: unused) */
} kmp_task_t;
/* taskloop's task: kmp_task_t, then these (inclusive bounds, stride) */
#define TASKLOOP_LB_OFF 40
#define TASKLOOP_UB_OFF 48
enum { KMP_TASK_FINAL = 0x2 };

/* Our header in front of the kmp_task_t, in the same DSM record. */
struct task_hdr {
    uint64_t magic;
    int32_t  parent_pe, parent_depth;   /* frame whose counter to decrement */
    uint64_t task_bytes, shareds_bytes; /* what __kmpc_omp_task_alloc got  */
    int32_t  deferred;                  /* counted in outstanding            */
    int32_t  final;                     /* final clause, or inside a final task */
    uint64_t pad2_[3];
};
_Static_assert(sizeof(struct task_hdr) % 16 == 0, "the task after the header stays 16-aligned");

/* The per-PE symmetric words (same address on every PE). */
struct task_sym {
    uint64_t lock;
    uint64_t head, tail;
    uint64_t outstanding;          /* PE 0's copy: the team's unfinished deferred tasks */
    uint64_t queued;               /* PE 0's copy: tasks sitting in queues              */
    uint64_t children[TASK_DEPTH]; /* this PE's frames' unfinished children             */
    uint64_t ring[TASK_RING];
};

static struct task_sym *tsym;
static int              depth;   /* this PE's current frame */
static char             frame_final[TASK_DEPTH];   /* frame runs a final task */
static int              if0_sat;                   /* if(0) tasks begun past the last frame */

/* Records of other PEs' tasks run here: freeing one is a round trip to
 * its home, which may be busy running tasks without serving anything, so
 * they are freed at the next barrier, before the team barrier proper
 * (the homes are in it, serving), or when many wait. */
#define TASK_FREE_BATCH 1024
static void  *to_free[TASK_FREE_BATCH];
static int    nto_free;

static void task_free_batch(void)
{
    for (int i = 0; i < nto_free; i++)
        kumi_omp_free(to_free[i]);
    nto_free = 0;
}

/* home: the PE that allocated rec (kumi_dsm_malloc_block never
 * distributes: the caller is the home). */
static void task_free(void *rec, int home)
{
    if (home == kumi_omp_th.pe) {
        kumi_omp_free(rec);
        return;
    }
    if (nto_free == TASK_FREE_BATCH)
        task_free_batch();
    to_free[nto_free++] = rec;
}

static struct task_hdr *hdr_of(kmp_task_t *t)
{
    return (struct task_hdr *)((char *)t - sizeof(struct task_hdr));
}

/* ------------------------------------------------- symmetric words */

static uint64_t w_fetch(uint64_t *w, int pe)
{
    uint64_t v;
    if (pe == kumi_omp_th.pe)
        return __atomic_load_n(w, __ATOMIC_ACQUIRE);
    if (kumi_atomic_fetch_u64(w, pe, &v) != KUMI_OK)
        kumi_global_exit(1);   /* the job is ending (reported by kumi) */
    return v;
}

static uint64_t w_add(uint64_t *w, uint64_t v, int pe)
{
    uint64_t old;
    if (pe == kumi_omp_th.pe)
        return __atomic_fetch_add(w, v, __ATOMIC_ACQ_REL);
    if (kumi_atomic_fetch_add_u64(w, v, pe, &old) != KUMI_OK)
        kumi_global_exit(1);
    return old;
}

static uint64_t w_cswap(uint64_t *w, uint64_t expect, uint64_t desired, int pe)
{
    uint64_t old;
    if (pe == kumi_omp_th.pe) {
        __atomic_compare_exchange_n(w, &expect, desired, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
        return expect;
    }
    if (kumi_atomic_cswap_u64(w, expect, desired, pe, &old) != KUMI_OK)
        kumi_global_exit(1);
    return old;
}

static void w_set(uint64_t *w, uint64_t v, int pe)
{
    uint64_t old;
    if (pe == kumi_omp_th.pe)
        __atomic_store_n(w, v, __ATOMIC_RELEASE);
    else if (kumi_atomic_swap_u64(w, v, pe, &old) != KUMI_OK)
        kumi_global_exit(1);
}

static void q_lock(int pe)
{
    for (unsigned spins = 0; w_cswap(&tsym->lock, 0, 1, pe) != 0; spins++)
        if (spins > 16)
            sched_yield();
}

static void q_unlock(int pe)
{
    w_set(&tsym->lock, 0, pe);
}

/* Owner: push at the tail; 0 when the ring is full. */
static int q_push(kmp_task_t *t)
{
    int me = kumi_omp_th.pe;
    q_lock(me);
    uint64_t h = __atomic_load_n(&tsym->head, __ATOMIC_ACQUIRE), tl = tsym->tail;
    if (tl - h >= TASK_RING) {
        q_unlock(me);
        return 0;
    }
    tsym->ring[tl % TASK_RING] = (uint64_t)(uintptr_t)t;
    __atomic_store_n(&tsym->tail, tl + 1, __ATOMIC_RELEASE);
    q_unlock(me);
    w_add(&tsym->queued, 1, 0);
    return 1;
}

/* Owner: pop the newest, only when it is a child of frame d (d < 0: any). */
static kmp_task_t *q_pop(int d)
{
    int me = kumi_omp_th.pe;
    if (__atomic_load_n(&tsym->tail, __ATOMIC_ACQUIRE)
        == __atomic_load_n(&tsym->head, __ATOMIC_ACQUIRE))
        return NULL;
    q_lock(me);
    kmp_task_t *t = NULL;
    uint64_t    h = __atomic_load_n(&tsym->head, __ATOMIC_ACQUIRE), tl = tsym->tail;
    if (tl > h) {
        kmp_task_t *c = (kmp_task_t *)(uintptr_t)tsym->ring[(tl - 1) % TASK_RING];
        /* the header is ours, written by this PE at creation: still E here
         * unless another PE read it (a thief only reads records it took) */
        struct task_hdr hd;
        if (kumi_dsm_read(&hd, hdr_of(c), sizeof hd) != KUMI_OK)
            kumi_global_exit(1);
        if (d < 0 || (hd.parent_pe == me && hd.parent_depth == d)) {
            t = c;
            __atomic_store_n(&tsym->tail, tl - 1, __ATOMIC_RELEASE);
        }
    }
    q_unlock(me);
    if (t != NULL)
        w_add(&tsym->queued, (uint64_t)-1, 0);
    return t;
}

/* Thief: take the oldest task of pe's queue. */
static kmp_task_t *q_steal(int pe)
{
    uint64_t ht[2];
    if (kumi_get(ht, &tsym->head, sizeof ht, pe) != KUMI_OK)
        kumi_global_exit(1);
    if (ht[1] <= ht[0])
        return NULL;
    q_lock(pe);
    kmp_task_t *t = NULL;
    if (kumi_get(ht, &tsym->head, sizeof ht, pe) != KUMI_OK)
        kumi_global_exit(1);
    if (ht[1] > ht[0]) {
        uint64_t a;
        if (kumi_get(&a, &tsym->ring[ht[0] % TASK_RING], sizeof a, pe) != KUMI_OK)
            kumi_global_exit(1);
        t = (kmp_task_t *)(uintptr_t)a;
        w_set(&tsym->head, ht[0] + 1, pe);
    }
    q_unlock(pe);
    if (t != NULL)
        w_add(&tsym->queued, (uint64_t)-1, 0);
    return t;
}

/* ------------------------------------------------------- running */

static void task_wait_children(void);

/* Runs t here to its end (its children included), then tells its
 * parent's frame and the team, and frees the record. */
static void task_run(kmp_task_t *t)
{
    struct task_hdr hd;
    kmp_task_t      tk;

    if (kumi_dsm_read(&hd, hdr_of(t), sizeof hd) != KUMI_OK
        || kumi_dsm_read(&tk, t, sizeof tk) != KUMI_OK)
        kumi_global_exit(1);
    if (hd.magic != TASK_MAGIC)
        kumi_omp_fatal("__kmpc_omp_task", "%p is not a task record", (void *)t);
    /* Frames saturate: at the last one a task runs in its parent's frame;
     * its children are then all undeferred (__kmpc_omp_task), so no
     * counter is needed. Without queues (tsym NULL) every task is. */
    int  sat  = tsym == NULL || depth + 1 >= TASK_DEPTH;
    char save = frame_final[depth];
    if (!sat) {
        depth++;
        __atomic_store_n(&tsym->children[depth], 0, __ATOMIC_RELEASE);
    }
    frame_final[depth] = (char)(hd.final || (sat && save));
    if (tk.routine != NULL)   /* a task made by hand with no body only orders its deps */
        tk.routine(kumi_omp_th.pe, t);
    if (!sat) {
        task_wait_children();
        frame_final[depth] = 0;
        depth--;
    } else {
        frame_final[depth] = save;
    }
    if (tsym == NULL) {
        kumi_omp_free(hdr_of(t));
        return;
    }
    if (hd.deferred) {
        w_add(&tsym->children[hd.parent_depth], (uint64_t)-1, hd.parent_pe);
        w_add(&tsym->outstanding, (uint64_t)-1, 0);
    }
    /* a small record goes back to this PE's free list (memory.c: no
     * message); a big one is another PE's DSM allocation to free */
    size_t bytes = sizeof hd + ((hd.task_bytes + 15) & ~(size_t)15) + hd.shareds_bytes;
    task_free(hdr_of(t), bytes <= 2032 || !hd.deferred ? kumi_omp_th.pe : hd.parent_pe);
    /* thieves of this PE's records miss on them: serve between tasks */
    kumi_dsm_poll();
}

/* Serves what others wait for from this PE (DSM requests, stdio), then
 * backs off: yields, and after a while naps, so an idle PE does not take
 * the core from the PEs (or the tcp progress thread) doing the work. */
static void task_poll(unsigned *spins)
{
    kumi_dsm_poll();
    kumi_omp_libc_serve();
    if (++*spins > 2048) {
        struct timespec nap = { 0, 50000 };
        nanosleep(&nap, NULL);
    } else if (*spins > 64) {
        sched_yield();
    }
}

/* One task from anywhere in the team (own queue first); 1 if one ran. */
static int task_run_any(void)
{
    kmp_task_t *t = q_pop(-1);
    if (t == NULL && w_fetch(&tsym->queued, 0) != 0) {
        int n = kumi_omp_th.nth, me = kumi_omp_th.pe;
        for (int i = 1; i < n && t == NULL; i++)
            t = q_steal((me + i) % n);
    }
    if (t == NULL)
        return 0;
    task_run(t);
    return 1;
}

static void task_wait_children(void)
{
    while (__atomic_load_n(&tsym->children[depth], __ATOMIC_ACQUIRE) != 0) {
        kmp_task_t *t = q_pop(depth);
        if (t != NULL) {
            task_run(t);
            continue;
        }
        /* None of my children is queued here: the rest run on other PEs,
         * and nothing new can join my queue while I wait. A kumi wait
         * serves DSM and stdio requests and follows KUMI_WAIT. */
        if (kumi_wait_until_u64(&tsym->children[depth], KUMI_CMP_EQ, 0) != KUMI_OK)
            kumi_global_exit(1);   /* the job is ending (reported by kumi) */
    }
}

/* ------------------------------------------------- hooks for T3 */

void kumi_omp_task_init(void)
{
    tsym  = kumi_omp_sym_alloc(sizeof(*tsym));
    depth = 0;
}

void kumi_omp_task_region_begin(void)
{
    depth   = 0;
    if0_sat = 0;
    if (tsym != NULL)
        __atomic_store_n(&tsym->children[0], 0, __ATOMIC_RELEASE);
}

void kumi_omp_task_region_end(void)
{
    depth = 0;
}

void kumi_omp_task_barrier(void)
{
    unsigned spins = 0;

    if (tsym == NULL || kumi_omp_th.nth <= 1)
        return;
    while (w_fetch(&tsym->outstanding, 0) != 0) {
        if (task_run_any())
            spins = 0;
        else
            task_poll(&spins);
    }
    /* before the team barrier: the homes are still in it, serving */
    task_free_batch();
}

/* While waiting for a lock, ordered, copyprivate: serve stdio requests
 * (the PE waited for may be printing), run no task (the waiter may hold
 * a lock a task needs). */
int kumi_omp_task_idle(void)
{
    return kumi_omp_libc_serve() > 0;
}

/* ------------------------------------------------- the entry points */

void *__kmpc_omp_task_alloc(kumi_omp_ident_t *loc, int32_t gtid, int32_t flags,
                            size_t task_bytes, size_t shareds_bytes, kmp_routine_t routine)
{
    (void)loc;
    (void)gtid;
    if (task_bytes < sizeof(kmp_task_t))
        task_bytes = sizeof(kmp_task_t);
    size_t tb    = (task_bytes + 15) & ~(size_t)15;
    char  *rec   = kumi_omp_dsm_alloc("__kmpc_omp_task_alloc",
                                      sizeof(struct task_hdr) + tb + shareds_bytes, 16);
    if (rec == NULL)
        kumi_omp_fatal("__kmpc_omp_task_alloc", "no DSM memory for a task of %zu bytes",
                       task_bytes + shareds_bytes);
    struct task_hdr hd = { .magic = TASK_MAGIC, .task_bytes = task_bytes,
                           .shareds_bytes = shareds_bytes,
                           .final = (flags & KMP_TASK_FINAL) || frame_final[depth] };
    kmp_task_t *t  = (kmp_task_t *)(rec + sizeof hd);
    kmp_task_t  tk = { .shareds = shareds_bytes ? (char *)t + tb : NULL, .routine = routine };
    /* new memory homed here: exclusive, the writes are local */
    if (kumi_dsm_write(rec, &hd, sizeof hd) != KUMI_OK
        || kumi_dsm_write(t, &tk, sizeof tk) != KUMI_OK)
        kumi_global_exit(1);
    return t;
}

/* Runs t now, in this frame's place (undeferred). */
static void task_now(kmp_task_t *t)
{
    task_run(t);
}

int32_t __kmpc_omp_task(kumi_omp_ident_t *loc, int32_t gtid, void *task)
{
    kmp_task_t *t = task;
    (void)loc;
    (void)gtid;
    /* a final task's children are included: run at once */
    if (tsym == NULL || kumi_omp_th.nth <= 1 || depth + 2 >= TASK_DEPTH || frame_final[depth]) {
        task_now(t);
        return 0;
    }
    struct task_hdr hd;
    if (kumi_dsm_read(&hd, hdr_of(t), sizeof hd) != KUMI_OK)
        kumi_global_exit(1);
    hd.parent_pe    = kumi_omp_th.pe;
    hd.parent_depth = depth;
    hd.deferred     = 1;
    if (kumi_dsm_write(hdr_of(t), &hd, sizeof hd) != KUMI_OK)
        kumi_global_exit(1);
    kumi_dsm_poll();   /* a producer serves the thieves of its earlier tasks */
    /* counted before any PE can see it, so no barrier misses it */
    w_add(&tsym->outstanding, 1, 0);
    __atomic_fetch_add(&tsym->children[depth], 1, __ATOMIC_ACQ_REL);
    if (!q_push(t)) {
        /* queue full: run it here (still counted, task_run uncounts) */
        task_run(t);
    }
    return 0;
}

int32_t __kmpc_omp_task_parts(kumi_omp_ident_t *loc, int32_t gtid, void *task)
{
    return __kmpc_omp_task(loc, gtid, task);
}

int32_t __kmpc_omp_taskwait(kumi_omp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    if (tsym != NULL)
        task_wait_children();
    return 0;
}

int32_t __kmpc_omp_taskyield(kumi_omp_ident_t *loc, int32_t gtid, int32_t end_part)
{
    (void)loc;
    (void)gtid;
    (void)end_part;
    kumi_dsm_poll();
    kumi_omp_libc_serve();
    return 0;
}

/* task if(0): the compiler calls the routine itself between these two. */
void __kmpc_omp_task_begin_if0(kumi_omp_ident_t *loc, int32_t gtid, void *task)
{
    (void)loc;
    (void)gtid;
    (void)task;
    if (tsym == NULL || depth + 1 >= TASK_DEPTH) {
        if0_sat++;   /* saturated: runs in its parent's frame (see task_run) */
        return;
    }
    struct task_hdr hd;
    if (kumi_dsm_read(&hd, hdr_of(task), sizeof hd) != KUMI_OK)
        kumi_global_exit(1);
    depth++;
    frame_final[depth] = (char)hd.final;
    __atomic_store_n(&tsym->children[depth], 0, __ATOMIC_RELEASE);
}

void __kmpc_omp_task_complete_if0(kumi_omp_ident_t *loc, int32_t gtid, void *task)
{
    (void)loc;
    (void)gtid;
    if (if0_sat > 0) {
        if0_sat--;
    } else {
        task_wait_children();
        frame_final[depth] = 0;
        depth--;
    }
    kumi_omp_free(hdr_of(task));
}

int omp_in_final(void)
{
    return frame_final[depth];
}

/* ------------------------------------------------------------ taskloop */

typedef void (*kmp_task_dup_t)(void *dst, void *src, int32_t lastpriv);

static uint64_t ld_u64(const void *p)
{
    uint64_t v;
    if (kumi_dsm_read(&v, p, sizeof v) != KUMI_OK)
        kumi_global_exit(1);
    return v;
}

static void st_u64(void *p, uint64_t v)
{
    if (kumi_dsm_write(p, &v, sizeof v) != KUMI_OK)
        kumi_global_exit(1);
}

/* A copy of the taskloop's pattern task with its own shareds block. */
static kmp_task_t *task_clone(kumi_omp_ident_t *loc, int32_t gtid, kmp_task_t *src,
                              const struct task_hdr *hd, const kmp_task_t *tk)
{
    kmp_task_t *dst = __kmpc_omp_task_alloc(loc, gtid, hd->final ? KMP_TASK_FINAL : 0,
                                            hd->task_bytes, hd->shareds_bytes, tk->routine);
    size_t      n   = hd->task_bytes + (hd->shareds_bytes ? ((hd->task_bytes + 15) & ~(size_t)15)
                                                              - hd->task_bytes + hd->shareds_bytes
                                                            : 0);
    kumi_dsm_memmove(dst, src, n);
    void *sh = hd->shareds_bytes ? (char *)dst + ((hd->task_bytes + 15) & ~(size_t)15) : NULL;
    st_u64(&dst->shareds, (uint64_t)(uintptr_t)sh);
    return dst;
}

void __kmpc_taskloop(kumi_omp_ident_t *loc, int32_t gtid, void *task, int32_t if_val,
                     uint64_t *lb, uint64_t *ub, int64_t st, int32_t nogroup, int32_t sched,
                     uint64_t grainsize, void *task_dup)
{
    kmp_task_t     *t = task;
    struct task_hdr hd;
    kmp_task_t      tk;

    if (kumi_dsm_read(&hd, hdr_of(t), sizeof hd) != KUMI_OK
        || kumi_dsm_read(&tk, t, sizeof tk) != KUMI_OK)
        kumi_global_exit(1);
    if (hd.task_bytes < TASKLOOP_UB_OFF + 8)
        kumi_omp_fatal("__kmpc_taskloop", "task of %llu bytes has no loop bounds",
                       (unsigned long long)hd.task_bytes);
    if (st == 0)
        kumi_omp_fatal("__kmpc_taskloop", "loop stride 0");
    int64_t  lo = (int64_t)ld_u64(lb), hi = (int64_t)ld_u64(ub);
    uint64_t tc = st > 0 ? (hi < lo ? 0 : (uint64_t)(hi - lo) / (uint64_t)st + 1)
                         : (lo < hi ? 0 : (uint64_t)(lo - hi) / (uint64_t)(-st) + 1);
    uint64_t ntasks;
    if (sched == 1)          /* grainsize: chunks of grainsize..2*grainsize-1 */
        ntasks = grainsize == 0 || grainsize > tc ? 1 : tc / grainsize;
    else if (sched == 2)     /* num_tasks */
        ntasks = grainsize == 0 ? 1 : grainsize < tc ? grainsize : tc;
    else
        ntasks = (uint64_t)kumi_omp_th.nth * 4 < tc ? (uint64_t)kumi_omp_th.nth * 4 : tc;
    if (ntasks == 0)
        ntasks = 1;
    uint64_t chunk = tc / ntasks, extra = tc % ntasks;
    int64_t  at    = lo;
    for (uint64_t k = 0; k < ntasks && tc > 0; k++) {
        uint64_t    its = chunk + (k < extra);
        kmp_task_t *c   = task_clone(loc, gtid, t, &hd, &tk);
        st_u64((char *)c + TASKLOOP_LB_OFF, (uint64_t)at);
        st_u64((char *)c + TASKLOOP_UB_OFF, (uint64_t)(at + (int64_t)(its - 1) * st));
        if (task_dup != NULL)
            ((kmp_task_dup_t)task_dup)(c, t, k == ntasks - 1);
        at += (int64_t)its * st;
        if (if_val)
            __kmpc_omp_task(loc, gtid, c);
        else
            task_now(c);
    }
    kumi_omp_free(hdr_of(t));   /* the pattern never runs */
    if (!nogroup && tsym != NULL)
        task_wait_children();
}

void __kmpc_taskgroup(kumi_omp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
}

/* Every task waits for its children before it ends, so waiting for the
 * current frame's children waits for all the group's descendants. */
void __kmpc_end_taskgroup(kumi_omp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    if (tsym != NULL)
        task_wait_children();
}

int32_t __kmpc_omp_task_with_deps(kumi_omp_ident_t *loc, int32_t gtid, void *task, int32_t ndeps,
                                  void *deps, int32_t ndeps_noalias, void *noalias)
{
    (void)loc;
    (void)gtid;
    (void)ndeps;
    (void)deps;
    (void)ndeps_noalias;
    (void)noalias;
    task_now(task);
    return 0;
}

void __kmpc_omp_wait_deps(kumi_omp_ident_t *loc, int32_t gtid, int32_t ndeps, void *deps,
                          int32_t ndeps_noalias, void *noalias)
{
    (void)loc;
    (void)gtid;
    (void)ndeps;
    (void)deps;
    (void)ndeps_noalias;
    (void)noalias;
}
