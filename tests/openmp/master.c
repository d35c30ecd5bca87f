/* master: only thread 0, no barrier implied (the others continue). */
#include <omp.h>
#include <stdio.h>

int by_master, by_other;

int main(void)
{
#pragma omp parallel
    {
        for (int k = 0; k < 10; k++) {
#pragma omp master
            {
                if (omp_get_thread_num() == 0)
                    by_master++;
                else
                    by_other++;
            }
        }
    }
    printf("master ran %d times, on others %d times\n", by_master, by_other);
    return 0;
}
