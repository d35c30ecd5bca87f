/* sections: each section once, lastprivate, nowait, more sections than threads. */
#include <omp.h>
#include <stdio.h>

int done[6];

int main(void)
{
    int last = 0;
#pragma omp parallel
    {
#pragma omp sections lastprivate(last)
        {
#pragma omp section
            { done[0]++; last = 1; }
#pragma omp section
            { done[1]++; last = 2; }
#pragma omp section
            { done[2]++; last = 3; }
#pragma omp section
            { done[3]++; last = 4; }
#pragma omp section
            { done[4]++; last = 5; }
        }
#pragma omp sections nowait
        {
#pragma omp section
            done[5] += 10;
        }
    }
    printf("sections ran %d %d %d %d %d %d, lastprivate %d\n", done[0], done[1], done[2], done[3],
           done[4], done[5], last);
    return 0;
}
