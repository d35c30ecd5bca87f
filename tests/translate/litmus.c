/*
 * litmus.c -- the DSM litmus tests as plain C for kumicc: the
 * shared variables live in memory from kumi_dsm_malloc and are accessed
 * only with ordinary `volatile` loads and stores. No check macros, no
 * kumi_dsm_read/write/acquire: sequential consistency holds only because
 * kumi-translate put the checks in. (tests/pe/dsm_litmus.c runs the same
 * shapes through dsm/check.h by hand.)
 *
 *   litmus SHAPE [MAX_ITERS [SECONDS [SEED]]]
 *
 * SHAPE (x, y: DSM words; "1"/"2": written in this iteration, "o": the
 * value the variable held when the iteration began):
 *   mp     P0: x=1; y=1           P1: r0=y; r1=x      forbidden r0=1 r1=o
 *   mpspin P0: x=1; y=1           P1: first=y; while (y == old); last=y; r=x
 *          forbidden: last or r not 1 (as a flag is used: not one of the
 *          seven classic shapes; a check hoisted out of the spin loop or a
 *          missing poll makes it time out)
 *   sb     P0: x=1; r0=y          P1: y=1; r1=x       forbidden r0=o r1=o
 *   lb     P0: r0=x; y=1          P1: r1=y; x=1       forbidden r0=1 r1=1
 *   iriw   P0: x=1  P1: y=1  P2: r0=x; r1=y  P3: r2=y; r3=x
 *                                          forbidden r0=1 r1=o r2=1 r3=o
 *   2+2w   P0: x=1; y=2           P1: y=1; x=2        forbidden final x=1 y=1
 *   corr   P0: x=1; x=2           P1: r0=x; r1=x; r2=x
 *                                 forbidden: a later read older than an earlier
 *   cowr   P0: x=1; r0=x          P1: x=2; r1=x
 *          forbidden: a read older than the reader's own write, r0=2 r1=1,
 *          a final x that contradicts the reads
 * For 2+2w and cowr every PE reads the finals after the iteration's
 * barrier: PEs that disagree on a final value are forbidden (coherence).
 * Every variable is written in every iteration and iterations are
 * separated by kumi_barrier, so "o" is exactly the previous iteration's
 * final value (0 in a set's first): any other value (an older one, the
 * flag pattern of an invalid line, garbage) is forbidden as well.
 *
 * How: PEs 0..k-1 play the k roles; further PEs are homes only (misses
 * forwarded over 3 hops). Every SETLEN iterations the variables are freed
 * and allocated again in the next layout (rotating): "lines" (each one in
 * its own 64-byte line from kumi_dsm_malloc, homes rotating over the
 * PEs), "shared" (both in one 64-byte line: false sharing) and "block4k"
 * (both in one 4 KiB coherence block, kumi_dsm_malloc_block, 2 KiB
 * apart). Before every access a PE spins a random while (3/8 not at all,
 * else up to 256, 4096 or 65536 rounds); the spin is a plain loop, so the translator's
 * back-edge poll serves requests meanwhile. Between iterations random PEs
 * read or rewrite the variables (the same decision on every PE) so that
 * iterations start from varied cache states.
 *
 * Every PE records what it read in private memory; after each set the
 * records are ORed together (kumi_allreduce) and judged. PE 0 prints the
 * outcome histogram per layout. The run FAILS (exit 1, lines with "BAD")
 * on any forbidden outcome, when the shape's required outcomes were not
 * all seen (each role running wholly before the other(s), plus the
 * interleavings listed per shape: a degenerate histogram means the delays
 * did not make the accesses race, and then the test proved nothing), or
 * when no DSM miss happened. Stops after MAX_ITERS iterations (default
 * 20000) or SECONDS (default 2) on PE 0's clock, whichever comes first;
 * but past SECONDS it goes on to MIN_ITERS iterations (a loaded machine),
 * up to 3 x SECONDS. Under MIN_ITERS the required outcomes are not
 * checked (a WARNING says so).
 */
