/*
 * kumi_bench.c -- kumi-bench: OSU-style micro-benchmarks of kumi, each
 * number next to what the hardware can do (x_limit).
 *
 *   kumirun -n P kumi-bench OP [--bytes N | --min-bytes A --max-bytes B]
 *                [--iters N] [--warmup N] [--json FILE|-] [--plot FILE.png]
 *
 * This file: the op table, options, the size sweep, and the collection of
 * every PE's time on PE 0. The loops are in kumi_bench_ops.c, the hardware
 * limits in kumi_bench_limit.c, the output in kumi_bench_out.c, the helpers
 * every op uses (failing, allocation, agreement) in kumi_bench_util.c. The command
 * line and the JSON are shared with bench/peers: see bench/README.md.
 */
#include "kumi_bench.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct kb_env kb;

/* The ops. Sized ops (KB_BW, KB_RATE) sweep; the others have one size. */
static const struct kb_op kb_ops[] = {
    /* name             fn               kind      bwref            fixed sweep pes tour */
    { "barrier",        kb_op_barrier,   KB_LAT,   KB_REF_PIPELINE, 0,    0,    1,  1 },
    { "pingpong",       kb_op_pingpong,  KB_LAT,   KB_REF_PIPELINE, 8,    0,    2,  1 },
    { "atomic",         kb_op_atomic,    KB_LAT,   KB_REF_PIPELINE, 8,    0,    1,  1 },
    { "put",            kb_op_put,       KB_BW,    KB_REF_MEMCPY,   0,    0,    2,  1 },
    { "get",            kb_op_get,       KB_BW,    KB_REF_MEMCPY,   0,    0,    2,  1 },
    { "allreduce",      kb_op_allreduce, KB_BW,    KB_REF_PIPELINE, 0,    0,    1,  1 },
    { "reduce",         kb_op_reduce,    KB_BW,    KB_REF_PIPELINE, 0,    0,    1,  1 },
    { "broadcast",      kb_op_broadcast, KB_BW,    KB_REF_PIPELINE, 0,    0,    1,  1 },
    { "allgather",      kb_op_allgather, KB_BW,    KB_REF_PIPELINE, 0,    0,    1,  1 },
    { "alltoall",       kb_op_alltoall,  KB_BW,    KB_REF_PIPELINE, 0,    0,    1,  1 },
    /* KUMI_ALLTOALL is read at kumi_init, so `all` cannot include it */
    { "alltoall-naive", kb_op_alltoall,  KB_BW,    KB_REF_PIPELINE, 0,    0,    1,  0 },
    { "ring",           kb_op_ring,      KB_RATE,  KB_REF_PIPELINE, 0,    1,    2,  1 },
    /* two-sided messages (kumi_bench_send.c; the same loops in
     * bench/peers/bench_mpi.c); not in `all` */
    { "send-lat",       kb_op_send_lat,  KB_LAT,   KB_REF_PIPELINE, 8,    0,    2,  0 },
    { "send-bw",        kb_op_send_bw,   KB_BW,    KB_REF_MEMCPY,   0,    0,    2,  0 },
    { "send-bibw",      kb_op_send_bibw, KB_BW,    KB_REF_MEMCPY,   0,    0,    2,  0 },
    { "send-rate",      kb_op_send_rate, KB_RATE,  KB_REF_RATE,     0,    0,    2,  0 },
    { "send-any",       kb_op_send_any,  KB_BW,    KB_REF_MEMCPY,   0,    0,    2,  0 },
    { "limit",          NULL,            KB_LIMIT, KB_REF_PIPELINE, 0,    0,    1,  0 },
    /* the software DSM (kumi_bench_dsm.c); not in `all`: see bench/README.md */
    { "dsm-read2",      NULL,            KB_DSM,   KB_REF_PIPELINE, 64,   0,    2,  0 },
    { "dsm-read3",      NULL,            KB_DSM,   KB_REF_PIPELINE, 64,   0,    3,  0 },
    { "dsm-write",      NULL,            KB_DSM,   KB_REF_PIPELINE, 64,   0,    2,  0 },
    { "dsm-upgrade",    NULL,            KB_DSM,   KB_REF_PIPELINE, 64,   0,    2,  0 },
    { "dsm-false",      NULL,            KB_DSM,   KB_REF_PIPELINE, 64,   0,    2,  0 },
    { "dsm-lock",       NULL,            KB_DSM,   KB_REF_PIPELINE, 64,   0,    2,  0 },
    /* the DSM kernels of bench/dsm (kumi_bench_kernels.c); not in `all` */
    { "kernels",        NULL,            KB_KERNELS, KB_REF_PIPELINE, 0,  0,    1,  0 },
};
#define KB_NOPS ((int)(sizeof kb_ops / sizeof kb_ops[0]))

