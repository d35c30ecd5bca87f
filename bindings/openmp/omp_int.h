/*
 * omp_int.h -- what the parts of libkumi-omp share (bindings/openmp/).
 *
 * Owned by omp-runtime (parallel.c, loop.c, sync.c, start.c, startup.c);
 * omp-libc+tasks (libc.c, memory.c, atomic.c, task.c) builds on it. Every
 * OpenMP thread is a kumi PE (one process, one thread): PE 0 is the
 * master and runs main, the others wait in the worker loop for parallel
 * regions. A team of n threads is always PEs 0..n-1 (team rank == PE).
 *
 * Memory the program reaches (its DSM copies of globals, the DSM stack,
 * DSM heap) is DSM memory: runtime code is not translated, so it touches
 * user memory only through the kumi_omp_ld and kumi_omp_st helpers below (which work on
 * DSM and private memory alike) or kumi_dsm_read/write/acquire.
 */
#ifndef KUMI_OMP_INT_H
#define KUMI_OMP_INT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "kumi.h"
#include "check.h"   /* dsm/check.h: the inline DSM checks */

/* ------------------------------------------------------------ the ABI */
/* ident_t of the LLVM OpenMP ABI (clang passes a pointer; we read psource
 * only, for messages). */
typedef struct kumi_omp_ident {
    int32_t     reserved_1;
    int32_t     flags;
    int32_t     reserved_2;
    int32_t     reserved_3;
    const char *psource;   /* ";file;function;line;col;;" */
} kumi_omp_ident_t;

typedef int32_t kumi_omp_critical_name[8];   /* kmp_critical_name */
typedef void (*kumi_omp_microtask)(int32_t *gtid, int32_t *btid, ...);

/* ------------------------------------------------ per-PE thread state */
typedef struct kumi_omp_thread {
    int         pe, npes;        /* kumi_rank(), kumi_size()                      */
    int         tid, nth;        /* thread number and team size of the innermost
                                    region (serialized nested regions: 0 and 1)   */
    int         level;           /* enclosing parallel regions (omp_get_level)   */
    int         active_level;    /* of those, with more than one thread          */
    int         team_tid;        /* tid/nth of the active (outermost) region     */
    int         team_nth;
    int         team_level;      /* its level (1 unless inactive regions enclose it) */
    kumi_team_t team;            /* kumi team of PEs 0..team_nth-1 (NULL: none)  */
    uint64_t    region;          /* id of the active region (1, 2, ...), the same
                                    on every member; 0 outside                    */
    /* ICVs of this thread */
    int         nthreads_var;    /* omp_set_num_threads / OMP_NUM_THREADS        */
    int         dynamic_var, max_active_levels;
    int         run_sched, run_chunk;   /* omp_sched_t value, chunk (OMP_SCHEDULE) */
    int         thread_limit;    /* OMP_THREAD_LIMIT (default: the PEs)          */
    int         max_task_priority;   /* OMP_MAX_TASK_PRIORITY (default 0)       */
    int         push_nth;        /* __kmpc_push_num_threads for the next fork    */
    uint32_t    single_count;    /* singles met in this region                   */
    uint32_t    loop_count;      /* dispatch loops met in this region            */
    uint32_t    reduce_count;    /* reductions met in this region                */
    uint32_t    cp_count;        /* copyprivates met in this region              */
    uint64_t    def_allocator;   /* def-allocator-var (alloc.c)                  */
    /* cancellation (cancel.c) */
    int         cancel_var;      /* OMP_CANCELLATION (the same on every PE)       */
    uint32_t    bar_epoch;       /* team barriers passed in this region           */
    uint32_t    cancel_seen;     /* constructs cancelled in the epoch the last
                                    team barrier ended (bits 1 << kind)           */
} kumi_omp_thread_t;

extern kumi_omp_thread_t kumi_omp_th;     /* this PE's state */

/* 1 once kumi_omp_startup has run (kumi initialized, DSM stack ready). */
extern int kumi_omp_ready;

