/* task_barrier.c -- a thread waiting in a barrier takes tasks made after
 * it arrived: one thread (single nowait) makes tasks, each only once the
 * previous one has started elsewhere, while the others are already in
 * the region's end barrier; then the same with a task that waits for
 * its creator (both must run at once). A wait gives up after 20 s
 * (a bound, not synchronization) and the check then fails. */
#include <omp.h>
#include <stdio.h>

#define TASKS 20

static int started[TASKS];

static int wait_flag(int *flag)
{
    double t0 = omp_get_wtime();
    int    v;
    do {
#pragma omp atomic read
        v = *flag;
    } while (v == 0 && omp_get_wtime() - t0 < 20.0);
    return v != 0;
}

int main(void)
{
    int taken = 0, other = 0, go = 0, met = 0;

#pragma omp parallel shared(taken, other, go, met)
    {
#pragma omp single nowait
        {
            int me = omp_get_thread_num(), n = omp_get_num_threads();
            for (int k = 0; k < TASKS; k++) {
#pragma omp task firstprivate(k) shared(other)
                {
                    if (omp_get_thread_num() != me) {
#pragma omp atomic
                        other++;
                    }
#pragma omp atomic write
                    started[k] = 1;
                }
                /* in a team of one the task has run already */
                if (n > 1)
                    taken += wait_flag(&started[k]);
                else
                    taken += started[k];
            }
            /* a task that meets its creator: runs while the creator waits */
#pragma omp task shared(go, met)
            {
#pragma omp atomic write
                go = 1;
                if (n > 1) {
                    int m = wait_flag(&met);
#pragma omp atomic write
                    met = m + 1;
                }
            }
            if (n > 1) {
                if (wait_flag(&go)) {
#pragma omp atomic write
                    met = 1;
                }
            }
        }
    }
    int n = omp_get_max_threads();
    printf("started elsewhere: %s\n", taken == TASKS && (n == 1 || other == TASKS) ? "all" : "not all");
    printf("task met its creator: %s\n", n == 1 ? (go == 1 ? "yes" : "no") : (met == 2 ? "yes" : "no"));
    return 0;
}
