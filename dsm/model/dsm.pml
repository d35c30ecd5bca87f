/*
 * dsm.pml -- SPIN model of kumi's DSM coherence protocol (dsm/protocol.def).
 *
 * The transitions come from the table itself: table.pml is generated from
 * dsm/protocol.def by gen.py (cache_table(), dir_table()). This file is
 * the world around it, written to match dsm/protocol.c and dsm/dsm.c:
 * the meaning of every action bit (protocol.h), the guards, ack counting,
 * messages, the home's deferred queue and the CPU's accesses.
 *
 *   NPE PEs, NB blocks, block b homed at PE b. Every PE is both a cache
 *   (of every block) and the directory (of the blocks it homes).
 *   One FIFO channel per ordered pair of PEs, a PE to itself included:
 *   the home sends itself messages through its own inbox as the C code
 *   does. A pair delivers in order; different pairs are not ordered.
 *   Each PE is one process that handles the head message of any of its
 *   input channels, or, without an outstanding miss, makes a LOAD or a
 *   STORE to a block: a hit completes at once, a miss runs the CACHE row
 *   for LOAD/STORE and the PE then only serves messages until the miss
 *   completes (one outstanding miss per PE, as kumi_dsm.pend). Handling
 *   one message (a whole dir_message() with its replays) is one atomic
 *   step, as in the C engine: nothing else runs in the middle.
 *
 * Data: every copy holds a small integer; a completed store writes
 * latest[b]+1 (mod NVAL: the value space stays finite, the accesses do
 * not have to be bounded); an invalid copy holds FLAG. Data messages
 * carry the sender's copy.
 *
 * Checked (assertions; run.sh also requires no invalid end state):
 *   - no protocol violation (a (role, state, event) with no row or no
 *     guard that holds, and every check dsm/protocol.c makes before it
 *     calls kumi_dsm_violation);
 *   - after every step, for each block: single writer or many readers
 *     (at most one copy in E, and then none in S); every readable copy
 *     (S or E) holds the last write; EXCL_HOME => home's copy is E;
 *     SHARED => the home is a sharer and its copy is S or SM_AD;
 *     EXCL_REMOTE => the home's copy is not readable;
 *   - every load (hit, or completion of a LOAD miss) reads latest[b],
 *     and a completed miss leaves the line readable / writable;
 *   - DONE / DONE_WB only from the pending requester;
 *   - no channel and no deferred queue overflows (see CAP);
 *   - deadlock: a PE waiting for its miss is not at an end label, so a
 *     state where nothing can move while a miss is outstanding is an
 *     invalid end state;
 *   - quiescence: at any moment the process `quiesce` may stop all new
 *     accesses; the PEs then drain every message, and when nothing can
 *     move any more (timeout) every miss has completed, no directory is
 *     busy or holds deferred requests, and the directory agrees with the
 *     caches (owner / sharer set). So from every reachable state, once
 *     new accesses stop, every outstanding miss completes.
 */

#define NPE   3
#define NB    2
#define HOME(b) (b)            /* block 0 at PE 0, block 1 at PE 1        */
#define NVAL  4                /* data values 0..NVAL-1                   */
#define FLAG  15               /* the flag pattern of an invalid copy     */
#define NONE  255              /* no PE / acks not known yet (-1 in C)    */
/*
 * Channel capacity. The C inbox is an unbounded list, so the model must
 * not block a sender: a send to a full channel is an assertion failure,
 * not a wait (a blocking send would model a network kumi does not have
 * and turn an overflow into a confusing deadlock). CAP is above the
 * largest number of messages that can ever be in flight on one pair
 * (each PE has one outstanding miss, so each (requester, block) pair of a
 * transaction puts at most a few messages on one channel; run.sh's
 * search shows 2 is never exceeded with 3 PEs and 2 blocks, see
 * README.md): reaching CAP would mean messages pile up, a real bug.
 */
#define CAP   3
#define QN    NPE              /* deferred queue per block: one request   */
                               /* per PE at most (one miss per PE)        */

/* a message: event, block, requester, acks, need_done, data */
chan ch[NPE * NPE] = [CAP] of { byte, byte, byte, byte, bit, byte };
#define CH(from, to) ch[(from) * NPE + (to)]