struct kb_opts {
    const struct kb_op *op;          /* NULL: all                       */
    size_t              sizes[KB_MAX_SIZES];
    int                 nsizes;      /* 0: the op's default sizes       */
    long                iters;       /* 0: the default                  */
    long                warmup;      /* -1: iters / 10                  */
    const char         *json, *plot;
    int                 heap_bufs;   /* --buffers heap                  */
    struct kb_kernels_opts kernels;  /* the kernels op's options     */
};

/* ------------------------------------------------------------- options */

static void kb_usage(FILE *f)
{
    fputs("usage: kumirun -n P kumi-bench OP [--bytes N | --min-bytes A --max-bytes B]\n"
          "                  [--iters N] [--warmup N] [--json FILE|-] [--plot FILE.png]\n"
          "       kumi-bench --list-ops | --help | --version\n"
          "OP: barrier pingpong atomic put get allreduce reduce broadcast allgather\n"
          "    alltoall alltoall-naive ring limit all\n"
          "    send-lat send-bw send-bibw send-rate send-any (two-sided; not in `all`)\n"
          "    dsm-read2 dsm-read3 dsm-write dsm-upgrade dsm-false dsm-lock (the software\n"
          "    DSM; each row also shows this run's pingpong; not part of `all`)\n"
          "    kernels (the DSM kernels of bench/dsm, translated and plain; not in `all`)\n"
          "  --bytes N        one size (suffix k, m, g: powers of 1024)\n"
          "  --min-bytes A --max-bytes B\n"
          "                   sweep A, 2A, 4A, ... up to B (powers of two)\n"
          "  --iters N        timed iterations up to 64 KiB (default 10000, `all` 1000);\n"
          "                   larger sizes run max(10, N*64KiB/bytes)\n"
          "  --warmup N       untimed iterations first (default iters/10)\n"
          "  --json FILE|-    one JSON object per line and size; '-': stdout (the table\n"
          "                   then goes to stderr)\n"
          "  --plot FILE.png  avg_us against bytes, log-log (needs gnuplot)\n"
          "  --buffers heap|private  where the collectives' buffers live: malloc\n"
          "                   (private, the default) or the symmetric heap (kumi_malloc)\n"
          "  --list-ops       the ops, one a line\n"
          "Default size 8 bytes; ring: 8 bytes and 64 KiB; `all`: 8 bytes and 64 KiB.\n"
          "barrier (0), pingpong (8) and atomic (8) have one size.\n"
          "dsm-read2/read3/write/upgrade: --iters repetitions of 2048 misses (default 20);\n"
          "dsm-false/lock: --iters ops per PE (default 10000). dsm-read3 needs 3 PEs.\n"
          "kernels [--kernel NAME|all] [--size N|NAME=N[,NAME=N]] [--iters N] [--trials T]\n"
          "        [--no-verify] [--json FILE|-]: NAME matmul lu sor radix histogram fft;\n"
          "        --iters: sweeps or repetitions where the kernel has them; --trials\n"
          "        (default 3): the median is reported; at 1 PE also the plain build\n", f);
}

static int kb_parse_size(const char *s, size_t *out)
{
    char              *end;
    unsigned long long v;
    int                shift = 0;

    if (s == NULL || *s == '\0' || *s == '-')
        return -1;
    errno = 0;
    v     = strtoull(s, &end, 10);
    if (errno != 0 || end == s)
        return -1;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    }
    if (*end != '\0' || v > (1ull << 40) >> shift)
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}

static int kb_parse_long(const char *s, long min, long *out)
{
    char *end;
    long  v;

    if (s == NULL || *s == '\0')
        return -1;
    errno = 0;
    v     = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < min)
        return -1;
    *out = v;
    return 0;
}

enum { KB_PARSE_OK, KB_PARSE_HELP, KB_PARSE_BAD, KB_PARSE_LIST, KB_PARSE_VERSION };

