/*
 * dsm_stress.c -- random reads, writes and mutex-locked updates on shared
 * DSM arrays from every PE at once, with exact checks at the end.
 *
 *   dsm_stress [PART [OPS [SECONDS]]]
 *
 * PART: all (default) or one of the parts below. OPS: operations per PE
 * per part (default 2000). SECONDS: a time limit per part (default 3):
 * a PE that reaches it stops early, and the checks use the operations
 * actually made, so a slow machine (or a sanitizer) runs fewer.
 *
 *   counters  three groups of 16 counter records {count, check word}:
 *             A under a kumi_mutex in DSM memory (its own blocks), B under
 *             a kumi_mutex in the symmetric heap (kumi_align), C under a
 *             DSM mutex that shares one 4 KiB block with its counters.
 *             Each update, under the group's lock, checks that nobody
 *             else is inside (an "inside" word), reads and writes the
 *             record through kumi_dsm_ld64/st64, kumi_dsm_read/write or
 *             kumi_dsm_acquire and plain memory, sometimes serving
 *             requests in the middle. Unlocked reads of a record (one
 *             kumi_dsm_read of its line) must be consistent and never
 *             go backwards. At the end every count equals the number of
 *             increments made (summed over PEs), exactly.
 *   fair      every PE takes the lock again and again (5 us of work
 *             inside) until N critical sections were made in total, for
 *             the DSM and the heap mutex: the sum is exact, every PE got
 *             the lock, and (when all N were made) none got less than a
 *             16th of its fair share (FIFO tickets)
 *   slots     each PE owns a slot of two blocks (64, 256 and 4096 bytes)
 *             homed at another PE and rewrites it whole with one
 *             kumi_dsm_write (header seq and owner, derived words, a
 *             checksum per block); the others read blocks with
 *             kumi_dsm_read: a one-block read is never torn or mixed,
 *             a block's seq never goes backwards for a reader, and
 *             reading block 1 then block 0 gives seq0 >= seq1 - 1 (the
 *             writer's previous call was complete)
 *   mix       three arrays (64-, 256- and 4096-byte blocks) of words
 *             owned per 64-byte chunk by PEs in turn (false sharing in
 *             the bigger blocks); owners write single words (st64),
 *             ranges (kumi_dsm_write) and acquired ranges (plain
 *             stores); everyone reads words (ld64), ranges crossing
 *             chunks and blocks (kumi_dsm_read) and acquired ranges:
 *             every word carries its owner and a sequence number that
 *             must never go backwards; the final contents are exact
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../dsm/check.h"
#include "pe_test.h"

static int      me, npes;
static uint64_t ops_per_part = 2000;
static double   seconds      = 3.0;

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

/* a short random spin, half of the time serving requests */
static void delay(unsigned max_mask)
{
    uint64_t r = rnd();
    unsigned n = (unsigned)(r >> 8) & max_mask;
    int      poll = (int)((r >> 40) & 1);

    if ((r & 3) == 0)
        return;
    for (unsigned i = 0; i < n; i++) {
        if (poll && (i & 127) == 0)
            kumi_dsm_poll();
        __asm__ volatile("" ::: "memory");
    }
}

static void *bcast_ptr(void *p, int root)
{
    OK(kumi_broadcast(kumi_team_world(), &p, sizeof(p), root));
    return p;
}

/* ------------------------------------------------------------- counters */

#define NGROUP 3
#define NCNT   16

struct group_c {                 /* group C: the lock and its data in one 4 KiB block */
    kumi_mutex_t m;
    uint64_t     inside;
    uint64_t     pad[7];
    uint64_t     rec[NCNT][8];   /* one record per line: count, check */
};

static uint64_t chk(int g, int i, uint64_t c)
{
    return mix(c ^ ((uint64_t)g << 40) ^ ((uint64_t)i << 32));
}

