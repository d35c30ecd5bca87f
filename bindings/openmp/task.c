/*
 * task.c -- explicit tasks (task, taskwait, taskyield, task if(0), final,
 * detach): the __kmpc_omp_task* entry points clang-14 emits, with deferred
 * tasks run by whichever PE of the team is idle. taskloop is taskloop.c's,
 * dependences taskdep.c's, taskgroups and task reductions taskgroup.c's;
 * task_int.h has what they share.
 *
 * The task record is DSM memory (kumi_omp_dsm_alloc on the creating PE):
 * our header, then the kmp_task_t clang fills (shareds pointer, routine,
 * part id, the privates), then the shareds block the shareds pointer
 * names. Any PE can run it: the routine is translated code and reaches the
 * record and what the shareds point at through the DSM.
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
 * also makes the end of a taskgroup (all descendants) a taskwait.
 *
 * A task whose predecessors have not finished waits outside the queues
 * (counted as a child and as outstanding); the PE that finishes its last
 * predecessor queues it on its own queue. That PE is either in a barrier
 * (it runs any task) or waiting for its own children, and the task, a
 * sibling of the one that finished, is one of them: the LIFO discipline
 * above holds.
 *
 * Tasks run at once (undeferred) when the team has one thread, for if(0),
 * inside final tasks, when the frame depth or the queue is full; with
 * depend clauses, only after their predecessors (which are then all
 * undeferred too, so finished).
 *
 * Untied tasks run tied. clang splits an untied task's routine into
 * parts: at its start and at each task scheduling point in it the routine
 * stores the next part's number in part_id, passes its own record to
 * __kmpc_omp_task (for the runtime to queue the rest) and returns. The
 * PE running it notes that call (the record is the one it runs) and calls
 * the routine again, so the task goes on at once where it is, in its
 * frame, until a part returns without it.
 */
#include <sched.h>
#include <string.h>
#include <time.h>

#include "omp.h"
#include "omp_libc.h"
#include "task_int.h"

#define TASK_RING   KUMI_OMP_TASK_RING
#define TASK_DEPTH  KUMI_OMP_TASK_DEPTH
#define TASK_MAGIC  0x6b756d697461736bull   /* "kumitask"            */


typedef struct kumi_omp_task_hdr task_hdr;

/* The per-PE symmetric words (same address on every PE). */
struct task_sym {
    uint64_t lock;
    uint64_t head, tail;
    uint64_t outstanding;          /* PE 0's copy: the team's unfinished deferred tasks */
    uint64_t queued;               /* PE 0's copy: tasks sitting in queues              */
    uint64_t arrived[2];           /* PE 0's copy: threads in team barrier e, at e & 1  */
    uint64_t children[TASK_DEPTH]; /* this PE's frames' unfinished children             */
    uint64_t ring[TASK_RING];
    uint64_t parent[TASK_RING];    /* each queued task's parent frame: pe << 32 | depth  */
};

static struct task_sym *tsym;
static int              depth;   /* this PE's current frame */
static char             frame_final[TASK_DEPTH];   /* frame runs a final task */
static int              if0_sat;                   /* if(0) tasks begun past the last frame */

/* The task whose routine this PE is running (innermost), and whether that
 * routine passed its own record to __kmpc_omp_task (an untied task's
 * next part: see above). */
static kmp_task_t *run_task;
static int         run_requeued;
/* what an if(0) task's begin saved, for its complete */
#define TASK_IF0_SAVE 1024
static kmp_task_t *if0_saved[TASK_IF0_SAVE];
static int         if0_nsaved, if0_unsaved;

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

void kumi_omp_task_hdr_read(kmp_task_t *t, task_hdr *hd)
{
    if (kumi_dsm_read(hd, kumi_omp_task_hdr_of(t), sizeof *hd) != KUMI_OK)
        kumi_global_exit(1);   /* the job is ending (reported by kumi) */
}

void kumi_omp_task_hdr_write(kmp_task_t *t, const task_hdr *hd)
{
    if (kumi_dsm_write(kumi_omp_task_hdr_of(t), hd, sizeof *hd) != KUMI_OK)
        kumi_global_exit(1);
}

int kumi_omp_task_depth(void)
{
    return depth;
}

/* ------------------------------------------------- symmetric words */