/* Returns a KB_PARSE_* (for KB_PARSE_BAD the message is in err). */
static int kb_parse(int argc, char **argv, struct kb_opts *o, char *err, size_t errlen)
{
    size_t bytes = 0, lo = 0, hi = 0;
    int    have_bytes = 0, have_lo = 0, have_hi = 0, have_op = 0;

    memset(o, 0, sizeof *o);
    o->warmup = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        char        name[32];

        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
            return KB_PARSE_HELP;
        if (strcmp(a, "--version") == 0)
            return KB_PARSE_VERSION;
        if (strcmp(a, "--list-ops") == 0)   /* asked by bench/peers/kumi-compare */
            return KB_PARSE_LIST;
        if (strcmp(a, "--no-verify") == 0) {   /* the one option without a value */
            o->kernels.no_verify = 1;
            continue;
        }
        if (strncmp(a, "--", 2) != 0) {
            if (have_op) {
                snprintf(err, errlen, "one OP only ('%s' and '%s')", argv[i - 1], a);
                return KB_PARSE_BAD;
            }
            have_op = 1;
            if (strcmp(a, "all") == 0)
                continue;
            for (int k = 0; k < KB_NOPS && o->op == NULL; k++)
                if (strcmp(a, kb_ops[k].name) == 0)
                    o->op = &kb_ops[k];
            if (o->op == NULL) {
                snprintf(err, errlen, "unknown OP '%s'", a);
                return KB_PARSE_BAD;
            }
            continue;
        }
        /* --name value or --name=value */
        size_t n = strcspn(a, "=");
        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name - 1 ? n : sizeof name - 1), a);
        v = a[n] == '=' ? a + n + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (v == NULL) {
            snprintf(err, errlen, "%s needs a value", name);
            return KB_PARSE_BAD;
        }
        if (strcmp(name, "--bytes") == 0)
            have_bytes = kb_parse_size(v, &bytes) == 0 ? 1 : -1;
        else if (strcmp(name, "--min-bytes") == 0)
            have_lo = kb_parse_size(v, &lo) == 0 ? 1 : -1;
        else if (strcmp(name, "--max-bytes") == 0)
            have_hi = kb_parse_size(v, &hi) == 0 ? 1 : -1;
        else if (strcmp(name, "--iters") == 0) {
            if (kb_parse_long(v, 1, &o->iters) != 0) {
                snprintf(err, errlen, "--iters wants a number >= 1, not '%s'", v);
                return KB_PARSE_BAD;
            }
        } else if (strcmp(name, "--warmup") == 0) {
            if (kb_parse_long(v, 0, &o->warmup) != 0) {
                snprintf(err, errlen, "--warmup wants a number >= 0, not '%s'", v);
                return KB_PARSE_BAD;
            }
        } else if (strcmp(name, "--json") == 0)
            o->json = v;
        else if (strcmp(name, "--kernel") == 0)
            o->kernels.kernel = v;
        else if (strcmp(name, "--size") == 0)
            o->kernels.sizes = v;
        else if (strcmp(name, "--trials") == 0) {
            long t;
            if (kb_parse_long(v, 1, &t) != 0 || t > 101) {
                snprintf(err, errlen, "--trials wants a number 1..101, not '%s'", v);
                return KB_PARSE_BAD;
            }
            o->kernels.trials = (int)t;
        }
        else if (strcmp(name, "--plot") == 0)
            o->plot = v;
        else if (strcmp(name, "--buffers") == 0) {
            if (strcmp(v, "heap") != 0 && strcmp(v, "private") != 0) {
                snprintf(err, errlen, "--buffers wants heap or private, not '%s'", v);
                return KB_PARSE_BAD;
            }
            o->heap_bufs = strcmp(v, "heap") == 0;
        }
        else {
            snprintf(err, errlen, "unknown option '%s'", name);
            return KB_PARSE_BAD;
        }
        if (have_bytes < 0 || have_lo < 0 || have_hi < 0) {
            snprintf(err, errlen, "%s wants a size such as 8, 64k or 1m (at most 1t), not '%s'",
                     name, v);
            return KB_PARSE_BAD;
        }
    }
    if (!have_op) {
        snprintf(err, errlen, "no OP given");
        return KB_PARSE_BAD;
    }
    int is_kernels = o->op != NULL && o->op->kind == KB_KERNELS;
    if (!is_kernels && (o->kernels.kernel || o->kernels.sizes || o->kernels.trials ||
                        o->kernels.no_verify)) {
        snprintf(err, errlen, "--kernel, --size, --trials and --no-verify are for the kernels op");
        return KB_PARSE_BAD;
    }
    if (is_kernels && kb_kernels_check(&o->kernels, err, errlen) != 0)
        return KB_PARSE_BAD;
    if (have_bytes && (have_lo || have_hi)) {
        snprintf(err, errlen, "--bytes and --min-bytes/--max-bytes exclude each other");
        return KB_PARSE_BAD;
    }
    if (have_lo != have_hi) {
        snprintf(err, errlen, "--min-bytes and --max-bytes go together");
        return KB_PARSE_BAD;
    }
    if (have_lo && lo > hi) {
        snprintf(err, errlen, "--min-bytes %zu is above --max-bytes %zu", lo, hi);
        return KB_PARSE_BAD;
    }
    if (have_bytes)
        o->sizes[o->nsizes++] = bytes;
    /* A, then the powers of two above A, up to B (0 is followed by 1) */
    for (size_t s = lo; have_lo && s <= hi && o->nsizes < KB_MAX_SIZES;) {
        o->sizes[o->nsizes++] = s;
        size_t p = 1;
        while (p <= s)
            p <<= 1;
        s = p;
    }
    return KB_PARSE_OK;
}

