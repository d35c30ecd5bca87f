/* libc_misc.c -- time.h, math.h pointer outputs, getenv, qsort of
 * strings, strto* end pointers: results stored through pointers to
 * shared memory by every thread. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static time_t         now_t[8]   = { 1 };
static struct timeval now_tv[8]  = { { 1, 0 } };
static struct tm      tms[8]     = { { .tm_year = 1 } };
static char           when[8][40] = { "x" };
static int            expo[8]    = { 1 };
static double         ipart[8]   = { 1 }, mant[8] = { 1 };
static char          *ends[8]    = { "x" };
static char           text[]     = "  42.5rest";
static char          *names[6]   = { "pear", "apple", "fig", "kiwi", "date", "lime" };

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
    int ok_time = 1;
#pragma omp parallel reduction(&& : ok_time)
    {
        int    t = omp_get_thread_num() % 8;
        time_t fixed = 86400 * 365 + 3600 * t;
        time(&now_t[t]);
        gettimeofday(&now_tv[t], NULL);
        ok_time = now_t[t] > 1000000000 && now_tv[t].tv_sec >= now_t[t] - 1;
        gmtime_r(&fixed, &tms[t]);
        strftime(when[t], sizeof when[t], "%Y-%m-%d %H:%M", &tms[t]);
        mant[t] = frexp(48.0 * (t + 1), &expo[t]);
        double frac = modf(3.75 + t, &ipart[t]);
        (void)frac;
        strtod(text, &ends[t]);
    }
    qsort(names, 6, sizeof names[0], by_name);
    printf("time ok %d, HOME set %d\n", ok_time, getenv("HOME") != NULL);
    for (int t = 0; t < omp_get_max_threads() && t < 8; t++)
        printf("%d: %s %.3f*2^%d int %.0f end '%s'\n", t, when[t], mant[t], expo[t], ipart[t],
               ends[t]);
    for (int i = 0; i < 6; i++)
        printf("%s%c", names[i], i == 5 ? '\n' : ' ');

    /* nanosleep with the request in shared memory, the time left private */
    static struct timespec nap = { 0, 2000000 };
    int                    slept = 0;
#pragma omp parallel reduction(+ : slept)
    {
        struct timespec left;
        double          t0 = omp_get_wtime();
        slept += nanosleep(&nap, &left) == 0 && omp_get_wtime() - t0 >= 0.0019;
    }
    printf("threads that slept 2 ms: all %d\n", slept == omp_get_max_threads());
    return 0;
}
