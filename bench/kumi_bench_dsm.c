/*
 * kumi_bench_dsm.c -- the dsm-* ops of kumi-bench: what the software DSM's
 * coherence protocol (dsm/protocol.def) costs, transaction by transaction,
 * each row set against the pingpong of the same transport measured at the
 * start of the same run (`x_pingpong`), with the protocol messages each
 * operation took (kumi_dsm_stats, summed over every PE).
 *
 *   dsm-read2    read miss, 2 hops: home PE 1 has the block, PE 0 reads
 *   dsm-read3    read miss, 3 hops: home PE 1, owner PE 2 (exclusive), PE 0 reads
 *   dsm-write    write miss of PE 0 that takes k other copies away
 *   dsm-upgrade  PE 0 holds the block shared (with the home PE 1), writes
 *   dsm-false    per-PE 8-byte counters in one 64-byte block vs one block each
 *   dsm-lock     kumi_mutex lock+unlock, mutex in DSM memory and in the heap
 *
 * Accesses are kumi_dsm_ld64 / kumi_dsm_st64 from dsm/check.h: the inline
 * checks kumi-translate emits, so the figures are those of translated code.
 * A PE serves coherence requests only inside a kumi call that waits or
 * polls: the phases of a repetition are separated by barriers, and while
 * the measuring PE runs its timed loop the others wait in kumi_barrier
 * (serve "barrier") or, for the block ops when the PEs fit the cores, in
 * a kumi_dsm_poll loop (serve "poll"; kd_serve).
 *
 * Block ops (read2, read3, write, upgrade): one allocation of KB_DSM_BLOCKS
 * 64-byte blocks; a repetition sets the blocks up (untimed), then the
 * measuring PE touches word 0 or 1 of every block once (timed): avg/min/max
 * are per miss over the repetitions (--iters, default KB_DSM_REPS).
 * Counter ops (false, lock): every PE taking part runs --iters operations
 * (default KB_DSM_OPS); avg/min/max are over those PEs.
 */
#include "kumi_bench.h"

#include "../dsm/check.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define KB_DSM_BLOCK    64      /* the coherence block (kumi_dsm_malloc's)       */
#define KB_DSM_BLOCKS   2048    /* distinct blocks per repetition                */
#define KB_DSM_REPS     20      /* default repetitions of the block ops          */
#define KB_DSM_OPS      10000   /* default increments / lock pairs per PE        */
#define KB_DSM_PP_ITERS 3000    /* pingpong round trips measured first           */
#define KB_DSM_LOCK_CHECK 50    /* locked increments per PE, checked, untimed    */
#define KB_DSM_W        (KB_DSM_BLOCK / 8)   /* 64-bit words per block           */

/* the kumi_dsm_stats counters kept per timed phase */
enum { ST_RMISS, ST_WMISS, ST_UPG, ST_SENT, ST_INV, ST_FWD, KB_DSM_NSTAT };

/* One PE's figures, put into its slot of a symmetric table on PE 0. */
struct kb_dsm_slot {
    double   ran, avg_us, min_us, max_us;
    uint64_t st[KB_DSM_NSTAT];   /* kumi_dsm_stats over the timed phases */
};

/* One output row (PE 0). */
struct kb_dsm_row {
    const char *kase;          /* "2-hop", "k=3 shared", "false/poll", ...   */
    const char *serve;         /* block ops: "barrier" or "poll"; else NULL  */
    int         hops;          /* -1: not reported                           */
    int         sharers;       /* copies the op takes away; -1: not reported */
    long        iters;         /* repetitions (block ops) or ops per PE      */
    long        per_iter;      /* ops per repetition (blocks), 1 otherwise   */
    double      avg_us, min_us, max_us;
    double      msgs, misses;  /* per op, all PEs                            */
    double      padded_ratio;  /* dsm-false: false / padded, else NAN        */
};

static struct {
    const char            *op;
    const struct kb_out   *out;
    const struct kb_limit *lim;
    struct kb_dsm_slot    *slots;  /* symmetric: n slots, read on PE 0 */
    long                   iters, warmup;
    double                 pp_us;  /* pingpong half round trip, PE 0 */
    int                    poll;   /* block ops: the other PEs serve in kumi_dsm_poll */
    uint64_t              *go;     /* symmetric: the measurer's "done" count, per PE   */
    uint64_t               go_want;
    uint64_t               acc[KB_DSM_NSTAT], snap[KB_DSM_NSTAT];
} kd;

/* ------------------------------------------------------------- helpers */

static _Noreturn void kd_wrong(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static _Noreturn void kd_wrong(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "kumi-bench[%d]: %s: wrong result: ", kb.me, kd.op);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (no numbers reported)\n", stderr);
    exit(1);
}