/* caches: copy of block b at PE p is [p * NB + b] */
byte cst[NPE * NB];            /* state byte (C_*)                        */
byte cval[NPE * NB];           /* the data                                */
/* kumi_dsm.pend of each PE */
bit  pend[NPE];                /* active                                  */
byte pblk[NPE];                /* the block that missed                   */
byte pev[NPE];                 /* EV_LOAD / EV_STORE                      */
byte acks_need[NPE];           /* NONE until DATA_E / GRANT               */
byte acks_got[NPE];
bit  need_done[NPE];
/* directory entries, at each block's home */
byte dst[NB];                  /* D_*                                     */
byte owner[NB];
byte sharers[NB];              /* bit per PE                              */
byte dpend[NB];                /* pending requester while BUSY            */
byte dq_t[NB * QN];            /* deferred requests (event, requester),   */
byte dq_r[NB * QN];            /* in arrival order                        */
byte dq_n[NB];
/* ghost */
byte latest[NB];               /* the last value written                  */
bit  stopping;                 /* no new accesses (quiesce)               */

/* Scratch of one atomic step (not part of the state). */
hidden byte blk, ev, m_src, m_r, m_acks, m_val, i, k, ne, ns, done_ev, ql;
hidden byte m_nd, mine, replay;   /* 0 or 1 (hidden: not bit) */

#define CSTATE    cst[me * NB + blk]
#define CVAL      cval[me * NB + blk]
#define DSTATE    dst[blk]
#define EV        ev
#define HCST      cst[HOME(blk) * NB + blk]
#define HCVAL     cval[HOME(blk) * NB + blk]
#define READABLE(s) ((s) == C_S || (s) == C_E)

/* a failed check prints what it is (shown by `spin -t`), then asserts */
#define CHECK(c, msg) if :: (c) -> skip :: else -> printf(msg); printf("\n"); assert(c) fi

/* ------------------------------------------------------------ guards */
#define G_ALWAYS      true
#define G_ACKS_DONE   (acks_need[me] != NONE && acks_got[me] == acks_need[me])
#define G_ACKS_MORE   (!G_ACKS_DONE)
#define G_R_IN_S      (((sharers[blk] >> m_r) & 1) == 1)
#define G_R_NOT_IN_S  (!G_R_IN_S)
#define G_R_IS_HOME   (m_r == me)
#define G_R_REMOTE    (m_r != me)

/* The names (C_*, D_*, EV_*) and the transitions, generated from
 * protocol.def: cache_table() and dir_table(). Included here, after the
 * macros its inlines use (cpp expands them where the inline is defined);
 * the action inlines it calls follow. */
#include "table.pml"

inline send(to, t, r, acks, nd, v) {
  ql = len(CH(me, to));
  CHECK(ql < CAP, "channel overflow");
  printf("      send %e b%d to PE%d (r=%d acks=%d need_done=%d data=%d)\n", EVNAME(t), blk, to, r, acks, nd, v);
  CH(me, to)!t, blk, r, acks, nd, v
}

/* -------------------------------------------- actions, cache role
 * r = m_r (the requester named by the message), home = HOME(blk). */
inline A_FILL() {
  CHECK(m_val != FLAG, "data message carries the flag");
  CVAL = m_val
}
inline A_SEND_GETS()    { send(HOME(blk), EV_GETS, me, 0, 0, 0) }
inline A_SEND_GETX()    { send(HOME(blk), EV_GETX, me, 0, 0, 0) }
inline A_SEND_UPG()     { send(HOME(blk), EV_UPG, me, 0, 0, 0) }
inline A_SEND_DATA_S()  { send(m_r, EV_DATA_S, m_r, 0, 1, CVAL) }
inline A_SEND_DATA_E()  { send(m_r, EV_DATA_E, m_r, 0, 1, CVAL) }
inline A_SEND_INV_ACK() { send(m_r, EV_INV_ACK, m_r, 0, 0, 0) }
inline A_DONE_IF_ASKED() {
  if :: need_done[me] -> send(HOME(blk), EV_DONE, me, 0, 0, 0) :: else -> skip fi
}
inline A_DONE_WB_IF_ASKED() {
  if :: need_done[me] -> send(HOME(blk), EV_DONE_WB, me, 0, 0, CVAL) :: else -> skip fi
}
inline A_INVALIDATE()   { CVAL = FLAG }
/* the miss is satisfied: the access it waited for happens now */
inline complete_miss() {
  CHECK(pend[me] && pblk[me] == blk, "completion of no pending miss on this block");
  done_ev = pev[me];
  if
  :: pev[me] == EV_LOAD ->
     CHECK(CVAL == latest[blk], "a load miss read a stale value")
  :: else ->
     latest[blk] = (latest[blk] + 1) % NVAL;
     CVAL = latest[blk]
  fi;
  pend[me] = 0; pblk[me] = 0; pev[me] = 0;
  acks_need[me] = NONE; acks_got[me] = 0; need_done[me] = 0
}
inline A_COMPLETE() { complete_miss() }