static void test_counters(void)
{
    kumi_mutex_t   *m[NGROUP];
    uint64_t       *inside[NGROUP];
    uint64_t       *rec[NGROUP][NCNT];   /* &count; check follows */
    kumi_mutex_t   *ma = NULL;
    uint64_t       *ra = NULL, *rb = NULL;
    struct group_c *gc = NULL;

    /* A: mutex homed at PE 0, records (one per line) and inside at PE 1 */
    if (me == 0) {
        ma = kumi_dsm_malloc(sizeof(kumi_mutex_t));
        CHECK(ma != NULL, "kumi_dsm_malloc(mutex)");
    }
    if (me == 1 % npes) {
        ra = kumi_dsm_calloc(NCNT + 1, 64);
        CHECK(ra != NULL, "kumi_dsm_calloc");
    }
    if (me == (npes - 1)) {   /* B's records: 256-byte blocks, 4 records per block */
        rb = kumi_dsm_malloc_block((NCNT + 1) * 64, 256);
        CHECK(rb != NULL, "kumi_dsm_malloc_block");
        for (size_t k = 0; k < (NCNT + 1) * 8; k++)
            kumi_dsm_st64(&rb[k], 0);
    }
    if (me == 2 % npes) {
        gc = kumi_dsm_malloc_block(sizeof(*gc), 4096);
        CHECK(gc != NULL, "kumi_dsm_malloc_block");
        OK(kumi_mutex_init(&gc->m));
        kumi_dsm_st64(&gc->inside, 0);
        for (int i = 0; i < NCNT; i++)
            kumi_dsm_st64(&gc->rec[i][0], 0);
    }
    kumi_mutex_t *mb = kumi_align(64, sizeof(kumi_mutex_t));
    CHECK(mb != NULL, "kumi_align(64, mutex)");
    ma = bcast_ptr(ma, 0);
    ra = bcast_ptr(ra, 1 % npes);
    rb = bcast_ptr(rb, npes - 1);
    gc = bcast_ptr(gc, 2 % npes);
    if (me == 0) {
        OK(kumi_mutex_init(ma));
        OK(kumi_mutex_init(mb));
    }
    m[0]      = ma;
    m[1]      = mb;
    m[2]      = &gc->m;
    inside[0] = &ra[NCNT * 8];
    inside[1] = &rb[NCNT * 8];
    inside[2] = &gc->inside;
    for (int i = 0; i < NCNT; i++) {
        rec[0][i] = &ra[i * 8];
        rec[1][i] = &rb[i * 8];
        rec[2][i] = &gc->rec[i][0];
        if (me == 0)
            for (int g = 0; g < NGROUP; g++)
                kumi_dsm_st64(rec[g][i] + 1, chk(g, i, 0));
    }
    BARRIER();

    uint64_t *tally = calloc(NGROUP * NCNT, sizeof(uint64_t));
    uint64_t *total = calloc(NGROUP * NCNT, sizeof(uint64_t));
    uint64_t *seen  = calloc(NGROUP * NCNT, sizeof(uint64_t));
    CHECK(tally != NULL && total != NULL && seen != NULL, "calloc");
    double   deadline = kumi_wtime() + seconds;
    uint64_t ops = 0, reads = 0;
    for (; ops < ops_per_part && (ops % 16 != 0 || kumi_wtime() < deadline); ops++) {
        uint64_t r = rnd();
        int      g = (int)(r % NGROUP), i = (int)((r >> 8) % NCNT);
        uint64_t c, ck, buf[2];

        if ((r >> 20) % 4 == 0) {   /* unlocked read: one line, consistent */
            OK(kumi_dsm_read(buf, rec[g][i], 16));
            CHECK(buf[1] == chk(g, i, buf[0]), "group %c counter %d read unlocked: count %llu "
                  "with a check word of another count (torn record)", 'A' + g, i,
                  (unsigned long long)buf[0]);
            CHECK(buf[0] >= seen[g * NCNT + i], "group %c counter %d went back from %llu to "
                  "%llu", 'A' + g, i, (unsigned long long)seen[g * NCNT + i],
                  (unsigned long long)buf[0]);
            seen[g * NCNT + i] = buf[0];
            reads++;
            continue;
        }
        OK(kumi_mutex_lock(m[g]));
        uint64_t in = kumi_dsm_ld64(inside[g]);
        CHECK(in == 0, "group %c: PE %d is inside the critical section with me", 'A' + g,
              (int)in - 1);
        kumi_dsm_st64(inside[g], (uint64_t)me + 1);
        switch ((r >> 24) % 3) {
        case 0:
            c  = kumi_dsm_ld64(rec[g][i]);
            ck = kumi_dsm_ld64(rec[g][i] + 1);
            CHECK(ck == chk(g, i, c), "group %c counter %d: count %llu, wrong check word "
                  "under the lock", 'A' + g, i, (unsigned long long)c);
            delay(1023);
            kumi_dsm_st64(rec[g][i], c + 1);
            kumi_dsm_st64(rec[g][i] + 1, chk(g, i, c + 1));
            break;
        case 1:
            OK(kumi_dsm_read(buf, rec[g][i], 16));
            c = buf[0];
            CHECK(buf[1] == chk(g, i, c), "group %c counter %d: count %llu, wrong check word "
                  "(kumi_dsm_read under the lock)", 'A' + g, i, (unsigned long long)c);
            delay(1023);
            buf[0] = c + 1;
            buf[1] = chk(g, i, c + 1);
            OK(kumi_dsm_write(rec[g][i], buf, 16));
            break;
        default:
            OK(kumi_dsm_acquire(rec[g][i], 16, KUMI_DSM_READ | KUMI_DSM_WRITE));
            c = rec[g][i][0];
            CHECK(rec[g][i][1] == chk(g, i, c), "group %c counter %d: count %llu, wrong check "
                  "word (acquired)", 'A' + g, i, (unsigned long long)c);
            rec[g][i][0] = c + 1;
            rec[g][i][1] = chk(g, i, c + 1);
            break;
        }
        CHECK(c >= seen[g * NCNT + i], "group %c counter %d went back from %llu to %llu under "
              "the lock", 'A' + g, i, (unsigned long long)seen[g * NCNT + i],
              (unsigned long long)c);
        seen[g * NCNT + i] = c + 1;
        delay(255);
        in = kumi_dsm_ld64(inside[g]);
        CHECK(in == (uint64_t)me + 1, "group %c: 'inside' is %llu at the end of my critical "
              "section (someone else entered)", 'A' + g, (unsigned long long)in);
        kumi_dsm_st64(inside[g], 0);
        OK(kumi_mutex_unlock(m[g]));
        tally[g * NCNT + i]++;
    }
    BARRIER();
    OK(kumi_allreduce(kumi_team_world(), total, tally, NGROUP * NCNT, KUMI_UINT64, KUMI_SUM));
    uint64_t sum = 0, nops = 0;
    for (int g = 0; g < NGROUP; g++)
        for (int i = 0; i < NCNT; i++) {
            uint64_t c  = kumi_dsm_ld64(rec[g][i]);
            uint64_t ck = kumi_dsm_ld64(rec[g][i] + 1);
            CHECK(c == total[g * NCNT + i] && ck == chk(g, i, c), "group %c counter %d is %llu "
                  "after %llu increments", 'A' + g, i, (unsigned long long)c,
                  (unsigned long long)total[g * NCNT + i]);
            sum += c;
        }
    OK(kumi_allreduce(kumi_team_world(), &nops, &ops, 1, KUMI_UINT64, KUMI_SUM));
    if (me == 0)
        printf("dsm_stress counters: %llu increments under 3 locks (%llu operations), exact\n",
               (unsigned long long)sum, (unsigned long long)nops);
    BARRIER();
    if (me == 0)
        kumi_dsm_free(ma);
    if (me == 1 % npes)
        kumi_dsm_free(ra);
    if (me == npes - 1)
        kumi_dsm_free(rb);
    if (me == 2 % npes)
        kumi_dsm_free(gc);
    kumi_free(mb);
    free(tally);
    free(total);
    free(seen);
    (void)reads;
}

