/* the omp_* queries: threads, levels, max threads, set_num_threads,
 * dynamic, nested, wtime/wtick, thread limit. */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int max = omp_get_max_threads();
    printf("outside: thread %d of %d, in parallel %d, level %d\n", omp_get_thread_num(),
           omp_get_num_threads(), omp_in_parallel(), omp_get_level());
    int nth = 0, inpar = 0, lvl = 0, alvl = 0, anc = -1, tsz = 0, ids = 0;
#pragma omp parallel reduction(+ : ids)
    {
        ids += omp_get_thread_num();
#pragma omp master
        {
            nth   = omp_get_num_threads();
            inpar = omp_in_parallel();
            lvl   = omp_get_level();
            alvl  = omp_get_active_level();
            anc   = omp_get_ancestor_thread_num(1);
            tsz   = omp_get_team_size(1);
        }
    }
    printf("team = max threads: %d; thread ids sum right: %d\n", nth == max,
           ids == nth * (nth - 1) / 2);
    printf("in parallel %d level %d active level %d ancestor %d team size right %d\n",
           nth > 1 ? inpar : 1, lvl, nth > 1 ? alvl : 1, anc, tsz == nth);
    omp_set_num_threads(1);
    int one = 0;
#pragma omp parallel
    one = omp_get_num_threads();
    printf("after omp_set_num_threads(1): %d, max %d\n", one, omp_get_max_threads());
    omp_set_num_threads(max);
    omp_set_dynamic(0);
    printf("dynamic %d\n", omp_get_dynamic());
    double t0 = omp_get_wtime(), tick = omp_get_wtick();
    volatile double x = 0;
    for (int i = 0; i < 1000000; i++)
        x += i;
    double t1 = omp_get_wtime() + 0 * x;
    printf("wtime advances: %d, tick positive and small: %d\n", t1 > t0, tick > 0 && tick < 0.01);
    printf("thread limit >= max threads: %d, procs >= 1: %d\n", omp_get_thread_limit() >= max,
           omp_get_num_procs() >= 1);
    return 0;
}
