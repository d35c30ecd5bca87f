/*
 * kumi_bench_limit.c -- what the hardware can do with no runtime in the
 * loop: the figures every other op is compared with (x_limit).
 *
 *   one-way   PEs 0 and 1 ping-pong a counter in one 64-byte line of PE 0's
 *             symmetric memory, both by plain loads and stores through
 *             kumi_ptr(); half a round trip is one cache-line transfer, the
 *             floor under any kick, flag or barrier.
 *   memcpy    one core copies 64 MiB (more than the last-level cache): the
 *             floor under a one-copy transfer (put, get).
 *   pipeline  PE 0 copies 64 KiB blocks into a ring of 64 KiB slots in PE
 *             1's symmetric memory and publishes a counter (release store);
 *             PE 1 waits for it, copies the block out and publishes its own
 *             counter. Two copies, two cores, as in kumi's ring (which pushes
 *             and pops one reused 64 KiB buffer, as this does): the floor
 *             under the ring and the collectives.
 *   rate      PE 0 writes windows of 64 8-byte messages into a 64 KiB ring
 *             in PE 1's symmetric memory, each a 16-byte record (a nonzero
 *             word published by a release store after the payload, four
 *             to a line, the next record's word cleared first), and waits
 *             for PE 1's acknowledgement of the window in a line of its
 *             own; PE 1 polls each record's word, checks its payload and
 *             releases its head. The floor under an 8-byte message rate
 *             (send-rate) with any record format.
 * Where peers are not mapped (tcp), one-way and pipeline cannot be taken;
 * kumi_bench_tcp.c measures the socket path instead (one-way, stream).
 * Each figure is the best of several trials: a limit is what the machine
 * can do, so ratios against it never flatter the runtime.
 */
#include "kumi_bench.h"
#include "kumi_bench_trials.h"

#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define KB_LINE        64
#define KB_BLOCK       ((size_t)64 << 10)
#define KB_SLOTS       16
#define KB_COPY_BYTES  ((size_t)64 << 20)
#define KB_SPIN_YIELD  (1u << 12)

/* Waits until *w >= want. A bare loop (no pause) measures the hardware's
 * best case; with more PEs than cores the writer may not be running, so
 * after a long spin give it the core. */
static inline void kb_spin_ge(volatile uint64_t *w, uint64_t want)
{
    unsigned spins = 0;

    while (__atomic_load_n(w, __ATOMIC_ACQUIRE) < want)
        if (++spins == KB_SPIN_YIELD) {
            spins = 0;
            sched_yield();
        }
}

void kb_stat_add(struct kb_stat *s, double us_per_unit, int trial)
{
    if (trial == 0 || us_per_unit < s->best_us)
        s->best_us = us_per_unit;
    if (trial == 0 || us_per_unit > s->worst_us)
        s->worst_us = us_per_unit;
    s->avg_us += us_per_unit;
}

void kb_stat_end(struct kb_stat *s, int trials, long units_per_trial)
{
    s->avg_us /= trials;
    s->iters = (long)trials * units_per_trial;
}

double kb_stat_mbs(const struct kb_stat *s)
{
    return s->iters > 0 && s->best_us > 0 ? (double)s->bytes / s->best_us : NAN;
}

