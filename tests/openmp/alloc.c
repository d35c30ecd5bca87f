/* alloc.c -- OpenMP 5.0 memory management: omp_alloc/aligned_alloc/
 * calloc/realloc/free with the predefined allocators, allocators with
 * traits (alignment, pool_size with each fallback), the default
 * allocator, the allocate clause, memory one thread allocates used and
 * freed by another, omp_pause_resource, and libomp's kmp_aligned_malloc. */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>

int main(void)
{
    int ok_basic = 1, ok_align = 1, ok_calloc = 1, ok_realloc = 1, ok_pool = 1, ok_fb = 1;
    int ok_default = 1, ok_share = 1, ok_clause = 1, ok_pause = 1, ok_kmp = 1;

    /* predefined allocators (libomp without memkind gives nothing from
     * omp_large_cap_mem_alloc and omp_high_bw_mem_alloc: not compared) */
    {
        omp_allocator_handle_t pre[] = { omp_default_mem_alloc, omp_const_mem_alloc,
                                         omp_low_lat_mem_alloc, omp_cgroup_mem_alloc,
                                         omp_pteam_mem_alloc,   omp_thread_mem_alloc };
        for (int i = 0; i < 6; i++) {
            int *p = omp_alloc(100 * sizeof(int), pre[i]);
            if (p == NULL) {
                ok_basic = 0;
                continue;
            }
            for (int k = 0; k < 100; k++)
                p[k] = k * i;
            long s = 0;
            for (int k = 0; k < 100; k++)
                s += p[k];
            ok_basic &= s == 4950L * i;
            omp_free(p, pre[i]);
        }
        ok_basic &= omp_alloc(0, omp_default_mem_alloc) == NULL;
    }

    /* alignment: argument and trait */
    {
        omp_alloctrait_t       at[1] = { { omp_atk_alignment, 256 } };
        omp_allocator_handle_t a     = omp_init_allocator(omp_default_mem_space, 1, at);
        for (int i = 0; i < 10; i++) {
            void *p = omp_alloc(24 + i, a), *q = omp_aligned_alloc(1024, 40, omp_default_mem_alloc);
            ok_align &= p != NULL && ((uintptr_t)p & 255) == 0;
            ok_align &= q != NULL && ((uintptr_t)q & 1023) == 0;
            omp_free(p, a);
            omp_free(q, omp_default_mem_alloc);
        }
        double *d = omp_aligned_calloc(64, 10, sizeof(double), a);
        ok_align &= d != NULL && ((uintptr_t)d & 255) == 0 && d[9] == 0.0;
        omp_free(d, omp_null_allocator);   /* the block knows its allocator */
        omp_destroy_allocator(a);
    }

    /* calloc zeroes; size 0 gives NULL */
    {
        long *p = omp_calloc(5000, sizeof(long), omp_default_mem_alloc);
        for (int k = 0; k < 5000 && p; k++)
            ok_calloc &= p[k] == 0;
        ok_calloc &= p != NULL && omp_calloc(100, 0, omp_default_mem_alloc) == NULL;
        omp_free(p, omp_default_mem_alloc);
    }

    /* realloc keeps the contents; NULL and 0 act as alloc and free */
    {
        int *p = omp_realloc(NULL, 10 * sizeof(int), omp_default_mem_alloc, omp_null_allocator);
        for (int k = 0; k < 10; k++)
            p[k] = k + 1;
        p = omp_realloc(p, 100000 * sizeof(int), omp_low_lat_mem_alloc, omp_default_mem_alloc);
        for (int k = 0; k < 10; k++)
            ok_realloc &= p[k] == k + 1;
        p[99999] = 7;
        p = omp_realloc(p, 5 * sizeof(int), omp_null_allocator, omp_null_allocator);
        for (int k = 0; k < 5; k++)
            ok_realloc &= p[k] == k + 1;
        ok_realloc &= omp_realloc(p, 0, omp_default_mem_alloc, omp_default_mem_alloc) == NULL;
    }

    /* pool_size: what does not fit falls back */
    {
        omp_alloctrait_t       nul[2] = { { omp_atk_pool_size, 1 << 20 },
                                          { omp_atk_fallback, omp_atv_null_fb } };
        omp_allocator_handle_t an     = omp_init_allocator(omp_large_cap_mem_space, 2, nul);
        void *p1 = omp_alloc(600000, an), *p2 = omp_alloc(600000, an);
        ok_pool = p1 != NULL && p2 == NULL;
        omp_free(p1, an);
        p2 = omp_alloc(600000, an);   /* room again */
        ok_pool &= p2 != NULL;
        omp_free(p2, an);

        omp_alloctrait_t       def[2] = { { omp_atk_pool_size, 1 << 20 },
                                          { omp_atk_fallback, omp_atv_default_mem_fb } };
        omp_allocator_handle_t ad     = omp_init_allocator(omp_default_mem_space, 2, def);
        omp_alloctrait_t       fbt[3] = { { omp_atk_pool_size, 1 << 20 },
                                          { omp_atk_fallback, omp_atv_allocator_fb },
                                          { omp_atk_fb_data, (omp_uintptr_t)an } };
        omp_allocator_handle_t af     = omp_init_allocator(omp_default_mem_space, 3, fbt);
        void *d1 = omp_alloc(900000, ad), *d2 = omp_alloc(900000, ad);
        void *f1 = omp_alloc(900000, af), *f2 = omp_alloc(900000, af), *f3 = omp_alloc(900000, af);
        ok_fb = d1 && d2 && f1 && f2 && !f3;   /* f2 from an's pool, f3: an falls back to NULL */
        omp_free(d1, ad);
        omp_free(d2, ad);
        omp_free(f1, af);
        omp_free(f2, af);
        omp_destroy_allocator(ad);
        omp_destroy_allocator(af);
        omp_destroy_allocator(an);
    }

    /* the default allocator: omp_null_allocator means it; inherited */
    {
        omp_alloctrait_t       at[1] = { { omp_atk_alignment, 128 } };
        omp_allocator_handle_t a     = omp_init_allocator(omp_default_mem_space, 1, at);
        ok_default = omp_get_default_allocator() == omp_default_mem_alloc;
        omp_set_default_allocator(a);
        ok_default &= omp_get_default_allocator() == a;
        int bad = 0;
#pragma omp parallel reduction(+ : bad)
        {
            void *p = omp_alloc(8, omp_null_allocator);
            bad += omp_get_default_allocator() != a || ((uintptr_t)p & 127) != 0;
            omp_free(p, omp_null_allocator);
        }
        ok_default &= bad == 0;
        omp_set_default_allocator(omp_default_mem_alloc);
        omp_destroy_allocator(a);
    }

    /* one thread allocates, every thread writes, another frees */
    {
        int *blocks[64] = { 0 };
        int  nth        = 1, sum = 0;
#pragma omp parallel shared(blocks, nth) reduction(+ : sum)
        {
            int me = omp_get_thread_num();
#pragma omp single
            {
                nth = omp_get_num_threads();
                for (int b = 0; b < 64; b++)
                    blocks[b] = omp_alloc(64 * sizeof(int), omp_default_mem_alloc);
            }
#pragma omp for
            for (int b = 0; b < 64; b++)
                for (int k = 0; k < 64; k++)
                    blocks[b][k] = b + k;
#pragma omp for
            for (int b = 0; b < 64; b++) {
                for (int k = 0; k < 64; k++)
                    sum += blocks[b][k];
            }
#pragma omp barrier
            if (me == nth - 1)
                for (int b = 0; b < 64; b++)
                    omp_free(blocks[b], omp_default_mem_alloc);
        }
        ok_share = sum == 64 * 64 * 63;
    }

    /* the allocate clause on private and firstprivate copies */
    {
        int x = 5, bad = 0;
#pragma omp parallel firstprivate(x) allocate(omp_low_lat_mem_alloc : x) reduction(+ : bad)
        {
            bad += x != 5;
            x += omp_get_thread_num();
            bad += x != 5 + omp_get_thread_num();
        }
        ok_clause = bad == 0;
    }

    /* libomp's kmp_aligned_malloc/kmp_free: aligned, shared (each thread
     * checks and frees its neighbour's block), NULL for a bad alignment */
    {
        int *blk[64] = { 0 }, bad = 0;
#pragma omp parallel shared(blk) reduction(+ : bad)
        {
            int me = omp_get_thread_num(), nth = omp_get_num_threads();
            int *p = kmp_aligned_malloc(64 * sizeof(int), 256);
            bad += p == NULL || (uintptr_t)p % 256 != 0;
            if (p != NULL)
                for (int k = 0; k < 64; k++)
                    p[k] = me * 1000 + k;
            blk[me] = p;
            bad += kmp_aligned_malloc(128, 127) != NULL;
#pragma omp barrier
            int  nb = (me + 1) % nth;
            int *q  = blk[nb];
            if (q != NULL) {
                for (int k = 0; k < 64; k++)
                    bad += q[k] != nb * 1000 + k;
                kmp_free(q);
            }
        }
        ok_kmp = bad == 0;
    }

    /* (libomp fails a pause before its first region: after one here) */
    ok_pause = omp_pause_resource(omp_pause_soft, omp_get_initial_device()) == 0;
    {
        int n = 0;
#pragma omp parallel reduction(+ : n)
        n++;
        ok_pause &= n == omp_get_max_threads();
    }
    ok_pause &= omp_pause_resource_all(omp_pause_hard) == 0;
    {
        int n = 0;
#pragma omp parallel reduction(+ : n)
        n++;
        ok_pause &= n == omp_get_max_threads();
    }

    printf("basic %d align %d calloc %d realloc %d pool %d fallback %d\n", ok_basic, ok_align,
           ok_calloc, ok_realloc, ok_pool, ok_fb);
    printf("default %d shared %d clause %d pause %d kmp %d\n", ok_default, ok_share, ok_clause,
           ok_pause, ok_kmp);
    return 0;
}
