/* bench_shmem.c -- kumi-bench-shmem: kumi-bench's loops on OpenSHMEM 1.4
 * (Open MPI's OSHMEM as Debian ships it: no teams, no reduce-to-root).
 *
 * Collectives use the 1.4 active-set calls (PE_start 0, stride 0, all PEs)
 * back to back, like kumi-bench, with two pSync (and pWrk) sets used
 * alternately: a PE can start call k+2 only once every PE has entered call
 * k+1, hence left call k, so that set is free again. That argument needs
 * every PE to wait for every other, which broadcast does not promise in the
 * spec; OSHMEM's scoll components make it safe anyway (scoll/mpi, the
 * default, runs MPI_Bcast and ignores pSync; scoll/basic's binomial tree
 * sends to a child only once the child's pSync says it is ready, its
 * central counter ends in a barrier). Both were run back to back at 2 and
 * 8 PEs with every result checked. */
#define _POSIX_C_SOURCE 200112L

#include "harness.h"

#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "kumi-bench-shmem"

#define MAX2(a, b) ((a) > (b) ? (a) : (b))
#define PSYNC_LEN                                                                   \
    MAX2(MAX2(SHMEM_BCAST_SYNC_SIZE, SHMEM_COLLECT_SYNC_SIZE),                      \
         MAX2(MAX2(SHMEM_REDUCE_SYNC_SIZE, SHMEM_ALLTOALL_SYNC_SIZE), SHMEM_BARRIER_SYNC_SIZE))

static int me, npes;

/* Symmetric: static data is symmetric in OpenSHMEM, the rest is shmem_malloc'd. */
static long psync[2][PSYNC_LEN];
static _Alignas(64) long flag;      /* pingpong: the peer writes its sequence number here */
static long *counter;               /* atomic: PE 0's word, in the heap like kumi-bench's */
static unsigned char *src, *dst;
static double *pwrk[2];
static double *times;               /* gather: times[pe] on PE 0 */
static unsigned call_no;            /* which pSync/pWrk set is next */
static long seq;                    /* pingpong sequence number, never reset */

static void *shmalloc_or_exit(size_t n)
{
    void *p = shmem_malloc(n ? n : 64);
    if (!p) {
        fprintf(stderr,
                "%s: PE %d: shmem_malloc(%zu) failed; a larger symmetric heap "
                "(SHMEM_SYMMETRIC_SIZE, e.g. 1G) may help\n",
                PROG, me, n);
        shmem_global_exit(1);
    }
    memset(p, 0, n ? n : 64);
    return p;
}

static void shm_setup(enum peer_op op, size_t max_bytes)
{
    src = shmalloc_or_exit(peer_src_size(op, max_bytes, npes));
    dst = shmalloc_or_exit(peer_dst_size(op, max_bytes, npes));
    if (op == PEER_ALLREDUCE) {
        size_t nwrk = MAX2(max_bytes / 8 / 2 + 1, (size_t)SHMEM_REDUCE_MIN_WRKDATA_SIZE);
        pwrk[0] = shmalloc_or_exit(nwrk * sizeof(double));
        pwrk[1] = shmalloc_or_exit(nwrk * sizeof(double));
    }
    times = shmalloc_or_exit((size_t)npes * sizeof(double));
    counter = shmalloc_or_exit(64);
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < PSYNC_LEN; i++)
            psync[s][i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
}

static void shm_prepare(enum peer_op op, size_t bytes)
{
    memset(dst, 0, peer_dst_size(op, bytes, npes));
    peer_fill_source(op, bytes, me, npes, src);
    *counter = 0;
    shmem_barrier_all();
}

/* OpenSHMEM 1.5 (kumi's binding): the team collectives the specification
 * now recommends; 1.4 (Debian's OSHMEM 4.1): the active-set forms. */
#if defined(SHMEM_MAJOR_VERSION) && defined(SHMEM_MINOR_VERSION) \
    && (SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION) >= 105
#define KUMI_PEER_SHMEM_TEAMS 1
#else
#define KUMI_PEER_SHMEM_TEAMS 0
#endif

static void shm_run(enum peer_op op, size_t bytes, long n)
{
    const size_t count = bytes / 8;
    switch (op) {
    case PEER_BARRIER:
        for (long i = 0; i < n; i++)
            shmem_barrier_all();
        break;
    case PEER_ALLREDUCE:
#if KUMI_PEER_SHMEM_TEAMS
        for (long i = 0; i < n; i++)
            shmem_double_sum_reduce(SHMEM_TEAM_WORLD, (double *)dst, (const double *)src, count);
#else
        for (long i = 0; i < n; i++, call_no++)
            shmem_double_sum_to_all((double *)dst, (const double *)src, (int)count, 0, 0, npes,
                                    pwrk[call_no & 1], psync[call_no & 1]);
#endif
        break;
    case PEER_BROADCAST:
        /* The root's own dst is not written (OpenSHMEM semantics). */
#if KUMI_PEER_SHMEM_TEAMS
        for (long i = 0; i < n; i++)
            shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, bytes, 0);
#else
        for (long i = 0; i < n; i++, call_no++)
            shmem_broadcast64(dst, src, count, 0, 0, 0, npes, psync[call_no & 1]);
#endif
        break;
    case PEER_ALLGATHER:
        for (long i = 0; i < n; i++, call_no++)
            shmem_fcollect64(dst, src, count, 0, 0, npes, psync[call_no & 1]);
        break;
    case PEER_ALLTOALL:
        for (long i = 0; i < n; i++, call_no++)
            shmem_alltoall64(dst, src, count, 0, 0, npes, psync[call_no & 1]);
        break;
    case PEER_PUT:
        if (me == 0)
            for (long i = 0; i < n; i++) {
                shmem_putmem(dst, src, bytes, 1);
                shmem_quiet();
            }
        break;
    case PEER_GET:
        if (me == 0)
            for (long i = 0; i < n; i++)
                shmem_getmem(dst, src, bytes, 1);
        break;
    case PEER_PINGPONG: {
        /* The 8-byte message is the flag word itself; both PEs poll only
         * their own memory. */
        if (me > 1)
            break;
        const int peer = 1 - me;
        for (long i = 0; i < n; i++) {
            seq++;
            if (me == 1)
                shmem_long_wait_until(&flag, SHMEM_CMP_GE, seq);
            shmem_long_p(&flag, seq, peer);
            if (me == 0)
                shmem_long_wait_until(&flag, SHMEM_CMP_GE, seq);
        }
        break;
    }
    case PEER_ATOMIC:
        for (long i = 0; i < n; i++)
            (void)shmem_long_atomic_fetch_add(counter, 1, 0);
        break;
    default:
        break;
    }
}

