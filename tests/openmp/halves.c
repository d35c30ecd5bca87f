/*
 * halves.c -- fft's sharing pattern on a small array: a R x C row-major
 * array the master mallocs (1 MiB: block-distributed over the PEs), then
 * per iteration a pass over the rows (static schedule: thread t writes
 * its rows) and a pass over chunks of 512 columns (4 KiB of a row: thread
 * t writes its columns of every row). With the array starting on a block
 * boundary every block is written by one thread in each pass, so at 2 PEs
 * an iteration moves each block of the other half twice; an array 16
 * bytes off the boundary shares every block between two rows or two
 * column chunks and moves far more (halves_msgs.sh counts the messages).
 *
 * Usage: ./halves [iters]  (default 3). Prints a checksum and "halves ok".
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define R  64
#define C  2048
#define CB 512

int main(int argc, char **argv)
{
    int            iters = argc > 1 ? atoi(argv[1]) : 3;
    unsigned long *x     = malloc(sizeof(unsigned long) * R * C);

    if (x == NULL)
        return 1;
#pragma omp parallel for schedule(static)
    for (long r = 0; r < R; r++)
        for (long c = 0; c < C; c++)
            x[r * C + c] = (unsigned long)(r * C + c);
    for (int it = 0; it < iters; it++) {
#pragma omp parallel for schedule(static)
        for (long r = 0; r < R; r++)
            for (long c = 0; c < C; c++)
                x[r * C + c] = x[r * C + c] * 31u + (unsigned long)r;
#pragma omp parallel for schedule(static)
        for (long c0 = 0; c0 < C; c0 += CB)
            for (long r = 0; r < R; r++)
                for (long c = c0; c < c0 + CB; c++)
                    x[r * C + c] = x[r * C + c] * 7u + (unsigned long)c;
    }
    unsigned long sum = 0;
    for (long i = 0; i < (long)R * C; i++)
        sum = sum * 3u + x[i];
    printf("checksum %lu\nhalves ok\n", sum);
    free(x);
    return 0;
}