uint64_t kumi_omp_w_fetch(uint64_t *w, int pe)
{
    uint64_t v;
    if (pe == kumi_omp_th.pe)
        return __atomic_load_n(w, __ATOMIC_ACQUIRE);
    if (kumi_atomic_fetch_u64(w, pe, &v) != KUMI_OK)
        kumi_global_exit(1);   /* the job is ending (reported by kumi) */
    return v;
}

uint64_t kumi_omp_w_add(uint64_t *w, uint64_t v, int pe)
{
    uint64_t old;
    if (pe == kumi_omp_th.pe)
        return __atomic_fetch_add(w, v, __ATOMIC_ACQ_REL);
    if (kumi_atomic_fetch_add_u64(w, v, pe, &old) != KUMI_OK)
        kumi_global_exit(1);
    return old;
}

uint64_t kumi_omp_w_cswap(uint64_t *w, uint64_t expect, uint64_t desired, int pe)
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

void kumi_omp_w_set(uint64_t *w, uint64_t v, int pe)
{
    uint64_t old;
    if (pe == kumi_omp_th.pe)
        __atomic_store_n(w, v, __ATOMIC_RELEASE);
    else if (kumi_atomic_swap_u64(w, v, pe, &old) != KUMI_OK)
        kumi_global_exit(1);
}

void kumi_omp_w_lock(uint64_t *w, int pe)
{
    for (unsigned spins = 0; kumi_omp_w_cswap(w, 0, 1, pe) != 0; spins++) {
        kumi_dsm_poll();   /* the holder may be waiting for a line of ours */
        if (spins > 16)
            sched_yield();
    }
}

void kumi_omp_w_unlock(uint64_t *w, int pe)
{
    kumi_omp_w_set(w, 0, pe);
}

/* ------------------------------------------------------- the queues */

static uint64_t parent_tag(const task_hdr *hd)
{
    return (uint64_t)(uint32_t)hd->parent_pe << 32 | (uint32_t)hd->parent_depth;
}

/* Push at the tail of pe's queue (pe may be another PE: a task whose
 * detach event completed its last predecessor goes to its parent's
 * queue); 0 when the ring is full. Nothing under the lock may wait for the
 * DSM (a PE waiting for the lock serves nothing but DSM requests). */
static int q_push_to(int pe, kmp_task_t *t, const task_hdr *hd)
{
    uint64_t ht[2], slot[2] = { (uint64_t)(uintptr_t)t, parent_tag(hd) };
    int      me = kumi_omp_th.pe;

    kumi_omp_w_lock(&tsym->lock, pe);
    if (pe == me) {
        ht[0] = __atomic_load_n(&tsym->head, __ATOMIC_ACQUIRE);
        ht[1] = tsym->tail;
    } else if (kumi_get(ht, &tsym->head, sizeof ht, pe) != KUMI_OK) {
        kumi_global_exit(1);
    }
    if (ht[1] - ht[0] >= TASK_RING) {
        kumi_omp_w_unlock(&tsym->lock, pe);
        return 0;
    }
    if (pe == me) {
        tsym->ring[ht[1] % TASK_RING]   = slot[0];
        tsym->parent[ht[1] % TASK_RING] = slot[1];
    } else if (kumi_put(&tsym->ring[ht[1] % TASK_RING], &slot[0], 8, pe) != KUMI_OK
               || kumi_put(&tsym->parent[ht[1] % TASK_RING], &slot[1], 8, pe) != KUMI_OK
               || kumi_quiet() != KUMI_OK) {
        kumi_global_exit(1);
    }
    kumi_omp_w_set(&tsym->tail, ht[1] + 1, pe);
    kumi_omp_w_unlock(&tsym->lock, pe);
    kumi_omp_w_add(&tsym->queued, 1, 0);
    return 1;
}

static int q_push(kmp_task_t *t, const task_hdr *hd)
{
    return q_push_to(kumi_omp_th.pe, t, hd);
}

/* Owner: pop the newest task, or with d >= 0 the newest child of frame d
 * (usually on top: a PE's pushes nest with its frames, but a task
 * released by an event may sit above). */
