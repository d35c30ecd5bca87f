/*
 * startup.c -- the start-up of an OpenMP program on kumi (every PE, from
 * the start object's constructor, before main):
 *   1. re-execute once with personality(ADDR_NO_RANDOMIZE) when ASLR is
 *      on, so code, literals and libraries sit at the same addresses on
 *      every PE (function pointers and string literals mean the same);
 *   2. kumi_init; the runtime's symmetric area;
 *   3. the layout check: PE 0 broadcasts a few addresses, a PE that sees
 *      others stops the job with a message;
 *   4. the static area: PE 0 allocates the live copy of the moved globals
 *      in the DSM (data then bss), copies the data template, applies the
 *      fixups, zeroes bss; every PE sets the deltas;
 *   5. this PE's DSM stack; the ICVs from the environment; an exit hook
 *      that ends the whole job with the status of exit()/main's return;
 *   6. PE 0 returns (main runs); the others enter the worker loop.
 */
#define _GNU_SOURCE   /* on_exit, personality, strcasecmp */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <unistd.h>

#include "omp_int.h"

#define KUMI_OMP_REEXEC_ENV "KUMIOMP_REEXECUTED"   /* not KUMI_*: config checks those */
#define KUMI_OMP_SYM_SIZE   (2048u * 1024u)

kumi_omp_thread_t kumi_omp_th = { .nth = 1, .team_nth = 1, .nthreads_var = 1,
                                  .max_active_levels = 1, .run_sched = 2, .run_chunk = 0 };
int kumi_omp_ready;

static char  *kumi_omp_sym;        /* symmetric area                     */
static size_t kumi_omp_sym_used;
static char  *kumi_omp_stack_lo, *kumi_omp_stack_top, *kumi_omp_stack_hi;
static size_t kumi_omp_stack_size;
/* The large-object stack (objects of KUMI_OMP_BIG_MIN bytes and up: a
 * copyin's copy of a threadprivate array, a big local array other threads
 * read): a second DSM stack of the same size with 4 KiB coherence blocks,
 * allocated on first use, each object 4 KiB aligned and rounded up so two
 * never share a block. Its pushes are listed (private memory) with the
 * small stack's top at the push; kumi_omp_stack_release pops the ones
 * pushed after the mark. KUMI_OMP_STACK_BIG=0: everything on the small
 * stack (64-byte blocks) as before. */
#define KUMI_OMP_BIG_MIN   4096u
#define KUMI_OMP_BIG_BLOCK 4096u
#define KUMI_OMP_BIG_LIVE  1024
static char  *kumi_omp_big_lo, *kumi_omp_big_top, *kumi_omp_big_hi;
static int    kumi_omp_big_off = -1;   /* -1: KUMI_OMP_STACK_BIG not read yet */
static struct { char *small; char *big_top; } kumi_omp_big_live[KUMI_OMP_BIG_LIVE];
static int    kumi_omp_big_n;

void kumi_omp_worker_loop(void);   /* parallel.c */
void kumi_omp_icv_init(void);      /* parallel.c */

_Noreturn void kumi_omp_fatal(const char *call, const char *fmt, ...)
{
    char    msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "kumi[%d]: %s: %s\n", kumi_rank(), call, msg);
    fflush(stderr);
    kumi_global_exit(1);
}

void *kumi_omp_sym_alloc(size_t size)
{
    size = (size + 63u) & ~(size_t)63u;
    if (kumi_omp_sym == NULL || kumi_omp_sym_used + size > KUMI_OMP_SYM_SIZE)
        kumi_omp_fatal("kumi_omp_startup", "runtime symmetric area exhausted (%zu bytes)",
                       (size_t)KUMI_OMP_SYM_SIZE);
    void *p = kumi_omp_sym + kumi_omp_sym_used;
    kumi_omp_sym_used += size;
    return p;
}

/* ---------------------------------------------------------- ASLR off */
static void kumi_omp_no_aslr(char **argv)
{
    int   cur = personality(0xffffffff);
    FILE *f;
    int   rand = 2;

    if (getenv(KUMI_OMP_REEXEC_ENV) != NULL) {
        unsetenv(KUMI_OMP_REEXEC_ENV);   /* the program's own children start afresh */
        return;
    }
    if (cur == -1 || (cur & ADDR_NO_RANDOMIZE))
        return;
    f = fopen("/proc/sys/kernel/randomize_va_space", "r");
    if (f != NULL) {
        if (fscanf(f, "%d", &rand) != 1)
            rand = 2;
        fclose(f);
    }
    if (rand == 0)
        return;
    if (personality((unsigned long)cur | ADDR_NO_RANDOMIZE) == -1)
        return;   /* not allowed here: the layout check decides */
    setenv(KUMI_OMP_REEXEC_ENV, "1", 1);
    execv("/proc/self/exe", argv);
    /* exec failed: go on with this layout (checked below) */
    unsetenv(KUMI_OMP_REEXEC_ENV);
    personality((unsigned long)cur);
}

