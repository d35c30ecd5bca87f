/* bench_mpi.c -- kumi-bench-mpi: kumi-bench's loops on Open MPI.
 *
 * One-sided ops use one passive-target epoch (MPI_Win_lock_all) for the
 * whole sweep and MPI_Win_flush after every operation, so a put/get/atomic
 * is timed to its completion, as kumi_put + kumi_quiet would be.
 *
 * send is put's loop on two-sided messages, for comparing kumi's put with
 * MPI's native path where MPI's one-sided ops are emulated (btl tcp): a
 * blocking MPI_Send to PE 1 completed by PE 1's empty acknowledgement
 * (latency), or iters sends back to back and one acknowledgement after the
 * last (stream, mb_per_s), as kumi_put ... kumi_quiet.
 *
 * send-lat, send-bw, send-bibw, send-rate and send-any are kumi-bench's
 * two-sided loops (bench/kumi_bench_send.c) step for step: the same
 * windows of PEER_WINDOW nonblocking operations, the same tags and acks,
 * MPI_ANY_SOURCE where kumi uses KUMI_ANY_SOURCE.
 *
 * The same source built by kumi's own mpicc (bindings/mpi; KUMI_MPI is
 * defined) is kumi-compare's "kmpi": kumi's MPI subset has no one-sided
 * communication, so put, get and atomic are left out there. */
#define _POSIX_C_SOURCE 200112L

#include "harness.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "kumi-bench-mpi"

#ifdef KUMI_MPI
#define PEER_ONE_SIDED 0   /* kumi's MPI subset: no MPI_Put, MPI_Get, ... */
#else
#define PEER_ONE_SIDED 1
#endif

static int me, npes;
static unsigned char *src, *dst;   /* local buffers */
#if PEER_ONE_SIDED
static MPI_Win win = MPI_WIN_NULL;
#endif
static MPI_Request *reqs;          /* the send-* ops' windows */
#if PEER_ONE_SIDED
static unsigned char *win_mem;     /* put/get target, atomic counter */
#endif