static void kd_stats(uint64_t st[KB_DSM_NSTAT])
{
    kumi_dsm_stats_t s;
    int              rc = kumi_dsm_stats(&s);

    if (rc != KUMI_OK)
        kb_die(kd.op, "kumi_dsm_stats", rc);
    st[ST_RMISS] = s.read_misses;
    st[ST_WMISS] = s.write_misses;
    st[ST_UPG]   = s.upgrades;
    st[ST_SENT]  = s.msgs_sent;
    st[ST_INV]   = s.invalidations;
    st[ST_FWD]   = s.forwards;
}

/* Around a timed phase: snapshot at its start, add the difference at its end. */
static void kd_snap(void)
{
    kd_stats(kd.snap);
}

static void kd_add(void)
{
    uint64_t now[KB_DSM_NSTAT];

    kd_stats(now);
    for (int i = 0; i < KB_DSM_NSTAT; i++)
        kd.acc[i] += now[i] - kd.snap[i];
}

/* Any PE allocates (it becomes the home of the blocks); every PE gets the
 * address. kumi_dsm_calloc: the home's copy starts exclusive and zeroed. */
static uint64_t *kd_alloc(int home, size_t bytes)
{
    uint64_t a = 0;
    int      rc;

    if (kb.me == home)
        a = (uint64_t)(uintptr_t)kumi_dsm_calloc(1, bytes);
    if ((rc = kumi_broadcast(kb.world, &a, sizeof a, home)) != KUMI_OK)
        kb_die(kd.op, "kumi_broadcast", rc);
    if (a == 0)   /* kumi printed why on the home PE */
        kb_die(kd.op, "kumi_dsm_calloc", KUMI_ERR_NOMEM);
    return (uint64_t *)(uintptr_t)a;
}

/* Collective; the home frees while the others serve its recall. */
static void kd_free(int home, void *p)
{
    kb_barrier(kd.op);
    if (kb.me == home)
        kumi_dsm_free(p);
    kb_barrier(kd.op);
}

/* Block ops, at the end of a timed phase, before its closing barrier. The
 * PEs that serve the measuring PE's misses wait either in that barrier
 * (kd.poll 0: what a PE waiting at a synchronization point does) or, with
 * kd.poll, in a loop of kumi_dsm_poll until the measurer has counted up
 * their `go` word (what a PE computing with frequent polls does). */
static void kd_serve(int measurer)
{
    int rc;

    if (!kd.poll)
        return;
    if (kb.me == measurer) {
        for (int p = 0; p < kb.n; p++)
            if (p != measurer && (rc = kumi_atomic_add_u64(kd.go, 1, p)) != KUMI_OK)
                kb_die(kd.op, "kumi_atomic_add_u64", rc);
        return;
    }
    kd.go_want++;
    while (__atomic_load_n(kd.go, __ATOMIC_ACQUIRE) < kd.go_want)
        kumi_dsm_poll();
}

static const char *kd_serve_name(void)
{
    return kd.poll ? "poll" : "barrier";
}

/* Collective: every PE's figures and its kumi_dsm_stats since the last
 * gather go to PE 0, which fills the row: avg = mean of the avg_us of the
 * PEs that ran, min/max their extremes; msgs and misses per op = the sums
 * over every PE divided by ops (operations timed, all PEs together). */
static void kd_gather(struct kb_dsm_row *row, int ran, double avg, double min, double max,
                      double ops)
{
    struct kb_dsm_slot s = { .ran = ran, .avg_us = avg, .min_us = min, .max_us = max };
    uint64_t           tot[KB_DSM_NSTAT] = { 0 };
    double             sum = 0, lo = INFINITY, hi = 0;
    int                cnt = 0, rc;

    memcpy(s.st, kd.acc, sizeof s.st);
    memset(kd.acc, 0, sizeof kd.acc);
    if ((rc = kumi_put(&kd.slots[kb.me], &s, sizeof s, 0)) != KUMI_OK)
        kb_die(kd.op, "kumi_put", rc);
    kb_barrier(kd.op);
    if (kb.me == 0) {
        for (int p = 0; p < kb.n; p++) {
            const struct kb_dsm_slot *q = &kd.slots[p];
            for (int i = 0; i < KB_DSM_NSTAT; i++)
                tot[i] += q->st[i];
            if (q->ran == 0)
                continue;
            cnt++;
            sum += q->avg_us;
            lo = q->min_us < lo ? q->min_us : lo;
            hi = q->max_us > hi ? q->max_us : hi;
        }
        row->avg_us = cnt ? sum / cnt : NAN;
        row->min_us = cnt ? lo : NAN;
        row->max_us = cnt ? hi : NAN;
        row->msgs   = ops > 0 ? (double)tot[ST_SENT] / ops : NAN;
        row->misses = ops > 0 ? (double)(tot[ST_RMISS] + tot[ST_WMISS] + tot[ST_UPG]) / ops : NAN;
    }
    kb_barrier(kd.op);   /* the slots are read before anyone writes them again */
}

