/* collapse(2) and collapse(3) over rectangular nests, every schedule. */
#include <omp.h>
#include <stdio.h>

#define NI 17
#define NJ 23
#define NK 5
int m[NI][NJ], c3[NI][NJ][NK];

int main(void)
{
    long s = 0;
#pragma omp parallel
    {
#pragma omp for collapse(2) schedule(static)
        for (int i = 0; i < NI; i++)
            for (int j = 0; j < NJ; j++)
                m[i][j] = i * 100 + j;
#pragma omp for collapse(2) schedule(dynamic, 5) reduction(+ : s)
        for (int i = 0; i < NI; i++)
            for (int j = 0; j < NJ; j++)
                s += m[i][j];
#pragma omp for collapse(3) schedule(guided)
        for (int i = 0; i < NI; i++)
            for (int j = 0; j < NJ; j++)
                for (int k = 0; k < NK; k++)
                    c3[i][j][k] += i + j + k;
    }
    long t = 0;
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++)
            for (int k = 0; k < NK; k++)
                t += c3[i][j][k];
    printf("collapse sums %ld %ld\n", s, t);
    return 0;
}
