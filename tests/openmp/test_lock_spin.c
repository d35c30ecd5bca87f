/* test_lock_spin.c -- threads that wait for a lock by spinning on
 * omp_test_lock / omp_test_nest_lock (as LLVM's lock/omp_test_nest_lock
 * does), with the lock's section updating shared counters. Where the PEs
 * outnumber the cores the spinners kept the holder off its core: at 4 PEs
 * on 2 cores over tcp that test went over 120 s (23 s once a failed test
 * gives the core away). */
#include <omp.h>
#include <stdio.h>

#define N 2000

int main(void)
{
    omp_lock_t      l;
    omp_nest_lock_t nl;
    int             inside = 0, overlap = 0, count = 0, ncount = 0;

    omp_init_lock(&l);
    omp_init_nest_lock(&nl);
#pragma omp parallel
    {
#pragma omp for
        for (int i = 0; i < N; i++) {
            while (!omp_test_lock(&l)) {
            }
#pragma omp flush
            overlap += inside++;
            count++;
            inside--;
            omp_unset_lock(&l);
        }
#pragma omp for
        for (int i = 0; i < N; i++) {
            while (!omp_test_nest_lock(&nl)) {
            }
            overlap += inside++;
            ncount += omp_test_nest_lock(&nl) == 2;   /* held: the depth */
            inside--;
            omp_unset_nest_lock(&nl);
            omp_unset_nest_lock(&nl);
        }
    }
    omp_destroy_lock(&l);
    omp_destroy_nest_lock(&nl);
    printf("count %d nested %d overlap %d\n", count, ncount, overlap);
    return count != N || ncount != N || overlap != 0;
}
