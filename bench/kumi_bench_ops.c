/*
 * kumi_bench_ops.c -- the measured loops of kumi-bench, one function per op.
 *
 * Every op has the same shape, run by every PE:
 *   1. set up buffers with a known pattern;
 *   2. one checked call outside the timed loop: its status is agreed among
 *      the PEs (so a runtime that lacks the op makes every PE skip it
 *      together) and its result is verified, so no number is ever reported
 *      for a wrong result;
 *   3. kb_timed: warm-up, kumi_barrier, then the timed loop on the PEs that
 *      take part (the others go straight on to the collection barrier).
 * A wrong result or a failing call ends the job (exit 1) before PE 0 can
 * print anything for that size.
 */
#include "kumi_bench.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* Warm-up, barrier, then `iters` timed steps and an optional `fin` inside
 * the timed region (the quiet that ends a stream). Collective; PEs with
 * runs == 0 only join the barrier. Returns microseconds per step (0 if
 * this PE did not run). */
double kb_timed(const struct kb_run *run, const char *call, int runs, kb_step step, kb_step fin,
                void *ctx)
{
    const char   *op = run->op->name;
    double        t0, t;
    int           rc;
    struct rusage u0, u1;

    if (runs) {
        for (long i = 0; i < run->warmup; i++)
            if ((rc = step(ctx)) != KUMI_OK)
                kb_die(op, call, rc);
        if (fin != NULL && (rc = fin(ctx)) != KUMI_OK)
            kb_die(op, call, rc);
    }
    kb_barrier(op);
    if (!runs)
        return 0;
    getrusage(RUSAGE_SELF, &u0);
    t0 = kumi_wtime();
    for (long i = 0; i < run->iters; i++)
        if ((rc = step(ctx)) != KUMI_OK)
            kb_die(op, call, rc);
    if (fin != NULL && (rc = fin(ctx)) != KUMI_OK)
        kb_die(op, call, rc);
    t = kumi_wtime() - t0;
    getrusage(RUSAGE_SELF, &u1);
    kb.minflt += u1.ru_minflt - u0.ru_minflt;   /* where a large path faults */
    return t * 1e6 / (double)run->iters;
}

/* --------------------------------------------------------------- patterns
 * A pattern that differs per byte position, per size and per sender, so a
 * block delivered to the wrong place, a stale buffer from the previous
 * size, or a short copy is caught. */

uint64_t kb_seed(size_t bytes, uint64_t who)
{
    return (uint64_t)bytes * 1000003u + who;
}

static uint64_t kb_word(uint64_t seed, size_t w)
{
    uint64_t x = (seed + 1) * 0x9E3779B97F4A7C15ull ^ ((uint64_t)w * 0xBF58476D1CE4E5B9ull);
    return x ^ (x >> 31);
}

void kb_fill(void *buf, size_t n, uint64_t seed)
{
    uint8_t *p = buf;

    for (size_t w = 0; w * 8 < n; w++) {
        uint64_t x = kb_word(seed, w);
        memcpy(p + w * 8, &x, n - w * 8 < 8 ? n - w * 8 : 8);
    }
}

/* Index of the first wrong byte, or (size_t)-1 when all n are right. */
static size_t kb_verify(const void *buf, size_t n, uint64_t seed)
{
    const uint8_t *p = buf;

    for (size_t w = 0; w * 8 < n; w++) {
        uint64_t x = kb_word(seed, w);
        size_t   k = n - w * 8 < 8 ? n - w * 8 : 8;
        if (memcmp(p + w * 8, &x, k) != 0)
            for (size_t i = 0; i < k; i++)
                if (p[w * 8 + i] != ((const uint8_t *)&x)[i])
                    return w * 8 + i;
    }
    return (size_t)-1;
}

void kb_expect_block(const struct kb_run *run, const void *buf, size_t n, uint64_t seed,
                     const char *what)
{
    size_t bad = kb_verify(buf, n, seed);

    if (bad != (size_t)-1)
        kb_wrong(run, "%s: byte %zu differs", what, bad);
}

