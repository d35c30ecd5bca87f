/*
 * kumi_bench_kernels.c -- the `kernels` op of kumi-bench: the SPLASH-2-
 * style DSM kernels of bench/dsm, plain C compiled by kumicc
 * twice: translated (kk_NAME_x, the DSM checks in) and plain (kk_NAME_p,
 * KUMI_TRANSLATE=0, the same source without checks). This file is not
 * translated; it calls the kernels and reports:
 *
 *   seconds_x  the translated kernel's timed section, max over PEs (the
 *              slowest PE ends the parallel section), median of the trials
 *   seconds_p  the same of the plain version, 1 PE only (untranslated code
 *              is not coherent across PEs), trials interleaved with _x
 *   overhead   seconds_x / seconds_p (1 PE), and their geometric mean
 *   misses     read misses, write misses and upgrades per PE over the
 *              timed section (kumi_dsm_stats deltas, kk_timer_start/stop;
 *              over the whole call when a kernel does not use them), mean
 *              over the trials, then mean and max over the PEs
 *   msgs       DSM protocol messages sent and received per PE, the same way
 *
 * Which kernels exist comes from the build: bench/dsm/kernels.cmake writes
 * kk_list.h (KK_LIST: one KK_KERNEL(name) per bench/dsm/NAME.c compiled)
 * and defines KUMI_BENCH_KERNELS; without the translator there is none and
 * the op says so.
 */
#include "kumi_bench.h"

#include "dsm/kernel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef KUMI_BENCH_KERNELS
#include "kk_list.h"
#else
#define KK_LIST
#endif

/* Default problem sizes: one translated run takes about 0.1-0.5 s at 1 PE
 * on the 2-vCPU VM (bench/README.md). n's meaning is the kernel's. */
static const struct kk_default {
    const char *name;
    long        n, iters;
    const char *size;   /* what n is */
} kk_defaults[] = {
    { "matmul",    512,     1,  "n x n doubles, C = A * B" },
    { "lu",        768,     1,  "n x n doubles, 32 x 32 blocks" },
    { "sor",       1024,    40, "n x n interior points, iters red-black sweeps" },
    { "radix",     1 << 22, 1,  "n 32-bit keys, iters sorts" },
    { "histogram", 1 << 24, 1,  "n samples, iters passes" },
    { "fft",       1 << 20, 1,  "n = 4^k complex points, six-step" },
};
#define KK_NDEFAULTS ((int)(sizeof kk_defaults / sizeof kk_defaults[0]))

#define KK_KERNEL(name) kk_fn kk_##name##_x, kk_##name##_p;
KK_LIST
#undef KK_KERNEL

struct kk_entry {
    const char *name;
    kk_fn      *x, *p;
};
static const struct kk_entry kk_present[] = {
#define KK_KERNEL(name) { #name, kk_##name##_x, kk_##name##_p },
    KK_LIST
#undef KK_KERNEL
    { NULL, NULL, NULL }
};
#define KK_NPRESENT ((int)(sizeof kk_present / sizeof kk_present[0]) - 1)

#define KK_MAX_TRIALS 101

/* what one PE reports of one call, put into its slot on PE 0 */
struct kk_slot {
    double          seconds, checksum;
    int32_t         rc, ok, has_st, pad_;
    struct kk_stats st;
    char            why[192];
};

/* one kernel's row (PE 0) */
struct kk_row {
    const char *name;
    long        n, iters;
    int         trials, ok, timed_st;
    double      sec_x, sec_p, overhead;
    double      rd, wr, up, sent, recv;             /* mean over PEs, per PE   */
    double      rd_max, wr_max, up_max, sent_max, recv_max;
    double      checksum;
};

static struct kk_slot *kk_slots;   /* symmetric: one per PE, read on PE 0 */

int kb_kernels_available(void)
{
    return KK_NPRESENT;
}

static const struct kk_default *kk_default_of(const char *name)
{
    for (int i = 0; i < KK_NDEFAULTS; i++)
        if (strcmp(kk_defaults[i].name, name) == 0)
            return &kk_defaults[i];
    return NULL;
}

