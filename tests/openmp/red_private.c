/* reductions whose private copies stay private (dsm/translate/omp.c: the
 * reduce list gets a DSM stack slot, the copy stays an alloca): every
 * operator on int, long, unsigned, float, double; arrays and constant
 * array sections (also with an offset); a user-defined reduction on a
 * struct; nowait; reductions on parallel, for, sections, parallel for;
 * an orphaned for in a function called from a region; and the shapes
 * that keep the old handling (a VLA section, a copy whose address also
 * escapes to a call). Each result is checked against its known value. */
#include <stdio.h>

#define N  1000
#define NQ 10

struct pt {
    long   n;
    double x, y;
};
#pragma omp declare reduction(padd : struct pt : omp_out.n += omp_in.n, omp_out.x += omp_in.x, \
                                  omp_out.y += omp_in.y) initializer(omp_priv = (struct pt){0, 0, 0})

static int bad;

static void check(const char *what, double got, double want)
{
    if (got != want) {
        printf("BAD %s: %.17g, want %.17g\n", what, got, want);
        bad = 1;
    } else {
        printf("%s %.17g\n", what, got);
    }
}

double gsum;

__attribute__((noinline)) static void bump(long *p, long v) { *p += v; }

/* orphaned: the for's reduction in a function called from a region */
static long   os;
static double od;
static void orphan(int n)
{
#pragma omp for reduction(+ : os) reduction(max : od)
    for (int i = 0; i < n; i++) {
        os += i;
        if (i * 0.5 > od) od = i * 0.5;
    }
}

static void vla(int m)
{
    long v[m];
    for (int k = 0; k < m; k++) v[k] = 0;
#pragma omp parallel for reduction(+ : v[:m])
    for (int i = 0; i < N; i++) v[i % m] += i;
    long t = 0;
    for (int k = 0; k < m; k++) t += v[k] * (k + 1);
    long want = 0;
    for (int i = 0; i < N; i++) want += (long)i * (i % m + 1);
    check("vla", (double)t, (double)want);
}