/* ------------------------------------ actions, directory role (me = home) */
inline count_others() {        /* k = |S \ {r}| */
  k = 0;
  for (i : 0 .. NPE - 1) {
    if :: i != m_r && ((sharers[blk] >> i) & 1) -> k++ :: else -> skip fi
  }
}
/* the write-back's data into the home's copy, by the home cache's state */
inline A_H_FILL() {
  if
  :: HCST == C_I || HCST == C_IS_D || HCST == C_IM_AD ->
     CHECK(m_val != FLAG, "write-back carries the flag");
     HCVAL = m_val;
     if
     :: HCST == C_IM_AD -> HCST = C_SM_AD    /* its own write waits: now an upgrade */
     :: HCST == C_IS_D ->                    /* its own read waits: satisfied */
        HCST = C_S;
        CHECK(pev[me] == EV_LOAD, "the home's IS_D miss is not a load");
        complete_miss();
        check_completed()
     :: else -> HCST = C_S
     fi
  :: HCST == C_S || HCST == C_SM_AD -> skip  /* the home was the requester */
  :: else ->
     printf("protocol violation: write-back while the home's copy is %e\n", CNAME(HCST));
     assert(false)
  fi
}
inline A_H_DATA_S() { send(m_r, EV_DATA_S, m_r, 0, 0, HCVAL) }
inline A_H_DATA_E() { count_others(); send(m_r, EV_DATA_E, m_r, k, (k > 0 || m_r == me), HCVAL) }
inline A_H_GRANT()  { count_others(); send(m_r, EV_GRANT, m_r, k, 1, 0) }
inline A_H_INVS() {
  for (i : 0 .. NPE - 1) {
    if :: i != m_r && ((sharers[blk] >> i) & 1) -> send(i, EV_INV, m_r, 0, 0, 0) :: else -> skip fi
  }
}
inline A_H_FWD_GETS() { CHECK(owner[blk] < NPE, "forward without an owner"); send(owner[blk], EV_FWD_GETS, m_r, 0, 0, 0) }
inline A_H_FWD_GETX() { CHECK(owner[blk] < NPE, "forward without an owner"); send(owner[blk], EV_FWD_GETX, m_r, 0, 0, 0) }
inline A_H_DOWNGRADE() {
  CHECK(HCST == C_E, "home copy not exclusive in EXCL_HOME");
  HCST = C_S
}
inline A_H_INVALIDATE() {
  CHECK(HCST == C_E, "home copy not exclusive in EXCL_HOME");
  HCVAL = FLAG; HCST = C_I
}
inline A_H_ADD_R() { sharers[blk] = sharers[blk] | (1 << m_r) }
inline A_H_SHARERS_HOME_R() {
  sharers[blk] = (1 << me) | (1 << m_r); owner[blk] = NONE
}
inline A_H_SHARERS_HOME_OWNER_R() {
  CHECK(owner[blk] < NPE, "no owner to add to the sharers");
  sharers[blk] = (1 << me) | (1 << owner[blk]) | (1 << m_r); owner[blk] = NONE
}
inline A_H_OWNER_R()   { sharers[blk] = 0; owner[blk] = m_r }
inline A_H_PENDING_R() { dpend[blk] = m_r }
inline A_H_DEFER() {
  CHECK(dq_n[blk] < QN, "deferred queue overflow");
  dq_t[blk * QN + dq_n[blk]] = ev; dq_r[blk * QN + dq_n[blk]] = m_r;
  dq_n[blk]++
}
/* dir_replay() runs after the row has set the next state: see dir_msg() */
inline A_H_REPLAY() { replay = 1 }

/* ------------------------------------------------------------ checks */
inline check_invariants() {
  for (k : 0 .. NB - 1) {
    ne = 0; ns = 0;
    for (i : 0 .. NPE - 1) {
      if
      :: cst[i * NB + k] == C_E -> ne++
      :: cst[i * NB + k] == C_S -> ns++
      :: else -> skip
      fi;
      CHECK(!READABLE(cst[i * NB + k]) || cval[i * NB + k] == latest[k],
            "a readable copy does not hold the last write")
    }
    CHECK(ne <= 1 && (ne == 0 || ns == 0), "single writer or many readers");
    CHECK(dst[k] != D_EXCL_HOME || cst[HOME(k) * NB + k] == C_E,
          "EXCL_HOME but the home's copy is not E");
    CHECK(dst[k] != D_SHARED || ((sharers[k] >> HOME(k)) & 1),
          "SHARED but the home is not a sharer");
    CHECK(dst[k] != D_SHARED || cst[HOME(k) * NB + k] == C_S
          || cst[HOME(k) * NB + k] == C_SM_AD,
          "SHARED but the home's copy is not S or SM_AD");
    CHECK(dst[k] != D_EXCL_REMOTE || !READABLE(cst[HOME(k) * NB + k]),
          "EXCL_REMOTE but the home's copy is readable")
  }
}

