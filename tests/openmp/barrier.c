/* barrier: phases; nobody reads a phase's data before all wrote it. */
#include <omp.h>
#include <stdio.h>

int slot[64];
int wrong;

int main(void)
{
    int nth = 1;
#pragma omp parallel
    {
        int t = omp_get_thread_num(), n = omp_get_num_threads();
#pragma omp single
        nth = n;
        for (int phase = 1; phase <= 50; phase++) {
            slot[t] = phase;
#pragma omp barrier
            for (int u = 0; u < n; u++)
                if (slot[u] != phase) {
#pragma omp atomic
                    wrong++;
                }
#pragma omp barrier
        }
    }
    printf("threads %d, stale reads after barriers: %d\n", nth, wrong);
    return 0;
}
