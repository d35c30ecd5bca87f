/* static schedules: unchunked and chunked, nowait, lastprivate, an empty
 * loop, negative steps, loops of fewer iterations than threads. */
#include <omp.h>
#include <stdio.h>

#define N 1000
int  a[N];
long owner[N];

static long check(void)
{
    long s = 0;
    for (int i = 0; i < N; i++)
        s += (long)a[i] * (i % 7 + 1);
    return s;
}

int main(void)
{
    int last = -1, empty = 0, few[3] = { 0 };

#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (int i = 0; i < N; i++)
            a[i] = i;
#pragma omp for schedule(static, 7) nowait
        for (int i = 0; i < N; i++)
            owner[i] = omp_get_thread_num();
#pragma omp barrier
#pragma omp for schedule(static, 1) lastprivate(last)
        for (int i = 0; i < N; i += 3)
            last = i;
#pragma omp for
        for (int i = 10; i < 10; i++)
            empty++;
#pragma omp for schedule(static)
        for (int i = N - 1; i >= 0; i -= 2)
            a[i] += 1;
#pragma omp for
        for (int i = 0; i < 3; i++)
            few[i] = i + 1;
    }
    /* static,7: chunk k belongs to thread k % nthreads */
    int nth = 0, ok = 1;
#pragma omp parallel
#pragma omp single
    nth = omp_get_num_threads();
    for (int i = 0; i < N; i++)
        if (owner[i] != (i / 7) % nth)
            ok = 0;
    printf("sum %ld last %d empty %d few %d %d %d chunks owned right %d\n", check(), last, empty,
           few[0], few[1], few[2], ok);
    return 0;
}
