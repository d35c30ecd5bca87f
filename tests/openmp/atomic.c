/* atomic: update, read, write, capture on int, long, float, double and
 * long double (the last through the __atomic_* library calls). */
#include <omp.h>
#include <stdio.h>

int         ai;
long        al = 1;
float       af;
double      ad;
long double ald;
int         captured[4096];

int main(void)
{
#pragma omp parallel
    {
        for (int k = 0; k < 300; k++) {
#pragma omp atomic
            ai += 2;
#pragma omp atomic update
            al += 3;
#pragma omp atomic
            af += 1.0f;
#pragma omp atomic
            ad += 0.25;
#pragma omp atomic
            ald += 1.0L;
            int old;
#pragma omp atomic capture
            old = ai++;
            if (old >= 0 && old < 4096 * 4) {
#pragma omp atomic write
                captured[old % 4096] = 1;
            }
        }
    }
    int n = 0;
#pragma omp parallel
#pragma omp master
    n = omp_get_num_threads();
    int r;
#pragma omp atomic read
    r = ai;
    printf("per thread: %d %ld %g %g %Lg\n", r / n, (al - 1) / n, af / n, ad / n, ald / n);
    return 0;
}
