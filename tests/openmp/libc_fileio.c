/* libc_fileio.c -- binary file I/O on shared arrays: a worker writes a
 * big heap array with fwrite to a file the master opened, the master
 * reads it back with fread into another shared array (and the other way
 * round), fseek/ftell/rewind/feof across threads. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N (300 * 1024)

int main(void)
{
    char path[96];
    snprintf(path, sizeof path, "/tmp/kumi_omp_libc_fileio.%ld.%d", (long)getpid(),
             omp_get_max_threads());
    double *a = malloc(N * sizeof *a), *b = calloc(N, sizeof *b);
    FILE   *f = fopen(path, "w+b");
    long    pos = -1, pos2 = -1;
    size_t  wrote = 0, got = 0;
    int     eof = -1;
    if (f == NULL || a == NULL || b == NULL)
        return 1;
#pragma omp parallel shared(a, b, f, pos, pos2, wrote, got, eof)
    {
        int nth = omp_get_num_threads(), t = omp_get_thread_num();
#pragma omp for
        for (int i = 0; i < N; i++)
            a[i] = i * 0.25;
        if (t == nth - 1) {   /* the last thread writes (a worker when there is one) */
            wrote = fwrite(a, sizeof *a, N, f);
            pos   = ftell(f);
            rewind(f);
        }
#pragma omp barrier
#pragma omp master
        {
            got = fread(b, sizeof *b, N, f);
            char c;
            eof = fread(&c, 1, 1, f) == 0 && feof(f);
            fseek(f, 8 * 1000, SEEK_SET);
        }
#pragma omp barrier
        if (t == nth - 1) {
            double v;
            if (fread(&v, sizeof v, 1, f) == 1 && v == 250.0)
                pos2 = ftell(f);
        }
    }
    fclose(f);
    remove(path);
    printf("wrote %zu at %ld, read %zu, eof %d, same %d, seek+read at %ld\n", wrote, pos, got, eof,
           memcmp(a, b, N * sizeof *a) == 0, pos2);
    free(a);
    free(b);
    return 0;
}