/* ------------------------------------------------- DSM-aware accesses */
static inline int32_t kumi_omp_ld32(const void *p)
{
    return (int32_t)kumi_dsm_ld32((const volatile uint32_t *)p);
}
static inline int64_t kumi_omp_ld64(const void *p)
{
    return (int64_t)kumi_dsm_ld64((const volatile uint64_t *)p);
}
static inline void kumi_omp_st32(void *p, int32_t v)
{
    kumi_dsm_st32((volatile uint32_t *)p, (uint32_t)v);
}
static inline void kumi_omp_st64(void *p, int64_t v)
{
    kumi_dsm_st64((volatile uint64_t *)p, (uint64_t)v);
}
static inline void *kumi_omp_ldptr(const void *p)
{
    return (void *)(uintptr_t)kumi_omp_ld64(p);
}
static inline void kumi_omp_stptr(void *p, const void *v)
{
    kumi_omp_st64(p, (int64_t)(uintptr_t)v);
}

/* ------------------------------------------------------ runtime calls */
/* The shared arguments a parallel or teams region takes at most. */
#define KUMI_OMP_MAX_ARGS 1020

/* fn(gtid, btid, args[0..argc-1]) (invoke.c) */
void kumi_omp_invoke(kumi_omp_microtask fn, int32_t *gtid, int32_t *btid, int argc, void **args);
/* The argc pointers of a __kmpc_fork_* call's variable part into args
 * (room for KUMI_OMP_MAX_ARGS); more than that ends the job naming call. */
void kumi_omp_take_args(const char *call, int32_t argc, va_list ap, void **args);

/* Ends the job with status after one line "kumi[pe]: call: what" on
 * stderr (the runtime's way out of a state it cannot continue from). */
