/* alloc_user_clause.c -- the allocate clause with an allocator made by
 * omp_init_allocator (alignment 64). clang 14 passes that allocator to
 * __kmpc_alloc cut to 32 bits and sign-extended (LLVM bug 54082, fixed in
 * clang 15): kumi widens the handle back (alloc.c); libomp, the reference,
 * takes the cut pointer and crashes, so the clause runs in the reference
 * only when its handle survives the cut (it does not on x86-64 Linux) and
 * the program prints the same either way. */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 64

int kumi_rank(void) __attribute__((weak));   /* libkumi: defined under kumi only */

int main(void)
{
    omp_alloctrait_t       tr[1] = { { omp_atk_alignment, 64 } };
    omp_allocator_handle_t al    = omp_init_allocator(omp_default_mem_space, 1, tr);
    uintptr_t              h     = (uintptr_t)al;
    int                    run   = kumi_rank != NULL || h == (uintptr_t)(intptr_t)(int32_t)h;
    int                    res[N], misaligned = 0, bad = 0;
    int                   *x;

    if (al == omp_null_allocator) {
        printf("no allocator\n");
        return 1;
    }
    for (int i = 0; i < N; i++)
        res[i] = run ? -1 : i * (i + 1) / 2;
    if (run) {
#pragma omp parallel for allocate(al : x) private(x) reduction(+ : misaligned)
        for (int i = 0; i < N; i++) {
            x = malloc((i + 1) * sizeof(int));
            misaligned += ((uintptr_t)&x % 64) != 0;   /* x itself comes from al */
            int s = 0;
            for (int j = 0; j <= i; j++) {
                x[j] = j;
                s += x[j];
            }
            res[i] = s;
            free(x);
        }
    }
    for (int i = 0; i < N; i++)
        bad += res[i] != i * (i + 1) / 2;
    omp_destroy_allocator(al);
    printf("sums %s, private copies %s\n", bad ? "wrong" : "ok", misaligned ? "misaligned" : "aligned");
    return bad != 0 || misaligned != 0;
}