static void kk_stats_now(struct kk_stats *s)
{
    kumi_dsm_stats_t d;
    int              rc = kumi_dsm_stats(&d);

    if (rc != KUMI_OK)
        kb_die("kernels", "kumi_dsm_stats", rc);
    s->read_misses   = d.read_misses;
    s->write_misses  = d.write_misses;
    s->upgrades      = d.upgrades;
    s->msgs_sent     = d.msgs_sent;
    s->msgs_received = d.msgs_received;
}

/* One call of fn on every PE; PE 0 gets every PE's slot in all[]. */
static void kk_call(kk_fn *fn, const struct kk_params *prm, struct kk_slot *all)
{
    struct kk_result r;
    struct kk_slot   mine;
    struct kk_stats  a, b;
    int              rc;

    memset(&r, 0, sizeof r);
    memset(&mine, 0, sizeof mine);
    kk_stats_now(&a);
    mine.rc = fn(prm, &r);
    kk_stats_now(&b);
    mine.seconds  = r.seconds;
    mine.checksum = r.checksum;
    mine.ok       = r.ok;
    mine.has_st   = r.has_st;
    if (r.has_st)
        mine.st = r.st;
    else {   /* the whole call: set-up and verification included */
        mine.st.read_misses   = b.read_misses - a.read_misses;
        mine.st.write_misses  = b.write_misses - a.write_misses;
        mine.st.upgrades      = b.upgrades - a.upgrades;
        mine.st.msgs_sent     = b.msgs_sent - a.msgs_sent;
        mine.st.msgs_received = b.msgs_received - a.msgs_received;
    }
    memcpy(mine.why, r.why, sizeof mine.why);
    mine.why[sizeof mine.why - 1] = '\0';
    if ((rc = kumi_put(&kk_slots[kb.me], &mine, sizeof mine, 0)) != KUMI_OK)
        kb_die("kernels", "kumi_put", rc);
    kb_barrier("kernels");
    if (kb.me == 0)
        memcpy(all, kk_slots, (size_t)kb.n * sizeof *all);
    kb_barrier("kernels");   /* the slots are free again */
}

/* Checks one call's slots (PE 0). Returns 0, or 1 after printing why. */
static int kk_check_call(const char *name, const char *ver, const struct kk_slot *all)
{
    for (int q = 0; q < kb.n; q++)
        if (all[q].rc != 0) {
            fprintf(stderr, "kumi-bench[%d]: kernels: %s (%s): set-up failed: %s\n", q, name, ver,
                    all[q].why[0] ? all[q].why : "(no reason given)");
            return 1;
        } else if (!all[q].ok) {
            fprintf(stderr, "kumi-bench[%d]: kernels: %s (%s): VERIFICATION FAILED: %s\n", q,
                    name, ver, all[q].why[0] ? all[q].why : "(no reason given)");
            return 1;
        }
    return 0;
}

/* Runs one kernel (every PE); fills row on PE 0. Returns 0, or 1 if a call
 * failed (set-up or verification), on every PE. */
static int kk_run_one(const struct kk_entry *k, long n, long iters, int trials, int verify,
                      struct kk_row *row)
{
    struct kk_slot *all = kb_xmalloc("kernels", (size_t)kb.n * sizeof *all);
    double          tx[KK_MAX_TRIALS], tp[KK_MAX_TRIALS];
    double         *acc = kb_xmalloc("kernels", (size_t)kb.n * 5 * sizeof *acc);
    int64_t         fail = 0;
    int             plain = kb.n == 1;