/* a completed miss leaves the line usable for its access */
inline check_completed() {
  CHECK(done_ev != EV_LOAD || READABLE(CSTATE), "a completed load miss left the line unreadable");
  CHECK(done_ev != EV_STORE || CSTATE == C_E, "a completed store miss left the line not exclusive")
}

/* ------------------------------------------------------ message handling */
/* for trails: the block's copies and directory entry after a step */
inline log_block() {
  printf("    b%d:", blk);
  for (i : 0 .. NPE - 1) {
    printf(" PE%d %e(%d)", i, CNAME(cst[i * NB + blk]), cval[i * NB + blk])
  }
  printf(" | dir %e owner=%d sharers=%d pending=%d deferred=%d latest=%d\n", DNAME(dst[blk]), owner[blk], sharers[blk],
         dpend[blk], dq_n[blk], latest[blk])
}

inline cache_msg() {
  mine = (pend[me] && pblk[me] == blk);
  /* ack counting belongs to the event (protocol.def) */
  if
  :: ev == EV_DATA_E || ev == EV_GRANT ->
     CHECK(mine, "data for no pending miss");
     acks_need[me] = m_acks; need_done[me] = m_nd
  :: ev == EV_DATA_S ->
     CHECK(mine, "data for no pending miss");
     need_done[me] = m_nd
  :: ev == EV_INV_ACK ->
     CHECK(mine, "ack for no pending miss");
     acks_got[me]++
  :: else -> skip
  fi;
  done_ev = NONE;
  cache_table();
  check_completed()
}

inline dir_msg() {
  CHECK(HOME(blk) == me, "request at a PE that is not the home");
  CHECK(m_r == m_src, "requester is not the sender");
  replay = 0;
  do
  :: CHECK((ev != EV_DONE && ev != EV_DONE_WB) || m_r == dpend[blk],
           "completion from a PE that is not the pending requester");
     dir_table();
     if
     :: DSTATE != D_BUSY_S && DSTATE != D_BUSY_X -> dpend[blk] = NONE  /* canonical */
     :: else -> skip
     fi;
     /* dir_replay(): queued requests for the block, in order, until busy */
     if
     :: replay && dq_n[blk] > 0 && DSTATE != D_BUSY_S && DSTATE != D_BUSY_X ->
        ev = dq_t[blk * QN]; m_r = dq_r[blk * QN]; m_src = m_r;
        m_acks = 0; m_nd = 0; m_val = 0;
        for (i : 1 .. QN - 1) {
          dq_t[blk * QN + i - 1] = dq_t[blk * QN + i];
          dq_r[blk * QN + i - 1] = dq_r[blk * QN + i]
        }
        dq_t[blk * QN + QN - 1] = 0; dq_r[blk * QN + QN - 1] = 0;
        dq_n[blk]--;
        printf("    replay %e b%d from PE%d\n", EVNAME(ev), blk, m_r)
     :: else -> break
     fi
  od;
  replay = 0
}

/* one message from PE q is in ev, blk, m_r, m_acks, m_nd, m_val */
inline got(q) {
  m_src = q;
  printf("PE%d: %e b%d from PE%d (r=%d acks=%d need_done=%d data=%d)\n", me, EVNAME(ev), blk, q, m_r, m_acks, m_nd, m_val);
  if
  :: ev == EV_GETS || ev == EV_GETX || ev == EV_UPG || ev == EV_DONE || ev == EV_DONE_WB ->
     dir_msg()
  :: else ->
     cache_msg()
  fi;
  log_block();
  check_invariants()
}

#define RECV(q) d_step { CH(q, me)?ev, blk, m_r, m_acks, m_nd, m_val -> got(q); ne = 0 }

/* ------------------------------------------------------------ accesses */
#define CAN_HIT(b, e) ((e) == EV_LOAD && READABLE(cst[me * NB + (b)]) \
                       || (e) == EV_STORE && cst[me * NB + (b)] == C_E)