int main(void)
{
    int      is = 0, ip = 1, imn = 1 << 30, imx = -(1 << 30), iand = ~0, ior = 0, ixor = 0, iland = 1, ilor = 0;
    long     ls = 0, lmn = 1L << 40, lmx = -(1L << 40), lxor = 0;
    unsigned us = 0, uand = ~0u, uor = 0, umx = 0;
    float    fs = 0, fmn = 1e9f, fmx = -1e9f, fp = 1;
    double   ds = 0, dp = 1, dmn = 1e300, dmx = -1e300;
    int      arr[4] = {0, 0, 0, 0};
    long     sec[6] = {0, 0, 0, 0, 0, 0}, *psec = sec;
    struct pt p = {0, 0, 0};
    int      nthr = 0;

#pragma omp parallel reduction(+ : nthr)
    nthr += 1;

#pragma omp parallel
    {
#pragma omp for reduction(+ : is, ls, us, fs, ds) reduction(min : imn, lmn, fmn, dmn) \
    reduction(max : imx, lmx, umx, fmx, dmx)
        for (int i = 0; i < N; i++) {
            is += i;
            ls += (long)i * i;
            us += (unsigned)i;
            fs += 0.5f;
            ds += i * 0.25;
            if (i - 500 < imn) imn = i - 500;
            if (-(long)i * i < lmn) lmn = -(long)i * i;
            if (i * 0.5f < fmn) fmn = i * 0.5f;
            if (i * 0.25 - 1 < dmn) dmn = i * 0.25 - 1;
            if (i * 3 > imx) imx = i * 3;
            if ((long)i << 20 > lmx) lmx = (long)i << 20;
            if ((unsigned)i * 7u > umx) umx = (unsigned)i * 7u;
            if (i * 1.5f > fmx) fmx = i * 1.5f;
            if (i * 2.5 > dmx) dmx = i * 2.5;
        }
#pragma omp for reduction(&& : iland) reduction(|| : ilor)
        for (int i = 0; i < N; i++) {
            iland = iland && (i < N);
            ilor  = ilor || (i == 777);
        }
    }
    check("int +", is, N * (N - 1) / 2);
    check("long +", (double)ls, (double)((long)(N - 1) * N * (2 * N - 1) / 6));
    check("unsigned +", us, N * (N - 1) / 2);
    check("float +", fs, N * 0.5);
    check("double +", ds, N * (N - 1) / 2 * 0.25);
    check("int min", imn, -500);
    check("long min", (double)lmn, -(double)(N - 1) * (N - 1));
    check("float min", fmn, 0);
    check("double min", dmn, -1);
    check("int max", imx, (N - 1) * 3);
    check("long max", (double)lmx, (double)((long)(N - 1) << 20));
    check("unsigned max", umx, (N - 1) * 7);
    check("float max", fmx, (N - 1) * 1.5);
    check("double max", dmx, (N - 1) * 2.5);
    check("int &&", iland, 1);
    check("int ||", ilor, 1);

    /* arrays, constant sections (a global one, one at an offset through a
     * pointer), a user-defined reduction, on parallel for */
    long gq[NQ] = {0};   /* a constant section of a local array */
#pragma omp parallel for reduction(+ : gq[:NQ])
    for (int i = 0; i < N; i++) gq[i % NQ]++;
#pragma omp parallel for reduction(+ : arr, psec[2:3]) reduction(padd : p)
    for (int i = 0; i < N; i++) {
        arr[i % 4] += i;
        psec[2 + i % 3] += 2;
        p.n++;
        p.x += i;
        p.y -= 0.5;
    }
    long wa[4] = {0, 0, 0, 0};
    for (int i = 0; i < N; i++) wa[i % 4] += i;
    for (int k = 0; k < 4; k++) check("array +", arr[k], (double)wa[k]);
    for (int k = 0; k < NQ; k++) check("local section", (double)gq[k], N / NQ);
    for (int k = 0; k < 6; k++) check("offset section", (double)sec[k], k < 2 || k > 4 ? 0 : (k == 2 ? 668 : 666));
    check("udr n", (double)p.n, N);
    check("udr x", p.x, N * (N - 1) / 2);
    check("udr y", p.y, -N * 0.5);

    /* sections */
    long sa = 0;
#pragma omp parallel sections reduction(+ : sa)
    {
#pragma omp section
        sa += 1;
#pragma omp section
        sa += 20;
#pragma omp section
        sa += 300;
    }
    check("sections", (double)sa, 321);

    /* orphaned, and a copy whose address also goes to a call (kept on the
     * DSM stack) */
    long es = 0;
#pragma omp parallel
    orphan(N);
    check("orphan +", (double)os, N * (N - 1) / 2);
    check("orphan max", od, (N - 1) * 0.5);
#pragma omp parallel for reduction(+ : es)
    for (int i = 0; i < N; i++) bump(&es, i);
    check("escaping", (double)es, N * (N - 1) / 2);

    /* repeated in one region: the same copy and slot, three reduce calls */
    long rs = 0;
#pragma omp parallel
    for (int r = 0; r < 3; r++) {
#pragma omp for reduction(+ : rs)
        for (int i = 0; i < N; i++) rs += i;
    }
    check("repeated in a region", (double)rs, 3.0 * N * (N - 1) / 2);

    /* a global, repeated: the slots are reused */
    for (int r = 0; r < 3; r++) {
#pragma omp parallel for reduction(+ : gsum)
        for (int i = 0; i < N; i++) gsum += 1;
    }
    check("global x3", gsum, 3 * N);
    vla(7);
    /* nowait, last: the reference (clang-14's libomp) at 3 threads loses
     * updates in a global array's section reduction run after a nowait
     * reduction (so the section here is a local array's) */
#pragma omp parallel
    {
#pragma omp for reduction(* : ip, fp, dp) reduction(& : iand, uand) reduction(| : ior, uor) \
    reduction(^ : ixor, lxor) nowait
        for (int i = 0; i < N; i++) {
            if (i % 100 == 0) ip *= 2;
            if (i % 200 == 0) fp *= 0.5f;
            if (i % 50 == 0) dp *= 2;
            iand &= ~(1 << (i % 20));
            uand &= ~(1u << (i % 31));
            ior |= 1 << (i % 25);
            uor |= 1u << (i % 32);
            ixor ^= i;
            lxor ^= (long)i << 33;
        }
    }
    check("int *", ip, 1 << 10);
    check("float *", fp, 1.0 / 32);
    check("double *", dp, 1 << 20);
    check("int &", iand, (double)(~0 & ~((1 << 20) - 1)));
    check("unsigned &", uand, (double)(1u << 31));
    check("int |", ior, (1 << 25) - 1);
    check("unsigned |", uor, 4294967295.0);
    int  wx  = 0;
    long wlx = 0;
    for (int i = 0; i < N; i++) {
        wx ^= i;
        wlx ^= (long)i << 33;
    }
    check("int ^", ixor, wx);
    check("long ^", (double)lxor, (double)wlx);
    check("threads > 0", nthr > 0, 1);
    puts(bad ? "red_private: BAD" : "red_private: ok");
    return bad;
}