/* avg/min/max of a PE's per-repetition times */
static void kd_reps(const double *t, long n, double *avg, double *min, double *max)
{
    double s = 0, lo = INFINITY, hi = 0;

    for (long i = 0; i < n; i++) {
        s += t[i];
        lo = t[i] < lo ? t[i] : lo;
        hi = t[i] > hi ? t[i] : hi;
    }
    *avg = n ? s / (double)n : NAN;
    *min = n ? lo : NAN;
    *max = n ? hi : NAN;
}

/* The value a repetition writes into block b: never the flag pattern. */
static uint64_t kd_val(long rep, long b)
{
    return ((uint64_t)(rep + 1) << 32) | (uint64_t)b;
}

/* ---------------------------------------------------------------- output */

static int kd_is_block_op(const char *op)
{
    return strcmp(op, "dsm-false") != 0 && strcmp(op, "dsm-lock") != 0;
}

static const char *kd_num(char *buf, size_t len, double x, int prec)
{
    if (isnan(x) || isinf(x))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.*f", prec, x);
    return buf;
}

static void kd_json_num(FILE *f, const char *key, double x)
{
    if (isnan(x) || isinf(x))
        fprintf(f, ",\"%s\":null", key);
    else
        fprintf(f, ",\"%s\":%.6g", key, x);
}

static void kd_header(void)
{
    const struct kb_out   *o   = kd.out;
    const struct kb_limit *lim = kd.lim;
    char                   a[32];

    if (lim->path == KB_PATH_NONE)
        fprintf(o->text, "# kumi-bench %s: %d PEs, transport %s (limit: not measured)\n", kd.op,
                o->pes, o->transport);
    else
        fprintf(o->text, "# kumi-bench %s: %d PEs, transport %s (limit: %sone-way %s us)\n",
                kd.op, o->pes, o->transport, lim->path == KB_PATH_TCP ? "tcp " : "",
                kd_num(a, sizeof a, lim->oneway.best_us, 3));
    if (o->pes > o->cores)
        kb_out_note(o, "%d PEs on %d cores: PEs take turns on a core, so latencies include "
                    "time-slicing", o->pes, o->cores);
}

static void kd_note_pp(void)
{
    char a[32];

    kb_out_note(kd.out, "pingpong (8-byte kick round trip / 2, PEs 0 and 1, %d round trips, "
                    "this run): %s us", KB_DSM_PP_ITERS, kd_num(a, sizeof a, kd.pp_us, 3));
}

static void kd_columns(const char *avg_what)
{
    const struct kb_out *o = kd.out;

    kb_out_note(o, "avg_us/min_us/max_us: %s; x_pingpong = avg_us / pingpong_us", avg_what);
    if (kd_is_block_op(kd.op))
        kb_out_note(o, "serve: where the PEs that answer the misses wait while the measuring PE "
                    "runs: barrier = in kumi_barrier, poll = in a loop of kumi_dsm_poll");
    kb_out_note(o, "msgs/op: DSM protocol messages sent per op by all PEs together (messages "
                "a home sends itself included); misses/op: read misses + write misses + "
                "upgrades per op (kumi_dsm_stats)");
    fprintf(o->text, "# %-13s %-7s %8s %11s %11s %11s %12s %11s %8s %9s\n", "case", "serve",
            "iters", "avg_us", "min_us", "max_us", "pingpong_us", "x_pingpong", "msgs/op",
            "misses/op");
    fflush(o->text);
}

static void kd_row(const struct kb_dsm_row *r)
{
    const struct kb_out *o  = kd.out;
    double               xp = r->avg_us / kd.pp_us;
    double               lim_ratio = kd.lim->oneway.iters > 0 && kd.lim->oneway.best_us > 0
                                         ? r->avg_us / kd.lim->oneway.best_us : NAN;
    char                 a[32], b[32], c[32], d[32], e[32], f[32], g[32];

    if (kb.me != 0)
        return;
    fprintf(o->text, "  %-13s %-7s %8ld %11s %11s %11s %12s %11s %8s %9s\n", r->kase,
            r->serve != NULL ? r->serve : "-", r->iters,
            kd_num(a, sizeof a, r->avg_us, 3), kd_num(b, sizeof b, r->min_us, 3),
            kd_num(c, sizeof c, r->max_us, 3), kd_num(d, sizeof d, kd.pp_us, 3),
            kd_num(e, sizeof e, xp, 1), kd_num(f, sizeof f, r->msgs, 2),
            kd_num(g, sizeof g, r->misses, 2));
    fflush(o->text);
    if (o->json == NULL)
        return;
    FILE *j = o->json;
    fprintf(j, "{\"impl\":\"kumi\",\"op\":\"%s\",\"transport\":\"%s\",\"pes\":%d,\"bytes\":%d,"
            "\"iters\":%ld", kd.op, o->transport, o->pes, KB_DSM_BLOCK, r->iters);
    kd_json_num(j, "avg_us", r->avg_us);
    kd_json_num(j, "min_us", r->min_us);
    kd_json_num(j, "max_us", r->max_us);
    fprintf(j, ",\"case\":\"%s\"", r->kase);
    if (r->serve != NULL)
        fprintf(j, ",\"serve\":\"%s\"", r->serve);
    fprintf(j, ",\"ops_per_iter\":%ld", r->per_iter);
    if (r->hops >= 0)
        fprintf(j, ",\"hops\":%d", r->hops);
    if (r->sharers >= 0)
        fprintf(j, ",\"sharers\":%d", r->sharers);
    kd_json_num(j, "pingpong_us", kd.pp_us);
    kd_json_num(j, "pingpong_ratio", xp);
    kd_json_num(j, "msgs_per_op", r->msgs);
    kd_json_num(j, "misses_per_op", r->misses);
    if (!isnan(r->padded_ratio))
        kd_json_num(j, "padded_ratio", r->padded_ratio);
    kd_json_num(j, "limit_ratio", lim_ratio);
    fputs("}\n", j);
    fflush(j);
}