/* ---------------------------------------------------------------- running */

struct kb_rows {
    struct kb_row *v;
    int            n, cap;
};

static void kb_rows_add(struct kb_rows *rs, const struct kb_row *r)
{
    if (rs->n == rs->cap) {
        struct kb_row *v = kb_xmalloc("output", 2 * ((size_t)rs->cap + 16) * sizeof *v);
        if (rs->n > 0)
            memcpy(v, rs->v, (size_t)rs->n * sizeof *v);
        free(rs->v);
        rs->v   = v;
        rs->cap = 2 * (rs->cap + 16);
    }
    rs->v[rs->n++] = *r;
}

/* Full count up to 64 KiB, then proportionally fewer (at least 10, or
 * `base` if that is smaller): large sizes take long enough per iteration. */
static long kb_iters_for(long base, size_t bytes)
{
    double scaled;

    if (bytes <= KB_ITER_FULL_BYTES)
        return base;
    scaled = (double)base * KB_ITER_FULL_BYTES / (double)bytes;
    if (scaled < 10)
        scaled = 10;
    return scaled < (double)base ? (long)scaled : base;
}

/* Every PE puts its sample into its slot on PE 0; after the barrier PE 0
 * turns them into a row: mean/min/max over the PEs that ran the loop. */
static void kb_collect(const struct kb_run *run, const struct kb_sample *mine,
                       const struct kb_limit *lim, double oneway_us, struct kb_row *row)
{
    double sum = 0, lo = INFINITY, hi = 0, ssum = 0, flt = 0;
    int    cnt = 0, scnt = 0, rc;

    if ((rc = kumi_put(&kb.samples[kb.me], mine, sizeof *mine, 0)) != KUMI_OK)
        kb_die(run->op->name, "kumi_put", rc);
    kb_barrier(run->op->name);
    if (kb.me != 0)
        return;
    for (int p = 0; p < kb.n; p++) {
        const struct kb_sample *s = &kb.samples[p];
        flt += s->minflt;
        if (s->ran == 0)
            continue;
        cnt++;
        sum += s->us;
        lo = s->us < lo ? s->us : lo;
        hi = s->us > hi ? s->us : hi;
        if (s->stream_us > 0) {
            scnt++;
            ssum += s->stream_us;
        }
    }
    *row = (struct kb_row){
        .op = run->op->name, .bytes = run->bytes, .iters = run->iters,
        .avg_us = cnt ? sum / cnt : NAN, .min_us = cnt ? lo : NAN, .max_us = cnt ? hi : NAN,
        .msgs_per_s = NAN, .mb_per_s = NAN, .minflt = flt,
    };
    if (run->op->kind == KB_BW)   /* bytes per microsecond is MB/s */
        row->mb_per_s = (double)run->bytes / (scnt ? ssum / scnt : row->avg_us);
    else if (run->op->kind == KB_RATE) {
        /* the pair moves no faster than its slower side (the consumer) */
        row->msgs_per_s = 1e6 / row->max_us;
        row->mb_per_s   = (double)run->bytes / row->max_us;
    }
    row->ratio    = kb_limit_ratio(lim, run->op, row, oneway_us);
    row->limit_us = !isnan(oneway_us) ? oneway_us : lim->oneway.iters > 0 ? lim->oneway.best_us
                                                                           : NAN;
}