static void *alloc_or_abort(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, n ? n : 64) != 0) {
        fprintf(stderr, "%s: PE %d: cannot allocate %zu bytes\n", PROG, me, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(p, 0, n ? n : 64);
    return p;
}

static void mpi_setup(enum peer_op op, size_t max_bytes)
{
    src = alloc_or_abort(peer_src_size(op, max_bytes, npes));
    dst = alloc_or_abort(peer_dst_size(op, max_bytes, npes));
    reqs = alloc_or_abort(sizeof *reqs * 2 * PEER_WINDOW * (size_t)(npes > 2 ? npes : 2));
#if PEER_ONE_SIDED
    if (op == PEER_PUT || op == PEER_GET || op == PEER_ATOMIC) {
        MPI_Aint size = op == PEER_ATOMIC ? (MPI_Aint)sizeof(int64_t) : (MPI_Aint)max_bytes;
        MPI_Win_allocate(size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win_mem, &win);
        memset(win_mem, 0, (size_t)size);
        MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    }
#endif
    MPI_Barrier(MPI_COMM_WORLD);
}

static void mpi_prepare(enum peer_op op, size_t bytes)
{
    memset(dst, 0, peer_dst_size(op, bytes, npes));
    peer_fill_source(op, bytes, me, npes, src);
    if (op == PEER_BROADCAST && me == 0)
        peer_fill_source(op, bytes, me, npes, dst);   /* MPI_Bcast works in place */
#if PEER_ONE_SIDED
    if (win != MPI_WIN_NULL) {
        if (op == PEER_GET)
            peer_fill_source(op, bytes, me, npes, win_mem);
        else
            memset(win_mem, 0, op == PEER_ATOMIC ? sizeof(int64_t) : bytes);
        MPI_Win_sync(win);
    }
#endif
    MPI_Barrier(MPI_COMM_WORLD);
}

/* n round trips of nb bytes between PEs 0 and 1; PE 1 answers with echo
 * (src for pingpong, dst, what it received, for send-lat). */
static void mpi_pingpong(int nb, long n, const unsigned char *echo)
{
    if (me == 0)
        for (long i = 0; i < n; i++) {
            MPI_Send(src, nb, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(dst, nb, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    else if (me == 1)
        for (long i = 0; i < n; i++) {
            MPI_Recv(dst, nb, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(echo, nb, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
}

/* PE 0 sends n messages of nb bytes to PE 1, which acknowledges the last
 * one with an empty message: returns when all n have arrived. */
static void mpi_send_acked(int nb, long n)
{
    if (me == 0) {
        for (long i = 0; i < n; i++)
            MPI_Send(src, nb, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
        MPI_Recv(NULL, 0, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (me == 1) {
        for (long i = 0; i < n; i++)
            MPI_Recv(dst, nb, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(NULL, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
    }
}

/* One window of send-bw / send-rate: PE 0 isends PEER_WINDOW messages,
 * PE 1 irecvs them, both wait, PE 1 acks with one byte. */
static void mpi_window(int nb)
{
    char ack = 0;
    if (me > 1)
        return;
    for (int i = 0; i < PEER_WINDOW; i++) {
        if (me == 0)
            MPI_Isend(src, nb, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &reqs[i]);
        else
            MPI_Irecv(dst, nb, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &reqs[i]);
    }
    MPI_Waitall(PEER_WINDOW, reqs, MPI_STATUSES_IGNORE);
    if (me == 0)
        MPI_Recv(&ack, 1, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        MPI_Send(&ack, 1, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
}

/* send-bibw: a window in and a window out at once between PEs 0 and 1. */
static void mpi_bibw(int nb)
{
    int peer = 1 - me;
    if (me > 1)
        return;
    for (int i = 0; i < PEER_WINDOW; i++)
        MPI_Irecv(dst, nb, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &reqs[i]);
    for (int i = 0; i < PEER_WINDOW; i++)
        MPI_Isend(src, nb, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &reqs[PEER_WINDOW + i]);
    MPI_Waitall(2 * PEER_WINDOW, reqs, MPI_STATUSES_IGNORE);
}

/* send-any: every PE but 0 isends a window to PE 0, which receives all of
 * them from MPI_ANY_SOURCE and then acknowledges each sender. */
static void mpi_any(int nb)
{
    char ack = 0;
    if (me != 0) {
        for (int i = 0; i < PEER_WINDOW; i++)
            MPI_Isend(src, nb, MPI_BYTE, 0, 4, MPI_COMM_WORLD, &reqs[i]);
        MPI_Waitall(PEER_WINDOW, reqs, MPI_STATUSES_IGNORE);
        MPI_Recv(&ack, 1, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        return;
    }
    int total = PEER_WINDOW * (npes - 1);
    for (int i = 0; i < total; i++)
        MPI_Irecv(dst, nb, MPI_BYTE, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &reqs[i]);
    MPI_Waitall(total, reqs, MPI_STATUSES_IGNORE);
    for (int r = 1; r < npes; r++)
        MPI_Send(&ack, 1, MPI_BYTE, r, 5, MPI_COMM_WORLD);
}

static void mpi_run(enum peer_op op, size_t bytes, long n)
{
    const int count = (int)(bytes / 8);
    const int nb = (int)bytes;
    switch (op) {
    case PEER_BARRIER:
        for (long i = 0; i < n; i++)
            MPI_Barrier(MPI_COMM_WORLD);
        break;
    case PEER_ALLREDUCE:
        for (long i = 0; i < n; i++)
            MPI_Allreduce(src, dst, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        break;
    case PEER_REDUCE:
        for (long i = 0; i < n; i++)
            MPI_Reduce(src, dst, count, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        break;
    case PEER_IALLREDUCE:
        for (long i = 0; i < n; i++) {
            MPI_Request r;
            MPI_Iallreduce(src, dst, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        break;
    case PEER_BROADCAST:
        for (long i = 0; i < n; i++)
            MPI_Bcast(dst, count, MPI_UINT64_T, 0, MPI_COMM_WORLD);
        break;
    case PEER_ALLGATHER:
        for (long i = 0; i < n; i++)
            MPI_Allgather(src, count, MPI_UINT64_T, dst, count, MPI_UINT64_T, MPI_COMM_WORLD);
        break;
    case PEER_ALLTOALL:
        for (long i = 0; i < n; i++)
            MPI_Alltoall(src, count, MPI_UINT64_T, dst, count, MPI_UINT64_T, MPI_COMM_WORLD);
        break;
#if PEER_ONE_SIDED
    case PEER_PUT:
        if (me == 0)
            for (long i = 0; i < n; i++) {
                MPI_Put(src, nb, MPI_BYTE, 1, 0, nb, MPI_BYTE, win);
                MPI_Win_flush(1, win);
            }
        break;
    case PEER_GET:
        if (me == 0)
            for (long i = 0; i < n; i++) {
                MPI_Get(dst, nb, MPI_BYTE, 1, 0, nb, MPI_BYTE, win);
                MPI_Win_flush(1, win);
            }
        break;
#endif
    case PEER_PINGPONG:
        mpi_pingpong(nb, n, src);
        break;
    case PEER_SEND:
        for (long i = 0; i < n; i++)
            mpi_send_acked(nb, 1);
        break;
    case PEER_SEND_LAT:   /* PE 1 sends back what it received */
        mpi_pingpong(nb, n, dst);
        break;
    case PEER_SEND_BW:
    case PEER_SEND_RATE:
        for (long i = 0; i < n; i++)
            mpi_window(nb);
        break;
    case PEER_SEND_BIBW:
        for (long i = 0; i < n; i++)
            mpi_bibw(nb);
        break;
    case PEER_SEND_ANY:
        for (long i = 0; i < n; i++)
            mpi_any(nb);
        break;
#if PEER_ONE_SIDED
    case PEER_ATOMIC: {
        const int64_t one = 1;
        int64_t old;
        for (long i = 0; i < n; i++) {
            MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, 0, MPI_SUM, win);
            MPI_Win_flush(0, win);
        }
        break;
    }
#endif
    default:
        break;
    }
}

static void mpi_stream(enum peer_op op, size_t bytes, long n)
{
    const int nb = (int)bytes;
    if (op == PEER_SEND) {
        mpi_send_acked(nb, n);
        return;
    }
#if PEER_ONE_SIDED
    if (me != 0)
        return;
    for (long i = 0; i < n; i++) {
        if (op == PEER_PUT)
            MPI_Put(src, nb, MPI_BYTE, 1, 0, nb, MPI_BYTE, win);
        else
            MPI_Get(dst, nb, MPI_BYTE, 1, 0, nb, MPI_BYTE, win);
    }
    MPI_Win_flush(1, win);
#endif
}

static void mpi_barrier(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

static int mpi_check(enum peer_op op, size_t bytes, long calls)
{
    int bad = 0;
    MPI_Barrier(MPI_COMM_WORLD);
#if PEER_ONE_SIDED
    if (win != MPI_WIN_NULL)
        MPI_Win_sync(win);   /* see what the others wrote into my window */
#endif
    switch (op) {
    case PEER_ALLREDUCE:
    case PEER_IALLREDUCE:
    case PEER_BROADCAST:
    case PEER_ALLGATHER:
    case PEER_ALLTOALL:
        bad = peer_verify(PROG, op, bytes, me, npes, dst);
        break;
    case PEER_REDUCE:
    case PEER_GET:
        if (me == 0)
            bad = peer_verify(PROG, op, bytes, me, npes, dst);
        break;
#if PEER_ONE_SIDED
    case PEER_PUT:
        if (me == 1)
            bad = peer_verify(PROG, op, bytes, me, npes, win_mem);
        break;
#endif
    case PEER_PINGPONG:
    case PEER_SEND_LAT:
        if (me <= 1)
            bad = peer_verify(PROG, op, bytes, me, npes, dst);
        break;
    case PEER_SEND:
    case PEER_SEND_BW:
    case PEER_SEND_RATE:
        if (me == 1 && calls > 0)
            bad = peer_verify(PROG, op, bytes, me, npes, dst);
        break;
    case PEER_SEND_BIBW:
        if (me <= 1 && calls > 0)
            bad = peer_verify(PROG, op, bytes, me, npes, dst);
        break;
    case PEER_SEND_ANY:
        if (me == 0 && calls > 0)
            bad = peer_verify(PROG, op, bytes, me, npes, dst);
        break;
#if PEER_ONE_SIDED
    case PEER_ATOMIC:
        if (me == 0) {
            int64_t got, want = (int64_t)npes * calls;
            memcpy(&got, win_mem, sizeof got);
            if (got != want) {
                fprintf(stderr, "%s: PE 0: atomic counter is %lld, want %lld\n", PROG,
                        (long long)got, (long long)want);
                bad = -1;
            }
        }
        break;
#endif
    default:
        break;
    }
    return bad;
}

static void mpi_gather(double my_us, double *all_us)
{
    MPI_Gather(&my_us, 1, MPI_DOUBLE, all_us, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}

static void mpi_teardown(enum peer_op op)
{
    (void)op;
#if PEER_ONE_SIDED
    if (win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(win);
        MPI_Win_free(&win);
    }
#endif
    free(src);
    free(dst);
    free(reqs);
    src = dst = NULL;
    reqs = NULL;
}

static void mpi_abort_job(int code)
{
    MPI_Abort(MPI_COMM_WORLD, code);
}

int main(int argc, char **argv)
{
    const unsigned one_sided = PEER_ONE_SIDED ? PEER_OP_BIT(PEER_PUT) | PEER_OP_BIT(PEER_GET) |
                                                    PEER_OP_BIT(PEER_ATOMIC)
                                              : 0;
    const unsigned ops = PEER_OP_BIT(PEER_BARRIER) | PEER_OP_BIT(PEER_ALLREDUCE) |
                         PEER_OP_BIT(PEER_REDUCE) | PEER_OP_BIT(PEER_BROADCAST) |
                         PEER_OP_BIT(PEER_ALLGATHER) | PEER_OP_BIT(PEER_ALLTOALL) | one_sided |
                         PEER_OP_BIT(PEER_PINGPONG) |
                         PEER_OP_BIT(PEER_SEND) | PEER_OP_BIT(PEER_SEND_LAT) |
                         PEER_OP_BIT(PEER_SEND_BW) | PEER_OP_BIT(PEER_SEND_BIBW) |
                         PEER_OP_BIT(PEER_SEND_RATE) | PEER_OP_BIT(PEER_SEND_ANY) |
                         PEER_OP_BIT(PEER_IALLREDUCE);
    struct peer_opts opts;
    peer_opts_parse(argc, argv, PROG, ops,
                    "run: mpirun [--allow-run-as-root] [--oversubscribe] -n P " PROG " OP ...",
                    &opts);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);

    const struct peer_backend be = {
        .prog = PROG, .impl = "mpi", .ops = ops, .me = me, .npes = npes,
        .setup = mpi_setup, .prepare = mpi_prepare, .run = mpi_run, .stream = mpi_stream,
        .barrier = mpi_barrier, .check = mpi_check, .gather = mpi_gather,
        .teardown = mpi_teardown, .abort_job = mpi_abort_job,
    };
    int status = peer_run(&be, &opts);
    MPI_Finalize();
    return status;
}