    memset(acc, 0, (size_t)kb.n * 5 * sizeof *acc);
    memset(row, 0, sizeof *row);
    row->name = k->name;
    row->n = n;
    row->iters = iters;
    row->trials = trials;
    row->timed_st = 1;
    for (int t = 0; t < trials && !fail; t++) {
        /* the sequential check once per version: it costs more than a run */
        struct kk_params prm = { .n = n, .iters = iters, .seed = 12345, .verify = verify && t == 0 };

        kk_call(k->x, &prm, all);
        if (kb.me == 0) {
            fail = kk_check_call(k->name, "translated", all);
            tx[t] = 0;
            for (int q = 0; q < kb.n; q++) {
                const struct kk_stats *s = &all[q].st;
                tx[t] = all[q].seconds > tx[t] ? all[q].seconds : tx[t];
                acc[q * 5 + 0] += (double)s->read_misses;
                acc[q * 5 + 1] += (double)s->write_misses;
                acc[q * 5 + 2] += (double)s->upgrades;
                acc[q * 5 + 3] += (double)s->msgs_sent;
                acc[q * 5 + 4] += (double)s->msgs_received;
                row->timed_st &= all[q].has_st != 0;
            }
            row->checksum = all[0].checksum;
            if (getenv("KUMI_BENCH_VERBOSE") != NULL)   /* each PE's time, each trial */
                for (int q = 0; q < kb.n; q++)
                    fprintf(stderr, "# %s trial %d PE %d: %.4f s, %llu read misses, %llu msgs\n",
                            k->name, t, q, all[q].seconds, all[q].st.read_misses,
                            all[q].st.msgs_sent);
        }
        if (plain && !fail) {
            kk_call(k->p, &prm, all);
            fail = kk_check_call(k->name, "plain", all);
            tp[t] = all[0].seconds;
            if (!fail && all[0].checksum != row->checksum) {
                fprintf(stderr, "kumi-bench[0]: kernels: %s: checksum %.17g (translated) != "
                        "%.17g (plain)\n", k->name, row->checksum, all[0].checksum);
                fail = 1;
            }
        }
        /* every PE learns whether to go on */
        int rc = kumi_broadcast(kb.world, &fail, sizeof fail, 0);
        if (rc != KUMI_OK)
            kb_die("kernels", "kumi_broadcast", rc);
    }
    if (kb.me == 0 && !fail) {
        row->ok    = 1;
        row->sec_x = kb_median(tx, trials);
        row->sec_p = plain ? kb_median(tp, trials) : NAN;
        row->overhead = plain ? row->sec_x / row->sec_p : NAN;
        double *m[5] = { &row->rd, &row->wr, &row->up, &row->sent, &row->recv };
        double *x[5] = { &row->rd_max, &row->wr_max, &row->up_max, &row->sent_max,
                         &row->recv_max };
        for (int c = 0; c < 5; c++) {
            for (int q = 0; q < kb.n; q++) {
                double v = acc[q * 5 + c] / trials;
                *m[c] += v / kb.n;
                *x[c] = v > *x[c] ? v : *x[c];
            }
        }
    }
    free(acc);
    free(all);
    return fail != 0;
}

static const char *kk_num(char *buf, size_t len, double x, int prec)
{
    if (isnan(x) || isinf(x))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.*f", prec, x);
    return buf;
}

/* "mean(max)" of a per-PE figure; whole numbers when they are */
static const char *kk_mm(char *buf, size_t len, double mean, double max)
{
    snprintf(buf, len, "%.0f(%.0f)", mean, max);
    return buf;
}

static void kk_json_num(FILE *f, const char *key, double x)
{
    if (isnan(x) || isinf(x))
        fprintf(f, ",\"%s\":null", key);
    else
        fprintf(f, ",\"%s\":%.6g", key, x);
}

static void kk_print(const struct kb_out *o, const struct kk_row *r)
{
    char a[32], b[32], c[32], d[48], e[48], f[48], g[48], h[48];

    fprintf(o->text, "  %-10s %7ld %6ld %10s %10s %8s %14s %14s %12s %16s %16s %s\n", r->name,
            r->n, r->iters, kk_num(a, sizeof a, r->sec_x, 6), kk_num(b, sizeof b, r->sec_p, 6),
            kk_num(c, sizeof c, r->overhead, 3), kk_mm(d, sizeof d, r->rd, r->rd_max),
            kk_mm(e, sizeof e, r->wr, r->wr_max), kk_mm(f, sizeof f, r->up, r->up_max),
            kk_mm(g, sizeof g, r->sent, r->sent_max), kk_mm(h, sizeof h, r->recv, r->recv_max),
            r->ok ? "ok" : "FAIL");
    fflush(o->text);
    if (o->json == NULL)
        return;
    fprintf(o->json, "{\"impl\":\"kumi\",\"op\":\"kernels\",\"kernel\":\"%s\",\"pes\":%d,"
            "\"transport\":\"%s\",\"n\":%ld,\"iters\":%ld,\"trials\":%d", r->name, o->pes,
            o->transport, r->n, r->iters, r->trials);
    kk_json_num(o->json, "seconds_x", r->sec_x);
    kk_json_num(o->json, "seconds_p", r->sec_p);
    kk_json_num(o->json, "overhead", r->overhead);
    kk_json_num(o->json, "read_misses", r->rd);
    kk_json_num(o->json, "write_misses", r->wr);
    kk_json_num(o->json, "upgrades", r->up);
    kk_json_num(o->json, "msgs_per_pe", r->sent);
    kk_json_num(o->json, "msgs_recv_per_pe", r->recv);
    kk_json_num(o->json, "read_misses_max", r->rd_max);
    kk_json_num(o->json, "write_misses_max", r->wr_max);
    kk_json_num(o->json, "upgrades_max", r->up_max);
    kk_json_num(o->json, "msgs_per_pe_max", r->sent_max);
    kk_json_num(o->json, "msgs_recv_per_pe_max", r->recv_max);
    kk_json_num(o->json, "checksum", r->checksum);
    fprintf(o->json, ",\"stats\":\"%s\",\"ok\":%s}\n", r->timed_st ? "timed" : "call",
            r->ok ? "true" : "false");
    fflush(o->json);
}

