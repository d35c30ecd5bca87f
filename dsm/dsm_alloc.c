/*
 * dsm_alloc.c -- DSM allocation: first fit in my slice, frees from any PE
 * (recalled at the home), block-distributed allocations (see dsm.c), and
 * kumi_dsm_malloc/calloc/realloc/free.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dsm_int.h"

/* ------------------------------------------------------------ allocator
 * First fit over a sorted array of free extents of my slice; live
 * allocations in a sorted array (offset -> size, block size) so any PE's
 * kumi_dsm_free can be checked and recalled at the home. */
struct kumi_dsm_ext {
    uint64_t off, len;
    unsigned bshift;
    int      dist;     /* live: block-distributed (kumi_dsm.dist) */
};
static struct {
    struct kumi_dsm_ext *free_ext, *live;
    size_t               nfree, nlive, cap_free, cap_live;
    uint64_t            *remote_frees;          /* offsets freed by other PEs */
    size_t               nremote, cap_remote;
} alloc;

static int ext_reserve(struct kumi_dsm_ext **a, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t               ncap = *cap ? *cap * 2 : 64;
    struct kumi_dsm_ext *n    = realloc(*a, ncap * sizeof(**a));
    if (n == NULL)
        return -1;
    *a   = n;
    *cap = ncap;
    return 0;
}

/* DIST_FREEs that wait for their part to settle */
static struct {
    struct { uint64_t off; int src; } *v;   /* DIST_FREEs whose part is busy */
    size_t n, cap;
} dfree;

void kumi_dsm_remote_free_note(uint64_t off)
{
    if (alloc.nremote == alloc.cap_remote) {
        size_t    ncap = alloc.cap_remote ? alloc.cap_remote * 2 : 16;
        uint64_t *n    = realloc(alloc.remote_frees, ncap * sizeof(*n));
        if (n == NULL)
            kumi_rt_abort("dsm: out of memory recording a free");
        alloc.remote_frees = n;
        alloc.cap_remote   = ncap;
    }
    alloc.remote_frees[alloc.nremote++] = off;
}
/* ------------------------------------------------------------ allocation */

static void live_insert(uint64_t off, uint64_t len, unsigned bshift, int dist)
{
    size_t i = alloc.nlive;

    while (i > 0 && alloc.live[i - 1].off > off) {
        alloc.live[i] = alloc.live[i - 1];
        i--;
    }
    alloc.live[i] = (struct kumi_dsm_ext){ off, len, bshift, dist };
    alloc.nlive++;
}

