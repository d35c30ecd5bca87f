/*
 * global_exit.c -- kumi_global_exit and the node queries, run by
 * tests/launcher/global_exit.sh (which checks kumirun's side: its exit
 * status, the time, its messages, what is left behind).
 *
 *   global_exit exit WHO STATUS HOW
 *       WHO first, last or both (PE 0 asks for STATUS, the last PE for
 *       STATUS+1 mod 256, at once); the others meanwhile
 *       HOW barrier: in kumi_barrier, which must return KUMI_ERR_PEER
 *           wait:    in kumi_wait_until_u64 on a word nobody sets, likewise
 *           compute: in a loop without kumi calls (kumirun stops them)
 *       stdout: "PE r asks at MS" (realtime, ms) before the call, a line
 *       left in stdio's buffer that exit() must flush, "PE r: kumi_barrier
 *       returned KUMI_ERR_PEER" (or kumi_wait_until_u64) from the others,
 *       and "PE r: kumi_finalize returned KUMI_ERR_PEER" once they went on
 *       to finalize (they ignore SIGTERM meanwhile).
 *       Anything unexpected prints "FAIL ..." and exits 1.
 *   global_exit nodes MAP
 *       kumi_node_count and kumi_pe_node of every PE against MAP, the
 *       node of each rank ("0,0,1,1"), or "one": every PE on node 0; also
 *       before init and after finalize. Exits 0.
 *   global_exit alone STATUS    (without kumirun) init, one node, then
 *       kumi_global_exit(STATUS): the process exits with STATUS
 *   global_exit early STATUS    kumi_global_exit before kumi_init
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pe_test.h"

static long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}

static _Noreturn void ask(int me, int status)
{
    printf("PE %d asks at %ld\n", me, now_ms());
    fflush(stdout);
    printf("PE %d: buffered line\n", me);   /* exit() flushes it */
    kumi_global_exit(status);
}

static int run_exit(const char *who, int status, const char *how)
{
    OK(kumi_init());
    int       me = kumi_rank(), n = kumi_size(), last = n - 1;
    int       asks = (me == 0 && strcmp(who, "last") != 0) ||
                     (me == last && strcmp(who, "first") != 0);
    int       nasks = 1 + (strcmp(who, "both") == 0 && last != 0);
    size_t    off = kumi_llcm_alloc(8);     /* the word waits wait on */
    size_t    go = kumi_llcm_alloc(8);      /* both: the askers' handshake */
    uint64_t *out = kumi_calloc(1, 8);      /* others out of the barrier */
    int       rc;

    CHECK(off != (size_t)-1 && go != (size_t)-1 && out != NULL, "allocation failed");
    BARRIER();
    /* A request catches whoever is still in the barrier above: the askers
     * wait until all the others are out of it (and on their way to what
     * they wait in) */
    if (!asks) {
        OK(kumi_atomic_add_u64(out, 1, strcmp(who, "last") == 0 ? last : 0));
        if (nasks == 2)
            OK(kumi_atomic_add_u64(out, 1, last));
    } else {
        OK(kumi_wait_until_u64(out, KUMI_CMP_GE, (uint64_t)(n - nasks)));
    }
    if (asks && strcmp(who, "both") == 0) {
        /* both out of the barrier before either asks (one leaves it
         * before the other, which the first one's request would catch
         * there): each tells the other, then waits to be told */
        uint64_t one = 1;
        OK(kumi_kick(me == 0 ? last : 0, go, &one, 8));
        OK(kumi_wait_until_u64(kumi_llcm(go), KUMI_CMP_EQ, 1));
        ask(me, me == 0 ? status : (status + 1) & 255);
    }
    if (asks) {
        sleep_ms(100);   /* the others are blocked (or computing) by then */
        ask(me, status);
    }
    if (strcmp(how, "compute") == 0) {
        volatile double x = 1.0;
        long            t0 = now_ms();

        while (now_ms() - t0 < 10000)
            for (int i = 0; i < 100000; i++)
                x = x * 1.0000001 + 1e-9;
        printf("FAIL PE %d: still computing after 10 s\n", me);
        return 1;
    }
    /* the rest of this PE is for the report, which a busy machine may
     * not finish before kumirun's SIGTERM: only its SIGKILL (1 s later)
     * ends it, so a kumi_finalize that hangs still fails the test */
    signal(SIGTERM, SIG_IGN);
    if (strcmp(how, "barrier") == 0) {
        rc = kumi_barrier(kumi_team_world());
        printf("PE %d: kumi_barrier returned %s\n", me,
               rc == KUMI_ERR_PEER ? "KUMI_ERR_PEER" : kumi_strerror(rc));
    } else {
        rc = kumi_wait_until_u64(kumi_llcm(off), KUMI_CMP_EQ, 1);
        printf("PE %d: kumi_wait_until_u64 returned %s\n", me,
               rc == KUMI_ERR_PEER ? "KUMI_ERR_PEER" : kumi_strerror(rc));
    }
    fflush(stdout);
    if (rc != KUMI_ERR_PEER) {
        printf("FAIL PE %d: want KUMI_ERR_PEER\n", me);
        return 1;
    }
    /* a program that goes on to finalize is not held up either */
    rc = kumi_finalize();
    printf("PE %d: kumi_finalize returned %s\n", me,
           rc == KUMI_ERR_PEER ? "KUMI_ERR_PEER" : kumi_strerror(rc));
    /* its own status must not become the job's */
    return 42;
}

