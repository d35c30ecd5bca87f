/* task_fib.c -- recursive tasks with taskwait, shared results on the
 * creating task's stack, tasks created by one thread and run by all. */
#include <omp.h>
#include <stdio.h>

static long fib(int n)
{
    long x, y;
    if (n < 2)
        return n;
    if (n < 12) /* small ones serially, as real codes do */
        return fib(n - 1) + fib(n - 2);
#pragma omp task shared(x) firstprivate(n)
    x = fib(n - 1);
#pragma omp task shared(y) firstprivate(n)
    y = fib(n - 2);
#pragma omp taskwait
    return x + y;
}

int main(void)
{
    long r = 0;
    int  ran[64] = { 0 };
#pragma omp parallel
    {
#pragma omp single
        r = fib(24);
        /* every thread creates tasks; all must be done after the barrier */
        for (int i = 0; i < 16; i++) {
            int slot = omp_get_thread_num() * 16 + i;
#pragma omp task firstprivate(slot)
            ran[slot % 64] += 1;
        }
#pragma omp barrier
    }
    int total = 0;
    for (int i = 0; i < 64; i++)
        total += ran[i];
    printf("fib(24) = %ld\n", r);
    printf("tasks run: %d of %d\n", total, 16 * omp_get_max_threads());
    return 0;
}
