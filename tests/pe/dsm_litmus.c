/*
 * dsm_litmus.c -- litmus tests of the DSM's memory model: sequential
 * consistency for accesses made through dsm/check.h (kumi_dsm_ld64 /
 * kumi_dsm_st64, what the translator emits).
 *
 *   dsm_litmus TEST [MAX_ITERS [SECONDS [SEED]]]
 *
 * TEST (x, y are DSM words, 0 at first; "new" is a value written in the
 * current iteration, "old" one from an earlier iteration):
 *   mp     P0: x=1; y=1             P1: r0=y; r1=x
 *          forbidden: r0 new, r1 old (flag seen, data not)
 *   sb     P0: x=1; r0=y            P1: y=1; r1=x
 *          forbidden: r0 old and r1 old (store buffering)
 *   lb     P0: r0=x; y=1            P1: r1=y; x=1
 *          forbidden: r0 new and r1 new (load buffering)
 *   iriw   P0: x=1   P1: y=1   P2: r0=x; r1=y   P3: r2=y; r3=x
 *          forbidden: r0 new, r1 old, r2 new, r3 old (the readers
 *          disagree on the order of two independent writes)
 *   2+2w   P0: x=1; y=2             P1: y=1; x=2
 *          forbidden: finally x=1 and y=1 (both first writes last)
 *   corr   P0: x=1; x=2             P1: r0=x; r1=x; r2=x
 *          forbidden: a later read older than an earlier one
 *   cowr   P0: x=1; r0=x            P1: x=2; r1=x
 *          forbidden: r0 or r1 older than the reader's own write;
 *          r0=2 and r1=1; a final x that contradicts what was read
 * Any value nobody wrote is forbidden too.
 *
 * PEs 0..k-1 play the k roles; further PEs (run the 2-PE tests with 3 or
 * 4 PEs) only serve as homes, so misses become 3-hop. Every SETLEN
 * iterations the variables are freed and allocated again, each in its
 * own block of 64, 256 or 4096 bytes (rotating) and homed at a PE that
 * rotates with the set. Before each access a PE spins for a random time
 * (nothing, up to ~microseconds, up to tens of microseconds; half of the
 * spins call kumi_dsm_poll); a kumi_barrier separates iterations, and
 * between some iterations random PEs read or rewrite the variables so
 * that iterations start from varied cache states (I, S, E at any PE).
 *
 * Observations go to PE 0 by a reduction after each set; PE 0 prints the
 * outcome histogram (one line per outcome, forbidden ones marked) and
 * the test fails on any forbidden outcome. It also fails when the run
 * proves too little: fewer than MIN_ITERS iterations, or fewer distinct
 * allowed outcomes than the test's min_outcomes (a run that saw one
 * outcome only did not race the roles against each other). The run ends
 * after MAX_ITERS iterations (default 20000) or SECONDS (default 3) on PE
 * 0's clock, whichever comes first; past SECONDS it goes on to MIN_ITERS
 * iterations (a loaded machine), but never past 10 x SECONDS.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../dsm/check.h"
#include "pe_test.h"

#define SETLEN 32   /* iterations per allocation of the variables */
#define NSLOT  8    /* observation words per iteration: 0..5 reads, 6..7 finals */
#define MAXVAR 2
/* fewer iterations than this prove nothing (20 sets of variables); the
 * allowed outcomes each test must show are seen within a few dozen
 * iterations on a quiet machine (the histogram on stdout) */
#define MIN_ITERS (20 * SETLEN)
/* min_outcomes below: 2 (one outcome only: the roles never overlapped or
 * always ran in the same order), 3 for iriw (4 roles in any serial order
 * already give several). On a quiet machine every allowed outcome shows up
 * (>= 10% each for the 2-role tests), so 640 iterations cannot miss two. */

static int me, npes;

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state += 0x9e3779b97f4a7c15ull;
    return mix(rng_state);
}

