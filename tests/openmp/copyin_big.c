/* copyin_big.c -- large objects on the DSM stack: a copyin of a 128 KiB
 * threadprivate array (NPB EP copies in a 1 MiB one) and a 64 KiB local
 * array of the master's that every thread reads, in several regions.
 * Every thread checks its copy and prints what it found (sums in thread
 * order: the same with libomp). At 2 PEs with KUMI_DSM_STATS=1
 * (copyin_msgs.sh) the copies move in 4 KiB blocks. */
#include <omp.h>
#include <stdio.h>

#define NX (16 * 1024)   /* doubles: 128 KiB */
#define NL (8 * 1024)    /* doubles: 64 KiB */

static double x[NX];
#pragma omp threadprivate(x)

int main(void)
{
    double local[NL];
    long   sums[3][8] = {{0}};
    int    bad = 0, nt = 1;

    for (int i = 0; i < NL; i++)
        local[i] = i % 7;
    for (int r = 0; r < 3; r++) {
        for (int i = 0; i < NX; i++)
            x[i] = (double)(i % 13 + r);
#pragma omp parallel copyin(x) shared(local, sums) reduction(+ : bad)
        {
            int  t = omp_get_thread_num();
            long s = 0;
            for (int i = 0; i < NX; i++) {
                if (x[i] != (double)(i % 13 + r))
                    bad++;
                s += (long)x[i];
                x[i] = -1.0;   /* the thread's own copy: nobody else sees it */
            }
            for (int i = 0; i < NL; i++)
                s += (long)local[i] * (t + 1);
            if (t < 8)
                sums[r][t] = s;
#pragma omp master
            nt = omp_get_num_threads();
        }
    }
    for (int r = 0; r < 3; r++) {
        printf("region %d:", r);
        for (int t = 0; t < nt && t < 8; t++)
            printf(" %ld", sums[r][t]);
        printf("\n");
    }
    printf("copyin_big %s\n", bad == 0 ? "ok" : "BAD");
    return bad != 0;
}
