/*
 * active_coll.c -- the deprecated active-set collectives on active sets of
 * every kind: the whole job (kumi's fast path), the evens (logPE_stride
 * 1), PE_start 1, stride 4, one PE alone. In each: shmem_barrier and
 * shmem_sync (the same pSync back to back), broadcast32/64 (the root's
 * dest untouched), collect32/64 (a different count on each PE),
 * fcollect32/64, alltoall32/64, alltoalls32/64 (gaps untouched) and every
 * shmem_TYPENAME_OP_to_all, in place and not, with exact values; calls
 * alternate between two pSync arrays with no barrier in between, or reuse
 * one after a shmem_barrier; puts before shmem_barrier are complete after
 * it; and every pSync word is back at SHMEM_SYNC_VALUE at the end.
 * Argument: rounds (default 2).
 */
#include "coll_test.h"

#define NE      4
#define SST     3
#define DST     2
#define BIGRED  20000   /* a to_all count that takes several pieces */
#define SENT    0x6b    /* dest bytes no call should have written */

static long psync[2][SHMEM_SYNC_SIZE];   /* alternating, with dbufs[] */
static long pbar[SHMEM_BARRIER_SYNC_SIZE];
static long pwrk_l[BIGRED / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static char *sbuf, *dbufs[2];   /* symmetric */
static long  ring;
static int   me, npes, calls, slot;

struct aset {
    int start, log, size;
    const char *name;
};

/* Each call takes the next of two pSync arrays and dest buffers: a PE
 * that enters call c + 2 has left call c + 1, which every member entered,
 * so every member has checked its dest of call c and left it (the spec's
 * conditions for reusing pSync and dest, without a barrier). next_dest
 * picks the buffer, next_psync (in the call) moves on. */
static size_t move_bytes;   /* the part of a dest the checks look at */

static char *next_dest(void)
{
    slot = calls % 2;
    /* the other buffer's results (the last call's) are checked: fill it
     * for the next call now, before this call lets anyone into that one */
    memset(dbufs[1 - slot], SENT, move_bytes);
    return dbufs[slot];
}

static long *next_psync(void)
{
    calls++;
    return psync[slot];
}

static int aset_pe(const struct aset *a, int i)
{
    return a->start + (i << a->log);
}

static int aset_me(const struct aset *a)
{
    for (int i = 0; i < a->size; i++)
        if (aset_pe(a, i) == me)
            return i;
    return -1;
}

/* the data movers, in 32 and 64 bits */
#define DEF_MOVE(BITS, T)                                                                    \
    static void move_##BITS(const struct aset *a, int ph)                                    \
    {                                                                                        \
        T  *s = (T *)sbuf, *d;                                                               \
        int m = aset_me(a), k = a->size;                                                     \
        for (int root = 0; root < k; root += (k > 2 ? k - 1 : 1)) {                          \
            d = (T *)next_dest();                                                            \
            for (int i = 0; i < NE; i++)                                                     \
                s[i] = (T)test_val(me, i, ph + root);                                        \
            shmem_broadcast##BITS(d, s, NE, root, a->start, a->log, a->size, next_psync());  \
            for (int i = 0; i < NE; i++)                                                     \
                if (m == root)                                                               \
                    CHECK(((unsigned char *)&d[i])[0] == SENT, "%s bcast%d: root's dest "    \
                          "written", a->name, BITS);                                         \
                else                                                                         \
                    CHECK(d[i] == (T)test_val(aset_pe(a, root), i, ph + root),               \
                          "%s bcast%d root %d: [%d] = %lld", a->name, BITS, root, i,         \
                          (long long)d[i]);                                                  \
        }                                                                                    \
        /* collect: index q gives (q + ph) % 3 elements */                                   \
        for (int i = 0; i < (m + ph) % 3; i++)                                               \
            s[i] = (T)test_val(me, i, ph + 5);                                               \
        d = (T *)next_dest();                                                                \
        shmem_collect##BITS(d, s, (size_t)((m + ph) % 3), a->start, a->log, a->size,         \
                            next_psync());                                                   \
        {                                                                                    \
            int at = 0;                                                                      \
            for (int q = 0; q < k; q++)                                                      \
                for (int i = 0; i < (q + ph) % 3; i++, at++)                                 \
                    CHECK(d[at] == (T)test_val(aset_pe(a, q), i, ph + 5),                    \
                          "%s collect%d: from %d [%d] = %lld", a->name, BITS, q, i,          \
                          (long long)d[at]);                                                 \
            CHECK(((unsigned char *)&d[at])[0] == SENT, "%s collect%d: beyond", a->name,     \
                  BITS);                                                                     \
        }                                                                                    \
        for (int i = 0; i < NE; i++)                                                         \
            s[i] = (T)test_val(me, i, ph + 6);                                               \
        d = (T *)next_dest();                                                                \
        shmem_fcollect##BITS(d, s, NE, a->start, a->log, a->size, next_psync());             \
        for (int q = 0; q < k; q++)                                                          \
            for (int i = 0; i < NE; i++)                                                     \
                CHECK(d[q * NE + i] == (T)test_val(aset_pe(a, q), i, ph + 6),                \
                      "%s fcollect%d: from %d [%d]", a->name, BITS, q, i);                   \
        for (int i = 0; i < k * NE; i++)                                                     \
            s[i] = (T)test_val(me, i, ph + 7);                                               \
        d = (T *)next_dest();                                                                \
        shmem_alltoall##BITS(d, s, NE, a->start, a->log, a->size, next_psync());             \
        for (int q = 0; q < k; q++)                                                          \
            for (int i = 0; i < NE; i++)                                                     \
                CHECK(d[q * NE + i] == (T)test_val(aset_pe(a, q), m * NE + i, ph + 7),       \
                      "%s alltoall%d: from %d [%d]", a->name, BITS, q, i);                   \
        for (int e = 0; e < k * NE; e++)                                                     \
            s[e * SST] = (T)test_val(me, e, ph + 8);                                         \
        d = (T *)next_dest();                                                                \
        shmem_alltoalls##BITS(d, s, DST, SST, NE, a->start, a->log, a->size, next_psync());  \
        for (int q = 0; q < k; q++)                                                          \
            for (int i = 0; i < NE; i++) {                                                   \
                int e = q * NE + i;                                                          \
                CHECK(d[e * DST] == (T)test_val(aset_pe(a, q), m * NE + i, ph + 8),          \
                      "%s alltoalls%d: from %d [%d]", a->name, BITS, q, i);                  \
                CHECK(((unsigned char *)&d[e * DST + 1])[0] == SENT,                         \
                      "%s alltoalls%d: gap written", a->name, BITS);                         \
            }                                                                                \
        /* the same in dst 1 (sst 2) and both 1 */                                           \
        for (int e = 0; e < k * NE; e++)                                                     \
            s[e * 2] = (T)test_val(me, e, ph + 9);                                           \
        d = (T *)next_dest();                                                                \
        shmem_alltoalls##BITS(d, s, 1, 2, NE, a->start, a->log, a->size, next_psync());      \
        for (int e = 0; e < k * NE; e++)                                                     \
            CHECK(d[e] == (T)test_val(aset_pe(a, e / NE), m * NE + e % NE, ph + 9),          \
                  "%s alltoalls%d sst 2: [%d]", a->name, BITS, e);                           \
    }
