/*
 * omp_e2e.c -- kumi-translate --openmp end to end (tests/translate/omp.cmake):
 * a shared local of the master's stack, a global array (bss), an
 * initialized global reached through a constant table (data + fixups), a
 * static counter under critical, a reduction, copyin of a threadprivate
 * and a VLA given to a region. Prints "omp_e2e: ok" or what differs.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int  garr[1000];                        /* kumi_omp_bss               */
int  ginit = 7;                         /* kumi_omp_data              */
int *const gtab[2] = {&ginit, &garr[999]};   /* moved: points at moved */
int  tp = 1;
#pragma omp threadprivate(tp)

static int bump(void)
{
    static int calls;                   /* a static local: shared too */
    return ++calls;
}

int main(int argc, char **argv)
{
    (void)argv;
    int  nthreads = 0, seen = 0, bad = 0, n = argc + 99;   /* n = 100 */
    long sum = 0;
    int  vla[n];

    tp = 5;
#pragma omp parallel copyin(tp)
    {
#pragma omp single
        nthreads = omp_get_num_threads();
#pragma omp atomic
        seen += tp;                     /* the master's shared local  */
#pragma omp critical
        bump();
    }
#pragma omp parallel for
    for (int i = 0; i < 1000; i++)
        garr[i] = i;
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        vla[i] = 2 * i + *gtab[0];
#pragma omp parallel for reduction(+:sum)
    for (int i = 0; i < 1000; i++)
        sum += garr[i];
    for (int i = 0; i < n; i++)
        if (vla[i] != 2 * i + 7) bad++;
    int calls = bump() - 1;
    if (sum != 499500) printf("omp_e2e: BAD sum %ld\n", sum), bad++;
    if (seen != 5 * nthreads) printf("omp_e2e: BAD seen %d (threads %d)\n", seen, nthreads), bad++;
    if (calls != nthreads) printf("omp_e2e: BAD static counter %d (threads %d)\n", calls, nthreads), bad++;
    if (*gtab[1] != 999) printf("omp_e2e: BAD gtab[1] %d\n", *gtab[1]), bad++;
    if (bad) return 1;
    printf("omp_e2e: ok, %d threads\n", nthreads);
    return 0;
}
