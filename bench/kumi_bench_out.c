/*
 * kumi_bench_out.c -- what PE 0 prints: an OSU-style text table, one JSON
 * object per line (the contract with bench/peers and the compare script:
 * see bench/README.md), and a gnuplot picture of a sweep.
 */
#include "kumi_bench.h"

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* "-" for a value not reported, so columns stay aligned and parseable. */
static const char *kb_num(char *buf, size_t len, double x, int prec)
{
    if (isnan(x) || isinf(x))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.*f", prec, x);
    return buf;
}

/* x_limit spans 0.001 (a small ring message against the pipeline) to
 * hundreds (an oversubscribed barrier against one cache line). */
static const char *kb_ratio(char *buf, size_t len, double x)
{
    return kb_num(buf, len, x, fabs(x) < 0.1 ? 4 : fabs(x) < 10 ? 3 : 1);
}

/* ---------------------------------------------------------------- progress */

static int kb_progress_shown;   /* a progress line is on stderr, not ended */

/* One line on stderr saying what runs, rewritten in place; only when stderr
 * is a terminal (a log or a test's capture gets nothing). The next row or
 * note clears it first, so a table on the same terminal stays clean. */
void kb_progress(const char *fmt, ...)
{
    va_list ap;

    if (!isatty(STDERR_FILENO))
        return;
    fputs("\r\033[Kkumi-bench: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
    kb_progress_shown = 1;
}

void kb_progress_end(void)
{
    if (kb_progress_shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        kb_progress_shown = 0;
    }
}

void kb_out_note(const struct kb_out *o, const char *fmt, ...)
{
    va_list ap;

    kb_progress_end();
    fputs("# ", o->text);
    va_start(ap, fmt);
    vfprintf(o->text, fmt, ap);
    va_end(ap);
    fputc('\n', o->text);
}

void kb_out_header(const struct kb_out *o, const char *op, const struct kb_limit *lim,
                   enum kb_kind kind, enum kb_bwref bwref, int tour)
{
    double      copy = kb_stat_mbs(&lim->memcpy), bw = kb_stat_mbs(kb_limit_bw(lim, bwref));
    const char *bwname = kb_limit_bw_name(lim, bwref);
    char        a[32], b[32];

    if (lim->path == KB_PATH_SHM)
        fprintf(o->text, "# kumi-bench %s: %d PEs, transport %s (limit: one-way %s us, "
                "pipeline %s MB/s)\n", op, o->pes, o->transport,
                kb_num(a, sizeof a, lim->oneway.best_us, 3),
                kb_num(b, sizeof b, kb_stat_mbs(&lim->pipeline), 0));
    else if (lim->path == KB_PATH_TCP)
        fprintf(o->text, "# kumi-bench %s: %d PEs, transport %s (limit: tcp one-way %s us, "
                "tcp stream %s MB/s)\n", op, o->pes, o->transport,
                kb_num(a, sizeof a, lim->oneway.best_us, 3),
                kb_num(b, sizeof b, kb_stat_mbs(&lim->stream), 0));
    else
        fprintf(o->text, "# kumi-bench %s: %d PEs, transport %s (limit: %s)\n", op, o->pes,
                o->transport, o->pes < 2 ? "one-way and pipeline need 2 PEs"
                                         : "needs mapped peers or a loopback socket");

    if (o->pes > o->cores)
        kb_out_note(o, "%d PEs on %d cores: PEs take turns on a core, so latencies and limits "
                    "include time-slicing", o->pes, o->cores);
    if (tour || kind == KB_LIMIT) {
        kb_out_note(o, "limit-*: the hardware, no runtime (avg_us/min_us/max_us: mean/best/worst "
                    "trial per unit; the best is the limit); memcpy %s MB/s",
                    kb_num(a, sizeof a, copy, 0));
        if (lim->path == KB_PATH_TCP)
            kb_out_note(o, "limit-oneway, limit-stream: one loopback TCP socket between PEs 0 "
                        "and 1 (8 bytes, half a round trip; 1 MiB messages streamed)");
        if (tour && lim->path == KB_PATH_TCP)
            kb_out_note(o, "x_limit: avg_us / tcp one-way latency up to %d bytes; above, "
                        "mb_per_s / tcp stream MB/s", KB_LAT_MAX_BYTES);
        else if (tour)
            kb_out_note(o, "x_limit: avg_us / one-way latency up to %d bytes; above, mb_per_s / "
                        "memcpy MB/s (put, get) or / pipeline MB/s (ring: always; collectives)",
                        KB_LAT_MAX_BYTES);
        fprintf(o->text, "# %-15s %10s %11s %11s %11s %12s %10s %9s\n", "op", "bytes", "avg_us",
                "min_us", "max_us", "msgs_per_s", "mb_per_s", "x_limit");
    } else if (kind == KB_LAT) {
        kb_out_note(o, "x_limit = avg_us / %sone-way latency",
                    lim->path == KB_PATH_TCP ? "tcp " : "");
        fprintf(o->text, "# %-10s %11s %11s %11s %9s\n", "bytes", "avg_us", "min_us", "max_us",
                "x_limit");
    } else if (kind == KB_BW) {
        kb_out_note(o, "x_limit = avg_us / %sone-way latency up to %d bytes; above, mb_per_s / "
                    "%s MB/s (%s)", lim->path == KB_PATH_TCP ? "tcp " : "", KB_LAT_MAX_BYTES,
                    bwname, kb_num(a, sizeof a, bw, 0));
        /* the contract's five latency columns first, the bandwidth last */
        fprintf(o->text, "# %-10s %11s %11s %11s %9s %10s\n", "bytes", "avg_us", "min_us",
                "max_us", "x_limit", "mb_per_s");
    } else if (bwref == KB_REF_RATE && lim->rate.iters > 0) {
        kb_out_note(o, "x_limit = us per message / the message-rate floor (limit-rate: %s us, "
                    "8-byte records in windows of %d, no runtime) up to %d bytes, lower is "
                    "better; above, mb_per_s / %s MB/s", kb_num(a, sizeof a, lim->rate.best_us, 4),
                    64, KB_RATE_LIMIT_BYTES, bwname);
        fprintf(o->text, "# %-10s %12s %10s %9s\n", "bytes", "msgs_per_s", "mb_per_s", "x_limit");
    } else {
        kb_out_note(o, "x_limit = mb_per_s / %s MB/s", bwname);
        fprintf(o->text, "# %-10s %12s %10s %9s\n", "bytes", "msgs_per_s", "mb_per_s", "x_limit");
    }
    fflush(o->text);
}

static void kb_json_num(FILE *f, const char *key, double x)
{
    if (isnan(x) || isinf(x))
        fprintf(f, ",\"%s\":null", key);
    else
        fprintf(f, ",\"%s\":%.6g", key, x);
}

/* Keys in the contract's order; msgs_per_s and mb_per_s only where the op
 * reports them. Names are the op table's and kumi's own: no escaping. */
static void kb_out_json(const struct kb_out *o, const struct kb_row *r)
{
    FILE *f = o->json;

    fprintf(f, "{\"impl\":\"kumi\",\"op\":\"%s\",\"transport\":\"%s\",\"pes\":%d,\"bytes\":%zu,"
            "\"iters\":%ld", r->op, o->transport, o->pes, r->bytes, r->iters);
    kb_json_num(f, "avg_us", r->avg_us);
    kb_json_num(f, "min_us", r->min_us);
    kb_json_num(f, "max_us", r->max_us);
    if (!isnan(r->msgs_per_s))
        kb_json_num(f, "msgs_per_s", r->msgs_per_s);
    if (!isnan(r->mb_per_s))
        kb_json_num(f, "mb_per_s", r->mb_per_s);
    kb_json_num(f, "limit_ratio", r->ratio);
    if (r->limit_us > 0)   /* latency rows: the one-way latency of limit_ratio */
        kb_json_num(f, "limit_oneway_us", r->limit_us);
    if (r->blocks > 1)     /* paired blocks (kumi_bench.c: kb_run_paired) */
        fprintf(f, ",\"limit_blocks\":%d", r->blocks);
    if (kb.heap_bufs)      /* --buffers heap */
        fputs(",\"buffers\":\"heap\"", f);
    if (r->minflt >= 0)    /* page faults in the timed loops, every PE */
        fprintf(f, ",\"minflt\":%.0f", r->minflt);
    fputs("}\n", f);
    fflush(f);
}

void kb_out_row(const struct kb_out *o, const struct kb_row *r, enum kb_kind kind, int tour)
{
    char a[32], b[32], c[32], d[32], e[32], g[32];

    kb_progress_end();
    if (tour || kind == KB_LIMIT)
        fprintf(o->text, "  %-15s %10zu %11s %11s %11s %12s %10s %9s\n", r->op, r->bytes,
                kb_num(a, sizeof a, r->avg_us, 3), kb_num(b, sizeof b, r->min_us, 3),
                kb_num(c, sizeof c, r->max_us, 3), kb_num(d, sizeof d, r->msgs_per_s, 0),
                kb_num(e, sizeof e, r->mb_per_s, 1), kb_ratio(g, sizeof g, r->ratio));
    else if (kind == KB_LAT)
        fprintf(o->text, "  %-10zu %11s %11s %11s %9s\n", r->bytes,
                kb_num(a, sizeof a, r->avg_us, 3), kb_num(b, sizeof b, r->min_us, 3),
                kb_num(c, sizeof c, r->max_us, 3), kb_ratio(g, sizeof g, r->ratio));
    else if (kind == KB_BW)
        fprintf(o->text, "  %-10zu %11s %11s %11s %9s %10s\n", r->bytes,
                kb_num(a, sizeof a, r->avg_us, 3), kb_num(b, sizeof b, r->min_us, 3),
                kb_num(c, sizeof c, r->max_us, 3), kb_ratio(g, sizeof g, r->ratio),
                kb_num(e, sizeof e, r->mb_per_s, 1));
    else
        fprintf(o->text, "  %-10zu %12s %10s %9s\n", r->bytes,
                kb_num(d, sizeof d, r->msgs_per_s, 0), kb_num(e, sizeof e, r->mb_per_s, 1),
                kb_ratio(g, sizeof g, r->ratio));
    fflush(o->text);
    if (o->json != NULL)
        kb_out_json(o, r);
}

/* ------------------------------------------------------------------- plot */

static int kb_have_program(const char *name)
{
    const char *path = getenv("PATH");
    char        buf[4096];

    for (const char *p = path ? path : "/usr/bin:/bin"; *p != '\0';) {
        size_t n = strcspn(p, ":");
        snprintf(buf, sizeof buf, "%.*s/%s", (int)n, n ? p : ".", name);
        if (access(buf, X_OK) == 0)
            return 1;
        p += n + (p[n] == ':');
    }
    return 0;
}

/* A gnuplot single-quoted string: only ' is special, written ''. */
static void kb_gp_str(FILE *gp, const char *s)
{
    fputc('\'', gp);
    for (; *s != '\0'; s++)
        fputs(*s == '\'' ? "''" : (char[2]){ *s, 0 }, gp);
    fputc('\'', gp);
}

static int kb_plottable(const struct kb_row *r)
{
    return strncmp(r->op, "limit-", 6) != 0 && r->bytes > 0 && r->avg_us > 0;
}

/* Tics at powers of two named 8, 64K, 1M (at most about a dozen), which
 * gnuplot's own formats cannot do without stray spaces. */
static void kb_gp_xtics(FILE *gp, const struct kb_row *rows, int nrows)
{
    static const char *const unit[] = { "", "K", "M", "G", "T" };
    size_t lo = SIZE_MAX, hi = 0, p = 1;
    int    ntics = 0, step = 1;

    for (int i = 0; i < nrows; i++)
        if (kb_plottable(&rows[i])) {
            lo = rows[i].bytes < lo ? rows[i].bytes : lo;
            hi = rows[i].bytes > hi ? rows[i].bytes : hi;
        }
    while (p * 2 <= lo)
        p *= 2;
    for (size_t q = p; q <= hi && q != 0; q *= 2)
        ntics++;
    while (ntics / step > 12)
        step++;
    fputs("set xtics (", gp);
    for (int k = 0; p <= hi && p != 0; p *= 2, k++) {
        int u = 0;
        if (k % step != 0)
            continue;
        while (u < 4 && p >> (10 * (u + 1)) << (10 * (u + 1)) == p && p >> (10 * (u + 1)) != 0)
            u++;
        fprintf(gp, "%s\"%zu%s\" %zu", k ? ", " : "", p >> (10 * u), unit[u], p);
    }
    fputs(")\n", gp);
}

/* avg_us against bytes, log-log, one line per op (consecutive rows of one
 * op are its sweep), with the limits as dashed floors. The data goes to
 * FILE.dat next to FILE.png so it can be re-plotted. */
int kb_plot(const char *png, const char *title, const struct kb_row *rows, int nrows,
            const struct kb_limit *lim)
{
    size_t len = strlen(png);
    char  *dat = kb_xmalloc("plot", len + 5);
    int    series = 0, status;
    FILE  *f, *gp;

    memcpy(dat, png, len + 1);
    if (len > 4 && strcmp(png + len - 4, ".png") == 0)
        dat[len - 4] = '\0';
    strcat(dat, ".dat");

    if ((f = fopen(dat, "w")) == NULL) {
        fprintf(stderr, "kumi-bench: --plot: cannot write %s: %m\n", dat);
        free(dat);
        return -1;
    }
    for (int i = 0; i < nrows; i++) {
        if (!kb_plottable(&rows[i]))
            continue;
        if (i == 0 || !kb_plottable(&rows[i - 1]) || strcmp(rows[i - 1].op, rows[i].op) != 0)
            fprintf(f, "%s# %s\n# bytes avg_us min_us max_us\n", series++ ? "\n\n" : "",
                    rows[i].op);
        fprintf(f, "%zu %.6g %.6g %.6g\n", rows[i].bytes, rows[i].avg_us, rows[i].min_us,
                rows[i].max_us);
    }
    fclose(f);
    if (series == 0) {
        fprintf(stderr, "kumi-bench: --plot: nothing to plot (no sizes above 0 bytes); "
                "no picture written\n");
        free(dat);
        return 0;
    }
    if (!kb_have_program("gnuplot")) {
        fprintf(stderr, "kumi-bench: --plot: gnuplot not found in PATH (Debian: apt-get install "
                "gnuplot-nox); data left in %s, no picture written\n", dat);
        free(dat);
        return 0;
    }

    void (*old)(int) = signal(SIGPIPE, SIG_IGN);  /* a gnuplot that dies must not kill us */
    if ((gp = popen("gnuplot", "w")) == NULL) {
        fprintf(stderr, "kumi-bench: --plot: cannot start gnuplot: %m\n");
        signal(SIGPIPE, old);
        free(dat);
        return -1;
    }
    fputs("set terminal pngcairo size 1000,650 noenhanced\nset output ", gp);
    kb_gp_str(gp, png);
    fputs("\nset logscale x 2\nset logscale y 10\nset format y '%g'\nset grid\n"
          "set key below\nset xlabel 'bytes'\n"
          "set ylabel 'avg_us (microseconds per op)'\n", gp);
    kb_gp_xtics(gp, rows, nrows);
    fputs("set title ", gp);
    kb_gp_str(gp, title);
    fputs("\nplot ", gp);
    for (int s = 0, i = 0; s < series; s++) {
        while (!kb_plottable(&rows[i]))
            i++;
        fputs(s ? ", " : "", gp);
        kb_gp_str(gp, dat);
        fprintf(gp, " index %d using 1:2:3:4 with yerrorlines lw 2 title ", s);
        kb_gp_str(gp, rows[i].op);
        while (i + 1 < nrows && kb_plottable(&rows[i + 1]) && strcmp(rows[i + 1].op, rows[i].op) == 0)
            i++;
        i++;
    }
    if (lim->oneway.iters > 0)
        fprintf(gp, ", %.6g with lines dt 2 lc 'gray40' title 'limit: %sone-way %.3f us'",
                lim->oneway.best_us, lim->path == KB_PATH_TCP ? "tcp " : "", lim->oneway.best_us);
    if (lim->pipeline.iters > 0)
        fprintf(gp, ", x / %.6g with lines dt 3 lc 'gray40' title 'limit: pipeline %.0f MB/s'",
                kb_stat_mbs(&lim->pipeline), kb_stat_mbs(&lim->pipeline));
    if (lim->memcpy.iters > 0)
        fprintf(gp, ", x / %.6g with lines dt 4 lc 'gray60' title 'limit: memcpy %.0f MB/s'",
                kb_stat_mbs(&lim->memcpy), kb_stat_mbs(&lim->memcpy));
    if (lim->stream.iters > 0)
        fprintf(gp, ", x / %.6g with lines dt 5 lc 'gray20' title 'limit: tcp stream %.0f MB/s'",
                kb_stat_mbs(&lim->stream), kb_stat_mbs(&lim->stream));
    fputs("\n", gp);
    status = pclose(gp);
    signal(SIGPIPE, old);
    if (status != 0) {
        fprintf(stderr, "kumi-bench: --plot: gnuplot failed (status %d); data left in %s\n",
                WIFEXITED(status) ? WEXITSTATUS(status) : -1, dat);
        free(dat);
        return -1;
    }
    fprintf(stderr, "kumi-bench: plot written to %s (data in %s)\n", png, dat);
    free(dat);
    return 0;
}