/* ------------------------------------------------------------- pingpong */

/* kb_op_pingpong (kumi_bench_ops.c) on PEs 0 and 1; the half round trip
 * lands on PE 0. Collective. */
static void kd_pingpong(void)
{
    static const struct kb_op pp = { "pingpong", kb_op_pingpong, KB_LAT, KB_REF_PIPELINE, 8, 0,
                                     2, 0 };
    struct kb_run     run  = { .op = &pp, .bytes = 8, .iters = KB_DSM_PP_ITERS,
                               .warmup = KB_DSM_PP_ITERS / 10 };
    struct kb_sample  s    = { 0 };
    struct kb_dsm_row row  = { 0 };

    if (kb_op_pingpong(&run, &s) != KUMI_OK)
        s.ran = 0;
    kd_gather(&row, s.ran != 0, s.us, s.us, s.us, 0);
    kd.pp_us = row.avg_us;
}

/* ---------------------------------------------------- block ops: reads */

/* dsm-read2 (hops 2): home PE 1 allocates, writes every block (a hit the
 * first time, then an upgrade that invalidates PE 0's copy); PE 0 reads.
 * dsm-read3 (hops 3): home PE 1 allocates, PE 2 writes every block (it
 * becomes the exclusive owner), PE 0 reads: GETS to the home, FWD_GETS to
 * PE 2, DATA_S from PE 2 to PE 0, DONE_WB from PE 0 to the home. */
static void kd_read(int hops)
{
    const int  home = 1, writer = hops == 3 ? 2 : 1, reader = 0;
    uint64_t  *blk  = kd_alloc(home, (size_t)KB_DSM_BLOCKS * KB_DSM_BLOCK);
    double    *t    = kb_xmalloc(kd.op, (size_t)kd.iters * sizeof *t);
    long       bad  = -1;
    uint64_t   got  = 0;
    double     avg = 0, min = 0, max = 0;

    for (long r = -kd.warmup; r < kd.iters; r++) {
        long rep = r + kd.warmup;
        if (kb.me == writer)
            for (long b = 0; b < KB_DSM_BLOCKS; b++)
                kumi_dsm_st64(&blk[b * KB_DSM_W], kd_val(rep, b));
        kb_barrier(kd.op);
        kd_snap();
        if (kb.me == reader) {
            double t0 = kumi_wtime();
            for (long b = 0; b < KB_DSM_BLOCKS; b++) {
                uint64_t v = kumi_dsm_ld64(&blk[b * KB_DSM_W]);
                if (__builtin_expect(v != kd_val(rep, b), 0) && bad < 0) {
                    bad = b;
                    got = v;
                }
            }
            double dt = kumi_wtime() - t0;
            if (r >= 0)
                t[r] = dt * 1e6 / KB_DSM_BLOCKS;
            if (bad >= 0)
                kd_wrong("repetition %ld, block %ld: read %#llx, the writer (PE %d) wrote "
                         "%#llx", rep, bad, (unsigned long long)got, writer,
                         (unsigned long long)kd_val(rep, bad));
        }
        kd_serve(reader);
        kb_barrier(kd.op);
        if (r >= 0)
            kd_add();
    }
    if (kb.me == reader)
        kd_reps(t, kd.iters, &avg, &min, &max);
    struct kb_dsm_row row = { .kase = hops == 3 ? "3-hop" : "2-hop", .serve = kd_serve_name(),
                              .hops = hops,
                              .sharers = -1, .iters = kd.iters, .per_iter = KB_DSM_BLOCKS,
                              .padded_ratio = NAN };
    kd_gather(&row, kb.me == reader, avg, min, max, (double)kd.iters * KB_DSM_BLOCKS);
    kd_row(&row);
    free(t);
    kd_free(home, blk);
}

/* ---------------------------------------------------- block ops: writes */

