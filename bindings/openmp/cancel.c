/*
 * cancel.c -- cancellation: cancel-var (OMP_CANCELLATION,
 * omp_get_cancellation), __kmpc_cancel, __kmpc_cancellationpoint and
 * __kmpc_cancel_barrier for parallel, for and sections (taskgroup is
 * taskgroup.c's).
 *
 * Cancellation points are frequent and cancels rare, so a cancel is pushed
 * to every thread and a cancellation point reads a word of its own PE.
 * Each PE has two words in its symmetric scratch, one per parity of the
 * team-barrier count of the region ("epoch" e: after e barriers). A
 * thread cancelling in epoch e ORs the construct's bit, tagged with the
 * region id, into word e & 1 of every team member (one remote atomic
 * each). A cancellation point in epoch e reads its own word e & 1; right
 * after barrier e + 1 each thread reads word e & 1 (what was cancelled in
 * the epoch that barrier ended) and clears it if it has this region's
 * tag: nothing for epoch e + 2, the same word, can arrive before this PE
 * reaches barrier e + 2, and a word another thread already wrote for the
 * next region keeps its own tag (and is not cleared).
 *
 * A cancelled parallel region: clang makes a thread that sees it at a
 * cancel or a cancellation point run one cancel barrier and leave; a
 * cancel barrier returns 1 when the epoch it ended saw the cancel (the
 * thread leaves). The barrier counts then agree: every thread passes
 * exactly one barrier after the epoch of the cancel before the join, or,
 * if it saw no cancellation point in that epoch, its join is that barrier
 * and it passes one more (kumi_omp_cancel_join). A cancelled loop or
 * sections needs no reset: the next epoch reads the other word.
 */
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "omp.h"
#include "omp_int.h"

enum { CANCEL_PARALLEL = 1, CANCEL_LOOP = 2, CANCEL_SECTIONS = 3, CANCEL_TASKGROUP = 4 };

static uint64_t *cancel_words;   /* [2], symmetric */

static uint64_t cancel_tag(void)
{
    return kumi_omp_th.region << 8;
}

void kumi_omp_cancel_init(void)
{
    const char *s = getenv("OMP_CANCELLATION");

    cancel_words = kumi_omp_sym_alloc(2 * sizeof(uint64_t));
    kumi_omp_th.cancel_var = 0;
    if (s == NULL || *s == '\0')
        return;
    if (!strcasecmp(s, "true") || !strcmp(s, "1"))
        kumi_omp_th.cancel_var = 1;
    else if (strcasecmp(s, "false") && strcmp(s, "0") && kumi_rank() <= 0)
        fprintf(stderr, "kumi[%d]: omp: ignoring OMP_CANCELLATION=%s (true or false)\n",
                kumi_rank(), s);
}

int omp_get_cancellation(void)
{
    kumi_omp_ensure_init();
    return kumi_omp_th.cancel_var;
}

/* ORs bit into word w of pe, tagged with this region */
static void cancel_post(int pe, uint64_t *w, uint64_t bit)
{
    uint64_t tag = cancel_tag(), old = 0;
    for (;;) {
        uint64_t want = ((old & ~(uint64_t)0xff) == tag ? old : tag) | bit, seen;
        if (pe == kumi_omp_th.pe) {
            seen = old;
            if (__atomic_compare_exchange_n(w, &seen, want, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE))
                return;
        } else if (kumi_atomic_cswap_u64(w, old, want, pe, &seen) != KUMI_OK) {
            kumi_global_exit(1);   /* the job is ending (reported by kumi) */
        }
        if (seen == old)
            return;
        old = seen;
    }
}

static int cancel_requested(int kind)
{
    uint64_t v = __atomic_load_n(&cancel_words[kumi_omp_th.bar_epoch & 1], __ATOMIC_ACQUIRE);
    return (v & ~(uint64_t)0xff) == cancel_tag() && (v & (1u << kind));
}

void kumi_omp_cancel_barrier_passed(void)
{
    kumi_omp_thread_t *th = &kumi_omp_th;

    th->cancel_seen = 0;
    if (th->cancel_var) {
        uint64_t *w = &cancel_words[th->bar_epoch & 1];
        uint64_t  v = __atomic_load_n(w, __ATOMIC_ACQUIRE);
        /* only this region's word is cleared: a thread already in the
         * next region may have posted its cancel here (the word then has
         * that region's tag, and stays for it) */
        if (v != 0 && (v & ~(uint64_t)0xff) == cancel_tag()) {
            th->cancel_seen = (uint32_t)(v & 0xff);
            __atomic_compare_exchange_n(w, &v, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
        }
    }
    th->bar_epoch++;
}

int kumi_omp_cancel_parallel_seen(void)
{
    const kumi_omp_thread_t *th = &kumi_omp_th;
    return th->cancel_var && th->nth > 1
           && (cancel_requested(CANCEL_PARALLEL) || (th->cancel_seen & (1u << CANCEL_PARALLEL)));
}

/* After the join barrier: a thread that met no cancellation point in the
 * epoch of a parallel cancel passes the barrier the others pass after it. */
void kumi_omp_cancel_join(void)
{
    if (kumi_omp_th.cancel_var && (kumi_omp_th.cancel_seen & (1u << CANCEL_PARALLEL)))
        kumi_omp_barrier_plain();
}

static void cancel_check_kind(const char *call, int32_t kind)
{
    if (kind < CANCEL_PARALLEL || kind > CANCEL_TASKGROUP)
        kumi_omp_fatal(call, "unknown construct kind %d", kind);
}

int32_t __kmpc_cancel(kumi_omp_ident_t *loc, int32_t gtid, int32_t kind)
{
    kumi_omp_thread_t *th = &kumi_omp_th;
    (void)loc;
    (void)gtid;
    cancel_check_kind("__kmpc_cancel", kind);
    if (!th->cancel_var)
        return 0;
    if (kind == CANCEL_TASKGROUP)
        return kumi_omp_tg_cancel();
    if (th->nth > 1) {
        uint64_t *w = &cancel_words[th->bar_epoch & 1];
        for (int pe = 0; pe < th->nth; pe++)
            cancel_post(pe, w, 1u << kind);
    }
    if (kind == CANCEL_LOOP)
        kumi_omp_loop_cancelled();
    return 1;
}

int32_t __kmpc_cancellationpoint(kumi_omp_ident_t *loc, int32_t gtid, int32_t kind)
{
    const kumi_omp_thread_t *th = &kumi_omp_th;
    (void)loc;
    (void)gtid;
    cancel_check_kind("__kmpc_cancellationpoint", kind);
    if (!th->cancel_var)
        return 0;
    if (kind == CANCEL_TASKGROUP)
        return kumi_omp_tg_cancelled();
    if (th->nth <= 1 || !cancel_requested(kind))
        return 0;
    if (kind == CANCEL_LOOP)
        kumi_omp_loop_cancelled();
    return 1;
}

int32_t __kmpc_cancel_barrier(kumi_omp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    kumi_omp_barrier();
    return kumi_omp_th.cancel_var && kumi_omp_th.nth > 1
           && (kumi_omp_th.cancel_seen & (1u << CANCEL_PARALLEL));
}