static kmp_task_t *q_pop(int d)
{
    int      me  = kumi_omp_th.pe;
    uint64_t tag = (uint64_t)(uint32_t)me << 32 | (uint32_t)d;
    if (__atomic_load_n(&tsym->tail, __ATOMIC_ACQUIRE)
        == __atomic_load_n(&tsym->head, __ATOMIC_ACQUIRE))
        return NULL;
    kumi_omp_w_lock(&tsym->lock, me);
    kmp_task_t *t = NULL;
    uint64_t    h = __atomic_load_n(&tsym->head, __ATOMIC_ACQUIRE), tl = tsym->tail;
    for (uint64_t k = tl; k > h; k--) {
        if (d >= 0 && tsym->parent[(k - 1) % TASK_RING] != tag)
            continue;
        t = (kmp_task_t *)(uintptr_t)tsym->ring[(k - 1) % TASK_RING];
        for (uint64_t j = k; j < tl; j++) {   /* close the gap */
            tsym->ring[(j - 1) % TASK_RING]   = tsym->ring[j % TASK_RING];
            tsym->parent[(j - 1) % TASK_RING] = tsym->parent[j % TASK_RING];
        }
        __atomic_store_n(&tsym->tail, tl - 1, __ATOMIC_RELEASE);
        break;
    }
    kumi_omp_w_unlock(&tsym->lock, me);
    if (t != NULL)
        kumi_omp_w_add(&tsym->queued, (uint64_t)-1, 0);
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
    kumi_omp_w_lock(&tsym->lock, pe);
    kmp_task_t *t = NULL;
    if (kumi_get(ht, &tsym->head, sizeof ht, pe) != KUMI_OK)
        kumi_global_exit(1);
    if (ht[1] > ht[0]) {
        uint64_t a;
        if (kumi_get(&a, &tsym->ring[ht[0] % TASK_RING], sizeof a, pe) != KUMI_OK)
            kumi_global_exit(1);
        t = (kmp_task_t *)(uintptr_t)a;
        kumi_omp_w_set(&tsym->head, ht[0] + 1, pe);
    }
    kumi_omp_w_unlock(&tsym->lock, pe);
    if (t != NULL)
        kumi_omp_w_add(&tsym->queued, (uint64_t)-1, 0);
    return t;
}

/* ------------------------------------------------------- running */

/* A task is complete (its routine and children done, and for detach its
 * event fulfilled): tell its parent's frame and the team, free the record. */
static void task_complete(kmp_task_t *t, const task_hdr *hd)
{
    if (hd->deferred) {
        kumi_omp_w_add(&tsym->children[hd->parent_depth], (uint64_t)-1, hd->parent_pe);
        if (hd->deferred == 1)
            kumi_omp_w_add(&tsym->outstanding, (uint64_t)-1, 0);
    }
    /* a small record goes back to this PE's free list (memory.c: no
     * message); a big one is another PE's DSM allocation to free */
    size_t bytes = sizeof *hd + ((hd->task_bytes + 15) & ~(size_t)15) + hd->shareds_bytes;
    task_free(kumi_omp_task_hdr_of(t),
              bytes <= 2032 || !hd->deferred ? kumi_omp_th.pe : hd->parent_pe);
}

