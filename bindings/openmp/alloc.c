/*
 * alloc.c -- OpenMP 5.0 memory management: omp_alloc and its family,
 * allocators with traits (omp_init_allocator), the default allocator
 * (omp_set/get_default_allocator, OMP_ALLOCATOR), and the __kmpc_alloc
 * family clang emits (allocate directive and clause, depobj).
 *
 * Every memory space is the DSM heap (memory.c): what one thread allocates
 * another may use, as on a shared-memory machine. An allocator with traits
 * is a DSM record (any thread may use the handle): alignment, pool_size
 * (the bytes its blocks may hold at once, counted under a kumi mutex in
 * the record, headers included) and fallback; sync_hint, access, pinned
 * and partition are accepted and change nothing. Each block has a header
 * in front of it (the raw allocation, its size, its allocator) so omp_free
 * and omp_realloc find them whatever allocator argument they get.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "omp.h"
#include "omp_int.h"
#include "omp_libc.h"

#define ALLOC_MAGIC     0x6b756d69616c6c63ull   /* "kumiallc" */
#define BLOCK_MAGIC     0x6b756d69626c6b21ull
#define PREDEFINED_LAST 8                         /* omp_thread_mem_alloc */

struct allocator {            /* DSM; the handle is its address */
    kumi_mutex_t lock;        /* guards used */
    uint64_t     magic;
    uint64_t     memspace, alignment, pool_size, used, fallback, fb_data;
};

struct block_hdr {            /* just before what omp_alloc returns (DSM) */
    uint64_t raw;             /* what memory.c gave                      */
    uint64_t bytes;           /* raw's size (counted in the pool)        */
    uint64_t size;            /* what was asked for                      */
    uint64_t allocator;
    uint64_t magic;
    uint64_t pad_;
};

static void dsm_get(void *dst, const void *src, size_t n)
{
    if (kumi_dsm_is_shared(src)) {
        if (kumi_dsm_read(dst, src, n) != KUMI_OK)
            kumi_global_exit(1);   /* the job is ending (reported by kumi) */
    } else {
        memcpy(dst, src, n);
    }
}

static void dsm_put(void *dst, const void *src, size_t n)
{
    if (kumi_dsm_write(dst, src, n) != KUMI_OK)
        kumi_global_exit(1);
}

static int is_predefined(uint64_t a)
{
    return a >= 1 && a <= PREDEFINED_LAST;
}

/* the traits of a (a user allocator's record, checked) */
static struct allocator traits_of(const char *call, uint64_t a)
{
    struct allocator r;
    memset(&r, 0, sizeof r);
    if (is_predefined(a)) {
        r.fallback = omp_atv_default_mem_fb;
        return r;
    }
    if (a < 4096 || !kumi_dsm_is_shared((void *)(uintptr_t)a))
        kumi_omp_fatal(call, "%#llx is not an allocator", (unsigned long long)a);
    dsm_get(&r, (void *)(uintptr_t)a, sizeof r);
    if (r.magic != ALLOC_MAGIC)
        kumi_omp_fatal(call, "%#llx is not an allocator (destroyed?)", (unsigned long long)a);
    return r;
}

/* pool accounting: 1 if bytes fit (and are now counted) */
static int pool_take(uint64_t a, const struct allocator *t, int64_t bytes)
{
    struct allocator *rec = (struct allocator *)(uintptr_t)a;
    uint64_t          used;
    int               ok;
    if (is_predefined(a) || t->pool_size == 0)
        return 1;
    if (kumi_mutex_lock(&rec->lock) != KUMI_OK)
        kumi_global_exit(1);
    dsm_get(&used, &rec->used, sizeof used);
    ok = bytes < 0 || used + (uint64_t)bytes <= t->pool_size;
    if (ok) {
        used += (uint64_t)bytes;
        dsm_put(&rec->used, &used, sizeof used);
    }
    if (kumi_mutex_unlock(&rec->lock) != KUMI_OK)
        kumi_global_exit(1);
    return ok;
}

/* OMP_ALLOCATOR naming a memory space with traits: the allocator is made
 * at its first use (each PE makes its own, with the same traits) */
static struct {
    int              pending;
    uint64_t         memspace;
    int              ntraits;
    omp_alloctrait_t traits[16];
} env_alloc;