static size_t kb_max(size_t a, size_t b)
{
    return a > b ? a : b;
}

/* ---------------------------------------------------------------- barrier */

static int kb_step_barrier(void *ctx)
{
    (void)ctx;
    return kumi_barrier(kb.world);
}

int kb_op_barrier(const struct kb_run *run, struct kb_sample *out)
{
    static uint64_t round;  /* advances identically on every PE */
    int      right = (kb.me + 1) % kb.n, left = (kb.me + kb.n - 1) % kb.n, rc;
    uint64_t v     = ++round * (uint64_t)kb.n + (uint64_t)kb.me, got;

    /* check: a barrier makes the put before it visible after it */
    if ((rc = kumi_put(&kb.scratch[0], &v, sizeof v, right)) != KUMI_OK)
        kb_die(run->op->name, "kumi_put", rc);
    if ((rc = kumi_barrier(kb.world)) != KUMI_OK)
        kb_die(run->op->name, "kumi_barrier", rc);
    got = __atomic_load_n(&kb.scratch[0], __ATOMIC_ACQUIRE);
    if (got != round * (uint64_t)kb.n + (uint64_t)left)
        kb_wrong(run, "the put before the barrier is not visible after it (read %llu)",
                 (unsigned long long)got);

    out->us  = kb_timed(run, "kumi_barrier", 1, kb_step_barrier, NULL, NULL);
    out->ran = 1;
    return KUMI_OK;
}

/* ------------------------------------------------------------ collectives */

/* The collectives' buffers: private (malloc, the default, as the Open MPI
 * twin's) or, with --buffers heap, in the symmetric heap (kumi_malloc, as
 * the OpenSHMEM twin's), where the large collectives read peers' data in
 * place. Every PE allocates and frees the same sizes in the same order. */
static void *kb_coll_buf(const char *op, size_t n)
{
    return kb.heap_bufs ? kb_sym_alloc(op, n) : kb_xmalloc(op, n);
}

static void kb_coll_free(void *p)
{
    if (kb.heap_bufs)
        kumi_free(p);
    else
        free(p);
}

struct kb_coll {
    void  *dst, *src;
    size_t count;   /* doubles (reductions) */
    size_t bytes;   /* bytes (data movement) */
};

static int kb_step_allreduce(void *ctx)
{
    struct kb_coll *c = ctx;
    return kumi_allreduce(kb.world, c->dst, c->src, c->count, KUMI_DOUBLE, KUMI_SUM);
}

static int kb_step_reduce(void *ctx)
{
    struct kb_coll *c = ctx;
    return kumi_reduce(kb.world, c->dst, c->src, c->count, KUMI_DOUBLE, KUMI_SUM, 0);
}

/* allreduce and reduce: element i of PE p is (p+1)*(i%1000+1), so every
 * sum is an exact integer in a double whatever the reduction order. */
static int kb_reduction(const struct kb_run *run, struct kb_sample *out, int all)
{
    const char    *call  = all ? "kumi_allreduce" : "kumi_reduce";
    kb_step        step  = all ? kb_step_allreduce : kb_step_reduce;
    struct kb_coll c     = { .count = run->bytes / sizeof(double) };
    size_t         alloc = kb_max(c.count, 1) * sizeof(double);
    double        *src = kb_coll_buf(run->op->name, alloc);
    double        *dst = kb_coll_buf(run->op->name, alloc);
    double         ranks = (double)kb.n * (kb.n + 1) / 2;   /* 1 + 2 + ... + n */
    int            rc;

    for (size_t i = 0; i < c.count; i++) {
        src[i] = (double)(kb.me + 1) * (double)(i % 1000 + 1);
        dst[i] = -1;
    }
    c.src = src;
    c.dst = dst;
    rc = kb_agree(run->op->name, call, step(&c));
    if (rc == KUMI_OK) {
        if (all || kb.me == 0)
            for (size_t i = 0; i < c.count; i++)
                if (dst[i] != ranks * (double)(i % 1000 + 1))
                    kb_wrong(run, "element %zu is %.17g, expected %.17g", i, dst[i],
                             ranks * (double)(i % 1000 + 1));
        out->us  = kb_timed(run, call, 1, step, NULL, &c);
        out->ran = 1;
    }
    kb_coll_free(dst);
    kb_coll_free(src);
    return rc;
}