enum { KD_W_HOME, KD_W_OWNER, KD_W_SHARED };

/* One row of dsm-write. PE 0 writes word 0 of every block, from I:
 *   KD_W_HOME   (k=0): the home PE 1 wrote every block first (exclusive
 *               at the home): GETX, DATA_E; the home's copy is dropped
 *               in place.
 *   KD_W_OWNER  (k=1): PE 2 wrote every block first (exclusive owner):
 *               GETX, FWD_GETX to PE 2, DATA_E from it, DONE.
 *   KD_W_SHARED (k=m+1): the home wrote, then PEs 2..m+1 read every block:
 *               the home and those m PEs share it; GETX, DATA_E, k INV
 *               (one the home's to itself), k INV_ACK to PE 0, DONE. */
static void kd_write_case(uint64_t *blk, int mode, int m)
{
    const int home = 1, taker = mode == KD_W_OWNER ? 2 : home;
    double   *t    = kb_xmalloc(kd.op, (size_t)kd.iters * sizeof *t);
    double    avg = 0, min = 0, max = 0;
    int       reads = mode == KD_W_SHARED && kb.me >= 2 && kb.me < 2 + m;
    char      kase[32];

    for (long r = -kd.warmup; r < kd.iters; r++) {
        long rep = r + kd.warmup + 1000 * (mode + 1) * (m + 1);   /* fresh values per case */
        /* take the blocks away from PE 0 (the last repetition's writer) */
        if (kb.me == taker)
            for (long b = 0; b < KB_DSM_BLOCKS; b++)
                kumi_dsm_st64(&blk[b * KB_DSM_W + 1], kd_val(rep, b));
        kb_barrier(kd.op);
        if (mode == KD_W_SHARED) {
            if (reads)
                for (long b = 0; b < KB_DSM_BLOCKS; b++) {
                    uint64_t v = kumi_dsm_ld64(&blk[b * KB_DSM_W + 1]);
                    if (v != kd_val(rep, b))
                        kd_wrong("block %ld: sharer read %#llx, the home wrote %#llx", b,
                                 (unsigned long long)v, (unsigned long long)kd_val(rep, b));
                }
            kb_barrier(kd.op);
        }
        kd_snap();
        if (kb.me == 0) {
            double t0 = kumi_wtime();
            for (long b = 0; b < KB_DSM_BLOCKS; b++)
                kumi_dsm_st64(&blk[b * KB_DSM_W], kd_val(rep, b));
            double dt = kumi_wtime() - t0;
            if (r >= 0)
                t[r] = dt * 1e6 / KB_DSM_BLOCKS;
        }
        kd_serve(0);
        kb_barrier(kd.op);
        if (r >= 0)
            kd_add();
        /* check: the home sees PE 0's last value (and serves nothing stale) */
        if (r == kd.iters - 1) {
            if (kb.me == home)
                for (long b = 0; b < KB_DSM_BLOCKS; b++) {
                    uint64_t v = kumi_dsm_ld64(&blk[b * KB_DSM_W]);
                    if (v != kd_val(rep, b))
                        kd_wrong("block %ld: the home read %#llx after PE 0 wrote %#llx", b,
                                 (unsigned long long)v, (unsigned long long)kd_val(rep, b));
                }
            kb_barrier(kd.op);
        }
    }
    if (kb.me == 0)
        kd_reps(t, kd.iters, &avg, &min, &max);
    int k = mode == KD_W_HOME ? 0 : mode == KD_W_OWNER ? 1 : m + 1;
    snprintf(kase, sizeof kase, "k=%d %s", k,
             mode == KD_W_HOME ? "home-E" : mode == KD_W_OWNER ? "owner" : "shared");
    struct kb_dsm_row row = { .kase = kase, .serve = kd_serve_name(),
                              .hops = mode == KD_W_HOME ? 2 : 3, .sharers = k,
                              .iters = kd.iters, .per_iter = KB_DSM_BLOCKS,
                              .padded_ratio = NAN };
    kd_gather(&row, kb.me == 0, avg, min, max, (double)kd.iters * KB_DSM_BLOCKS);
    kd_row(&row);
    free(t);
}

static void kd_write(void)
{
    uint64_t *blk = kd_alloc(1, (size_t)KB_DSM_BLOCKS * KB_DSM_BLOCK);

    kd_write_case(blk, KD_W_HOME, 0);
    if (kb.n >= 3)
        kd_write_case(blk, KD_W_OWNER, 0);
    for (int m = 1; m <= kb.n - 2; m++)
        kd_write_case(blk, KD_W_SHARED, m);
    kd_free(1, blk);
}

/* dsm-upgrade: the home PE 1 writes every block (taking it back from PE 0),
 * PE 0 reads it (both now share it), then PE 0 writes (timed): UPG, GRANT
 * (1 ack to expect), INV (the home's to itself), INV_ACK, DONE. */
