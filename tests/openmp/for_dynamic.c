/* dynamic and guided schedules (chunked or not), nowait chains that reuse
 * the runtime's loop slots, every iteration exactly once; a long chain of
 * small nowait loops with no barrier between them, where one thread runs
 * many loops ahead of another and both wait for the same slot. */
#include <omp.h>
#include <stdio.h>

#define N 5000
int hits[4][N];   /* one per loop: nowait loops run side by side */
#define CHAIN 600
#define CN    16
int chain_hits[CHAIN][CN], chain_hits2[CHAIN][CN];   /* one per loop: nowait loops overlap */

int main(void)
{
    long s1 = 0, s2 = 0;
#pragma omp parallel
    {
        for (int rep = 0; rep < 12; rep++) {
#pragma omp for schedule(dynamic) nowait
            for (int i = 0; i < N; i++)
                hits[0][i]++;
#pragma omp for schedule(dynamic, 13) nowait
            for (int i = 0; i < N; i++)
                hits[1][i]++;
#pragma omp for schedule(guided) nowait
            for (int i = 0; i < N; i++)
                hits[2][i]++;
#pragma omp for schedule(guided, 50)
            for (int i = 0; i < N; i++)
                hits[3][i]++;
        }
#pragma omp for schedule(dynamic, 3) reduction(+ : s1)
        for (int i = 0; i < N; i++)
            s1 += i;
#pragma omp for schedule(guided, 2) reduction(+ : s2)
        for (int i = N; i > 0; i--)
            s2 += i * 2;
    }
    int bad = 0;
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < N; i++)
            bad += hits[k][i] != 12;
    printf("iterations run other than 12 times: %d; sums %ld %ld\n", bad, s1, s2);

#pragma omp parallel
    for (int l = 0; l < CHAIN; l++) {
#pragma omp for schedule(dynamic) nowait
        for (int i = 0; i < CN; i++)
            chain_hits[l][i]++;
#pragma omp for schedule(guided) nowait
        for (int i = CN - 1; i >= 0; i--)
            chain_hits2[l][i] += 2;
    }
    bad = 0;
    for (int l = 0; l < CHAIN; l++)
        for (int i = 0; i < CN; i++)
            bad += chain_hits[l][i] != 1 || chain_hits2[l][i] != 2;
    printf("chain of %d nowait loops: iterations run other than once: %d\n", 2 * CHAIN, bad);
    return 0;
}