/* NAME=N[,NAME=N...] or N (every kernel): the size of kernel name, 0 if
 * none given. -1: malformed (checked by kb_kernels_check). */
static long kk_size_for(const char *spec, const char *name)
{
    const char *s = spec;

    while (s != NULL && *s) {
        const char *comma = strchr(s, ',');
        size_t      len   = comma ? (size_t)(comma - s) : strlen(s);
        const char *eq    = memchr(s, '=', len);
        char       *end;
        long        v;

        if (eq == NULL || ((size_t)(eq - s) == strlen(name) && strncmp(s, name, strlen(name)) == 0)) {
            const char *num = eq ? eq + 1 : s;
            v = strtol(num, &end, 10);
            if (end != s + len || end == num || v < 1)
                return -1;
            return v;
        }
        s = comma ? comma + 1 : NULL;
    }
    return 0;
}

int kb_kernels_check(const struct kb_kernels_opts *ko, char *err, size_t errlen)
{
    if (ko->kernel != NULL && strcmp(ko->kernel, "all") != 0 && kk_default_of(ko->kernel) == NULL) {
        snprintf(err, errlen, "--kernel: unknown kernel '%s' (matmul lu sor radix histogram fft "
                 "or all)", ko->kernel);
        return -1;
    }
    if (ko->sizes != NULL) {
        const char *s = ko->sizes;
        while (s && *s) {
            const char *comma = strchr(s, ',');
            size_t      len   = comma ? (size_t)(comma - s) : strlen(s);
            const char *eq    = memchr(s, '=', len);
            char        name[32];
            if (eq != NULL) {
                snprintf(name, sizeof name, "%.*s", (int)(eq - s) < 31 ? (int)(eq - s) : 31, s);
                if (kk_default_of(name) == NULL) {
                    snprintf(err, errlen, "--size: unknown kernel '%s'", name);
                    return -1;
                }
            } else
                snprintf(name, sizeof name, "matmul");
            if (kk_size_for(s, name) < 1) {
                snprintf(err, errlen, "--size wants N or NAME=N[,NAME=N...] (N >= 1), not '%s'",
                         ko->sizes);
                return -1;
            }
            s = comma ? comma + 1 : NULL;
        }
    }
    if (ko->trials < 0 || ko->trials > KK_MAX_TRIALS) {
        snprintf(err, errlen, "--trials wants 1..%d", KK_MAX_TRIALS);
        return -1;
    }
    return 0;
}

