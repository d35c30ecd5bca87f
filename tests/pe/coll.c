/*
 * coll.c -- every collective x type x op x count on several team shapes,
 * against references computed locally.
 *
 *   coll [--big-subset] COUNT...
 *
 * Team shapes: the world; a strided split (ranks 1, 3, 5, ...); a listed
 * team in reverse order (ranks follow the order given); and two overlapping
 * teams {0..n-2} and {1..n-1} used back to back. Contributions are small
 * integers, so every reduction has one exact answer whatever the order;
 * a second check with random doubles asserts that every member gets the
 * same bits. --big-subset: counts >= 100000 run SUM for every type and
 * every op on INT64 and DOUBLE only (the full matrix at smaller counts).
 */
#include <stdint.h>

#include "pe_test.h"

static const kumi_type_t types[] = { KUMI_INT32, KUMI_INT64, KUMI_UINT32, KUMI_UINT64, KUMI_FLOAT,
                                     KUMI_DOUBLE };
static const kumi_op_t ops[] = { KUMI_SUM, KUMI_PROD, KUMI_MIN, KUMI_MAX, KUMI_BAND, KUMI_BOR,
                                 KUMI_BXOR };
static int          big_subset;

static int64_t val(int r, size_t i, int is_unsigned)
{
    int64_t v = (int64_t)(((size_t)r * 7 + i * 3) % 13);
    return is_unsigned ? v : v - 6;
}

static void store(void *buf, size_t i, kumi_type_t t, int64_t v)
{
    switch (t) {
    case KUMI_INT32:  ((int32_t *)buf)[i] = (int32_t)v; break;
    case KUMI_INT64:  ((int64_t *)buf)[i] = v; break;
    case KUMI_UINT32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
    case KUMI_UINT64: ((uint64_t *)buf)[i] = (uint64_t)v; break;
    case KUMI_FLOAT:  ((float *)buf)[i] = (float)v; break;
    case KUMI_DOUBLE: ((double *)buf)[i] = (double)v; break;
    }
}

static int64_t fold(kumi_op_t op, int64_t a, int64_t b)
{
    switch (op) {
    case KUMI_SUM:  return a + b;
    case KUMI_PROD: return a * b;
    case KUMI_MIN:  return a < b ? a : b;
    case KUMI_MAX:  return a > b ? a : b;
    case KUMI_BAND: return a & b;
    case KUMI_BOR:  return a | b;
    default:        return a ^ b;
    }
}

/* The expected element i, in the type's own arithmetic (wrapping for
 * unsigned 32-bit) so the comparison is exact. */
static int check_elem(const void *buf, size_t i, kumi_type_t t, int64_t ref)
{
    switch (t) {
    case KUMI_INT32:  return ((const int32_t *)buf)[i] == (int32_t)ref;
    case KUMI_INT64:  return ((const int64_t *)buf)[i] == ref;
    case KUMI_UINT32: return ((const uint32_t *)buf)[i] == (uint32_t)ref;
    case KUMI_UINT64: return ((const uint64_t *)buf)[i] == (uint64_t)ref;
    case KUMI_FLOAT:  return ((const float *)buf)[i] == (float)ref;
    default:          return ((const double *)buf)[i] == (double)ref;
    }
}