static int run_nodes(const char *map)
{
    CHECK(kumi_node_count() == 0 && kumi_pe_node(0) == -1, "answers before kumi_init");
    OK(kumi_init());
    int n = kumi_size(), me = kumi_rank(), want_count = 1;
    int want[4096];

    CHECK(n <= 4096, "%d PEs", n);
    for (int pe = 0; pe < n; pe++)
        want[pe] = 0;
    if (strcmp(map, "one") != 0) {
        const char *p = map;
        for (int pe = 0; pe < n; pe++) {
            char *end;
            want[pe] = (int)strtol(p, &end, 10);
            CHECK(end != p && (*end == ',' || (*end == '\0' && pe == n - 1)),
                  "MAP '%s' does not list %d PEs", map, n);
            p = end + (*end == ',');
            if (want[pe] + 1 > want_count)
                want_count = want[pe] + 1;
        }
    }
    CHECK(kumi_node_count() == want_count, "kumi_node_count() = %d, want %d",
          kumi_node_count(), want_count);
    for (int pe = 0; pe < n; pe++)
        CHECK(kumi_pe_node(pe) == want[pe], "kumi_pe_node(%d) = %d, want %d", pe,
              kumi_pe_node(pe), want[pe]);
    CHECK(kumi_pe_node(-1) == -1 && kumi_pe_node(n) == -1, "bad PEs: %d %d",
          kumi_pe_node(-1), kumi_pe_node(n));
    BARRIER();
    OK(kumi_finalize());
    CHECK(kumi_node_count() == 0 && kumi_pe_node(0) == -1, "answers after kumi_finalize");
    if (me == 0)
        printf("nodes: %d PEs on %d node%s as expected\n", n, want_count,
               want_count == 1 ? "" : "s");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "exit") == 0)
        return run_exit(argv[2], atoi(argv[3]), argv[4]);
    if (argc == 3 && strcmp(argv[1], "nodes") == 0)
        return run_nodes(argv[2]);
    if (argc == 3 && strcmp(argv[1], "alone") == 0) {
        OK(kumi_init());
        CHECK(kumi_size() == 1 && kumi_node_count() == 1 && kumi_pe_node(0) == 0,
              "a singleton is one PE on one node");
        ask(0, atoi(argv[2]));
    }
    if (argc == 3 && strcmp(argv[1], "early") == 0)
        ask(-1, atoi(argv[2]));
    fprintf(stderr, "usage: %s exit first|last|both STATUS barrier|wait|compute\n"
                    "       %s nodes MAP | alone STATUS | early STATUS\n", argv[0], argv[0]);
    return 2;
}