int kb_kernels_run(const struct kb_kernels_opts *ko, long iters, const struct kb_out *out)
{
    int    trials = ko->trials > 0 ? ko->trials : 3, nrun = 0, failed = 0, ngeo = 0;
    double lgeo = 0;

    if (KK_NPRESENT == 0) {
        if (kb.me == 0)
            kb_out_note(out, "kernels: none built (bench/dsm kernels need kumi-translate, i.e. "
                        "LLVM 14's llvm-config-14, at configure time)");
        return 0;
    }
    kk_slots = kumi_calloc((size_t)kb.n, sizeof *kk_slots);
    if (kk_slots == NULL)
        kb_die("kernels", "kumi_calloc", KUMI_ERR_NOMEM);
    if (kb.me == 0) {
        fprintf(out->text, "# kumi-bench kernels: %d PEs, transport %s\n", out->pes,
                out->transport);
        if (out->pes > out->cores)
            kb_out_note(out, "%d PEs on %d cores: PEs take turns on a core (time-slicing)",
                        out->pes, out->cores);
        kb_out_note(out, "seconds_x: translated (kumicc), the timed section's max over PEs, "
                    "median of %d trials%s", trials,
                    kb.n == 1 ? "; seconds_p: the same source by plain clang-14 (KUMI_TRANSLATE=0), "
                                "trials interleaved; overhead = seconds_x / seconds_p" : "");
        kb_out_note(out, "per PE over the timed section, mean over trials: mean(max) over PEs of "
                    "DSM read misses, write misses, upgrades, protocol messages sent and "
                    "received");
        kb_out_note(out, "verification: PE 0 against a sequential run, first trial of each "
                    "version%s", ko->no_verify ? " (off: --no-verify)" : "");
        for (int i = 0; i < KK_NPRESENT; i++) {
            const struct kk_default *d = kk_default_of(kk_present[i].name);
            if (d != NULL && (ko->kernel == NULL || strcmp(ko->kernel, "all") == 0 ||
                              strcmp(ko->kernel, d->name) == 0))
                kb_out_note(out, "%s: %s (default n %ld, iters %ld)", d->name, d->size, d->n,
                            d->iters);
        }
        fprintf(out->text, "# %-10s %7s %6s %10s %10s %8s %14s %14s %12s %16s %16s %s\n",
                "kernel", "n", "iters", "seconds_x", "seconds_p", "overhead", "read_misses",
                "write_misses", "upgrades", "msgs_sent", "msgs_recv", "ok");
        fflush(out->text);
    }
    for (int i = 0; i < KK_NPRESENT; i++) {
        const struct kk_entry   *k = &kk_present[i];
        const struct kk_default *d = kk_default_of(k->name);
        struct kk_row            row;
        long                     n = 0;

        if (ko->kernel != NULL && strcmp(ko->kernel, "all") != 0 && strcmp(ko->kernel, k->name) != 0)
            continue;
        if (ko->sizes != NULL)
            n = kk_size_for(ko->sizes, k->name);
        if (n <= 0)
            n = d ? d->n : 1024;
        nrun++;
        if (kk_run_one(k, n, iters > 0 ? iters : d ? d->iters : 1, trials, !ko->no_verify, &row)) {
            failed++;
            if (kb.me == 0) {
                row.ok = 0;
                row.sec_x = row.sec_p = row.overhead = NAN;
                kk_print(out, &row);
            }
            continue;
        }
        if (kb.me == 0) {
            kk_print(out, &row);
            if (!row.timed_st)
                kb_out_note(out, "%s: misses and messages over the whole call (set-up and "
                            "check included): the kernel does not use kk_timer_start/stop",
                            k->name);
            if (!isnan(row.overhead) && row.overhead > 0) {
                lgeo += log(row.overhead);
                ngeo++;
            }
        }
    }
    if (kb.me == 0 && nrun == 0) {
        char built[256] = "";
        for (int i = 0; i < KK_NPRESENT; i++)
            snprintf(built + strlen(built), sizeof built - strlen(built), " %s",
                     kk_present[i].name);
        kb_out_note(out, "kernels: '%s' is not built here (built:%s)", ko->kernel, built);
    }
    if (kb.me == 0 && ngeo > 0) {
        kb_out_note(out, "geomean overhead (translated / plain, 1 PE) over %d kernel%s: %.3f",
                    ngeo, ngeo > 1 ? "s" : "", exp(lgeo / ngeo));
        if (out->json != NULL) {
            fprintf(out->json, "{\"impl\":\"kumi\",\"op\":\"kernels\",\"kernel\":\"geomean\","
                    "\"pes\":%d,\"transport\":\"%s\",\"kernels\":%d", out->pes, out->transport,
                    ngeo);
            kk_json_num(out->json, "overhead", exp(lgeo / ngeo));
            fprintf(out->json, ",\"ok\":%s}\n", failed ? "false" : "true");
            fflush(out->json);
        }
    }
    kb_barrier("kernels");
    kumi_free(kk_slots);
    kk_slots = NULL;
    return failed || nrun == 0 ? 1 : 0;
}