static void test_reductions(kumi_team_t tm, const char *name, size_t count)
{
    int   tr = kumi_team_rank(tm), ts = kumi_team_size(tm);
    void *src = malloc(count * 8 + 8), *dst = malloc(count * 8 + 8);
    CHECK(src != NULL && dst != NULL, "malloc");

    for (size_t ti = 0; ti < 6; ti++) {
        kumi_type_t t = types[ti];
        int uns = t == KUMI_UINT32 || t == KUMI_UINT64, flt = t == KUMI_FLOAT || t == KUMI_DOUBLE;
        for (size_t oi = 0; oi < 7; oi++) {
            kumi_op_t op = ops[oi];
            if (big_subset && count >= 100000 && op != KUMI_SUM && t != KUMI_INT64
                && t != KUMI_DOUBLE)
                continue;
            if (flt && op >= KUMI_BAND) {
                capture_begin();
                int rc = kumi_allreduce(tm, dst, src, count, t, op);
                capture_end();
                CHECK(rc == KUMI_ERR_INVALID, "%s: bitwise op %zu on float type gave %d", name,
                      oi, rc);
                continue;
            }
            for (size_t i = 0; i < count; i++)
                store(src, i, t, val(tr, i, uns));
            int inplace = (oi + ti) % 2 == 0;
            void *out = inplace ? src : dst;
            OK(kumi_allreduce(tm, out, src, count, t, op));
            for (size_t i = 0; i < count; i++) {
                int64_t ref = val(0, i, uns);
                for (int r = 1; r < ts; r++)
                    ref = fold(op, ref, val(r, i, uns));
                CHECK(check_elem(out, i, t, ref), "%s: allreduce type %zu op %zu count %zu "
                      "element %zu wrong (ref %lld)", name, ti, oi, count, i, (long long)ref);
            }
            /* reduce to the last member */
            for (size_t i = 0; i < count; i++)
                store(src, i, t, val(tr, i, uns));
            OK(kumi_reduce(tm, tr == ts - 1 ? dst : NULL, src, count, t, op, ts - 1));
            for (size_t i = 0; tr == ts - 1 && i < count; i++) {
                int64_t ref = val(0, i, uns);
                for (int r = 1; r < ts; r++)
                    ref = fold(op, ref, val(r, i, uns));
                CHECK(check_elem(dst, i, t, ref), "%s: reduce type %zu op %zu count %zu "
                      "element %zu wrong", name, ti, oi, count, i);
            }
        }
    }
    free(src);
    free(dst);
}

/* random doubles: sums depend on order; every member must get the same bits */
static void test_bit_identical(kumi_team_t tm, const char *name, size_t count)
{
    int       tr = kumi_team_rank(tm), ts = kumi_team_size(tm);
    double   *src = malloc(count * 8 + 8), *dst = malloc(count * 8 + 8);
    uint64_t *all = malloc((size_t)ts * 8), h = 1469598103934665603ull;
    uint64_t  x = 88172645463325252ull ^ (uint64_t)(tr + 1) * 0x9e3779b97f4a7c15ull;
    CHECK(src && dst && all, "malloc");
    for (size_t i = 0; i < count; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        src[i] = (double)(x >> 11) * 0x1.0p-53 * 1e6 - 5e5;
    }
    OK(kumi_allreduce(tm, dst, src, count, KUMI_DOUBLE, KUMI_SUM));
    for (size_t i = 0; i < count; i++) {
        uint64_t b;
        memcpy(&b, &dst[i], 8);
        h = (h ^ b) * 1099511628211ull;
    }
    OK(kumi_allgather(tm, all, &h, 8));
    for (int r = 0; r < ts; r++)
        CHECK(all[r] == h, "%s: count %zu: member %d's result differs in bits from mine", name,
              count, r);
    free(src);
    free(dst);
    free(all);
}

static void test_movement(kumi_team_t tm, const char *name, size_t count)
{
    int      tr = kumi_team_rank(tm), ts = kumi_team_size(tm);
    size_t   n = count * 4;
    uint8_t *a = malloc(n * (size_t)ts + 1), *b = malloc(n * (size_t)ts + 1);
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
    free(a);
    free(b);
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
    int    ncounts = 0;

    for (int i = 1; i < argc && ncounts < 16; i++) {
        if (strcmp(argv[i], "--big-subset") == 0)
            big_subset = 1;
        else
            counts[ncounts++] = strtoull(argv[i], NULL, 10);
    }
    OK(kumi_init());
    int         me = kumi_rank(), n = kumi_size();
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
    OK(kumi_finalize());
    return 0;
}