/* ------------------------------------------------------------------ fair */

static void fair_run(kumi_mutex_t *m, uint64_t *total, const char *what)
{
    uint64_t n = ops_per_part / 2 * (uint64_t)npes, mine = 0;
    if (n < 50 * (uint64_t)npes)
        n = 50 * (uint64_t)npes;
    uint64_t *got = calloc((size_t)npes, sizeof(uint64_t));
    CHECK(got != NULL, "calloc");
    BARRIER();
    double t0 = kumi_wtime(), deadline = t0 + seconds, first = -1;
    for (;;) {
        OK(kumi_mutex_lock(m));
        if (first < 0)
            first = kumi_wtime() - t0;
        uint64_t t = kumi_dsm_ld64(total);
        if (t >= n || (mine % 8 == 0 && kumi_wtime() > deadline)) {
            OK(kumi_mutex_unlock(m));
            break;
        }
        kumi_dsm_st64(total, t + 1);
        mine++;
        /* some work in the critical section, so that the PE that hosts
         * the lock (local atomics, tens of ns a turn) cannot make
         * thousands of turns while another takes a ticket (a round trip) */
        for (double until = kumi_wtime() + 5e-6; kumi_wtime() < until;)
            ;
        OK(kumi_mutex_unlock(m));
    }
    BARRIER();
    OK(kumi_allgather(kumi_team_world(), got, &mine, sizeof(mine)));
    double last_first = 0;
    OK(kumi_allreduce(kumi_team_world(), &last_first, &first, 1, KUMI_DOUBLE, KUMI_MAX));
    uint64_t t = kumi_dsm_ld64(total), sum = 0, lo = UINT64_MAX, hi = 0;
    for (int p = 0; p < npes; p++) {
        sum += got[p];
        lo = got[p] < lo ? got[p] : lo;
        hi = got[p] > hi ? got[p] : hi;
    }
    if (me == 0) {
        printf("dsm_stress fair (%s): %llu critical sections of %llu, per PE:", what,
               (unsigned long long)t, (unsigned long long)n);
        for (int p = 0; p < npes; p++)
            printf(" %llu", (unsigned long long)got[p]);
        printf("; the last PE's first turn came %.1f ms after the start\n", last_first * 1e3);
        fflush(stdout);
    }
    CHECK(sum == t, "%s: the PEs made %llu critical sections, the shared total says %llu", what,
          (unsigned long long)sum, (unsigned long long)t);
    CHECK(lo >= 1, "%s: a PE never got the lock (%llu sections in total)", what,
          (unsigned long long)t);
    /* FIFO tickets: with everyone queueing, turns go round. But a PE
     * without a ticket is not queueing: after its unlock it needs a
     * round trip or two (tcp: ~100 us) to take the next one, while the
     * others take turns; and PEs start late or are descheduled on an
     * oversubscribed host. So: roughly, at least 1/16 of a fair share. */
    CHECK(t < n || lo * 16 * (uint64_t)npes >= t, "%s: unfair: one PE got the lock only %llu "
          "times of %llu (fair share %llu)", what, (unsigned long long)lo, (unsigned long long)t,
          (unsigned long long)(t / (uint64_t)npes));
    free(got);
    BARRIER();
}