#include <kumi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SETLEN 32   /* iterations per allocation of the variables */
#define NSLOT  16   /* observation words per iteration */
#define MAXFIN 6    /* PEs that read the finals (NSLOT - reads) / 2 */
#define MAXVAR 2
#define NREQ   6    /* required outcomes per shape, at most */
/* below this many iterations the required outcomes are not checked: at
 * >= 1% each, 1000 iterations miss one with probability < 5e-5 */
#define MIN_ITERS 1000
#define NLAYOUT 3

static const char layout_name[NLAYOUT][8] = { "lines", "shared", "block4k" };

/* The shared variables. The pointers themselves are private globals (the
 * translator leaves them unchecked); what they point to is DSM memory. */
static volatile uint64_t *x, *y;

static int me, npes;
static uint64_t set_k0;   /* the first iteration of the current set */

/* A kumi call that fails here (a peer died, a bad argument) ends the run:
 * the PEs cannot go on in step. kumi has reported the error itself (the
 * status only here: kumi_strerror's result, a pointer returned by a call,
 * would draw a translator warning at printf). */
static void need(int rc, const char *call)
{
    if (rc != KUMI_OK) {
        printf("litmus: BAD: PE %d: %s failed (status %d)\n", me, call, rc);
        exit(1);
    }
}

/* ------------------------------------------------------------ randomness */

static uint64_t mix(uint64_t v)
{
    v += 0x9e3779b97f4a7c15ull;
    v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ull;
    v = (v ^ (v >> 27)) * 0x94d049bb133111ebull;
    return v ^ (v >> 31);
}

static uint64_t rng;
static uint64_t rnd(void)
{
    rng += 0x9e3779b97f4a7c15ull;
    return mix(rng);
}

/* A private sink keeps the spin loop from being deleted by the optimizer
 * without any asm; a global, so the translator does not check it. */
static volatile unsigned spin_sink;

/* Spins before an access: 3/8 not at all (accesses back to back), else up
 * to ~256, ~4096 or ~65536 rounds, so that either PE may be first and
 * misses overlap the other PE's accesses. */
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
    for (unsigned i = 0; i < n; i++)
        spin_sink = i;
}

/* iteration k writes 4k+1 ("1") and 4k+2 ("2") */
static uint64_t V(uint64_t k, int j)
{
    return 4 * k + (uint64_t)j;
}

#define ST(p, val) (delay(), *(p) = (val))
#define LD(p)      (delay(), *(p))

/* ---------------------------------------------------------------- shapes
 * role(r, k, s): role r's part of iteration k; what it reads goes to its
 * own slots of s (every slot is written by one PE only). */

static void mp_role(int r, uint64_t k, uint64_t *s)
{
    if (r == 0) {
        ST(x, V(k, 1));
        ST(y, V(k, 1));
    } else {
        s[0] = LD(y);
        s[1] = LD(x);
    }
}

/* The flag as plain C programs use it: P1 spins on y. Every spin reads y
 * through a check (a miss once P0's store invalidated the line) and the
 * loop's back-edge polls, so P0's invalidation is served: a check hoisted
 * out of the loop, or a missing poll, would spin on a stale copy until the
 * 5 s limit (then last=o, forbidden). A value that is neither the old one
 * nor the new ends the spin too (it is forbidden). */
static void mpspin_role(int r, uint64_t k, uint64_t *s)
{
    if (r == 0) {
        ST(x, V(k, 1));
        ST(y, V(k, 1));
        return;
    }
    const uint64_t old = k == set_k0 ? 0 : V(k - 1, 1);
    double         limit = 0;
    uint64_t       f = LD(y), n = 0;
    s[0] = f;
    while (f == old) {
        if ((++n & 4095) == 0) {
            if (limit == 0)
                limit = kumi_wtime() + 5.0;
            else if (kumi_wtime() > limit)
                break;
        }
        f = *y;
    }
    s[1] = f;
    s[2] = LD(x);
}

static void sb_role(int r, uint64_t k, uint64_t *s)
{
    if (r == 0) {
        ST(x, V(k, 1));
        s[0] = LD(y);
    } else {
        ST(y, V(k, 1));
        s[1] = LD(x);
    }
}

