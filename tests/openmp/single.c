/* single: exactly one thread, nowait, copyprivate of scalars and an array. */
#include <omp.h>
#include <stdio.h>

int count, count2;   /* the nowait single has its own: it overlaps the next single */

int main(void)
{
    int    agree = 0, nth = 0;
    double dsum  = 0;

#pragma omp parallel
    {
        for (int k = 0; k < 20; k++) {
#pragma omp single
            count++;
#pragma omp single nowait
            count2 += 100;
        }
#pragma omp barrier
        int    v;
        double w[4];
#pragma omp single copyprivate(v, w)
        {
            v = 1234;
            for (int i = 0; i < 4; i++)
                w[i] = i * 0.5;
        }
#pragma omp critical
        {
            agree += v == 1234 && w[3] == 1.5;
            dsum += w[0] + w[1] + w[2] + w[3];
        }
#pragma omp master
        nth = omp_get_num_threads();
    }
    printf("count %d %d, copyprivate reached every thread: %d, sum %g\n", count, count2, agree == nth,
           dsum / nth);
    return 0;
}