static omp_allocator_handle_t allocator_new(const char *call, uint64_t ms, int n,
                                            const omp_alloctrait_t *traits, int traits_shared);

static uint64_t default_allocator(void)
{
    if (env_alloc.pending) {
        env_alloc.pending = 0;
        omp_allocator_handle_t a = allocator_new("OMP_ALLOCATOR", env_alloc.memspace,
                                                 env_alloc.ntraits, env_alloc.traits, 0);
        if (a != omp_null_allocator && kumi_omp_th.def_allocator == omp_default_mem_alloc)
            kumi_omp_th.def_allocator = a;
    }
    return kumi_omp_th.def_allocator;
}

static uint64_t resolve(uint64_t a)
{
    return a == 0 ? default_allocator() : a;
}

/* The handle the compiler passes to __kmpc_alloc and its family. clang 14
 * emits the allocator of an `allocate` clause or directive as a 32-bit
 * value, sign-extended (LLVM bug 54082, fixed in clang 15), so a user
 * allocator's handle (the address of its DSM record) arrives with its high
 * 32 bits lost. Every record lies in the DSM region, which is the same on
 * every PE and a few GiB at most: the high bits are those of a DSM address
 * (or of the 4 GiB below or above it, for a region across a 4 GiB line);
 * traits_of then checks the record's magic as for any handle. */
static uint64_t widen(uint64_t a)
{
    static uint64_t hi = 0;   /* high 32 bits of a DSM address (this PE) */
    if (a == 0 || is_predefined(a) || (uint64_t)(int64_t)(int32_t)(uint32_t)a != a ||
        kumi_dsm_is_shared((void *)(uintptr_t)a))
        return a;
    if (hi == 0) {
        void *p = kumi_omp_malloc(1);
        if (p == NULL)
            return a;
        hi = (uint64_t)(uintptr_t)p & ~(uint64_t)0xffffffffu;
        kumi_omp_free(p);
    }
    uint64_t lo = (uint32_t)a;
    for (int64_t d = 0; d >= -1; d = d == 0 ? 1 : d - 2) {   /* 0, +1, -1 */
        uint64_t w = (hi + ((uint64_t)d << 32)) | lo;
        if (kumi_dsm_is_shared((void *)(uintptr_t)w))
            return w;
    }
    return a;
}

static void *block_alloc(const char *call, size_t align, size_t size, uint64_t a, int zero)
{
    a = resolve(a);
    if (size == 0)
        return NULL;
    struct allocator t = traits_of(call, a);
    if (align == 0 || (align & (align - 1)) != 0) {
        if (align != 0)
            kumi_omp_fatal(call, "alignment %zu is not a power of two", align);
    }
    size_t al = align > t.alignment ? align : (size_t)t.alignment;
    if (al < 16)
        al = 16;
    size_t bytes = size + sizeof(struct block_hdr) + al;
    if (bytes < size) {
        errno = ENOMEM;
        return NULL;
    }
    char *raw = NULL;
    if (pool_take(a, &t, (int64_t)bytes)) {
        raw = zero ? kumi_omp_calloc(1, bytes) : kumi_omp_malloc(bytes);
        if (raw == NULL)
            pool_take(a, &t, -(int64_t)bytes);
    }
    if (raw == NULL) {
        switch (t.fallback) {
        case omp_atv_null_fb: return NULL;
        case omp_atv_abort_fb:
            kumi_omp_fatal(call, "allocator %#llx cannot give %zu bytes (fallback abort_fb)",
                           (unsigned long long)a, size);
        case omp_atv_allocator_fb:
            return block_alloc(call, align, size, t.fb_data ? t.fb_data : omp_default_mem_alloc,
                               zero);
        default:
            if (a == omp_default_mem_alloc)
                return NULL;   /* the heap itself is full */
            return block_alloc(call, align, size, omp_default_mem_alloc, zero);
        }
    }
    uintptr_t        p = ((uintptr_t)raw + sizeof(struct block_hdr) + al - 1) & ~(uintptr_t)(al - 1);
    struct block_hdr h = { (uint64_t)(uintptr_t)raw, bytes, size, a, BLOCK_MAGIC, 0 };
    dsm_put((struct block_hdr *)p - 1, &h, sizeof h);
    return (void *)p;
}

