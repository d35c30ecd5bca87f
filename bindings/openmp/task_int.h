/*
 * task_int.h -- what the task parts of libkumi-omp share (bindings/openmp/):
 * task.c (records, queues, running, the task entry points), taskloop.c,
 * taskdep.c (depend clauses), taskgroup.c (taskgroups, their cancellation,
 * task reductions). Internal: never installed.
 *
 * A task record is DSM memory: our header, then the kmp_task_t clang fills
 * (shareds pointer, routine, part id, the privates), then the shareds block.
 * A PE runs tasks one inside the other in frames: frame 0 is the implicit
 * task of the region, frame d+1 the task started while frame d was running
 * (its child, or any task in a barrier). Each frame has a child counter in
 * the PE's symmetric scratch, its current taskgroup and its dependence
 * table (taskdep.c).
 */
#ifndef KUMI_OMP_TASK_INT_H
#define KUMI_OMP_TASK_INT_H

#include <stdint.h>

#include "omp_int.h"

#define KUMI_OMP_TASK_RING  2048   /* queued tasks per PE              */
#define KUMI_OMP_TASK_DEPTH 64     /* nested running tasks per PE      */

/* kmp_task_t as clang-14 lays it out (the LLVM OpenMP ABI). */
typedef int32_t (*kmp_routine_t)(int32_t gtid, void *task);
typedef struct kmp_task {
    void         *shareds;
    kmp_routine_t routine;
    int32_t       part_id;
    void         *data1, *data2;    /* destructors / priority (C: unused) */
} kmp_task_t;

enum { KMP_TASK_TIED = 0x1, KMP_TASK_FINAL = 0x2, KMP_TASK_DETACHABLE = 0x40 };

/* Our header in front of the kmp_task_t, in the same DSM record. */
struct kumi_omp_task_hdr {
    uint64_t magic;
    int32_t  parent_pe, parent_depth;   /* frame whose counter to decrement     */
    uint64_t task_bytes, shareds_bytes; /* what __kmpc_omp_task_alloc got      */
    int32_t  deferred;                  /* 1: counted in outstanding; 2: made
                                           by a thread alone (a team of one, a
                                           nested region), waited for by its
                                           frame only (task.c)                  */
    int32_t  final;                     /* final clause, or inside a final task */
    uint64_t tg;                        /* its taskgroup (taskgroup.c), 0: none */
    uint32_t dep_node;                  /* its dependence node on parent_pe
                                           (index + 1, taskdep.c), 0: none      */
    uint32_t detach;                    /* detach: 1 until the event and the end
                                           of its routine have both happened   */
    uint64_t pad_;
};
_Static_assert(sizeof(struct kumi_omp_task_hdr) % 16 == 0,
               "the task after the header stays 16-aligned");

static inline struct kumi_omp_task_hdr *kumi_omp_task_hdr_of(kmp_task_t *t)
{
    return (struct kumi_omp_task_hdr *)((char *)t - sizeof(struct kumi_omp_task_hdr));
}

/* entry points the task parts call one another through */
void   *__kmpc_omp_task_alloc(kumi_omp_ident_t *loc, int32_t gtid, int32_t flags,
                              size_t task_bytes, size_t shareds_bytes, kmp_routine_t routine);
int32_t __kmpc_omp_task(kumi_omp_ident_t *loc, int32_t gtid, void *task);
int32_t __kmpc_omp_task_with_deps(kumi_omp_ident_t *loc, int32_t gtid, void *task, int32_t ndeps,
                                  void *deps, int32_t ndeps_noalias, void *noalias);
void    __kmpc_taskgroup(kumi_omp_ident_t *loc, int32_t gtid);
void    __kmpc_end_taskgroup(kumi_omp_ident_t *loc, int32_t gtid);

/* ------------------------------------ symmetric words, any PE (task.c) */
uint64_t kumi_omp_w_fetch(uint64_t *w, int pe);
uint64_t kumi_omp_w_add(uint64_t *w, uint64_t v, int pe);
uint64_t kumi_omp_w_cswap(uint64_t *w, uint64_t expect, uint64_t desired, int pe);
void     kumi_omp_w_set(uint64_t *w, uint64_t v, int pe);
/* A spin lock in a symmetric word of pe (0 free, 1 taken). */
void kumi_omp_w_lock(uint64_t *w, int pe);
void kumi_omp_w_unlock(uint64_t *w, int pe);