/* Runs t here to its end (its children included), then completes it. */
void kumi_omp_task_run(kmp_task_t *t)
{
    task_hdr   hd;
    kmp_task_t tk;

    kumi_omp_task_hdr_read(t, &hd);
    if (kumi_dsm_read(&tk, t, sizeof tk) != KUMI_OK)
        kumi_global_exit(1);
    if (hd.magic != TASK_MAGIC)
        kumi_omp_fatal("__kmpc_omp_task", "%p is not a task record", (void *)t);
    /* Frames saturate: at the last one a task runs in its parent's frame;
     * its children are then all undeferred (__kmpc_omp_task), so no
     * counter is needed. Without queues (tsym NULL) every task is. */
    int      sat     = tsym == NULL || depth + 1 >= TASK_DEPTH;
    char     save    = frame_final[depth];
    uint64_t save_tg = kumi_omp_tg_current();
    if (!sat) {
        depth++;
        __atomic_store_n(&tsym->children[depth], 0, __ATOMIC_RELEASE);
    }
    frame_final[depth] = (char)(hd.final || (sat && save));
    kumi_omp_tg_enter_frame(depth, hd.tg);
    /* a task made by hand with no body only orders its deps; a cancelled
     * taskgroup's (or parallel region's) tasks not yet started are
     * discarded */
    if (tk.routine != NULL && !kumi_omp_tg_discard(hd.tg)) {
        kmp_task_t *save_run = run_task;
        run_task = t;
        do {   /* again while the routine queued its own next part (untied) */
            run_requeued = 0;
            tk.routine(kumi_omp_th.pe, t);
        } while (run_requeued);
        run_task = save_run;
    }
    if (!sat) {
        kumi_omp_task_wait_children();
        frame_final[depth] = 0;
        depth--;
    } else {
        frame_final[depth] = save;
    }
    kumi_omp_tg_enter_frame(depth, save_tg);
    if (tsym == NULL) {
        kumi_omp_free(kumi_omp_task_hdr_of(t));
        return;
    }
    if (hd.dep_node != 0) {
        /* releases the successors; a detached task completes when its
         * event is fulfilled too (whichever comes last completes it) */
        if (kumi_omp_dep_finish(hd.parent_pe, hd.dep_node) == 0) {
            kumi_dsm_poll();
            return;
        }
    }
    task_complete(t, &hd);
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
    if (t == NULL && kumi_omp_w_fetch(&tsym->queued, 0) != 0) {
        int n = kumi_omp_th.nth, me = kumi_omp_th.pe;
        for (int i = 1; i < n && t == NULL; i++)
            t = q_steal((me + i) % n);
    }
    if (t == NULL)
        return 0;
    kumi_omp_task_run(t);
    return 1;
}

int kumi_omp_task_wait_step(unsigned *spins)
{
    kmp_task_t *t = tsym != NULL ? q_pop(depth) : NULL;
    if (t != NULL) {
        kumi_omp_task_run(t);
        *spins = 0;
        return 1;
    }
    task_poll(spins);
    return 0;
}

void kumi_omp_task_wait_children(void)
{
    unsigned spins = 0;
    if (tsym == NULL)
        return;
    while (__atomic_load_n(&tsym->children[depth], __ATOMIC_ACQUIRE) != 0) {
        kmp_task_t *t = q_pop(depth);
        if (t != NULL) {
            kumi_omp_task_run(t);
            spins = 0;
            continue;
        }
        /* None of my children is queued here: the rest run on other PEs
         * or wait for predecessors. The wait serves DSM and stdio
         * requests, and looks at the queue again: a child whose last
         * predecessor was a detached task is queued here by whoever
         * fulfills its event. */
        task_poll(&spins);
    }
    /* every child finished: no later sibling can depend on them */
    kumi_omp_dep_frame_clear(depth);
}

int kumi_omp_task_deferrable(void)
{
    return tsym != NULL && kumi_omp_th.nth > 1 && depth + 2 < TASK_DEPTH && !frame_final[depth];
}

void kumi_omp_task_count(kmp_task_t *t, task_hdr *hd)
{
    hd->parent_pe    = kumi_omp_th.pe;
    hd->parent_depth = depth;
    /* A thread alone (a team of one, a region nested in one) defers only
     * detached tasks and those that depend on them; the end of its region
     * (or of the task) waits for them as children. They are not the
     * team's: a team forked inside that region must not wait for them at
     * its barriers (a detached task made before the fork and fulfilled
     * after the join would never complete). */
    hd->deferred     = kumi_omp_th.nth > 1 ? 1 : 2;
    kumi_omp_task_hdr_write(t, hd);
    /* counted before any PE can see it, so no barrier misses it */
    if (hd->deferred == 1)
        kumi_omp_w_add(&tsym->outstanding, 1, 0);
    __atomic_fetch_add(&tsym->children[depth], 1, __ATOMIC_ACQ_REL);
}

void kumi_omp_task_ready(kmp_task_t *t)
{
    task_hdr hd;
    kumi_omp_task_hdr_read(t, &hd);
    if (!q_push(t, &hd))
        kumi_omp_task_run(t);   /* queue full: run it here (still counted) */
}

/* Released by omp_fulfill_event, which may be called anywhere: to its
 * parent's queue, where its parent (maybe waiting for it) or a thief
 * finds it; else to this PE's. */
void kumi_omp_task_ready_event(kmp_task_t *t)
{
    task_hdr hd;
    kumi_omp_task_hdr_read(t, &hd);
    if (!q_push_to(hd.parent_pe, t, &hd) && !q_push(t, &hd))
        kumi_omp_fatal("omp_fulfill_event", "the task queues are full");
}