static void shm_stream(enum peer_op op, size_t bytes, long n)
{
    if (me != 0)
        return;
    for (long i = 0; i < n; i++) {
        if (op == PEER_PUT)
            shmem_putmem(dst, src, bytes, 1);
        else
            shmem_getmem_nbi(dst, src, bytes, 1);
    }
    shmem_quiet();
}

static void shm_barrier(void)
{
    shmem_barrier_all();
}

static int shm_check(enum peer_op op, size_t bytes, long calls)
{
    int bad = 0;
    shmem_barrier_all();   /* completes every PE's puts and atomics */
    switch (op) {
    case PEER_ALLREDUCE:
    case PEER_ALLGATHER:
    case PEER_ALLTOALL:
        bad = peer_verify(PROG, op, bytes, me, npes, dst);
        break;
    case PEER_BROADCAST:
        if (me != 0)
            bad = peer_verify(PROG, op, bytes, me, npes, dst);
        break;
    case PEER_PUT:
        if (me == 1)
            bad = peer_verify(PROG, op, bytes, me, npes, dst);
        break;
    case PEER_GET:
        if (me == 0)
            bad = peer_verify(PROG, op, bytes, me, npes, dst);
        break;
    case PEER_PINGPONG:
        if (me <= 1 && flag != seq) {
            fprintf(stderr, "%s: PE %d: pingpong flag is %ld, want %ld\n", PROG, me, flag, seq);
            bad = -1;
        }
        break;
    case PEER_ATOMIC:
        if (me == 0 && *counter != (long)npes * calls) {
            fprintf(stderr, "%s: PE 0: atomic counter is %ld, want %ld\n", PROG, *counter,
                    (long)npes * calls);
            bad = -1;
        }
        break;
    default:
        break;
    }
    return bad;
}

static void shm_gather(double my_us, double *all_us)
{
    shmem_double_p(&times[me], my_us, 0);
    shmem_barrier_all();
    if (me == 0)
        memcpy(all_us, times, (size_t)npes * sizeof(double));
    shmem_barrier_all();   /* times[] is free for the next size */
}

static void shm_teardown(enum peer_op op)
{
    shmem_barrier_all();
    if (op == PEER_ALLREDUCE) {
        shmem_free(pwrk[1]);
        shmem_free(pwrk[0]);
    }
    shmem_free(times);
    shmem_free(dst);
    shmem_free(src);
}

static void shm_abort_job(int code)
{
    shmem_global_exit(code);
}

int main(int argc, char **argv)
{
    const unsigned ops = PEER_OP_BIT(PEER_BARRIER) | PEER_OP_BIT(PEER_ALLREDUCE) |
                         PEER_OP_BIT(PEER_BROADCAST) | PEER_OP_BIT(PEER_ALLGATHER) |
                         PEER_OP_BIT(PEER_ALLTOALL) | PEER_OP_BIT(PEER_PUT) |
                         PEER_OP_BIT(PEER_GET) | PEER_OP_BIT(PEER_PINGPONG) |
                         PEER_OP_BIT(PEER_ATOMIC);
    struct peer_opts opts;
    peer_opts_parse(argc, argv, PROG, ops,
                    "reduce is not offered: OpenSHMEM 1.4 has no reduce-to-root.\n"
                    "run: oshrun [--allow-run-as-root] [--oversubscribe] -n P " PROG " OP ...",
                    &opts);

    /* Debian's Open MPI 4.1.4 OSHMEM crashes in shmem_finalize: the osc/rdma
     * component frees memory after the memory hooks of a closed component
     * ran (opal_mem_hooks_release_hook). OSHMEM does not use MPI windows, so
     * leave that component out unless the user chose osc components. */
    setenv("OMPI_MCA_osc", "^rdma", 0);

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();

    const struct peer_backend be = {
        .prog = PROG, .impl = "oshmem", .ops = ops, .me = me, .npes = npes,
        .setup = shm_setup, .prepare = shm_prepare, .run = shm_run, .stream = shm_stream,
        .barrier = shm_barrier, .check = shm_check, .gather = shm_gather,
        .teardown = shm_teardown, .abort_job = shm_abort_job,
    };
    int status = peer_run(&be, &opts);
    fflush(stdout);
    fflush(stderr);
    shmem_finalize();
    return status;
}