static ssize_t live_find(uint64_t off)
{
    size_t lo = 0, hi = alloc.nlive;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (alloc.live[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < alloc.nlive && alloc.live[lo].off == off ? (ssize_t)lo : -1;
}

static void free_insert(uint64_t off, uint64_t len)
{
    size_t i = 0;

    while (i < alloc.nfree && alloc.free_ext[i].off < off)
        i++;
    /* merge with the neighbours */
    int left  = i > 0 && alloc.free_ext[i - 1].off + alloc.free_ext[i - 1].len == off;
    int right = i < alloc.nfree && off + len == alloc.free_ext[i].off;
    if (left && right) {
        alloc.free_ext[i - 1].len += len + alloc.free_ext[i].len;
        memmove(&alloc.free_ext[i], &alloc.free_ext[i + 1],
                (alloc.nfree - i - 1) * sizeof(alloc.free_ext[0]));
        alloc.nfree--;
    } else if (left) {
        alloc.free_ext[i - 1].len += len;
    } else if (right) {
        alloc.free_ext[i].off = off;
        alloc.free_ext[i].len += len;
    } else {
        /* a new extent: room for it first (T6: frees from other PEs overran it) */
        if (ext_reserve(&alloc.free_ext, &alloc.cap_free, alloc.nfree + 1) != 0)
            kumi_rt_abort("dsm: out of memory recording a free extent");
        memmove(&alloc.free_ext[i + 1], &alloc.free_ext[i],
                (alloc.nfree - i) * sizeof(alloc.free_ext[0]));
        alloc.free_ext[i] = (struct kumi_dsm_ext){ off, len, 0, 0 };
        alloc.nfree++;
    }
}

/* Takes every block of a live allocation back to the home exclusively
 * (invalidating all copies), then frees it. Runs the protocol: blocks.
 * A distributed allocation was settled by its DIST_FREE (every PE dropped
 * its copies and its part's directory): its range is only given back. */
static int recall_and_free(const char *call, size_t idx)
{
    struct kumi_dsm_ext x   = alloc.live[idx];
    uint64_t            bsz = (uint64_t)1 << x.bshift;

    /* until one pass finds every block exclusive here with its directory
     * settled (my own DONE may still wait in the inbox) */
    for (int pass = 0; !x.dist; pass++) {
        int busy = 0;
        for (uint64_t b = x.off; b < x.off + x.len; b += bsz) {
            struct kumi_dsm_dir *e = kumi_dsm_dir_at(b);
            if (e->state == KUMI_DSM_EXCL_HOME && e->deferred == 0
                && kumi_dsm_g.state[b >> KUMI_DSM_LINE_SHIFT] == KUMI_DSM_E)
                continue;
            busy = 1;
            int rc = kumi_dsm_line(call, b, 1);
            if (rc != KUMI_OK)
                return rc;
        }
        if (!busy)
            break;
        kumi_dsm_poll();
        if (pass > 1000)
            return kumi_rt_error(KUMI_ERR_STATE, call, "%p is still in use by other PEs",
                                 (void *)(kumi_dsm.base + x.off));
    }
    if (!x.dist)
        for (uint64_t l = x.off; l < x.off + x.len; l += KUMI_DSM_LINE)
            kumi_dsm_dir_at(l)->bshift = 0;
    memmove(&alloc.live[idx], &alloc.live[idx + 1], (alloc.nlive - idx - 1) * sizeof(alloc.live[0]));
    alloc.nlive--;
    free_insert(x.off, x.len);
    return KUMI_OK;
}

static void apply_remote_frees(const char *call)
{
    while (alloc.nremote > 0) {
        uint64_t off = alloc.remote_frees[--alloc.nremote];
        ssize_t  i   = live_find(off);
        if (i < 0) {
            kumi_rt_error(KUMI_ERR_INVALID, "kumi_dsm_free", "%p (freed by another PE) is not "
                          "an allocation of PE %d", (void *)(kumi_dsm.base + off), kumi_dsm.me);
            continue;
        }
        recall_and_free(call, (size_t)i);
    }
}

/* ------------------------------------------------ distributed allocations
 * An allocation of len bytes (block size 1 << bshift) holding an object of
 * nb blocks from off + lead (the OpenMP heap's header before it; lead 0
 * for the others) is cut into P parts: part k is the object's blocks
 * [k*nb/P, (k+1)*nb/P) (floors), part 0 also the lead, part P-1 also what
 * follows the object; part k is homed at PE k (absolute: OpenMP's static
 * schedule gives thread k the k-th P-th of the iterations, so a loop over
 * the object finds its own share homed here). The address range comes from
 * the allocating PE's slice (first fit, 4 KiB aligned). The allocator sends DIST_ADD to every PE
 * (itself included) and returns when all answered, so the table is the same
 * everywhere before anyone can know the address: each PE notes the entry,
 * the home of part k sets up its part's directory (EXCL_HOME, its copy E,
 * zeroed for calloc) and every other PE drops any copy it still had of the
 * range. A free (by any PE) sends DIST_FREE to every PE and waits for all:
 * each home waits until its part's directory is settled (no transaction in
 * flight), clears it, and every PE drops its copies of the range and the
 * entry; then the range goes back to the allocator as any free does. */

static ssize_t dist_index(uint64_t off)
{
    size_t lo = 0, hi = kumi_dsm.ndist;

    while (lo < hi) {   /* the first entry starting after off */
        size_t mid = (lo + hi) / 2;
        if (kumi_dsm.dist[mid].off <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return -1;
    const struct kumi_dsm_dist *d = &kumi_dsm.dist[lo - 1];
    return off - d->off < d->len ? (ssize_t)(lo - 1) : -1;
}

int kumi_dsm_dist_home(uint64_t off, int s)
{
    ssize_t i = dist_index(off);

    if (i < 0)
        return s;
    const struct kumi_dsm_dist *d = &kumi_dsm.dist[i];
    uint64_t                    p = (uint64_t)kumi_dsm.npes;
    if (off - d->off < d->lead)
        return 0;
    uint64_t b = (off - d->off - d->lead) >> d->bshift;   /* the object's block */
    if (b >= d->nb)
        return (int)p - 1;
    /* the k with k*nb/P <= b < (k+1)*nb/P (floors): k*nb < (b+1)*P <= (k+1)*nb */
    return (int)(((b + 1) * p - 1) / d->nb);
}

int kumi_dsm_home(const void *p)
{
    if (!kumi_dsm.up || !kumi_dsm_owns(p))
        return -1;
    return kumi_dsm_home_of((uint64_t)((uintptr_t)p - kumi_dsm_g.base));
}

/* Where part k of d starts (k = P: its end). */
static uint64_t dist_cut(const struct kumi_dsm_dist *d, uint64_t k)
{
    uint64_t p = (uint64_t)kumi_dsm.npes;

    if (k == 0)
        return d->off;
    if (k >= p)
        return d->off + d->len;
    return d->off + d->lead + ((k * d->nb / p) << d->bshift);
}

/* Part k of d: [*lo, *hi), empty when *lo >= *hi. */
static void dist_part(const struct kumi_dsm_dist *d, int k, uint64_t *lo, uint64_t *hi)
{
    *lo = dist_cut(d, (uint64_t)k);
    *hi = dist_cut(d, (uint64_t)k + 1);
}

/* The line at off holds the flag pattern afterwards; a page that holds it
 * already is not written (not committed). */
static void flag_line(uint64_t off)
{
    uint64_t *w = (uint64_t *)(kumi_dsm.base + off);

    for (unsigned i = 0; i < KUMI_DSM_LINE / 8; i++)
        if (w[i] != KUMI_DSM_FLAG64) {
            kumi_dsm_flag_fill(off, KUMI_DSM_LINE_SHIFT);
            return;
        }
}

/* Drops my copies of the lines of [lo, hi): invalid (flag) afterwards.
 * Only for memory nobody uses (a new or freed allocation). */
static void drop_copies(uint64_t lo, uint64_t hi)
{
    uint8_t *st      = kumi_dsm_g.state;
    int      changed = 0;

    for (uint64_t l = lo; l < hi; l += KUMI_DSM_LINE) {
        uint64_t i = l >> KUMI_DSM_LINE_SHIFT, w;
        if ((i & 7) == 0 && hi - l >= 8 * KUMI_DSM_LINE) {
            memcpy(&w, st + i, 8);
            if (w == 0) {   /* eight lines I */
                l += 7 * KUMI_DSM_LINE;
                continue;
            }
        }
        if (st[i] == KUMI_DSM_I || (kumi_dsm.pend.active && kumi_dsm.pend.line == l))
            continue;
        flag_line(l);
        st[i]   = KUMI_DSM_I;
        changed = 1;
    }
    if (changed)
        kumi_dsm_pstate_sync(lo, hi - lo);
}

static void dist_insert(const struct kumi_dsm_dist *d)
{
    if (kumi_dsm.ndist == kumi_dsm.cap_dist) {
        size_t                ncap = kumi_dsm.cap_dist ? kumi_dsm.cap_dist * 2 : 16;
        struct kumi_dsm_dist *n    = realloc(kumi_dsm.dist, ncap * sizeof(*n));
        if (n == NULL)
            kumi_rt_abort("dsm: out of memory noting a distributed allocation");
        kumi_dsm.dist     = n;
        kumi_dsm.cap_dist = ncap;
    }
    size_t i = kumi_dsm.ndist;
    while (i > 0 && kumi_dsm.dist[i - 1].off > d->off) {
        kumi_dsm.dist[i] = kumi_dsm.dist[i - 1];
        i--;
    }
    kumi_dsm.dist[i] = *d;
    kumi_dsm.dist_in_slice[d->off / kumi_dsm.slice]++;
    kumi_dsm.ndist++;
}

void kumi_dsm_dist_add_msg(const struct kumi_dsm_node *n)
{
    struct kumi_dsm_dist_msg a;
    int                      me = kumi_dsm.me;

    if (n->msg.len != sizeof a)
        kumi_dsm_violation("DIST_ADD of the wrong length", n->src, n->msg.off, KUMI_DSM_DIR, 0,
                           n->msg.type);
    memcpy(&a, n->data, sizeof a);
    struct kumi_dsm_dist d = { n->msg.off, a.len, a.lead, a.nb, n->msg.bshift };
    if (d.bshift < KUMI_DSM_MIN_BSHIFT || d.bshift > KUMI_DSM_MAX_BSHIFT || d.nb == 0
        || d.nb > (d.len >> d.bshift) || (d.lead & (((uint64_t)1 << d.bshift) - 1)) != 0
        || d.lead + (d.nb << d.bshift) > d.len || d.off + d.len > kumi_dsm.size
        || dist_index(d.off) >= 0 || dist_index(d.off + d.len - 1) >= 0)
        kumi_dsm_violation("bad DIST_ADD", n->src, n->msg.off, KUMI_DSM_DIR, 0, n->msg.type);
    dist_insert(&d);
    kumi_dsm_hint_clear(d.off, d.len);
    uint64_t lo, hi;
    dist_part(&d, me, &lo, &hi);
    drop_copies(d.off, lo);
    drop_copies(hi, d.off + d.len);
    if (lo < hi) {
        for (uint64_t l = lo; l < hi; l += KUMI_DSM_LINE) {
            struct kumi_dsm_dir *e = kumi_dsm_dir_at(l);
            memset(e, 0, kumi_dsm.dir_stride);
            e->state   = KUMI_DSM_EXCL_HOME;
            e->bshift  = (uint8_t)d.bshift;
            e->owner   = me;
            e->pending = -1;
        }
        memset(kumi_dsm_g.state + (lo >> KUMI_DSM_LINE_SHIFT), KUMI_DSM_E,
               (hi - lo) >> KUMI_DSM_LINE_SHIFT);
        kumi_dsm_pstate_sync(lo, hi - lo);
        if (a.zero)
            memset(kumi_dsm.base + lo, 0, hi - lo);
    }
    kumi_dsm_send(n->src, KUMI_DSM_MSG_DIST_ACK, n->src, 0, 0, d.off, 0, NULL, 0);
}

/* 1 when no transaction on my part of d is in flight (a requester's DONE
 * may still be on its way when another PE frees). */
static int dist_settled(const struct kumi_dsm_dist *d)
{
    uint64_t lo, hi, bsz = (uint64_t)1 << d->bshift;

    dist_part(d, kumi_dsm.me, &lo, &hi);
    for (uint64_t b = lo; b < hi; b += bsz) {
        const struct kumi_dsm_dir *e = kumi_dsm_dir_at(b);
        if (e->state == KUMI_DSM_BUSY_S || e->state == KUMI_DSM_BUSY_X || e->deferred != 0)
            return 0;
    }
    return 1;
}

static void dist_free_apply(size_t idx, int src)
{
    struct kumi_dsm_dist d = kumi_dsm.dist[idx];
    uint64_t             lo, hi;

    dist_part(&d, kumi_dsm.me, &lo, &hi);
    for (uint64_t l = lo; l < hi; l += KUMI_DSM_LINE)
        kumi_dsm_dir_at(l)->bshift = 0;
    drop_copies(d.off, d.off + d.len);
    memmove(&kumi_dsm.dist[idx], &kumi_dsm.dist[idx + 1],
            (kumi_dsm.ndist - idx - 1) * sizeof(kumi_dsm.dist[0]));
    kumi_dsm.ndist--;
    kumi_dsm.dist_in_slice[d.off / kumi_dsm.slice]--;
    kumi_dsm_send(src, KUMI_DSM_MSG_DIST_ACK, src, 0, 0, d.off, 0, NULL, 0);
}

void kumi_dsm_dist_free_msg(const struct kumi_dsm_node *n)
{
    ssize_t i = dist_index(n->msg.off);

    if (i < 0 || kumi_dsm.dist[i].off != n->msg.off)
        kumi_dsm_violation("DIST_FREE of no distributed allocation", n->src, n->msg.off,
                           KUMI_DSM_DIR, 0, n->msg.type);
    if (dist_settled(&kumi_dsm.dist[i])) {
        dist_free_apply((size_t)i, n->src);
        return;
    }
    if (dfree.n == dfree.cap) {
        size_t ncap = dfree.cap ? dfree.cap * 2 : 8;
        void  *v    = realloc(dfree.v, ncap * sizeof(*dfree.v));
        if (v == NULL)
            kumi_rt_abort("dsm: out of memory recording a free");
        dfree.v   = v;
        dfree.cap = ncap;
    }
    dfree.v[dfree.n].off = n->msg.off;
    dfree.v[dfree.n].src = n->src;
    dfree.n++;
}

/* After a drain: the DIST_FREEs whose part has settled since. */
void kumi_dsm_dist_free_retry(void)
{
    for (size_t j = 0; j < dfree.n;) {
        ssize_t i = dist_index(dfree.v[j].off);
        if (i >= 0 && !dist_settled(&kumi_dsm.dist[i])) {
            j++;
            continue;
        }
        if (i >= 0)
            dist_free_apply((size_t)i, dfree.v[j].src);
        dfree.v[j] = dfree.v[--dfree.n];
    }
}

/* Sends (type, off) to every PE, itself included, and waits for all acks. */
static int dist_all(const char *call, int type, uint64_t off, unsigned bshift, const void *data,
                    size_t len)
{
    __atomic_store_n(&kumi_dsm.dist_acks, 0, __ATOMIC_RELAXED);
    for (int pe = 0; pe < kumi_dsm.npes; pe++)
        kumi_dsm_send(pe, type, kumi_dsm.me, 0, 0, off, bshift, data, len);
    kumi_dsm_drain();   /* my own at once */
    return kumi_rt_wait(call, &kumi_dsm.dist_acks, 4, KUMI_CMP_GE, (uint64_t)kumi_dsm.npes);
}

/* ------------------------------------------------------- malloc and free */

/* size bytes; when distributed, the object that is split among the PEs
 * starts at start + hdr rounded up to obj_align and has obj_size bytes
 * (0: size) */
static void *dsm_alloc_obj(const char *call, size_t size, unsigned bshift, int dist, int zero,
                           size_t hdr, size_t obj_align, size_t obj_size)
{
    uint64_t bsz   = (uint64_t)1 << bshift;
    uint64_t align = dist && bsz < 4096 ? 4096 : bsz;

    if (kumi_dsm_usable(call) != KUMI_OK)
        return NULL;
    if (size == 0)
        return NULL;
    apply_remote_frees(call);
    if (kumi_dsm.npes == 1)
        dist = 0;
    if (size > kumi_dsm.slice)
        goto nomem;
    uint64_t len = (size + bsz - 1) & ~(bsz - 1);
    for (size_t i = 0; i < alloc.nfree; i++) {
        struct kumi_dsm_ext *f     = &alloc.free_ext[i];
        uint64_t             start = (f->off + align - 1) & ~(align - 1);
        if (start + len > f->off + f->len)
            continue;
        if (ext_reserve(&alloc.live, &alloc.cap_live, alloc.nlive + 1) != 0
            || ext_reserve(&alloc.free_ext, &alloc.cap_free, alloc.nfree + 2) != 0)
            goto nomem;
        f = &alloc.free_ext[i];
        /* split [f->off, start) | [start, start+len) | rest */
        uint64_t head = start - f->off, tail_off = start + len;
        uint64_t tail = f->off + f->len - tail_off;
        if (head == 0 && tail == 0) {
            memmove(f, f + 1, (alloc.nfree - i - 1) * sizeof(*f));
            alloc.nfree--;
        } else if (head == 0) {
            f->off = tail_off;
            f->len = tail;
        } else {
            f->len = head;
            if (tail != 0) {
                memmove(f + 2, f + 1, (alloc.nfree - i - 1) * sizeof(*f));
                f[1] = (struct kumi_dsm_ext){ tail_off, tail, 0, 0 };
                alloc.nfree++;
            }
        }
        live_insert(start, len, bshift, dist);
        if (dist) {
            /* the object: from the block of the address start + hdr
             * rounded up to obj_align (the caller's header before it) to
             * its end */
            uint64_t a0   = (uint64_t)(uintptr_t)kumi_dsm.base;
            uint64_t o    = (a0 + start + hdr + obj_align - 1) / obj_align * obj_align - a0;
            uint64_t lead = (o - start) & ~(bsz - 1);
            uint64_t end  = o + (obj_size != 0 ? obj_size : size);
            uint64_t nb   = (end - start - lead + bsz - 1) >> bshift;
            if (nb == 0 || lead + (nb << bshift) > len) {   /* the caller's sizes do not fit */
                lead = 0;
                nb   = len >> bshift;
            }
            struct kumi_dsm_dist_msg a = { .len = len, .lead = lead, .nb = nb, .zero = zero != 0 };
            if (dist_all(call, KUMI_DSM_MSG_DIST_ADD, start, bshift, &a, sizeof a) != KUMI_OK)
                return NULL;   /* a peer died: the job is failing */
            return kumi_dsm.base + start;
        }
        for (uint64_t l = start; l < start + len; l += KUMI_DSM_LINE) {
            struct kumi_dsm_dir *e = kumi_dsm_dir_at(l);
            memset(e, 0, kumi_dsm.dir_stride);
            e->state   = KUMI_DSM_EXCL_HOME;
            e->bshift  = (uint8_t)bshift;
            e->owner   = kumi_dsm.me;
            e->pending = -1;
        }
        memset(kumi_dsm_g.state + (start >> KUMI_DSM_LINE_SHIFT), KUMI_DSM_E,
               len >> KUMI_DSM_LINE_SHIFT);
        kumi_dsm_hint_clear(start, len);
        kumi_dsm_pstate_sync(start, len);
        if (zero)
            memset(kumi_dsm.base + start, 0, size);   /* exclusive at its home: me */
        return kumi_dsm.base + start;
    }
nomem:
    kumi_rt_error(KUMI_ERR_NOMEM, call, "no room for %zu bytes in this PE's %zu-byte share "
                  "of the DSM region (KUMI_DSM_SIZE=%zu over %d PEs)", size, kumi_dsm.slice,
                  kumi_dsm.size, kumi_dsm.npes);
    return NULL;
}

static int block_shift(const char *call, size_t block_bytes, unsigned *bshift)
{
    if (block_bytes < 64 || block_bytes > KUMI_DSM_BLOCK_MAX || (block_bytes & (block_bytes - 1)))
        return kumi_rt_error(KUMI_ERR_INVALID, call, "block size %zu is not a power of two "
                             "from 64 to 4096", block_bytes);
    *bshift = (unsigned)__builtin_ctzll(block_bytes);
    return KUMI_OK;
}

static int dist_wanted(size_t size)
{
    return kumi_dsm.dist_min != 0 && size >= kumi_dsm.dist_min;
}

static void *dsm_alloc(const char *call, size_t size, unsigned bshift, int dist, int zero)
{
    return dsm_alloc_obj(call, size, bshift, dist, zero, 0, 1, 0);   /* the object: all of it */
}

/* The coherence block of a new malloc/calloc allocation:
 * KUMI_DSM_DIST_BLOCK when it is distributed, else the line. */
static unsigned default_bshift(int dist)
{
    return dist ? kumi_dsm.dist_bshift : KUMI_DSM_LINE_SHIFT;
}

/* A block sized to a small allocation: the power of two >= size, from the
 * line to KUMI_DSM_BLOCK_MAX. */
static unsigned fit_bshift(size_t size)
{
    unsigned b = KUMI_DSM_LINE_SHIFT;

    while (b < KUMI_DSM_MAX_BSHIFT && ((size_t)1 << b) < size)
        b++;
    return b;
}

void *kumi_dsm_malloc_fit(size_t size, int zero)
{
    int dist = dist_wanted(size);

    return dsm_alloc(zero ? "kumi_dsm_calloc" : "kumi_dsm_malloc", size,
                     dist ? default_bshift(1) : fit_bshift(size), dist, zero);
}

void *kumi_dsm_malloc_obj(size_t size, size_t hdr, size_t obj_align, size_t obj_size, int fit,
                          int zero)
{
    int dist = dist_wanted(size);

    return dsm_alloc_obj(zero ? "kumi_dsm_calloc" : "kumi_dsm_malloc", size,
                         dist || !fit ? default_bshift(dist) : fit_bshift(size), dist, zero, hdr,
                         obj_align, obj_size);
}

void *kumi_dsm_malloc_block(size_t size, size_t block_bytes)
{
    static const char call[] = "kumi_dsm_malloc";
    unsigned          bshift = KUMI_DSM_LINE_SHIFT;

    if (kumi_dsm_usable(call) != KUMI_OK || block_shift(call, block_bytes, &bshift) != KUMI_OK)
        return NULL;
    return dsm_alloc(call, size, bshift, 0, 0);
}

void *kumi_dsm_malloc(size_t size)
{
    int dist = dist_wanted(size);

    return dsm_alloc("kumi_dsm_malloc", size, default_bshift(dist), dist, 0);
}

void *kumi_dsm_malloc_dist(size_t size)
{
    return dsm_alloc("kumi_dsm_malloc_dist", size, default_bshift(1), 1, 0);
}

void *kumi_dsm_calloc(size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size) {
        kumi_rt_error(KUMI_ERR_INVALID, "kumi_dsm_calloc", "%zu x %zu bytes overflows", n, size);
        return NULL;
    }
    int dist = dist_wanted(n * size);

    return dsm_alloc("kumi_dsm_calloc", n * size, default_bshift(dist), dist, 1);
}

void kumi_dsm_free(void *p)
{
    static const char call[] = "kumi_dsm_free";

    if (p == NULL || kumi_dsm_usable(call) != KUMI_OK)
        return;
    if (!kumi_dsm_owns(p)) {
        kumi_rt_error(KUMI_ERR_INVALID, call, "%p is not in the DSM region", p);
        return;
    }
    uint64_t off = (uint64_t)((uintptr_t)p - kumi_dsm_g.base);
    ssize_t  di  = dist_index(off);
    if (di >= 0) {
        if (kumi_dsm.dist[di].off != off) {
            kumi_rt_error(KUMI_ERR_INVALID, call, "%p is inside a DSM allocation, not its "
                          "start", p);
            return;
        }
        /* every PE settles and forgets it; then the range goes back to
         * the allocator below (the home of the whole range again) */
        if (dist_all(call, KUMI_DSM_MSG_DIST_FREE, off, 0, NULL, 0) != KUMI_OK)
            return;
    }
    int home = kumi_dsm_home_of(off);
    if (home != kumi_dsm.me) {
        /* a round trip: once it returns the home has noted the free, so
         * its next allocation (after a barrier, say) can reuse the space */
        __atomic_store_n(&kumi_dsm.free_acked, 0, __ATOMIC_RELAXED);
        kumi_dsm_send(home, KUMI_DSM_MSG_FREE, kumi_dsm.me, 0, 0, off, 0, NULL, 0);
        kumi_rt_wait(call, &kumi_dsm.free_acked, 4, KUMI_CMP_EQ, 1);
        return;
    }
    apply_remote_frees(call);
    ssize_t i = live_find(off);
    if (i < 0) {
        kumi_rt_error(KUMI_ERR_INVALID, call, "%p is not a DSM allocation (already freed?)", p);
        return;
    }
    recall_and_free(call, (size_t)i);
}

/* The home's answer to MSG_SIZE (in the drain: no recall, no waiting). */
void kumi_dsm_size_msg(const struct kumi_dsm_node *n)
{
    ssize_t  i   = live_find(n->msg.off);
    uint64_t len = i >= 0 ? alloc.live[i].len : 0;

    kumi_dsm_send(n->src, KUMI_DSM_MSG_SIZE_ACK, n->src, 0, 0, n->msg.off,
                  i >= 0 ? alloc.live[i].bshift : 0, &len, sizeof len);
}

void *kumi_dsm_realloc(void *p, size_t size)
{
    static const char call[] = "kumi_dsm_realloc";
    uint64_t          old;
    unsigned          bshift = KUMI_DSM_LINE_SHIFT;
    int               dist = 0;

    if (p == NULL)
        return kumi_dsm_malloc(size);
    if (kumi_dsm_usable(call) != KUMI_OK)
        return NULL;
    if (!kumi_dsm_owns(p)) {
        kumi_rt_error(KUMI_ERR_INVALID, call, "%p is not in the DSM region", p);
        return NULL;
    }
    if (size == 0) {
        kumi_dsm_free(p);
        return NULL;
    }
    uint64_t off = (uint64_t)((uintptr_t)p - kumi_dsm_g.base);
    ssize_t  di  = dist_index(off);
    if (di >= 0 && kumi_dsm.dist[di].off == off) {
        old    = kumi_dsm.dist[di].len;
        bshift = kumi_dsm.dist[di].bshift;
        dist   = 1;
    } else if (di < 0 && kumi_dsm_home_of(off) == kumi_dsm.me) {
        apply_remote_frees(call);
        ssize_t i = live_find(off);
        old    = i >= 0 ? alloc.live[i].len : 0;
        bshift = i >= 0 ? alloc.live[i].bshift : 0;
    } else if (di < 0) {
        __atomic_store_n(&kumi_dsm.size_acked, 0, __ATOMIC_RELAXED);
        kumi_dsm_send(kumi_dsm_home_of(off), KUMI_DSM_MSG_SIZE, kumi_dsm.me, 0, 0, off, 0,
                      NULL, 0);
        if (kumi_rt_wait(call, &kumi_dsm.size_acked, 4, KUMI_CMP_EQ, 1) != KUMI_OK)
            return NULL;
        old    = kumi_dsm.size_answer;
        bshift = kumi_dsm.size_bshift;
    } else {
        old = 0;
    }
    if (old == 0) {
        kumi_rt_error(KUMI_ERR_INVALID, call, "%p is not a DSM allocation (already freed?)", p);
        return NULL;
    }
    if (size <= old && size > old / 2)
        return p;   /* fits, and not much is wasted */
    if (!dist && dist_wanted(size) && bshift == KUMI_DSM_LINE_SHIFT)
        bshift = default_bshift(1);   /* becomes distributed */
    void *q = dsm_alloc(call, size, bshift, dist || dist_wanted(size), 0);
    if (q == NULL)
        return NULL;   /* p stays as it was */
    kumi_dsm_memmove(q, p, size < old ? size : old);
    kumi_dsm_free(p);
    return q;
}


/* ------------------------------------------------------- set-up and end */

void kumi_dsm_alloc_reset(void)
{
    memset(&alloc, 0, sizeof alloc);
    memset(&dfree, 0, sizeof dfree);
}

int kumi_dsm_alloc_init(void)
{
    alloc.free_ext = malloc(64 * sizeof(*alloc.free_ext));
    if (alloc.free_ext == NULL)
        return KUMI_ERR_NOMEM;
    alloc.cap_free    = 64;
    alloc.nfree       = 1;
    alloc.free_ext[0] = (struct kumi_dsm_ext){ (uint64_t)kumi_dsm.me * kumi_dsm.slice,
                                               kumi_dsm.slice, 0, 0 };
    return KUMI_OK;
}

void kumi_dsm_alloc_fini(void)
{
    free(alloc.free_ext);
    free(alloc.live);
    free(alloc.remote_frees);
    memset(&alloc, 0, sizeof alloc);
    free(kumi_dsm.dist);
    free(kumi_dsm.dist_in_slice);
    kumi_dsm.dist          = NULL;
    kumi_dsm.dist_in_slice = NULL;
    kumi_dsm.ndist = kumi_dsm.cap_dist = 0;
    free(dfree.v);
    memset(&dfree, 0, sizeof dfree);
}
