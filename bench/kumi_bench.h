/*
 * kumi_bench.h -- what the parts of kumi-bench share.
 *
 *   kumi_bench.c        main: options, the op table, the size sweep, the
 *                       collection of per-PE times on PE 0
 *   kumi_bench_ops.c    the measured loops, one function per op
 *   kumi_bench_limit.c  the hardware limits (no runtime in the loop)
 *   kumi_bench_tcp.c    the same for the socket path (transports that do
 *                       not map peers)
 *   kumi_bench_out.c    text table, JSON lines, gnuplot
 *   kumi_bench_dsm.c    the dsm-* ops (software DSM protocol latencies),
 *                       with their own table
 *   kumi_bench_kernels.c  the kernels op: the DSM kernels of bench/dsm,
 *                       translated and plain, with their own table
 *
 * The command line, the output and the JSON keys are a contract shared with
 * the Open MPI / OpenSHMEM versions in bench/peers and the compare script:
 * see bench/README.md before changing any of them.
 */
#ifndef KUMI_BENCH_H
#define KUMI_BENCH_H

#include <kumi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Up to this size x_limit compares latency (avg_us / one-way latency);
 * above it, bandwidth (mb_per_s / the op's bandwidth limit). */
#define KB_LAT_MAX_BYTES    4096
/* Sizes up to this run the full iteration count; larger ones fewer. */
#define KB_ITER_FULL_BYTES  (64 * 1024)
#define KB_DEFAULT_ITERS    10000
#define KB_TOUR_ITERS       1000
#define KB_MAX_SIZES        64
/* Latency rows on shm: at most this many blocks, each between two one-way
 * measurements, of at least this many iterations (kumi_bench.c) */
#define KB_PAIR_BLOCKS      8
#define KB_PAIR_MIN_ITERS   250

enum kb_kind {
    KB_LAT,    /* fixed size; avg/min/max us (barrier, pingpong, atomic)        */
    KB_BW,     /* sized; avg/min/max us and mb_per_s (put, get, collectives)    */
    KB_RATE,   /* sized; msgs_per_s and mb_per_s (ring)                         */
    KB_LIMIT,  /* the hardware limits themselves                                */
    KB_DSM,    /* the DSM protocol (dsm-*): own rows and columns, kumi_bench_dsm.c */
    KB_KERNELS /* the DSM kernels (bench/dsm): own table, kumi_bench_kernels.c     */
};

/* The bandwidth limit an op's large sizes are compared with: one copy per
 * byte (put/get: memcpy) or two (ring and collectives: through a buffer). */
/* What a sized op's x_limit is set against above KB_LAT_MAX_BYTES (KB_BW)
 * or always (KB_RATE): the pipeline's or memcpy's MB/s; KB_REF_RATE
 * (send-rate): up to KB_RATE_LIMIT_BYTES the message-rate floor (us per
 * message / the limit's, times the floor), above it the pipeline. */
enum kb_bwref { KB_REF_PIPELINE, KB_REF_MEMCPY, KB_REF_RATE };
#define KB_RATE_LIMIT_BYTES 8

/* What one PE measured for one op at one size; every PE puts it into its
 * slot of a symmetric table on PE 0 (not kumi_allreduce: the benchmark
 * must work while the collectives are still being written). */
struct kb_sample {
    double us;         /* per-iteration time of the latency loop          */
    double stream_us;  /* per-op time of the streaming loop, 0 if none     */
    double ran;        /* 1 if this PE ran the loop, 0 if it idled         */
    double minflt;     /* minor page faults of this PE in its timed loops  */
};

struct kb_op;
struct kb_run {
    const struct kb_op *op;
    size_t              bytes;
    long                iters, warmup;
};

/* Runs one op at one size on every PE: checks the result once, then
 * times. Returns KUMI_OK, or KUMI_ERR_UNSUPPORTED on every PE when some
 * PE's runtime lacks the op. Any other failure ends the job (exit 1). */
typedef int (*kb_fn)(const struct kb_run *run, struct kb_sample *out);

struct kb_op {
    const char   *name;
    kb_fn         fn;
    enum kb_kind  kind;
    enum kb_bwref bwref;
    size_t        fixed_bytes;  /* KB_LAT: the one size it has             */
    int           sweep_default;/* 1: default sizes 8 B and 64 KiB, else 8 */
    int           min_pes;
    int           in_tour;      /* run by `all`                            */
};

/* One line of output (PE 0 only). NAN marks a value not reported. */
struct kb_row {
    const char *op;
    size_t      bytes;
    long        iters;
    double      avg_us, min_us, max_us;
    double      msgs_per_s, mb_per_s;
    double      ratio;
    double      limit_us;   /* the one-way latency ratio used (latency rows) */
    int         blocks;     /* > 1: ratio and limit_us are medians of blocks */
    double      minflt;     /* minor page faults in the timed loops, all PEs
                               (-1: not measured) */
};

/* min / mean / max of one hardware figure over its trials */
struct kb_stat {
    size_t bytes;   /* size of the unit measured                        */
    long   iters;   /* units per trial; 0 = not measured                */
    double best_us, avg_us, worst_us;   /* per unit                     */
};

/* Which path between PEs 0 and 1 the limits describe. */
enum kb_path {
    KB_PATH_NONE,   /* one PE, or neither path could be set up            */
    KB_PATH_SHM,    /* kumi_ptr reaches the peer: cache lines and copies  */
    KB_PATH_TCP     /* peers not mapped (tcp): one loopback TCP socket    */
};

#define KB_LIMIT_ROWS 7
struct kb_limit {
    int            measured;
    enum kb_path   path;
    struct kb_stat oneway;    /* shm: half round trip of one cache line;
                                 tcp: of 8 bytes over the socket          */
    struct kb_stat kick;      /* shm: half round trip, a line each way    */
    struct kb_stat barrier;   /* shm: one two-PE barrier in one line      */
    struct kb_stat memcpy;    /* one 64 MiB copy, one core                */
    struct kb_stat pipeline;  /* shm: one 64 KiB block through a shared ring */
    struct kb_stat stream;    /* tcp: one 1 MiB message over the socket   */
    struct kb_stat rate;      /* shm: one 8-byte message of a window of 64,
                                 16-byte records in the receiver's ring     */
};

/* The job, set up once by main. */
struct kb_env {
    int               me, n;
    kumi_team_t       world;
    struct kb_sample *samples;  /* symmetric: n slots, read on PE 0       */
    int64_t          *agree;    /* symmetric: n status words on PE 0      */
    uint64_t         *scratch;  /* symmetric: 64-byte lines for checks    */
    int               heap_bufs;/* --buffers heap: collectives' buffers in
                                   the symmetric heap                      */
    long              minflt;   /* minor page faults in kb_timed's loops,
                                   added up; kumi_bench.c reads and resets it */
};
extern struct kb_env kb;

/* kumi_bench.c: failing and agreeing */
_Noreturn void kb_die(const char *op, const char *call, int rc);
_Noreturn void kb_wrong(const struct kb_run *run, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int   kb_agree(const char *op, const char *call, int rc);
void  kb_barrier(const char *op);
void *kb_xmalloc(const char *op, size_t n);
void *kb_sym_alloc(const char *op, size_t n);

/* kumi_bench_ops.c: the ops */
int kb_op_barrier(const struct kb_run *run, struct kb_sample *out);
int kb_op_allreduce(const struct kb_run *run, struct kb_sample *out);
int kb_op_reduce(const struct kb_run *run, struct kb_sample *out);
int kb_op_broadcast(const struct kb_run *run, struct kb_sample *out);
int kb_op_allgather(const struct kb_run *run, struct kb_sample *out);
int kb_op_alltoall(const struct kb_run *run, struct kb_sample *out);
int kb_op_put(const struct kb_run *run, struct kb_sample *out);
int kb_op_get(const struct kb_run *run, struct kb_sample *out);
int kb_op_pingpong(const struct kb_run *run, struct kb_sample *out);
int kb_op_atomic(const struct kb_run *run, struct kb_sample *out);
int kb_op_ring(const struct kb_run *run, struct kb_sample *out);
/* what the ops' files share (kumi_bench_ops.c): the timed loop (warm-up,
 * barrier, iters steps and fin; microseconds per step, 0 where this PE
 * did not run), and the per-size, per-sender byte pattern */
typedef int (*kb_step)(void *ctx);
double   kb_timed(const struct kb_run *run, const char *call, int runs, kb_step step,
                  kb_step fin, void *ctx);
uint64_t kb_seed(size_t bytes, uint64_t who);
void     kb_fill(void *buf, size_t n, uint64_t seed);
void     kb_expect_block(const struct kb_run *run, const void *buf, size_t n, uint64_t seed,
                         const char *what);
/* kumi_bench_send.c: two-sided messages between PEs 0 and 1 */
int kb_op_send_lat(const struct kb_run *run, struct kb_sample *out);
int kb_op_send_bw(const struct kb_run *run, struct kb_sample *out);
int kb_op_send_rate(const struct kb_run *run, struct kb_sample *out);
int kb_op_send_bibw(const struct kb_run *run, struct kb_sample *out);
int kb_op_send_any(const struct kb_run *run, struct kb_sample *out);

/* kumi_bench_limit.c */
double kb_stat_mbs(const struct kb_stat *s);   /* bytes / best_us, NAN if none */
/* the middle of v[0..n) (sorts v; the mean of the middle two when n is
 * even), NAN if any is NAN or n is 0 */
double kb_median(double *v, int n);
void   kb_stat_add(struct kb_stat *s, double us_per_unit, int trial);
void   kb_stat_end(struct kb_stat *s, int trials, long units_per_trial);
void   kb_limit_measure(struct kb_limit *lim, int full, long rounds);
double kb_limit_ratio(const struct kb_limit *lim, const struct kb_op *op,
                      const struct kb_row *row, double oneway_us);
/* The one-way latency measured again now (collective; NAN where peers are
 * not mapped or there is one PE): latency rows are compared with the
 * better of the figures taken just before and just after them. */
double kb_limit_oneway_now(const struct kb_limit *lim);
int    kb_limit_rows(const struct kb_limit *lim, struct kb_row rows[KB_LIMIT_ROWS]);
const struct kb_stat *kb_limit_bw(const struct kb_limit *lim, enum kb_bwref bwref);
const char           *kb_limit_bw_name(const struct kb_limit *lim, enum kb_bwref bwref);
/* kumi_bench_tcp.c: one-way and stream over a loopback socket between PEs
 * 0 and 1 (collective); KUMI_OK when measured */
int    kb_limit_tcp(struct kb_limit *lim, int full, long rounds);

/* kumi_bench_out.c: PE 0 only */
struct kb_out {
    FILE       *text;    /* stdout, or stderr when JSON goes to stdout */
    FILE       *json;    /* NULL without --json                        */
    const char *transport;
    int         pes;
    int         cores;   /* online CPUs: more PEs than this time-slice */
};
void kb_out_header(const struct kb_out *o, const char *op, const struct kb_limit *lim,
                   enum kb_kind kind, enum kb_bwref bwref, int tour);
void kb_out_row(const struct kb_out *o, const struct kb_row *row, enum kb_kind kind, int tour);
void kb_out_note(const struct kb_out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* a progress line on stderr (PE 0, only when stderr is a terminal), and
 * its end; rows and notes end it themselves */
void kb_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kb_progress_end(void);
int  kb_plot(const char *png, const char *title, const struct kb_row *rows, int nrows,
             const struct kb_limit *lim);

/* kumi_bench_dsm.c: runs a dsm-* op on every PE and prints its rows on PE 0
 * (iters 0 / warmup -1: the op's defaults). Returns 0. */
int kb_dsm_run(const struct kb_op *op, long iters, long warmup, const struct kb_limit *lim,
               const struct kb_out *out);

/* kumi_bench_kernels.c: the kernels op's own options */
struct kb_kernels_opts {
    const char *kernel;     /* --kernel NAME|all; NULL: all           */
    const char *sizes;      /* --size N or NAME=N[,NAME=N]; NULL: defaults */
    int         trials;     /* --trials T; 0: the default (3)         */
    int         no_verify;  /* --no-verify                            */
};
/* 0 if the options make sense, else -1 with the message in err */
int kb_kernels_check(const struct kb_kernels_opts *ko, char *err, size_t errlen);
/* Runs the kernels on every PE, prints on PE 0 (iters 0: each kernel's
 * default). Returns 0, or 1 on every PE if a kernel failed (set-up or
 * verification) or none ran. */
int kb_kernels_run(const struct kb_kernels_opts *ko, long iters, const struct kb_out *out);
int kb_kernels_available(void);   /* how many kernels this build has */

#endif /* KUMI_BENCH_H */
