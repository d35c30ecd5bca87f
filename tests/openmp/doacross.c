/* ordered(n) with depend(sink)/depend(source) (doacross loops), 1 and 2
 * dimensions; cancel/cancellation point (not activated: OMP_CANCELLATION
 * is false) and proc_bind are accepted. */
#include <omp.h>
#include <stdio.h>

#define N 300
#define M 40
long a[N];
long b[M][M];

int main(void)
{
    a[0] = 1;
#pragma omp parallel proc_bind(close)
    {
#pragma omp for ordered(1) schedule(dynamic, 4)
        for (int i = 1; i < N; i++) {
#pragma omp ordered depend(sink : i - 1)
            a[i] = a[i - 1] + i;
#pragma omp ordered depend(source)
        }
#pragma omp for ordered(2) schedule(static, 1)
        for (int i = 0; i < M; i++)
            for (int j = 0; j < M; j++) {
#pragma omp ordered depend(sink : i - 1, j) depend(sink : i, j - 1)
                b[i][j] = (i ? b[i - 1][j] : 0) + (j ? b[i][j - 1] : 0) + 1;
                if (b[i][j] > 1000000007)
                    b[i][j] %= 1000000007;
#pragma omp ordered depend(source)
            }
        int cancelled = 0;
#pragma omp for
        for (int i = 0; i < 10; i++) {
            if (i == 5) {
#pragma omp cancel for
            }
#pragma omp cancellation point for
            cancelled += 0;
        }
    }
    printf("cancellation %d, a[N-1] %ld, b[M-1][M-1] %ld\n", omp_get_cancellation(), a[N - 1],
           b[M - 1][M - 1]);
    return 0;
}
