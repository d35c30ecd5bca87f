/* libc_heap.c -- the heap is shared: allocated by one thread, filled by
 * all, reallocated, freed by another thread; calloc, aligned_alloc,
 * posix_memalign, strdup/strndup results used across threads. */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
    int          v;
    struct node *next;
};

int main(void)
{
    int           n     = 1000;
    double       *a     = malloc(n * sizeof *a);
    long         *z     = calloc(n, sizeof *z);
    struct node **heads = calloc(64, sizeof *heads);
    char        **names = calloc(64, sizeof *names);
    void         *al    = NULL;
    int           nth   = 1;

    if (posix_memalign(&al, 256, 4096) != 0)
        return 1;
#pragma omp parallel shared(a, z, heads, names, al, nth)
    {
        int t = omp_get_thread_num();
#pragma omp single
        nth = omp_get_num_threads();
#pragma omp for
        for (int i = 0; i < n; i++)
            a[i] = i * 0.5;
        /* each thread builds a list others will walk and free */
        for (int k = 0; k < 10; k++) {
            struct node *e = malloc(sizeof *e);
            e->v     = t * 100 + k;
            e->next  = heads[t];
            heads[t] = e;
        }
        char tmp[32];
        snprintf(tmp, sizeof tmp, "name-of-%d-and-more", t);
        names[t] = strndup(tmp, 10);
#pragma omp barrier
#pragma omp single
        {
            a = realloc(a, 2 * n * sizeof *a);
            for (int i = n; i < 2 * n; i++)
                a[i] = 1.0;
        }
        /* thread t walks and frees the list of thread t+1 */
        int          o   = (t + 1) % nth;
        long         sum = 0;
        struct node *e   = heads[o];
        while (e != NULL) {
            struct node *nx = e->next;
            sum += e->v;
            free(e);
            e = nx;
        }
        z[o] = sum;
        char *dup = strdup(names[o]);
#pragma omp critical
        ((char *)al)[o] = (char)strlen(dup);
        free(dup);
    }
    double s = 0;
    for (int i = 0; i < 2 * n; i++)
        s += a[i];
    long zs = 0;
    int  lens = 0;
    for (int t = 0; t < nth; t++) {
        zs += z[t];
        lens += ((char *)al)[t];
        free(names[t]);
    }
    int   *big = aligned_alloc(64, 1 << 20);
    memset(big, 0, 1 << 20);
    printf("sum %.1f, lists %ld, names %d, aligned %d %d\n", s, zs, lens,
           (int)((uintptr_t)al % 256), (int)((uintptr_t)big % 64));
    free(big);
    free(al);
    free(a);
    free(z);
    free(heads);
    free(names);
    return 0;
}
