/* harness.h -- what kumi-bench-mpi and kumi-bench-shmem share: the ops,
 * the command line, the size sweep, the timing loops, the result checks and
 * the output.
 *
 * A peer program (bench_mpi.c, bench_shmem.c) only fills a struct
 * peer_backend with the calls of its library; peer_run() does the rest, so
 * both peers time the same loops and print the same format as kumi-bench
 * (bench/README.md; the contract is summed up in bench/peers/README.md).
 */
#ifndef KUMI_BENCH_PEERS_HARNESS_H
#define KUMI_BENCH_PEERS_HARNESS_H

#include <stddef.h>

enum peer_op {
    PEER_BARRIER,
    PEER_ALLREDUCE,
    PEER_REDUCE,
    PEER_BROADCAST,
    PEER_ALLGATHER,
    PEER_ALLTOALL,
    PEER_PUT,
    PEER_GET,
    PEER_PINGPONG,
    PEER_ATOMIC,
    PEER_SEND,             /* two-sided: PE 0 -> PE 1, acknowledged (MPI only) */
    /* kumi-bench's send-* ops (two-sided, MPI only), the same loops:
     * KB_SEND_WINDOW = PEER_WINDOW messages per window */
    PEER_SEND_LAT,         /* 8-byte ping-pong, half a round trip (osu_latency) */
    PEER_SEND_BW,          /* window 0 -> 1, 1-byte ack back; us per message (osu_bw) */
    PEER_SEND_BIBW,        /* a window each way at once; us per message of either (osu_bibw) */
    PEER_SEND_RATE,        /* send-bw's loop as messages per second (osu_mbw_mr, one pair) */
    PEER_SEND_ANY,         /* every PE but 0 sends a window to 0, which receives from
                              MPI_ANY_SOURCE, then acks each; us per message received */
    PEER_IALLREDUCE,       /* MPI_Iallreduce + MPI_Wait, as allreduce (MPI only) */
    PEER_OP_COUNT
};

#define PEER_OP_BIT(op) (1u << (op))
#define PEER_WINDOW 64     /* messages per window of the send-* ops */

struct peer_op_info {
    const char *name;
    unsigned granule;      /* 0: one fixed size; 1: any byte count; 8: 64-bit elements */
    size_t fixed_bytes;    /* the one size of a granule-0 op (barrier 0, pingpong 8, ...) */
    int min_pes;           /* 2 for the PE 0 <-> PE 1 ops */
    int timing_pes;        /* PEs that time the op: 0 = all, else PEs 0..n-1 */
    double divisor;        /* per-iteration time / divisor (pingpong: 2, half RTT) */
    int per_sender;        /* 1: the divisor is multiplied by npes - 1 (send-any) */
    int stream;            /* also a streaming loop (n ops, one completion) for mb_per_s */
    int mb_per_s;          /* report bytes / us (stream time if stream, else avg_us) */
    enum {
        PEER_RATE_NONE,
        PEER_RATE_ONE,     /* one operation at a time: 1e6 / (stream or avg) us */
        PEER_RATE_SUM,     /* every timing PE issues: sum of 1e6 / t_pe */
        PEER_RATE_SLOWER   /* a pair runs at its slower side: 1e6 / max, and
                              mb_per_s = bytes / max (kumi-bench's ring, send-rate) */
    } msgs_per_s;
    const char *what;      /* header line saying what a row is; NULL: by timing_pes */
};

const struct peer_op_info *peer_op_info(enum peer_op op);

struct peer_opts {
    enum peer_op op;
    size_t sizes[64];      /* the sweep, in the op's granule, no duplicates */
    int nsizes;
    long iters;            /* for sizes up to 64 KiB; larger ones run fewer */
    long warmup;           /* -1: a tenth of each size's iterations */
    const char *json;      /* NULL, "-" (stdout) or a file name */
};

/* The library's side. Every function is called by every PE in the same
 * order; all but run and stream are collective. */
struct peer_backend {
    const char *prog;      /* "kumi-bench-mpi" */
    const char *impl;      /* JSON "impl" and "transport": "mpi", "oshmem" */
    unsigned ops;          /* PEER_OP_BIT mask of the ops this library has */
    int me, npes;

    /* Allocate what op needs for sizes up to max_bytes; ends the job on failure. */
    void (*setup)(enum peer_op op, size_t max_bytes);
    /* Fill the buffers for one size, then synchronize. */
    void (*prepare)(enum peer_op op, size_t bytes);
    /* n calls of op, each complete before the next (put: put + quiet).
     * PEs that do not take part return at once. */
    void (*run)(enum peer_op op, size_t bytes, long n);
    /* Ops with info->stream: n operations back to back, then one completion. */
    void (*stream)(enum peer_op op, size_t bytes, long n);
    void (*barrier)(void);
    /* After `calls` calls since prepare(): 0 if this PE's results are right,
     * else -1 after printing what is wrong. Collective. */
    int (*check)(enum peer_op op, size_t bytes, long calls);
    /* all_us[npes] on PE 0 receives every PE's my_us. Collective. */
    void (*gather)(double my_us, double *all_us);
    void (*teardown)(enum peer_op op);
    /* End the whole job at once (PE 0 cannot write the JSON file, ...). */
    void (*abort_job)(int code);
};

/* Parse the command line; called before the library is initialized. On bad
 * usage prints a message and the synopsis and exits 2; exits 0 after --help
 * or --list-ops. Only the launcher's rank 0 (or a process not started by a
 * launcher) prints. */
void peer_opts_parse(int argc, char **argv, const char *prog, unsigned ops,
                     const char *api_note, struct peer_opts *out);

/* Run the sweep. Returns 0; 1 after a wrong result; 2 when the job has too
 * few PEs for the op. Output from PE 0 only. */
int peer_run(const struct peer_backend *be, const struct peer_opts *opts);

double peer_now_us(void);  /* monotonic clock, microseconds */

/* What each PE's send buffer holds for op, and what its receive buffer must
 * hold afterwards, so that both peers check their results the same way:
 *   allreduce, reduce  doubles me+1; result npes*(npes+1)/2 everywhere
 *   broadcast          root's 64-bit words; the same words on the others
 *   allgather          words tagged with the sender; block j from PE j
 *   alltoall           block j tagged (me -> j); block j received tagged (j -> me)
 *   put, get, pingpong a byte pattern; the same pattern
 * peer_fill_source() writes `src`; peer_verify() checks `got` and prints the
 * first mismatch on stderr (0 if right, -1 if not). */
void peer_fill_source(enum peer_op op, size_t bytes, int me, int npes, void *src);
int peer_verify(const char *prog, enum peer_op op, size_t bytes, int me, int npes,
                const void *got);
/* Sizes of the send and receive buffers op needs for `bytes` on npes PEs. */
size_t peer_src_size(enum peer_op op, size_t bytes, int npes);
size_t peer_dst_size(enum peer_op op, size_t bytes, int npes);

#endif
