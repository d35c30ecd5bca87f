/*
 * pipeline.c -- NPB LU's wavefront pipeline: thread t handles columns
 * [t*w, (t+1)*w) of every row and starts row j only after thread t-1 has
 * finished row j, told by a flag per thread that it spins on with
 * `#pragma omp flush` (LU's sync_left / sync_right). Each point adds its
 * left neighbour (which another thread may have just written), so a
 * missed or early flag gives a wrong sum. Checked against the serial
 * computation.
 *
 * Usage: ./pipeline [rows [sweeps]]  (default 100 2). Prints the checksum
 * and "pipeline ok"; the seconds of the pipelined sweeps go to stderr
 * (tests/openmp/pipeline_time.sh bounds them).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXT 64
#define W    8   /* columns per thread */

int main(int argc, char **argv)
{
    int rows   = argc > 1 ? atoi(argv[1]) : 100;
    int sweeps = argc > 2 ? atoi(argv[2]) : 2;
    if (rows < 1 || sweeps < 0) {
        fprintf(stderr, "usage: pipeline [rows [sweeps]]\n");
        return 2;
    }
    int nth = 1;
#pragma omp parallel
#pragma omp master
    nth = omp_get_num_threads();
    if (nth > MAXT)
        return 2;
    int     cols = nth * W;
    double *g    = malloc(sizeof(double) * (size_t)rows * cols);
    double *s    = malloc(sizeof(double) * (size_t)rows * cols);
    int     flag[MAXT];
    for (int i = 0; i < rows * cols; i++)
        g[i] = s[i] = (double)(i % 7) - 3.0;

    double t0 = omp_get_wtime();
#pragma omp parallel
    {
        int t = omp_get_thread_num();
        for (int sw = 0; sw < sweeps; sw++) {
            flag[t] = 0;
#pragma omp barrier
            for (int j = 0; j < rows; j++) {
                if (t > 0) {
                    while (1) {
#pragma omp flush
                        int f = flag[t - 1];
                        if (f > j)
                            break;
                    }
                }
#pragma omp flush
                double *r = g + (size_t)j * cols;
                for (int c = t * W; c < (t + 1) * W; c++)
                    r[c] = 0.5 * r[c] + (c > 0 ? r[c - 1] : 1.0) * 0.25 + sw;
#pragma omp flush
                flag[t] = j + 1;
#pragma omp flush
            }
#pragma omp barrier
        }
    }
    double t1 = omp_get_wtime();

    for (int sw = 0; sw < sweeps; sw++)
        for (int j = 0; j < rows; j++) {
            double *r = s + (size_t)j * cols;
            for (int c = 0; c < cols; c++)
                r[c] = 0.5 * r[c] + (c > 0 ? r[c - 1] : 1.0) * 0.25 + sw;
        }
    long   bad = 0;
    double sum = 0;
    for (int i = 0; i < rows * cols; i++) {
        bad += g[i] != s[i];
        sum += g[i] / cols;
    }
    fprintf(stderr, "pipeline seconds=%.6f rows=%d sweeps=%d threads=%d\n", t1 - t0, rows,
            sweeps, nth);
    printf("rows=%d sweeps=%d checksum=%.10e\n", rows, sweeps, sum);
    if (bad) {
        printf("pipeline FAILED: %ld points differ\n", bad);
        return 1;
    }
    printf("pipeline ok\n");
    return 0;
}
