/* harness.c -- command line, size sweep, timing loop and output shared by
 * the Open MPI and OpenSHMEM peers of kumi-bench. See harness.h. */
#define _POSIX_C_SOURCE 200112L

#include "harness.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KIB ((size_t)1024)
#define ITER_FULL_BYTES (64 * KIB)   /* sizes up to this run all iterations */
#define DEFAULT_ITERS 10000

static const struct peer_op_info op_table[PEER_OP_COUNT] = {
    /*                 name        gran fixed pes timing div  per stream mbs msgs */
    [PEER_BARRIER]   = { "barrier",   0, 0, 1, 0, 1.0, 0, 0, 0, PEER_RATE_NONE, NULL },
    [PEER_ALLREDUCE] = { "allreduce", 8, 0, 1, 0, 1.0, 0, 0, 1, PEER_RATE_NONE, NULL },
    [PEER_REDUCE]    = { "reduce",    8, 0, 1, 0, 1.0, 0, 0, 1, PEER_RATE_NONE, NULL },
    [PEER_BROADCAST] = { "broadcast", 8, 0, 1, 0, 1.0, 0, 0, 1, PEER_RATE_NONE, NULL },
    [PEER_ALLGATHER] = { "allgather", 8, 0, 1, 0, 1.0, 0, 0, 1, PEER_RATE_NONE, NULL },
    [PEER_ALLTOALL]  = { "alltoall",  8, 0, 1, 0, 1.0, 0, 0, 1, PEER_RATE_NONE, NULL },
    [PEER_PUT]       = { "put",       1, 0, 2, 1, 1.0, 0, 1, 1, PEER_RATE_ONE, NULL },
    [PEER_GET]       = { "get",       1, 0, 2, 1, 1.0, 0, 1, 1, PEER_RATE_ONE, NULL },
    [PEER_PINGPONG]  = { "pingpong",  0, 8, 2, 2, 2.0, 0, 0, 0, PEER_RATE_ONE, NULL },
    [PEER_ATOMIC]    = { "atomic",    0, 8, 1, 0, 1.0, 0, 0, 0, PEER_RATE_SUM, NULL },
    [PEER_SEND]      = { "send",      1, 0, 2, 1, 1.0, 0, 1, 1, PEER_RATE_ONE, NULL },
    [PEER_SEND_LAT]  = { "send-lat",  0, 8, 2, 2, 2.0, 0, 0, 0, PEER_RATE_NONE,
                         "PE 0 <-> PE 1, MPI_Send/MPI_Recv; half a round trip" },
    [PEER_SEND_BW]   = { "send-bw",   1, 0, 2, 2, PEER_WINDOW, 0, 0, 1, PEER_RATE_NONE,
                         "PE 0 -> PE 1, windows of 64 MPI_Isend/MPI_Irecv + Waitall, "
                         "1-byte ack; us per message" },
    [PEER_SEND_BIBW] = { "send-bibw", 1, 0, 2, 2, 2.0 * PEER_WINDOW, 0, 0, 1, PEER_RATE_NONE,
                         "PE 0 <-> PE 1, a window of 64 each way at once; us per message "
                         "(either way), mb_per_s both ways together" },
    [PEER_SEND_RATE] = { "send-rate", 1, 0, 2, 2, PEER_WINDOW, 0, 0, 1, PEER_RATE_SLOWER,
                         "PE 0 -> PE 1, send-bw's loop; msgs_per_s = 1e6 / the slower PE's "
                         "us per message" },
    [PEER_SEND_ANY]  = { "send-any",  1, 0, 2, 0, PEER_WINDOW, 1, 0, 1, PEER_RATE_NONE,
                         "every PE but 0 sends a window of 64 to PE 0, which receives them "
                         "from MPI_ANY_SOURCE, then acks each; us per message received" },
    [PEER_IALLREDUCE] = { "iallreduce", 8, 0, 1, 0, 1.0, 0, 0, 1, PEER_RATE_NONE,
                          "all PEs; MPI_Iallreduce + MPI_Wait, doubles, SUM (osu_iallreduce's "
                          "pure communication time)" },
};

