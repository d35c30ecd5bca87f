/* task_red.c -- task reductions: taskgroup task_reduction with
 * in_reduction tasks (several operators, an array section, a
 * user-defined reduction), nested taskgroups, taskloop reduction, and
 * reduction(task, ...) on parallel and on a loop, with tasks made by
 * every thread and run wherever. */
#include <omp.h>
#include <stdio.h>

typedef struct {
    long lo, hi;
} range_t;

#pragma omp declare reduction(span : range_t : omp_out.lo = omp_in.lo < omp_out.lo ? omp_in.lo : omp_out.lo, \
                                                 omp_out.hi = omp_in.hi > omp_out.hi ? omp_in.hi : omp_out.hi) \
    initializer(omp_priv = (range_t){ 1000000, -1000000 })

int main(void)
{
    long    sum = 0, inner[4] = { 0, 0, 0, 0 }, outer = 0, tl = 0, par = 0, ws = 0;
    double  prod = 1.0;
    int     arr[4] = { 0, 0, 0, 0 }, mx = -1;
    range_t r = { 1000000, -1000000 };

#pragma omp parallel
#pragma omp single
    {
#pragma omp taskgroup task_reduction(+ : sum) task_reduction(* : prod) task_reduction(max : mx) \
    task_reduction(+ : arr[0 : 4]) task_reduction(span : r)
        {
            for (int i = 1; i <= 200; i++) {
#pragma omp task in_reduction(+ : sum) in_reduction(* : prod) in_reduction(max : mx) \
    in_reduction(+ : arr[0 : 4]) in_reduction(span : r) firstprivate(i)
                {
                    sum += i;
                    if (i <= 10)
                        prod *= i;
                    if (i * 7 % 101 > mx)
                        mx = i * 7 % 101;
                    arr[i % 4] += i;
                    if (i < r.lo)
                        r.lo = i;
                    if (i > r.hi)
                        r.hi = i;
                }
            }
        }

        /* nested: tasks of the inner group reduce into both items; they
         * work a little, so idle threads take some: such a task names the
         * copy of `outer` of the thread that ran its parent. Each inner
         * group has its own item (groups ending at once on different
         * threads would race on one original, in libomp too) */
#pragma omp taskgroup task_reduction(+ : outer)
        {
            for (int k = 0; k < 4; k++) {
#pragma omp task in_reduction(+ : outer) firstprivate(k)
                {
                    outer += 1000;
#pragma omp taskgroup task_reduction(+ : inner[k])
                    {
                        for (int j = 0; j < 25; j++) {
#pragma omp task in_reduction(+ : inner[k], outer) firstprivate(j, k)
                            {
                                volatile long w = 0;
                                for (int s = 0; s < 400000; s++)
                                    w += s;
                                inner[k] += j + (w != 79999800000L);
                                outer += 1;
                            }
                        }
                    }
                }
            }
        }

        /* taskloop reduction */
#pragma omp taskloop reduction(+ : tl) grainsize(16)
        for (int i = 0; i < 1000; i++)
            tl += i % 13;
    }

    /* reduction(task, ...) on parallel: every thread makes tasks */
#pragma omp parallel reduction(task, + : par)
    {
        for (int i = 0; i < 30; i++) {
#pragma omp task in_reduction(+ : par) firstprivate(i)
            par += i;
        }
        par += 1;   /* the implicit task's own part */
    }

    /* reduction(task, ...) on a loop */
#pragma omp parallel
    {
#pragma omp for reduction(task, + : ws)
        for (int i = 0; i < 64; i++) {
#pragma omp task in_reduction(+ : ws) firstprivate(i)
            ws += 2 * i;
        }
    }

    int nth = omp_get_max_threads();
    printf("sum %ld prod %.0f max %d arr %d %d %d %d span %ld..%ld\n", sum, prod, mx, arr[0],
           arr[1], arr[2], arr[3], r.lo, r.hi);
    printf("inner %ld %ld %ld %ld outer %ld taskloop %ld\n", inner[0], inner[1], inner[2], inner[3],
           outer, tl);
    printf("parallel %s loop %ld\n", par == nth * (435 + 1) ? "ok" : "wrong", ws);
    return 0;
}
