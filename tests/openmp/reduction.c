/* reductions: + * min max & | ^ && || on int, long, unsigned, float,
 * double, on parallel and for (blocking and nowait), several at once. */
#include <omp.h>
#include <stdio.h>

#define N 1000

int main(void)
{
    int      s = 0, mn = 1 << 30, mx = -(1 << 30), band = ~0, bor = 0, bxor = 0, land = 1, lor = 0;
    long     sl = 0;
    unsigned su = 0;
    float    sf = 0;
    double   sd = 0, prod = 1;

#pragma omp parallel reduction(+ : s) reduction(* : prod)
    {
        s += 1;
        prod *= 2;
    }
    int nth = s;
    s       = 0;
#pragma omp parallel
    {
#pragma omp for reduction(+ : s, sl, su) reduction(min : mn) reduction(max : mx)
        for (int i = 0; i < N; i++) {
            s += i;
            sl += (long)i * i;
            su += (unsigned)i;
            if (i - 500 < mn)
                mn = i - 500;
            if (i * 3 > mx)
                mx = i * 3;
        }
#pragma omp for reduction(& : band) reduction(| : bor) reduction(^ : bxor) nowait
        for (int i = 0; i < N; i++) {
            band &= ~(1 << (i % 20));
            bor |= 1 << (i % 25);
            bxor ^= i;
        }
#pragma omp for reduction(&& : land) reduction(|| : lor) reduction(+ : sf, sd)
        for (int i = 0; i < N; i++) {
            land = land && (i < N);
            lor  = lor || (i == 777);
            sf += 0.5f;
            sd += i * 0.25;
        }
    }
    printf("threads %d prod %g\n", nth, prod);
    printf("%d %ld %u %d %d %d %d %d %d %d %g %g\n", s, sl, su, mn, mx, band, bor, bxor, land, lor,
           sf, sd);
    return 0;
}