/* -------------------------------------------------- frames (task.c) */
int  kumi_omp_task_depth(void);              /* this PE's current frame         */
/* Runs queued tasks or serves requests for a while (one step of a wait
 * loop): runs one child of the current frame from this PE's queue if there
 * is one (1), else polls and backs off (0). */
int  kumi_omp_task_wait_step(unsigned *spins);
/* Waits until the current frame has no unfinished child, running them. */
void kumi_omp_task_wait_children(void);
/* Queues a task that became ready (taskdep.c: its last predecessor
 * finished here); runs it at once when the queue is full. */
void kumi_omp_task_ready(kmp_task_t *t);
/* The same for a task released by omp_fulfill_event (from anywhere): to
 * its parent's queue. */
void kumi_omp_task_ready_event(kmp_task_t *t);
/* Reads/writes a record's header. */
void kumi_omp_task_hdr_read(kmp_task_t *t, struct kumi_omp_task_hdr *hd);
void kumi_omp_task_hdr_write(kmp_task_t *t, const struct kumi_omp_task_hdr *hd);
/* Makes a deferred task known to the team and its parent (counted before
 * any PE can see it) without queueing it. */
void kumi_omp_task_count(kmp_task_t *t, struct kumi_omp_task_hdr *hd);
/* 1 when the tasks of this PE may be deferred at all (a team of more than
 * one, frames left, not inside a final task). */
int  kumi_omp_task_deferrable(void);
/* Runs t here, now, in a new frame (its children included). */
void kumi_omp_task_run(kmp_task_t *t);

/* ---------------------------------------------- dependences (taskdep.c) */
void kumi_omp_dep_init(void);
/* Counts t (kumi_omp_task_count) and registers its dependences with the
 * current frame's table: KUMI_OMP_DEP_READY when t may run now, _BLOCKED
 * when it waits for predecessors (then queued by whichever PE finishes the
 * last of them), _RAN when the pool was full and t ran here, undeferred,
 * after its predecessors. */
enum { KUMI_OMP_DEP_READY, KUMI_OMP_DEP_BLOCKED, KUMI_OMP_DEP_RAN };
int  kumi_omp_dep_add(kmp_task_t *t, struct kumi_omp_task_hdr *hd, int32_t ndeps,
                      const void *deps, int32_t ndeps_noalias, const void *noalias);
/* A node of this PE's pool for task t whose completion needs hold events
 * (1: its end; 2: its end and omp_fulfill_event, for detach); returns it
 * (index + 1). */
uint32_t kumi_omp_dep_node_new(kmp_task_t *t, uint32_t hold);
/* The task of node (pe, node) reached its end: 1 when that completes it
 * (successors released), 0 when a detach event is still pending. */
int  kumi_omp_dep_finish(int pe, uint32_t node);
/* omp_fulfill_event on node (pe, node): the task when this completes it
 * (successors released), else NULL (its routine is still running). */
kmp_task_t *kumi_omp_dep_finish_event(int pe, uint32_t node);
/* 1 when a sibling with these dependences would have a predecessor that
 * has not completed (in an undeferred context: a detached one). */
int  kumi_omp_dep_pending(int32_t ndeps, const void *deps, int32_t ndeps_noalias,
                          const void *noalias);
/* Waits (running children) until the predecessors the given dependences
 * name have finished (taskwait depend, task if(0) with depend). */
void kumi_omp_dep_wait(int32_t ndeps, const void *deps, int32_t ndeps_noalias,
                       const void *noalias);
/* The frame's children have all finished: forget its table. */
void kumi_omp_dep_frame_clear(int depth);

/* -------------------------------------------- taskgroups (taskgroup.c) */
void     kumi_omp_tg_init(void);
void     kumi_omp_tg_region_begin(int base);   /* the region's first frame */
uint64_t kumi_omp_tg_current(void);          /* of the current frame, 0: none     */
void     kumi_omp_tg_enter_frame(int depth, uint64_t tg);
/* 1 when a task of taskgroup tg must be discarded (cancel taskgroup of tg
 * or an enclosing one, or cancel parallel) */
int      kumi_omp_tg_discard(uint64_t tg);

/* ---------------------------------------------- cancellation (cancel.c) */
/* 1 when this region's parallel construct was cancelled (cancel-var on). */
int kumi_omp_cancel_parallel_seen(void);

#endif /* KUMI_OMP_TASK_INT_H */