static void kd_upgrade(void)
{
    const int home = 1;
    uint64_t *blk  = kd_alloc(home, (size_t)KB_DSM_BLOCKS * KB_DSM_BLOCK);
    double   *t    = kb_xmalloc(kd.op, (size_t)kd.iters * sizeof *t);
    double    avg = 0, min = 0, max = 0;

    for (long r = -kd.warmup; r < kd.iters; r++) {
        long rep = r + kd.warmup;
        if (kb.me == home)
            for (long b = 0; b < KB_DSM_BLOCKS; b++)
                kumi_dsm_st64(&blk[b * KB_DSM_W + 1], kd_val(rep, b));
        kb_barrier(kd.op);
        if (kb.me == 0)
            for (long b = 0; b < KB_DSM_BLOCKS; b++) {
                uint64_t v = kumi_dsm_ld64(&blk[b * KB_DSM_W + 1]);
                if (v != kd_val(rep, b))
                    kd_wrong("block %ld: read %#llx, the home wrote %#llx", b,
                             (unsigned long long)v, (unsigned long long)kd_val(rep, b));
            }
        kb_barrier(kd.op);
        kd_snap();
        if (kb.me == 0) {
            double t0 = kumi_wtime();
            for (long b = 0; b < KB_DSM_BLOCKS; b++)
                kumi_dsm_st64(&blk[b * KB_DSM_W], kd_val(rep, b));
            double dt = kumi_wtime() - t0;
            if (r >= 0)
                t[r] = dt * 1e6 / KB_DSM_BLOCKS;
        }
        kd_serve(0);
        kb_barrier(kd.op);
        if (r >= 0)
            kd_add();
    }
    if (kb.me == 0)
        kd_reps(t, kd.iters, &avg, &min, &max);
    struct kb_dsm_row row = { .kase = "upgrade", .serve = kd_serve_name(), .hops = 2, .sharers = 1, .iters = kd.iters,
                              .per_iter = KB_DSM_BLOCKS, .padded_ratio = NAN };
    kd_gather(&row, kb.me == 0, avg, min, max, (double)kd.iters * KB_DSM_BLOCKS);
    kd_row(&row);
    free(t);
    kd_free(home, blk);
}

/* ------------------------------------------------------------ dsm-false */

/* Every PE increments its own counter --iters times: kumi_dsm_ld64 then
 * kumi_dsm_st64 (what kumi-translate makes of `c[me]++`), then a poll:
 * kumi_dsm_poll after every increment, or kumi_dsm_poll_tick (the
 * translator's back-edge poll, which serves every 1024th tick). False:
 * counter p is word p % 8 of block p / 8 (PE 0's allocation); padded:
 * counter p alone in block p. */
static void kd_false(void)
{
    const long nfalse = (kb.n + KB_DSM_W - 1) / KB_DSM_W;
    uint64_t  *fb = kd_alloc(0, (size_t)nfalse * KB_DSM_BLOCK);
    uint64_t  *pb = kd_alloc(0, (size_t)kb.n * KB_DSM_BLOCK);
    double     false_avg = NAN;
    static const char *const names[4] = { "false/poll", "padded/poll", "false/tick",
                                          "padded/tick" };

    for (int v = 0; v < 4; v++) {
        int       padded = v & 1, tick = v >> 1;
        uint64_t *c      = padded ? &pb[(size_t)kb.me * KB_DSM_W] : &fb[kb.me];
        long      total  = kd.warmup + kd.iters;
        double    t0, us;

        kumi_dsm_st64(c, 0);
        kb_barrier(kd.op);
        for (long i = 0; i < kd.warmup; i++) {
            kumi_dsm_st64(c, kumi_dsm_ld64(c) + 1);
            if (tick)
                kumi_dsm_poll_tick();
            else
                kumi_dsm_poll();
        }
        kb_barrier(kd.op);
        kd_snap();
        t0 = kumi_wtime();
        if (tick)
            for (long i = 0; i < kd.iters; i++) {
                kumi_dsm_st64(c, kumi_dsm_ld64(c) + 1);
                kumi_dsm_poll_tick();
            }
        else
            for (long i = 0; i < kd.iters; i++) {
                kumi_dsm_st64(c, kumi_dsm_ld64(c) + 1);
                kumi_dsm_poll();
            }
        us = (kumi_wtime() - t0) * 1e6 / (double)kd.iters;
        kb_barrier(kd.op);
        kd_add();
        uint64_t got = kumi_dsm_ld64(c);
        if (got != (uint64_t)total)
            kd_wrong("%s: my counter is %llu after %ld increments", names[v],
                     (unsigned long long)got, total);
        kb_barrier(kd.op);
        struct kb_dsm_row row = { .kase = names[v], .hops = -1, .sharers = -1,
                                  .iters = kd.iters, .per_iter = 1, .padded_ratio = NAN };
        kd_gather(&row, 1, us, us, us, (double)kd.iters * kb.n);
        if (kb.me == 0) {
            if (!padded)
                false_avg = row.avg_us;
            else
                row.padded_ratio = false_avg / row.avg_us;
        }
        kd_row(&row);
        if (kb.me == 0 && padded)
            kb_out_note(kd.out, "false / padded (%s): %.1fx", tick ? "poll_tick" : "poll",
                        row.padded_ratio);
    }
    kd_free(0, pb);
    kd_free(0, fb);
}

