/* OMP_THREAD_LIMIT and OMP_MAX_TASK_PRIORITY (run with 2 and 7): the
 * limit is reported as set and no team exceeds it, whatever
 * omp_set_num_threads or num_threads ask for; the task priority bound is
 * reported and a task with a priority runs. */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int limit = omp_get_thread_limit(), over = 0, ran = 0;

    printf("thread limit %d, max task priority %d\n", limit, omp_get_max_task_priority());
    printf("max threads within the limit: %d\n", omp_get_max_threads() <= limit);
    omp_set_num_threads(19);
#pragma omp parallel reduction(+ : over)
    over += omp_get_num_threads() > limit;
#pragma omp parallel num_threads(21) reduction(+ : over)
    over += omp_get_num_threads() > limit;
    printf("threads of teams above the limit: %d\n", over);
#pragma omp parallel
#pragma omp single
    {
#pragma omp task priority(5) shared(ran)
        ran = 1;
#pragma omp taskwait
    }
    printf("task with priority(5) ran: %d\n", ran);
    return 0;
}