static void test_fair(void)
{
    kumi_mutex_t *md = NULL;
    uint64_t     *tot = NULL;

    if (me == 1 % npes) {
        md = kumi_dsm_malloc(sizeof(*md));
        CHECK(md != NULL, "kumi_dsm_malloc");
        OK(kumi_mutex_init(md));
    }
    if (me == 0) {
        tot = kumi_dsm_calloc(2, 64);
        CHECK(tot != NULL, "kumi_dsm_calloc");
    }
    kumi_mutex_t *mh = kumi_align(64, sizeof(*mh));
    CHECK(mh != NULL, "kumi_align");
    if (me == 0)
        OK(kumi_mutex_init(mh));
    md  = bcast_ptr(md, 1 % npes);
    tot = bcast_ptr(tot, 0);
    fair_run(md, &tot[0], "DSM mutex");
    fair_run(mh, &tot[8], "heap mutex");
    if (me == 0)
        kumi_dsm_free(tot);
    if (me == 1 % npes)
        kumi_dsm_free(md);
    kumi_free(mh);
}

/* ----------------------------------------------------------------- slots */

/* Block b of owner's slot at version seq, into buf (bs bytes). */
static void slot_fill(uint64_t *buf, size_t bs, int owner, int b, uint64_t seq)
{
    size_t   n   = bs / 8;
    uint64_t sum = 0x5eed;
    buf[0] = seq;
    buf[1] = ((uint64_t)owner << 8) | (uint64_t)b;
    for (size_t k = 2; k < n - 1; k++)
        buf[k] = mix(seq * 131 + (uint64_t)owner * 7 + (uint64_t)b + (k << 32));
    for (size_t k = 0; k < n - 1; k++)
        sum = mix(sum ^ buf[k]);
    buf[n - 1] = sum;
}