int kb_op_allreduce(const struct kb_run *run, struct kb_sample *out)
{
    return kb_reduction(run, out, 1);
}

int kb_op_reduce(const struct kb_run *run, struct kb_sample *out)
{
    return kb_reduction(run, out, 0);
}

static int kb_step_broadcast(void *ctx)
{
    struct kb_coll *c = ctx;
    return kumi_broadcast(kb.world, c->dst, c->bytes, 0);
}

int kb_op_broadcast(const struct kb_run *run, struct kb_sample *out)
{
    struct kb_coll c   = { .bytes = run->bytes };
    uint64_t       seed = kb_seed(run->bytes, 0);
    int            rc;

    c.dst = kb_coll_buf(run->op->name, kb_max(run->bytes, 1));
    if (kb.me == 0)
        kb_fill(c.dst, run->bytes, seed);
    else
        memset(c.dst, 0, run->bytes);
    rc = kb_agree(run->op->name, "kumi_broadcast", kb_step_broadcast(&c));
    if (rc == KUMI_OK) {
        kb_expect_block(run, c.dst, run->bytes, seed, "the root's buffer");
        out->us  = kb_timed(run, "kumi_broadcast", 1, kb_step_broadcast, NULL, &c);
        out->ran = 1;
    }
    kb_coll_free(c.dst);
    return rc;
}

static int kb_step_allgather(void *ctx)
{
    struct kb_coll *c = ctx;
    return kumi_allgather(kb.world, c->dst, c->src, c->bytes);
}

int kb_op_allgather(const struct kb_run *run, struct kb_sample *out)
{
    struct kb_coll c = { .bytes = run->bytes };
    size_t         all = run->bytes * (size_t)kb.n;
    int            rc;

    c.src = kb_coll_buf(run->op->name, kb_max(run->bytes, 1));
    c.dst = kb_coll_buf(run->op->name, kb_max(all, 1));
    kb_fill(c.src, run->bytes, kb_seed(run->bytes, (uint64_t)kb.me));
    memset(c.dst, 0, all);
    rc = kb_agree(run->op->name, "kumi_allgather", kb_step_allgather(&c));
    if (rc == KUMI_OK) {
        for (int r = 0; r < kb.n; r++) {
            char what[48];
            snprintf(what, sizeof what, "block of PE %d", r);
            kb_expect_block(run, (char *)c.dst + (size_t)r * run->bytes, run->bytes,
                            kb_seed(run->bytes, (uint64_t)r), what);
        }
        out->us  = kb_timed(run, "kumi_allgather", 1, kb_step_allgather, NULL, &c);
        out->ran = 1;
    }
    kb_coll_free(c.dst);
    kb_coll_free(c.src);
    return rc;
}

static int kb_step_alltoall(void *ctx)
{
    struct kb_coll *c = ctx;
    return kumi_alltoall(kb.world, c->dst, c->src, c->bytes);
}

/* alltoall and alltoall-naive: block j of PE r carries seed (r*n + j), so
 * it must land as block r of PE j. */
int kb_op_alltoall(const struct kb_run *run, struct kb_sample *out)
{
    struct kb_coll c = { .bytes = run->bytes };
    size_t         all = run->bytes * (size_t)kb.n;
    uint64_t       n = (uint64_t)kb.n, me = (uint64_t)kb.me;
    int            rc;

    c.src = kb_coll_buf(run->op->name, kb_max(all, 1));
    c.dst = kb_coll_buf(run->op->name, kb_max(all, 1));
    for (uint64_t j = 0; j < n; j++)
        kb_fill((char *)c.src + j * run->bytes, run->bytes, kb_seed(run->bytes, me * n + j));
    memset(c.dst, 0, all);
    rc = kb_agree(run->op->name, "kumi_alltoall", kb_step_alltoall(&c));
    if (rc == KUMI_OK) {
        for (uint64_t r = 0; r < n; r++) {
            char what[48];
            snprintf(what, sizeof what, "block from PE %d", (int)r);
            kb_expect_block(run, (char *)c.dst + r * run->bytes, run->bytes,
                            kb_seed(run->bytes, r * n + me), what);
        }
        out->us  = kb_timed(run, "kumi_alltoall", 1, kb_step_alltoall, NULL, &c);
        out->ran = 1;
    }
    kb_coll_free(c.dst);
    kb_coll_free(c.src);
    return rc;
}

