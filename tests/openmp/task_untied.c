/* task_untied.c -- untied tasks: clang splits their routine at every task
 * scheduling point (the start, taskwait, taskyield, a child task) and the
 * routine passes its own record to __kmpc_omp_task before each next part.
 * Every part must run exactly once, in order, whether the task is
 * deferred, stolen, undeferred (a team of one) or nested. (An untied
 * if(0) task, which kumi runs the same way, stops libomp 14 with an
 * assertion, so it cannot be compared here.) */
#include <omp.h>
#include <stdio.h>

#define NTASK 40

static int parts[NTASK];   /* each task's parts, in order: 1, 12, 123, 1234 */
static long children;      /* children made by the untied tasks           */

static void untied_tree(int depth, long *sum)
{
    if (depth == 0) {
#pragma omp atomic
        *sum += 1;
        return;
    }
#pragma omp task untied shared(sum)
    untied_tree(depth - 1, sum);
#pragma omp taskyield
#pragma omp task untied shared(sum)
    untied_tree(depth - 1, sum);
#pragma omp taskwait
}

int main(void)
{
    long leaves = 0;
    int  bad = 0, if0 = 0;

#pragma omp parallel
#pragma omp single
    {
        for (int i = 0; i < NTASK; i++) {
#pragma omp task untied firstprivate(i)
            {
                parts[i] = 1;
#pragma omp task
                {
#pragma omp atomic
                    children++;
                }
#pragma omp taskwait
                parts[i] = parts[i] * 10 + 2;
#pragma omp taskyield
                parts[i] = parts[i] * 10 + 3;
#pragma omp taskwait
                parts[i] = parts[i] * 10 + 4;
            }
        }
#pragma omp taskwait
        /* undeferred: the creator runs it before going on */
#pragma omp task if(0) shared(if0)
        {
            if0 = 1;
#pragma omp taskyield
            if0 = if0 * 10 + 2;
#pragma omp taskwait
            if0 = if0 * 10 + 3;
        }
        if (if0 != 123)
            bad++;
        untied_tree(6, &leaves);
    }
    for (int i = 0; i < NTASK; i++)
        bad += parts[i] != 1234;
    printf("untied tasks: %d with wrong parts, %ld children, if(0) parts %d, %ld leaves\n",
           bad, children, if0, leaves);
    return bad != 0;
}
