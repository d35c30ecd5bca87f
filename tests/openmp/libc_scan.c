/* libc_scan.c -- the scanf family storing into shared memory (globals,
 * the heap) from every thread: %d %ld %lf %Lf %s %c %[ %n %*, widths,
 * partial matches and EOF. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char        words[8][24]  = { "x" };
static int         nums[8]       = { 1 };
static double      reals[8]      = { 1 };
static long double lds[8]        = { 1 };
static char        tags[8][4]    = { "x" };
static int         consumed[8]   = { 1 };
static int         results[8][3] = { { 1 } };

int main(void)
{
    char *sets = malloc(8 * 16);
#pragma omp parallel
    {
        int  t = omp_get_thread_num() % 8;
        char in[96];
        snprintf(in, sizeof in, "word%d %d 2.5e%d 7.25 ABC rest-of-%d: tail", t, t * 7, t, t);
        results[t][0] = sscanf(in, "%23s %d %lf %Lf %3c %*s%n", words[t], &nums[t], &reals[t],
                               &lds[t], tags[t], &consumed[t]);
        results[t][1] = sscanf(in + consumed[t], " %15[^:]", sets + 16 * t);
        results[t][2] = sscanf("12 x", "%d %d", &nums[t], &nums[t]);
    }
    for (int t = 0; t < omp_get_max_threads() && t < 8; t++)
        printf("%d: %d %d %d | %s %d %.1f %.2Lf %.3s %d [%s]\n", t, results[t][0], results[t][1],
               results[t][2], words[t], nums[t], reals[t], lds[t], tags[t], consumed[t],
               sets + 16 * t);
    int   a = -5;
    float f = -1;
    printf("eof %d, %d %d\n", sscanf("", "%d", &a), sscanf("3.5", "%f", &f), (int)(f * 2));
    free(sets);
    return 0;
}