DEF_MOVE(32, int32_t)
DEF_MOVE(64, int64_t)

/* every to_all: operands and expected values as in reduce_types.c */
static int bit_val(int pe, int i)  { return (0x5a ^ (pe * 37 + i * 11)) & 0x7f; }
static int ord_val(int pe, int i)  { return (pe * 7 + i * 13) % 50 - 25; }
static int sum_re(int pe, int i)   { return (pe + i) % 2; }
static int sum_im(int pe, int i)   { return (pe * 3 + i) % 4; }
static int prod_re(int pe, int i)  { return (pe + i) % 7 == 0 ? 2 : 1; }
static int prod_im(int pe, int i)  { return (pe + 2 * i) % 9 == 1 ? 1 : 0; }
#define V_BIT(T, pe, i)  ((T)bit_val(pe, i))
#define V_ORD(T, pe, i)  ((T)ord_val(pe, i))
#define V_SUM(T, pe, i)  TV(T, sum_re(pe, i), sum_im(pe, i))
#define V_PROD(T, pe, i) TV(T, prod_re(pe, i), prod_im(pe, i))
#define A_AND(a, v)  ((a) = (a) & (v))
#define A_OR(a, v)   ((a) = (a) | (v))
#define A_XOR(a, v)  ((a) = (a) ^ (v))
#define A_MAX(a, v)  ((a) = (v) > (a) ? (v) : (a))
#define A_MIN(a, v)  ((a) = (v) < (a) ? (v) : (a))
#define A_SUM(a, v)  ((a) = (a) + (v))
#define A_PROD(a, v) ((a) = (a) * (v))