const struct peer_op_info *peer_op_info(enum peer_op op)
{
    return &op_table[op];
}

double peer_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* ------------------------------------------------------------ command line */

/* Before init we do not know our rank; ask the launcher's environment so
 * that a usage error is printed once, not once per PE. */
static int launcher_rank0(void)
{
    static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                        "KUMI_RANK" };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return strcmp(v, "0") == 0;
    }
    return 1;
}

static void synopsis(FILE *f, const char *prog, unsigned ops)
{
    fprintf(f,
            "usage: %s OP [--bytes N | --min-bytes A --max-bytes B] [--iters N]\n"
            "       %*s [--warmup N] [--json FILE|-]\n"
            "       %s --list-ops | --help\n"
            "OP:",
            prog, (int)strlen(prog), "", prog);
    for (int op = 0; op < PEER_OP_COUNT; op++)
        if (ops & PEER_OP_BIT(op))
            fprintf(f, " %s", op_table[op].name);
    fputc('\n', f);
}

static void usage(FILE *f, const char *prog, unsigned ops, const char *api_note)
{
    synopsis(f, prog, ops);
    fprintf(f,
            "  --bytes N        one size (default 8); suffix k, m, g: powers of 1024\n"
            "  --min-bytes A    sweep A, then the powers of two above A, up to B\n"
            "  --max-bytes B\n"
            "  --iters N        timed iterations up to 64 KiB (default 10000); larger\n"
            "                   sizes run max(10, N * 64 KiB / bytes)\n"
            "  --warmup N       untimed iterations first (default a tenth of the iterations)\n"
            "  --json FILE|-    one JSON object per line and size; '-': stdout (the table\n"
            "                   then goes to stderr)\n"
            "barrier (0 bytes), pingpong and atomic (8 bytes) have one size. allreduce,\n"
            "reduce, broadcast, allgather and alltoall move 64-bit words: sizes are rounded\n"
            "up to a multiple of 8; allgather: bytes per PE, alltoall: bytes per PE pair.\n");
    if (api_note && *api_note)
        fprintf(f, "%s\n", api_note);
}

static void usage_error(const char *prog, unsigned ops, const char *fmt, const char *arg)
{
    if (launcher_rank0()) {
        fprintf(stderr, "%s: ", prog);
        fprintf(stderr, fmt, arg);
        fputc('\n', stderr);
        synopsis(stderr, prog, ops);
    }
    exit(2);
}

/* "65536", "64k", "1M", "2g". 0 on success. */
static int parse_size(const char *s, unsigned long long *out)
{
    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    unsigned shift = 0;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: return -1;
    }
    if (*end != '\0' || (shift && v > (ULLONG_MAX >> shift)))
        return -1;
    *out = v << shift;
    return 0;
}

/* The payload an op really moves for a requested size. */
static size_t effective_bytes(const struct peer_op_info *info, size_t bytes)
{
    if (info->granule == 0)
        return info->fixed_bytes;
    size_t g = info->granule;
    return bytes < g ? g : (bytes + g - 1) / g * g;
}

/* Append b, rounded to the op's granule, unless it repeats the last size. */
static void add_size(struct peer_opts *o, const struct peer_op_info *info, size_t b)
{
    size_t e = effective_bytes(info, b);
    int cap = (int)(sizeof o->sizes / sizeof o->sizes[0]);
    if (o->nsizes < cap && (o->nsizes == 0 || o->sizes[o->nsizes - 1] != e))
        o->sizes[o->nsizes++] = e;
}

