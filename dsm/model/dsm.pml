/*
 * dsm.pml -- SPIN model of kumi's DSM coherence protocol (dsm/protocol.def).
 *
 * The transitions come from the table itself: table.pml is generated from
 * dsm/protocol.def by gen.py (cpu_table(), cache_table(), dir_table()). This file is
 * the world around it, written to match dsm/protocol.c and dsm/dsm.c: the
 * meaning of every action bit (protocol.h), the guards, ack counting, the
 * messages, the home's deferred queue and the CPU's accesses.
 *
 *   NPE PEs, NB blocks, block b homed at PE b. Every PE is a cache (of
 *   every block) and the directory of the blocks it homes.
 *   One FIFO channel per ordered pair of PEs, a PE to itself included:
 *   the home sends itself messages through its own inbox, as the C code
 *   does. A pair delivers in order; different pairs are not ordered.
 *   Each PE is one process that handles the head message of any of its
 *   input channels, or, without an outstanding miss, makes a LOAD or a
 *   STORE to a block: a hit completes at once, a miss runs the CACHE row
 *   for LOAD/STORE and the PE then only serves messages until the miss
 *   completes (one outstanding miss per PE, as kumi_dsm.pend). Handling
 *   one message (a whole dir_message() with its replays) is one atomic
 *   step, as in the C engine. The access a miss waited for happens when
 *   it completes (dsm.c stops draining right after the completion).
 *
 * Data. What matters is whether a copy holds the last write, so a copy
 * (and a data message) holds FRESH (the last write of the block), STALE
 * (an older write) or FLAG (the flag pattern of an invalid copy). A
 * store makes the writer's copy FRESH and every other copy of the block,
 * in caches and in messages in flight, STALE: exactly "value == latest"
 * with unbounded write counters, without their state space (a store hit
 * changes nothing the protocol can see, so accesses need no bound).
 *
 * Checked (assertions; run.sh also requires no invalid end state):
 *   - no protocol violation: a (role, state, event) with no row or no
 *     guard that holds, and every check dsm/protocol.c makes before it
 *     calls kumi_dsm_violation (data / acks for no pending miss,
 *     requester not the sender, DONE/DONE_WB from a PE other than the
 *     pending requester, home copy not E for A_H_DOWNGRADE /
 *     A_H_INVALIDATE, write-back into a home copy in a wrong state);
 *   - after every step, for each block: single writer or many readers
 *     (at most one copy in E, and then none in S; SM_AD and the other
 *     pending states are not readable); every readable copy is FRESH;
 *     every copy in I holds the flag (dsm/check.h's load fast path
 *     returns any value but the flag without looking at the state);
 *     EXCL_HOME => the home's copy is E; SHARED => the home is a sharer
 *     and its copy is S or SM_AD; EXCL_REMOTE => the home's copy is not
 *     readable;
 *   - every load (hit, or completion of a LOAD miss) reads the last
 *     write, and a completed miss leaves the line readable / writable;
 *   - data messages never carry the flag pattern;
 *   - no channel and no deferred queue overflows (see CAP);
 *   - deadlock: a PE waiting for its miss is not at an end label, so a
 *     state where nothing can move while a miss is outstanding is an
 *     invalid end state;
 *   - quiescence: at any moment the process `quiesce` may stop all new
 *     accesses; the PEs then drain every message, and when nothing can
 *     move any more (timeout) every miss has completed, no directory is
 *     busy or holds deferred requests, and every directory entry agrees
 *     with the caches (owner / sharer set). So from every reachable
 *     state, once new accesses stop, every outstanding miss completes;
 *   - liveness (a separate search, see the end of this file): while the
 *     other PEs go on making accesses, every miss of PE LIVE_PE completes,
 *     provided every message is eventually handled.
 */

#define NPE   3
#define NB    2
#define HOME(b) (b)            /* block 0 at PE 0, block 1 at PE 1        */
#define STALE 0                /* data: an older write                    */
#define FRESH 1                /* data: the last write of the block       */
#define FLAG  2                /* data: the flag pattern (invalid copy)   */
#define NONE  255              /* no PE / acks not known yet (-1 in C)    */
/*
 * Channel capacity. The C inbox is an unbounded list, so the model must
 * not block a sender: a send to a full channel is an assertion failure,
 * not a wait (a blocking send would model a network kumi does not have,
 * and turn an overflow into a confusing deadlock or hide it behind one).
 * Every PE has at most one outstanding miss and every transaction puts
 * at most a couple of messages on one pair, so the number of messages in
 * flight on a pair is bounded: the search never finds more than 4 (with
 * CAP 4 it passes, with CAP 3 a send finds a full channel). CAP 5 leaves
 * one spare; reaching it means messages pile up: a bug.
 */
