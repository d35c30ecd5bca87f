/* first_touch.c -- a big malloc'ed array (384 KiB: block-distributed,
 * KUMI_DSM_DIST_MIN) first written by a static-schedule loop: each thread's
 * share is the part of the object homed at its PE, so under kumi no PE
 * misses on its writes (first_touch.sh checks the DSM stats at 3 and 4
 * PEs). The object's parts are counted from the object, not from the
 * allocation before its header (dsm/dsm_alloc.c, bindings/openmp/memory.c). */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    long    n = 384 * 1024 / 8;
    double *a = malloc((size_t)n * sizeof *a);

    if (a == NULL)
        return 1;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++)
        a[i] = (double)i;
    double s = 0;
    for (long i = 0; i < n; i++)
        s += a[i];
    printf("first_touch %s\n", s == (double)n * (double)(n - 1) / 2 ? "ok" : "wrong");
    free(a);
    return 0;
}