/* ---------------------------------------------------------------- put/get
 * PE 0 to PE 1; the others idle in the barriers. Latency: one op then
 * kumi_quiet per iteration. Bandwidth: `iters` ops back to back and one
 * quiet, inside the timed region. */

struct kb_rma {
    void  *sym;    /* symmetric buffer (the target of put, the source of get) */
    void  *local;
    size_t bytes;
};

static int kb_step_put(void *ctx)
{
    struct kb_rma *x = ctx;
    return kumi_put(x->sym, x->local, x->bytes, 1);
}

static int kb_step_put_quiet(void *ctx)
{
    int rc = kb_step_put(ctx);
    return rc == KUMI_OK ? kumi_quiet() : rc;
}

static int kb_step_get(void *ctx)
{
    struct kb_rma *x = ctx;
    return kumi_get(x->local, x->sym, x->bytes, 1);
}

static int kb_step_quiet(void *ctx)
{
    (void)ctx;
    return kumi_quiet();
}

int kb_op_put(const struct kb_run *run, struct kb_sample *out)
{
    struct kb_rma x    = { .bytes = run->bytes };
    uint64_t      seed = kb_seed(run->bytes, 0);
    int           rc   = KUMI_OK;

    x.sym   = kb_sym_alloc(run->op->name, kb_max(run->bytes, 1));
    x.local = kb_xmalloc(run->op->name, kb_max(run->bytes, 1));
    kb_fill(x.local, run->bytes, seed);
    if (kb.me == 0)
        rc = kb_step_put_quiet(&x);
    rc = kb_agree(run->op->name, "kumi_put", rc);   /* its barrier: the data is there */
    if (rc == KUMI_OK) {
        if (kb.me == 1)
            kb_expect_block(run, x.sym, run->bytes, seed, "PE 1's buffer");
        out->us        = kb_timed(run, "kumi_put", kb.me == 0, kb_step_put_quiet, NULL, &x);
        out->stream_us = kb_timed(run, "kumi_put", kb.me == 0, kb_step_put, kb_step_quiet, &x);
        out->ran       = kb.me == 0;
        kb_barrier(run->op->name);
        if (kb.me == 1)   /* still intact after the timed puts */
            kb_expect_block(run, x.sym, run->bytes, seed, "PE 1's buffer after the loop");
        kb_barrier(run->op->name);
    }
    free(x.local);
    kumi_free(x.sym);
    return rc;
}

int kb_op_get(const struct kb_run *run, struct kb_sample *out)
{
    struct kb_rma x    = { .bytes = run->bytes };
    uint64_t      seed = kb_seed(run->bytes, 1);
    int           rc   = KUMI_OK;

    x.sym   = kb_sym_alloc(run->op->name, kb_max(run->bytes, 1));
    x.local = kb_xmalloc(run->op->name, kb_max(run->bytes, 1));
    kb_fill(x.sym, run->bytes, kb_seed(run->bytes, (uint64_t)kb.me));  /* PE 1's holds seed */
    memset(x.local, 0, run->bytes);
    kb_barrier(run->op->name);
    if (kb.me == 0)
        rc = kb_step_get(&x);
    rc = kb_agree(run->op->name, "kumi_get", rc);
    if (rc == KUMI_OK) {
        if (kb.me == 0)
            kb_expect_block(run, x.local, run->bytes, seed, "the block read from PE 1");
        out->us        = kb_timed(run, "kumi_get", kb.me == 0, kb_step_get, NULL, &x);
        out->stream_us = kb_timed(run, "kumi_get", kb.me == 0, kb_step_get, kb_step_quiet, &x);
        out->ran       = kb.me == 0;
        if (kb.me == 0)
            kb_expect_block(run, x.local, run->bytes, seed, "the block read from PE 1 after the loop");
        kb_barrier(run->op->name);
    }
    free(x.local);
    kumi_free(x.sym);
    return rc;
}