inline hit(b, e) {
  blk = b;
  printf("PE%d: %e b%d hit\n", me, EVNAME(e), blk);
  if
  :: e == EV_LOAD -> CHECK(CVAL == latest[blk], "a load hit read a stale value")
  :: else -> latest[blk] = (latest[blk] + 1) % NVAL; CVAL = latest[blk]
  fi;
  check_invariants()
}

inline miss(b, e) {            /* dsm_line() + kumi_dsm_cpu_event() */
  blk = b; ev = e;
  printf("PE%d: %e b%d miss\n", me, EVNAME(e), blk);
  pend[me] = 1; pblk[me] = b; pev[me] = e;
  acks_need[me] = NONE; acks_got[me] = 0; need_done[me] = 0;
  m_r = me; m_src = me; m_acks = 0; m_nd = 0; m_val = 0;
  done_ev = NONE;
  cache_table();
  check_completed();
  log_block();
  check_invariants()
}

#define HIT(b, e)  d_step { !stopping && CAN_HIT(b, e) -> hit(b, e); ne = 0 }
#define MISS(b, e) d_step { !stopping && !CAN_HIT(b, e) -> miss(b, e); ne = 0 }

proctype pe(byte me) {
  /* idle: no outstanding miss; a state where every PE is idle and has
   * nothing to read is a valid end state (see quiesce) */
end_idle:
  do
  :: RECV(0)
  :: RECV(1)
  :: RECV(2)
  :: HIT(0, EV_LOAD)
  :: HIT(0, EV_STORE)
  :: HIT(1, EV_LOAD)
  :: HIT(1, EV_STORE)
  :: MISS(0, EV_LOAD);  goto waiting
  :: MISS(0, EV_STORE); goto waiting
  :: MISS(1, EV_LOAD);  goto waiting
  :: MISS(1, EV_STORE); goto waiting
  od;
  /* blocked on the miss, serving messages (miss_wait()); no end label */
waiting:
  do
  :: !pend[me] -> goto end_idle
  :: RECV(0)
  :: RECV(1)
  :: RECV(2)
  od
}

/*
 * At any moment: no new accesses. When nothing can move any more, the
 * system must be quiescent and coherent.
 */
proctype quiesce() {
  stopping = 1;
  timeout;
  d_step {
    for (i : 0 .. NPE - 1) {
      CHECK(!pend[i], "quiescent with a miss outstanding");
      for (k : 0 .. NPE - 1) { ql = len(CH(i, k)); CHECK(ql == 0, "quiescent with a message in flight") }
    }
    for (k : 0 .. NB - 1) {
      CHECK(dst[k] != D_BUSY_S && dst[k] != D_BUSY_X, "quiescent with a busy directory");
      CHECK(dq_n[k] == 0, "quiescent with deferred requests");
      for (i : 0 .. NPE - 1) {
        CHECK(cst[i * NB + k] == C_I || READABLE(cst[i * NB + k]), "quiescent in a transient state");
        CHECK(dst[k] != D_SHARED || (READABLE(cst[i * NB + k]) == ((sharers[k] >> i) & 1)),
              "SHARED: the sharer set is not the set of S copies");
        CHECK(dst[k] != D_SHARED || cst[i * NB + k] != C_E, "SHARED with an E copy");
        CHECK(dst[k] != D_EXCL_HOME || (cst[i * NB + k] == C_E) == (i == HOME(k)),
              "EXCL_HOME: a copy other than the home's is valid");
        CHECK(dst[k] != D_EXCL_REMOTE || (cst[i * NB + k] == C_E) == (i == owner[k]),
              "EXCL_REMOTE: the owner's is not the one valid copy");
        CHECK(dst[k] != D_EXCL_REMOTE || cst[i * NB + k] == C_E || cst[i * NB + k] == C_I,
              "EXCL_REMOTE with an S copy")
      }
      CHECK(dst[k] == D_SHARED || sharers[k] == 0, "a sharer set outside SHARED")
    }
  }
}

init {
  d_step {
    init_names();
    for (k : 0 .. NB - 1) {
      dst[k] = D_EXCL_HOME; owner[k] = HOME(k); dpend[k] = NONE;
      for (i : 0 .. NPE - 1) { cval[i * NB + k] = FLAG }
      cst[HOME(k) * NB + k] = C_E; cval[HOME(k) * NB + k] = 0
    }
    for (i : 0 .. NPE - 1) { acks_need[i] = NONE }
  };
  atomic { run pe(0); run pe(1); run pe(2); run quiesce() }
}