static void lb_role(int r, uint64_t k, uint64_t *s)
{
    if (r == 0) {
        s[0] = LD(x);
        ST(y, V(k, 1));
    } else {
        s[1] = LD(y);
        ST(x, V(k, 1));
    }
}

static void iriw_role(int r, uint64_t k, uint64_t *s)
{
    switch (r) {
    case 0: ST(x, V(k, 1)); break;
    case 1: ST(y, V(k, 1)); break;
    case 2:
        s[0] = LD(x);
        s[1] = LD(y);
        break;
    default:
        s[2] = LD(y);
        s[3] = LD(x);
        break;
    }
}

static void w22_role(int r, uint64_t k, uint64_t *s)
{
    (void)s;
    if (r == 0) {
        ST(x, V(k, 1));
        ST(y, V(k, 2));
    } else {
        ST(y, V(k, 1));
        ST(x, V(k, 2));
    }
}

static void corr_role(int r, uint64_t k, uint64_t *s)
{
    if (r == 0) {
        ST(x, V(k, 1));
        ST(x, V(k, 2));
    } else {
        s[0] = LD(x);
        s[1] = LD(x);
        s[2] = LD(x);
    }
}

static void cowr_role(int r, uint64_t k, uint64_t *s)
{
    if (r == 0) {
        ST(x, V(k, 1));
        s[0] = LD(x);
    } else {
        ST(x, V(k, 2));
        s[1] = LD(x);
    }
}

static int rank_of(char c)
{
    return c == 'o' ? 0 : c == '1' ? 1 : c == '2' ? 2 : -1;
}

/* judge(): c[] holds the iteration's slots as symbols 'o', '1', '2'
 * (never '?': those are rejected before); writes the outcome's label to
 * `label`, returns 1 if it is forbidden. Writing "2" where a shape only
 * writes "1" is forbidden too. Both are globals, not arguments or escaping
 * locals: the translator then knows snprintf gets private memory and
 * does not warn. */
static char c[NSLOT + 1], label[48];
#define L(...) snprintf(label, sizeof label, __VA_ARGS__)

static int mp_judge(void)
{
    L("r0=%c r1=%c", c[0], c[1]);
    return c[0] == '2' || c[1] == '2' || (c[0] == '1' && c[1] == 'o');
}
static int mpspin_judge(void)
{
    L("y first=%c last=%c x=%c", c[0], c[1], c[2]);
    return c[0] == '2' || c[1] != '1' || c[2] != '1';
}
static int sb_judge(void)
{
    L("r0=%c r1=%c", c[0], c[1]);
    return c[0] == '2' || c[1] == '2' || (c[0] == 'o' && c[1] == 'o');
}
static int lb_judge(void)
{
    L("r0=%c r1=%c", c[0], c[1]);
    return c[0] == '2' || c[1] == '2' || (c[0] == '1' && c[1] == '1');
}
static int iriw_judge(void)
{
    L("r0=%c r1=%c r2=%c r3=%c", c[0], c[1], c[2], c[3]);
    return c[0] == '2' || c[1] == '2' || c[2] == '2' || c[3] == '2'
           || (c[0] == '1' && c[1] == 'o' && c[2] == '1' && c[3] == 'o');
}
static int w22_judge(void)
{
    L("final x=%c y=%c", c[0], c[1]);
    return c[0] == 'o' || c[1] == 'o' || (c[0] == '1' && c[1] == '1');
}
static int corr_judge(void)
{
    L("r0=%c r1=%c r2=%c", c[0], c[1], c[2]);
    return rank_of(c[1]) < rank_of(c[0]) || rank_of(c[2]) < rank_of(c[1]);
}
static int cowr_judge(void)
{
    L("r0=%c r1=%c final=%c", c[0], c[1], c[2]);
    return c[0] == 'o' || c[1] == 'o' || c[2] == 'o' || (c[0] == '2' && c[1] == '1')
           || (c[0] == '2' && c[2] != '2') || (c[1] == '1' && c[2] != '1');
}