void peer_opts_parse(int argc, char **argv, const char *prog, unsigned ops,
                     const char *api_note, struct peer_opts *out)
{
    struct peer_opts o = { .op = PEER_OP_COUNT, .iters = DEFAULT_ITERS, .warmup = -1 };
    size_t bytes = 8, lo = 0, hi = 0;
    int have_bytes = 0, have_lo = 0, have_hi = 0;
    const size_t max_size = (size_t)1 << 30;   /* MPI counts are int */

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            if (launcher_rank0())
                usage(stdout, prog, ops, api_note);
            exit(0);
        }
        if (strcmp(a, "--list-ops") == 0) {
            if (launcher_rank0())
                for (int op = 0; op < PEER_OP_COUNT; op++)
                    if (ops & PEER_OP_BIT(op))
                        printf("%s\n", op_table[op].name);
            exit(0);
        }
        if (a[0] != '-') {
            if (o.op != PEER_OP_COUNT)
                usage_error(prog, ops, "more than one OP: '%s'", a);
            for (int op = 0; op < PEER_OP_COUNT; op++)
                if (strcmp(a, op_table[op].name) == 0)
                    o.op = (enum peer_op)op;
            if (o.op == PEER_OP_COUNT)
                usage_error(prog, ops, "unknown OP '%s'", a);
            if (!(ops & PEER_OP_BIT(o.op)))
                usage_error(prog, ops, "OP '%s' is not available in this library's API", a);
            continue;
        }

        /* --name VALUE or --name=VALUE */
        static const char *const valued[] = { "--bytes", "--min-bytes", "--max-bytes",
                                              "--iters", "--warmup", "--json" };
        const char *name = NULL, *val = NULL;
        for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++) {
            size_t n = strlen(valued[k]);
            if (strncmp(a, valued[k], n) == 0 && (a[n] == '\0' || a[n] == '=')) {
                name = valued[k];
                if (a[n] == '=')
                    val = a + n + 1;
                else if (i + 1 < argc)
                    val = argv[++i];
                else
                    usage_error(prog, ops, "%s needs a value", name);
                break;
            }
        }
        if (!name)
            usage_error(prog, ops, "unknown option '%s'", a);

        if (strcmp(name, "--json") == 0) {
            if (!*val)
                usage_error(prog, ops, "%s needs a file name or -", name);
            o.json = val;
            continue;
        }
        unsigned long long v;
        if (parse_size(val, &v) != 0)
            usage_error(prog, ops, "bad number '%s'", val);
        if (strcmp(name, "--iters") == 0) {
            if (v < 1 || v > 1000000000ull)
                usage_error(prog, ops, "--iters must be 1..1e9, not '%s'", val);
            o.iters = (long)v;
        } else if (strcmp(name, "--warmup") == 0) {
            if (v > 1000000000ull)
                usage_error(prog, ops, "--warmup must be 0..1e9, not '%s'", val);
            o.warmup = (long)v;
        } else {
            if (v > max_size)
                usage_error(prog, ops, "size '%s' is larger than 1 GiB", val);
            if (strcmp(name, "--bytes") == 0)
                have_bytes = 1, bytes = (size_t)v;
            else if (strcmp(name, "--min-bytes") == 0)
                have_lo = 1, lo = (size_t)v;
            else
                have_hi = 1, hi = (size_t)v;
        }
    }

    if (o.op == PEER_OP_COUNT)
        usage_error(prog, ops, "%s", "missing OP");
    if (have_bytes && (have_lo || have_hi))
        usage_error(prog, ops, "%s", "--bytes and --min-bytes/--max-bytes exclude each other");
    if (have_lo != have_hi)
        usage_error(prog, ops, "%s", "--min-bytes and --max-bytes go together");
    if (have_lo && lo > hi)
        usage_error(prog, ops, "%s", "--min-bytes is larger than --max-bytes");

    const struct peer_op_info *info = &op_table[o.op];
    if (info->granule == 0) {
        if ((have_bytes || have_lo) && launcher_rank0())
            fprintf(stderr, "%s: %s has one size (%zu bytes); size options ignored\n", prog,
                    info->name, info->fixed_bytes);
        add_size(&o, info, 0);
    } else if (have_lo) {
        /* A, then the powers of two above A, up to B (0 is followed by 1) */
        for (size_t s = lo; s <= hi;) {
            add_size(&o, info, s);
            size_t p = 1;
            while (p <= s)
                p <<= 1;
            s = p;
        }
    } else {
        add_size(&o, info, bytes);
    }
    *out = o;
}

