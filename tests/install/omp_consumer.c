/* An OpenMP program built by the installed kumicc -fopenmp: a shared
 * array and a reduction across the team. */
#include <omp.h>
#include <stdio.h>

static int part[64];

int main(void)
{
    int sum = 0, nth = 0;
#pragma omp parallel
    {
#pragma omp master
        nth = omp_get_num_threads();
#pragma omp for
        for (int i = 0; i < 64; i++)
            part[i] = i < 42;
#pragma omp for reduction(+ : sum)
        for (int i = 0; i < 64; i++)
            sum += part[i];
    }
    printf("threads %d sum %d\n", nth, sum);
    return 0;
}