#ifndef CAP
#define CAP   5
#endif
#define QN    NPE              /* deferred queue per block: one request   */
                               /* per PE at most (one miss per PE)        */

/* a message: event, block, requester, acks, need_done, data */
chan ch[NPE * NPE] = [CAP] of { byte, byte, byte, byte, bit, byte };
#define CH(from, to) ch[(from) * NPE + (to)]

/* caches: the copy of block b at PE p is [p * NB + b] */
byte cst[NPE * NB];            /* state byte (C_*)                        */
byte cval[NPE * NB];           /* data: FRESH, STALE or FLAG              */
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
bit  dq_s[NB * QN];            /* ... and its live bit (STALE)            */
bit  stopping;                 /* ghost: no new accesses (quiesce)        */

/* Scratch of one atomic step (not part of the state). */
hidden byte blk, ev, m_src, m_r, m_acks, m_val, i, k, n, ne, ns, done_ev, ql;
hidden byte m_nd, mine, replay, completing;   /* 0 or 1 (hidden: not bit) */
hidden byte t_ev, t_blk, t_r, t_acks, t_nd, t_val;

#define CSTATE    cst[me * NB + blk]
#define CVAL      cval[me * NB + blk]
#define DSTATE    dst[blk]
#define EV        ev
#define HCST      cst[HOME(blk) * NB + blk]
#define HCVAL     cval[HOME(blk) * NB + blk]
#define READABLE(s) ((s) == C_S || (s) == C_E)
#define BUSY(d)     ((d) == D_BUSY_S || (d) == D_BUSY_X)

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
 * protocol.def: cpu_table(), cache_table() and dir_table(). Included after the macros
 * its inlines use (cpp expands them where the inline is defined); the
 * action inlines it calls follow. */
#include "table.pml"

inline send(to, t, r, acks, nd, v) {
  ql = len(CH(me, to));
  CHECK(ql < CAP, "channel overflow");
  printf("      send %e b%d to PE%d (r=%d acks=%d need_done=%d data=%d)\n",
         EVNAME(t), blk, to, r, acks, nd, v);
  CH(me, to)!t, blk, r, acks, nd, v
}

/* A store to blk by me: every other copy of the block, cached or in a
 * message in flight, now holds an older write. */
inline write_block() {
  for (i : 0 .. NPE - 1) {
    if :: i != me && cval[i * NB + blk] == FRESH -> cval[i * NB + blk] = STALE
       :: else -> skip
    fi
  }
  for (k : 0 .. NPE * NPE - 1) {
    n = len(ch[k]);
    do
    :: n > 0 ->
       ch[k]?t_ev, t_blk, t_r, t_acks, t_nd, t_val;
       if :: t_blk == blk && t_val == FRESH -> t_val = STALE :: else -> skip fi;
       ch[k]!t_ev, t_blk, t_r, t_acks, t_nd, t_val;
       n--
    :: else -> break
    od
  }
  CVAL = FRESH
}

/* ------------------------------------------------ actions, cache role
 * r = m_r (the requester named by the message), home = HOME(blk). */
inline A_FILL() {
  CHECK(m_val != FLAG, "a data message carries the flag");
  CVAL = m_val
}
/* A request's acks field is the C code's miss number (STALE), abstracted
 * to a bit: 1 while the miss that sent it is pending, 0 once it has
 * completed (see requests_stale()), which is exactly "pend.active &&
 * pend.seq == m->acks". Only the home's own requests are ever tested, so
 * requests to another PE carry 0 (fewer states). */
#define LIVE (HOME(blk) == me)
inline A_SEND_GETS()    { send(HOME(blk), EV_GETS, me, LIVE, 0, 0) }
inline A_SEND_GETX()    { send(HOME(blk), EV_GETX, me, LIVE, 0, 0) }
inline A_SEND_UPG()     { send(HOME(blk), EV_UPG, me, LIVE, 0, 0) }
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

/* My miss completed: my own requests still in my inbox or in my
 * directory's queues belong to a miss that is no longer pending. */
inline requests_stale() {
  n = len(CH(me, me));
  do
  :: n > 0 ->
     CH(me, me)?t_ev, t_blk, t_r, t_acks, t_nd, t_val;
     if :: t_ev == EV_GETS || t_ev == EV_GETX || t_ev == EV_UPG -> t_acks = 0 :: else -> skip fi;
     CH(me, me)!t_ev, t_blk, t_r, t_acks, t_nd, t_val;
     n--
  :: else -> break
  od;
  for (i : 0 .. NB * QN - 1) {   /* (only the home's own are ever 1) */
    if :: HOME(i / QN) == me && dq_r[i] == me -> dq_s[i] = 0 :: else -> skip fi
  }
}