/* ------------------------------------------------------------- dsm-lock */

/* kumi_mutex_lock + kumi_mutex_unlock with nothing in between, the mutex
 * in DSM memory (home PE 0) or in the symmetric heap (PE 0's copy).
 * "all": every PE does --iters pairs at once (FIFO tickets, so each waits
 * for the P-1 others' turns); "solo": PE 1 alone, the others in the
 * barrier. Before timing, every PE does KB_DSM_LOCK_CHECK locked
 * increments of a DSM counter, and PE 0 checks the sum. */
static void kd_lock(void)
{
    uint64_t     *dm  = kd_alloc(0, sizeof(kumi_mutex_t));
    uint64_t     *cnt = kd_alloc(0, KB_DSM_BLOCK);
    kumi_mutex_t *hm  = kumi_align(64, sizeof(kumi_mutex_t));
    uint64_t      want = 0;
    int           rc;

    if (hm == NULL)
        kb_die(kd.op, "kumi_align", KUMI_ERR_NOMEM);
    if (kb.me == 0) {
        if ((rc = kumi_mutex_init((kumi_mutex_t *)dm)) != KUMI_OK)
            kb_die(kd.op, "kumi_mutex_init", rc);
        if ((rc = kumi_mutex_init(hm)) != KUMI_OK)
            kb_die(kd.op, "kumi_mutex_init", rc);
    }
    kb_barrier(kd.op);
    for (int v = 0; v < 4; v++) {
        int           heap = v & 1, solo = v >> 1;
        kumi_mutex_t *m    = heap ? hm : (kumi_mutex_t *)dm;
        int           runs = !solo || kb.me == 1;
        double        us = 0, t0;
        char          kase[32];

        if (!solo) {   /* mutual exclusion, checked */
            for (int i = 0; i < KB_DSM_LOCK_CHECK; i++) {
                if ((rc = kumi_mutex_lock(m)) != KUMI_OK)
                    kb_die(kd.op, "kumi_mutex_lock", rc);
                kumi_dsm_st64(cnt, kumi_dsm_ld64(cnt) + 1);
                if ((rc = kumi_mutex_unlock(m)) != KUMI_OK)
                    kb_die(kd.op, "kumi_mutex_unlock", rc);
            }
            want += (uint64_t)KB_DSM_LOCK_CHECK * (uint64_t)kb.n;
            kb_barrier(kd.op);
            if (kb.me == 0 && kumi_dsm_ld64(cnt) != want)
                kd_wrong("%s mutex: %llu locked increments counted, %llu made",
                         heap ? "heap" : "DSM", (unsigned long long)kumi_dsm_ld64(cnt),
                         (unsigned long long)want);
        }
        for (long i = 0; runs && i < kd.warmup; i++)
            if ((rc = kumi_mutex_lock(m)) != KUMI_OK || (rc = kumi_mutex_unlock(m)) != KUMI_OK)
                kb_die(kd.op, "kumi_mutex_lock/unlock", rc);
        kb_barrier(kd.op);
        kd_snap();
        if (runs) {
            t0 = kumi_wtime();
            for (long i = 0; i < kd.iters; i++) {
                if ((rc = kumi_mutex_lock(m)) != KUMI_OK)
                    kb_die(kd.op, "kumi_mutex_lock", rc);
                if ((rc = kumi_mutex_unlock(m)) != KUMI_OK)
                    kb_die(kd.op, "kumi_mutex_unlock", rc);
            }
            us = (kumi_wtime() - t0) * 1e6 / (double)kd.iters;
        }
        kb_barrier(kd.op);
        kd_add();
        snprintf(kase, sizeof kase, "%s/%s", heap ? "heap" : "dsm", solo ? "solo" : "all");
        struct kb_dsm_row row = { .kase = kase, .hops = -1, .sharers = -1, .iters = kd.iters,
                                  .per_iter = 1, .padded_ratio = NAN };
        kd_gather(&row, runs, us, us, us, (double)kd.iters * (solo ? 1 : kb.n));
        kd_row(&row);
    }
    kumi_free(hm);
    kd_free(0, cnt);
    kd_free(0, dm);
}

/* ------------------------------------------------------------------ run */