/* ------------------------------------------------------ layout check */
struct kumi_omp_layout {
    uint64_t main_addr, libc_addr, lib_addr, data_lo, bss_lo, fix_lo;
    uint64_t data_size, bss_size, fix_count;
    uint64_t live_base;   /* PE 0's live static area (0: none) */
    uint64_t live_bss;
};

static int kumi_omp_layout_differs(const struct kumi_omp_layout *a, const struct kumi_omp_layout *b,
                                   const char **what)
{
    *what = a->main_addr != b->main_addr   ? "main"
            : a->libc_addr != b->libc_addr ? "libc (printf)"
            : a->lib_addr != b->lib_addr   ? "libkumi-omp"
            : a->data_lo != b->data_lo || a->data_size != b->data_size ? "section kumi_omp_data"
            : a->bss_lo != b->bss_lo || a->bss_size != b->bss_size     ? "section kumi_omp_bss"
            : a->fix_lo != b->fix_lo || a->fix_count != b->fix_count   ? "section kumi_omp_fixups"
                                                                       : NULL;
    return *what != NULL;
}

/* ------------------------------------------------------ static area */
static int kumi_omp_in(uintptr_t v, uintptr_t lo, uintptr_t size)
{
    return v - lo < size;
}

#define KUMI_OMP_COPY_CHUNK (64u * 1024u)

/* The template is one section holding many globals: under AddressSanitizer
 * the gaps between them are redzones, so it is read byte by byte here,
 * uninstrumented (the bytes are only copied). */
__attribute__((no_sanitize("address"))) static void kumi_omp_copy_template(char *dst,
                                                                          const char *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = ((const volatile char *)src)[i];
}

/* A word of the fixups section or of a template (the same: sections
 * of many objects, redzones between them under AddressSanitizer). */
__attribute__((no_sanitize("address"))) static uintptr_t kumi_omp_read_word(const void *p)
{
    return *(const volatile uintptr_t *)p;
}

static void kumi_omp_static_area(const struct kumi_omp_start_info *info,
                                 struct kumi_omp_layout            *lay)
{
    uintptr_t dlo = (uintptr_t)info->data_lo, blo = (uintptr_t)info->bss_lo;
    uintptr_t dsz = info->data_lo ? (uintptr_t)(info->data_hi - info->data_lo) : 0;
    uintptr_t bsz = info->bss_lo ? (uintptr_t)(info->bss_hi - info->bss_lo) : 0;
    /* each part keeps its template's offset within the page, so every
     * alignment up to 4 KiB holds in the live copy */
    size_t dpart = dsz ? ((dlo & 4095u) + dsz + 4095u) & ~(size_t)4095u : 0;
    size_t bpart = bsz ? ((blo & 4095u) + bsz + 4095u) & ~(size_t)4095u : 0;
    char  *raw, *live;