/* Spins a random while before an access: often not at all, sometimes a
 * little, sometimes long enough for a miss to happen elsewhere; half of
 * the spins serve incoming requests meanwhile. */
static void delay(void)
{
    uint64_t r = rnd();
    unsigned n;

    switch (r & 7) {
    case 0: case 1: case 2: n = 0; break;
    case 3: case 4:         n = (unsigned)(r >> 8) & 255; break;
    case 5: case 6:         n = (unsigned)(r >> 8) & 4095; break;
    default:                n = (unsigned)(r >> 8) & 65535; break;
    }
    int poll = (int)((r >> 40) & 1);
    for (unsigned i = 0; i < n; i++) {
        if (poll && (i & 255) == 0)
            kumi_dsm_poll();
        __asm__ volatile("" ::: "memory");
    }
}

/* values: iteration k writes 4k+1 ("1") and 4k+2 ("2") */
static uint64_t V(uint64_t k, int j)
{
    return 4 * k + (uint64_t)j;
}

/* '1' / '2': written in iteration k; 'o': written earlier (or the initial
 * 0); '?': nobody wrote it */
static char sym(uint64_t v, uint64_t k)
{
    if (v == V(k, 1))
        return '1';
    if (v == V(k, 2))
        return '2';
    if (v == 0 || (v < 4 * k && (v % 4 == 1 || v % 4 == 2)))
        return 'o';
    return '?';
}
static int rank_of(char c)
{
    return c == 'o' ? 0 : c == '1' ? 1 : c == '2' ? 2 : -1;
}

#define LD(i)    (delay(), kumi_dsm_ld64(v[i]))
#define ST(i, x) (delay(), kumi_dsm_st64(v[i], (x)))

typedef volatile uint64_t *var_t;

/* ------------------------------------------------------------------ tests
 * role(r, k, v, s): role r's part of iteration k; reads go to s[0..5]
 * (each slot written by one role only). judge(k, s, label): the outcome's
 * label; returns 1 if it is forbidden. Finals (s[6], s[7]) are read after
 * the iteration's barrier. */

static void mp_role(int r, uint64_t k, var_t *v, uint64_t *s)
{
    if (r == 0) {
        ST(0, V(k, 1));
        ST(1, V(k, 1));
    } else {
        s[0] = LD(1);
        s[1] = LD(0);
    }
}
static int mp_judge(uint64_t k, const uint64_t *s, char *l, size_t n)
{
    char f = sym(s[0], k), d = sym(s[1], k);
    snprintf(l, n, "flag=%c data=%c", f, d);
    return f == '?' || d == '?' || f == '2' || d == '2' || (f == '1' && d == 'o');
}

static void sb_role(int r, uint64_t k, var_t *v, uint64_t *s)
{
    ST(r, V(k, 1));
    s[r] = LD(1 - r);
}
static int sb_judge(uint64_t k, const uint64_t *s, char *l, size_t n)
{
    char a = sym(s[0], k), b = sym(s[1], k);
    snprintf(l, n, "r0=%c r1=%c", a, b);
    return a == '?' || b == '?' || a == '2' || b == '2' || (a == 'o' && b == 'o');
}

static void lb_role(int r, uint64_t k, var_t *v, uint64_t *s)
{
    s[r] = LD(r);
    ST(1 - r, V(k, 1));
}
static int lb_judge(uint64_t k, const uint64_t *s, char *l, size_t n)
{
    char a = sym(s[0], k), b = sym(s[1], k);
    snprintf(l, n, "r0=%c r1=%c", a, b);
    return a == '?' || b == '?' || a == '2' || b == '2' || (a == '1' && b == '1');
}