static struct block_hdr block_of(const char *call, void *p)
{
    struct block_hdr h;
    if (!kumi_dsm_is_shared(p))
        kumi_omp_fatal(call, "%p was not allocated by omp_alloc", p);
    dsm_get(&h, (struct block_hdr *)p - 1, sizeof h);
    if (h.magic != BLOCK_MAGIC)
        kumi_omp_fatal(call, "%p was not allocated by omp_alloc (or is freed)", p);
    return h;
}

static void block_free(const char *call, void *p)
{
    if (p == NULL)
        return;
    struct block_hdr h    = block_of(call, p);
    uint64_t         none = 0;
    dsm_put(&((struct block_hdr *)p - 1)->magic, &none, sizeof none);
    if (!is_predefined(h.allocator)) {
        struct allocator t = traits_of(call, h.allocator);
        pool_take(h.allocator, &t, -(int64_t)h.bytes);
    }
    kumi_omp_free((void *)(uintptr_t)h.raw);
}

static void *block_realloc(const char *call, void *p, size_t size, uint64_t a, uint64_t fa)
{
    if (p == NULL)
        return block_alloc(call, 0, size, a, 0);
    if (size == 0) {
        block_free(call, p);
        return NULL;
    }
    struct block_hdr h = block_of(call, p);
    (void)fa;   /* the header knows p's allocator */
    void *n = block_alloc(call, 0, size, a != 0 ? a : h.allocator, 0);
    if (n == NULL)
        return NULL;
    kumi_dsm_memmove(n, p, h.size < size ? h.size : size);
    block_free(call, p);
    return n;
}

/* ------------------------------------------------------ allocators */

static omp_allocator_handle_t allocator_new(const char *call, uint64_t ms, int n,
                                            const omp_alloctrait_t *traits, int traits_shared)
{
    struct allocator r;
    memset(&r, 0, sizeof r);
    r.magic    = ALLOC_MAGIC;
    r.memspace = ms;
    r.fallback = omp_atv_default_mem_fb;
    if (ms > omp_low_lat_mem_space)
        kumi_omp_fatal(call, "unknown memory space %llu", (unsigned long long)ms);
    for (int i = 0; i < n; i++) {
        omp_alloctrait_t tr;
        if (traits_shared)
            dsm_get(&tr, &traits[i], sizeof tr);
        else
            tr = traits[i];
        switch (tr.key) {
        case omp_atk_alignment:
            if (tr.value == 0 || (tr.value & (tr.value - 1)) != 0)
                return omp_null_allocator;   /* an invalid trait: no allocator */
            r.alignment = tr.value;
            break;
        case omp_atk_pool_size: r.pool_size = tr.value; break;
        case omp_atk_fallback:
            if (tr.value < omp_atv_default_mem_fb || tr.value > omp_atv_allocator_fb)
                return omp_null_allocator;
            r.fallback = tr.value;
            break;
        case omp_atk_fb_data: r.fb_data = tr.value; break;
        case omp_atk_sync_hint:
        case omp_atk_access:
        case omp_atk_pinned:
        case omp_atk_partition: break;
        default: return omp_null_allocator;
        }
    }
    struct allocator *rec = kumi_omp_dsm_alloc(call, sizeof *rec, 64);
    if (rec == NULL)
        return omp_null_allocator;
    dsm_put(rec, &r, sizeof r);
    if (kumi_mutex_init(&rec->lock) != KUMI_OK)
        kumi_global_exit(1);
    return (omp_allocator_handle_t)(uintptr_t)rec;
}

omp_allocator_handle_t omp_init_allocator(omp_memspace_handle_t m, int ntraits,
                                          omp_alloctrait_t traits[])
{
    kumi_omp_ensure_init();
    return allocator_new("omp_init_allocator", (uint64_t)m, ntraits, traits,
                         ntraits > 0 && kumi_dsm_is_shared(traits));
}

void omp_destroy_allocator(omp_allocator_handle_t a)
{
    uint64_t none = 0;
    if (a == omp_null_allocator || is_predefined(a))
        return;
    traits_of("omp_destroy_allocator", a);
    dsm_put(&((struct allocator *)(uintptr_t)a)->magic, &none, sizeof none);
    kumi_omp_free((void *)(uintptr_t)a);
}

