/*
 * coll.h -- the collectives layer's internal state and helpers. Everything
 * here runs on the transport ops table and the runtime's waits only, so it
 * works on every transport; where a transport maps peer memory (peer_ptr),
 * the large-data paths read it in place instead of copying first.
 *
 * Each team has, on every member, a 4 KiB LLCM area (layout below) and,
 * from its first collective that moves more than a line, a heap scratch
 * area (KUMI_COLL_SCRATCH bytes: flag words, then data; kumi_coll_scratch).
 */
#ifndef KUMI_COLL_H
#define KUMI_COLL_H

#include <stdint.h>
#include <string.h>

#include "rt.h"
#include "reduce_op.h"

/* ------------------------------------------------- team LLCM area layout */
#define KUMI_COLL_ARRIVE      0     /* u64: tree arrival, one byte per child    */
#define KUMI_COLL_RELEASE     8     /* u64: tree release epoch                  */
#define KUMI_COLL_COUNTER     16    /* u64: counter/mcast barrier arrivals      */
#define KUMI_COLL_CRELEASE    24    /* u64: counter barrier release             */
#define KUMI_COLL_MCAST       32    /* u64: multicast barrier arrivals (mine)   */
#define KUMI_COLL_DISSEM      40    /* u64[KUMI_COLL_DISSEM_MAX]: rounds        */
#define KUMI_COLL_DISSEM_MAX  16
#define KUMI_COLL_A2A         168   /* u64[2]: all-to-all arrivals, by parity   */
#define KUMI_COLL_A2A_MAX     8     /* one byte per member                      */
#define KUMI_COLL_VALUES      192   /* [8] lines: children's partials + tag     */
#define KUMI_COLL_RESULT      (KUMI_COLL_VALUES + 8 * 64)  /* line: result + tag (704) */
#define KUMI_COLL_SMALL       56    /* bytes that ride the tree: a value and its
                                       8-byte tag share one cache line, so a
                                       partial moves up (and the result down)
                                       with one line transfer per edge        */
/* Where members do not map each other (tcp, ucx: root_llcm NULL), a
 * broadcast or reduction up to this many bytes goes down the tree in
 * KUMI_COLL_SMALL-byte pieces: one frame per piece and edge, where a stream
 * (coll.h, streams) costs a flag, a get's round trip and an
 * acknowledgement whatever the size (bench/README.md, "tcp collectives"). */
#define KUMI_COLL_PIECES_UNMAPPED 512
#define KUMI_COLL_TAG         56    /* tag's offset in a value/result line      */
#define KUMI_COLL_RD          768   /* [2 rounds][2 parities] lines: recursive doubling */
#define KUMI_COLL_RESULT1     1024  /* the second result line (odd tags)        */
#define KUMI_COLL_ACK         1088  /* u64[8]: child c consumed results up to tag */
#define KUMI_COLL_XCHG        1152  /* [2 parities][7] lines: all-exchange values */
#define KUMI_COLL_XCHG_MAX    8     /* members of the largest all-exchange team */
_Static_assert(KUMI_COLL_ACK + 64 <= KUMI_COLL_XCHG, "team area");
#define KUMI_COLL_BRING       2048  /* [KUMI_COLL_BRING_N] lines: eager broadcast */
#define KUMI_COLL_BRING_N     16    /* ring depth: calls a parent may run ahead */
#define KUMI_COLL_BACK        (KUMI_COLL_BRING + 64 * KUMI_COLL_BRING_N)  /* u64[8]:
                                       child c consumed broadcasts up to tag    */
_Static_assert(KUMI_COLL_XCHG + 2 * (KUMI_COLL_XCHG_MAX - 1) * 64 <= KUMI_COLL_BRING,
               "team area");
#define KUMI_COLL_HAND        (KUMI_COLL_BACK + 64)  /* [2 parities] lines: a root
                                       other than rank 0 hands its value to 0   */