static void iriw_role(int r, uint64_t k, var_t *v, uint64_t *s)
{
    switch (r) {
    case 0: ST(0, V(k, 1)); break;
    case 1: ST(1, V(k, 1)); break;
    case 2:
        s[0] = LD(0);
        s[1] = LD(1);
        break;
    default:
        s[2] = LD(1);
        s[3] = LD(0);
        break;
    }
}
static int iriw_judge(uint64_t k, const uint64_t *s, char *l, size_t n)
{
    char c[4];
    int  bad = 0;
    for (int i = 0; i < 4; i++) {
        c[i] = sym(s[i], k);
        bad |= c[i] == '?' || c[i] == '2';
    }
    snprintf(l, n, "P2: x=%c y=%c  P3: y=%c x=%c", c[0], c[1], c[2], c[3]);
    return bad || (c[0] == '1' && c[1] == 'o' && c[2] == '1' && c[3] == 'o');
}

static void w22_role(int r, uint64_t k, var_t *v, uint64_t *s)
{
    (void)s;
    ST(r, V(k, 1));
    ST(1 - r, V(k, 2));
}
static int w22_judge(uint64_t k, const uint64_t *s, char *l, size_t n)
{
    char x = sym(s[6], k), y = sym(s[7], k);
    snprintf(l, n, "final x=%c y=%c", x, y);
    return rank_of(x) < 1 || rank_of(y) < 1 || (x == '1' && y == '1');
}

static void corr_role(int r, uint64_t k, var_t *v, uint64_t *s)
{
    if (r == 0) {
        ST(0, V(k, 1));
        ST(0, V(k, 2));
    } else {
        s[0] = LD(0);
        s[1] = LD(0);
        s[2] = LD(0);
    }
}
static int corr_judge(uint64_t k, const uint64_t *s, char *l, size_t n)
{
    char a = sym(s[0], k), b = sym(s[1], k), c = sym(s[2], k);
    snprintf(l, n, "r0=%c r1=%c r2=%c", a, b, c);
    return rank_of(a) < 0 || rank_of(b) < rank_of(a) || rank_of(c) < rank_of(b);
}

static void cowr_role(int r, uint64_t k, var_t *v, uint64_t *s)
{
    ST(0, V(k, 1 + r));
    s[r] = LD(0);
}
static int cowr_judge(uint64_t k, const uint64_t *s, char *l, size_t n)
{
    char a = sym(s[0], k), b = sym(s[1], k), f = sym(s[6], k);
    snprintf(l, n, "r0=%c r1=%c final=%c", a, b, f);
    return rank_of(a) < 1 || rank_of(b) < 1 || rank_of(f) < 1 || (a == '2' && b == '1')
           || (a == '2' && f != '2') || (b == '1' && f != '1');
}

struct litmus {
    const char *name;
    int         nroles, nvars, nfinal;
    void (*role)(int r, uint64_t k, var_t *v, uint64_t *s);
    int (*judge)(uint64_t k, const uint64_t *s, char *label, size_t n);
    int min_outcomes;   /* distinct allowed outcomes a run must see */
};
static const struct litmus tests[] = {
    { "mp", 2, 2, 0, mp_role, mp_judge, 2 },       { "sb", 2, 2, 0, sb_role, sb_judge, 2 },
    { "lb", 2, 2, 0, lb_role, lb_judge, 2 },       { "iriw", 4, 2, 0, iriw_role, iriw_judge, 3 },
    { "2+2w", 2, 2, 2, w22_role, w22_judge, 2 },   { "corr", 2, 1, 0, corr_role, corr_judge, 2 },
    { "cowr", 2, 1, 1, cowr_role, cowr_judge, 2 },
};

/* ------------------------------------------------------------- histogram */

#define MAXOUT 64
static struct {
    char     label[64];
    uint64_t count;
    int      forbidden;
} hist[MAXOUT];
static int nhist;

