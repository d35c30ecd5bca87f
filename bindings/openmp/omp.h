/*
 * omp.h -- the OpenMP runtime API of libkumi-omp (kumi's OpenMP: every
 * OpenMP thread is a kumi PE; see bindings/openmp/README.md). The types
 * and prototypes are those libomp 14's omp.h declares (same ABI), limited
 * to what libkumi-omp implements.
 */
#ifndef KUMI_OMP_H
#define KUMI_OMP_H
#define _OMP_H   /* stands in for libomp's header */

#include <stddef.h>
#include <stdint.h>

#define KMP_VERSION_MAJOR 5
#define KMP_VERSION_MINOR 0
#define KMP_VERSION_BUILD 20140926
#define KMP_BUILD_DATE    "kumi"

#ifdef __cplusplus
extern "C" {
#endif

/* threads and teams */
extern void   omp_set_num_threads(int n);
extern int    omp_get_num_threads(void);
extern int    omp_get_max_threads(void);
extern int    omp_get_thread_num(void);
extern int    omp_get_num_procs(void);
extern int    omp_in_parallel(void);
extern int    omp_in_final(void);
extern void   omp_set_dynamic(int flag);
extern int    omp_get_dynamic(void);
extern void   omp_set_nested(int flag);   /* one active level: nested regions run serialized */
extern int    omp_get_nested(void);
extern void   omp_set_max_active_levels(int n);
extern int    omp_get_max_active_levels(void);
extern int    omp_get_supported_active_levels(void);
extern int    omp_get_level(void);
extern int    omp_get_active_level(void);
extern int    omp_get_ancestor_thread_num(int level);
extern int    omp_get_team_size(int level);
extern int    omp_get_thread_limit(void);
extern int    omp_get_cancellation(void);
extern int    omp_get_max_task_priority(void);

/* schedules */
typedef enum omp_sched_t {
    omp_sched_static    = 1,
    omp_sched_dynamic   = 2,
    omp_sched_guided    = 3,
    omp_sched_auto      = 4,
    omp_sched_monotonic = (int)0x80000000
} omp_sched_t;
extern void omp_set_schedule(omp_sched_t kind, int chunk);
extern void omp_get_schedule(omp_sched_t *kind, int *chunk);

/* locks: the object holds a handle to a lock kept by the runtime, so it
 * may live in shared (DSM) memory and be used from every thread */
typedef struct omp_lock_t {
    void *_lk;
} omp_lock_t;
typedef struct omp_nest_lock_t {
    void *_lk;
} omp_nest_lock_t;

typedef enum omp_sync_hint_t {
    omp_sync_hint_none           = 0,
    omp_lock_hint_none           = omp_sync_hint_none,
    omp_sync_hint_uncontended    = 1,
    omp_lock_hint_uncontended    = omp_sync_hint_uncontended,
    omp_sync_hint_contended      = (1 << 1),
    omp_lock_hint_contended      = omp_sync_hint_contended,
    omp_sync_hint_nonspeculative = (1 << 2),
    omp_lock_hint_nonspeculative = omp_sync_hint_nonspeculative,
    omp_sync_hint_speculative    = (1 << 3),
    omp_lock_hint_speculative    = omp_sync_hint_speculative
} omp_sync_hint_t;
typedef omp_sync_hint_t omp_lock_hint_t;

extern void omp_init_lock(omp_lock_t *lock);
extern void omp_init_lock_with_hint(omp_lock_t *lock, omp_lock_hint_t hint);
extern void omp_destroy_lock(omp_lock_t *lock);
extern void omp_set_lock(omp_lock_t *lock);
extern void omp_unset_lock(omp_lock_t *lock);
extern int  omp_test_lock(omp_lock_t *lock);
extern void omp_init_nest_lock(omp_nest_lock_t *lock);
extern void omp_init_nest_lock_with_hint(omp_nest_lock_t *lock, omp_lock_hint_t hint);
extern void omp_destroy_nest_lock(omp_nest_lock_t *lock);
extern void omp_set_nest_lock(omp_nest_lock_t *lock);
extern void omp_unset_nest_lock(omp_nest_lock_t *lock);
extern int  omp_test_nest_lock(omp_nest_lock_t *lock);

/* time */
extern double omp_get_wtime(void);
extern double omp_get_wtick(void);

/* places and devices: one place, no devices */
typedef enum omp_proc_bind_t {
    omp_proc_bind_false  = 0,
    omp_proc_bind_true   = 1,
    omp_proc_bind_master = 2,
    omp_proc_bind_close  = 3,
    omp_proc_bind_spread = 4
} omp_proc_bind_t;
extern omp_proc_bind_t omp_get_proc_bind(void);
extern int  omp_get_num_places(void);
extern int  omp_get_place_num_procs(int place);
extern void omp_get_place_proc_ids(int place, int *ids);
extern int  omp_get_place_num(void);
extern int  omp_get_partition_num_places(void);
extern void omp_get_partition_place_nums(int *place_nums);
extern int  omp_get_default_device(void);
extern void omp_set_default_device(int device);
extern int  omp_get_num_devices(void);
extern int  omp_get_num_teams(void);
extern int  omp_get_team_num(void);
extern int  omp_is_initial_device(void);
extern int  omp_get_initial_device(void);

#ifdef __cplusplus
}
#endif
#endif /* KUMI_OMP_H */
