/*
 * msg_from.c -- a wait for one receive from a given source (on shm it
 * polls that source's queue alone, api.c's from_ready_wait) must still
 * serve everything else, and match as any wait does.
 *
 *   relay   (3 PEs or more) PE 0 posts a rendezvous receive from PE 2,
 *           then waits in kumi_recv for PE 1; PE 1 sends only once PE 2's
 *           rendezvous send to PE 0 completed (PE 2 tells it). So PE 0's
 *           kumi_recv returns only if its wait served PE 2's RTS (another
 *           source's queue, and the layer's matching and pull) meanwhile:
 *           a wait that polled PE 1 alone would hang here.
 *   tags    PE 1 sends tags 5, 6, 7, 2 (in that order) while PE 0 waits
 *           for tag 2 from it, then for tag 6, then twice for ANY_TAG from
 *           it (5, then 7): the messages met in PE 1's queue that are not
 *           the receive's wait as unexpected, in arrival order.
 * Both a few rounds, contents and statuses checked.
 */
#include <stdlib.h>

#include "pe_test.h"

#define BIG    200000   /* above KUMI_MSG_EAGER: rendezvous */
#define ROUNDS 20

static unsigned char pattern(int round, size_t i)
{
    return (unsigned char)(round * 37 + i * 7 + (i >> 9));
}

static void relay(kumi_team_t world, int me, unsigned char *big)
{
    uint64_t token = 0;

    for (int round = 0; round < ROUNDS; round++) {
        if (me == 0) {
            kumi_request_t r;
            kumi_status_t  st;
            memset(big, 0, BIG);
            OK(kumi_irecv(big, BIG, 2, 1, world, &r));
            OK(kumi_recv(&token, sizeof token, 1, 2, world, &st));
            CHECK(token == (uint64_t)round && st.source == 1 && st.tag == 2,
                  "round %d: token %llu from %d tag %d", round, (unsigned long long)token,
                  st.source, st.tag);
            OK(kumi_wait(&r, &st));
            CHECK(st.source == 2 && st.bytes == BIG, "round %d: big from %d, %zu bytes", round,
                  st.source, st.bytes);
            for (size_t i = 0; i < BIG; i++)
                CHECK(big[i] == pattern(round, i), "round %d: byte %zu is %u, not %u", round, i,
                      big[i], pattern(round, i));
        } else if (me == 1) {
            OK(kumi_recv(&token, sizeof token, 2, 3, world, KUMI_STATUS_IGNORE));
            CHECK(token == (uint64_t)round, "round %d: token %llu from PE 2", round,
                  (unsigned long long)token);
            OK(kumi_send(&token, sizeof token, 0, 2, world));
        } else if (me == 2) {
            for (size_t i = 0; i < BIG; i++)
                big[i] = pattern(round, i);
            token = (uint64_t)round;
            OK(kumi_send(big, BIG, 0, 1, world));   /* complete: PE 0 pulled it */
            OK(kumi_send(&token, sizeof token, 1, 3, world));
        }
    }
}

static void tags(kumi_team_t world, int me)
{
    static const int order[] = { 5, 6, 7, 2 };
    uint64_t         v;
    kumi_status_t    st;

    for (int round = 0; round < ROUNDS; round++) {
        if (me == 1) {
            for (int i = 0; i < 4; i++) {
                v = (uint64_t)(round * 10 + order[i]);
                OK(kumi_send(&v, sizeof v, 0, order[i], world));
            }
        } else if (me == 0) {
            static const int want[] = { 2, 6, KUMI_ANY_TAG, KUMI_ANY_TAG };
            static const int got[]  = { 2, 6, 5, 7 };
            for (int i = 0; i < 4; i++) {
                OK(kumi_recv(&v, sizeof v, 1, want[i], world, &st));
                CHECK(st.source == 1 && st.tag == got[i] && v == (uint64_t)(round * 10 + got[i]),
                      "round %d, receive %d: tag %d value %llu from %d, expected tag %d", round,
                      i, st.tag, (unsigned long long)v, st.source, got[i]);
            }
        }
        BARRIER();
    }
}

int main(void)
{
    OK(kumi_init());
    int           me = kumi_rank(), npes = kumi_size();
    kumi_team_t   world = kumi_team_world();
    unsigned char *big = malloc(BIG);

    CHECK(big != NULL, "no memory");
    if (npes >= 3)
        relay(world, me, big);
    BARRIER();
    if (npes >= 2)
        tags(world, me);
    free(big);
    OK(kumi_finalize());
    if (me == 0)
        printf("msg_from: %s%d rounds on %d PEs\n", npes >= 3 ? "relay and tags, " : "tags, ",
               ROUNDS, npes);
    return 0;
}
