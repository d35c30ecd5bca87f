/*
 * barrier.c -- kumi_barrier: its algorithms and the measured choice.
 *
 * tree (DIMMnet-1, seed 000 section 5.3): each child kicks a one-byte phase
 *   into its own byte of an 8-byte arrival word in its parent's LLCM; the
 *   parent sees all its children with one 8-byte load and a mask, then
 *   reports to its own parent; the root releases: either down the tree
 *   (each parent kicks its children's release words: everyone polls local
 *   memory) or by one store into its own release word that every member
 *   polls where the transport maps peer memory (KUMI_TREE_RELEASE).
 * dissem: dissemination, ceil(log2 n) rounds of kicks.
 * counter: Cenju-4 method C, one remote atomic add on team rank 0's
 *   counter, which everyone polls (or rank 0 alone, releasing by kicks).
 * mcast: Cenju-4 method D, the arrival is "multicast": every member adds
 *   one to every member's counter and polls its own.
 * a2a: Cenju-4 method A, all-to-all single-cast: every member kicks its
 *   phase byte into every member's arrival word and polls its own (teams
 *   of up to 8: one word, one masked load). One step deep, like mcast, but
 *   plain stores instead of atomics: when PEs take turns on a core, each
 *   needs to run once per barrier, not once per tree level.
 * word: like a2a, but every member kicks its phase byte into one word of
 *   team rank 0's, which all members poll where it is mapped (shm, teams
 *   of up to 8). The word's cache line is the only one that moves: at 2
 *   PEs the later arrival's store finds the earlier one's byte already in
 *   the line it took, and leaves at once; the earlier one then reads the
 *   line once. Two separate lines (a2a, dissem) each pay a store's
 *   ownership transfer and a poller's miss (one line costs about a one-way
 *   cache-line latency, two lines twice that: bench/README.md, "Measurements behind choices in the code").
 * auto: measured once per team (its first collective), the fastest kept;
 *   team rank 0's measurement decides and the tree carries it to everyone.
 *
 * The trees that carry data (small reductions and broadcasts) are in tree.c.
 *
 * All phases come from per-team counters that advance identically on every
 * member; the words only grow (or step through byte phases that differ
 * from the previous one), so a member already in the next barrier cannot
 * confuse a slow one.
 */
#include "coll.h"

#define KUMI_CALIBRATE_WARMUP 20
#define KUMI_CALIBRATE_ITERS  200
#define KUMI_CALIBRATE_PASSES 3

static inline uint64_t kumi_phase_word(uint64_t mask, uint8_t phase)
{
    return mask & (0x0101010101010101ull * phase);
}

int kumi_coll_tree(const char *call, struct kumi_team *t, struct kumi_coll_team *st)
{
    struct kumi_tp    *tp      = &kumi_rt.tp;
    const size_t       base    = t->llcm_off;
    const uint64_t     epoch   = ++st->epoch;
    const uint8_t      phase   = (uint8_t)epoch;   /* consecutive barriers differ */
    volatile uint64_t *arrive  = (volatile uint64_t *)kumi_coll_llcm(t, KUMI_COLL_ARRIVE);
    volatile uint64_t *release = (volatile uint64_t *)kumi_coll_llcm(t, KUMI_COLL_RELEASE);
    const int          poll    = st->release == KUMI_RELEASE_POLL;
    int                rc;

    /* up: one masked 8-byte load sees every child's byte */
    if (st->nchild > 0) {
        rc = kumi_rt_wait_team(call, arrive, 8, KUMI_CMP_EQ,
                               kumi_phase_word(st->child_mask, phase), st->child_mask);
        if (rc != KUMI_OK)
            return rc;
    }
    if (st->parent >= 0) {
        rc = kumi_tp_kick(tp, t->pes[st->parent], base + KUMI_COLL_ARRIVE + (size_t)st->index,
                          phase, 1);
        if (rc != KUMI_OK)
            return rc;
        if (poll)   /* root_llcm is set: kumi_coll_release_for */
            return kumi_coll_wait(call, st->root_llcm + KUMI_COLL_RELEASE, KUMI_CMP_GE, epoch);
        rc = kumi_coll_wait(call, release, KUMI_CMP_GE, epoch);
        if (rc != KUMI_OK)
            return rc;
    }
    if (poll) {   /* the root: one store releases everyone */
        __atomic_store_n(release, epoch, __ATOMIC_RELEASE);
        return KUMI_OK;
    }
    for (int c = 0; c < st->nchild; c++) {
        rc = kumi_tp_kick(tp, t->pes[st->child0 + c], base + KUMI_COLL_RELEASE, epoch, 8);
        if (rc != KUMI_OK)
            return rc;
    }
    return KUMI_OK;
}

