/* libc_string.c -- string.h and stdlib.h wrappers on shared memory:
 * globals, the master's stack and the heap, used by every thread. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char names[8][32] = { "x" };
static int  vals[64]     = { 1 };

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    char line[128];
    int  nth = 0;

    strcpy(line, "alpha,beta,gamma,delta");
#pragma omp parallel shared(line, nth)
    {
        int t = omp_get_thread_num();
#pragma omp single
        nth = omp_get_num_threads();
        /* each thread writes its own name into the shared table */
        snprintf(names[t], sizeof names[t], "thread-%02d:%s", t, t % 2 ? "odd" : "even");
        strcat(names[t], "!");
#pragma omp for
        for (int i = 0; i < 64; i++)
            vals[i] = (i * 37) % 64;
#pragma omp barrier
        /* everybody reads what the others wrote */
        int seen = 0;
        for (int i = 0; i < nth; i++) {
            char want[32];
            sprintf(want, "thread-%02d:%s!", i, i % 2 ? "odd" : "even");
            seen += strcmp(names[i], want) == 0 && strlen(names[i]) == strlen(want);
        }
#pragma omp critical
        {
            if (seen != nth)
                printf("thread %d saw %d of %d names\n", t, seen, nth);
        }
#pragma omp single
        {
            qsort(vals, 64, sizeof vals[0], cmp_int);
            char copy[128], *save = NULL;
            strncpy(copy, line, sizeof copy);
            int k = 0;
            for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
                k += (int)strlen(tok);
            printf("tokens %d chars, strstr %s, strchr %s\n", k, strstr(line, "gamma"),
                   strrchr(line, ','));
        }
    }
    int sorted = 1;
    for (int i = 1; i < 64; i++)
        sorted &= vals[i - 1] <= vals[i];
    char *end;
    long  v  = strtol("  1234xyz", &end, 10);
    double d = strtod("2.5e3", NULL);
    int   key = 17;
    int  *hit = bsearch(&key, vals, 64, sizeof vals[0], cmp_int);
    printf("sorted %d, strtol %ld rest %s, strtod %.1f, atoi %d, bsearch %d\n", sorted, v, end,
           d, atoi("-42"), hit ? *hit : -1);
    char *heap = malloc(64);
    memset(heap, 'a', 63);
    heap[63] = '\0';
    memcpy(heap + 10, "0123456789", 10);
    printf("memcmp %d memchr %ld strspn %zu %s\n", memcmp(heap, heap + 1, 9) == 0,
           (long)((char *)memchr(heap, '5', 63) - heap), strspn(heap, "a"), heap + 60);
    for (int i = 0; i < nth; i++)
        printf("%s\n", names[i]);
    free(heap);
    return 0;
}
