/*
 * protocol.h -- names for the rows of protocol.def (states, events, guards
 * and actions) and the table built from it. The semantics of every action
 * are written here once; dsm/protocol.c implements them and
 * dsm/model/dsm.pml models them, both in this order.
 */
#ifndef KUMI_DSM_PROTOCOL_H
#define KUMI_DSM_PROTOCOL_H

#include <stdint.h>

#include "layout.h"   /* the state bytes the inline checks test */

enum kumi_dsm_role { KUMI_DSM_CACHE, KUMI_DSM_DIR };

/* Cache states: the per-line state byte. I must be 0 (a fresh state
 * table is all invalid) and E must stay the one value a store check
 * accepts; S and E are the only valid states for loads. */
enum kumi_dsm_cstate {
    KUMI_DSM_I = 0, KUMI_DSM_S = 1, KUMI_DSM_E = 2,
    KUMI_DSM_IS_D = 3, KUMI_DSM_IM_AD = 4, KUMI_DSM_IM_A = 5, KUMI_DSM_SM_AD = 6,
    KUMI_DSM_CSTATES
};
_Static_assert(KUMI_DSM_I == KUMI_DSM_STATE_I && KUMI_DSM_S == KUMI_DSM_STATE_S &&
               KUMI_DSM_E == KUMI_DSM_STATE_E, "protocol.h and layout.h disagree on the state bytes");

enum kumi_dsm_dstate {
    KUMI_DSM_EXCL_HOME, KUMI_DSM_EXCL_REMOTE, KUMI_DSM_SHARED, KUMI_DSM_BUSY_S,
    KUMI_DSM_BUSY_X, KUMI_DSM_DSTATES
};

/* Events: CPU misses, then messages (the message type on the wire). */
enum kumi_dsm_event {
    KUMI_DSM_LOAD, KUMI_DSM_STORE,
    KUMI_DSM_GETS, KUMI_DSM_GETX, KUMI_DSM_UPG,
    KUMI_DSM_FWD_GETS, KUMI_DSM_FWD_GETX, KUMI_DSM_INV, KUMI_DSM_INV_ACK,
    KUMI_DSM_DATA_S, KUMI_DSM_DATA_E, KUMI_DSM_GRANT,
    KUMI_DSM_DONE, KUMI_DSM_DONE_WB,
    KUMI_DSM_EVENTS
};

enum kumi_dsm_guard {
    KUMI_DSM_ALWAYS, KUMI_DSM_ACKS_DONE, KUMI_DSM_ACKS_MORE, KUMI_DSM_R_IN_S,
    KUMI_DSM_R_NOT_IN_S, KUMI_DSM_R_IS_HOME, KUMI_DSM_R_REMOTE
};

/* Actions, in execution order (bit order). r is the requester named by
 * the message (or me for CPU events); "home" is the block's home PE. */
enum kumi_dsm_action {
    /* cache role */
    A_FILL             = 1u << 0,  /* copy the message's data into my copy        */
    A_SEND_GETS        = 1u << 1,  /* request to home                              */
    A_SEND_GETX        = 1u << 2,
    A_SEND_UPG         = 1u << 3,
    A_SEND_DATA_S      = 1u << 4,  /* owner: DATA_S(need_done=1, my copy) to r      */
    A_SEND_DATA_E      = 1u << 5,  /* owner: DATA_E(acks=0, need_done=1, copy) to r */
    A_SEND_INV_ACK     = 1u << 6,  /* INV_ACK to r                                  */
    A_DONE_IF_ASKED    = 1u << 7,  /* DONE to home if the data/grant asked for it   */
    A_DONE_WB_IF_ASKED = 1u << 8,  /* DONE_WB(my copy) to home if DATA_S asked      */
    A_INVALIDATE       = 1u << 9,  /* fill my copy with the flag pattern            */
    A_COMPLETE         = 1u << 10, /* my pending miss is satisfied                  */
    /* directory role (at the home) */
    A_H_FILL           = 1u << 11, /* the write-back's data into the home's copy,
                                      by the home cache's state: I -> S; IS_D (its
                                      own read waits in the queue) -> S and that
                                      miss completes; IM_AD (its own write waits)
                                      -> SM_AD (valid, to be upgraded); S or
                                      SM_AD (the home was the requester, and may
                                      since want to write) unchanged             */
    A_H_DATA_S         = 1u << 12, /* DATA_S(need_done=0, home copy) to r           */
    A_H_DATA_E         = 1u << 13, /* DATA_E(acks=|S\{r}|, need_done=acks>0||r==home,
                                      home copy) to r                               */
    A_H_GRANT          = 1u << 14, /* GRANT(acks=|S\{r}|, need_done=1) to r          */
    A_H_INVS           = 1u << 15, /* INV(r) to each sharer but r (home included)   */
    A_H_FWD_GETS       = 1u << 16, /* FWD_GETS(r) to the owner                      */
    A_H_FWD_GETX       = 1u << 17, /* FWD_GETX(r) to the owner                      */
    A_H_DOWNGRADE      = 1u << 18, /* home cache E -> S                              */
    A_H_INVALIDATE     = 1u << 19, /* home cache E -> I, flag fill                   */
    A_H_ADD_R          = 1u << 20, /* S += r                                         */
    A_H_SHARERS_HOME_R = 1u << 21, /* S = {home, r}, no owner                        */
    A_H_SHARERS_HOME_OWNER_R = 1u << 22, /* S = {home, owner, r}, no owner            */
    A_H_OWNER_R        = 1u << 23, /* owner = r, S = {}                              */
    A_H_PENDING_R      = 1u << 24, /* remember r: only r's DONE/DONE_WB ends BUSY    */
    A_H_DEFER          = 1u << 25, /* queue the request until the block is not busy  */
    A_H_REPLAY         = 1u << 26  /* then replay queued requests for the block      */
};

struct kumi_dsm_row {
    uint8_t  role, state, event, guard, next;
    uint32_t actions;
};

extern const struct kumi_dsm_row kumi_dsm_rows[];
extern const unsigned            kumi_dsm_nrows;

const char *kumi_dsm_cstate_name(unsigned s);
const char *kumi_dsm_dstate_name(unsigned s);
const char *kumi_dsm_event_name(unsigned e);

#endif /* KUMI_DSM_PROTOCOL_H */
