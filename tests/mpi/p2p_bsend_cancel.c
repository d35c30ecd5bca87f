/*
 * p2p_bsend_cancel.c -- MPI_Cancel of buffered sends. Every rank sends to
 * its right neighbour (itself at 1 rank) from an attached buffer and
 * receives from its left one.
 *
 *   ibsend   an MPI_Ibsend (8 bytes, then 256 KiB) no receive matches yet,
 *            cancelled: the Wait completes it, MPI_Test_cancelled says 1,
 *            the receiver never sees it, and MPI_Buffer_detach returns
 *            (the message no longer holds the buffer)
 *   persist  a started MPI_Bsend_init, cancelled the same way; restarted,
 *            it is delivered normally
 *   matched  an MPI_Ibsend whose message was received before the cancel:
 *            not cancelled
 * Before, the request of a buffered send was complete when it started and
 * MPI_Cancel left its message in the buffer: cancelled 0, and at 1 rank
 * MPI_Buffer_detach waited for ever for a message nobody receives
 * (MPICH's scancel and pscancel). Rank 0 prints one line per part:
 *   ibsend: cancelled 1 1, not received
 *   persist: cancelled 1, then received when restarted
 *   matched: cancelled 0, received
 */
#include "core_test.h"

#define BIG (256 * 1024)

static int right, left;

static void attach(int bytes)
{
    void *b = malloc((size_t)bytes + MPI_BSEND_OVERHEAD);
    CHECK(b != NULL, "malloc");
    MPI_OK(MPI_Buffer_attach(b, bytes + MPI_BSEND_OVERHEAD));
}

static void detach(void)
{
    void *b;
    int   n;
    MPI_OK(MPI_Buffer_detach(&b, &n));
    free(b);
}

static int ibsend_cancelled(unsigned char *s, int n, int tag)
{
    MPI_Request r;
    MPI_Status  st;
    attach(n);
    t_fill(s, (size_t)n, t_rank, right, tag, 1);
    MPI_OK(MPI_Ibsend(s, n, MPI_BYTE, right, tag, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Cancel(&r));
    MPI_OK(MPI_Wait(&r, &st));
    int flag = t_cancelled(&st);
    CHECK(flag == 1 && r == MPI_REQUEST_NULL, "ibsend of %d bytes: cancelled %d", n, flag);
    detach();   /* at once: nothing is left in the buffer */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    t_nothing_there(left, tag);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    return flag;
}

static void part_persist(unsigned char *s, unsigned char *b)
{
    MPI_Request p;
    attach(BIG);
    MPI_OK(MPI_Bsend_init(s, BIG, MPI_BYTE, right, 3, MPI_COMM_WORLD, &p));
    int flag = t_persist_cancel(&p, s, b, BIG, right, left, 3);
    MPI_OK(MPI_Request_free(&p));
    detach();
    SAY("persist: cancelled %d, then received when restarted\n", flag);
}

static void part_matched(unsigned char *s, unsigned char *b)
{
    MPI_Request r, rr;
    MPI_Status  st;
    attach(64);
    MPI_OK(MPI_Irecv(b, 64, MPI_BYTE, left, 4, MPI_COMM_WORLD, &rr));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    t_fill(s, 64, t_rank, right, 4, 1);
    MPI_OK(MPI_Ibsend(s, 64, MPI_BYTE, right, 4, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&rr, &st));
    t_verify(b, 64, left, t_rank, 4, 1);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));   /* every message is received */
    MPI_OK(MPI_Cancel(&r));
    MPI_OK(MPI_Wait(&r, &st));
    int flag = t_cancelled(&st);
    CHECK(flag == 0, "matched: cancelled %d", flag);
    detach();
    SAY("matched: cancelled %d, received\n", flag);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    right = (t_rank + 1) % t_size;
    left  = (t_rank + t_size - 1) % t_size;
    unsigned char *s = malloc(BIG), *b = malloc(BIG);
    CHECK(s != NULL && b != NULL, "malloc");
    int f1 = ibsend_cancelled(s, 8, 1);
    int f2 = ibsend_cancelled(s, BIG, 2);
    SAY("ibsend: cancelled %d %d, not received\n", f1, f2);
    part_persist(s, b);
    part_matched(s, b);
    free(s);
    free(b);
    MPI_OK(MPI_Finalize());
    return 0;
}