/* One row. A latency row on shm is run in up to KB_PAIR_BLOCKS blocks of
 * its iterations between one-way measurements (L0 B0 L1 B1 ... Bk-1 Lk):
 * block b is set against the better of Lb and Lb+1, and the row's x_limit
 * is the median of the blocks' ratios, its limit_us the median of their
 * one-way figures. On a VM whose line latency changes level within
 * seconds, each block and its limit then ran under the same level (one
 * block and one limit: what the pairing of farm-style A/B runs does for
 * whole processes). avg_us stays the mean over all iterations. Not when
 * the PEs outnumber the cores: the one-way figure is then no floor, and
 * each block's start (its PEs coming back from the others' barrier) would
 * weigh on the row. Returns the op's status (KUMI_ERR_UNSUPPORTED: not
 * run). */
static int kb_run_paired(const struct kb_run *run, const struct kb_limit *lim, int cores,
                         struct kb_sample *mine, struct kb_row *row)
{
    const struct kb_op *op     = run->op;
    const int           window = op->kind == KB_LAT
                                 || (op->kind == KB_BW && run->bytes <= KB_LAT_MAX_BYTES);
    const int           paired = window && lim->path == KB_PATH_SHM && kb.n >= 2
                                 && kb.n <= cores;
    long                nb     = paired ? run->iters / KB_PAIR_MIN_ITERS : 1;
    double              ratio[KB_PAIR_BLOCKS], oneway[KB_PAIR_BLOCKS];
    double              before = window ? kb_limit_oneway_now(lim) : NAN;

    nb = nb < 1 ? 1 : nb > KB_PAIR_BLOCKS ? KB_PAIR_BLOCKS : nb;
    *mine = (struct kb_sample){ 0 };
    for (long b = 0; b < nb; b++) {
        struct kb_run    blk = *run;
        struct kb_sample s   = { 0 };
        struct kb_row    r;

        blk.iters  = run->iters / nb + (b == nb - 1 ? run->iters % nb : 0);
        blk.warmup = b == 0 ? run->warmup : run->warmup / nb;
        kb.minflt  = 0;
        if (op->fn(&blk, &s) == KUMI_ERR_UNSUPPORTED)
            return KUMI_ERR_UNSUPPORTED;
        s.minflt = (double)kb.minflt;
        double after = window ? kb_limit_oneway_now(lim) : NAN;
        double lim_b = isnan(before) || after < before ? after : before;
        mine->us += s.us * (double)blk.iters / (double)run->iters;
        mine->stream_us += s.stream_us * (double)blk.iters / (double)run->iters;
        mine->ran = s.ran;
        mine->minflt += s.minflt;
        if (nb > 1) {
            kb_collect(&blk, &s, lim, lim_b, &r);
            ratio[b]  = r.ratio;
            oneway[b] = r.limit_us;
        } else {
            oneway[b] = lim_b;
        }
        before = after;
    }
    kb_collect(run, mine, lim, oneway[0], row);
    if (kb.me == 0 && nb > 1) {
        row->ratio    = kb_median(ratio, (int)nb);
        row->limit_us = kb_median(oneway, (int)nb);
        row->blocks   = (int)nb;
    }
    return KUMI_OK;
}