/* ------------------------------------------------- hooks for T3 */

void kumi_omp_task_init(void)
{
    tsym  = kumi_omp_sym_alloc(sizeof(*tsym));
    depth = 0;
    kumi_omp_dep_init();
    kumi_omp_tg_init();
}

/* A region's implicit task runs in a frame of its own: frame 0 on the
 * workers; on the master, when it forks from inside a task (a region in
 * a task of a team of one) or while its frame has children (detached
 * tasks), the frame above. */
static int region_base, saved_depth, saved_if0_sat;

void kumi_omp_task_region_begin(void)
{
    saved_depth   = depth;
    saved_if0_sat = if0_sat;
    /* frame 0 still has children when the initial thread forks after
     * making a detached task (deferred, counted there): they stay there */
    if ((depth > 0 || (tsym != NULL && __atomic_load_n(&tsym->children[depth], __ATOMIC_ACQUIRE)))
        && depth + 2 < TASK_DEPTH)
        depth++;
    region_base        = depth;
    if0_sat            = 0;
    frame_final[depth] = 0;
    kumi_omp_tg_region_begin(depth);
    kumi_omp_dep_frame_clear(depth);
    if (tsym != NULL)
        __atomic_store_n(&tsym->children[depth], 0, __ATOMIC_RELEASE);
}

void kumi_omp_task_region_end(void)
{
    depth       = saved_depth;
    if0_sat     = saved_if0_sat;
    region_base = 0;
}

/* A region of one thread: a frame of its own (kumi_omp_task_serial_begin
 * in omp_int.h). Its tasks belong to the taskgroup its encountering task
 * is in. Without the frame the end of a region nested in a team of one
 * waited for every child of the encountering task: a detached task made
 * before the region, whose event is fulfilled after it, never completed. */
void kumi_omp_task_serial_begin(struct kumi_omp_task_serial *s)
{
    uint64_t tg = kumi_omp_tg_current();

    s->depth       = depth;
    s->region_base = region_base;
    s->if0_sat     = if0_sat;
    s->pushed      = tsym != NULL && depth + 2 < TASK_DEPTH;
    if (!s->pushed)
        return;
    depth++;
    region_base        = depth;
    if0_sat            = 0;
    frame_final[depth] = 0;
    kumi_omp_tg_enter_frame(depth, tg);
    kumi_omp_dep_frame_clear(depth);
    __atomic_store_n(&tsym->children[depth], 0, __ATOMIC_RELEASE);
}

void kumi_omp_task_serial_end(const struct kumi_omp_task_serial *s)
{
    if (s->pushed) {
        /* the frame is reused by the next task or region: no child of
         * this one may still be counted in it */
        kumi_omp_task_wait_children();
        frame_final[depth] = 0;
    }
    depth       = s->depth;
    region_base = s->region_base;
    if0_sat     = s->if0_sat;
}

/* A thread in a barrier runs tasks until every thread has arrived and no
 * task is left: a task made after it arrived, by a thread not there yet,
 * may be taken by it (the thread that made it may be waiting for that).
 * Every team barrier counts its arrivals once (task barrier or plain),
 * in the word of its epoch's parity; thread 0 clears the word after the
 * team barrier: it is used again two barriers later, after thread 0 has
 * passed the next one. */
static uint64_t arrived_key;   /* region << 32 | epoch + 1 this thread has arrived at */

void kumi_omp_task_arrive(void)
{
    const kumi_omp_thread_t *th  = &kumi_omp_th;
    uint64_t                 key = th->region << 32 | (uint64_t)(th->bar_epoch + 1);

    if (tsym == NULL || th->nth <= 1 || arrived_key == key)
        return;
    arrived_key = key;
    kumi_omp_w_add(&tsym->arrived[th->bar_epoch & 1], 1, 0);
}

void kumi_omp_task_barrier_passed(void)
{
    const kumi_omp_thread_t *th = &kumi_omp_th;

    if (tsym != NULL && th->nth > 1 && th->tid == 0)
        kumi_omp_w_set(&tsym->arrived[th->bar_epoch & 1], 0, 0);
}

