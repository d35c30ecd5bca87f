/*
 * rt.h -- the runtime's internal interface, for runtime/, collectives/ and
 * dsm/ (never for transports, which sit below).
 */
#ifndef KUMI_RT_H
#define KUMI_RT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "kumi.h"
#include "config.h"
#include "boot.h"
#include "launch.h"
#include "../transport/transport.h"

#define KUMI_TEAM_LLCM_BYTES 4096

/* A team occupies one slot (0 is the world) on each of its members: slot s
 * owns KUMI_TEAM_LLCM_BYTES of LLCM at llcm_teams_off + s * that. Slots
 * come from a quarter of the LLCM: KUMI_LLCM_SIZE / 16 KiB of them (16 at
 * the default 256k, KUMI_TEAM_MAX = 128 from 2m up). A team's heap scratch
 * is one of cfg.coll_scratch_areas areas of cfg.coll_scratch bytes at
 * scratch_off + a * that: area 0 is the world's from init, the others are
 * taken by a team on its first large collective and given back when it is
 * destroyed. Slots are agreed among the parent's members when the team is
 * made, areas among the team's members, so the same offsets are valid on
 * every member. */
#define KUMI_RT_TEAM_WORDS ((KUMI_TEAM_MAX + 63) / 64)   /* u64 words of a slot bitmap */
struct kumi_team {
    int    rank, size;       /* my rank in the team (-1: not a member) */
    int   *pes;              /* team rank -> world PE                  */
    int    slot;             /* -1 on non-members                      */
    size_t llcm_off;         /* this team's LLCM area (every member)   */
    int    scratch;          /* its scratch area, -1 while it has none */
    size_t scratch_off;      /* the area's heap offset (every member)  */
    void  *coll;             /* collectives' per-team state            */
};

/* Runtime's own LLCM area (at offset 0 of every LLCM): the bootstrap
 * "agree" collective used by init, malloc, llcm_alloc and finalize, which
 * cannot depend on the collectives layer above. */
#define KUMI_RT_AGREE_N 2   /* values one agree round carries */

struct kumi_rt {
    int   state;             /* 0 none, 1 initialized, 2 finalized     */
    int   rank, size;
    unsigned init_flags;     /* KUMI_INIT_* in force (kumi_init_ex)    */
    struct kumi_cfg  cfg;
    struct kumi_tp   tp;
    struct kumi_boot boot;   /* who started the job, how PEs meet      */
    /* the job's failure word and status: the launcher's (kumirun's
     * control segment) when the bootstrap has one, else the local pair
     * below (singletons, PEs on another host, PMIx and PMI-2 jobs); the
     * transport and the bootstrap may write them (tcp detects failures
     * itself, the launcher's channel brings them) */
    volatile uint32_t *failed;
    volatile int32_t  *fail_status;
    uint32_t           local_failed;
    int32_t            local_fail_status;
    char             job_id[64];
    int              wait_policy;   /* resolved KUMI_WAIT_{SPIN,YIELD,BLOCK} */
    /* LLCM layout: [sync area][runtime/collective reservations][user] */
    size_t           llcm_sync_off;   /* size slots at root + 2 words each */
    size_t           llcm_next;       /* bump pointer for llcm_alloc       */
    uint64_t         sync_epoch;
    /* symmetric heap */
    unsigned         arena;
    int              arena_ok;
    struct kumi_team world;
    /* team slots (LLCM areas) and heap scratch areas, reserved at init */
    int              team_slots;      /* how many fit (<= KUMI_TEAM_MAX)   */
    uint64_t         team_slots_used[KUMI_RT_TEAM_WORDS]; /* bit s: slot s in use here */
    size_t           llcm_teams_off;
    int              scratch_areas;   /* cfg.coll_scratch_areas            */
    uint64_t         scratch_used[KUMI_RT_TEAM_WORDS];    /* bit a: area a in use here */
    size_t           scratch_off;     /* heap offset of the scratch pool   */
};