    if (dpart + bpart == 0)
        return;
    raw = kumi_dsm_calloc(1, dpart + bpart + 4096u);
    if (raw == NULL)
        kumi_omp_fatal("kumi_omp_startup",
                       "no DSM memory for the static area (%zu bytes of globals; KUMI_DSM_SIZE)",
                       dpart + bpart);
    live = (char *)(((uintptr_t)raw + 4095u) & ~(uintptr_t)4095u);
    intptr_t ddelta = dsz ? (intptr_t)((uintptr_t)live + (dlo & 4095u) - dlo) : 0;
    intptr_t bdelta = bsz ? (intptr_t)((uintptr_t)live + dpart + (blo & 4095u) - blo) : 0;
    lay->live_base  = dsz ? (uint64_t)(uintptr_t)live : 0;
    lay->live_bss   = bsz ? (uint64_t)(uintptr_t)(live + dpart) : 0;
    for (size_t off = 0; off < dsz; off += KUMI_OMP_COPY_CHUNK) {
        static char buf[KUMI_OMP_COPY_CHUNK];
        size_t      n = dsz - off < KUMI_OMP_COPY_CHUNK ? dsz - off : KUMI_OMP_COPY_CHUNK;

        kumi_omp_copy_template(buf, info->data_lo + off, n);
        if (kumi_dsm_write((void *)(dlo + off + (uintptr_t)ddelta), buf, n) != KUMI_OK)
            kumi_omp_fatal("kumi_omp_startup", "copying the data template failed");
    }
    for (void ***s = info->fix_lo; s != NULL && s < info->fix_hi; s++) {
        uintptr_t slot = kumi_omp_read_word(s), v;
        intptr_t  sd;

        if (slot == 0)
            continue;   /* padding between the modules' fixup arrays */
        v = kumi_omp_read_word((const void *)slot);

        if (kumi_omp_in(v, dlo, dsz))
            v += (uintptr_t)ddelta;
        else if (kumi_omp_in(v, blo, bsz))
            v += (uintptr_t)bdelta;
        else
            continue;
        if (kumi_omp_in(slot, dlo, dsz))
            sd = ddelta;
        else if (kumi_omp_in(slot, blo, bsz))
            sd = bdelta;
        else
            continue;   /* a slot outside the templates is not live data */
        if (kumi_dsm_write((void *)(slot + (uintptr_t)sd), &v, sizeof(v)) != KUMI_OK)
            kumi_omp_fatal("kumi_omp_startup", "applying a fixup failed");
    }
}

/* ----------------------------------------------------------- DSM stack */
static size_t kumi_omp_parse_size(const char *s, size_t dflt)
{
    char              *end;
    unsigned long long v;

    if (s == NULL || *s == '\0')
        return dflt;
    errno = 0;
    v     = strtoull(s, &end, 10);
    if (errno != 0 || end == s)
        return 0;
    switch (*end) {   /* OMP_STACKSIZE: B, K (default), M, G */
    case 'b': case 'B': end++; break;
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    case '\0': v <<= 10; break;
    default: return 0;
    }
    return *end == '\0' ? (size_t)v : 0;
}

static void *kumi_omp_small_push(size_t size, size_t align)
{
    uintptr_t p;

    if (align < 16)
        align = 16;
    if (align & (align - 1))
        kumi_omp_fatal("kumi_omp_stack_push", "alignment %zu is not a power of two", align);
    p = ((uintptr_t)kumi_omp_stack_top + align - 1) & ~(uintptr_t)(align - 1);
    if (size > (uintptr_t)kumi_omp_stack_hi - p)
        kumi_omp_fatal("kumi_omp_stack_push",
                       "DSM stack exhausted (%zu bytes asked, %zu of %zu in use; "
                       "set OMP_STACKSIZE larger)",
                       size, (size_t)(kumi_omp_stack_top - kumi_omp_stack_lo), kumi_omp_stack_size);
    kumi_omp_stack_top = (char *)(p + size);
    return (void *)p;
}

/* NULL: the object goes on the small stack (switched off, or the large
 * stack's list is full) */
static void *kumi_omp_big_push(size_t size, size_t align)
{
    uintptr_t p;
    size_t    len;

    if (kumi_omp_big_off < 0) {
        const char *e = getenv("KUMI_OMP_STACK_BIG");
        kumi_omp_big_off = e != NULL && strcmp(e, "0") == 0;
    }
    if (kumi_omp_big_off || kumi_omp_big_n == KUMI_OMP_BIG_LIVE || align > KUMI_OMP_BIG_BLOCK)
        return NULL;
    if (kumi_omp_big_lo == NULL) {
        kumi_omp_big_lo = kumi_dsm_malloc_block(kumi_omp_stack_size, KUMI_OMP_BIG_BLOCK);
        if (kumi_omp_big_lo == NULL)
            kumi_omp_fatal("kumi_omp_stack_push",
                           "no DSM memory for the large-object stack (OMP_STACKSIZE=%zu)",
                           kumi_omp_stack_size);
        kumi_omp_big_top = kumi_omp_big_lo;
        kumi_omp_big_hi  = kumi_omp_big_lo + kumi_omp_stack_size;
    }
    len = (size + KUMI_OMP_BIG_BLOCK - 1) & ~(size_t)(KUMI_OMP_BIG_BLOCK - 1);
    p   = ((uintptr_t)kumi_omp_big_top + KUMI_OMP_BIG_BLOCK - 1) & ~(uintptr_t)(KUMI_OMP_BIG_BLOCK - 1);
    if (len < size || len > (uintptr_t)kumi_omp_big_hi - p)
        kumi_omp_fatal("kumi_omp_stack_push",
                       "DSM stack exhausted (%zu bytes asked for a large object, %zu of %zu in "
                       "use; set OMP_STACKSIZE larger)",
                       size, (size_t)(kumi_omp_big_top - kumi_omp_big_lo), kumi_omp_stack_size);
    /* a mark taken after this push must lie above the small top noted
     * here: a 16-byte step of the small stack */
    kumi_omp_big_live[kumi_omp_big_n].small   = kumi_omp_small_push(16, 16);
    kumi_omp_big_live[kumi_omp_big_n].big_top = kumi_omp_big_top;
    kumi_omp_big_n++;
    kumi_omp_big_top = (char *)(p + len);
    return (void *)p;
}

