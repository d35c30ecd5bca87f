/*
 * start.c -- kumi-omp-start.o, the start object kumicc -fopenmp links into
 * every OpenMP program (never into a library).
 *
 * It holds what must be in the executable itself: the bounds of the
 * sections the translator fills (kumi_omp_data, kumi_omp_bss,
 * kumi_omp_fixups; weak, NULL when the program has none), the address of
 * main (layout check), and the deltas translated code adds to the
 * address of a moved global (defined here so that code reaches them
 * PC-relative, not through the GOT). Its constructor runs first (priority
 * 101) and hands everything to kumi_omp_startup: on PE 0 it returns and
 * main runs; the other PEs never return from it (they are the workers).
 */
#include <stdint.h>

#include "omp_int.h"

extern char __start_kumi_omp_data[] __attribute__((weak));
extern char __stop_kumi_omp_data[] __attribute__((weak));
extern char __start_kumi_omp_bss[] __attribute__((weak));
extern char __stop_kumi_omp_bss[] __attribute__((weak));
extern void **__start_kumi_omp_fixups[] __attribute__((weak));
extern void **__stop_kumi_omp_fixups[] __attribute__((weak));

int main();   /* the program's: only its address is taken */

intptr_t  kumi_omp_data_delta, kumi_omp_bss_delta;
uintptr_t kumi_omp_data_lo, kumi_omp_data_size;
uintptr_t kumi_omp_bss_lo, kumi_omp_bss_size;

__attribute__((constructor(101))) static void kumi_omp_start(int argc, char **argv, char **envp)
{
    struct kumi_omp_start_info info = {
        .argc          = argc,
        .argv          = argv,
        .envp          = envp,
        .data_lo       = __start_kumi_omp_data,
        .data_hi       = __stop_kumi_omp_data,
        .bss_lo        = __start_kumi_omp_bss,
        .bss_hi        = __stop_kumi_omp_bss,
        .fix_lo        = __start_kumi_omp_fixups,
        .fix_hi        = __stop_kumi_omp_fixups,
        .main_addr     = (const void *)(uintptr_t)main,
        .data_delta    = &kumi_omp_data_delta,
        .bss_delta     = &kumi_omp_bss_delta,
        .data_lo_out   = &kumi_omp_data_lo,
        .data_size_out = &kumi_omp_data_size,
        .bss_lo_out    = &kumi_omp_bss_lo,
        .bss_size_out  = &kumi_omp_bss_size,
    };
    kumi_omp_startup(&info);
}
