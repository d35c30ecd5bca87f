/* libc_stdio.c -- stdio from every thread: printf/puts/putchar in a
 * fixed order (ordered), a FILE* the master opened written by workers,
 * read back by a worker with fgets and fscanf, sprintf/sscanf into
 * shared memory, rand() as one sequence. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char shared_line[128] = "-";
static int  draws[64]        = { 1 };
static long draws48[64]      = { 1 };

int main(void)
{
    char  path[96];
    FILE *f;
    int   nth = omp_get_max_threads();

    printf("before the region (buffered at the master)\n");
    snprintf(path, sizeof path, "/tmp/kumi_omp_libc_stdio.%ld.%d.txt", (long)getpid(), nth);
    f = fopen(path, "w");
    if (f == NULL) {
        perror("fopen");
        return 1;
    }
    srand(12345);
    srand48(777);
#pragma omp parallel shared(f)
    {
#pragma omp for ordered schedule(static, 1)
        for (int i = 0; i < omp_get_num_threads(); i++) {
#pragma omp ordered
            {
                printf("thread %d of %d: %s\n", omp_get_thread_num(), omp_get_num_threads(),
                       i % 2 ? "odd" : "even");
                fprintf(f, "line %d value %d %s\n", i, i * 11, "end");
                puts("puts from the same thread");
                putchar('A' + i);
                putchar('\n');
                draws[i]   = rand() % 1000;
                draws48[i] = lrand48();
            }
        }
#pragma omp single
        {
            fclose(f);
            f = fopen(path, "r");
        }
#pragma omp for ordered schedule(static, 1)
        for (int i = 0; i < omp_get_num_threads(); i++) {
#pragma omp ordered
            {
                char word[16];
                int  a = -1, b = -1, n;
                if (i % 2 == 0) {
                    char line[80];
                    n = fgets(line, sizeof line, f) != NULL;
                    if (n)
                        n = sscanf(line, "%15s %d value %d", word, &a, &b);
                } else {
                    n = fscanf(f, "%15s %d value %d %*s", word, &a, &b);
                }
                printf("read %d: %s %d %d by %s\n", n, word, a, b, i % 2 ? "fscanf" : "fgets");
                sprintf(shared_line, "%s/%d", word, a + b);
            }
        }
#pragma omp single
        {
            fclose(f);
            f = fopen(path, "r");
        }
        /* getline grows a heap buffer that another thread frees */
        char  *line = NULL;
        size_t cap  = 0;
#pragma omp for ordered schedule(static, 1)
        for (int i = 0; i < omp_get_num_threads(); i++) {
#pragma omp ordered
            {
                long n = (long)getline(&line, &cap, f);
                printf("getline %ld: %s", n, n > 0 ? line : "(eof)\n");
            }
        }
        free(line);
#pragma omp single
        fclose(f);
    }
    remove(path);
    printf("last %s\n", shared_line);
    srand(12345);
    int same = 1;
    for (int i = 0; i < nth; i++)
        same &= draws[i] == rand() % 1000;
    srand48(777);
    for (int i = 0; i < nth; i++)
        same &= draws48[i] == lrand48();
    printf("rand, lrand48: one sequence %d\n", same);
    fflush(stdout);
    return 0;
}