void *kumi_omp_stack_push(size_t size, size_t align)
{
    void *p;

    if (kumi_omp_stack_lo == NULL)
        kumi_omp_ensure_init();
    if (size >= KUMI_OMP_BIG_MIN && (p = kumi_omp_big_push(size, align)) != NULL)
        return p;
    return kumi_omp_small_push(size, align);
}

void *kumi_omp_stack_mark(void)
{
    return kumi_omp_stack_top;
}

void kumi_omp_stack_release(void *mark)
{
    char *m = mark;

    if (m == NULL)
        return;   /* marked before the stack existed */
    if (m < kumi_omp_stack_lo || m > kumi_omp_stack_hi)
        kumi_omp_fatal("kumi_omp_stack_release", "mark %p is not in this PE's DSM stack", mark);
    /* large objects pushed after the mark: their step of the small stack
     * is at or above it */
    while (kumi_omp_big_n > 0 && kumi_omp_big_live[kumi_omp_big_n - 1].small >= m) {
        kumi_omp_big_n--;
        kumi_omp_big_top = kumi_omp_big_live[kumi_omp_big_n].big_top;
    }
    kumi_omp_stack_top = m;
}

static void kumi_omp_stack_init(void)
{
    size_t dflt = 16u << 20, sz;
    int    n = kumi_size();

    /* a PE's slice is KUMI_DSM_SIZE / P: leave most of it to the heap */
    if (n > 8)
        dflt = 4u << 20;
    sz = kumi_omp_parse_size(getenv("OMP_STACKSIZE"), dflt);
    if (sz == 0)
        kumi_omp_fatal("kumi_omp_startup", "OMP_STACKSIZE=%s is not a size (e.g. 16M)",
                       getenv("OMP_STACKSIZE"));
    sz                  = (sz + 4095u) & ~(size_t)4095u;
    kumi_omp_stack_lo   = kumi_dsm_malloc_block(sz, 64);
    if (kumi_omp_stack_lo == NULL)
        kumi_omp_fatal("kumi_omp_startup", "no DSM memory for the DSM stack (OMP_STACKSIZE=%zu)",
                       sz);
    kumi_omp_stack_top  = kumi_omp_stack_lo;
    kumi_omp_stack_hi   = kumi_omp_stack_lo + sz;
    kumi_omp_stack_size = sz;
}

/* ---------------------------------------------------------------- exit */
static void kumi_omp_at_exit(int status, void *arg)
{
    (void)arg;
    if (kumi_size() > 0) {   /* under kumirun even for one PE: the job's status, quietly */
        fflush(NULL);
        kumi_global_exit(status);   /* ends the workers too, with this status */
    }
}

/* ------------------------------------------------------------ start-up */
static int kumi_omp_init_core(void)
{
    int rc = kumi_init();

    if (rc != KUMI_OK) {
        fprintf(stderr, "kumi[%d]: kumi_omp_startup: kumi_init failed: %s\n", kumi_rank(),
                kumi_strerror(rc));
        return rc;
    }
    kumi_omp_th.pe   = kumi_rank();
    kumi_omp_th.npes = kumi_size();
    kumi_omp_sym     = kumi_malloc(KUMI_OMP_SYM_SIZE);
    if (kumi_omp_sym == NULL) {
        fprintf(stderr, "kumi[%d]: kumi_omp_startup: no symmetric heap for the runtime\n",
                kumi_rank());
        return KUMI_ERR_NOMEM;
    }
    memset(kumi_omp_sym, 0, KUMI_OMP_SYM_SIZE);
    return KUMI_OK;
}

/* omp-libc+tasks' parts (weak: the library builds without them) */
__attribute__((weak)) void kumi_omp_libc_init(void);
__attribute__((weak)) void kumi_omp_task_init(void);
void kumi_omp_sync_init(void);   /* sync.c */
void kumi_omp_loop_init(void);   /* loop.c */
void kumi_omp_fork_init(void);   /* parallel.c */