extern struct kumi_rt kumi_rt;

/* ----------------------------------------------------------- messages */
/* Prints "kumi[rank]: call: message" once and returns status; with
 * KUMI_ABORT_ON_ERROR ends the job instead of returning. */
int  kumi_rt_error(int status, const char *call, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
void kumi_rt_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
_Noreturn void kumi_rt_abort(const char *why);

/* KUMI_ERR_STATE (reported for call) unless initialized. */
static inline int kumi_rt_check_state(const char *call)
{
    extern int kumi_rt_state_error(const char *call);
    return kumi_rt.state == 1 ? KUMI_OK : kumi_rt_state_error(call);
}

/* Nonzero once the job is failing (a peer died, kumirun ends the job). */
static inline int kumi_rt_failed(void)
{
    return __atomic_load_n(kumi_rt.failed, __ATOMIC_RELAXED) != 0;
}
/* Reports the failure (naming the failed PE) for call; KUMI_ERR_PEER. A
 * job ended by kumi_global_exit is no failure: only an info line then. */
int kumi_rt_peer_error(const char *call);
/* rc, except that a KUMI_ERR_PEER nobody on this thread has reported yet
 * is reported first: for calls made of several transport operations and
 * waits (collectives), where the transport returns it silently (it learnt
 * of the loss itself: ucx when it sends) and a wait would have reported
 * it already */
int kumi_rt_peer_report(const char *call);
static inline int kumi_rt_peer_status(const char *call, int rc)
{
    /* inline: every collective returns through it */
    return __builtin_expect(rc == KUMI_ERR_PEER, 0) ? kumi_rt_peer_report(call) : rc;
}

/* ----------------------------------------------------------------- job */
/* (the node map is the bootstrap's: kumi_rt.boot.node_of) */

/* ------------------------------------------------------------- waiting */
/* Waits until cmp(*addr, value) holds for a 1, 4 or 8 byte word, serving
 * transport progress and watching for job failure. call names the public
 * function for messages. */
int kumi_rt_wait(const char *call, volatile void *addr, size_t width, int cmp, uint64_t value);
/* The same inside a collective, on (*addr & mask) (the tree barrier's
 * "all children arrived"; ~0 for the whole word), where the wait ends only
 * after every member of the team has run: on an oversubscribed job it
 * learns how long to spin before yielding the core (wait.c); point-to-point
 * waits (kumi_rt_wait: kumi_wait_until_*, rings, DSM misses) always spin
 * first. */
int kumi_rt_wait_team(const char *call, volatile void *addr, size_t width, int cmp,
                      uint64_t value, uint64_t mask);
int kumi_rt_test(volatile const void *addr, size_t width, int cmp, uint64_t value);
/* The same policy, progress, poll hook and failure handling for any
 * condition: waits until ready(arg) != 0 (called once per spin, so it
 * should be a few loads; it may run again after it returned nonzero).
 * For the conditions a word compare does not express (a binding's
 * wait_until on other types, signed compares, all/any/some of a set).
 * KUMI_OK, or KUMI_ERR_PEER (reported for call) once the job fails. */
int kumi_rt_wait_pred(const char *call, int (*ready)(void *arg), void *arg);
/* Run by kumi_init on its own thread, after the transport opened. */
void kumi_rt_wait_setup(void);

/* Nonzero after kumi_init_ex(KUMI_INIT_THREADS): many threads of this PE
 * may call the one-sided, atomic, wait, fence and quiet calls at once.
 * The runtime and the transports (kumi_tp_params.threads) then lock what
 * those calls share; without it nothing is locked. Collectives (and the
 * bootstrap agree) stay one thread at a time per team; the DSM stays on
 * the thread that called kumi_init_ex (only its waits serve DSM
 * requests, wait.c). */
static inline int kumi_rt_threads(void)
{
    return (kumi_rt.init_flags & KUMI_INIT_THREADS) != 0;
}

static inline void kumi_rt_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static inline uint64_t kumi_rt_load(volatile const void *addr, size_t width)
{
    switch (width) {
    case 1:  return __atomic_load_n((volatile const uint8_t *)addr, __ATOMIC_ACQUIRE);
    case 4:  return __atomic_load_n((volatile const uint32_t *)addr, __ATOMIC_ACQUIRE);
    default: return __atomic_load_n((volatile const uint64_t *)addr, __ATOMIC_ACQUIRE);
    }
}

static inline int kumi_rt_cmp(uint64_t a, int cmp, uint64_t b)
{
    switch (cmp) {
    case KUMI_CMP_EQ: return a == b;
    case KUMI_CMP_NE: return a != b;
    case KUMI_CMP_GT: return a > b;
    case KUMI_CMP_GE: return a >= b;
    case KUMI_CMP_LT: return a < b;
    case KUMI_CMP_LE: return a <= b;
    default:          return -1;
    }
}

/* kumi_rt_wait (team: kumi_rt_wait_team) for a word that usually lands
 * within a cache-line transfer
 * (the 2-PE latency paths, kumi_wait_until_*): where PEs spin on their own
 * cores and words arrive by stores (not tcp: progress_mask 0), the first
 * loads run inline (a call into the full wait and back is a sizeable part
 * of a cache-line exchange: bench/README.md, "Measurements behind choices in the code"), then the full wait:
 * progress, failure, policy. */
#define KUMI_RT_INLINE_SPINS 32
static inline int kumi_rt_wait_fast(const char *call, volatile void *addr, size_t width, int cmp,
                                    uint64_t value, int team)
{
    if (kumi_rt.wait_policy == KUMI_WAIT_SPIN && kumi_rt.tp.progress_mask != 0)
        for (int i = 0; i < KUMI_RT_INLINE_SPINS; i++, kumi_rt_relax())
            if (kumi_rt_cmp(kumi_rt_load(addr, width), cmp, value))
                return KUMI_OK;
    return team ? kumi_rt_wait_team(call, addr, width, cmp, value, ~0ull)
                : kumi_rt_wait(call, addr, width, cmp, value);
}

/* ------------------------------------------------------- bootstrap sync */
/* Collective over all PEs: everyone contributes value; on return *min and
 * *max hold the smallest and largest contribution (either may be NULL). */
int kumi_rt_agree(const char *call, uint64_t value, uint64_t *min, uint64_t *max);
/* The same for KUMI_RT_AGREE_N values at once (min/max element-wise). */
int kumi_rt_agree_n(const char *call, const uint64_t *value, uint64_t *min, uint64_t *max);
int kumi_rt_sync_setup(void);

/* ----------------------------------------------------------------- LLCM */
/* Deterministic reservation (every PE must make the same calls in the same
 * order): returns an offset or (size_t)-1. */
size_t kumi_rt_llcm_reserve(size_t size, size_t align);

/* ----------------------------------------------------------------- heap */
int  kumi_rt_heap_init(void);
/* bytes the heap segment needs beyond KUMI_HEAP_SIZE: allocator metadata,
 * size-class round-up, and scratch bytes for the collectives */
size_t kumi_rt_heap_reserve(size_t heap_size, size_t scratch);
void kumi_rt_heap_fini(void);
/* kumi_malloc/kumi_align/kumi_calloc (zero) and kumi_free with messages
 * naming call (a binding's allocation calls) */
void *kumi_rt_heap_alloc(const char *call, size_t size, size_t alignment, int zero);
void  kumi_rt_heap_free(const char *call, void *ptr);
/* usable bytes of the heap object at ptr (at least what was asked for) */
size_t kumi_rt_heap_usable(const void *ptr);
/* offset of sym in the heap or (size_t)-1 if [sym, sym+n) is outside it */
static inline size_t kumi_rt_heap_off(const void *sym, size_t n)
{
    uintptr_t base = (uintptr_t)kumi_rt.tp.local[KUMI_SEG_HEAP];
    uintptr_t p    = (uintptr_t)sym;
    size_t    sz   = kumi_rt.tp.seg_size[KUMI_SEG_HEAP];

    if (p < base || p - base > sz || n > sz - (p - base))
        return (size_t)-1;
    return (size_t)(p - base);
}

/* ---------------------------------------------------- symmetric addresses */
/* KUMI_OK with the segment and offset of [sym, sym+n) when it lies in the
 * symmetric heap or (KUMI_INIT_SYMMETRIC_DATA) the symmetric static data,
 * else KUMI_ERR_INVALID without printing. The heap first: its path is what
 * it was before static data existed. The data check is inline too: as a
 * call it made an 8-byte put to a global measurably slower than one to the
 * heap on shm; inline it runs at the heap's speed. */
static inline int kumi_rt_sym_lookup(const void *sym, size_t n, enum kumi_seg *seg, size_t *off)
{
    size_t o = kumi_rt_heap_off(sym, n);

    if (__builtin_expect(o != (size_t)-1, 1)) {
        *seg = KUMI_SEG_HEAP;
        *off = o;
        return KUMI_OK;
    }
    uintptr_t base = (uintptr_t)kumi_rt.tp.local[KUMI_SEG_DATA];
    uintptr_t p    = (uintptr_t)sym;
    size_t    sz   = kumi_rt.tp.seg_size[KUMI_SEG_DATA];

    if (sz == 0 || p < base || p - base > sz || n > sz - (p - base))
        return KUMI_ERR_INVALID;
    *seg = KUMI_SEG_DATA;
    *off = (size_t)(p - base);
    return KUMI_OK;
}
/* Reports (for call) why [sym, sym+n) is not symmetric, naming both
 * ranges; returns KUMI_ERR_INVALID. */
int kumi_rt_sym_error(const char *call, const void *sym, size_t n);
/* The executable's static data range (KUMI_INIT_SYMMETRIC_DATA): its
 * writable PT_LOAD segments minus the part the dynamic linker makes
 * read-only after relocation (PT_GNU_RELRO), page-aligned. KUMI_OK, or an
 * error reported for call when the range cannot be found or is not one
 * piece. */
int kumi_rt_symdata_range(const char *call, void **base, size_t *size);

/* ---------------------------------------------------------------- teams */
/* The checks every team call starts with: kumi is up, team is not NULL and
 * this PE is a member. KUMI_OK, or the error reported for call. */
int  kumi_rt_check_team(const char *call, const struct kumi_team *team);
int  kumi_rt_team_world_init(void);
void kumi_rt_team_world_fini(void);
/* Fills team (pes already set, rank/size set) for slot: its LLCM area;
 * marks the slot used (the team has no scratch area yet). */
void kumi_rt_team_bind_slot(struct kumi_team *team, int slot);
/* Gives team scratch area a (free here); marks it used. */
void kumi_rt_team_bind_scratch(struct kumi_team *team, int area);
/* Frees the collectives' state, gives back the slot and the area. */
void kumi_rt_team_release_slot(struct kumi_team *team);
/* collectives/team.c: my handle of a team whose members agreed on its slot
 * among themselves (no collective; see there). */
int kumi_coll_team_at(const char *call, const int *pes, int n, int slot, struct kumi_team **out);
/* Bit i of a KUMI_RT_TEAM_WORDS bitmap. */
static inline int kumi_rt_team_bit(const uint64_t *map, int i)
{
    return (int)((map[i / 64] >> (i % 64)) & 1);
}
/* heap scratch pool: allocated by kumi_init right after the arena */
int  kumi_rt_heap_scratch_init(size_t bytes);
/* its size: cfg.coll_scratch_areas x cfg.coll_scratch (what the heap
 * segment reserves for it beyond KUMI_HEAP_SIZE) */
size_t kumi_rt_team_scratch_bytes(void);
/* collectives/ frees its per-team state through this hook (set by it) */
extern void (*kumi_rt_team_coll_free)(struct kumi_team *team);

/* ------------------------------------------- hooks of the layers above
 * The layers above (dsm/, msg/) each add one struct kumi_rt_layer from a
 * constructor; the runtime calls them in the order added (fini in
 * reverse) without knowing what is above it.
 *   init:   at the end of kumi_init, before the final agreement, so every
 *           PE can serve requests before any PE returns from kumi_init;
 *           a non-OK status fails kumi_init.
 *   poll:   from every wait, right after transport progress: serves
 *           requests queued by active-message handlers; returns how many.
 *           A layer sets it in init and clears it in fini (NULL: off).
 *   fini:   in kumi_finalize after the last agreement (no PE makes the
 *           layer's accesses any more), before the transport closes.
 *   report: the layer's end-of-job report (KUMI_DSM_STATS): from
 *           kumi_finalize and from kumi_global_exit, at most once per PE.
 * Any of them may be NULL. */
struct kumi_rt_layer {
    const char *name;
    int  (*init)(void);
    int  (*poll)(void);
    void (*fini)(void);
    void (*report)(void);
};
#define KUMI_RT_LAYERS_MAX 4
/* From a constructor: adds layer (kept, not copied). */
void kumi_rt_layer_add(struct kumi_rt_layer *layer);
/* Each layer's report, in order; only the first call reports. */
void kumi_rt_layers_report(void);
extern struct kumi_rt_layer *kumi_rt_layers[KUMI_RT_LAYERS_MAX];
extern int                   kumi_rt_nlayers;
/* Each layer's poll, in order; returns how many requests they served. */
static inline int kumi_rt_layers_poll(void)
{
    int served = 0;

    for (int i = 0; i < kumi_rt_nlayers; i++) {
        int (*poll)(void) = __atomic_load_n(&kumi_rt_layers[i]->poll, __ATOMIC_RELAXED);
        if (poll != NULL)
            served += poll();
    }
    return served;
}
/* The bindings' polls (libkumi-mpi moves non-blocking collectives and
 * serves one-sided requests, libkumi-omp serves other PEs' stdio): from
 * every wait, after the layers' polls, on the same thread, in the order
 * they were added; each returns how many requests it served. A hook may
 * wait (and so run the hooks again), add one or remove one (itself too:
 * the walk still runs each of the others once); removing one while
 * another thread walks the table may skip or repeat a hook once. */
#define KUMI_RT_POLL_HOOKS_MAX 8
/* KUMI_OK (fn already there: KUMI_OK, nothing added); the table full:
 * KUMI_ERR_NOMEM, reported. */
int kumi_rt_poll_hook_add(int (*fn)(void));
/* KUMI_OK, or KUMI_ERR_INVALID when fn is not there (nothing reported). */
int kumi_rt_poll_hook_remove(int (*fn)(void));
/* runtime/wait.c: every hook, once; how many requests they served */
int kumi_rt_poll_hooks_walk(void);
extern int kumi_rt_npoll_hooks;
/* What a wait runs (and kumi_dsm_poll): an empty table costs one load
 * and a branch. */
static inline int kumi_rt_poll_hooks_run(void)
{
    if (__builtin_expect(__atomic_load_n(&kumi_rt_npoll_hooks, __ATOMIC_RELAXED) == 0, 1))
        return 0;
    return kumi_rt_poll_hooks_walk();
}

/* Active-message handler ids the runtime's layers use (tests use 30, 31). */
enum { KUMI_RT_AM_DSM = 1, KUMI_RT_AM_OMP = 2, KUMI_RT_AM_MSG = 3 };

#endif /* KUMI_RT_H */
