/*
 * coll.c -- every collective x type x op x count on several team shapes,
 * against references computed locally.
 *
 *   coll [--big-subset] [--types old|new|all] COUNT...
 *
 * Team shapes: the world; a strided split (ranks 1, 3, 5, ...); a listed
 * team in reverse order (ranks follow the order given); and two overlapping
 * teams {0..n-2} and {1..n-1} used back to back. Contributions are small
 * integers, so every reduction has one exact answer whatever the order;
 * a second check with random values (double; long double with padding
 * that differs by member; complex) asserts that every member gets the same
 * bytes. --big-subset: counts >= 100000 run SUM for every one of the first
 * six types and every op on INT64 and DOUBLE only (the full matrix at
 * smaller counts).
 * --types: the six types kumi had first, the seven of issue 15 (8/16-bit
 * integers, long double, complex), or all (default).
 * --heap: the collectives' source and destination buffers lie in the
 * symmetric heap (two kumi_malloc'ed areas, taken once by every PE: the
 * teams' non-members skip the tests), where the large collectives read
 * peers' data in place instead of through the scratch ring.
 */
#include <complex.h>
#include <float.h>
#include <stdint.h>

#include "pe_test.h"

/* Every reduction type with how its values are made and checked. */
enum kind { SINT, UINT, FLT, CPLX };
static const struct {
    kumi_type_t t;
    size_t      size;
    enum kind   kind;
    const char *name;
} types[] = {
    { KUMI_INT32, 4, SINT, "int32" },     { KUMI_INT64, 8, SINT, "int64" },
    { KUMI_UINT32, 4, UINT, "uint32" },   { KUMI_UINT64, 8, UINT, "uint64" },
    { KUMI_FLOAT, 4, FLT, "float" },      { KUMI_DOUBLE, 8, FLT, "double" },
    { KUMI_INT8, 1, SINT, "int8" },       { KUMI_INT16, 2, SINT, "int16" },
    { KUMI_UINT8, 1, UINT, "uint8" },     { KUMI_UINT16, 2, UINT, "uint16" },
    { KUMI_LONG_DOUBLE, sizeof(long double), FLT, "long double" },
    { KUMI_FLOAT_COMPLEX, 8, CPLX, "float complex" },
    { KUMI_DOUBLE_COMPLEX, 16, CPLX, "double complex" },
};
#define NTYPES (sizeof(types) / sizeof(types[0]))
#define NOLD   6            /* the first six: the types before issue 15 */
static const kumi_op_t ops[] = { KUMI_SUM, KUMI_PROD, KUMI_MIN, KUMI_MAX, KUMI_BAND, KUMI_BOR,
                                 KUMI_BXOR };
static int    big_subset;
/* --heap: two symmetric areas of heap_bytes each, used in turn by every
 * test instead of malloc (tbuf) */
static void  *heap_buf[2];
static size_t heap_bytes;
static size_t type_lo = 0, type_hi = NTYPES;   /* --types old|new|all */

/* x87 long double: the value's bytes, the rest of the 16 is padding */
#if LDBL_MANT_DIG == 64
#define LDBL_VALUE_BYTES 10
#else
#define LDBL_VALUE_BYTES sizeof(long double)
#endif

static int valid(size_t ti, kumi_op_t op)
{
    if (op >= KUMI_BAND)
        return types[ti].kind == SINT || types[ti].kind == UINT;
    if (op == KUMI_MIN || op == KUMI_MAX)
        return types[ti].kind != CPLX;
    return 1;
}

/* A contribution: small integers, so every reduction has one exact answer
 * whatever the order (complex: the imaginary part in -1..1, so products
 * over 8 members stay exact in float) */
struct val {
    int64_t re, im;
};

static struct val val(int r, size_t i, size_t ti)
{
    int64_t v = (int64_t)(((size_t)r * 7 + i * 3) % 13);
    struct val x = { types[ti].kind == UINT ? v : v - 6, 0 };
    if (types[ti].kind == CPLX)
        x.im = (int64_t)(((size_t)r + i) % 3) - 1;
    return x;
}