static void count(const char *label, int forbidden)
{
    for (int i = 0; i < nhist; i++)
        if (strcmp(hist[i].label, label) == 0) {
            hist[i].count++;
            return;
        }
    CHECK(nhist < MAXOUT, "too many outcomes");
    snprintf(hist[nhist].label, sizeof hist[nhist].label, "%s", label);
    hist[nhist].count     = 1;
    hist[nhist].forbidden = forbidden;
    nhist++;
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    const struct litmus *t = NULL;
    uint64_t             max_iters = argc > 2 ? strtoull(argv[2], NULL, 0) : 20000;
    double               seconds   = argc > 3 ? atof(argv[3]) : 3.0;
    uint64_t             seed      = argc > 4 ? strtoull(argv[4], NULL, 0) : 0;

    OK(kumi_init());
    me   = kumi_rank();
    npes = kumi_size();
    for (size_t i = 0; argc > 1 && i < sizeof(tests) / sizeof(tests[0]); i++)
        if (strcmp(argv[1], tests[i].name) == 0)
            t = &tests[i];
    CHECK(t != NULL, "usage: dsm_litmus mp|sb|lb|iriw|2+2w|corr|cowr [MAX_ITERS [SECONDS [SEED]]]"
          " (got '%s')", argc > 1 ? argv[1] : "");
    CHECK(npes >= t->nroles, "%s needs at least %d PEs", t->name, t->nroles);
    if (seed == 0 && me == 0)
        seed = mix((uint64_t)(kumi_wtime() * 1e9)) | 1;
    OK(kumi_broadcast(kumi_team_world(), &seed, sizeof seed, 0));
    rng_state = mix(seed ^ mix((uint64_t)me + 1));

    size_t    nslots = (size_t)SETLEN * NSLOT;
    uint64_t *slots  = malloc(nslots * sizeof(uint64_t));
    uint64_t *all    = malloc(nslots * sizeof(uint64_t));
    CHECK(slots != NULL && all != NULL, "malloc");
    static const size_t bsizes[] = { 64, 256, 4096 };
    uint64_t            k = 0, forbidden = 0, sets = 0;
    double              t0 = kumi_wtime();

    for (uint64_t set = 0;; set++) {
        uint64_t stop = 0;
        if (me == 0) {
            double el = kumi_wtime() - t0;
            stop = k >= max_iters || (el > seconds && k >= MIN_ITERS) || el > 10 * seconds;
        }
        OK(kumi_broadcast(kumi_team_world(), &stop, sizeof stop, 0));
        if (stop)
            break;
        sets++;
        /* the variables of this set: each in its own block, homes rotating */
        size_t bs = bsizes[set % 3];
        var_t  v[MAXVAR];
        int    home[MAXVAR];
        for (int i = 0; i < t->nvars; i++) {
            home[i] = (int)((set + (uint64_t)i * (1 + set / (uint64_t)npes)) % (uint64_t)npes);
            uint64_t *p = NULL;
            if (me == home[i]) {
                p = kumi_dsm_malloc_block(8, bs);
                CHECK(p != NULL, "kumi_dsm_malloc_block(8, %zu)", bs);
                kumi_dsm_st64(p, 0);
            }
            OK(kumi_broadcast(kumi_team_world(), &p, sizeof p, home[i]));
            v[i] = p;
        }
        BARRIER();
        memset(slots, 0, nslots * sizeof(uint64_t));
        uint64_t k0 = k + 1;
        for (int it = 0; it < SETLEN; it++) {
            uint64_t *s = slots + (size_t)it * NSLOT;
            k++;
            if (me < t->nroles)
                t->role(me, k, v, s);
            BARRIER();
            if (t->nfinal > 0 && (uint64_t)me == k % (uint64_t)npes)
                for (int i = 0; i < t->nfinal; i++)
                    s[6 + i] = kumi_dsm_ld64(v[i]);
            /* scramble the cache states for the next iteration (the same
             * decision on every PE): a random PE reads a variable, or
             * rewrites it with its value, or everybody reads it */
            uint64_t h = mix(k ^ seed);
            if (h & 1) {
                for (int i = 0; i < t->nvars; i++) {
                    int a = (int)((h >> (4 + 4 * i)) & 3);
                    int q = (int)((h >> (20 + 8 * i)) % (uint64_t)npes);
                    if (a == 3 || (a == 1 && me == q))
                        (void)kumi_dsm_ld64(v[i]);
                    else if (a == 2 && me == q)
                        kumi_dsm_st64(v[i], kumi_dsm_ld64(v[i]));
                }
            }
            if ((h & 1) || t->nfinal > 0)
                BARRIER();
        }
        /* every slot is written by one PE: OR them together */
        OK(kumi_allreduce(kumi_team_world(), all, slots, nslots, KUMI_UINT64, KUMI_BOR));
        for (int it = 0; it < SETLEN; it++) {
            char l[64];
            int  bad = t->judge(k0 + (uint64_t)it, all + (size_t)it * NSLOT, l, sizeof l);
            count(l, bad);
            if (bad) {
                forbidden++;
                if (me == 0 && forbidden <= 10) {
                    fprintf(stderr, "dsm_litmus %s: FORBIDDEN outcome %s in iteration %llu "
                            "(set %llu, %zu-byte blocks, homes", t->name, l,
                            (unsigned long long)(k0 + (uint64_t)it), (unsigned long long)set,
                            bs);
                    for (int i = 0; i < t->nvars; i++)
                        fprintf(stderr, " %c=PE %d", "xy"[i], home[i]);
                    fprintf(stderr, ", raw");
                    for (int i = 0; i < NSLOT; i++)
                        fprintf(stderr, " %llx",
                                (unsigned long long)all[(size_t)it * NSLOT + (size_t)i]);
                    fprintf(stderr, ")\n");
                }
            }
        }
        BARRIER();
        for (int i = 0; i < t->nvars; i++)
            if (me == home[i])
                kumi_dsm_free((void *)(uintptr_t)v[i]);
    }
    double elapsed = kumi_wtime() - t0;

    kumi_dsm_stats_t st;
    OK(kumi_dsm_stats(&st));
    uint64_t mine[3] = { st.read_misses, st.write_misses + st.upgrades, st.msgs_sent }, tot[3];
    OK(kumi_allreduce(kumi_team_world(), tot, mine, 3, KUMI_UINT64, KUMI_SUM));
    if (me == 0) {
        printf("dsm_litmus %s: %d PEs (%d roles), %llu iterations in %llu sets, %.2f s, seed "
               "0x%llx; %llu read misses, %llu write misses+upgrades, %llu messages\n",
               t->name, npes, t->nroles, (unsigned long long)k, (unsigned long long)sets,
               elapsed, (unsigned long long)seed, (unsigned long long)tot[0],
               (unsigned long long)tot[1], (unsigned long long)tot[2]);
        for (int i = 0; i < nhist; i++)
            printf("  %-32s %8llu%s\n", hist[i].label, (unsigned long long)hist[i].count,
                   hist[i].forbidden ? "   FORBIDDEN" : "");
        if (forbidden == 0)
            printf("dsm_litmus %s: no forbidden outcome\n", t->name);
        fflush(stdout);
    }
    BARRIER();
    CHECK(forbidden == 0, "%s: %llu forbidden outcomes in %llu iterations (histogram on PE 0's "
          "stdout)", t->name, (unsigned long long)forbidden, (unsigned long long)k);
    CHECK(k > 0 && tot[0] > 0 && tot[1] > 0, "%s: nothing ran or nothing missed", t->name);
    int allowed = 0;
    for (int i = 0; i < nhist; i++)
        allowed += !hist[i].forbidden;
    CHECK(k >= MIN_ITERS, "%s: only %llu iterations in %.2f s (at least %d needed to prove "
          "anything; MAX_ITERS %llu)", t->name, (unsigned long long)k, elapsed, MIN_ITERS,
          (unsigned long long)max_iters);
    CHECK(allowed >= t->min_outcomes, "%s: only %d distinct allowed outcome(s) in %llu iterations "
          "(at least %d needed: the roles did not race; histogram on PE 0's stdout)", t->name,
          allowed, (unsigned long long)k, t->min_outcomes);
    free(slots);
    free(all);
    OK(kumi_finalize());
    return 0;
}