/* ------------------------------------------------------------ the loops */

static long iters_for(long base, size_t bytes)
{
    if (bytes <= ITER_FULL_BYTES)
        return base;
    double scaled = (double)base * (double)ITER_FULL_BYTES / (double)bytes;
    long n = scaled < 10.0 ? 10 : (long)scaled;
    return n < base ? n : base;
}

/* Microseconds per call of n calls back to back. */
static double timed_run(const struct peer_backend *be, enum peer_op op, size_t bytes, long n)
{
    double t0 = peer_now_us();
    be->run(op, bytes, n);
    return (peer_now_us() - t0) / (double)n;
}

static double timed_stream(const struct peer_backend *be, enum peer_op op, size_t bytes,
                           long n)
{
    double t0 = peer_now_us();
    be->stream(op, bytes, n);
    return (peer_now_us() - t0) / (double)n;
}

/* ------------------------------------------------------------ buffer data */

size_t peer_src_size(enum peer_op op, size_t bytes, int npes)
{
    return op == PEER_ALLTOALL ? bytes * (size_t)npes : bytes;
}

size_t peer_dst_size(enum peer_op op, size_t bytes, int npes)
{
    return op == PEER_ALLGATHER || op == PEER_ALLTOALL ? bytes * (size_t)npes : bytes;
}

static unsigned char pattern_byte(size_t i)
{
    return (unsigned char)(i * 131u + 7u);
}

/* Word k of the block PE `from` sends to PE `to`; to = 0 when the block goes
 * to everyone. */
static uint64_t pattern_word(int from, int to, size_t k)
{
    return ((uint64_t)(from + 1) << 48) | ((uint64_t)(to + 1) << 32) | (uint64_t)(k & 0xffffffffu);
}

void peer_fill_source(enum peer_op op, size_t bytes, int me, int npes, void *src)
{
    size_t count = bytes / 8;
    double *d = src;
    uint64_t *w = src;
    unsigned char *b = src;
    switch (op) {
    case PEER_ALLREDUCE:
    case PEER_REDUCE:
    case PEER_IALLREDUCE:
        for (size_t k = 0; k < count; k++)
            d[k] = (double)(me + 1);
        break;
    case PEER_BROADCAST:
        for (size_t k = 0; k < count; k++)
            w[k] = pattern_word(0, -1, k);
        break;
    case PEER_ALLGATHER:
        for (size_t k = 0; k < count; k++)
            w[k] = pattern_word(me, -1, k);
        break;
    case PEER_ALLTOALL:
        for (int j = 0; j < npes; j++)
            for (size_t k = 0; k < count; k++)
                w[(size_t)j * count + k] = pattern_word(me, j, k);
        break;
    case PEER_PUT:
    case PEER_GET:
    case PEER_PINGPONG:
    case PEER_SEND:
    case PEER_SEND_LAT:
    case PEER_SEND_BW:
    case PEER_SEND_BIBW:
    case PEER_SEND_RATE:
    case PEER_SEND_ANY:
        for (size_t i = 0; i < bytes; i++)
            b[i] = pattern_byte(i);
        break;
    default:
        break;
    }
}

