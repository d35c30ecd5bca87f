/* tests/ucx/compute_get.c -- a PE that computes is served by its progress
 * thread, not only at its own polls (transport/ucx/README.md, progress).
 *
 * PE 1 computes in bursts of BURST_US (no kumi call) with one poll
 * (kumi_test_u64) between bursts, until PE 0 says stop; PE 0 does 8-byte
 * gets from PE 1 for WINDOW_MS and counts them. Over UCX's tcp a get needs
 * the target's ucp_worker_progress: served only at PE 1's polls, at most
 * one get completes per poll (PE 0 issues the next only after the reply).
 * The test asserts that the gets outnumber PE 1's polls RATIO times over,
 * which only a progress thread serving during the bursts achieves. The
 * plugin of before 2026-11-27 (its thread stayed away until no caller had
 * polled for a whole millisecond, and PE 1 polls every BURST_US) did about
 * one get per poll. Counts, not times: a loaded machine slows both sides.
 * ARGS: [WINDOW_MS [BURST_US [RATIO]]] (300, 800, 3). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <kumi.h>

int main(int argc, char **argv)
{
    double window = (argc > 1 ? atof(argv[1]) : 300) * 1e-3;
    double burst = (argc > 2 ? atof(argv[2]) : 800) * 1e-6;
    double ratio = argc > 3 ? atof(argv[3]) : 3;

    if (kumi_init() != KUMI_OK)
        return 2;
    int       me = kumi_rank();
    uint64_t *sym = kumi_malloc(2 * sizeof(uint64_t));
    size_t    off = kumi_llcm_alloc(8);
    if (kumi_size() != 2 || sym == NULL || off == (size_t)-1) {
        fprintf(stderr, "compute_get: needs 2 PEs\n");
        return 2;
    }
    volatile uint64_t *stop = kumi_llcm(off);
    uint64_t           polls = 0, gets = 0, v = 0, one = 1;

    sym[0] = 42;
    sym[1] = 0;
    kumi_barrier(kumi_team_world());
    if (me == 1) {
        while (!kumi_test_u64(stop, KUMI_CMP_EQ, 1)) {
            polls++;
            double t0 = kumi_wtime();
            while (kumi_wtime() - t0 < burst) {
            }
        }
        sym[1] = polls;
    } else {
        double t0 = kumi_wtime();
        while (kumi_wtime() - t0 < window) {
            if (kumi_get(&v, &sym[0], 8, 1) != KUMI_OK || v != 42) {
                fprintf(stderr, "compute_get: get failed or returned %llu\n",
                        (unsigned long long)v);
                return 1;
            }
            gets++;
        }
        if (kumi_kick(1, off, &one, 8) != KUMI_OK)
            return 1;
    }
    kumi_barrier(kumi_team_world());
    int rc = 0;
    if (me == 0) {
        if (kumi_get(&polls, &sym[1], 8, 1) != KUMI_OK)
            return 1;
        printf("compute_get: %llu gets in %.0f ms while PE 1 polled %llu times (bursts of %.0f us)\n",
               (unsigned long long)gets, window * 1e3, (unsigned long long)polls, burst * 1e6);
        if ((double)gets < ratio * (double)polls) {
            fprintf(stderr, "compute_get: FAIL: %llu gets < %.1f x %llu polls: PE 1 was served "
                    "only when it polled\n", (unsigned long long)gets, ratio,
                    (unsigned long long)polls);
            rc = 1;
        }
    }
    kumi_barrier(kumi_team_world());
    return kumi_finalize() == KUMI_OK ? rc : 1;
}
