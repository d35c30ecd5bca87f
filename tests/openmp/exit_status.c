/* the job ends with main's return value after a parallel region */
#include <omp.h>
#include <stdio.h>

int sum;

int main(void)
{
#pragma omp parallel reduction(+ : sum)
    sum += 1;
    printf("ran a region\n");
    return sum > 0 ? 7 : 1;
}