/* --------------------------------------------------------------- pingpong
 * An 8-byte kick answered by a kick, PEs 0 and 1, each polling its own
 * LLCM: the DIMMnet-1 round trip. Values only grow, so a wait never
 * matches a stale value. */

struct kb_pp {
    volatile uint64_t *mine;
    size_t             off;
    int                peer, ping;
    uint64_t           seq;
};

static int kb_step_pingpong(void *ctx)
{
    struct kb_pp *p = ctx;
    uint64_t      v = ++p->seq;
    int           rc;

    if (p->ping) {
        if ((rc = kumi_kick(p->peer, p->off, &v, sizeof v)) != KUMI_OK)
            return rc;
        return kumi_wait_until_u64(p->mine, KUMI_CMP_EQ, v);
    }
    if ((rc = kumi_wait_until_u64(p->mine, KUMI_CMP_EQ, v)) != KUMI_OK)
        return rc;
    return kumi_kick(p->peer, p->off, &v, sizeof v);
}

int kb_op_pingpong(const struct kb_run *run, struct kb_sample *out)
{
    static size_t   off = (size_t)-1;   /* LLCM allocations last the job */
    static uint64_t seq;                /* same on PEs 0 and 1 */
    struct kb_pp    p = { .peer = 1 - kb.me, .ping = kb.me == 0 };
    int             runs = kb.me < 2, rc = KUMI_OK;

    if (off == (size_t)-1 && (off = kumi_llcm_alloc(sizeof(uint64_t))) == (size_t)-1)
        kb_die(run->op->name, "kumi_llcm_alloc", KUMI_ERR_NOMEM);
    p.off  = off;
    p.mine = kumi_llcm(off);
    p.seq  = seq;

    /* check: one round, waiting for "anything new" and comparing, so a
     * wrong value is reported instead of waited for forever */
    if (runs) {
        uint64_t v = p.seq + 1;
        for (int turn = 0; turn < 2 && rc == KUMI_OK; turn++) {
            if (turn == p.ping)   /* PE 0 kicks first, PE 1 waits first */
                rc = kumi_wait_until_u64(p.mine, KUMI_CMP_NE, p.seq);
            else
                rc = kumi_kick(p.peer, off, &v, sizeof v);
            if (rc == KUMI_OK && turn == p.ping && *p.mine != v)
                kb_wrong(run, "kick carried %llu, expected %llu",
                         (unsigned long long)*p.mine, (unsigned long long)v);
        }
        p.seq = v;
    }
    rc = kb_agree(run->op->name, "kumi_kick", rc);
    if (rc == KUMI_OK) {
        out->us  = kb_timed(run, "kumi_kick", runs, kb_step_pingpong, NULL, &p) / 2;
        out->ran = runs;
    }
    seq = p.seq;
    return rc;
}

/* ----------------------------------------------------------------- atomic
 * Every PE fetch-adds 1 into one word on PE 0: the contended case. The
 * final count is checked after the loop. */

struct kb_atomic {
    uint64_t *word;
    uint64_t  old;
};

static int kb_step_atomic(void *ctx)
{
    struct kb_atomic *a = ctx;
    return kumi_atomic_fetch_add_u64(a->word, 1, 0, &a->old);
}