static int kb_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double kb_median(double *v, int n)
{
    for (int i = 0; i < n; i++)
        if (isnan(v[i]))
            return NAN;
    if (n == 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, kb_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---------------------------------------------------------------- one-way */

struct kb_oneway {
    volatile uint64_t *w;
    uint64_t           v;
};

static void kb_oneway_trial(void *arg, long n)
{
    struct kb_oneway  *o = arg;
    volatile uint64_t *w = o->w;
    uint64_t           v = o->v;

    for (long i = 0; i < n; i++, v += 2) {
        if (kb.me == 0) {
            __atomic_store_n(w, v + 1, __ATOMIC_RELEASE);
            kb_spin_ge(w, v + 2);
        } else {
            kb_spin_ge(w, v + 1);
            __atomic_store_n(w, v + 2, __ATOMIC_RELEASE);
        }
    }
    o->v = v;
}

static void kb_limit_oneway(struct kb_stat *st, uint64_t *word, int trials, long rounds)
{
    struct kb_oneway o = { .w = kb.me == 0 ? word : kumi_ptr(word, 0), .v = 0 };

    if (kb.me == 0)
        __atomic_store_n(o.w, 0, __ATOMIC_SEQ_CST);
    st->bytes = sizeof(uint64_t);
    kb_trials(st, trials, rounds, 2, kb_oneway_trial, &o);
}

/* ------------------------------------------------------- kick and barrier */

struct kb_pair {
    volatile uint64_t *mine, *peer;   /* kick: my line, the peer's       */
    volatile uint8_t  *w;             /* barrier: the shared line         */
    uint64_t           v;
};

static void kb_kick_trial(void *arg, long n)
{
    struct kb_pair    *k = arg;
    volatile uint64_t *mine = k->mine, *peer = k->peer;
    uint64_t           v = k->v;

    for (long i = 0; i < n; i++) {
        v++;
        if (kb.me == 0) {
            __atomic_store_n(peer, v, __ATOMIC_RELEASE);
            kb_spin_ge(mine, v);
        } else {
            kb_spin_ge(mine, v);
            __atomic_store_n(peer, v, __ATOMIC_RELEASE);
        }
    }
    k->v = v;
}

/* A member one barrier ahead writes the other parity's word; the phase
 * byte in a word differs from the one two rounds before. */
static void kb_barrier_trial(void *arg, long n)
{
    struct kb_pair *b = arg;
    uint64_t        v = b->v;

    for (long i = 0; i < n; i++) {
        unsigned          spins = 0;
        volatile uint8_t *w     = b->w + 8 * (++v & 1);
        const uint8_t     phase = (uint8_t)v;

        __atomic_store_n(&w[kb.me], phase, __ATOMIC_RELEASE);
        while (__atomic_load_n(&w[1 - kb.me], __ATOMIC_ACQUIRE) != phase)
            if (++spins == KB_SPIN_YIELD) {
                spins = 0;
                sched_yield();
            }
    }
    b->v = v;
}

/* lines: 2 symmetric 64-byte lines, zero on every PE (collective) */
static void kb_limit_kick(struct kb_stat *st, uint64_t *lines, int trials, long rounds)
{
    struct kb_pair k = { .mine = lines, .peer = kb.me < 2 ? kumi_ptr(lines, 1 - kb.me) : NULL };

    st->bytes = sizeof(uint64_t);
    kb_trials(st, trials, rounds, 2, kb_kick_trial, &k);
}

static void kb_limit_barrier(struct kb_stat *st, uint64_t *line, int trials, long rounds)
{
    struct kb_pair b = { .w = kb.me == 0 ? (uint8_t *)line : kumi_ptr(line, 0) };

    st->bytes = 0;
    kb_trials(st, trials, rounds, 1, kb_barrier_trial, &b);
}

/* ------------------------------------------------------------------- rate */

#define KB_RATE_WINDOW 64                 /* send-rate's window          */
#define KB_RATE_REC    16                 /* word + 8 bytes of payload   */
#define KB_RATE_RING   ((size_t)64 << 10)
#define KB_RATE_LIVE   ((uint64_t)1 << 48)

struct kb_rate {
    volatile uint64_t *head;   /* PE 1's, released per record (PE 1's memory) */
    volatile uint64_t *ack;    /* windows PE 1 has taken (PE 0's memory)      */
    uint8_t           *ring;   /* KB_RATE_RING bytes in PE 1's memory         */
    uint64_t           pos;    /* bytes written (PE 0) or read (PE 1)         */
    uint64_t           seen;   /* PE 0: the head as last read                 */
    uint64_t           w;      /* windows so far                              */
};

static void kb_rate_trial(void *arg, long n)
{
    struct kb_rate *r    = arg;
    const size_t    mask = KB_RATE_RING - 1;
    uint64_t        pos  = r->pos, w = r->w;

    for (long i = 0; i < n; i++, w++) {
        for (uint64_t m = w * KB_RATE_WINDOW; m < (w + 1) * KB_RATE_WINDOW; m++) {
            uint64_t *rec = (uint64_t *)(void *)(r->ring + (pos & mask));
            if (kb.me == 0) {
                /* room for this record and the next one's word */
                while (pos + 2 * KB_RATE_REC - r->seen > KB_RATE_RING)
                    r->seen = __atomic_load_n(r->head, __ATOMIC_ACQUIRE);
                rec[1] = m;
                __atomic_store_n((uint64_t *)(void *)(r->ring + ((pos + KB_RATE_REC) & mask)), 0,
                                 __ATOMIC_RELAXED);
                __atomic_store_n(&rec[0], m | KB_RATE_LIVE, __ATOMIC_RELEASE);
            } else {
                unsigned spins = 0;
                uint64_t word;
                while ((word = __atomic_load_n(&rec[0], __ATOMIC_ACQUIRE)) == 0)
                    if (++spins == KB_SPIN_YIELD) {
                        spins = 0;
                        sched_yield();
                    }
                if (word != (m | KB_RATE_LIVE) || rec[1] != m) {
                    fprintf(stderr, "kumi-bench[1]: limit: rate message %llu arrived as "
                            "%#llx / %llu\n", (unsigned long long)m, (unsigned long long)word,
                            (unsigned long long)rec[1]);
                    exit(1);
                }
                __atomic_store_n(r->head, pos + KB_RATE_REC, __ATOMIC_RELEASE);
            }
            pos += KB_RATE_REC;
        }
        if (kb.me == 0)
            kb_spin_ge(r->ack, w + 1);
        else
            __atomic_store_n(r->ack, w + 1, __ATOMIC_RELEASE);
    }
    r->pos = pos;
    r->w   = w;
}

/* ack: one zeroed line of PE 0's (symmetric); ring: 4096 + KB_RATE_RING
 * symmetric bytes, PE 1's used (zeroed here) */
static void kb_limit_rate(struct kb_stat *st, uint64_t *ack, uint8_t *ring, int trials,
                          long windows)
{
    uint8_t       *base = kb.me == 1 ? ring : kb.me == 0 ? kumi_ptr(ring, 1) : NULL;
    struct kb_rate r    = { 0 };

    st->bytes = 8;
    /* The ring was the pipeline's, whose last trial PE 0 may still be
     * ending (waiting for PE 1's final consumed count in the ring's first
     * line): nobody touches it before every PE is here. */
    kb_barrier("limit");
    if (kb.me < 2) {
        r.head = (volatile uint64_t *)(void *)base;
        r.ack  = kb.me == 0 ? ack : kumi_ptr(ack, 0);
        r.ring = base + 4096;
        if (kb.me == 1)   /* a published word is never 0; PE 0 waits for the barrier */
            memset(base, 0, 4096 + KB_RATE_RING);
    }
    kb_trials(st, trials, windows, KB_RATE_WINDOW, kb_rate_trial, &r);
}

/* ----------------------------------------------------------------- memcpy */

/* The copy buffers, faulted in by the kernel (MAP_POPULATE): in a VM,
 * touching 2 x 64 MiB page by page from user space costs more than the
 * copies. Not huge pages: with THP defrag, a madvise'd fault may stop for
 * compaction for half a second. */
static uint8_t *kb_big_alloc(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                   -1, 0);

    if (p == MAP_FAILED) {
        fprintf(stderr, "kumi-bench[%d]: limit: cannot map %zu bytes: %m\n", kb.me, n);
        exit(1);
    }
    return p;
}

static volatile uint8_t kb_sink;   /* read from each copy so none is elided */

static void kb_limit_memcpy(struct kb_stat *st, int trials)
{
    st->bytes = KB_COPY_BYTES;
    if (kb.me == 0) {
        uint8_t *src = kb_big_alloc(KB_COPY_BYTES);
        uint8_t *dst = kb_big_alloc(KB_COPY_BYTES);

        for (int t = 0; t < trials; t++) {
            src[(size_t)t * 4096] = (uint8_t)t;
            double t0 = kumi_wtime();
            memcpy(dst, src, KB_COPY_BYTES);
            kb_stat_add(st, (kumi_wtime() - t0) * 1e6, t);
            kb_sink = dst[(size_t)t * 4096];
        }
        munmap(dst, KB_COPY_BYTES);
        munmap(src, KB_COPY_BYTES);
    }
    kb_stat_end(st, trials, 1);
    kb_barrier("limit");
}

/* --------------------------------------------------------------- pipeline
 * ctl: line 0 = blocks produced, line 1 = blocks consumed; then the slots,
 * all in PE 1's symmetric memory. Block numbers run on across trials so
 * nothing has to be reset between them. The first word of each block
 * carries its number, checked at the consumer: a broken pipeline is an
 * error, not a number. */

struct kb_pipeline {
    volatile uint64_t *produced, *consumed;
    uint8_t           *slots, *buf;
    uint64_t           b;
};

static void kb_pipeline_trial(void *arg, long n)
{
    struct kb_pipeline *p = arg;
    volatile uint64_t  *produced = p->produced, *consumed = p->consumed;
    uint8_t            *slots = p->slots, *buf = p->buf;
    uint64_t            b = p->b;

    for (long i = 0; i < n; i++, b++) {
        uint8_t *slot = slots + (b % KB_SLOTS) * KB_BLOCK;
        if (kb.me == 0) {
            if (b >= KB_SLOTS)
                kb_spin_ge(consumed, b + 1 - KB_SLOTS);
            memcpy(slot, buf, KB_BLOCK);
            memcpy(slot, &b, sizeof b);
            __atomic_store_n(produced, b + 1, __ATOMIC_RELEASE);
        } else {
            uint64_t got;
            kb_spin_ge(produced, b + 1);
            memcpy(buf, slot, KB_BLOCK);
            __atomic_store_n(consumed, b + 1, __ATOMIC_RELEASE);
            memcpy(&got, buf, sizeof got);
            if (got != b) {
                fprintf(stderr, "kumi-bench[%d]: limit: pipeline block %llu arrived as %llu\n",
                        kb.me, (unsigned long long)b, (unsigned long long)got);
                exit(1);
            }
        }
    }
    if (kb.me == 0)   /* the producer's clock stops when the last block is out */
        kb_spin_ge(consumed, b);
    p->b = b;
}

static void kb_limit_pipeline(struct kb_stat *st, uint8_t *ring, int trials, long blocks)
{
    uint8_t           *base = kb.me == 1 ? ring : kumi_ptr(ring, 1);
    struct kb_pipeline p = { 0 };

    st->bytes = KB_BLOCK;
    if (kb.me < 2) {
        p.produced = (volatile uint64_t *)base;
        p.consumed = (volatile uint64_t *)(base + KB_LINE);
        p.slots    = base + 4096;
        p.buf      = kb_xmalloc("limit", KB_BLOCK);
        memset(p.buf, 0x5a, KB_BLOCK);
        if (kb.me == 1) {
            __atomic_store_n(p.produced, 0, __ATOMIC_SEQ_CST);
            __atomic_store_n(p.consumed, 0, __ATOMIC_SEQ_CST);
        }
    }
    kb_trials(st, trials, blocks, 1, kb_pipeline_trial, &p);
    free(p.buf);
}

/* ------------------------------------------------------------------ entry */

void kb_limit_measure(struct kb_limit *lim, int full, long rounds)
{
    uint64_t *word = NULL;   /* lines: one-way, kick (2), barrier, rate's ack */
    uint8_t  *ring = NULL;
    int       rc   = KUMI_ERR_UNSUPPORTED;

    memset(lim, 0, sizeof *lim);
    lim->measured = 1;
    if (kb.n >= 2) {
        word = kumi_align(KB_LINE, 5 * KB_LINE);
        ring = kumi_align(4096, 4096 + KB_SLOTS * KB_BLOCK);
        if (word == NULL || ring == NULL)
            kb_die("limit", "kumi_align", KUMI_ERR_NOMEM);
        memset(word, 0, 5 * KB_LINE);   /* before the trials' first barrier */
        /* plain loads and stores need the peer's memory mapped here */
        int mapped = kb.me == 0 ? kumi_ptr(ring, 1) != NULL
                   : kb.me == 1 ? kumi_ptr(word, 0) != NULL : 1;
        rc = kb_agree("limit", "kumi_ptr", mapped ? KUMI_OK : KUMI_ERR_UNSUPPORTED);
    }
    lim->path = rc == KUMI_OK ? KB_PATH_SHM : KB_PATH_NONE;
    if (lim->path == KB_PATH_SHM) {
        const int  trials = full ? 10 : 5;
        const long n      = full ? rounds : 1000;
        kb_limit_oneway(&lim->oneway, word, trials, n);
        kb_limit_kick(&lim->kick, word + KB_LINE / 8, trials, n);
        kb_limit_barrier(&lim->barrier, word + 3 * KB_LINE / 8, trials, n);
    }
    kb_limit_memcpy(&lim->memcpy, full ? 10 : 3);
    if (lim->path == KB_PATH_SHM) {
        kb_limit_pipeline(&lim->pipeline, ring, full ? 10 : 3, full ? 1024 : 256);
        /* the ring again, now for records (after a barrier, PE 1 zeroes
         * it before the rate's first trial) */
        kb_limit_rate(&lim->rate, word + 4 * KB_LINE / 8, ring, full ? 10 : 5, full ? 1000 : 200);
    }
    if (kb.n >= 2) {
        kumi_free(ring);
        kumi_free(word);
    }
    /* peers not mapped (tcp): the limits of the socket path instead */
    if (kb.n >= 2 && lim->path == KB_PATH_NONE && kb_limit_tcp(lim, full, rounds) == KUMI_OK)
        lim->path = KB_PATH_TCP;
}

/* The bandwidth an op of reference bwref is compared with: on the socket
 * path every transfer is held to the stream, else one copy (memcpy) or two
 * (pipeline). */
const struct kb_stat *kb_limit_bw(const struct kb_limit *lim, enum kb_bwref bwref)
{
    if (lim->path == KB_PATH_TCP)
        return &lim->stream;
    return bwref == KB_REF_MEMCPY ? &lim->memcpy : &lim->pipeline;   /* KB_REF_RATE too */
}

const char *kb_limit_bw_name(const struct kb_limit *lim, enum kb_bwref bwref)
{
    if (lim->path == KB_PATH_TCP)
        return "tcp stream";
    return bwref == KB_REF_MEMCPY ? "memcpy" : "pipeline";
}

/* A short one-way measurement (5 trials of 1000 round trips): on some
 * VMs the line's latency moves between levels from one second to the next
 * (bench/README.md, "The hardware limits and x_limit"), so the figure
 * taken at the start of a run may not be the one a later row ran under. */
double kb_limit_oneway_now(const struct kb_limit *lim)
{
    struct kb_stat st = { 0 };
    uint64_t      *word;

    if (lim->path != KB_PATH_SHM || kb.n < 2)
        return NAN;
    if ((word = kumi_align(KB_LINE, KB_LINE)) == NULL)
        kb_die("limit", "kumi_align", KUMI_ERR_NOMEM);
    kb_limit_oneway(&st, word, 5, 1000);
    kumi_free(word);
    return kb.me <= 1 ? st.best_us : NAN;
}

/* avg_us / one-way latency for latency figures (oneway_us where it is
 * known, else the run's); mb_per_s / the op's bandwidth limit for
 * bandwidth figures. NAN when the limit is unknown. */
double kb_limit_ratio(const struct kb_limit *lim, const struct kb_op *op, const struct kb_row *row,
                      double oneway_us)
{
    double oneway = !isnan(oneway_us)      ? oneway_us
                    : lim->oneway.iters > 0 ? lim->oneway.best_us : NAN;
    double bw = kb_stat_mbs(kb_limit_bw(lim, op->bwref));

    if (!lim->measured)
        return NAN;
    switch (op->kind) {
    case KB_LAT:
        return row->avg_us / oneway;
    case KB_BW:
        return row->bytes <= KB_LAT_MAX_BYTES ? row->avg_us / oneway : row->mb_per_s / bw;
    case KB_RATE:
        /* the rate floor where it was measured (shm), else the bandwidth's */
        if (op->bwref == KB_REF_RATE && row->bytes <= KB_RATE_LIMIT_BYTES && lim->rate.iters > 0)
            return 1e6 / row->msgs_per_s / lim->rate.best_us;
        return row->mb_per_s / bw;
    default:
        return NAN;
    }
}

/* The limits as output rows (op limit-oneway, limit-kick, limit-barrier,
 * limit-memcpy, limit-pipeline, limit-stream, limit-rate); returns how many were
 * measured. The kick and barrier rows' ratio is their best over the
 * one-way's: what the pattern itself costs above one line transfer. */
int kb_limit_rows(const struct kb_limit *lim, struct kb_row rows[KB_LIMIT_ROWS])
{
    static const char *const names[KB_LIMIT_ROWS] = { "limit-oneway", "limit-kick",
                                                      "limit-barrier", "limit-memcpy",
                                                      "limit-pipeline", "limit-stream",
                                                      "limit-rate" };
    const struct kb_stat    *stats[KB_LIMIT_ROWS] = { &lim->oneway, &lim->kick, &lim->barrier,
                                                      &lim->memcpy, &lim->pipeline,
                                                      &lim->stream, &lim->rate };
    int                      n = 0;

    for (int i = 0; i < KB_LIMIT_ROWS; i++) {
        const struct kb_stat *s = stats[i];
        if (s->iters == 0)
            continue;
        const int pattern = s == &lim->kick || s == &lim->barrier;
        rows[n] = (struct kb_row){
            .op = names[i], .bytes = s->bytes, .iters = s->iters,
            .avg_us = s->avg_us, .min_us = s->best_us, .max_us = s->worst_us,
            .msgs_per_s = s == &lim->rate ? 1e6 / s->best_us : NAN,
            .mb_per_s = i == 0 || pattern ? NAN : kb_stat_mbs(s),
            .ratio = pattern ? s->best_us / lim->oneway.best_us : 1, .minflt = -1,
        };
        n++;
    }
    return n;
}
