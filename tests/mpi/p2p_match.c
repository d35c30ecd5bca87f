/*
 * p2p_match.c -- MPI matching and ordering through the binding.
 *
 *   combos  every rank sends every rank (itself included) PER_DEST messages
 *           of sizes 0 .. 200000 bytes (eager and rendezvous) with tags
 *           0..3, all outstanding at once (MPI_Isend); the receiver takes
 *           tag 0 by source and tag, tag 1 by MPI_ANY_SOURCE, tags 2 and 3
 *           by source and MPI_ANY_TAG, then a second round (tag 5) by
 *           ANY_SOURCE and ANY_TAG. Each (source, tag) stream must arrive
 *           in send order with the right size (MPI_Get_count) and bytes.
 *   posted  receives posted before the messages are sent match in posting
 *           order (ANY_SOURCE receives, and a specific source with ANY_TAG
 *           before an ANY_SOURCE receive of the tag)
 *   probe   MPI_Probe/MPI_Iprobe describe an eager and a rendezvous message
 *           without taking it; Iprobe of a tag nobody sent says no
 *   cancel  an unmatched receive is cancelled (MPI_Test_cancelled); a
 *           matched one is not and delivers its message
 *   sizes   0 bytes (count 0), and a large message (8 MiB) checked byte by
 *           byte, around the ring
 * Rank 0 prints one line per part.
 */
#include "core_test.h"

