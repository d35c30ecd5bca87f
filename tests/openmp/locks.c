/* omp locks and nest locks: mutual exclusion, omp_test_lock, nesting
 * depth from omp_test_nest_lock, a lock in the heap. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

omp_lock_t      lk;
omp_nest_lock_t nlk;
long            counter, ncounter;
int             tests_won, depth_ok = 1;

int main(void)
{
    omp_lock_t *hl = malloc(sizeof(*hl));
    long        hcounter = 0;

    omp_init_lock(&lk);
    omp_init_nest_lock(&nlk);
    omp_init_lock(hl);
#pragma omp parallel
    {
        for (int k = 0; k < 100; k++) {
            omp_set_lock(&lk);
            counter++;
            omp_unset_lock(&lk);

            omp_set_nest_lock(&nlk);
            int d = omp_test_nest_lock(&nlk);   /* we hold it: depth 2 */
            if (d != 2)
                depth_ok = 0;
            ncounter++;
            omp_unset_nest_lock(&nlk);
            omp_unset_nest_lock(&nlk);

            omp_set_lock(hl);
            hcounter++;
            omp_unset_lock(hl);
        }
        while (!omp_test_lock(&lk))
            ;
        tests_won++;
        omp_unset_lock(&lk);
    }
    omp_destroy_lock(&lk);
    omp_destroy_nest_lock(&nlk);
    omp_destroy_lock(hl);
    free(hl);
    int n = 0;
#pragma omp parallel
#pragma omp master
    n = omp_get_num_threads();
    printf("per thread: %ld %ld %ld, test_lock won by all: %d, nest depth right: %d\n",
           counter / n, ncounter / n, hcounter / n, tests_won == n, depth_ok);
    return 0;
}
