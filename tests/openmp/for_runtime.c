/* schedule(runtime) (OMP_SCHEDULE from the test: guided,3), schedule(auto),
 * omp_set_schedule/omp_get_schedule. */
#include <omp.h>
#include <stdio.h>

#define N 777
int a[N];

int main(void)
{
    omp_sched_t kind;
    int         chunk;
    long        s = 0;

    omp_get_schedule(&kind, &chunk);
    printf("OMP_SCHEDULE: kind %d chunk %d\n", (int)kind & 0xff, chunk);
#pragma omp parallel for schedule(runtime) reduction(+ : s)
    for (int i = 0; i < N; i++) {
        a[i] = i;
        s += i;
    }
    omp_set_schedule(omp_sched_dynamic, 4);
    omp_get_schedule(&kind, &chunk);
    printf("set: kind %d chunk %d\n", (int)kind & 0xff, chunk);
#pragma omp parallel for schedule(runtime) reduction(+ : s)
    for (int i = 0; i < N; i++)
        s += a[i];
#pragma omp parallel for schedule(auto) reduction(+ : s)
    for (int i = 0; i < N; i++)
        s += a[i];
    printf("sum %ld\n", s);
    return 0;
}
