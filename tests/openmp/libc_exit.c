/* libc_exit.c -- exit() from a worker ends the job with its status, and
 * what the master printed before (still in its stdout buffer) appears,
 * as in one process. A worker's printf just before exit appears too. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    printf("master before the region\n");
#pragma omp parallel
    {
        int last = omp_get_num_threads() - 1;
#pragma omp barrier
        if (omp_get_thread_num() == last) {
            printf("thread %s exits with 3\n", last == 0 ? "master" : "last");
            exit(3);
        }
        /* the others wait here until the job ends */
#pragma omp barrier
    }
    printf("not reached\n");
    return 0;
}