int peer_verify(const char *prog, enum peer_op op, size_t bytes, int me, int npes,
                const void *got)
{
    size_t count = bytes / 8;
    const double *d = got;
    const uint64_t *w = got;
    const unsigned char *b = got;
    const char *name = op_table[op].name;

    switch (op) {
    case PEER_ALLREDUCE:
    case PEER_REDUCE:
    case PEER_IALLREDUCE: {
        double want = (double)npes * (npes + 1) / 2.0;
        for (size_t k = 0; k < count; k++)
            if (d[k] != want) {
                fprintf(stderr, "%s: PE %d: %s of %zu bytes: element %zu is %g, want %g\n",
                        prog, me, name, bytes, k, d[k], want);
                return -1;
            }
        return 0;
    }
    case PEER_BROADCAST:
    case PEER_ALLGATHER:
    case PEER_ALLTOALL: {
        int blocks = op == PEER_BROADCAST ? 1 : npes;
        for (int j = 0; j < blocks; j++)
            for (size_t k = 0; k < count; k++) {
                uint64_t want = op == PEER_BROADCAST ? pattern_word(0, -1, k)
                              : op == PEER_ALLGATHER ? pattern_word(j, -1, k)
                                                     : pattern_word(j, me, k);
                uint64_t v = w[(size_t)j * count + k];
                if (v != want) {
                    fprintf(stderr,
                            "%s: PE %d: %s of %zu bytes: word %zu of block %d is %#llx, "
                            "want %#llx\n",
                            prog, me, name, bytes, k, j, (unsigned long long)v,
                            (unsigned long long)want);
                    return -1;
                }
            }
        return 0;
    }
    case PEER_PUT:
    case PEER_GET:
    case PEER_PINGPONG:
    case PEER_SEND:
    case PEER_SEND_LAT:
    case PEER_SEND_BW:
    case PEER_SEND_BIBW:
    case PEER_SEND_RATE:
    case PEER_SEND_ANY:
        for (size_t i = 0; i < bytes; i++)
            if (b[i] != pattern_byte(i)) {
                fprintf(stderr, "%s: PE %d: %s of %zu bytes: byte %zu is %u, want %u\n", prog,
                        me, name, bytes, i, b[i], pattern_byte(i));
                return -1;
            }
        return 0;
    default:
        return 0;
    }
}

/* ------------------------------------------------------------------ output */

struct report {
    const struct peer_backend *be;
    const struct peer_op_info *info;
    FILE *text;            /* stdout, or stderr when the JSON goes to stdout */
    FILE *json;
    int json_is_file;
};

static void report_header(const struct report *r)
{
    FILE *f = r->text;
    fprintf(f, "# %s %s: %d PEs\n", r->be->prog, r->info->name, r->be->npes);
    if (r->info->what != NULL)
        fprintf(f, "# %s\n", r->info->what);
    else if (r->info->timing_pes == 1)
        fprintf(f, "# PE 0 -> PE 1; avg_us: one op to completion; mb_per_s: a stream of ops, "
                   "one completion\n");
    else if (r->info->timing_pes == 2)
        fprintf(f, "# PE 0 <-> PE 1; half a round trip\n");
    fprintf(f, "# %-8s %12s %12s %12s%s\n", "bytes", "avg_us", "min_us", "max_us",
            r->info->mb_per_s ? "     mb_per_s" : "");
    fflush(f);
}

static void json_number(FILE *f, const char *key, double v)
{
    if (isfinite(v))
        fprintf(f, ",\"%s\":%.6g", key, v);
}

/* all_us / stream_us: every PE's time, NAN on PEs that do not time the op. */
static void report_row(const struct report *r, size_t bytes, long iters, long warmup,
                       const double *all_us, const double *stream_us)
{
    const struct peer_op_info *info = r->info;
    int timed = info->timing_pes ? info->timing_pes : r->be->npes;
    double sum = 0.0, mn = INFINITY, mx = -INFINITY, rate_sum = 0.0, ssum = 0.0;
    for (int pe = 0; pe < timed; pe++) {
        double t = all_us[pe];
        sum += t;
        mn = t < mn ? t : mn;
        mx = t > mx ? t : mx;
        if (t > 0.0)
            rate_sum += 1e6 / t;
        if (stream_us)
            ssum += stream_us[pe];
    }
    double avg = sum / timed;
    double per_op = stream_us ? ssum / timed : avg;   /* what bandwidth and rate use */
    if (info->msgs_per_s == PEER_RATE_SLOWER)
        per_op = mx;   /* a pair moves no faster than its slower side */
    double mbs = info->mb_per_s && per_op > 0.0 ? (double)bytes / per_op : NAN;
    double msgs = NAN;
    if ((info->msgs_per_s == PEER_RATE_ONE || info->msgs_per_s == PEER_RATE_SLOWER)
        && per_op > 0.0)
        msgs = 1e6 / per_op;
    else if (info->msgs_per_s == PEER_RATE_SUM)
        msgs = rate_sum;

    fprintf(r->text, "%-10zu %12.3f %12.3f %12.3f", bytes, avg, mn, mx);
    if (info->mb_per_s)
        fprintf(r->text, " %12.1f", mbs);
    fputc('\n', r->text);
    fflush(r->text);

    if (r->json) {
        fprintf(r->json,
                "{\"impl\":\"%s\",\"op\":\"%s\",\"transport\":\"%s\",\"pes\":%d,"
                "\"bytes\":%zu,\"iters\":%ld,\"warmup\":%ld",
                r->be->impl, info->name, r->be->impl, r->be->npes, bytes, iters, warmup);
        json_number(r->json, "avg_us", avg);
        json_number(r->json, "min_us", mn);
        json_number(r->json, "max_us", mx);
        json_number(r->json, "msgs_per_s", msgs);
        json_number(r->json, "mb_per_s", mbs);
        fputs("}\n", r->json);
        fflush(r->json);
    }
}