void kumi_omp_task_barrier(void)
{
    unsigned spins = 0;

    if (tsym == NULL)
        return;
    if (kumi_omp_th.nth <= 1) {
        /* a team of one defers only detached tasks and the tasks that
         * depend on them: its implicit task waits for them */
        if (kumi_omp_th.active_level == 0 && depth == region_base)
            kumi_omp_task_wait_children();
        return;
    }
    kumi_omp_task_arrive();
    uint64_t *arrived = &tsym->arrived[kumi_omp_th.bar_epoch & 1];
    while (kumi_omp_w_fetch(arrived, 0) < (uint64_t)kumi_omp_th.nth
           || kumi_omp_w_fetch(&tsym->outstanding, 0) != 0) {
        if (task_run_any())
            spins = 0;
        else
            task_poll(&spins);
    }
    /* the implicit task's children have all finished */
    if (depth == region_base)
        kumi_omp_dep_frame_clear(depth);
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
                                      sizeof(task_hdr) + tb + shareds_bytes, 16);
    if (rec == NULL)
        kumi_omp_fatal("__kmpc_omp_task_alloc", "no DSM memory for a task of %zu bytes",
                       task_bytes + shareds_bytes);
    task_hdr hd = { .magic = TASK_MAGIC, .task_bytes = task_bytes,
                    .shareds_bytes = shareds_bytes,
                    .final = (flags & KMP_TASK_FINAL) || frame_final[depth],
                    .tg = kumi_omp_tg_current(),
                    .detach = (flags & KMP_TASK_DETACHABLE) != 0 };
    kmp_task_t *t  = (kmp_task_t *)(rec + sizeof hd);
    kmp_task_t  tk = { .shareds = shareds_bytes ? (char *)t + tb : NULL, .routine = routine };
    /* new memory homed here: exclusive, the writes are local */
    if (kumi_dsm_write(rec, &hd, sizeof hd) != KUMI_OK
        || kumi_dsm_write(t, &tk, sizeof tk) != KUMI_OK)
        kumi_global_exit(1);
    return t;
}

/* Queues t (counted; its dependences, if any, registered and met). */
static void task_defer(kmp_task_t *t, task_hdr *hd)
{
    kumi_dsm_poll();   /* a producer serves the thieves of its earlier tasks */
    kumi_omp_task_count(t, hd);
    if (!q_push(t, hd))
        kumi_omp_task_run(t);   /* queue full: run it here (still counted) */
}

int32_t __kmpc_omp_task(kumi_omp_ident_t *loc, int32_t gtid, void *task)
{
    return __kmpc_omp_task_with_deps(loc, gtid, task, 0, NULL, 0, NULL);
}

int32_t __kmpc_omp_task_with_deps(kumi_omp_ident_t *loc, int32_t gtid, void *task, int32_t ndeps,
                                  void *deps, int32_t ndeps_noalias, void *noalias)
{
    kmp_task_t *t = task;
    task_hdr    hd;
    (void)loc;
    (void)gtid;
    if (t == run_task) {
        /* an untied task's next part: its PE runs it when the routine
         * returns (kumi_omp_task_run, __kmpc_omp_task_complete_if0) */
        run_requeued = 1;
        return 0;
    }
    kumi_omp_task_hdr_read(t, &hd);
    if (!kumi_omp_task_deferrable() && !hd.detach) {
        /* undeferred, and so were its siblings (same frame), which have
         * therefore finished, but for detached ones waiting for their
         * event: then it waits for them in the queue */
        if (ndeps + ndeps_noalias == 0
            || !kumi_omp_dep_pending(ndeps, deps, ndeps_noalias, noalias)) {
            kumi_omp_task_run(t);
            return 0;
        }
        kumi_dsm_poll();
        if (kumi_omp_dep_add(t, &hd, ndeps, deps, ndeps_noalias, noalias) == KUMI_OMP_DEP_READY)
            kumi_omp_task_run(t);
        return 0;
    }
    if (ndeps + ndeps_noalias == 0 && !hd.detach) {
        task_defer(t, &hd);
        return 0;
    }
    kumi_dsm_poll();
    /* counted and registered; queued here when its predecessors have
     * finished, else by the PE that finishes the last of them */
    if (kumi_omp_dep_add(t, &hd, ndeps, deps, ndeps_noalias, noalias) == KUMI_OMP_DEP_READY) {
        if (kumi_omp_task_deferrable())
            kumi_omp_task_ready(t);
        else
            kumi_omp_task_run(t);   /* a detached task in a team of one */
    }
    return 0;
}