int kb_dsm_run(const struct kb_op *op, long iters, long warmup, const struct kb_limit *lim,
               const struct kb_out *out)
{
    int block = kd_is_block_op(op->name);

    memset(&kd, 0, sizeof kd);
    kd.op    = op->name;
    kd.out   = out;
    kd.lim   = lim;
    kd.iters = iters > 0 ? iters : block ? KB_DSM_REPS : KB_DSM_OPS;
    kd.warmup = warmup >= 0 ? warmup : block ? (kd.iters / 10 > 0 ? kd.iters / 10 : 1)
                                             : kd.iters / 10;
    if (kb.n < op->min_pes) {
        if (kb.me == 0)
            kb_out_note(out, "op %s: needs at least %d PEs", op->name, op->min_pes);
        return 0;
    }
    kd.slots = kumi_calloc((size_t)kb.n, sizeof *kd.slots);
    kd.go    = kumi_calloc(1, 64);
    if (kd.slots == NULL || kd.go == NULL)
        kb_die(kd.op, "kumi_calloc", KUMI_ERR_NOMEM);
    /* servers spinning in kumi_dsm_poll would take the measurer's core */
    int modes = block && kb.n <= out->cores ? 2 : 1;

    if (kb.me == 0)
        kd_header();
    kd_pingpong();
    if (kb.me == 0) {
        kd_note_pp();
        if (strcmp(op->name, "dsm-read2") == 0)
            kb_out_note(out, "home PE 1 writes %d distinct 64-byte blocks, PE 0 reads word 0 of "
                        "each (a cold miss: GETS, DATA_S); between repetitions the home writes "
                        "them again, invalidating PE 0's copies",
                        KB_DSM_BLOCKS);
        else if (strcmp(op->name, "dsm-read3") == 0)
            kb_out_note(out, "home PE 1 allocates %d 64-byte blocks, PE 2 writes each (it owns "
                        "them exclusive), PE 0 reads word 0 of each: GETS to the home, FWD_GETS "
                        "to PE 2, DATA_S to PE 0 (3 hops), then DONE_WB to the home",
                        KB_DSM_BLOCKS);
        else if (strcmp(op->name, "dsm-write") == 0)
            kb_out_note(out, "PE 0 writes word 0 of %d 64-byte blocks (home PE 1), each a "
                        "write miss from I that takes k other copies away: k=0 home-E: the "
                        "home wrote them last (GETX, DATA_E); k=1 owner: PE 2 wrote them last "
                        "(GETX, FWD_GETX, DATA_E, DONE); k=m+1 shared: the home wrote, PEs "
                        "2..m+1 read, so the home and m PEs share them (GETX, DATA_E, k INV "
                        "of which one the home's to itself, k INV_ACK, DONE)", KB_DSM_BLOCKS);
        else if (strcmp(op->name, "dsm-upgrade") == 0)
            kb_out_note(out, "home PE 1 writes %d 64-byte blocks, PE 0 reads them (both share "
                        "them), then writes word 0 of each: UPG, GRANT, INV (the home's to "
                        "itself), INV_ACK, DONE", KB_DSM_BLOCKS);
        else if (strcmp(op->name, "dsm-false") == 0)
            kb_out_note(out, "every PE increments its own 8-byte counter (kumi_dsm_ld64 + "
                        "kumi_dsm_st64): false = the counters share 64-byte blocks (8 a "
                        "block), padded = one block each; /poll: kumi_dsm_poll after every "
                        "increment, /tick: kumi_dsm_poll_tick (the translator's back-edge "
                        "poll, serves every %u ticks)", KUMI_DSM_POLL_EVERY);
        else if (strcmp(op->name, "dsm-lock") == 0)
            kb_out_note(out, "kumi_mutex_lock + kumi_mutex_unlock, nothing held: dsm = mutex "
                        "in DSM memory (home PE 0), heap = in the symmetric heap (PE 0's copy, "
                        "remote atomics); all = every PE at once (FIFO: each pair waits for "
                        "the others' turns), solo = PE 1 alone");
    }
    if (kb.me == 0)
        kd_columns(block ? "per miss: mean, best and worst repetition (iters repetitions of "
                           "2048 misses each, after the warm-up ones)"
                         : "per op on one PE: mean, best and worst over the PEs that run it");

    for (kd.poll = 0; kd.poll < modes; kd.poll++) {
        if (strcmp(op->name, "dsm-read2") == 0)
            kd_read(2);
        else if (strcmp(op->name, "dsm-read3") == 0)
            kd_read(3);
        else if (strcmp(op->name, "dsm-write") == 0)
            kd_write();
        else if (strcmp(op->name, "dsm-upgrade") == 0)
            kd_upgrade();
        else if (strcmp(op->name, "dsm-false") == 0)
            kd_false();
        else
            kd_lock();
    }
    if (kb.me == 0 && block && modes == 1)
        kb_out_note(out, "serve poll: not run, %d PEs on %d cores (PEs spinning in "
                    "kumi_dsm_poll would take the measuring PE's core)", kb.n, out->cores);

    kb_barrier(kd.op);
    kumi_free(kd.go);
    kumi_free(kd.slots);
    return 0;
}