#define DEF_TO_ALL(T, N, OP, VAL, ACC)                                                       \
    static void to_all_##N##_##OP(const struct aset *a, int nr, int inplace)                 \
    {                                                                                        \
        char *nd = next_dest();                                                              \
        T    *s = (T *)sbuf, *d = inplace ? (T *)sbuf : (T *)nd;                             \
        for (int i = 0; i < nr; i++)                                                         \
            s[i] = VAL(T, me, i);                                                            \
        shmem_##N##_##OP##_to_all(d, s, nr, a->start, a->log, a->size, (T *)pwrk_l,         \
                                  next_psync());                                             \
        for (int i = 0; i < nr; i++) {                                                       \
            T want = VAL(T, aset_pe(a, 0), i);                                               \
            for (int q = 1; q < a->size; q++) {                                              \
                T v = VAL(T, aset_pe(a, q), i);                                              \
                ACC(want, v);                                                                \
            }                                                                                \
            CHECK(d[i] == want, "%s shmem_%s_%s_to_all%s: [%d] = %Lg, want %Lg", a->name,    \
                  #N, #OP, inplace ? " in place" : "", i, LDV(d[i]), LDV(want));             \
        }                                                                                    \
    }
#define DEF_BIT(T, N)                                                                        \
    DEF_TO_ALL(T, N, and, V_BIT, A_AND) DEF_TO_ALL(T, N, or, V_BIT, A_OR)                    \
    DEF_TO_ALL(T, N, xor, V_BIT, A_XOR)
#define DEF_MINMAX(T, N) DEF_TO_ALL(T, N, max, V_ORD, A_MAX) DEF_TO_ALL(T, N, min, V_ORD, A_MIN)
#define DEF_ARITH(T, N)  DEF_TO_ALL(T, N, sum, V_SUM, A_SUM) DEF_TO_ALL(T, N, prod, V_PROD, A_PROD)
KUMI_SHMEM_TO_ALL_BIT_TYPES(DEF_BIT)
KUMI_SHMEM_TO_ALL_MINMAX_TYPES(DEF_MINMAX)
KUMI_SHMEM_TO_ALL_ARITH_TYPES(DEF_ARITH)