/* One op over its sizes. Returns 0, or 1 if the runtime lacks it. */
static int kb_run_op(const struct kb_op *op, const struct kb_opts *o, int tour,
                     const struct kb_limit *lim, const struct kb_out *out, struct kb_rows *rows)
{
    static const size_t sweep[] = { 8, 64 * 1024 };
    const size_t       *sizes   = o->sizes;
    size_t              fixed[1] = { op->fixed_bytes };
    int                 n       = o->nsizes;
    long                base    = o->iters ? o->iters : tour ? KB_TOUR_ITERS : KB_DEFAULT_ITERS;

    if (op->kind == KB_LAT) {
        sizes = fixed;
        n     = 1;
    } else if (n == 0) {
        sizes = sweep;
        n     = tour || op->sweep_default ? 2 : 1;
    }
    if (kb.n < op->min_pes) {
        if (kb.me == 0)
            kb_out_note(out, "op %s: needs at least %d PEs", op->name, op->min_pes);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        struct kb_run    run = { .op = op, .bytes = sizes[i] };
        struct kb_sample mine = { 0 };
        struct kb_row    row;

        run.iters  = kb_iters_for(base, run.bytes);
        run.warmup = o->warmup >= 0 ? o->warmup : run.iters / 10;
        if (kb.me == 0 && !tour && n >= 2)     /* a sweep; a terminal only */
            kb_progress("%s %zu bytes (%d/%d)", op->name, run.bytes, i + 1, n);
        if (kb_run_paired(&run, lim, out->cores, &mine, &row) == KUMI_ERR_UNSUPPORTED) {
            if (kb.me == 0)
                kb_out_note(out, "op %s: not available (KUMI_ERR_UNSUPPORTED)", op->name);
            return 1;
        }
        if (kb.me == 0) {
            kb_out_row(out, &row, op->kind, tour);
            kb_rows_add(rows, &row);
        }
    }
    return 0;
}

/* The end of a run, every op: close the JSON file, free the bench's
 * buffers, finalize; ret unless finalize fails. */
static int kb_finish(struct kb_out *out, void *rows, int ret)
{
    if (out->json != NULL && out->json != stdout)
        fclose(out->json);
    free(rows);
    kumi_free(kb.scratch);
    kumi_free(kb.agree);
    kumi_free(kb.samples);
    int rc = kumi_finalize();
    if (rc != KUMI_OK) {
        fprintf(stderr, "kumi-bench[%d]: kumi_finalize failed: %s\n", kb.me, kumi_strerror(rc));
        return 1;
    }
    return ret;
}

