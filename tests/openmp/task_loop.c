/* task_loop.c -- taskloop (grainsize, num_tasks, lastprivate, a
 * reduction through atomics), final tasks and omp_in_final. */
#include <omp.h>
#include <stdio.h>

static int a[1000] = { 1 };

int main(void)
{
    long sum = 0;
    int  last = -1, finals = 0, not_final = 0;
#pragma omp parallel shared(sum, last, finals, not_final)
    {
#pragma omp single
        {
#pragma omp taskloop grainsize(64)
            for (int i = 0; i < 1000; i++)
                a[i] = 3 * i;
#pragma omp taskloop num_tasks(7) lastprivate(last)
            for (int i = 999; i >= 0; i -= 3) {
#pragma omp atomic
                sum += a[i];
                last = i;
            }
#pragma omp task final(1) shared(finals)
            {
                finals += omp_in_final();
#pragma omp task shared(finals)
                finals += omp_in_final() * 10;   /* included: runs at once */
            }
#pragma omp task shared(not_final)
            not_final = omp_in_final();
        }
    }
    long want = 0;
    for (int i = 999; i >= 0; i -= 3)
        want += 3 * i;
    printf("sum %ld (want %ld), last %d, finals %d, not_final %d\n", sum, want, last, finals,
           not_final);
    return 0;
}
