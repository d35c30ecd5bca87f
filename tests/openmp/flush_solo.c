/*
 * flush_solo.c -- `#pragma omp flush` between pieces of work, as NPB LU's
 * blts/buts do after every row, in a team of one: nothing can be waited
 * for, so no flush may give the core away. At one PE the translated code
 * runs its unchecked copies, which count no loop back-edges; before the
 * fix every flush after the 64th then took a nap (LU S at 1 PE: 10000
 * voluntary context switches, 1.5-12 s against 0.04 s with libomp).
 * Each thread flushes FLUSHES times around a short computation and counts
 * its own voluntary context switches (getrusage RUSAGE_THREAD); a team of
 * one must stay under FLUSHES/10 of them. Prints the sum and "flush_solo ok".
 * tests/openmp/openmp.cmake runs it also with KUMI_WAIT=block at 1 PE
 * (the policy kumirun picks on a loaded machine, where the naps were).
 */
#define _GNU_SOURCE
#include <omp.h>
#include <stdio.h>
#include <sys/resource.h>

#define FLUSHES 20000
#define WORK    32

static long vcsw(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0)
        return -1;
    return ru.ru_nvcsw;
}

int main(void)
{
    double sum = 0.0;
    int    bad = 0;
#pragma omp parallel reduction(+ : sum, bad)
    {
        double x  = 1.0;
        long   v0 = vcsw();
        for (int i = 0; i < FLUSHES; i++) {
            for (int j = 0; j < WORK; j++)
                x = x * 0.5 + (double)(j & 3);
#pragma omp flush
        }
        long v1 = vcsw();
        sum += x;
        if (omp_get_num_threads() == 1 && (v0 < 0 || v1 - v0 > FLUSHES / 10)) {
            fprintf(stderr, "flush_solo: %ld voluntary context switches in %d flushes\n", v1 - v0,
                    FLUSHES);
            bad++;
        }
    }
    printf("sum %.6f\n", sum / omp_get_max_threads());
    if (bad)
        return 1;
    printf("flush_solo ok\n");
    return 0;
}