/* affinity(...) on a task (OpenMP 5.0): a hint; the task runs where it is
 * taken */
int32_t __kmpc_omp_reg_task_with_affinity(kumi_omp_ident_t *loc, int32_t gtid, void *task,
                                          int32_t naffins, void *affin_list)
{
    (void)loc;
    (void)gtid;
    (void)task;
    (void)naffins;
    (void)affin_list;
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
    kumi_omp_task_wait_children();
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

/* task if(0): the compiler calls the routine itself between these two
 * (with depend clauses, after __kmpc_omp_wait_deps). */
void __kmpc_omp_task_begin_if0(kumi_omp_ident_t *loc, int32_t gtid, void *task)
{
    task_hdr hd;
    (void)loc;
    (void)gtid;
    /* the compiler calls the routine next: it is the running task */
    if (if0_nsaved < TASK_IF0_SAVE) {
        if0_saved[if0_nsaved++] = run_task;
        run_task                = task;
        run_requeued            = 0;
    } else {
        if0_unsaved++;   /* so deep: an untied part would run as a new task */
    }
    if (tsym == NULL || depth + 1 >= TASK_DEPTH) {
        if0_sat++;   /* saturated: runs in its parent's frame (see task_run) */
        return;
    }
    kumi_omp_task_hdr_read(task, &hd);
    depth++;
    frame_final[depth] = (char)hd.final;
    kumi_omp_tg_enter_frame(depth, hd.tg);
    __atomic_store_n(&tsym->children[depth], 0, __ATOMIC_RELEASE);
}

void __kmpc_omp_task_complete_if0(kumi_omp_ident_t *loc, int32_t gtid, void *task)
{
    (void)loc;
    (void)gtid;
    if (if0_unsaved > 0) {
        if0_unsaved--;
    } else {
        if (run_task == task && run_requeued) {
            /* an untied task: the compiler ran its first part, the rest here */
            kmp_task_t tk;
            if (kumi_dsm_read(&tk, task, sizeof tk) != KUMI_OK)
                kumi_global_exit(1);
            do {
                run_requeued = 0;
                tk.routine(kumi_omp_th.pe, task);
            } while (run_requeued);
        }
        run_task = if0_saved[--if0_nsaved];
    }
    if (if0_sat > 0) {
        if0_sat--;
    } else {
        kumi_omp_task_wait_children();
        frame_final[depth] = 0;
        depth--;
    }
    kumi_omp_free(kumi_omp_task_hdr_of(task));
}

int omp_in_final(void)
{
    return frame_final[depth];
}

/* ------------------------------------------------------------ detach */

/* The event of a detachable task: its dependence node (every detachable
 * task has one), as (pe + 1) << 32 | node. */
void *__kmpc_task_allow_completion_event(kumi_omp_ident_t *loc, int32_t gtid, void *task)
{
    task_hdr hd;
    (void)loc;
    (void)gtid;
    kumi_omp_task_hdr_read(task, &hd);
    if (!hd.detach)
        kumi_omp_fatal("__kmpc_task_allow_completion_event", "task %p is not detachable", task);
    if (hd.dep_node == 0) {
        hd.dep_node = kumi_omp_dep_node_new(task, 2);
        kumi_omp_task_hdr_write(task, &hd);
    }
    return (void *)(uintptr_t)((uint64_t)(kumi_omp_th.pe + 1) << 32 | hd.dep_node);
}

void omp_fulfill_event(omp_event_handle_t event)
{
    uint64_t ev   = (uint64_t)event;
    int      pe   = (int)(ev >> 32) - 1;
    uint32_t node = (uint32_t)ev;
    task_hdr hd;

    if (pe < 0 || pe >= kumi_omp_th.npes || node == 0)
        kumi_omp_fatal("omp_fulfill_event", "%#llx is not an event handle",
                       (unsigned long long)ev);
    kmp_task_t *t = kumi_omp_dep_finish_event(pe, node);
    if (t == NULL)
        return;   /* its routine is still running: its end completes it */
    kumi_omp_task_hdr_read(t, &hd);
    task_complete(t, &hd);
}