static void store(void *buf, size_t i, size_t ti, struct val v)
{
    switch (types[ti].t) {
    case KUMI_INT32:  ((int32_t *)buf)[i] = (int32_t)v.re; break;
    case KUMI_INT64:  ((int64_t *)buf)[i] = v.re; break;
    case KUMI_UINT32: ((uint32_t *)buf)[i] = (uint32_t)v.re; break;
    case KUMI_UINT64: ((uint64_t *)buf)[i] = (uint64_t)v.re; break;
    case KUMI_FLOAT:  ((float *)buf)[i] = (float)v.re; break;
    case KUMI_DOUBLE: ((double *)buf)[i] = (double)v.re; break;
    case KUMI_INT8:   ((int8_t *)buf)[i] = (int8_t)v.re; break;
    case KUMI_INT16:  ((int16_t *)buf)[i] = (int16_t)v.re; break;
    case KUMI_UINT8:  ((uint8_t *)buf)[i] = (uint8_t)v.re; break;
    case KUMI_UINT16: ((uint16_t *)buf)[i] = (uint16_t)v.re; break;
    case KUMI_LONG_DOUBLE: {
        /* garbage in the padding: it must not reach anyone's result */
        unsigned char *slot = (unsigned char *)buf + i * sizeof(long double);
        long double    x    = (long double)v.re;
        memset(slot, 0xa0 + (int)(i % 16), sizeof(long double));
        memcpy(slot, &x, LDBL_VALUE_BYTES);
        break;
    }
    case KUMI_FLOAT_COMPLEX:
        ((float _Complex *)buf)[i] = CMPLXF((float)v.re, (float)v.im);
        break;
    case KUMI_DOUBLE_COMPLEX:
        ((double _Complex *)buf)[i] = CMPLX((double)v.re, (double)v.im);
        break;
    }
}

static struct val fold(kumi_op_t op, struct val a, struct val b)
{
    struct val r = { 0, 0 };
    switch (op) {
    case KUMI_SUM:  r.re = a.re + b.re; r.im = a.im + b.im; break;
    case KUMI_PROD: r.re = a.re * b.re - a.im * b.im; r.im = a.re * b.im + a.im * b.re; break;
    case KUMI_MIN:  r.re = a.re < b.re ? a.re : b.re; break;
    case KUMI_MAX:  r.re = a.re > b.re ? a.re : b.re; break;
    case KUMI_BAND: r.re = a.re & b.re; break;
    case KUMI_BOR:  r.re = a.re | b.re; break;
    default:        r.re = a.re ^ b.re; break;
    }
    return r;
}

/* The expected element i, in the type's own arithmetic (wrapping for the
 * unsigned and narrow types) so the comparison is exact; a long double
 * result carries zeros after its value (every member the same bytes). */
static int check_elem(const void *buf, size_t i, size_t ti, struct val ref)
{
    switch (types[ti].t) {
    case KUMI_INT32:  return ((const int32_t *)buf)[i] == (int32_t)ref.re;
    case KUMI_INT64:  return ((const int64_t *)buf)[i] == ref.re;
    case KUMI_UINT32: return ((const uint32_t *)buf)[i] == (uint32_t)ref.re;
    case KUMI_UINT64: return ((const uint64_t *)buf)[i] == (uint64_t)ref.re;
    case KUMI_FLOAT:  return ((const float *)buf)[i] == (float)ref.re;
    case KUMI_DOUBLE: return ((const double *)buf)[i] == (double)ref.re;
    case KUMI_INT8:   return ((const int8_t *)buf)[i] == (int8_t)ref.re;
    case KUMI_INT16:  return ((const int16_t *)buf)[i] == (int16_t)ref.re;
    case KUMI_UINT8:  return ((const uint8_t *)buf)[i] == (uint8_t)ref.re;
    case KUMI_UINT16: return ((const uint16_t *)buf)[i] == (uint16_t)ref.re;
    case KUMI_LONG_DOUBLE: {
        const unsigned char *slot = (const unsigned char *)buf + i * sizeof(long double);
        long double          x;
        memcpy(&x, slot, sizeof x);
        for (size_t b = LDBL_VALUE_BYTES; b < sizeof(long double); b++)
            if (slot[b] != 0)
                return 0;
        return x == (long double)ref.re;
    }
    case KUMI_FLOAT_COMPLEX: {
        float _Complex z = ((const float _Complex *)buf)[i];
        return crealf(z) == (float)ref.re && cimagf(z) == (float)ref.im;
    }
    case KUMI_DOUBLE_COMPLEX: {
        double _Complex z = ((const double _Complex *)buf)[i];
        return creal(z) == (double)ref.re && cimag(z) == (double)ref.im;
    }
    }
    return 0;
}

/* Buffer i (0 or 1) of n bytes: malloc'ed, or with --heap the symmetric
 * area i (only one test uses them at a time) */
static void *tbuf(int i, size_t n)
{
    if (heap_bytes == 0)
        return malloc(n);
    CHECK(n <= heap_bytes, "--heap: %zu bytes wanted, the areas have %zu", n, heap_bytes);
    return heap_buf[i];
}