static void kumi_omp_parts_init(void)
{
    kumi_omp_fork_init();
    kumi_omp_loop_init();
    kumi_omp_sync_init();
    kumi_omp_icv_init();
    kumi_omp_cancel_init();
    kumi_omp_alloc_init();
    kumi_omp_teams_init();
    /* in the same order on every PE: they take symmetric memory too */
    if (kumi_omp_libc_init != NULL)
        kumi_omp_libc_init();   /* stdio forwarding handler (before any request) */
    if (kumi_omp_task_init != NULL)
        kumi_omp_task_init();   /* task queues in the symmetric area */
}

void kumi_omp_startup(const struct kumi_omp_start_info *info)
{
    struct kumi_omp_layout me, root;
    const char            *what;
    int                    bad, anybad = 0;

    kumi_omp_no_aslr(info->argv);
    if (kumi_omp_sym == NULL) {   /* else an earlier constructor called omp_* already */
        if (kumi_omp_init_core() != KUMI_OK)
            exit(1);
        kumi_omp_parts_init();
    }

    memset(&me, 0, sizeof(me));
    me.main_addr = (uint64_t)(uintptr_t)info->main_addr;
    me.libc_addr = (uint64_t)(uintptr_t)printf;
    me.lib_addr  = (uint64_t)(uintptr_t)kumi_omp_startup;
    me.data_lo   = (uint64_t)(uintptr_t)info->data_lo;
    me.bss_lo    = (uint64_t)(uintptr_t)info->bss_lo;
    me.fix_lo    = (uint64_t)(uintptr_t)info->fix_lo;
    me.data_size = info->data_lo ? (uint64_t)(info->data_hi - info->data_lo) : 0;
    me.bss_size  = info->bss_lo ? (uint64_t)(info->bss_hi - info->bss_lo) : 0;
    me.fix_count = info->fix_lo ? (uint64_t)(info->fix_hi - info->fix_lo) : 0;
    if (kumi_rank() == 0)
        kumi_omp_static_area(info, &me);
    root = me;
    if (kumi_broadcast(kumi_team_world(), &root, sizeof(root), 0) != KUMI_OK)
        exit(1);
    bad = kumi_omp_layout_differs(&me, &root, &what);
    if (bad)
        fprintf(stderr,
                "kumi[%d]: kumi_omp_startup: %s is not where PE 0 has it: the PEs' address "
                "layouts differ (ASLR could not be turned off: personality(ADDR_NO_RANDOMIZE) "
                "refused, or the PEs run different executables)\n",
                kumi_rank(), what);
    if (kumi_allreduce(kumi_team_world(), &anybad, &bad, 1, KUMI_INT32, KUMI_MAX) != KUMI_OK)
        exit(1);
    if (anybad)
        kumi_global_exit(1);

    if (root.data_size > 0) {
        *info->data_delta    = (intptr_t)(root.live_base + (root.data_lo & 4095u) - root.data_lo);
        *info->data_lo_out   = (uintptr_t)root.data_lo;
        *info->data_size_out = (uintptr_t)root.data_size;
    }
    if (root.bss_size > 0) {
        *info->bss_delta    = (intptr_t)(root.live_bss + (root.bss_lo & 4095u) - root.bss_lo);
        *info->bss_lo_out   = (uintptr_t)root.bss_lo;
        *info->bss_size_out = (uintptr_t)root.bss_size;
    }
    if (kumi_omp_stack_lo == NULL)
        kumi_omp_stack_init();
    on_exit(kumi_omp_at_exit, NULL);
    kumi_omp_ready = 1;
    /* every PE is ready before the master's first fork reaches it */
    if (kumi_barrier(kumi_team_world()) != KUMI_OK)
        exit(1);
    if (kumi_rank() != 0)
        kumi_omp_worker_loop();   /* never returns */
}

/* A program linked without the start object (a library calling omp_*):
 * a job of its own on each PE, no static area, no workers. */
int kumi_omp_ensure_init(void)
{
    if (kumi_omp_ready)
        return KUMI_OK;
    if (kumi_omp_sym == NULL) {
        int rc = kumi_omp_init_core();
        if (rc != KUMI_OK)
            return rc;
        kumi_omp_parts_init();
    }
    kumi_omp_stack_init();
    kumi_omp_ready = 1;
    return KUMI_OK;
}