static int kumi_barrier_dissem(const char *call, struct kumi_team *t, struct kumi_coll_team *st)
{
    struct kumi_tp    *tp    = &kumi_rt.tp;
    const uint64_t     epoch = ++st->epoch;
    volatile uint64_t *slot  = (volatile uint64_t *)kumi_coll_llcm(t, KUMI_COLL_DISSEM);
    int                rc;

    for (int k = 0, dist = 1; dist < t->size; k++, dist <<= 1) {
        int partner = t->pes[(t->rank + dist) % t->size];
        rc = kumi_tp_kick(tp, partner, t->llcm_off + KUMI_COLL_DISSEM + 8 * (size_t)k, epoch, 8);
        if (rc == KUMI_OK)
            rc = kumi_coll_wait(call, &slot[k], KUMI_CMP_GE, epoch);
        if (rc != KUMI_OK)
            return rc;
    }
    return KUMI_OK;
}

/* Cenju-4 C: a remote atomic add on one counter (team rank 0's) that
 * everyone polls. Where the transport does not map peer memory, or waiters
 * may sleep (a remote store rings no doorbell of ours), rank 0 polls it
 * alone and releases the others with kicks. */
static int kumi_barrier_counter(const char *call, struct kumi_team *t, struct kumi_coll_team *st)
{
    struct kumi_tp *tp     = &kumi_rt.tp;
    const uint64_t  round  = ++st->counter_round;
    const uint64_t  target = round * (uint64_t)t->size;
    volatile void  *shared = NULL;
    uint64_t        old;
    int             rc;

    rc = kumi_tp_atomic(tp, t->pes[0], KUMI_SEG_LLCM, t->llcm_off + KUMI_COLL_COUNTER,
                        KUMI_AMO_FETCH_ADD, 8, 1, 0, &old);
    if (rc != KUMI_OK)
        return rc;
    if (st->release == KUMI_RELEASE_POLL)
        shared = st->root_llcm + KUMI_COLL_COUNTER;
    if (shared != NULL)    /* the last to arrive knows from the add itself */
        return old + 1 == target ? KUMI_OK : kumi_coll_wait(call, shared, KUMI_CMP_GE, target);
    if (t->rank != 0)
        return kumi_coll_wait(call, kumi_coll_llcm(t, KUMI_COLL_CRELEASE), KUMI_CMP_GE, round);
    rc = kumi_coll_wait(call, kumi_coll_llcm(t, KUMI_COLL_COUNTER), KUMI_CMP_GE, target);
    for (int r = 1; r < t->size && rc == KUMI_OK; r++)
        rc = kumi_tp_kick(tp, t->pes[r], t->llcm_off + KUMI_COLL_CRELEASE, round, 8);
    return rc;
}

/* Cenju-4 D: the arrival is multicast; everyone polls its own counter. */
static int kumi_barrier_mcast(const char *call, struct kumi_team *t, struct kumi_coll_team *st)
{
    struct kumi_tp *tp    = &kumi_rt.tp;
    const uint64_t  round = ++st->mcast_round;
    int             rc    = KUMI_OK;

    for (int k = 1; k <= t->size && rc == KUMI_OK; k++)   /* staggered, ending with me */
        rc = kumi_tp_atomic(tp, t->pes[(t->rank + k) % t->size], KUMI_SEG_LLCM,
                            t->llcm_off + KUMI_COLL_MCAST, KUMI_AMO_ADD, 8, 1, 0, NULL);
    if (rc != KUMI_OK)
        return rc;
    return kumi_coll_wait(call, kumi_coll_llcm(t, KUMI_COLL_MCAST), KUMI_CMP_GE,
                          round * (uint64_t)t->size);
}

/* Cenju-4 A. Consecutive rounds use the two words in turn: a member one
 * barrier ahead writes the other word, and it cannot get two ahead (that
 * needs my arrival at the next one). A word's phase byte differs from the
 * one two rounds before, so what is left there never matches. */
static int kumi_barrier_a2a(const char *call, struct kumi_team *t, struct kumi_coll_team *st)
{
    struct kumi_tp *tp    = &kumi_rt.tp;
    const uint64_t  round = ++st->a2a_round;
    const uint8_t   phase = (uint8_t)round;
    const size_t    word  = KUMI_COLL_A2A + 8 * (size_t)(round & 1);
    const uint64_t  mask  = kumi_coll_byte_mask(t->size);
    volatile uint8_t *mine = kumi_coll_llcm(t, word);
    int             rc;

    for (int k = 1; k < t->size; k++) {   /* staggered */
        rc = kumi_tp_kick(tp, t->pes[(t->rank + k) % t->size],
                          t->llcm_off + word + (size_t)t->rank, phase, 1);
        if (rc != KUMI_OK)
            return rc;
    }
    __atomic_store_n(&mine[t->rank], phase, __ATOMIC_RELEASE);
    return kumi_rt_wait_team(call, mine, 8, KUMI_CMP_EQ, kumi_phase_word(mask, phase), mask);
}

