/* ordered: iterations enter their ordered region in order, with dynamic,
 * static and guided schedules; an iteration may skip it. */
#include <omp.h>
#include <stdio.h>

#define N 200
int order[3][N];
int pos[3];

int main(void)
{
#pragma omp parallel
    {
#pragma omp for ordered schedule(dynamic, 3)
        for (int i = 0; i < N; i++) {
#pragma omp ordered
            order[0][pos[0]++] = i;
        }
#pragma omp for ordered schedule(static)
        for (int i = 0; i < N; i++) {
            if (i % 3 == 0) {
#pragma omp ordered
                order[1][pos[1]++] = i;
            }
        }
#pragma omp for ordered schedule(guided)
        for (long i = N - 1; i >= 0; i--) {
#pragma omp ordered
            order[2][pos[2]++] = (int)i;
        }
    }
    int ok0 = pos[0] == N, ok1 = pos[1] == (N + 2) / 3, ok2 = pos[2] == N;
    for (int i = 0; i < pos[0]; i++)
        ok0 &= order[0][i] == i;
    for (int i = 0; i < pos[1]; i++)
        ok1 &= order[1][i] == 3 * i;
    for (int i = 0; i < pos[2]; i++)
        ok2 &= order[2][i] == N - 1 - i;
    printf("in order: dynamic %d static %d guided %d\n", ok0, ok1, ok2);
    /* printing in order from every thread */
#pragma omp parallel for ordered schedule(dynamic)
    for (int i = 0; i < 8; i++) {
#pragma omp ordered
        printf("iteration %d\n", i);
    }
    return 0;
}