static const size_t sizes[] = { 0, 1, 8, 100, 4080, 4081, 65536, 200000, 13, 3000 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
#define MAXSIZE 200000
#define PER_DEST 24

static size_t size_of(int tag, int idx)
{
    return sizes[(size_t)(tag * 3 + idx) % NSIZES];
}

static void part_combos(void)
{
    int            nsend = t_size * PER_DEST;
    MPI_Request   *sreq  = calloc((size_t)nsend + (size_t)t_size * 3, sizeof(*sreq));
    unsigned char **sbuf = calloc((size_t)nsend, sizeof(*sbuf));
    unsigned char *rbuf  = malloc(MAXSIZE);
    int           *next  = calloc((size_t)t_size * 6, sizeof(int));   /* [src][tag] */
    MPI_Status     st;
    CHECK(sreq && sbuf && rbuf && next, "malloc");

    /* stream k to dst: tag k % 4, index k / 4 within its (src, dst, tag) */
    for (int dst = 0, n = 0; dst < t_size; dst++)
        for (int k = 0; k < PER_DEST; k++, n++) {
            int tag = k % 4, idx = k / 4;
            size_t len = size_of(tag, idx);
            sbuf[n] = malloc(len ? len : 1);
            CHECK(sbuf[n] != NULL, "malloc");
            t_fill(sbuf[n], len, t_rank, dst, tag, idx);
            MPI_OK(MPI_Isend(sbuf[n], (int)len, MPI_BYTE, dst, tag, MPI_COMM_WORLD, &sreq[n]));
        }
    /* tag 0: by source and tag */
    for (int src = 0; src < t_size; src++)
        for (int idx = 0; idx < PER_DEST / 4; idx++) {
            MPI_OK(MPI_Recv(rbuf, MAXSIZE, MPI_BYTE, src, 0, MPI_COMM_WORLD, &st));
            CHECK(st.MPI_SOURCE == src && st.MPI_TAG == 0, "source %d tag %d", st.MPI_SOURCE,
                  st.MPI_TAG);
            CHECK(t_count(&st, MPI_BYTE) == (int)size_of(0, idx), "count %d, expected %zu",
                  t_count(&st, MPI_BYTE), size_of(0, idx));
            t_verify(rbuf, size_of(0, idx), src, t_rank, 0, idx);
        }
    /* tag 1: from any source, in order per source */
    for (int n = 0; n < t_size * PER_DEST / 4; n++) {
        MPI_OK(MPI_Recv(rbuf, MAXSIZE, MPI_BYTE, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st));
        int src = st.MPI_SOURCE, idx = next[src * 6 + 1]++;
        CHECK(src >= 0 && src < t_size && st.MPI_TAG == 1, "source %d tag %d", src, st.MPI_TAG);
        CHECK(t_count(&st, MPI_BYTE) == (int)size_of(1, idx), "tag 1 from %d: count %d, "
              "expected %zu", src, t_count(&st, MPI_BYTE), size_of(1, idx));
        t_verify(rbuf, size_of(1, idx), src, t_rank, 1, idx);
    }
    /* tags 2 and 3: by source, any tag */
    for (int src = 0; src < t_size; src++)
        for (int n = 0; n < 2 * PER_DEST / 4; n++) {
            MPI_OK(MPI_Recv(rbuf, MAXSIZE, MPI_BYTE, src, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            int tag = st.MPI_TAG, idx;
            CHECK(st.MPI_SOURCE == src && (tag == 2 || tag == 3), "source %d tag %d",
                  st.MPI_SOURCE, tag);
            idx = next[src * 6 + tag]++;
            CHECK(t_count(&st, MPI_BYTE) == (int)size_of(tag, idx), "count");
            t_verify(rbuf, size_of(tag, idx), src, t_rank, tag, idx);
        }
    MPI_OK(MPI_Waitall(nsend, sreq, MPI_STATUSES_IGNORE));
    /* tag 5, three to everyone, taken by ANY_SOURCE and ANY_TAG */
    unsigned char (*small)[16] = malloc(sizeof(*small) * 3 * (size_t)t_size);
    CHECK(small != NULL, "malloc");
    for (int dst = 0, n = 0; dst < t_size; dst++)
        for (int idx = 0; idx < 3; idx++, n++) {
            t_fill(small[n], sizeof small[n], t_rank, dst, 5, idx);
            MPI_OK(MPI_Isend(small[n], 16, MPI_BYTE, dst, 5, MPI_COMM_WORLD, &sreq[n]));
        }
    for (int n = 0; n < 3 * t_size; n++) {
        MPI_OK(MPI_Recv(rbuf, 16, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        int src = st.MPI_SOURCE, idx = next[src * 6 + 5]++;
        CHECK(st.MPI_TAG == 5 && idx < 3, "tag %d, message %d from %d", st.MPI_TAG, idx, src);
        t_verify(rbuf, 16, src, t_rank, 5, idx);
    }
    MPI_OK(MPI_Waitall(3 * t_size, sreq, MPI_STATUSES_IGNORE));
    free(small);
    for (int n = 0; n < nsend; n++)
        free(sbuf[n]);
    free(sbuf);
    free(sreq);
    free(rbuf);
    free(next);
    SAY("combos: %d streams per rank pair in order, sizes 0..%d\n", 4, MAXSIZE);
}

/* receives posted first: rank 0 posts, everyone else sends after a barrier */
static void part_posted(void)
{
    int         nmsg = 2 * (t_size - 1);
    int        *got  = calloc((size_t)nmsg + 2, sizeof(int));
    MPI_Request *r   = calloc((size_t)nmsg + 2, sizeof(*r));
    MPI_Status  *st  = calloc((size_t)nmsg + 2, sizeof(*st));
    CHECK(got && r && st, "malloc");

    if (t_rank == 0) {
        /* first 2 receives: rank 1 with ANY_TAG, then ANY_SOURCE with tag 9:
         * rank 1's tag 9 message must go to the first */
        if (t_size > 1) {
            MPI_OK(MPI_Irecv(&got[0], 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &r[0]));
            MPI_OK(MPI_Irecv(&got[1], 1, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &r[1]));
        }
        for (int i = 2; i < nmsg; i++)
            MPI_OK(MPI_Irecv(&got[i], 1, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &r[i]));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (t_rank != 0)
        for (int k = 0; k < 2; k++) {
            int v = t_rank * 100 + k;
            MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 9, MPI_COMM_WORLD));
        }
    if (t_rank == 0 && t_size > 1) {
        MPI_OK(MPI_Waitall(nmsg, r, st));
        CHECK(got[0] == 100 && st[0].MPI_SOURCE == 1, "first receive got %d from %d", got[0],
              st[0].MPI_SOURCE);
        /* every rank's two messages arrive in order: k = 0 before k = 1 */
        int *seen = calloc((size_t)t_size, sizeof(int));
        CHECK(seen != NULL, "malloc");
        seen[1] = 1;
        for (int i = 1; i < nmsg; i++) {
            int src = got[i] / 100, k = got[i] % 100;
            CHECK(src >= 1 && src < t_size && st[i].MPI_SOURCE == src && st[i].MPI_TAG == 9,
                  "receive %d got %d from %d", i, got[i], st[i].MPI_SOURCE);
            CHECK(k == seen[src]++, "rank %d's message %d came out of order", src, k);
        }
        free(seen);
    }
    free(got);
    free(r);
    free(st);
    SAY("posted: receives match in posting order\n");
}

static void part_probe(void)
{
    int         right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size, flag;
    size_t      big = 100000;
    unsigned char *a = malloc(big), *b = malloc(big);
    MPI_Request r[2];
    MPI_Status  st;
    CHECK(a && b, "malloc");

    t_fill(a, 1000, t_rank, right, 7, 0);
    MPI_OK(MPI_Isend(a, 1000, MPI_BYTE, right, 7, MPI_COMM_WORLD, &r[0]));
    MPI_OK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 7 && t_count(&st, MPI_BYTE) == 1000,
          "probe: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, t_count(&st, MPI_BYTE));
    MPI_OK(MPI_Iprobe(left, 8, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag == 0, "iprobe found a tag-8 message nobody sent");
    MPI_OK(MPI_Iprobe(left, 7, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag == 1 && t_count(&st, MPI_BYTE) == 1000, "iprobe: flag %d", flag);
    MPI_OK(MPI_Recv(b, 1000, MPI_BYTE, left, 7, MPI_COMM_WORLD, &st));
    t_verify(b, 1000, left, t_rank, 7, 0);
    MPI_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    /* a rendezvous message: probed by size, then received */
    t_fill(a, big, t_rank, right, 6, 1);
    MPI_OK(MPI_Isend(a, (int)big, MPI_BYTE, right, 6, MPI_COMM_WORLD, &r[1]));
    MPI_OK(MPI_Probe(left, 6, MPI_COMM_WORLD, &st));
    CHECK(t_count(&st, MPI_BYTE) == (int)big, "probe of a large message: count %d",
          t_count(&st, MPI_BYTE));
    MPI_OK(MPI_Recv(b, (int)big, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st));
    t_verify(b, big, left, t_rank, 6, 1);
    MPI_OK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
    free(a);
    free(b);
    SAY("probe: Probe and Iprobe describe eager and rendezvous messages\n");
}

static void part_cancel(void)
{
    int         v = 0, w = 42, flag;
    MPI_Request r, s;
    MPI_Status  st;

    /* nobody sends tag 99 */
    MPI_OK(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Cancel(&r));
    MPI_OK(MPI_Wait(&r, &st));
    MPI_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 1 && r == MPI_REQUEST_NULL, "unmatched receive: cancelled %d", flag);
    /* matched before the cancel (the message was there): not cancelled */
    MPI_OK(MPI_Isend(&w, 1, MPI_INT, t_rank, 98, MPI_COMM_WORLD, &s));
    MPI_OK(MPI_Probe(t_rank, 98, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Irecv(&v, 1, MPI_INT, t_rank, 98, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Test(&r, &flag, &st));
    if (!flag) {
        MPI_OK(MPI_Cancel(&r));
        MPI_OK(MPI_Wait(&r, &st));
    }
    MPI_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 0 && v == 42, "matched receive: cancelled %d, got %d", flag, v);
    SAY("cancel: an unmatched receive is cancelled, a matched one is not\n");
}

static void part_sizes(void)
{
    int         right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    size_t      big = 8u << 20;
    unsigned char *a = malloc(big), *b = malloc(big);
    MPI_Request r;
    MPI_Status  st;
    CHECK(a && b, "malloc");

    MPI_OK(MPI_Isend(a, 0, MPI_BYTE, right, 3, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Recv(b, 10, MPI_BYTE, left, 3, MPI_COMM_WORLD, &st));
    CHECK(t_count(&st, MPI_BYTE) == 0 && st.MPI_SOURCE == left && st.MPI_TAG == 3,
          "0-byte message: count %d", t_count(&st, MPI_BYTE));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    t_fill(a, big, t_rank, right, 4, 0);
    memset(b, 0, big);
    MPI_OK(MPI_Irecv(b, (int)big, MPI_BYTE, left, 4, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Send(a, (int)big, MPI_BYTE, right, 4, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(t_count(&st, MPI_BYTE) == (int)big, "large message: count %d", t_count(&st, MPI_BYTE));
    t_verify(b, big, left, t_rank, 4, 0);
    free(a);
    free(b);
    SAY("sizes: 0 bytes and 8 MiB around the ring\n");
}

int main(int argc, char **argv)
{
    const char *parts = argc > 1 ? argv[1] : "all";

    t_init(&argc, &argv);
#define PART(name) if (strcmp(parts, "all") == 0 || strstr(parts, #name) != NULL) part_##name();
    PART(combos)
    PART(posted)
    PART(probe)
    PART(cancel)
    PART(sizes)
    SAY("p2p_match: %d ranks ok\n", t_size);
    MPI_OK(MPI_Finalize());
    return 0;
}