int main(int argc, char **argv)
{
    struct kb_opts  o;
    struct kb_limit lim;
    struct kb_out   out = { 0 };
    struct kb_rows  rows = { 0 };
    char            err[256] = "";
    int             parsed = kb_parse(argc, argv, &o, err, sizeof err), rc, tour;

    /* the runtime reads its configuration at init */
    if (parsed == KB_PARSE_OK && o.op != NULL && strcmp(o.op->name, "alltoall-naive") == 0)
        setenv("KUMI_ALLTOALL", "naive", 1);
    if ((rc = kumi_init()) != KUMI_OK) {
        fprintf(stderr, "kumi-bench: kumi_init failed: %s\n", kumi_strerror(rc));
        return 1;
    }
    kb.me    = kumi_rank();
    kb.n     = kumi_size();
    kb.world = kumi_team_world();
    kb.heap_bufs = parsed == KB_PARSE_OK && o.heap_bufs;
    /* usage is checked before kumi_init but printed after, by PE 0 alone */
    if (parsed != KB_PARSE_OK) {
        if (kb.me == 0 && parsed == KB_PARSE_BAD)
            fprintf(stderr, "kumi-bench: %s\n", err);
        if (kb.me == 0 && parsed == KB_PARSE_LIST)
            for (int k = 0; k < KB_NOPS; k++)
                printf("%s\n", kb_ops[k].name);
        else if (kb.me == 0 && parsed == KB_PARSE_VERSION)
            printf("kumi-bench (kumi) %d.%d.%d\n", KUMI_VERSION_MAJOR, KUMI_VERSION_MINOR,
                   KUMI_VERSION_PATCH);
        else if (kb.me == 0)
            kb_usage(parsed == KB_PARSE_HELP ? stdout : stderr);
        kumi_finalize();
        return parsed == KB_PARSE_BAD ? 2 : 0;
    }
    tour = o.op == NULL;
    if (!tour && kb.n < o.op->min_pes) {
        if (kb.me == 0)
            fprintf(stderr, "kumi-bench: %s needs at least %d PEs (kumirun -n %d ...)\n",
                    o.op->name, o.op->min_pes, o.op->min_pes);
        kumi_finalize();
        return 2;
    }
    if (kb.me == 0 && !tour && o.nsizes > 0 && o.op->kind != KB_BW && o.op->kind != KB_RATE)
        fprintf(stderr, "kumi-bench: %s has no size; --bytes/--min-bytes/--max-bytes ignored\n",
                o.op->name);

    kb.samples = kumi_calloc((size_t)kb.n, sizeof *kb.samples);
    kb.agree   = kumi_calloc((size_t)kb.n, sizeof *kb.agree);
    kb.scratch = kumi_align(64, 4 * 64);
    if (kb.samples == NULL || kb.agree == NULL || kb.scratch == NULL)
        kb_die("setup", "kumi_malloc", KUMI_ERR_NOMEM);

    /* Output on PE 0. A JSON file that cannot be opened must stop every PE,
     * so its fate is agreed like an unsupported op. */
    out.pes       = kb.n;
    out.transport = kumi_transport_name();
    out.cores     = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (out.cores < 1)
        out.cores = kb.n;
    out.text      = o.json != NULL && strcmp(o.json, "-") == 0 ? stderr : stdout;
    rc = KUMI_OK;
    if (kb.me == 0 && o.json != NULL) {
        out.json = strcmp(o.json, "-") == 0 ? stdout : fopen(o.json, "w");
        if (out.json == NULL) {
            fprintf(stderr, "kumi-bench: --json: cannot write %s: %s\n", o.json, strerror(errno));
            rc = KUMI_ERR_UNSUPPORTED;
        }
    }
    if (kb_agree("setup", "fopen", rc) != KUMI_OK) {
        kumi_finalize();
        return 1;
    }

    /* The limit every ratio is taken against: quick (well under 0.5 s)
     * for the ops, the full version when it is the op. */
    if (!tour && o.op->kind == KB_KERNELS) {   /* its own table, no limits to compare with */
        int bad = kb_kernels_run(&o.kernels, o.iters, &out);
        return kb_finish(&out, NULL, bad);
    }
    kb_limit_measure(&lim, !tour && o.op->kind == KB_LIMIT,
                     o.iters ? o.iters : KB_DEFAULT_ITERS);

    if (kb.me == 0 && (tour || o.op->kind != KB_DSM))   /* the dsm ops print their own */
        kb_out_header(&out, tour ? "all" : o.op->name, &lim, tour ? KB_BW : o.op->kind,
                      tour ? KB_REF_PIPELINE : o.op->bwref, tour);
    if (tour || o.op->kind == KB_LIMIT) {
        struct kb_row lr[KB_LIMIT_ROWS];
        int           nl = kb_limit_rows(&lim, lr);
        for (int i = 0; kb.me == 0 && i < nl; i++)
            kb_out_row(&out, &lr[i], KB_LIMIT, tour);
        if (kb.me == 0 && lim.path == KB_PATH_NONE)
            kb_out_note(&out, "limit: one-way and pipeline need %s",
                        kb.n < 2 ? "2 PEs" : "mapped peers or a loopback socket between PEs 0 and 1");
    }
    if (tour) {
        int ntour = 0, at = 0;
        for (int k = 0; k < KB_NOPS; k++)
            ntour += kb_ops[k].in_tour != 0;
        for (int k = 0; k < KB_NOPS; k++)
            if (kb_ops[k].in_tour) {
                if (kb.me == 0)
                    kb_progress("all: [%d/%d] %s", ++at, ntour, kb_ops[k].name);
                kb_run_op(&kb_ops[k], &o, 1, &lim, &out, &rows);
            }
        if (kb.me == 0)
            kb_progress_end();
        if (kb.me == 0)
            kb_out_note(&out, "alltoall-naive: run it on its own (KUMI_ALLTOALL is read at "
                        "kumi_init)");
    } else if (o.op->kind == KB_DSM) {
        kb_dsm_run(o.op, o.iters, o.warmup, &lim, &out);
    } else if (o.op->kind != KB_LIMIT) {
        kb_run_op(o.op, &o, 0, &lim, &out, &rows);
    }

    if (kb.me == 0 && o.plot != NULL) {
        char title[128];
        snprintf(title, sizeof title, "kumi-bench %s: %d PEs, transport %s",
                 tour ? "all" : o.op->name, kb.n, out.transport);
        kb_plot(o.plot, title, rows.v, rows.n, &lim);
    }
    return kb_finish(&out, rows.v, 0);
}