/* The shared word (see the top): parities and phases as in a2a; a
 * member two rounds ahead is impossible for the same reason. */
static int kumi_barrier_word(const char *call, struct kumi_team *t, struct kumi_coll_team *st)
{
    struct kumi_tp   *tp    = &kumi_rt.tp;
    const uint64_t    round = ++st->word_round;
    const uint8_t     phase = (uint8_t)round;
    const size_t      word  = KUMI_COLL_WORD + 8 * (size_t)(round & 1);
    volatile uint8_t *w     = st->root_llcm + word;
    int               rc;

    if (t->rank == 0) {   /* my own word */
        __atomic_store_n(&w[0], phase, __ATOMIC_RELEASE);
    } else {
        rc = kumi_tp_kick(tp, t->pes[0], t->llcm_off + word + (size_t)t->rank, phase, 1);
        if (rc != KUMI_OK)
            return rc;
    }
    /* the others' bytes one by one: a load that overlaps my own store
     * still in the store buffer waits until the store has taken the line
     * (no forwarding into a wider load), which serialises what the one
     * line is meant to overlap (one 8-byte load was about twice as slow) */
    for (int r = 0; r < t->size; r++) {
        if (r == t->rank)
            continue;
        rc = kumi_rt_wait_fast(call, &w[r], 1, KUMI_CMP_EQ, phase, 1);
        if (rc != KUMI_OK)
            return rc;
    }
    return KUMI_OK;
}

int kumi_coll_barrier_run(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                          int algo)
{
    switch (algo) {
    case KUMI_BARRIER_DISSEM:  return kumi_barrier_dissem(call, t, st);
    case KUMI_BARRIER_COUNTER: return kumi_barrier_counter(call, t, st);
    case KUMI_BARRIER_MCAST:   return kumi_barrier_mcast(call, t, st);
    case KUMI_BARRIER_WORD:    /* needs rank 0's word mapped everywhere (agreed) */
        if (st->root_llcm != NULL && t->size <= KUMI_COLL_A2A_MAX)
            return kumi_barrier_word(call, t, st);
        return kumi_coll_barrier_run(call, t, st, KUMI_BARRIER_A2A);   /* its unmapped cousin */
    case KUMI_BARRIER_A2A:     /* larger teams: dissemination, its log-depth cousin */
        return t->size <= KUMI_COLL_A2A_MAX ? kumi_barrier_a2a(call, t, st)
                                            : kumi_barrier_dissem(call, t, st);
    default:                   return kumi_coll_tree(call, t, st);
    }
}

/* Times every algorithm on this team; rank 0's figures decide. The tree
 * (with kick release, which every transport has) carries the choice. The
 * candidates take turns over KUMI_CALIBRATE_PASSES passes and each keeps
 * its best pass: one pass of a few hundred barriers is a few microseconds,
 * short enough for one interrupt or a cold line to pick the wrong one. */