static void tbuf_free(void *p)
{
    if (heap_bytes == 0)
        free(p);
}

static void test_reductions(kumi_team_t tm, const char *name, size_t count)
{
    int   tr = kumi_team_rank(tm), ts = kumi_team_size(tm);
    void *src = tbuf(0, count * 16 + 16), *dst = tbuf(1, count * 16 + 16);
    CHECK(src != NULL && dst != NULL, "malloc");

    for (size_t ti = type_lo; ti < type_hi; ti++) {
        kumi_type_t t = types[ti].t;
        for (size_t oi = 0; oi < 7; oi++) {
            kumi_op_t op = ops[oi];
            if (big_subset && count >= 100000
                && (ti >= NOLD || (op != KUMI_SUM && t != KUMI_INT64 && t != KUMI_DOUBLE)))
                continue;
            if (!valid(ti, op)) {
                capture_begin();
                int rc = kumi_allreduce(tm, dst, src, count, t, op);
                const char *err = capture_end();
                CHECK(rc == KUMI_ERR_INVALID && strstr(err, "is not a valid reduction"),
                      "%s: op %zu on %s gave %d (%s)", name, oi, types[ti].name, rc, err);
                continue;
            }
            for (size_t i = 0; i < count; i++)
                store(src, i, ti, val(tr, i, ti));
            int inplace = (oi + ti) % 2 == 0;
            void *out = inplace ? src : dst;
            OK(kumi_allreduce(tm, out, src, count, t, op));
            for (size_t i = 0; i < count; i++) {
                struct val ref = val(0, i, ti);
                for (int r = 1; r < ts; r++)
                    ref = fold(op, ref, val(r, i, ti));
                CHECK(check_elem(out, i, ti, ref), "%s: allreduce %s op %zu count %zu "
                      "element %zu wrong (ref %lld%+lldi)", name, types[ti].name, oi, count, i,
                      (long long)ref.re, (long long)ref.im);
            }
            /* reduce to the last member */
            for (size_t i = 0; i < count; i++)
                store(src, i, ti, val(tr, i, ti));
            OK(kumi_reduce(tm, tr == ts - 1 ? dst : NULL, src, count, t, op, ts - 1));
            for (size_t i = 0; tr == ts - 1 && i < count; i++) {
                struct val ref = val(0, i, ti);
                for (int r = 1; r < ts; r++)
                    ref = fold(op, ref, val(r, i, ti));
                CHECK(check_elem(dst, i, ti, ref), "%s: reduce %s op %zu count %zu "
                      "element %zu wrong", name, types[ti].name, oi, count, i);
            }
        }
    }
    tbuf_free(src);
    tbuf_free(dst);
}

/* FNV-1a over n bytes, continuing from h */
static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const unsigned char *)p)[i]) * 1099511628211ull;
    return h;
}

/* Random values where the result depends on the order of operations (and
 * long double padding that differs between members): every member must
 * get the same bytes. */
static void test_bit_identical_type(kumi_team_t tm, const char *name, size_t count,
                                    kumi_type_t t, kumi_op_t op)
{
    int       tr = kumi_team_rank(tm), ts = kumi_team_size(tm);
    unsigned char *src = tbuf(0, count * 16 + 16), *dst = tbuf(1, count * 16 + 16);
    uint64_t *all = malloc((size_t)ts * 8), h = 1469598103934665603ull;
    uint64_t  x = 88172645463325252ull ^ (uint64_t)(tr + 1) * 0x9e3779b97f4a7c15ull;
    size_t    es = t == KUMI_DOUBLE ? 8 : t == KUMI_LONG_DOUBLE ? sizeof(long double)
                 : t == KUMI_FLOAT_COMPLEX ? 8 : 16;
    CHECK(src && dst && all, "malloc");
    for (size_t i = 0; i < count; i++) {
        double v[2];
        for (int k = 0; k < 2; k++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            v[k] = (double)(x >> 11) * 0x1.0p-53 * (op == KUMI_PROD ? 2 : 1e6) - 
                   (op == KUMI_PROD ? 1 : 5e5);
        }
        if (t == KUMI_DOUBLE) {
            memcpy(src + i * es, &v[0], 8);
        } else if (t == KUMI_LONG_DOUBLE) {
            long double l = (long double)v[0] / 3;
            memset(src + i * es, 0x11 * (tr + 1), es);   /* padding differs by member */
            memcpy(src + i * es, &l, LDBL_VALUE_BYTES);
        } else if (t == KUMI_FLOAT_COMPLEX) {
            float _Complex z = CMPLXF((float)v[0], (float)v[1]);
            memcpy(src + i * es, &z, es);
        } else {
            double _Complex z = CMPLX(v[0], v[1]);
            memcpy(src + i * es, &z, es);
        }
    }
    OK(kumi_allreduce(tm, dst, src, count, t, op));
    h = hash_bytes(h, dst, count * es);
    OK(kumi_allgather(tm, all, &h, 8));
    for (int r = 0; r < ts; r++)
        CHECK(all[r] == h, "%s: count %zu type %d op %d: member %d's result differs in bits "
              "from mine", name, count, (int)t, (int)op, r);
    tbuf_free(src);
    tbuf_free(dst);
    free(all);
}

