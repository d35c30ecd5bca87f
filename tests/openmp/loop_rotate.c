/* loops whose carried values rotate (prev <- cur <- next, as stencils and
 * recurrences written with scalars do): clang -O2 makes one header phi the
 * latch value of another. kumi-translate versions such a loop (an unchecked
 * copy behind a test of the lines it reaches, left every 1024 iterations
 * for a poll and the test again: the bail); the checked loop must continue
 * from the copy's values. Long inner loops, so the bail runs. */
#include <omp.h>
#include <stdio.h>

#define N 6000
double a[N], b[N];

int main(void)
{
    for (int i = 0; i < N; i++)
        a[i] = (i % 13) * 0.5 + 1.0;
    double tot = 0.0;
#pragma omp parallel for reduction(+ : tot)
    for (int j = 0; j < 8; j++) {
        double prev = a[j], cur = a[j + 1], s = 0.0;
        for (int i = j + 2; i < N; i++) {
            double next = a[i];
            s += prev - 2.0 * cur + next * (j + 1);
            prev = cur;
            cur = next;
        }
        tot += s + cur;
    }
    /* a second-order recurrence on a shared array, a quarter each */
#pragma omp parallel for
    for (int c = 0; c < 4; c++) {
        double x0 = 1.0, x1 = 0.5;
        for (int i = c * (N / 4); i < (c + 1) * (N / 4); i++) {
            double x2 = 0.25 * x1 + 0.5 * x0 + a[i] * 1e-3;
            b[i] = x2;
            x0 = x1;
            x1 = x2;
        }
    }
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += b[i] * (i % 5 + 1);
    printf("tot %.6f\n", tot);
    printf("b %.9f\n", s);
    return 0;
}