struct shape {
    const char *name;
    int         nroles, nvars;
    /* slots: which variable each observation slot read ('x'/'y'); the
     * first nfinal variables are also read after the iteration's barrier
     * by every PE (up to MAXFIN), into the slots after the roles' reads:
     * PE p's at nreads + p * nfinal; the string names PE 0's */
    const char *slots;
    int         nfinal;
    /* the value a variable holds after an iteration: V(k, last[i]), or
     * (0) the recorded final */
    int         last[MAXVAR];
    void (*role)(int r, uint64_t k, uint64_t *s);
    int (*judge)(void);
    /* outcomes that must show up: every role order, and the
     * interleavings seen in > 1% of the iterations of every one of 4 runs
     * of each test on shm and tcp (a loaded 2-core machine); rarer ones
     * (IRIW's r0=o r1=1 r2=1 r3=o: 0.07% in one tcp run) are printed only */
    char        required[NREQ][24];   /* arrays, not pointers: private to the translator */
};

static const struct shape shapes[] = {
    { "mp", 2, 2, "yx", 0, { 1, 1 }, mp_role, mp_judge,
      { "r0=o r1=o", "r0=1 r1=1", "r0=o r1=1" } },
    { "sb", 2, 2, "yx", 0, { 1, 1 }, sb_role, sb_judge,
      { "r0=o r1=1", "r0=1 r1=o", "r0=1 r1=1" } },
    { "lb", 2, 2, "xy", 0, { 1, 1 }, lb_role, lb_judge,
      { "r0=o r1=1", "r0=1 r1=o", "r0=o r1=o" } },
    { "iriw", 4, 2, "xyyx", 0, { 1, 1 }, iriw_role, iriw_judge,
      { "r0=o r1=o r2=o r3=o", "r0=1 r1=1 r2=1 r3=1", "r0=1 r1=1 r2=o r3=o",
        "r0=o r1=o r2=1 r3=1" } },
    { "2+2w", 2, 2, "xy", 2, { 0, 0 }, w22_role, w22_judge,
      { "final x=2 y=1", "final x=1 y=2", "final x=2 y=2" } },
    { "corr", 2, 1, "xxx", 0, { 2 }, corr_role, corr_judge,
      { "r0=o r1=o r2=o", "r0=2 r1=2 r2=2", "r0=o r1=o r2=2", "r0=o r1=2 r2=2",
        "r0=1 r1=1 r2=1" } },
    { "cowr", 2, 1, "xxx", 1, { 0 }, cowr_role, cowr_judge,
      { "r0=1 r1=2 final=1", "r0=1 r1=2 final=2", "r0=2 r1=2 final=2",
        "r0=1 r1=1 final=1" } },
    { "mpspin", 2, 2, "yyx", 0, { 1, 1 }, mpspin_role, mpspin_judge,
      { "y first=o last=1 x=1", "y first=1 last=1 x=1" } },
};
#define NSHAPES (int)(sizeof shapes / sizeof shapes[0])

/* the shape run, a copy in a global: its strings are then pointers loaded
 * from a global, which the translator knows are not DSM (no warnings) */
static struct shape T;

/* ------------------------------------------------------------- histogram */

#define MAXOUT 128
static struct {
    int      layout;
    char     label[48];
    uint64_t count;
    int      forbidden;
} hist[MAXOUT];
static int nhist;

/* counts the outcome in `label` */
static void count(int layout, int forbidden)
{
    for (int i = 0; i < nhist; i++)
        if (hist[i].layout == layout && strcmp(hist[i].label, label) == 0) {
            hist[i].count++;
            return;
        }
    if (nhist == MAXOUT)   /* cannot happen with these shapes' labels */
        return;
    hist[nhist].layout = layout;
    snprintf(hist[nhist].label, sizeof hist[nhist].label, "%s", label);
    hist[nhist].count     = 1;
    hist[nhist].forbidden = forbidden;
    nhist++;
}

/* how often the shape's required outcome r was seen */
static uint64_t seen(int r)
{
    uint64_t n = 0;
    for (int i = 0; i < nhist; i++)
        if (strcmp(hist[i].label, T.required[r]) == 0)
            n += hist[i].count;
    return n;
}

