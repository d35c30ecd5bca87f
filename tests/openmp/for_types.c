/* loops over 32- and 64-bit, signed and unsigned induction variables,
 * with static, dynamic and guided schedules (the _4, _4u, _8, _8u calls). */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>

int main(void)
{
    long long s_i = 0, s_u = 0, s_l = 0, s_ul = 0, s_neg = 0, s_big = 0;
    unsigned  un  = 3000;
    uint64_t  ulo = 5000000000ull;

#pragma omp parallel
    {
#pragma omp for schedule(dynamic, 5) reduction(+ : s_i)
        for (int i = -500; i < 700; i++)
            s_i += i;
#pragma omp for schedule(static) reduction(+ : s_u)
        for (unsigned i = 7; i < un; i++)
            s_u += i;
#pragma omp for schedule(guided) reduction(+ : s_l)
        for (long i = -100000; i <= 100000; i += 7)
            s_l += i;
#pragma omp for schedule(dynamic) reduction(+ : s_ul)
        for (uint64_t i = ulo; i < ulo + 1000; i++)
            s_ul += (long long)(i - ulo);
#pragma omp for schedule(static, 4) reduction(+ : s_neg)
        for (long long i = 1000; i > -1000; i -= 3)
            s_neg += i;
#pragma omp for schedule(guided, 7) reduction(+ : s_big)
        for (unsigned long i = ulo; i > ulo - 3000; i -= 2)
            s_big += (long long)(ulo - i);
    }
    printf("%lld %lld %lld %lld %lld %lld\n", s_i, s_u, s_l, s_ul, s_neg, s_big);
    return 0;
}
