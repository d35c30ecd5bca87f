/* nested.c -- the level queries (omp_get_level, omp_get_active_level,
 * omp_get_ancestor_thread_num, omp_get_team_size, omp_in_parallel,
 * thread numbers) in regions nested in active ones (serialized: one
 * active level), in a team forked inside an inactive region (if(0),
 * num_threads(1)), in a region begun inside a task, and with
 * max-active-levels 0. Each thread records what it sees; the master
 * prints it in thread order. */
#include <omp.h>
#include <stdio.h>

#define MAXT 64

static int rec[MAXT][12];

static void record(int *r)
{
    int l = omp_get_level();
    r[0]  = l;
    r[1]  = omp_get_active_level();
    r[2]  = omp_in_parallel();
    r[3]  = omp_get_thread_num();
    r[4]  = omp_get_num_threads();
    r[5]  = omp_get_ancestor_thread_num(1);
    r[6]  = omp_get_team_size(1);
    r[7]  = omp_get_ancestor_thread_num(2);
    r[8]  = omp_get_team_size(2);
    r[9]  = omp_get_ancestor_thread_num(3);
    r[10] = omp_get_team_size(3);
    r[11] = omp_get_ancestor_thread_num(l + 1) == -1 && omp_get_team_size(-1) == -1;
}

static void print(const char *what, int n)
{
    for (int t = 0; t < n; t++) {
        printf("%s t%d:", what, t);
        for (int k = 0; k < 12; k++)
            printf(" %d", rec[t][k]);
        printf("\n");
    }
}

int main(void)
{
    int n = 0;

    record(rec[0]);
    print("initial", 1);

    /* level 2 and 3 inside an active region: teams of one */
#pragma omp parallel shared(n)
    {
        int t = omp_get_thread_num();
#pragma omp single
        n = omp_get_num_threads();
#pragma omp parallel
        {
#pragma omp parallel
            record(rec[t]);
        }
    }
    print("level3", n);

    /* a team forked inside an if(0) region */
#pragma omp parallel if (0)
    {
#pragma omp parallel
        record(rec[omp_get_thread_num()]);
    }
    print("in-if0", n);

    /* num_threads(1) is a team of one: inactive */
#pragma omp parallel num_threads(1)
    {
        record(rec[0]);
#pragma omp parallel
        if (omp_get_thread_num() == 0)
            rec[0][11] += 10 * omp_get_num_threads();
    }
    print("one", 1);

    /* a region begun inside a task of the initial thread */
#pragma omp task
    {
#pragma omp parallel
        record(rec[omp_get_thread_num()]);
    }
#pragma omp taskwait
    print("in-task", n);

    /* max-active-levels 0: every region is inactive */
    omp_set_max_active_levels(0);
    {
        int m = 0;
#pragma omp parallel reduction(+ : m)
        {
            m++;
            record(rec[0]);
        }
        printf("max-active-levels %d: %d thread(s)\n", omp_get_max_active_levels(), m);
        print("none", 1);
    }
    return 0;
}