/* 'o' if v is what the variable held before iteration k (prev), '1'/'2' if
 * written in k, '?' for anything else */
static char sym(uint64_t v, uint64_t prev, uint64_t k)
{
    if (v == V(k, 1))
        return '1';
    if (v == V(k, 2))
        return '2';
    return v == prev ? 'o' : '?';
}

/* Judges iteration k's slots s (prev: the variables' values before it):
 * sets `label`, returns 1 if the outcome is forbidden. */
static int judge(const uint64_t *s, uint64_t k, const uint64_t *prev, int nreads, int nfin)
{
    int bad = 0;

    for (int p = 1; p < nfin; p++)
        for (int i = 0; i < T.nfinal; i++)
            if (s[nreads + p * T.nfinal + i] != s[nreads + i]) {
                L("finals disagree (%c at PE %d)", "xy"[i], p);
                return 1;
            }
    memset(c, 0, sizeof c);
    for (int j = 0; T.slots[j] != 0; j++) {
        c[j] = sym(s[j], prev[T.slots[j] - 'x'], k);
        bad |= c[j] == '?';
    }
    if (bad) {
        L("values %s", c);
        return 1;
    }
    return T.judge();
}

/* ------------------------------------------------------------- variables */

static void *dsm_alloc(int layout)
{
    return layout == 2 ? kumi_dsm_malloc_block(4096, 4096) : kumi_dsm_malloc(64);
}

/* Allocates the set's variables in `layout`; homes rotate with the set.
 * Returns the allocations (to free) in base[]. */
static int vars_alloc(uint64_t set, int layout, int home[MAXVAR],
                      void *base[MAXVAR])
{
    uint64_t turn = set / NLAYOUT;
    int      nalloc = layout == 0 ? T.nvars : 1;

    for (int i = 0; i < nalloc; i++) {
        home[i] = (int)((turn + (uint64_t)i * (1 + turn / (uint64_t)npes)) % (uint64_t)npes);
        void *p = me == home[i] ? dsm_alloc(layout) : NULL;
        /* NULL reaches every PE, so all of them stop */
        need(kumi_broadcast(kumi_team_world(), &p, sizeof p, home[i]), "kumi_broadcast");
        if (p == NULL) {
            if (me == 0)
                printf("litmus %s: BAD: kumi_dsm_malloc failed on PE %d\n", T.name, home[i]);
            return -1;
        }
        base[i] = p;
    }
    if (layout == 0) {
        x = base[0];
        y = T.nvars > 1 ? base[1] : NULL;
    } else {
        /* not at the start of the line / block, and apart: false sharing */
        x = (volatile uint64_t *)base[0] + 1;
        y = T.nvars > 1 ? (volatile uint64_t *)base[0] + (layout == 1 ? 5 : 256) : NULL;
        home[1] = home[0];
    }
    /* the home initializes its variables: plain stores */
    if (me == home[0])
        *x = 0;
    if (y != NULL && me == home[1])
        *y = 0;
    return nalloc;
}

/* ------------------------------------------------------------------ main */

/* The arguments, copied to private globals by translated loads: argv is
 * never DSM memory, but the translator cannot know that and would warn
 * about every libc call given argv[i]; a clean build keeps its warnings
 * meaningful. */
#define NARG 5
static char arg[NARG][32];
static void args_copy(int argc, char **argv)
{
    for (int i = 0; i < argc && i < NARG; i++)
        for (int j = 0; j < (int)sizeof arg[i] - 1 && argv[i][j] != 0; j++)
            arg[i][j] = argv[i][j];
}