/* My pending miss on blk is satisfied: the access it waited for happens
 * now; the counters are reset (the C code resets them at the next miss).
 * A_COMPLETE is the last cache action (only the next state follows, which
 * the access does not read), so it runs right after the row, once: see
 * finish_miss() (pan.c stays small). */
inline complete_miss() {
  CHECK(pend[me] && pblk[me] == blk, "completion of no pending miss on this block");
  done_ev = pev[me];
  if
  :: pev[me] == EV_LOAD -> CHECK(CVAL == FRESH, "a load miss read a stale value")
  :: else -> write_block()
  fi;
  pend[me] = 0; pblk[me] = 0; pev[me] = 0;
  acks_need[me] = NONE; acks_got[me] = 0; need_done[me] = 0;
  requests_stale()
}
inline A_COMPLETE() { completing = 1 }
inline finish_miss() {
  if :: completing -> completing = 0; complete_miss() :: else -> skip fi;
  check_completed()
}

/* --------------------------------------- actions, directory role (me = home) */
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
     CHECK(m_val != FLAG, "a write-back carries the flag");
     HCVAL = m_val;
     if
     :: HCST == C_IS_D ->                    /* its own read waits: satisfied */
        HCST = C_S;
        CHECK(pend[me] && pblk[me] == blk && pev[me] == EV_LOAD,
              "the home's IS_D copy without its pending load");
        CHECK(HCVAL == FRESH, "a load miss read a stale value");
        pend[me] = 0; pblk[me] = 0; pev[me] = 0;
        acks_need[me] = NONE; acks_got[me] = 0; need_done[me] = 0;
        requests_stale()
     :: HCST == C_IM_AD -> HCST = C_SM_AD    /* its own write waits: an upgrade now */
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
inline A_H_FWD_GETS() {
  CHECK(owner[blk] < NPE, "a forward without an owner");
  send(owner[blk], EV_FWD_GETS, m_r, 0, 0, 0)
}
inline A_H_FWD_GETX() {
  CHECK(owner[blk] < NPE, "a forward without an owner");
  send(owner[blk], EV_FWD_GETX, m_r, 0, 0, 0)
}
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
  dq_s[blk * QN + dq_n[blk]] = m_acks;
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
      CHECK(!READABLE(cst[i * NB + k]) || cval[i * NB + k] == FRESH,
            "a readable copy does not hold the last write");
      /* the load check's fast path reads any value but the flag */
      CHECK(cst[i * NB + k] != C_I || cval[i * NB + k] == FLAG,
            "an invalid copy does not hold the flag pattern")
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

/* for trails: the block's copies and directory entry after a step */
inline log_block() {
  printf("    b%d:", blk);
  for (i : 0 .. NPE - 1) {
    printf(" PE%d %e(%d)", i, CNAME(cst[i * NB + blk]), cval[i * NB + blk])
  }
  printf(" | dir %e owner=%d sharers=%d pending=%d deferred=%d\n", DNAME(dst[blk]),
         owner[blk], sharers[blk], dpend[blk], dq_n[blk])
}

/* ------------------------------------------------------ message handling */
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
     CHECK(mine, "an ack for no pending miss");
     acks_got[me]++
  :: else -> skip
  fi;
  done_ev = NONE;
  cache_table();
  finish_miss()
}

inline dir_msg() {
  CHECK(HOME(blk) == me, "a request at a PE that is not the home");
  CHECK(m_r == m_src, "the requester is not the sender");
  replay = 0;
  do
  :: if
     :: (ev == EV_GETS || ev == EV_GETX || ev == EV_UPG) && m_r == me && !m_acks ->
        /* STALE (protocol.def): my own request, whose miss A_H_FILL satisfied */
        printf("    stale: dropped\n")
     :: else ->
        CHECK((ev != EV_DONE && ev != EV_DONE_WB) || m_r == dpend[blk],
              "a completion from a PE that is not the pending requester");
        done_ev = NONE;
        dir_table()
     fi;
     if
     :: !BUSY(DSTATE) -> dpend[blk] = NONE   /* read only while busy: canonical */
     :: else -> skip
     fi;
     /* dir_replay(): the queued requests for the block, in order, until busy */
     if
     :: replay && dq_n[blk] > 0 && !BUSY(DSTATE) ->
        ev = dq_t[blk * QN]; m_r = dq_r[blk * QN]; m_src = m_r;
        m_acks = dq_s[blk * QN]; m_nd = 0; m_val = 0;
        for (i : 1 .. QN - 1) {
          dq_t[blk * QN + i - 1] = dq_t[blk * QN + i];
          dq_r[blk * QN + i - 1] = dq_r[blk * QN + i];
          dq_s[blk * QN + i - 1] = dq_s[blk * QN + i]
        }
        dq_t[blk * QN + QN - 1] = 0; dq_r[blk * QN + QN - 1] = 0; dq_s[blk * QN + QN - 1] = 0;
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
  printf("PE%d: %e b%d from PE%d (r=%d acks=%d need_done=%d data=%d)\n",
         me, EVNAME(ev), blk, q, m_r, m_acks, m_nd, m_val);
  if
  :: ev == EV_GETS || ev == EV_GETX || ev == EV_UPG || ev == EV_DONE || ev == EV_DONE_WB ->
     dir_msg()
  :: else ->
     cache_msg()
  fi;
  log_block();
  check_invariants()
}

