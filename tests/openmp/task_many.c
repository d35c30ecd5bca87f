/* task_many.c -- many small tasks from every thread (more than one
 * PE's queue holds), nested creation, results through atomics and a
 * shared heap array; taskwait inside a worksharing loop. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 6000

int main(void)
{
    int  *hits  = calloc(N, sizeof *hits);
    long  total = 0;
#pragma omp parallel shared(hits, total)
    {
#pragma omp for schedule(dynamic, 50)
        for (int i = 0; i < N; i++) {
#pragma omp task firstprivate(i) shared(hits, total)
            {
                hits[i] += 1;
                if (i % 100 == 0) {
#pragma omp task firstprivate(i) shared(total)
                    {
#pragma omp atomic
                        total += i;
                    }
                }
            }
            if (i % 1000 == 999) {
#pragma omp taskwait
            }
        }
    }
    long want = 0;
    int  bad  = 0;
    for (int i = 0; i < N; i++) {
        bad += hits[i] != 1;
        if (i % 100 == 0)
            want += i;
    }
    printf("tasks: %d wrong hits, total %ld (want %ld)\n", bad, total, want);
    free(hits);
    return 0;
}
