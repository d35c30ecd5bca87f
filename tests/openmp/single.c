/* single: exactly one thread, nowait, copyprivate of scalars and an array,
 * and of threadprivate variables (each PE's own copy), again and again. */
#include <omp.h>
#include <stdio.h>

int count, count2;   /* the nowait single has its own: it overlaps the next single */
int    tp_i;
double tp_d[3];
#pragma omp threadprivate(tp_i, tp_d)

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
    int bad = 0;
#pragma omp parallel reduction(+ : bad)
    for (int k = 0; k < 25; k++) {
#pragma omp single copyprivate(tp_i, tp_d)
        {
            tp_i = 7 * k + 1;
            for (int i = 0; i < 3; i++)
                tp_d[i] = k + 0.25 * i;
        }
        bad += tp_i != 7 * k + 1 || tp_d[2] != k + 0.5;
    }
    printf("threadprivate copyprivate: threads x rounds that missed the value: %d\n", bad);
    printf("count %d %d, copyprivate reached every thread: %d, sum %g\n", count, count2, agree == nth,
           dsum / nth);
    return 0;
}