void omp_set_default_allocator(omp_allocator_handle_t a)
{
    kumi_omp_ensure_init();
    env_alloc.pending = 0;
    if (a != omp_null_allocator)
        traits_of("omp_set_default_allocator", a);
    kumi_omp_th.def_allocator = a != omp_null_allocator ? a : omp_default_mem_alloc;
}

omp_allocator_handle_t omp_get_default_allocator(void)
{
    kumi_omp_ensure_init();
    return (omp_allocator_handle_t)default_allocator();
}

/* OMP_ALLOCATOR: a predefined allocator, or a memory space with
 * optional traits (memspace[:key=value[,key=value]...], OpenMP 5.1) */
void kumi_omp_alloc_init(void)
{
    static const char *const allocs[] = { "omp_default_mem_alloc", "omp_large_cap_mem_alloc",
                                          "omp_const_mem_alloc", "omp_high_bw_mem_alloc",
                                          "omp_low_lat_mem_alloc", "omp_cgroup_mem_alloc",
                                          "omp_pteam_mem_alloc", "omp_thread_mem_alloc" };
    static const char *const spaces[] = { "omp_default_mem_space", "omp_large_cap_mem_space",
                                          "omp_const_mem_space", "omp_high_bw_mem_space",
                                          "omp_low_lat_mem_space" };
    static const struct { const char *name; int key; } keys[] = {
        { "sync_hint", omp_atk_sync_hint }, { "alignment", omp_atk_alignment },
        { "access", omp_atk_access }, { "pool_size", omp_atk_pool_size },
        { "fallback", omp_atk_fallback }, { "fb_data", omp_atk_fb_data },
        { "pinned", omp_atk_pinned }, { "partition", omp_atk_partition } };
    static const struct { const char *name; int value; } values[] = {
        { "false", omp_atv_false }, { "true", omp_atv_true },
        { "contended", omp_atv_contended }, { "uncontended", omp_atv_uncontended },
        { "serialized", omp_atv_serialized }, { "private", omp_atv_private },
        { "all", omp_atv_all }, { "thread", omp_atv_thread }, { "pteam", omp_atv_pteam },
        { "cgroup", omp_atv_cgroup }, { "default_mem_fb", omp_atv_default_mem_fb },
        { "null_fb", omp_atv_null_fb }, { "abort_fb", omp_atv_abort_fb },
        { "allocator_fb", omp_atv_allocator_fb }, { "environment", omp_atv_environment },
        { "nearest", omp_atv_nearest }, { "blocked", omp_atv_blocked },
        { "interleaved", omp_atv_interleaved } };
    const char      *s = getenv("OMP_ALLOCATOR");
    omp_alloctrait_t tr[16];
    int              ntr = 0;
    char             buf[256];

    kumi_omp_th.def_allocator = omp_default_mem_alloc;
    if (s == NULL || *s == '\0')
        return;
    for (size_t i = 0; i < sizeof allocs / sizeof allocs[0]; i++)
        if (!strcasecmp(s, allocs[i])) {
            kumi_omp_th.def_allocator = i + 1;
            return;
        }
    snprintf(buf, sizeof buf, "%s", s);
    char  *colon = strchr(buf, ':');
    size_t ms    = sizeof spaces / sizeof spaces[0];
    if (colon != NULL)
        *colon = '\0';
    for (size_t i = 0; i < sizeof spaces / sizeof spaces[0]; i++)
        if (!strcasecmp(buf, spaces[i]))
            ms = i;
    for (char *kv = colon ? strtok(colon + 1, ",") : NULL; kv != NULL && ms < 5;
         kv = strtok(NULL, ",")) {
        char *eq = strchr(kv, '=');
        int   key = 0;
        if (eq == NULL || ntr == 16) {
            ms = 5;
            break;
        }
        *eq = '\0';
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            if (!strcasecmp(kv, keys[k].name))
                key = keys[k].key;
        if (key == 0) {
            ms = 5;
            break;
        }
        tr[ntr].key   = (omp_alloctrait_key_t)key;
        tr[ntr].value = (omp_uintptr_t)strtoull(eq + 1, NULL, 0);
        for (size_t v = 0; v < sizeof values / sizeof values[0]; v++)
            if (!strcasecmp(eq + 1, values[v].name))
                tr[ntr].value = (omp_uintptr_t)values[v].value;
        ntr++;
    }
    if (ms >= 5) {
        if (kumi_rank() <= 0)
            fprintf(stderr,
                    "kumi[%d]: omp: ignoring OMP_ALLOCATOR=%s (a predefined allocator, or "
                    "memspace[:trait=value,...])\n",
                    kumi_rank(), s);
        return;
    }
    env_alloc.pending  = 1;
    env_alloc.memspace = ms;
    env_alloc.ntraits  = ntr;
    memcpy(env_alloc.traits, tr, sizeof tr);
}

