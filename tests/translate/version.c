/*
 * version.c -- kumi-translate's loop versions under concurrent writes
 * (dsm/translate/README.md, "Loop versions"). PE 1 writes round r into
 * every element of b (N longs, homed at PE 1) in increasing index order,
 * rounds 1..ROUNDS; PE 0 scans b in decreasing index order. Both loops are
 * long and affine, so both run as unchecked copies that leave every 1024
 * iterations to poll and test their lines again (the bail). Under
 * sequential consistency a scan downwards never sees a value smaller than
 * the one before it (PE 1 wrote the lower index first); a copy that went
 * on after its lines were taken, or a test that passed lines not ready,
 * shows up as a smaller value after a larger one (or the flag pattern).
 * PE 1 pauses 0.5 ms after each round (polling), so PE 0 scans both
 * while a round is written and between rounds.
 * Prints "version: PE 0: N scans, M mixed, 0 bad ok"; "BAD" on a failure.
 * Every PE checks its kumi calls and ends with "version: PE p of n: exit
 * S", S its exit status (version_check.sh wants one per PE, all 0, and
 * kumirun's status 0).
 * Built with KUMI_TRANSLATE=0 it reads stale copies and fails (the
 * negative control).
 */
#include <kumi.h>
#include <stdio.h>
#include <time.h>

#define N      (1L << 14)
#define ROUNDS 40L

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* one scan, n-1 down to 0: the number of values below their predecessor;
 * *first and *last get b[n-1] and b[0] */
static long scan(const long *b, long n, long *first, long *last)
{
    long bad = 0, prev = b[n - 1];
    *first = prev;
    for (long j = n - 1; j >= 0; j--) {
        long v = b[j];
        bad += v < prev || v > ROUNDS;
        prev = v;
    }
    *last = prev;
    return bad;
}

static void fill(long *b, long n, long r)
{
    for (long j = 0; j < n; j++)
        b[j] = r;
}

int main(void)
{
    if (kumi_init() != KUMI_OK)
        return 1;
    int   me = kumi_rank(), np = kumi_size();
    long *b = NULL;
    if (me == 1 || np == 1) {
        b = kumi_dsm_malloc(N * sizeof *b);
        if (b == NULL) { fprintf(stderr, "version: BAD: kumi_dsm_malloc failed\n"); return 1; }
        fill(b, N, 0);
    }
    long bad = 0, scans = 0, mixed = 0;
    int  rc;
    if ((rc = kumi_broadcast(kumi_team_world(), &b, sizeof b, np > 1 ? 1 : 0)) != KUMI_OK) {
        fprintf(stderr, "version: BAD: PE %d: kumi_broadcast: %s\n", me, kumi_strerror(rc));
        return 1;
    }
    if ((rc = kumi_barrier(kumi_team_world())) != KUMI_OK) {
        fprintf(stderr, "version: BAD: PE %d: kumi_barrier: %s\n", me, kumi_strerror(rc));
        return 1;
    }
    if (np == 1) {   /* no writer: the rounds one after the other */
        for (long r = 1; r <= ROUNDS; r++) {
            long f, l;
            fill(b, N, r);
            bad += scan(b, N, &f, &l) + (f != r) + (l != r);
            scans++;
        }
    } else if (me == 1) {
        for (long r = 1; r <= ROUNDS; r++) {
            fill(b, N, r);
            double t = now();   /* a pause, serving requests: scans in between */
            while (now() - t < 5e-4)
                kumi_dsm_poll();
        }
    } else if (me == 0) {
        double t0 = now();
        long   f = 0, l = 0;
        while (l != ROUNDS && bad == 0 && now() - t0 < 20) {
            bad += scan(b, N, &f, &l);
            mixed += f != l;
            scans++;
        }
        if (l != ROUNDS) { fprintf(stderr, "version: BAD: PE 0 never saw round %ld\n", ROUNDS); bad++; }
    }
    if ((rc = kumi_barrier(kumi_team_world())) != KUMI_OK) {
        fprintf(stderr, "version: BAD: PE %d: kumi_barrier: %s\n", me, kumi_strerror(rc));
        bad++;
    }
    if (me == 0)
        printf("version: PE 0: %ld scans, %ld mixed, %ld bad %s\n", scans, mixed, bad, bad ? "BAD" : "ok");
    if ((rc = kumi_barrier(kumi_team_world())) != KUMI_OK) {
        fprintf(stderr, "version: BAD: PE %d: kumi_barrier: %s\n", me, kumi_strerror(rc));
        bad++;
    }
    if (b != NULL && (me == 1 || np == 1))
        kumi_dsm_free(b);
    if ((rc = kumi_finalize()) != KUMI_OK) {
        fprintf(stderr, "version: BAD: PE %d: kumi_finalize: %s\n", me, kumi_strerror(rc));
        bad++;
    }
    printf("version: PE %d of %d: exit %d\n", me, np, bad != 0);
    fflush(stdout);
    return bad != 0;
}