/* A block read back: whole and of one version. Returns its seq. */
static uint64_t slot_check(const uint64_t *buf, size_t bs, int owner, int b, const char *how)
{
    static uint64_t want[512];
    uint64_t        seq = buf[0];
    slot_fill(want, bs, owner, b, seq);
    for (size_t k = 0; k < bs / 8; k++)
        CHECK(buf[k] == want[k], "%zu-byte block %d of PE %d's slot (%s): word %zu is 0x%llx, "
              "expected 0x%llx for seq %llu: a torn or mixed block", bs, b, owner, how, k,
              (unsigned long long)buf[k], (unsigned long long)want[k], (unsigned long long)seq);
    return seq;
}

static void test_slots(void)
{
    static const size_t bss[3] = { 64, 256, 4096 };
    uint64_t           *slot[3];
    uint64_t          **all = malloc((size_t)npes * 3 * sizeof(*all));
    uint64_t           *buf = malloc(2 * 4096), *myseq = calloc(3, sizeof(uint64_t));
    uint64_t           *seen = calloc((size_t)npes * 6, sizeof(uint64_t));
    CHECK(all != NULL && buf != NULL && myseq != NULL && seen != NULL, "malloc");

    /* PE p allocates (is the home of) the slot of PE p+1 */
    int owner_of_mine = (me + 1) % npes;
    for (int j = 0; j < 3; j++) {
        slot[j] = kumi_dsm_malloc_block(2 * bss[j], bss[j]);
        CHECK(slot[j] != NULL, "kumi_dsm_malloc_block");
        slot_fill(buf, bss[j], owner_of_mine, 0, 0);
        slot_fill(buf + bss[j] / 8, bss[j], owner_of_mine, 1, 0);
        OK(kumi_dsm_write(slot[j], buf, 2 * bss[j]));
    }
    OK(kumi_allgather(kumi_team_world(), all, slot, sizeof(slot)));
    BARRIER();
    /* my slot of size j was allocated by PE me-1 */
    int home_of_mine = (me + npes - 1) % npes;
#define SLOT(owner, j) all[((owner) + npes - 1) % npes * 3 + (j)]
    (void)home_of_mine;

    double   deadline = kumi_wtime() + seconds;
    uint64_t ops = 0, writes = 0;
    for (; ops < ops_per_part && (ops % 16 != 0 || kumi_wtime() < deadline); ops++) {
        uint64_t r  = rnd();
        int      j  = (int)(r % 3);
        size_t   bs = bss[j];
        uint64_t *s;

        if ((r >> 8) % 3 == 0 || npes == 1) {   /* rewrite my slot, both blocks, one call */
            uint64_t seq = ++myseq[j];
            slot_fill(buf, bs, me, 0, seq);
            slot_fill(buf + bs / 8, bs, me, 1, seq);
            s = SLOT(me, j);
            OK(kumi_dsm_write(s, buf, 2 * bs));
            writes++;
            continue;
        }
        int q = (int)((r >> 16) % (uint64_t)(npes - 1));
        q     = q >= me ? q + 1 : q;
        s     = SLOT(q, j);
        uint64_t *sq = &seen[(size_t)q * 6 + (size_t)j * 2];
        switch ((r >> 24) % 3) {
        case 0: {   /* one block, one call */
            int b = (int)((r >> 32) & 1);
            OK(kumi_dsm_read(buf, s + (size_t)b * bs / 8, bs));
            uint64_t seq = slot_check(buf, bs, q, b, "one-block read");
            CHECK(seq >= sq[b], "PE %d's %zu-byte slot block %d went back from seq %llu to %llu",
                  q, bs, b, (unsigned long long)sq[b], (unsigned long long)seq);
            sq[b] = seq;
            break;
        }
        case 1: {   /* block 1, then block 0 */
            OK(kumi_dsm_read(buf + bs / 8, s + bs / 8, bs));
            uint64_t s1 = slot_check(buf + bs / 8, bs, q, 1, "block 1 then 0");
            OK(kumi_dsm_read(buf, s, bs));
            uint64_t s0 = slot_check(buf, bs, q, 0, "block 1 then 0");
            CHECK(s0 + 1 >= s1, "PE %d's %zu-byte slot: block 1 at seq %llu, then block 0 at "
                  "seq %llu (the write of seq %llu was complete before)", q, bs,
                  (unsigned long long)s1, (unsigned long long)s0, (unsigned long long)(s1 - 1));
            CHECK(s0 >= sq[0] && s1 >= sq[1], "PE %d's %zu-byte slot went back", q, bs);
            sq[0] = s0;
            sq[1] = s1;
            break;
        }
        default: {   /* both blocks in one call: each block whole */
            OK(kumi_dsm_read(buf, s, 2 * bs));
            uint64_t s0 = slot_check(buf, bs, q, 0, "two-block read");
            uint64_t s1 = slot_check(buf + bs / 8, bs, q, 1, "two-block read");
            CHECK(s0 >= sq[0] && s1 >= sq[1], "PE %d's %zu-byte slot went back", q, bs);
            sq[0] = s0;
            sq[1] = s1;
            break;
        }
        }
        delay(255);
    }
    BARRIER();
    uint64_t *finals = malloc((size_t)npes * 3 * sizeof(uint64_t));
    CHECK(finals != NULL, "malloc");
    OK(kumi_allgather(kumi_team_world(), finals, myseq, 3 * sizeof(uint64_t)));
    for (int q = 0; q < npes; q++)
        for (int j = 0; j < 3; j++) {
            OK(kumi_dsm_read(buf, SLOT(q, j), 2 * bss[j]));
            for (int b = 0; b < 2; b++) {
                uint64_t seq = slot_check(buf + (size_t)b * bss[j] / 8, bss[j], q, b, "final");
                CHECK(seq == finals[q * 3 + j], "PE %d's %zu-byte slot block %d ends at seq %llu, "
                      "its owner wrote %llu", q, bss[j], b, (unsigned long long)seq,
                      (unsigned long long)finals[q * 3 + j]);
            }
        }
    uint64_t w = 0;
    OK(kumi_allreduce(kumi_team_world(), &w, &writes, 1, KUMI_UINT64, KUMI_SUM));
    if (me == 0)
        printf("dsm_stress slots: %llu whole-slot writes, reads never torn\n",
               (unsigned long long)w);
    BARRIER();
    for (int j = 0; j < 3; j++)
        kumi_dsm_free(slot[j]);
    free(finals);
    free(all);
    free(buf);
    free(myseq);
    free(seen);
#undef SLOT
}