/* ------------------------------------------------------------------ driver */

int peer_run(const struct peer_backend *be, const struct peer_opts *opts)
{
    const struct peer_op_info *info = peer_op_info(opts->op);
    const int root = be->me == 0;
    const enum peer_op op = opts->op;

    if (be->npes < info->min_pes) {
        if (root)
            fprintf(stderr, "%s: %s needs at least %d PEs, this job has %d\n", be->prog,
                    info->name, info->min_pes, be->npes);
        return 2;
    }

    struct report rep = { .be = be, .info = info, .text = stdout };
    double *all_us = NULL, *stream_us = NULL;
    if (root) {
        if (opts->json && strcmp(opts->json, "-") == 0) {
            rep.json = stdout;
            rep.text = stderr;
        } else if (opts->json) {
            rep.json = fopen(opts->json, "w");
            if (!rep.json) {
                fprintf(stderr, "%s: cannot write %s: %s\n", be->prog, opts->json,
                        strerror(errno));
                be->abort_job(1);
                return 1;
            }
            rep.json_is_file = 1;
        }
        all_us = calloc((size_t)be->npes, sizeof *all_us);
        stream_us = calloc((size_t)be->npes, sizeof *stream_us);
        if (!all_us || !stream_us) {
            fprintf(stderr, "%s: out of memory\n", be->prog);
            be->abort_job(1);
            return 1;
        }
        report_header(&rep);
    }

    int status = 0;
    const int timing_pe = info->timing_pes == 0 || be->me < info->timing_pes;
    be->setup(op, opts->sizes[opts->nsizes - 1]);
    for (int s = 0; s < opts->nsizes; s++) {
        size_t bytes = opts->sizes[s];
        long iters = iters_for(opts->iters, bytes);
        long warmup = opts->warmup >= 0 ? opts->warmup : iters / 10;
        if (root && opts->nsizes >= 5)
            fprintf(stderr, "%s: %s %zu bytes (%d/%d)\n", be->prog, info->name, bytes, s + 1,
                    opts->nsizes);

        be->prepare(op, bytes);
        be->run(op, bytes, warmup);
        be->barrier();
        double div = info->divisor * (info->per_sender ? be->npes - 1 : 1);
        double my_us = timed_run(be, op, bytes, iters) / div;
        double my_stream = NAN;
        if (info->stream) {
            be->barrier();
            my_stream = timed_stream(be, op, bytes, iters);
        }
        if (!timing_pe)
            my_us = my_stream = NAN;
        if (be->check(op, bytes, warmup + iters) != 0)
            status = 1;
        be->gather(my_us, all_us);
        if (info->stream)
            be->gather(my_stream, stream_us);
        if (root)
            report_row(&rep, bytes, iters, warmup, all_us, info->stream ? stream_us : NULL);
    }
    be->teardown(op);

    free(all_us);
    free(stream_us);
    if (rep.json_is_file && fclose(rep.json) != 0) {
        fprintf(stderr, "%s: cannot write %s: %s\n", be->prog, opts->json, strerror(errno));
        status = 1;
    }
    return status;
}
