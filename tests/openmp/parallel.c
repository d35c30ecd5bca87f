/* parallel regions: team size, thread numbers, shared arguments of every
 * kind (globals, the master's locals, heap), num_threads, if, nesting. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int    seen[64];
double gscale = 2.5;

static void in_region(int *mark)
{
    mark[omp_get_thread_num()] = 1;   /* a pointer to the master's local array */
}

int main(void)
{
    int    local[64] = { 0 };
    int    nthreads = 0, a = 3, b = 4, c = 5, d = 6, e = 7, f = 8, g = 9;
    long   sum7 = 0;
    double *heap = malloc(64 * sizeof(double));

    for (int i = 0; i < 64; i++)
        heap[i] = -1;
#pragma omp parallel
    {
        int t = omp_get_thread_num();
#pragma omp master
        nthreads = omp_get_num_threads();
        seen[t] += 1;
        in_region(local);
        heap[t] = t * gscale;
    }
    int ok = 1;
    for (int t = 0; t < 64; t++) {
        if ((t < nthreads) != (seen[t] == 1) || (t < nthreads) != (local[t] == 1))
            ok = 0;
        if (t < nthreads && heap[t] != t * gscale)
            ok = 0;
    }
    printf("team %d, every thread ran once with the right data: %s\n", nthreads, ok ? "yes" : "no");

    /* many shared scalars: the outlined function gets one argument each */
#pragma omp parallel
    {
#pragma omp single
        sum7 = a + b + c + d + e + f + g;
    }
    printf("seven shared arguments: %ld\n", sum7);

    int small = 0, in_par = -1;
#pragma omp parallel num_threads(2)
    {
#pragma omp single
        {
            small  = omp_get_num_threads();
            in_par = omp_in_parallel();
        }
    }
    /* libomp may go beyond OMP_NUM_THREADS, kumi has only its PEs */
    printf("num_threads(2): 1 or 2 threads: %s\n", small >= 1 && small <= 2 ? "yes" : "no");
    (void)in_par;

    int ser = 0;
#pragma omp parallel if (0)
    ser = omp_get_num_threads() + 10 * omp_in_parallel();
    printf("if(0): %d\n", ser);

    int nested = 0, level = 0;
#pragma omp parallel
    {
#pragma omp single
        {
#pragma omp parallel
            {
                nested = omp_get_num_threads();
                level  = omp_get_level();
            }
        }
    }
    printf("nested region: %d thread(s), level %d\n", nested, level);
    free(heap);
    return 0;
}