static void run_set(const struct aset *a, int ph)
{
    int m = aset_me(a), k = a->size, ip = ph % 2;

    if (m < 0)
        return;
    /* every member starts the set on the same pSync and dest (the
     * barrier_all before it ends every use of both) */
    calls = 0;
    memset(dbufs[0], SENT, move_bytes);
    memset(dbufs[1], SENT, move_bytes);
    /* the same pSync, back to back */
    for (int i = 0; i < 3; i++)
        shmem_barrier(a->start, a->log, a->size, pbar);
    for (int i = 0; i < 3; i++)
        shmem_sync(a->start, a->log, a->size, pbar);
    /* puts before shmem_barrier are complete after it */
    shmem_long_p(&ring, 100 * ph + me, aset_pe(a, (m + 1) % k));
    shmem_barrier(a->start, a->log, a->size, pbar);
    CHECK(ring == 100 * ph + aset_pe(a, (m + k - 1) % k), "%s: ring got %ld", a->name, ring);
    shmem_barrier(a->start, a->log, a->size, pbar);
    move_32(a, ph);
    move_64(a, ph);
#define RUN_BIT(T, N)                                                                        \
    to_all_##N##_and(a, 3, ip); to_all_##N##_or(a, 3, !ip); to_all_##N##_xor(a, 1, ip);
#define RUN_MINMAX(T, N) to_all_##N##_max(a, 5, ip); to_all_##N##_min(a, 2, !ip);
#define RUN_ARITH(T, N)  to_all_##N##_sum(a, 3, !ip); to_all_##N##_prod(a, 4, ip);
    KUMI_SHMEM_TO_ALL_BIT_TYPES(RUN_BIT)
    KUMI_SHMEM_TO_ALL_MINMAX_TYPES(RUN_MINMAX)
    KUMI_SHMEM_TO_ALL_ARITH_TYPES(RUN_ARITH)
    to_all_double_sum(a, BIGRED, ip);
    to_all_long_max(a, BIGRED / 3, !ip);
    /* reuse one pSync after a barrier */
    shmem_barrier(a->start, a->log, a->size, pbar);
    to_all_int_sum(a, 2, 0);
    shmem_barrier(a->start, a->log, a->size, pbar);
    calls = 0;
    to_all_int_sum(a, 2, 0);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 2, nsets = 0;
    struct aset sets[6];

    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        psync[0][i] = psync[1][i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        pbar[i] = SHMEM_SYNC_VALUE;
    shmem_init();
    me   = shmem_my_pe();
    npes = shmem_n_pes();
    sbuf     = shmem_malloc((size_t)BIGRED * 16 + (size_t)npes * NE * SST * 8);
    dbufs[0] = shmem_malloc((size_t)BIGRED * 16 + (size_t)npes * NE * SST * 8);
    dbufs[1] = shmem_malloc((size_t)BIGRED * 16 + (size_t)npes * NE * SST * 8);
    CHECK(sbuf != NULL && dbufs[0] != NULL && dbufs[1] != NULL, "malloc");
    move_bytes = (size_t)npes * NE * SST * 8 + 64;
    sets[nsets++] = (struct aset){ 0, 0, npes, "world" };
    sets[nsets++] = (struct aset){ 0, 1, (npes + 1) / 2, "evens" };
    if (npes >= 2)
        sets[nsets++] = (struct aset){ 1, 0, npes - 1, "from 1" };
    if (npes >= 2)
        sets[nsets++] = (struct aset){ 1, 1, npes / 2, "odds" };
    sets[nsets++] = (struct aset){ 0, 2, (npes + 3) / 4, "stride 4" };
    /* a stride that would leave the job: ignored for one PE */
    sets[nsets++] = (struct aset){ npes - 1, 13, 1, "last alone" };
    shmem_barrier_all();   /* every pSync is initialized */
    for (int ph = 0; ph < rounds; ph++)
        for (int s = 0; s < nsets; s++) {
            run_set(&sets[s], ph);
            /* the next set's members may still be in this one */
            shmem_barrier_all();
        }
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        CHECK(psync[0][i] == SHMEM_SYNC_VALUE && psync[1][i] == SHMEM_SYNC_VALUE,
              "pSync[%d] = %ld, %ld at the end", i, psync[0][i], psync[1][i]);
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        CHECK(pbar[i] == SHMEM_SYNC_VALUE, "barrier pSync[%d] = %ld at the end", i, pbar[i]);
    shmem_free(dbufs[1]);
    shmem_free(dbufs[0]);
    shmem_free(sbuf);
    shmem_finalize();
    return 0;
}
