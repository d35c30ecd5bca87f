/* critical: unnamed and named sections, nested different names, hints. */
#include <omp.h>
#include <stdio.h>

long   c0, c1, c2;
double dc;

int main(void)
{
#pragma omp parallel
    {
        for (int k = 0; k < 200; k++) {
#pragma omp critical
            c0++;
#pragma omp critical(alpha)
            {
                c1 += 2;
#pragma omp critical(beta)
                c2 += 3;
            }
#pragma omp critical(gamma) hint(omp_sync_hint_contended)
            dc += 0.5;
        }
    }
    int n = 0;
#pragma omp parallel
#pragma omp master
    n = omp_get_num_threads();
    printf("per thread: %ld %ld %ld %g\n", c0 / n, c1 / n, c2 / n, dc / n);
    return 0;
}