int kb_op_atomic(const struct kb_run *run, struct kb_sample *out)
{
    struct kb_atomic a = { .word = &kb.scratch[8], .old = UINT64_MAX };  /* its own line */
    uint64_t         want, got;
    int              rc;

    if (kb.me == 0)
        __atomic_store_n(a.word, 0, __ATOMIC_SEQ_CST);
    kb_barrier(run->op->name);
    rc = kb_agree(run->op->name, "kumi_atomic_fetch_add_u64", kb_step_atomic(&a));
    if (rc != KUMI_OK)
        return rc;
    if (a.old >= (uint64_t)kb.n)
        kb_wrong(run, "first fetch-add returned %llu with %d PEs", (unsigned long long)a.old, kb.n);
    out->us  = kb_timed(run, "kumi_atomic_fetch_add_u64", 1, kb_step_atomic, NULL, &a);
    out->ran = 1;
    kb_barrier(run->op->name);
    want = (uint64_t)kb.n * (uint64_t)(1 + run->warmup + run->iters);
    got  = __atomic_load_n(a.word, __ATOMIC_SEQ_CST);
    if (kb.me == 0 && got != want)
        kb_wrong(run, "counter is %llu after the loop, expected %llu", (unsigned long long)got,
                 (unsigned long long)want);
    return KUMI_OK;
}

/* ------------------------------------------------------------------- ring
 * PE 0 pushes, PE 1 pops. The first messages are checked one by one, the
 * timed ones by length, and the last timed one by content. */

#define KB_RING_CHECKED 8

struct kb_ringctx {
    const struct kb_run *run;
    kumi_ring_t          ring;
    void                *buf;
    size_t               bytes;
};

static int kb_step_push(void *ctx)
{
    struct kb_ringctx *x = ctx;
    return kumi_ring_push(x->ring, x->buf, x->bytes);
}

static int kb_step_pop(void *ctx)
{
    struct kb_ringctx *x = ctx;
    size_t             len = (size_t)-1;
    int                rc  = kumi_ring_pop(x->ring, x->buf, kb_max(x->bytes, 1), &len);

    if (rc == KUMI_OK && len != x->bytes)
        kb_wrong(x->run, "popped a message of %zu bytes, expected %zu", len, x->bytes);
    return rc;
}

/* Room for 16 messages, at least 1 MiB, at most 64 MiB unless a message
 * needs more (a ring holds messages of up to capacity/2). */
static size_t kb_ring_capacity(size_t bytes)
{
    size_t cap = bytes <= ((size_t)64 << 20) / 16 ? 16 * bytes : (size_t)64 << 20;
    return kb_max(kb_max(cap, (size_t)1 << 20), 2 * bytes);
}

int kb_op_ring(const struct kb_run *run, struct kb_sample *out)
{
    struct kb_ringctx x = { .run = run, .bytes = run->bytes };
    const char       *op = run->op->name;
    int               prod = kb.me == 0, cons = kb.me == 1, rc;

    rc = kb_agree(op, "kumi_ring_create",
                  kumi_ring_create(0, 1, kb_ring_capacity(run->bytes), &x.ring));
    if (rc != KUMI_OK)
        return rc;
    x.buf = kb_xmalloc(op, kb_max(run->bytes, 1));

    for (uint64_t k = 0; k < KB_RING_CHECKED && rc == KUMI_OK; k++) {
        if (prod) {
            kb_fill(x.buf, run->bytes, kb_seed(run->bytes, k));
            rc = kb_step_push(&x);
        } else if (cons) {
            memset(x.buf, 0, run->bytes);
            if ((rc = kb_step_pop(&x)) == KUMI_OK)
                kb_expect_block(run, x.buf, run->bytes, kb_seed(run->bytes, k), "message");
        }
    }
    rc = kb_agree(op, prod ? "kumi_ring_push" : "kumi_ring_pop", rc);
    if (rc == KUMI_OK) {
        uint64_t seed = kb_seed(run->bytes, KB_RING_CHECKED);
        if (prod)
            kb_fill(x.buf, run->bytes, seed);
        out->us  = kb_timed(run, prod ? "kumi_ring_push" : "kumi_ring_pop", prod || cons,
                            prod ? kb_step_push : kb_step_pop, NULL, &x);
        out->ran = prod || cons;
        if (cons)
            kb_expect_block(run, x.buf, run->bytes, seed, "last message");
    }
    kb_barrier(op);
    free(x.buf);
    int drc = kumi_ring_destroy(x.ring);
    if (drc != KUMI_OK && rc == KUMI_OK)
        kb_die(op, "kumi_ring_destroy", drc);
    return rc;
}