int main(int argc, char **argv)
{
    args_copy(argc, argv);
    uint64_t    max_iters = argc > 2 ? strtoull(arg[2], NULL, 0) : 20000;
    double      seconds   = argc > 3 ? atof(arg[3]) : 2.0;
    uint64_t    seed      = argc > 4 ? strtoull(arg[4], NULL, 0) : 0;
    kumi_team_t world;

    if (kumi_init() != KUMI_OK)
        return 1;
    me    = kumi_rank();
    npes  = kumi_size();
    world = kumi_team_world();
    for (int i = 0; argc > 1 && i < NSHAPES; i++)
        if (strcmp(arg[1], shapes[i].name) == 0)
            T = shapes[i];
    if (T.name == NULL || npes < T.nroles) {
        if (me == 0)
            fprintf(stderr, "usage: litmus mp|mpspin|sb|lb|iriw|2+2w|corr|cowr [MAX_ITERS [SECONDS "
                    "[SEED]]] (iriw needs 4 PEs, the others 2; got '%s' on %d PEs)\n",
                    arg[1], npes);
        kumi_finalize();
        return 2;
    }
    if (seed == 0 && me == 0)
        seed = mix((uint64_t)(kumi_wtime() * 1e9)) | 1;
    need(kumi_broadcast(world, &seed, sizeof seed, 0), "kumi_broadcast");
    rng = mix(seed ^ mix((uint64_t)me + 1));

    const size_t nslots = (size_t)SETLEN * NSLOT;
    uint64_t    *slots  = malloc(nslots * sizeof *slots);
    uint64_t    *all    = malloc(nslots * sizeof *all);
    if (slots == NULL || all == NULL) {
        fprintf(stderr, "litmus: BAD: malloc\n");
        return 1;
    }
    const int nreads = (int)strlen(T.slots) - T.nfinal;
    const int nfin   = npes < MAXFIN ? npes : MAXFIN;
    uint64_t  k = 0, forbidden = 0, sets = 0, per_layout[NLAYOUT] = { 0 };
    int       failed = 0;
    double    t0 = kumi_wtime();

    for (uint64_t set = 0;; set++) {
        uint64_t stop = 0;
        /* past SECONDS, go on to MIN_ITERS (a loaded machine), but never
         * past 3 x SECONDS */
        double el = kumi_wtime() - t0;
        if (me == 0)
            stop = k >= max_iters || (el > seconds && k >= MIN_ITERS) || el > 3 * seconds;
        need(kumi_broadcast(world, &stop, sizeof stop, 0), "kumi_broadcast");
        if (stop)
            break;
        sets++;
        int   layout = (int)(set % NLAYOUT), home[MAXVAR];
        void *base[MAXVAR];
        int   nalloc = vars_alloc(set, layout, home, base);
        if (nalloc < 0) {
            failed = 1;
            break;
        }
        need(kumi_barrier(world), "kumi_barrier");
        memset(slots, 0, nslots * sizeof *slots);
        const uint64_t k0 = k + 1;
        set_k0            = k0;
        for (int it = 0; it < SETLEN; it++) {
            uint64_t *s = slots + (size_t)it * NSLOT;
            k++;
            if (me < T.nroles)
                T.role(me, k, s);
            need(kumi_barrier(world), "kumi_barrier");
            /* finals: every PE reads the variables after the barrier
             * (every write of the iteration is done); coherence means
             * they all see the same value */
            if (T.nfinal > 0 && me < nfin) {
                s[nreads + me * T.nfinal] = *x;
                if (T.nfinal > 1)
                    s[nreads + me * T.nfinal + 1] = *y;
            }
            /* vary the cache states for the next iteration, the same
             * decision on every PE: a PE reads a variable, or rewrites
             * its value (takes it exclusive), or everybody reads it */
            uint64_t h = mix(k ^ seed);
            if (h & 1) {
                for (int i = 0; i < T.nvars; i++) {
                    volatile uint64_t *p = i == 0 ? x : y;
                    int a = (int)((h >> (4 + 4 * i)) & 3);
                    int q = (int)((h >> (20 + 8 * i)) % (uint64_t)npes);
                    if (a == 3 || (a == 1 && me == q))
                        (void)*p;
                    else if (a == 2 && me == q)
                        *p = *p;
                }
            }
            if ((h & 1) || T.nfinal > 0)
                need(kumi_barrier(world), "kumi_barrier");
        }
        /* every slot was written by one PE (the others left 0): OR them */
        need(kumi_allreduce(world, all, slots, nslots, KUMI_UINT64, KUMI_BOR), "kumi_allreduce");
        uint64_t prev[MAXVAR] = { 0, 0 };
        for (int it = 0; it < SETLEN; it++) {
            const uint64_t  kk = k0 + (uint64_t)it;
            const uint64_t *s  = all + (size_t)it * NSLOT;
            int             bad = judge(s, kk, prev, nreads, nfin);
            count(layout, bad);
            per_layout[layout]++;
            if (bad) {
                forbidden++;
                if (me == 0 && forbidden <= 10) {
                    printf("litmus %s: BAD: forbidden outcome '%s' in iteration %llu (%s, "
                           "homes x=PE %d", T.name, label, (unsigned long long)kk,
                           layout_name[layout], home[0]);
                    if (T.nvars > 1)
                        printf(" y=PE %d", home[1]);
                    printf("; before: x=%#llx y=%#llx; slots", (unsigned long long)prev[0],
                           (unsigned long long)prev[1]);
                    for (int j = 0; j < nreads + nfin * T.nfinal; j++)
                        printf(" %#llx", (unsigned long long)s[j]);
                    printf(")\n");
                }
            }
            for (int i = 0; i < T.nvars; i++)
                prev[i] = T.last[i] != 0 ? V(kk, T.last[i]) : s[nreads + i];
        }
        need(kumi_barrier(world), "kumi_barrier");
        for (int i = 0; i < nalloc; i++)
            if (me == home[i])
                kumi_dsm_free(base[i]);
    }
    double elapsed = kumi_wtime() - t0;

    kumi_dsm_stats_t st;
    need(kumi_dsm_stats(&st), "kumi_dsm_stats");
    uint64_t mine[3] = { st.read_misses, st.write_misses + st.upgrades, st.msgs_sent }, tot[3];
    need(kumi_allreduce(world, tot, mine, 3, KUMI_UINT64, KUMI_SUM), "kumi_allreduce");
    if (me == 0) {
        printf("litmus %s: %d PEs (%d roles), %llu iterations in %llu sets, %.2f s, seed %#llx; "
               "%llu read misses, %llu write misses+upgrades, %llu messages\n", T.name, npes,
               T.nroles, (unsigned long long)k, (unsigned long long)sets, elapsed,
               (unsigned long long)seed, (unsigned long long)tot[0],
               (unsigned long long)tot[1], (unsigned long long)tot[2]);
        for (int l = 0; l < NLAYOUT; l++) {
            printf("  %s (%llu iterations):\n", layout_name[l],
                   (unsigned long long)per_layout[l]);
            for (int i = 0; i < nhist; i++)
                if (hist[i].layout == l)
                    printf("    %-28s %8llu%s\n", hist[i].label,
                           (unsigned long long)hist[i].count,
                           hist[i].forbidden ? "   FORBIDDEN" : "");
        }
    }
    if (forbidden > 0) {
        failed = 1;
        if (me == 0)
            printf("litmus %s: BAD: %llu forbidden outcomes in %llu iterations\n", T.name,
                   (unsigned long long)forbidden, (unsigned long long)k);
    }
    if (k < MIN_ITERS && me == 0)
        printf("litmus %s: WARNING: only %llu iterations (< %d): required outcomes not "
               "checked\n", T.name, (unsigned long long)k, MIN_ITERS);
    for (int i = 0; k >= MIN_ITERS && i < NREQ && T.required[i][0] != 0; i++)
        if (seen(i) == 0) {
            failed = 1;
            if (me == 0)
                printf("litmus %s: BAD: outcome '%s' never seen in %llu iterations: the "
                       "accesses did not race as intended\n", T.name, T.required[i],
                       (unsigned long long)k);
        }
    if (tot[0] == 0 || tot[1] == 0) {
        failed = 1;
        if (me == 0)
            printf("litmus %s: BAD: no read or no write miss: nothing went through the "
                   "protocol\n", T.name);
    }
    if (me == 0 && !failed)
        printf("litmus %s: ok: only SC outcomes, every required outcome seen\n", T.name);
    fflush(stdout);
    need(kumi_barrier(world), "kumi_barrier");
    free(slots);
    free(all);
    kumi_finalize();
    return failed;
}
