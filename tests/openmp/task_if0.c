/* task_if0.c -- task if(0) (undeferred, run by the creator), taskyield,
 * taskgroup waiting for descendants, depend clauses (ordered siblings),
 * final. */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int a[32] = { 0 }, chain = 0, nested = 0, mine = 1;
#pragma omp parallel
    {
#pragma omp single
        {
            int me = omp_get_thread_num(), ran_by = -1;
#pragma omp task if (0) shared(ran_by)
            ran_by = omp_get_thread_num();
            mine = ran_by == me;
#pragma omp taskgroup
            {
                for (int i = 0; i < 8; i++) {
#pragma omp task firstprivate(i) shared(a, nested)
                    {
                        a[i] = i * i;
#pragma omp task firstprivate(i) shared(a)
                        a[i + 8] = i + 100;
#pragma omp atomic
                        nested++;
                    }
                }
            }
            /* the group's tasks and their children are done here */
            int ok = 1;
            for (int i = 0; i < 8; i++)
                ok &= a[i] == i * i && a[i + 8] == i + 100;
            printf("taskgroup: %s, nested %d\n", ok ? "all done" : "MISSING", nested);
            /* a chain of dependent tasks must run in order */
            for (int i = 0; i < 10; i++) {
#pragma omp task depend(inout : chain) firstprivate(i) shared(chain)
                chain = chain * 3 + i;
            }
#pragma omp taskwait
            printf("chain %d\n", chain);
        }
#pragma omp taskyield
    }
    printf("if(0) ran on its creator: %d\n", mine);
    return 0;
}