/* --------------------------------------------------------- the calls */

void *omp_alloc(size_t size, omp_allocator_handle_t a)
{
    kumi_omp_ensure_init();
    return block_alloc("omp_alloc", 0, size, a, 0);
}

void *omp_aligned_alloc(size_t align, size_t size, omp_allocator_handle_t a)
{
    kumi_omp_ensure_init();
    return block_alloc("omp_aligned_alloc", align, size, a, 0);
}

void *omp_calloc(size_t nmemb, size_t size, omp_allocator_handle_t a)
{
    kumi_omp_ensure_init();
    if (size != 0 && nmemb > (size_t)-1 / size)
        return NULL;
    return block_alloc("omp_calloc", 0, nmemb * size, a, 1);
}

void *omp_aligned_calloc(size_t align, size_t nmemb, size_t size, omp_allocator_handle_t a)
{
    kumi_omp_ensure_init();
    if (size != 0 && nmemb > (size_t)-1 / size)
        return NULL;
    return block_alloc("omp_aligned_calloc", align, nmemb * size, a, 1);
}

void *omp_realloc(void *ptr, size_t size, omp_allocator_handle_t a, omp_allocator_handle_t fa)
{
    kumi_omp_ensure_init();
    return block_realloc("omp_realloc", ptr, size, a, fa);
}

void omp_free(void *ptr, omp_allocator_handle_t a)
{
    (void)a;   /* the block's header knows its allocator */
    block_free("omp_free", ptr);
}

void *__kmpc_alloc(int32_t gtid, size_t size, omp_allocator_handle_t a)
{
    (void)gtid;
    return block_alloc("__kmpc_alloc", 0, size, widen(a), 0);
}

void *__kmpc_aligned_alloc(int32_t gtid, size_t align, size_t size, omp_allocator_handle_t a)
{
    (void)gtid;
    return block_alloc("__kmpc_aligned_alloc", align, size, widen(a), 0);
}

void *__kmpc_calloc(int32_t gtid, size_t nmemb, size_t size, omp_allocator_handle_t a)
{
    (void)gtid;
    if (size != 0 && nmemb > (size_t)-1 / size)
        return NULL;
    return block_alloc("__kmpc_calloc", 0, nmemb * size, widen(a), 1);
}

void *__kmpc_realloc(int32_t gtid, void *ptr, size_t size, omp_allocator_handle_t a,
                     omp_allocator_handle_t fa)
{
    (void)gtid;
    return block_realloc("__kmpc_realloc", ptr, size, widen(a), widen(fa));
}

void __kmpc_free(int32_t gtid, void *ptr, omp_allocator_handle_t a)
{
    (void)gtid;
    (void)a;
    block_free("__kmpc_free", ptr);
}

omp_allocator_handle_t __kmpc_init_allocator(int32_t gtid, omp_memspace_handle_t m, int ntraits,
                                             omp_alloctrait_t traits[])
{
    (void)gtid;
    return omp_init_allocator(m, ntraits, traits);
}

void __kmpc_destroy_allocator(int32_t gtid, omp_allocator_handle_t a)
{
    (void)gtid;
    omp_destroy_allocator(a);
}

void __kmpc_set_default_allocator(int32_t gtid, omp_allocator_handle_t a)
{
    (void)gtid;
    omp_set_default_allocator(a);
}

omp_allocator_handle_t __kmpc_get_default_allocator(int32_t gtid)
{
    (void)gtid;
    return omp_get_default_allocator();
}

/* --------------------------------------------------------- resources */

int omp_pause_resource(omp_pause_resource_t kind, int device_num)
{
    kumi_omp_ensure_init();
    if (kind != omp_pause_soft && kind != omp_pause_hard && kind != omp_pause_resume)
        return 1;
    return device_num == omp_get_initial_device() ? 0 : 1;
}

int omp_pause_resource_all(omp_pause_resource_t kind)
{
    return omp_pause_resource(kind, omp_get_initial_device());
}