/* ------------------------------------------------------------------- mix */

#define NARR 3
static const size_t arr_bs[NARR]    = { 64, 256, 4096 };
static const size_t arr_bytes[NARR] = { 2048, 4096, 16384 };

static uint64_t tag(int owner, uint64_t seq)
{
    return ((uint64_t)owner << 56) | seq;
}

static void mix_check(int a, size_t w, uint64_t v, uint64_t *seen, const char *how)
{
    int owner = (int)(w / 8 % (size_t)npes);
    CHECK(v >> 56 == (uint64_t)owner, "array %d (%zu-byte blocks) word %zu (%s): 0x%llx is not "
          "PE %d's", a, arr_bs[a], w, how, (unsigned long long)v, owner);
    uint64_t seq = v & ((1ull << 56) - 1);
    CHECK(seq >= seen[w], "array %d (%zu-byte blocks) word %zu (%s) went back from seq %llu to "
          "%llu", a, arr_bs[a], w, how, (unsigned long long)seen[w], (unsigned long long)seq);
    seen[w] = seq;
}

static void test_mix(void)
{
    uint64_t *arr[NARR], *myseq[NARR], *seen[NARR], *fin[NARR];
    uint64_t  buf[128];

    for (int a = 0; a < NARR; a++) {
        size_t nw = arr_bytes[a] / 8;
        arr[a]    = NULL;
        if (me == a % npes) {
            arr[a] = kumi_dsm_malloc_block(arr_bytes[a], arr_bs[a]);
            CHECK(arr[a] != NULL, "kumi_dsm_malloc_block");
        }
        arr[a]   = bcast_ptr(arr[a], a % npes);
        myseq[a] = calloc(nw, sizeof(uint64_t));
        seen[a]  = calloc(nw, sizeof(uint64_t));
        fin[a]   = calloc(nw, sizeof(uint64_t));
        CHECK(myseq[a] != NULL && seen[a] != NULL && fin[a] != NULL, "calloc");
    }
    /* owners initialise their chunks */
    for (int a = 0; a < NARR; a++)
        for (size_t w = 0; w < arr_bytes[a] / 8; w++)
            if (w / 8 % (size_t)npes == (size_t)me)
                kumi_dsm_st64(&arr[a][w], tag(me, 0));
    BARRIER();

    double   deadline = kumi_wtime() + seconds;
    uint64_t ops      = 0;
    for (; ops < ops_per_part && (ops % 16 != 0 || kumi_wtime() < deadline); ops++) {
        uint64_t r      = rnd();
        int      a      = (int)(r % NARR);
        size_t   nw     = arr_bytes[a] / 8, nchunk = nw / 8;
        size_t   mychunks = (nchunk - (size_t)me + (size_t)npes - 1) / (size_t)npes;
        size_t   c      = (size_t)me + (size_t)npes * (size_t)((r >> 8) % (mychunks ? mychunks : 1));
        size_t   lo, hi, w;

        switch ((r >> 16) % 8) {
        case 0:   /* one word of mine */
            if (mychunks == 0)
                break;
            w = c * 8 + (size_t)((r >> 32) % 8);
            delay(255);
            kumi_dsm_st64(&arr[a][w], tag(me, ++myseq[a][w]));
            break;
        case 1:   /* a range of my chunk, one call */
            if (mychunks == 0)
                break;
            lo = c * 8 + (size_t)((r >> 32) % 8);
            hi = lo + 1 + (size_t)((r >> 40) % (c * 8 + 8 - lo));
            for (w = lo; w < hi; w++)
                buf[w - lo] = tag(me, ++myseq[a][w]);
            OK(kumi_dsm_write(&arr[a][lo], buf, (hi - lo) * 8));
            break;
        case 2:   /* my chunk acquired, plain stores */
            if (mychunks == 0)
                break;
            OK(kumi_dsm_acquire(&arr[a][c * 8], 64, KUMI_DSM_WRITE));
            for (w = c * 8; w < c * 8 + 8; w++)
                arr[a][w] = tag(me, ++myseq[a][w]);
            break;
        case 3: case 4:   /* one word of anybody's */
            w = (size_t)((r >> 24) % nw);
            delay(255);
            mix_check(a, w, kumi_dsm_ld64(&arr[a][w]), seen[a], "ld64");
            break;
        case 5: case 6:   /* a range across chunks and blocks, one call */
            lo = (size_t)((r >> 24) % nw);
            hi = lo + 1 + (size_t)((r >> 40) % 100);
            hi = hi > nw ? nw : hi;
            OK(kumi_dsm_read(buf, &arr[a][lo], (hi - lo) * 8));
            for (w = lo; w < hi; w++)
                mix_check(a, w, buf[w - lo], seen[a], "kumi_dsm_read");
            break;
        default:   /* a range acquired for reading, plain loads */
            lo = (size_t)((r >> 24) % nw);
            hi = lo + 1 + (size_t)((r >> 40) % 40);
            hi = hi > nw ? nw : hi;
            OK(kumi_dsm_acquire(&arr[a][lo], (hi - lo) * 8, KUMI_DSM_READ));
            for (w = lo; w < hi; w++)
                buf[w - lo] = arr[a][w];
            for (w = lo; w < hi; w++)
                mix_check(a, w, buf[w - lo], seen[a], "acquired");
            break;
        }
    }
    BARRIER();
    uint64_t bad = 0;
    for (int a = 0; a < NARR; a++) {
        size_t nw = arr_bytes[a] / 8;
        OK(kumi_allreduce(kumi_team_world(), fin[a], myseq[a], nw, KUMI_UINT64, KUMI_MAX));
        for (size_t w = 0; w < nw; w++) {
            uint64_t v = kumi_dsm_ld64(&arr[a][w]);
            int      owner = (int)(w / 8 % (size_t)npes);
            if (v != tag(owner, fin[a][w]) && bad++ < 10)
                fprintf(stderr, "dsm_stress mix: pe %d: array %d (%zu-byte blocks) word %zu "
                        "ends as 0x%llx, PE %d's last write was 0x%llx\n", me, a, arr_bs[a], w,
                        (unsigned long long)v, owner, (unsigned long long)tag(owner, fin[a][w]));
        }
    }
    CHECK(bad == 0, "%llu words do not hold their owner's last write",
          (unsigned long long)bad);
    uint64_t nops = 0;
    OK(kumi_allreduce(kumi_team_world(), &nops, &ops, 1, KUMI_UINT64, KUMI_SUM));
    if (me == 0)
        printf("dsm_stress mix: %llu operations, final contents exact\n",
               (unsigned long long)nops);
    BARRIER();
    for (int a = 0; a < NARR; a++) {
        if (me == a % npes)
            kumi_dsm_free(arr[a]);
        free(myseq[a]);
        free(seen[a]);
        free(fin[a]);
    }
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    const char *part = argc > 1 ? argv[1] : "all";
    int         all  = strcmp(part, "all") == 0, ran = 0;

    if (argc > 2)
        ops_per_part = strtoull(argv[2], NULL, 0);
    if (argc > 3)
        seconds = atof(argv[3]);
    OK(kumi_init());
    me   = kumi_rank();
    npes = kumi_size();
    uint64_t seed = 0;
    if (me == 0)
        seed = mix((uint64_t)(kumi_wtime() * 1e9)) | 1;
    OK(kumi_broadcast(kumi_team_world(), &seed, sizeof seed, 0));
    rng_state = mix(seed ^ mix((uint64_t)me + 1));
    if (me == 0)
        printf("dsm_stress %s: %d PEs, %llu operations per PE per part (at most %.1f s), seed "
               "0x%llx\n", part, npes, (unsigned long long)ops_per_part, seconds,
               (unsigned long long)seed);
#define PART(name, call)                              \
    if (all || strcmp(part, name) == 0) {             \
        double t0_ = kumi_wtime();                    \
        call;                                         \
        BARRIER();                                    \
        if (me == 0)                                  \
            printf("dsm_stress %s: ok (%.2f s)\n", name, kumi_wtime() - t0_); \
        fflush(stdout);                               \
        ran++;                                        \
    }
    PART("counters", test_counters());
    PART("fair", test_fair());
    PART("slots", test_slots());
    PART("mix", test_mix());
    CHECK(ran > 0, "unknown part '%s'", part);
    OK(kumi_finalize());
    return 0;
}
