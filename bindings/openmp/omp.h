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

/* tasks: depend(depobj: ...) objects, and detach (the handle names a task
 * of the team; any thread may fulfill it) */
typedef void *omp_depend_t;

typedef enum omp_event_handle_t {
    KMP_EVENT_MAX_HANDLE = UINTPTR_MAX
} omp_event_handle_t;
extern void omp_fulfill_event(omp_event_handle_t event);

/* time */
extern double omp_get_wtime(void);
extern double omp_get_wtick(void);

/* memory management (OpenMP 5.0): every memory space is the shared (DSM)
 * heap; allocators honour alignment, pool_size and fallback */
typedef uintptr_t omp_uintptr_t;
typedef enum {
    omp_atk_sync_hint = 1,
    omp_atk_alignment = 2,
    omp_atk_access    = 3,
    omp_atk_pool_size = 4,
    omp_atk_fallback  = 5,
    omp_atk_fb_data   = 6,
    omp_atk_pinned    = 7,
    omp_atk_partition = 8
} omp_alloctrait_key_t;
typedef enum {
    omp_atv_false          = 0,
    omp_atv_true           = 1,
    omp_atv_contended      = 3,
    omp_atv_uncontended    = 4,
    omp_atv_serialized     = 5,
    omp_atv_sequential     = omp_atv_serialized,
    omp_atv_private        = 6,
    omp_atv_all            = 7,
    omp_atv_thread         = 8,
    omp_atv_pteam          = 9,
    omp_atv_cgroup         = 10,
    omp_atv_default_mem_fb = 11,
    omp_atv_null_fb        = 12,
    omp_atv_abort_fb       = 13,
    omp_atv_allocator_fb   = 14,
    omp_atv_environment    = 15,
    omp_atv_nearest        = 16,
    omp_atv_blocked        = 17,
    omp_atv_interleaved    = 18
} omp_alloctrait_value_t;
#define omp_atv_default ((omp_uintptr_t)-1)
typedef struct {
    omp_alloctrait_key_t key;
    omp_uintptr_t        value;
} omp_alloctrait_t;
typedef enum omp_allocator_handle_t {
    omp_null_allocator       = 0,
    omp_default_mem_alloc    = 1,
    omp_large_cap_mem_alloc  = 2,
    omp_const_mem_alloc      = 3,
    omp_high_bw_mem_alloc    = 4,
    omp_low_lat_mem_alloc    = 5,
    omp_cgroup_mem_alloc     = 6,
    omp_pteam_mem_alloc      = 7,
    omp_thread_mem_alloc     = 8,
    KMP_ALLOCATOR_MAX_HANDLE = UINTPTR_MAX
} omp_allocator_handle_t;
typedef enum omp_memspace_handle_t {
    omp_default_mem_space   = 0,
    omp_large_cap_mem_space = 1,
    omp_const_mem_space     = 2,
    omp_high_bw_mem_space   = 3,
    omp_low_lat_mem_space   = 4,
    KMP_MEMSPACE_MAX_HANDLE = UINTPTR_MAX
} omp_memspace_handle_t;
extern omp_allocator_handle_t omp_init_allocator(omp_memspace_handle_t m, int ntraits,
                                                 omp_alloctrait_t traits[]);
extern void omp_destroy_allocator(omp_allocator_handle_t allocator);
extern void omp_set_default_allocator(omp_allocator_handle_t a);
extern omp_allocator_handle_t omp_get_default_allocator(void);
extern void *omp_alloc(size_t size, omp_allocator_handle_t a);
extern void *omp_aligned_alloc(size_t align, size_t size, omp_allocator_handle_t a);
extern void *omp_calloc(size_t nmemb, size_t size, omp_allocator_handle_t a);
extern void *omp_aligned_calloc(size_t align, size_t nmemb, size_t size, omp_allocator_handle_t a);
extern void *omp_realloc(void *ptr, size_t size, omp_allocator_handle_t allocator,
                         omp_allocator_handle_t free_allocator);
extern void  omp_free(void *ptr, omp_allocator_handle_t a);

/* resources (OpenMP 5.0): nothing is held between regions to release */
typedef enum omp_pause_resource_t {
    omp_pause_resume = 0,
    omp_pause_soft   = 1,
    omp_pause_hard   = 2
} omp_pause_resource_t;
extern int omp_pause_resource(omp_pause_resource_t kind, int device_num);
extern int omp_pause_resource_all(omp_pause_resource_t kind);

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
extern int  omp_get_num_teams(void);   /* the teams construct: a league of one team */
extern int  omp_get_team_num(void);
extern void omp_set_num_teams(int num_teams);
extern int  omp_get_max_teams(void);
extern void omp_set_teams_thread_limit(int limit);
extern int  omp_get_teams_thread_limit(void);
extern int  omp_is_initial_device(void);
extern int  omp_get_initial_device(void);
extern int  omp_get_device_num(void);

/* libomp extensions kumi has (kmp_ext.c): allocation from the shared heap */
extern void *kmp_malloc(size_t size);
extern void *kmp_aligned_malloc(size_t size, size_t alignment);
extern void *kmp_calloc(size_t nelem, size_t elsize);
extern void *kmp_realloc(void *ptr, size_t size);
extern void  kmp_free(void *ptr);
extern void  kmp_set_disp_num_buffers(int num);

#ifdef __cplusplus
}
#endif
#endif /* KUMI_OMP_H */