_Noreturn void kumi_omp_fatal(const char *call, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Makes sure kumi and the runtime are started (for omp_* calls made from
 * programs linked without the start object): 0 or a KUMI_ERR_*. */
int kumi_omp_ensure_init(void);

/* The team barrier of the innermost region (no-op for a team of one):
 * runs kumi_omp_task_barrier() first, then kumi_barrier on the team. */
void kumi_omp_barrier(void);
/* The same without the task hook (for task.c's own use). */
void kumi_omp_barrier_plain(void);

/* Waits until *word (symmetric heap, PE pe's copy) cmp value, serving DSM
 * requests and running queued tasks meanwhile (kumi_omp_task_idle). For
 * PE-0 words that every team member polls (locks, ordered). */
void kumi_omp_wait_remote_u32(uint32_t *word, int pe, int cmp, uint32_t value);
void kumi_omp_wait_remote_u64(uint64_t *word, int pe, int cmp, uint64_t value);

/* The symmetric scratch every PE has (kumi_malloc'd at start-up, same
 * address everywhere), for parts of the runtime that need it. */
void *kumi_omp_sym_alloc(size_t size);   /* start-up only: bump in the area */

/* ------------------------------------------------ the DSM stack (T4) */
/* A bump stack in this PE's slice of the DSM (OMP_STACKSIZE bytes,
 * default 16m): what the translator uses for locals that escape. push
 * returns size bytes aligned to align (a power of two, <= 4096); mark and
 * release bracket a function. Overflow ends the job with a message. */
void *kumi_omp_stack_push(size_t size, size_t align);
void *kumi_omp_stack_mark(void);
void  kumi_omp_stack_release(void *mark);

/* -------------------------------------- the static area (start object) */
/* Defined in kumi-omp-start.o (so translated code reaches them directly);
 * set by kumi_omp_startup on every PE before main. */
extern intptr_t  kumi_omp_data_delta, kumi_omp_bss_delta;
extern uintptr_t kumi_omp_data_lo, kumi_omp_data_size;
extern uintptr_t kumi_omp_bss_lo, kumi_omp_bss_size;

struct kumi_omp_start_info {
    int           argc;
    char        **argv;
    char        **envp;
    char         *data_lo, *data_hi;     /* __start_/__stop_kumi_omp_data   */
    char         *bss_lo, *bss_hi;       /* __start_/__stop_kumi_omp_bss    */
    void       ***fix_lo, ***fix_hi;     /* __start_/__stop_kumi_omp_fixups */
    const void   *main_addr;             /* &main, for the layout check     */
    intptr_t     *data_delta, *bss_delta;
    uintptr_t    *data_lo_out, *data_size_out, *bss_lo_out, *bss_size_out;
};
/* Called by the start object's constructor (priority 101) on every PE;
 * returns on PE 0 only (the others run the worker loop until the job
 * ends). */
void kumi_omp_startup(const struct kumi_omp_start_info *info);

/* -------------------------------------------- hooks for T6 (task.c)
 * Weak no-op defaults live in parallel.c; task.c defines the real ones.
 *  kumi_omp_task_barrier: called by every thread of a team at every
 *      barrier (explicit, implicit, join) before the team barrier; returns
 *      when no task of the region is left to run (running queued tasks
 *      meanwhile).
 *  kumi_omp_task_idle: called while a thread waits for something else
 *      (locks, ordered, copyprivate): may run one queued task; returns 1
 *      if it ran one.
 *  kumi_omp_task_region_begin/end: every team member, at the start of a
 *      region (after the fork, before the microtask) and after the join
 *      barrier.
 *  kumi_omp_task_arrive / kumi_omp_task_barrier_passed: every team
 *      barrier, right before and right after kumi_barrier (counts who has
 *      arrived, so that kumi_omp_task_barrier keeps running tasks until
 *      every thread is in the barrier). */
void kumi_omp_task_barrier(void);
void kumi_omp_task_arrive(void);
void kumi_omp_task_barrier_passed(void);
int  kumi_omp_task_idle(void);
void kumi_omp_task_region_begin(void);
void kumi_omp_task_region_end(void);
/* A region run by one thread (nested, if(0), a team of one) has an
 * implicit task of its own, in a new task frame: its end waits for the
 * tasks made in it and for no other child of the task that met it.
 * kumi_omp_task_serial_begin before the region's body (s keeps what
 * kumi_omp_task_serial_end, after the body, restores). */
struct kumi_omp_task_serial {
    int      pushed, depth, region_base, if0_sat;
};
void kumi_omp_task_serial_begin(struct kumi_omp_task_serial *s);
void kumi_omp_task_serial_end(const struct kumi_omp_task_serial *s);

/* Requests from T6 (append below, one line each). */
/* T6 (done by T3): kumi_omp_libc_init() and kumi_omp_task_init() run on
 * every PE in kumi_omp_parts_init (startup.c), after kumi_init, before the
 * worker loop; __kmpc_flush polls the DSM and calls kumi_omp_task_idle().
 * Open (T6's note): a program built with -fsanitize=address trips ASan in
 * kumi_omp_static_area (kumi_dsm_write reads the data template across ASan's
 * global redzones); kumicc's ASan link lacks libasan for the start object. */
void kumi_omp_libc_init(void);
void kumi_omp_task_init(void);

/* cancel.c: the symmetric words (start-up, every PE); called by the team
 * barrier after each kumi_barrier (counts epochs, reads what was
 * cancelled in the one that ended); loop.c's hook for a cancelled loop
 * (frees a dispatched loop's slot). */
void kumi_omp_cancel_init(void);
void kumi_omp_alloc_init(void);   /* alloc.c: OMP_ALLOCATOR */
void kumi_omp_teams_init(void);   /* teams.c: OMP_NUM_TEAMS, OMP_TEAMS_THREAD_LIMIT */
void kumi_omp_cancel_barrier_passed(void);
void kumi_omp_cancel_join(void);   /* after the join barrier of a region */
void kumi_omp_loop_cancelled(void);
/* taskgroup.c: cancel taskgroup (1 if inside one) and its cancellation point */
int kumi_omp_tg_cancel(void);
int kumi_omp_tg_cancelled(void);

#endif /* KUMI_OMP_INT_H */
