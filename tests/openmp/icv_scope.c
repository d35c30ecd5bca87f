/* The schedule ICVs (run with OMP_SCHEDULE=monotonic:dynamic): what
 * omp_get_schedule reports (the modifier kept; an unspecified chunk reads
 * 1, static's 0), and that omp_set_schedule / omp_set_num_threads inside a
 * region, nested or not, change only that region's implicit task. */
#include <omp.h>
#include <stdio.h>

static void show(const char *where)
{
    omp_sched_t k;
    int         c;
    omp_get_schedule(&k, &c);
    printf("%s: kind %d monotonic %d chunk %d\n", where, (int)k & 0xffff,
           ((unsigned)k & 0x80000000u) != 0, c);
}

int main(void)
{
    int bad = 0;

    show("from OMP_SCHEDULE");
    omp_set_schedule(omp_sched_static, 0);
    show("static, no chunk");
    omp_set_schedule(omp_sched_guided, -3);
    show("guided, chunk -3");
    omp_set_schedule((omp_sched_t)(omp_sched_dynamic | omp_sched_monotonic), 3);
#pragma omp parallel reduction(+ : bad)
    {
        int tid = omp_get_thread_num();
        omp_set_schedule(omp_sched_static, 10 + tid);
        omp_set_num_threads(1 + tid);
#pragma omp parallel
        {
            omp_set_schedule(omp_sched_guided, 99);
            omp_set_num_threads(7);
        }
        omp_sched_t k;
        int         c;
        omp_get_schedule(&k, &c);
        bad += k != omp_sched_static || c != 10 + tid || omp_get_max_threads() > 1 + tid;
    }
    printf("threads whose ICVs a nested region changed: %d\n", bad);
    show("after the regions");
    return 0;
}