int kumi_coll_barrier_calibrate(struct kumi_team *t, struct kumi_coll_team *st)
{
    static const char call[] = "kumi_barrier";
    static const struct { int algo, release; } cand[] = {
        { KUMI_BARRIER_TREE, KUMI_RELEASE_KICK },   { KUMI_BARRIER_TREE, KUMI_RELEASE_POLL },
        { KUMI_BARRIER_DISSEM, KUMI_RELEASE_KICK }, { KUMI_BARRIER_COUNTER, KUMI_RELEASE_KICK },
        { KUMI_BARRIER_COUNTER, KUMI_RELEASE_POLL }, { KUMI_BARRIER_MCAST, KUMI_RELEASE_KICK },
        { KUMI_BARRIER_A2A, KUMI_RELEASE_KICK },    { KUMI_BARRIER_WORD, KUMI_RELEASE_KICK },
    };
    enum { NCAND = sizeof(cand) / sizeof(cand[0]) };
    const int fixed_release = kumi_rt.cfg.tree_release != KUMI_RELEASE_AUTO;
    /* polling a peer's word rings no doorbell of ours, but waits sleep only
     * after yielding for milliseconds, and then with a short timeout */
    const int can_poll = st->root_llcm != NULL;
    double    time[NCAND], best = 1e30;
    uint64_t  pick = 0;
    int       rc;

    st->barrier = KUMI_BARRIER_TREE;
    if (t->size == 1)
        return KUMI_OK;
    /* PEs that share cores time the scheduler, not the algorithms, and
     * every barrier of the passes yields and sleeps: on a loaded machine
     * the passes took most of a minute (every SHMEM program's shmem_init
     * makes a team; figures: bindings/shmem/README.md). Then the team takes
     * what the passes pick there when the machine is quiet: the word where
     * rank 0's line is mapped, else the tree. Rank 0's word decides (0:
     * time them), so the members never disagree. */
    uint64_t skip = 0;
    if (kumi_rt.boot.oversubscribed) {
        const int algo = can_poll && t->size <= KUMI_COLL_A2A_MAX ? KUMI_BARRIER_WORD
                                                                  : KUMI_BARRIER_TREE;
        for (uint64_t c = 0; c < NCAND && skip == 0; c++)
            if (cand[c].algo == algo && cand[c].release == KUMI_RELEASE_KICK)
                skip = c + 1;
    }
    int saved_release = st->release;
    st->release = KUMI_RELEASE_KICK;
    rc = kumi_coll_tree_data(call, t, st, &skip, sizeof(skip), NULL, 1);
    st->release = saved_release;
    if (rc != KUMI_OK)
        return rc;
    if (skip != 0 && skip <= NCAND) {
        pick = skip - 1;
        st->barrier = cand[pick].algo;
        st->release = kumi_coll_release_for(st, fixed_release ? kumi_rt.cfg.tree_release
                                                              : cand[pick].release);
        kumi_rt_log(KUMI_LOG_INFO, "team of %d: barrier %s (oversubscribed: not timed)",
                    t->size, kumi_cfg_choice_name("KUMI_BARRIER", st->barrier));
        return KUMI_OK;
    }
    for (int pass = 0; pass < KUMI_CALIBRATE_PASSES; pass++) {
        for (uint64_t c = 0; c < NCAND; c++) {
            if (pass == 0)
                time[c] = 1e30;
            const int one_step = cand[c].algo == KUMI_BARRIER_A2A
                                 || cand[c].algo == KUMI_BARRIER_WORD;
            if ((cand[c].release == KUMI_RELEASE_POLL && (!can_poll || fixed_release))
                || (cand[c].algo == KUMI_BARRIER_WORD && !can_poll)
                || (one_step && t->size > KUMI_COLL_A2A_MAX))
                continue;
            int saved = st->release;
            if (!fixed_release)
                st->release = cand[c].release;
            double t0 = 0;
            for (int i = 0; i < KUMI_CALIBRATE_WARMUP + KUMI_CALIBRATE_ITERS; i++) {
                if (i == KUMI_CALIBRATE_WARMUP)
                    t0 = kumi_wtime();
                rc = kumi_coll_barrier_run(call, t, st, cand[c].algo);
                if (rc != KUMI_OK)
                    return rc;
            }
            double dt = kumi_wtime() - t0;
            st->release = saved;
            if (dt < time[c])
                time[c] = dt;
        }
    }
    for (uint64_t c = 0; c < NCAND; c++)
        if (time[c] < best) {
            best = time[c];
            pick = c;
        }
    st->release = KUMI_RELEASE_KICK;
    rc = kumi_coll_tree_data(call, t, st, &pick, sizeof(pick), NULL, 1);
    if (rc != KUMI_OK)
        return rc;
    st->barrier = cand[pick].algo;
    st->release = kumi_coll_release_for(st, fixed_release ? kumi_rt.cfg.tree_release
                                                          : cand[pick].release);
    kumi_rt_log(KUMI_LOG_INFO, "team of %d: barrier %s%s (%.3f us)", t->size,
                kumi_cfg_choice_name("KUMI_BARRIER", st->barrier),
                st->barrier != KUMI_BARRIER_TREE && st->barrier != KUMI_BARRIER_COUNTER ? ""
                : st->release == KUMI_RELEASE_POLL ? ", polled" : ", kick release",
                best / KUMI_CALIBRATE_ITERS * 1e6);
    return KUMI_OK;
}

int kumi_barrier(kumi_team_t team)
{
    static const char call[] = "kumi_barrier";
    struct kumi_coll_team *st;
    int                    rc = kumi_coll_check(call, team);

    if (rc != KUMI_OK)
        return rc;
    rc = kumi_coll_state(call, team, &st);
    if (rc != KUMI_OK)
        return rc;
    /* my puts complete before anyone leaves: a quiet, unless the barrier's
     * own release stores already publish them (transport.h) */
    if (!kumi_rt.tp.kicks_publish)
        rc = kumi_tp_quiet(&kumi_rt.tp);
    if (rc != KUMI_OK || team->size == 1)
        return kumi_rt_peer_status(call, rc);
    rc = kumi_coll_barrier_run(call, team, st, st->barrier);
    if (rc == KUMI_OK)
        kumi_tp_settle(&kumi_rt.tp);   /* its own kicks need no quiet */
    return kumi_rt_peer_status(call, rc);
}
