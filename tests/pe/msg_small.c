/*
 * msg_small.c -- every small message size, byte for byte: the paths that
 * copy small payloads without memcpy (transport/shm's records of a 16-byte
 * header and up to 16 bytes, msg/'s kumi_msg_copy of up to 16 bytes) must
 * carry each size from 0 to 40 bytes exactly, and write nothing past the
 * message into a larger receive buffer.
 *
 * To the right neighbour and to itself, each size twice: with the receive
 * posted before the message arrives (matched in the handler, copied
 * straight from the transport) and after (the message waits as unexpected
 * and is copied from there). Contents depend on size, sender and round, so
 * a byte from a neighbouring message or a stale record shows.
 */
#include "pe_test.h"

#define MAXB  40
#define GUARD 24

static unsigned char pattern(int src, int size, int round, int i)
{
    return (unsigned char)(0x5a ^ (src * 31 + size * 7 + round * 101 + i * 13));
}

static void check(const unsigned char *buf, int src, int size, int round, const kumi_status_t *st)
{
    CHECK(st->bytes == (size_t)size && st->tag == size, "size %d: status %zu bytes, tag %d",
          size, st->bytes, st->tag);
    for (int i = 0; i < size; i++)
        CHECK(buf[i] == pattern(src, size, round, i), "size %d from %d (round %d): byte %d is "
              "%#x, not %#x", size, src, round, i, buf[i], pattern(src, size, round, i));
    for (int i = size; i < MAXB + GUARD; i++)
        CHECK(buf[i] == 0xee, "size %d from %d (round %d): byte %d past the message written "
              "(%#x)", size, src, round, i, buf[i]);
}

int main(void)
{
    OK(kumi_init());
    int            me = kumi_rank(), npes = kumi_size();
    int            right = (me + 1) % npes, left = (me + npes - 1) % npes;
    kumi_team_t    world = kumi_team_world();
    unsigned char  out[2][MAXB], in[2][MAXB + GUARD];
    kumi_request_t rq[4];
    kumi_status_t  st[4];

    for (int round = 0; round < 2; round++)   /* 0: posted first; 1: unexpected */
        for (int size = 0; size <= MAXB; size++) {
            for (int i = 0; i < MAXB; i++) {
                out[0][i] = pattern(me, size, round, i);
                out[1][i] = pattern(me, size, round, i);
            }
            memset(in, 0xee, sizeof in);
            if (round == 0) {
                OK(kumi_irecv(in[0], sizeof in[0], left, size, world, &rq[0]));
                OK(kumi_irecv(in[1], sizeof in[1], me, size, world, &rq[1]));
                BARRIER();   /* both receives posted everywhere */
                OK(kumi_isend(out[0], (size_t)size, right, size, world, &rq[2]));
                OK(kumi_isend(out[1], (size_t)size, me, size, world, &rq[3]));
            } else {
                OK(kumi_isend(out[0], (size_t)size, right, size, world, &rq[2]));
                OK(kumi_isend(out[1], (size_t)size, me, size, world, &rq[3]));
                BARRIER();   /* sent (eager: arrived or on its way) before any receive */
                OK(kumi_irecv(in[0], sizeof in[0], left, size, world, &rq[0]));
                OK(kumi_irecv(in[1], sizeof in[1], me, size, world, &rq[1]));
            }
            OK(kumi_waitall(4, rq, st));
            check(in[0], left, size, round, &st[0]);
            check(in[1], me, size, round, &st[1]);
        }
    OK(kumi_finalize());
    if (me == 0)
        printf("msg_small: sizes 0..%d, posted and unexpected, on %d PEs\n", MAXB, npes);
    return 0;
}