/* (the trailing `ne = 0` keeps the d_step's last loop inside it) */
#define RECV(q) d_step { CH(q, me)?ev, blk, m_r, m_acks, m_nd, m_val -> got(q); ne = 0 }

/* ------------------------------------------------------------ accesses */
#define CAN_HIT(b, e) ((e) == EV_LOAD && READABLE(cst[me * NB + (b)]) \
                       || (e) == EV_STORE && cst[me * NB + (b)] == C_E)

inline hit(b, e) {
  blk = b;
  printf("PE%d: %e b%d hit\n", me, EVNAME(e), blk);
  if
  :: e == EV_LOAD -> CHECK(CVAL == FRESH, "a load hit read a stale value")
  :: else -> write_block()
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
  cpu_table();
  finish_miss();
  log_block();
  check_invariants()
}

#define HIT(b, e)  d_step { !stopping && CAN_HIT(b, e) -> hit(b, e); ne = 0 }
#define MISS(b, e) d_step { !stopping && !CAN_HIT(b, e) -> miss(b, e); ne = 0 }

proctype pe(byte me) {
  /* idle: no outstanding miss. A state where every PE is idle with
   * nothing to receive is a valid end state (see quiesce). */
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
 * At any moment: no new accesses from then on. When nothing can move any
 * more, the system must be quiescent and coherent.
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
      CHECK(!BUSY(dst[k]), "quiescent with a busy directory");
      CHECK(dq_n[k] == 0, "quiescent with deferred requests");
      for (i : 0 .. NPE - 1) {
        CHECK(cst[i * NB + k] == C_I || READABLE(cst[i * NB + k]), "quiescent in a transient state");
        CHECK(dst[k] != D_SHARED || (cst[i * NB + k] == C_S) == ((sharers[k] >> i) & 1),
              "SHARED: the sharer set is not the set of S copies");
        CHECK(dst[k] != D_EXCL_HOME || (cst[i * NB + k] != C_I) == (i == HOME(k)),
              "EXCL_HOME: a copy other than the home's is valid");
        CHECK(dst[k] != D_EXCL_REMOTE || (cst[i * NB + k] == C_E) == (i == owner[k]),
              "EXCL_REMOTE: the owner's is not the one valid copy");
        CHECK(dst[k] != D_EXCL_REMOTE || cst[i * NB + k] != C_S, "EXCL_REMOTE with an S copy")
      }
      CHECK(dst[k] == D_SHARED || sharers[k] == 0, "a sharer set outside SHARED")
    };
    ne = 0
  }
}

init {
  d_step {
    init_names();
    for (k : 0 .. NB - 1) {    /* kumi_dsm_malloc: EXCL_HOME, home's copy E */
      dst[k] = D_EXCL_HOME; owner[k] = HOME(k); dpend[k] = NONE;
      for (i : 0 .. NPE - 1) { cval[i * NB + k] = FLAG }
      cst[HOME(k) * NB + k] = C_E; cval[HOME(k) * NB + k] = FRESH
    }
    for (i : 0 .. NPE - 1) { acks_need[i] = NONE }
  };
  atomic { run pe(0); run pe(1); run pe(2); run quiesce() }
}

/*
 * Liveness (run.sh's second search, spin -DLIVENESS -DLIVE_PE=p, pan -a):
 * if every PE's inbox is empty again and again (every message is
 * eventually handled: the C code drains the inbox from every wait and
 * every KUMI_DSM_POLL_EVERY-th back-edge), PE p's every miss completes,
 * whatever the other PEs keep doing. Without the assumption a PE could
 * make hits forever and never serve a request; process fairness alone
 * (pan -f) does not exclude that.
 */
#ifdef LIVENESS
#ifndef LIVE_PE
#define LIVE_PE 0
#endif
#define INBOX_EMPTY(q) (len(CH(0, q)) + len(CH(1, q)) + len(CH(2, q)) == 0)
ltl every_miss_completes {
  ([]<> INBOX_EMPTY(0) && []<> INBOX_EMPTY(1) && []<> INBOX_EMPTY(2))
  -> [](pend[LIVE_PE] -> <> !pend[LIVE_PE])
}
#endif
