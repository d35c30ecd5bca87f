/* atomic_ld.c -- #pragma omp atomic on long double (clang emits the
 * generic __atomic_load and __atomic_compare_exchange libcalls) and on a
 * 16-byte _Complex double capture. */
#include <omp.h>
#include <stdio.h>

long double total = 0;

int main(void)
{
    long double local = 0.5L, seen_max = 0;
#pragma omp parallel shared(local, seen_max)
    {
        for (int i = 0; i < 200; i++) {
#pragma omp atomic
            total += 0.25L;
#pragma omp atomic update
            local *= 1.0L;
        }
        long double v;
#pragma omp atomic read
        v = total;
#pragma omp critical
        if (v > seen_max)
            seen_max = v;
#pragma omp barrier
#pragma omp atomic write
        local = 7.5L;
    }
    printf("total %.2Lf (want %.2f), local %.2Lf, max>0 %d\n", total,
           200 * 0.25 * omp_get_max_threads(), local, seen_max > 0);
    return 0;
}