#define KUMI_COLL_WORD        (KUMI_COLL_HAND + 2 * 64)  /* u64[2]: the shared-word
                                       barrier's arrivals, by parity (rank 0's
                                       are the ones in use), one line        */
#define KUMI_COLL_SLINE       (KUMI_COLL_WORD + 64)  /* 1 line (2 members, 8
                                       bytes, both parities), then [2 parities]
                                       x 4 lines: the shared-line reduction
                                       (rank 0's in use; kumi_coll_line_base) */
#define KUMI_COLL_SLINE_MAX   256   /* bytes of one call's area: 4 lines      */
_Static_assert(KUMI_COLL_WORD % 64 == 0
               && KUMI_COLL_SLINE + 64 + 2 * KUMI_COLL_SLINE_MAX <= KUMI_TEAM_LLCM_BYTES,
               "team area");

/* The global sum's result lines alternate by tag parity: a parent runs one
 * call ahead of a child, never two: before it reuses a line it waits for
 * the child's acknowledgement (KUMI_COLL_ACK) of the tag that last came
 * down in that line. */
static inline size_t kumi_coll_result_line(uint64_t tag)
{
    return (tag & 1) ? KUMI_COLL_RESULT1 : KUMI_COLL_RESULT;
}
_Static_assert(KUMI_COLL_DISSEM + 8 * KUMI_COLL_DISSEM_MAX <= KUMI_COLL_A2A, "dissem");
_Static_assert(KUMI_COLL_A2A + 16 <= KUMI_COLL_VALUES, "a2a");

/* ---------------------------------------------------- per-team state */
struct kumi_coll_team {
    int      barrier;          /* KUMI_BARRIER_* in use (never AUTO)      */
    int      release;          /* KUMI_RELEASE_KICK or _POLL              */
    int      radix;
    /* tree: team ranks */
    int      parent;           /* -1 at the root                          */
    int      child0, nchild;   /* children are child0 .. child0+nchild-1  */
    int      index;            /* my byte in my parent's arrival word     */
    uint64_t child_mask;       /* bytes of my arrival word in use         */
    int      small;            /* KUMI_REDUCE_SMALL_* for this team (never AUTO
                                  nor LINE: what runs where the line does not) */
    size_t   line;             /* small reductions take the shared lines
                                  where one call's slots fit in this many
                                  bytes (kumi_coll_line_fits); 0: never    */
    /* monotone counters, the same sequence on every member */
    uint64_t epoch;            /* tree barrier and dissemination phases   */
    uint64_t tag;              /* small reductions/broadcasts on the tree */
    /* recursive doubling and all-exchange calls, each its own sequence:
     * their lines alternate by parity, which must alternate from one call
     * of theirs to the next whatever other collectives run in between */
    uint64_t rd_tag, xchg_tag, line_tag;
    uint64_t btag;             /* eager broadcasts (their ring's sequence) */
    uint64_t result_tag[2];    /* last tag sent down in each result line  */
    uint64_t counter_round;    /* counter barrier rounds                  */
    uint64_t mcast_round;      /* multicast barrier rounds                */
    uint64_t a2a_round;        /* all-to-all barrier rounds               */
    uint64_t word_round;       /* shared-word barrier rounds              */
    uint64_t step;             /* scratch flag values                     */
    uint64_t ring;             /* streams: the next slot of the ring, counted
                                  in blocks (kumi_coll_stream_begin)        */
    /* shm fast paths, decided once per team (kumi_coll_state) */
    volatile uint8_t *root_llcm; /* team rank 0's LLCM area where every member
                                    maps it (agreed), else NULL: the polled
                                    releases need it                       */
    int      peers_mapped;     /* I map every member's heap (local view)  */
    /* scratch layout (data_bytes 0: no area yet, kumi_coll_scratch) */
    size_t   flags_off;        /* heap offset: u64 flags[KUMI_COLL_NFLAGS][size] */
    size_t   data_off;         /* heap offset: data area                  */
    size_t   data_bytes;
};

/* FLAG_A, FLAG_B: step values (monotone per pair); FLAG_D: where member
 * r's source of the current stream lies (kumi_coll_desc), not monotone */
enum { KUMI_COLL_FLAG_A, KUMI_COLL_FLAG_B, KUMI_COLL_FLAG_D, KUMI_COLL_NFLAGS };

/* The team's state in *out, created (and the barrier measured) on first
 * use; errors are reported for call and returned. */
int kumi_coll_state_make(const char *call, struct kumi_team *team, struct kumi_coll_team **out);
static inline int kumi_coll_state(const char *call, struct kumi_team *team,
                                  struct kumi_coll_team **out)
{
    if (team->coll != NULL) {
        *out = team->coll;
        return KUMI_OK;
    }
    return kumi_coll_state_make(call, team, out);
}

/* Before a collective's large-data path: the team's scratch area, taken
 * on first use (one small allreduce over the team picks the lowest area
 * free on every member, then a barrier once the flags are cleared). KUMI_OK
 * with st->data_bytes 0 when no area is free on all members (every member
 * sees the same): the caller then moves its data in KUMI_COLL_SMALL pieces
 * over the small-data paths, and the next call asks again. */
int kumi_coll_scratch_take(const char *call, struct kumi_team *t, struct kumi_coll_team *st);
static inline int kumi_coll_scratch(const char *call, struct kumi_team *t,
                                    struct kumi_coll_team *st)
{
    return st->data_bytes != 0 ? KUMI_OK : kumi_coll_scratch_take(call, t, st);
}

/* Common argument checks of every collective: state, team, membership
 * (the passing case inline; the function reports what fails). */
int kumi_coll_check_report(const char *call, struct kumi_team *team);
static inline int kumi_coll_check(const char *call, struct kumi_team *team)
{
    if (kumi_rt.state == 1 && team != NULL && team->rank >= 0)
        return KUMI_OK;
    return kumi_coll_check_report(call, team);
}

/* A collective's wait on an 8-byte word: kumi_rt_wait_team (it ends only
 * after every member has run; rt.h) */
static inline int kumi_coll_wait(const char *call, volatile void *addr, int cmp, uint64_t value)
{
    return kumi_rt_wait_team(call, addr, 8, cmp, value, ~0ull);
}

static inline volatile uint8_t *kumi_coll_llcm(const struct kumi_team *t, size_t off)
{
    return (volatile uint8_t *)kumi_rt.tp.local[KUMI_SEG_LLCM] + t->llcm_off + off;
}

static inline void *kumi_coll_heap(size_t off)
{
    return (uint8_t *)kumi_rt.tp.local[KUMI_SEG_HEAP] + off;
}

/* ----------------------------------------------------------- algorithms */
int kumi_coll_barrier_run(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                          int algo);
/* the tree barrier: byte flags up, release down (or polled) */
int kumi_coll_tree(const char *call, struct kumi_team *t, struct kumi_coll_team *st);
/* the tree with data: each node folds its children's partials (len <=
 * KUMI_COLL_SMALL bytes, count elements, fn may be NULL: keep mine) in a
 * fixed order; the root's acc comes back down to everyone */
int kumi_coll_tree_data(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                        void *acc, size_t len, kumi_coll_op_fn fn, size_t count);

/* n bytes of root's buf to every member in KUMI_COLL_SMALL pieces down the
 * eager tree (the path of a team without scratch). */
int kumi_coll_bcast_pieces(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                           void *buf, size_t n, int root);

/* Eager broadcast of len <= KUMI_COLL_SMALL bytes from team rank 0 down
 * the tree: no upward round. Each member has a ring of KUMI_COLL_BRING_N
 * lines, call t in line t % N; a child acknowledges every N/2 calls into
 * its parent's KUMI_COLL_BACK word, and a parent writes call t only once
 * the child has acknowledged t - N. So a parent runs up to N calls ahead:
 * when PEs take turns on cores, each turn carries many broadcasts. Another
 * root first hands its value to rank 0 in a line of rank 0's, by the
 * call's parity, and then takes it back from the ring like everyone (so it
 * cannot run two calls ahead of rank 0). */
int kumi_coll_tree_bcast(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                         void *acc, size_t len, int root);

/* Recursive doubling with data (teams of 2 or 4): log2(n) exchanges, each
 * one line transfer each way at once; partials are combined lower rank
 * first, so every member computes the same bits. A partner may already be
 * one call ahead (it needs nothing more from me to finish this one), never
 * two: lines alternate by the call's parity. */
int kumi_coll_rd_data(const char *call, struct kumi_team *t, struct kumi_coll_team *st, void *acc,
                      size_t len, kumi_coll_op_fn fn, size_t count);
static inline int kumi_coll_rd_ok(const struct kumi_team *t)
{
    return t->size == 2 || t->size == 4;
}

/* All-exchange with data (teams of up to KUMI_COLL_XCHG_MAX): every member
 * sends its value line to every other and folds all of them in rank order,
 * so every member computes the same bits. One step deep: when PEs take
 * turns on cores, a member needs to run once after the last arrival, not
 * once per tree level. Lines alternate by the call's parity (a member may
 * be one call ahead, never two: to finish a call it needs my value of it,
 * which I send only after I have read all of the call before). */
int kumi_coll_xchg_data(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                        void *acc, size_t len, kumi_coll_op_fn fn, size_t count);

/* The same exchange carrying blocks (len <= KUMI_COLL_SMALL, teams of up
 * to KUMI_COLL_XCHG_MAX): everyone's src lands in dst in rank order
 * (allgather), or with per_dest block r of src goes to member r, whose
 * dst gets it at my rank (alltoall). One step, one line per pair. */
int kumi_coll_xchg_copy(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                        void *dst, const void *src, size_t len, int per_dest);
static inline int kumi_coll_xchg_ok(const struct kumi_team *t, size_t len)
{
    return t->size <= KUMI_COLL_XCHG_MAX && len <= KUMI_COLL_SMALL;
}

/* The shared line (teams whose rank 0's LLCM every member maps): every
 * member writes its value and then the call's tag into team rank 0's
 * lines, polls them until every member's tag is the call's, and folds the
 * values in rank order (the same bits everywhere). Those lines are the
 * only ones that move: a member arriving after the others finds their
 * values in the line its own store took. A call's area is the members'
 * tags (8 bytes each, at fixed places) and then their values; the call's
 * parity picks one of two areas, as in the all-exchange, so a member one
 * call ahead never overwrites what the others still read:
 *   2 members of up to 8 bytes   both parities in the first line (32 bytes
 *                                each), always laid out alike;
 *   any other size that fits     the parity's own KUMI_COLL_SLINE_MAX
 *                                bytes after that line (up to 4 lines).
 * A tag is thus only ever read where tags are written, never from the
 * value bytes of a call of another size (the first layout did that: 2 PEs
 * alternating 8- and 16-byte reductions read a stale value as a tag and
 * folded it, in 1 of about 10^3-10^5 rounds). Where PEs spin (auto) a
 * call's area is held to one line; where they take turns it may span 4
 * (8 members of up to 24 bytes): each member writes two lines and reads a
 * few, where the all-exchange writes a line into every other member's
 * LLCM (the figures: bench/README.md, "Measurements behind choices in the code"). */
int kumi_coll_line_data(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                        void *acc, size_t len, kumi_coll_op_fn fn, size_t count);
static inline size_t kumi_coll_line_vlen(size_t len)
{
    return (len + 7) & ~(size_t)7;
}
/* bytes of one call's area: the tags, then the values */
static inline size_t kumi_coll_line_part(const struct kumi_team *t, size_t len)
{
    return (size_t)t->size * (8 + kumi_coll_line_vlen(len));
}
static inline int kumi_coll_line_fits(const struct kumi_team *t, const struct kumi_coll_team *st,
                                      size_t len)
{
    return kumi_coll_line_part(t, len) <= st->line;
}
/* the call's area (offset in the team's LLCM area) */
static inline size_t kumi_coll_line_base(const struct kumi_team *t, size_t len, uint64_t tag)
{
    if (t->size == 2 && len <= 8)   /* measured 2 PEs, 8 bytes, raw loads and stores: one
                                       line 0.023-0.025 us, two 0.043-0.048 us */
        return KUMI_COLL_SLINE + 32 * (size_t)(tag & 1);
    return KUMI_COLL_SLINE + 64 + KUMI_COLL_SLINE_MAX * (size_t)(tag & 1);
}

/* Which small-data reduction a team uses (KUMI_REDUCE_SMALL_*, never
 * AUTO nor LINE): decided once, into st->small, when the team's state is
 * made; and how many bytes of shared lines it takes where the slots fit
 * (st->line, once rank 0's mapping is agreed; 0: none). */
int    kumi_coll_small_algo(const struct kumi_team *t);
size_t kumi_coll_line_wanted(const struct kumi_coll_team *st);

/* A small reduction (len <= KUMI_COLL_SMALL bytes) by the algorithm the
 * team uses for its size: the shared line, rd, xchg or the tree (inline:
 * the 2-PE latency path) */
static inline int kumi_coll_reduce_small(const char *call, struct kumi_team *t,
                                         struct kumi_coll_team *st, void *acc, size_t len,
                                         kumi_coll_op_fn fn, size_t count)
{
    switch (kumi_coll_line_fits(t, st, len) ? KUMI_REDUCE_SMALL_LINE : st->small) {
    case KUMI_REDUCE_SMALL_LINE:
        return kumi_coll_line_data(call, t, st, acc, len, fn, count);
    case KUMI_REDUCE_SMALL_RD:
        return kumi_coll_rd_data(call, t, st, acc, len, fn, count);
    case KUMI_REDUCE_SMALL_XCHG:
        return kumi_coll_xchg_data(call, t, st, acc, len, fn, count);
    default:
        return kumi_coll_tree_data(call, t, st, acc, len, fn, count);
    }
}

/* memcpy for a small collective's few bytes: the common widths as
 * constant-size copies the compiler inlines, libc's call for the rest */
static inline void kumi_coll_copy(void *dst, const void *src, size_t n)
{
    switch (n) {
    case 4:  memcpy(dst, src, 4); break;
    case 8:  memcpy(dst, src, 8); break;
    case 16: memcpy(dst, src, 16); break;
    default: memcpy(dst, src, n);
    }
}

/* One step of the rank-order fold every small reduction ends with:
 * res = v0 op v1 op ... op vr, member r's value v (len bytes, count
 * elements) taken in. Every member folds in the same order: same bits. */
static inline void kumi_coll_fold(void *res, const volatile uint8_t *v, int r, size_t len,
                                  kumi_coll_op_fn fn, size_t count)
{
    if (r == 0)
        kumi_coll_copy(res, (const void *)v, len);
    else
        fn(res, (const void *)v, count);
}

/* The low n bytes of an 8-byte word (n <= 8): one byte flag per member. */
static inline uint64_t kumi_coll_byte_mask(int n)
{
    return n >= 8 ? ~0ull : (1ull << (8 * n)) - 1;
}

/* Scratch flags: set member r's flag f to v (ordered after my earlier
 * puts and local writes); wait until my flag f from member r reaches v. */
int kumi_coll_flag_set(struct kumi_team *t, struct kumi_coll_team *st, int f, int r,
                       uint64_t v);
int kumi_coll_flag_wait(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                        int f, int r, uint64_t v);
/* Sets flag f to v on every other member, then waits for theirs. */
int kumi_coll_exchange(const char *call, struct kumi_team *t, struct kumi_coll_team *st, int f,
                       uint64_t v);

/* The data area is used in two halves. The rule every large algorithm
 * keeps: a call writes only my half A before the first exchange of
 * FLAG_A, and nobody reads my half A after the exchange that closes a
 * block; my half B may still be read by a slow member until everyone's
 * next FLAG_A. So back-to-back collectives of any kind never clash. */
static inline size_t kumi_coll_half(const struct kumi_coll_team *st)
{
    return (st->data_bytes / 2) & ~(size_t)63;
}

/* Block size for the copy-through algorithms (broadcast, allgather,
 * alltoall): small enough that what one member copies in is still in the
 * shared cache when the others copy it out. */
#define KUMI_COLL_BLOCK ((size_t)128 << 10)
static inline size_t kumi_coll_block(const struct kumi_coll_team *st)
{
    size_t h = kumi_coll_half(st);
    return h < KUMI_COLL_BLOCK ? h : KUMI_COLL_BLOCK;
}

/* Load/store pointer to member r's memory at (seg, off), or NULL where the
 * transport does not map that PE (tcp maps only my own). The collectives
 * ask only here; every caller has a path on put/get/kick/atomic for NULL. */
static inline void *kumi_coll_peer_ptr(const struct kumi_team *t, int r, enum kumi_seg seg,
                                       size_t off)
{
    struct kumi_tp *tp = &kumi_rt.tp;
    return kumi_tp_peer_ptr(tp, t->pes[r], seg, off);
}

/* The release a team uses when want is asked for: polling one word of team
 * rank 0 needs every member to map it; otherwise the parents kick. */
static inline int kumi_coll_release_for(const struct kumi_coll_team *st, int want)
{
    return want == KUMI_RELEASE_POLL && st->root_llcm != NULL ? KUMI_RELEASE_POLL
                                                              : KUMI_RELEASE_KICK;
}

/* ------------------------------------------------------------ streams
 * How broadcast, allgather and alltoall move large data (team.c). A
 * writer makes its data available to every other member (the readers) in
 * nb blocks, one of two ways, chosen by the writer alone and told to the
 * readers in FLAG_D:
 *  - in place (desc != 0): the data lie in a segment peers can reach (the
 *    symmetric heap or static data), so readers copy straight from the
 *    writer's buffer (peer_ptr: one copy; tcp: one get, no staging). The
 *    writer signals every block at once;
 *  - through a ring (desc 0: private memory): block k goes into slot
 *    (first + k) % nslots of the writer's half A, which the writer reuses
 *    only once every reader has acknowledged the block that was in it.
 *    The ring spans the whole half A, so a slot comes back only after
 *    about that many bytes have passed: on this kind of machine, writing a
 *    slot whose lines the reader still holds costs several times a copy
 *    (bench/README.md, "Measurements behind choices in the code").
 * Flags: the writer raises FLAG_A to base + k + 1 at every reader once
 * block k is there; reader r acknowledges with FLAG_B = base + k + 1 at
 * the writer; before it returns, a writer waits for every reader's last
 * acknowledgement, so its buffer and slots are free again (the half-A
 * rule) and a stream never meets the previous call's. */
#define KUMI_COLL_STREAM_BLOCK ((size_t)64 << 10)   /* bytes of a slot */
struct kumi_coll_stream {
    uint64_t base;      /* flag values base + 1 .. base + nb               */
    size_t   blk;       /* bytes of a slot                                 */
    size_t   nslots;    /* slots in half A                                 */
    size_t   first;     /* slot of block 0                                 */
    size_t   nb;        /* blocks                                          */
};

/* Where buf (n bytes) lies, for readers on other members: (segment + 1)
 * << 56 | offset where it is all inside my heap or static data, else 0. */
static inline uint64_t kumi_coll_desc(const void *buf, size_t n)
{
    const struct kumi_tp *tp = &kumi_rt.tp;
    const uintptr_t       p  = (uintptr_t)buf;

    for (int seg = KUMI_SEG_HEAP; seg <= KUMI_SEG_DATA; seg++) {
        uintptr_t lo = (uintptr_t)tp->local[seg];
        if (tp->local[seg] != NULL && p >= lo && p - lo <= tp->seg_size[seg]
            && n <= tp->seg_size[seg] - (p - lo))
            return ((uint64_t)(seg + 1) << 56) | (uint64_t)(p - lo);
    }
    return 0;
}

/* A stream of nb blocks of up to blk bytes (blk is cut to a quarter of
 * half A where that is smaller; the same on every member): takes nb steps
 * and the ring's next nb slots. No communication. */
void kumi_coll_stream_begin(struct kumi_coll_team *st, struct kumi_coll_stream *s, size_t blk,
                            size_t nb);
/* The largest slot a stream may ask for (a quarter of half A, 64-aligned) */
static inline size_t kumi_coll_stream_max_blk(const struct kumi_coll_team *st, size_t want)
{
    size_t q = (kumi_coll_half(st) / 4) & ~(size_t)63;
    return want < q ? want : q;
}
/* Writer: tells every reader desc, then, in place, signals all blocks. */
int kumi_coll_stream_publish(struct kumi_team *t, struct kumi_coll_team *st,
                             const struct kumi_coll_stream *s, uint64_t desc);
/* Writer through the ring: waits until slot of block k is free, returns
 * its heap offset in *off */
int kumi_coll_stream_slot(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                          const struct kumi_coll_stream *s, size_t k, size_t *off);
/* Writer through the ring that also reads (allgather, alltoall), before
 * it reads block k: whether to write block w next -- every block up to k,
 * and beyond that the blocks whose slots are free without waiting (w <
 * nslots). A member whose readers are not running (PEs taking turns on
 * cores, or a busy machine) thus leaves all that fits before it waits for
 * anyone, so the readers find it there when they run, instead of one block
 * per turn; it never waits ahead of k, where a reader might be waiting for
 * it. */
static inline int kumi_coll_stream_ahead(const struct kumi_coll_stream *s, size_t w, size_t k)
{
    return w < s->nb && (w <= k || w < s->nslots);
}
/* Writer through the ring: block k is in its slot */
int kumi_coll_stream_signal(struct kumi_team *t, struct kumi_coll_team *st,
                            const struct kumi_coll_stream *s, size_t k);
/* Reader: waits for writer r's block k; its desc in *desc */
int kumi_coll_stream_wait(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                          const struct kumi_coll_stream *s, int r, size_t k, uint64_t *desc);
/* Reader: n bytes of writer r's block k into dst: in place from byte
 * buf_at of its buffer, through the ring from byte slot_at of the slot */
int kumi_coll_stream_read(struct kumi_team *t, const struct kumi_coll_team *st,
                          const struct kumi_coll_stream *s, int r, uint64_t desc, size_t k,
                          size_t buf_at, size_t slot_at, void *dst, size_t n);
/* Reader: done with writer r's block k (in place: only the last counts) */
int kumi_coll_stream_ack(struct kumi_team *t, struct kumi_coll_team *st,
                         const struct kumi_coll_stream *s, int r, uint64_t desc, size_t k);
/* Writer: waits for every reader's last acknowledgement */
int kumi_coll_stream_end(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                         const struct kumi_coll_stream *s);

/* Sets flag f of mine to v at every other member (one fence first). */
int kumi_coll_flag_set_others(struct kumi_team *t, struct kumi_coll_team *st, int f, uint64_t v);

/* Reads n bytes at byte at of member r's memory described by desc
 * (kumi_coll_desc): in place where mapped, else a get into tmp. */
const void *kumi_coll_peer_seg_data(struct kumi_team *t, int r, uint64_t desc, size_t at,
                                    size_t n, void *tmp, int *rc);

/* Reads n bytes at heap offset off of member r: in place where the
 * transport maps that member (nothing is copied), else a get into tmp
 * (which must then hold n bytes: callers allocate it unless
 * st->peers_mapped). Returns the pointer to use. */
const void *kumi_coll_peer_data(struct kumi_team *t, int r, size_t off, size_t n, void *tmp,
                                int *rc);

#endif /* KUMI_COLL_H */