static void test_bit_identical(kumi_team_t tm, const char *name, size_t count)
{
    if (type_lo < NOLD)
        test_bit_identical_type(tm, name, count, KUMI_DOUBLE, KUMI_SUM);
    if (type_hi > NOLD && !(big_subset && count >= 100000)) {
        test_bit_identical_type(tm, name, count, KUMI_LONG_DOUBLE, KUMI_SUM);
        test_bit_identical_type(tm, name, count, KUMI_FLOAT_COMPLEX, KUMI_PROD);
        test_bit_identical_type(tm, name, count, KUMI_DOUBLE_COMPLEX, KUMI_SUM);
    }
}

static void test_movement(kumi_team_t tm, const char *name, size_t count)
{
    int      tr = kumi_team_rank(tm), ts = kumi_team_size(tm);
    size_t   n = count * 4;
    uint8_t *a = tbuf(0, n * (size_t)ts + 1), *b = tbuf(1, n * (size_t)ts + 1);
    CHECK(a && b, "malloc");
    for (int root = 0; root < ts; root += (ts > 2 ? ts - 1 : 1)) {
        for (size_t i = 0; i < n; i++)
            a[i] = tr == root ? (uint8_t)(i * 31 + (size_t)root) : 0xee;
        OK(kumi_broadcast(tm, a, n, root));
        for (size_t i = 0; i < n; i++)
            CHECK(a[i] == (uint8_t)(i * 31 + (size_t)root), "%s: broadcast %zu from %d byte %zu",
                  name, n, root, i);
    }
    for (size_t i = 0; i < n; i++)
        a[i] = (uint8_t)(i * 7 + (size_t)tr * 13);
    OK(kumi_allgather(tm, b, a, n));
    for (int r = 0; r < ts; r++)
        for (size_t i = 0; i < n; i++)
            CHECK(b[(size_t)r * n + i] == (uint8_t)(i * 7 + (size_t)r * 13),
                  "%s: allgather %zu: member %d byte %zu", name, n, r, i);
    for (int j = 0; j < ts; j++)
        for (size_t i = 0; i < n; i++)
            a[(size_t)j * n + i] = (uint8_t)(i * 5 + (size_t)tr * 17 + (size_t)j * 3);
    OK(kumi_alltoall(tm, b, a, n));
    for (int r = 0; r < ts; r++)
        for (size_t i = 0; i < n; i++)
            CHECK(b[(size_t)r * n + i] == (uint8_t)(i * 5 + (size_t)r * 17 + (size_t)tr * 3),
                  "%s: alltoall %zu: block from member %d byte %zu", name, n, r, i);
    tbuf_free(a);
    tbuf_free(b);
}

static void test_team(kumi_team_t tm, const char *name, size_t *counts, int ncounts)
{
    if (kumi_team_rank(tm) < 0)
        return;
    for (int c = 0; c < ncounts; c++) {
        test_reductions(tm, name, counts[c]);
        test_movement(tm, name, counts[c] < 100000 ? counts[c] : 100000);
        if (counts[c] > 0)
            test_bit_identical(tm, name, counts[c]);
        OK(kumi_barrier(tm));
    }
}

int main(int argc, char **argv)
{
    size_t counts[16];
    int    ncounts = 0, heap = 0;

    for (int i = 1; i < argc && ncounts < 16; i++) {
        if (strcmp(argv[i], "--big-subset") == 0) {
            big_subset = 1;
        } else if (strcmp(argv[i], "--heap") == 0) {
            heap = 1;
        } else if (strcmp(argv[i], "--types") == 0 && i + 1 < argc) {
            const char *which = argv[++i];
            type_lo = strcmp(which, "new") == 0 ? NOLD : 0;
            type_hi = strcmp(which, "old") == 0 ? NOLD : NTYPES;
        } else {
            counts[ncounts++] = strtoull(argv[i], NULL, 10);
        }
    }
    OK(kumi_init());
    int         me = kumi_rank(), n = kumi_size();
    if (heap) {   /* the largest any test asks for, on the world */
        for (int c = 0; c < ncounts; c++) {
            size_t mv = (counts[c] < 100000 ? counts[c] : 100000) * 4 * (size_t)n + 1;
            size_t rd = counts[c] * 16 + 16;
            heap_bytes = mv > heap_bytes ? mv : heap_bytes;
            heap_bytes = rd > heap_bytes ? rd : heap_bytes;
        }
        heap_bytes = heap_bytes ? heap_bytes : 16;
        heap_buf[0] = kumi_malloc(heap_bytes);
        heap_buf[1] = kumi_malloc(heap_bytes);
        CHECK(heap_buf[0] != NULL && heap_buf[1] != NULL, "kumi_malloc %zu", heap_bytes);
    }
    kumi_team_t w = kumi_team_world(), strided, listed, lo, hi;

    test_team(w, "world", counts, ncounts);

    /* strided: ranks 1, 3, 5, ... (the world itself when n == 1) */
    int start = n > 1 ? 1 : 0, stride = 2, size = n > 1 ? n / 2 : 1;
    OK(kumi_team_split_strided(w, start, stride, size, &strided));
    CHECK(kumi_team_rank(strided) == (me >= start && (me - start) % stride == 0
                                      && (me - start) / stride < size ? (me - start) / stride : -1),
          "strided team rank %d", kumi_team_rank(strided));
    test_team(strided, "strided", counts, ncounts);

    /* listed in reverse: team rank r is world PE n-1-r */
    int *rev = malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++)
        rev[i] = n - 1 - i;
    OK(kumi_team_create(w, rev, n, &listed));
    CHECK(kumi_team_rank(listed) == n - 1 - me && kumi_team_pe(listed, 0) == n - 1,
          "listed team rank %d", kumi_team_rank(listed));
    test_team(listed, "listed", counts, ncounts);

    /* two overlapping teams, used back to back with no barrier between */
    int m = n > 2 ? n - 1 : n;
    OK(kumi_team_split_strided(w, 0, 1, m, &lo));
    OK(kumi_team_split_strided(w, n - m, 1, m, &hi));
    for (int rep = 0; rep < 50; rep++) {
        int64_t v = me + rep, s;
        if (kumi_team_rank(lo) >= 0) {
            OK(kumi_allreduce(lo, &s, &v, 1, KUMI_INT64, KUMI_SUM));
            CHECK(s == (int64_t)m * (m - 1) / 2 + (int64_t)m * rep, "overlap lo rep %d: %lld", rep,
                  (long long)s);
        }
        if (kumi_team_rank(hi) >= 0) {
            OK(kumi_allreduce(hi, &s, &v, 1, KUMI_INT64, KUMI_SUM));
            int64_t base = (int64_t)(n - m);
            CHECK(s == m * base + (int64_t)m * (m - 1) / 2 + (int64_t)m * rep,
                  "overlap hi rep %d: %lld", rep, (long long)s);
            OK(kumi_barrier(hi));
        }
        if (kumi_team_rank(lo) >= 0)
            OK(kumi_barrier(lo));
    }
    if (ncounts > 0) {
        test_team(lo, "overlap-lo", counts, 1);
        test_team(hi, "overlap-hi", counts, 1);
    }

    /* argument errors */
    capture_begin();
    int bad1 = kumi_allreduce(w, NULL, NULL, 1, KUMI_DOUBLE, KUMI_SUM);
    int bad2 = kumi_allreduce(w, &n, &n, 1, (kumi_type_t)42, KUMI_SUM);
    int bad3 = kumi_broadcast(w, &n, 4, n);
    int bad4 = kumi_team_create(w, (int[]){ 0, 0 }, 2, &lo);
    int bad5 = kumi_team_destroy(w);
    const char *err = capture_end();
    CHECK(bad1 == KUMI_ERR_INVALID && bad2 == KUMI_ERR_INVALID && bad3 == KUMI_ERR_INVALID
          && (n == 1 ? 1 : bad4 == KUMI_ERR_INVALID) && bad5 == KUMI_ERR_INVALID,
          "argument errors: %d %d %d %d %d", bad1, bad2, bad3, bad4, bad5);
    CHECK(strstr(err, "kumi_allreduce") && strstr(err, "kumi_broadcast: root"),
          "messages: %s", err);

    OK(kumi_team_destroy(lo));
    OK(kumi_team_destroy(hi));
    OK(kumi_team_destroy(listed));
    OK(kumi_team_destroy(strided));
    free(rev);
    if (heap) {
        kumi_free(heap_buf[1]);
        kumi_free(heap_buf[0]);
    }
    OK(kumi_finalize());
    return 0;
}
