/*
 * intercomm.c -- intercommunicators (MPI-3.1 6.6): MPI_Intercomm_create,
 * MPI_Intercomm_merge, MPI_Comm_test_inter, MPI_Comm_remote_size,
 * MPI_Comm_remote_group, and the intercommunicator forms of
 * MPI_Comm_dup, _split (so MPI_Comm_create), _compare and _free that
 * comm.c hands over; coll_inter.c has the collectives.
 *
 * An intercommunicator is one kumi team of both groups (its own slot, so
 * its messages never match another communicator's), listed on each member
 * as [remote group, local group] (mpi_int.h): point to point needs no
 * translation of ranks. Its constructors agree on a team slot free on
 * every member as MPI_Comm_create_group does (comm.c), in a message
 * context of their own (KMPI_CTX_INTER; the leaders' messages on peer_comm
 * KMPI_CTX_INTER_PEER): MPI_Intercomm_create through the
 * two leaders (the local communicators, then the peer communicator between
 * the leaders, then back), the others by an exchange among all the
 * members of the intercommunicator they start from (MPI_Comm_idup: the
 * same as a schedule of nbc.c's engine).
 */
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "nbc.h"
#include "rt.h"

int kmpi_inter_refuse(const char *call, MPI_Comm comm)
{
    return kmpi_error(comm, MPI_ERR_COMM, call, "this call needs an intracommunicator, and "
                      "communicator %d is an intercommunicator", comm);
}

static struct kmpi_comm *comm_check(const char *call, MPI_Comm comm, int *rc)
{
    struct kmpi_comm *c;

    if ((*rc = kmpi_live(call)) != MPI_SUCCESS)
        return NULL;
    if ((c = kmpi_comm_fast(comm)) == NULL)
        *rc = kmpi_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "%d is no communicator%s", comm,
                         comm == MPI_COMM_NULL ? " (MPI_COMM_NULL)" : "");
    return c;
}

/* ------------------------------------------------------------ messages of the agreements */

/* Posts a receive (rbuf) and a send (sbuf) on team in context ctx and
 * waits for both; either may be skipped (NULL count 0 with rank -1). */
static int x_sendrecv(const char *call, const void *sbuf, size_t sbytes, int to, void *rbuf,
                      size_t rbytes, int from, int tag, kumi_team_t team, unsigned ctx)
{
    kumi_request_t rr = KUMI_REQUEST_NULL, sr = KUMI_REQUEST_NULL;
    int            krc = KUMI_OK, k2;

    if (from >= 0)
        krc = kumi_msg_irecv_ctx(call, rbuf, rbytes, from, tag, team, ctx, &rr);
    if (krc == KUMI_OK && to >= 0)
        krc = kumi_msg_isend_ctx(call, sbuf, sbytes, to, tag, team, ctx, 0, &sr);
    if (sr != KUMI_REQUEST_NULL) {
        if ((k2 = kumi_msg_req_wait(call, sr)) == KUMI_OK)
            k2 = kumi_msg_req_finish(sr, NULL);
        if (krc == KUMI_OK)
            krc = k2;
    }
    if (rr != KUMI_REQUEST_NULL) {
        if ((k2 = kumi_msg_req_wait(call, rr)) == KUMI_OK)
            k2 = kumi_msg_req_finish(rr, NULL);
        if (krc == KUMI_OK)
            krc = k2;
    }
    return krc;
}

/* The member at place g of the order [low group, high group] is team rank
 * team_of(c, g) of intercommunicator c, and back. */
static int inter_shift(const struct kmpi_comm *c)
{
    return c->inter == KMPI_INTER_LOW ? c->psize : 0;
}
static int team_of(const struct kmpi_comm *c, int g)
{
    int n = kumi_team_size(c->team);
    return (g + inter_shift(c)) % n;
}
static int place_of(const struct kmpi_comm *c, int t)
{
    int n = kumi_team_size(c->team);
    return (t - inter_shift(c) + n) % n;
}

/* Every member of intercommunicator c gives bytes at mine; all[g * bytes]
 * receives member g's (the order [low group, high group]). */
static int inter_allgather(const char *call, struct kmpi_comm *c, int tag, const void *mine,
                           size_t bytes, void *all)
{
    int             n = kumi_team_size(c->team), me = kumi_team_rank(c->team), krc = KUMI_OK;
    kumi_request_t *r = malloc((size_t)2 * (size_t)n * sizeof(*r));

    if (r == NULL)
        return KUMI_ERR_NOMEM;
    memcpy((char *)all + (size_t)place_of(c, me) * bytes, mine, bytes);
    for (int i = 0; i < 2 * n; i++)
        r[i] = KUMI_REQUEST_NULL;
    for (int t = 0; t < n && krc == KUMI_OK; t++)
        if (t != me)
            krc = kumi_msg_irecv_ctx(call, (char *)all + (size_t)place_of(c, t) * bytes, bytes,
                                     t, tag, c->team, KMPI_CTX_INTER, &r[t]);
    for (int k = 1; k < n && krc == KUMI_OK; k++) {
        int t = (me + k) % n;
        krc = kumi_msg_isend_ctx(call, mine, bytes, t, tag, c->team, KMPI_CTX_INTER, 0,
                                 &r[n + t]);
    }
    for (int i = 0; i < 2 * n; i++) {
        if (r[i] == KUMI_REQUEST_NULL)
            continue;
        int k2 = kumi_msg_req_wait(call, r[i]);
        if (k2 == KUMI_OK)
            k2 = kumi_msg_req_finish(r[i], NULL);
        if (krc == KUMI_OK)
            krc = k2;
    }
    free(r);
    return krc;
}

/* ------------------------------------------------------------ the new communicator */

/* A communicator being made: its handle and struct are taken before the
 * agreement (what can fail here fails before the others rely on it). */
struct pending {
    int               slot;
    struct kmpi_comm *nc;
};

static int pending_take(struct pending *p)
{
    p->nc   = NULL;
    p->slot = kmpi_comm_slot();
    if (p->slot >= 0 && (p->nc = calloc(1, sizeof(*p->nc))) != NULL)
        kmpi_comms[p->slot] = p->nc;
    return p->nc != NULL;
}

static void pending_drop(struct pending *p)
{
    if (p->nc != NULL) {
        kmpi_comms[p->slot] = NULL;
        free(p->nc);
        p->nc = NULL;
    }
}

/* My handle of the team pes[0..n) (my list of it) at team slot slot, or
 * NULL (no memory). */
static kumi_team_t team_make(const char *call, const int *pes, int n, int slot)
{
    kumi_team_t t = NULL;

    if (kumi_coll_team_at(call, pes, n, slot, &t) != KUMI_OK)
        return NULL;
    return t;
}

static void team_drop(kumi_team_t t)
{
    if (t != NULL) {
        kumi_rt_team_release_slot(t);
        free(t->pes);
        free(t);
    }
}

/* p's communicator on team t: rank and size of the local group, psize the
 * remote group's size (the size again on an intracommunicator) */
static MPI_Comm pending_finish(struct pending *p, kumi_team_t t, int rank, int size, int psize,
                               int inter, MPI_Errhandler errh)
{
    struct kmpi_comm *nc = p->nc;

    nc->team  = t;
    nc->rank  = rank;
    nc->size  = size;
    nc->psize = psize;
    nc->inter = inter;
    nc->errh  = errh;
    kmpi_errh_ref(errh);
    p->nc = NULL;
    return p->slot;
}

/* the lowest slot free in used, -1 if none */
static int slot_pick(const uint64_t *used)
{
    for (int s = 1; s < kumi_rt.team_slots; s++)
        if (!kumi_rt_team_bit(used, s))
            return s;
    return -1;
}

static int no_slot(const char *call, MPI_Comm comm)
{
    return kmpi_error(comm, MPI_ERR_OTHER, call, "no room for another communicator: at most %d "
                      "can be alive at once (one kumi team slot each, free on every member): "
                      "free some with MPI_Comm_free", kumi_rt.team_slots);
}

/* ------------------------------------------------------------ MPI_Intercomm_create */

/* what the leaders exchange, and what a leader tells its group */
struct ic_head {
    uint64_t used[KUMI_RT_TEAM_WORDS];
    int32_t  ok;
    int32_t  n;       /* exchange: the group's size; to the group: the remote one */
    int32_t  slot;    /* to the group */
    int32_t  low;     /* to the group: the local group is the low one */
    int32_t  leader;  /* exchange: the leader's world PE */
};

#define IC_TAG_LOCAL 0x1c0   /* on the local communicator, in KMPI_CTX_INTER */

/* leader: receives every member's head (first round) and combines it into
 * *h; member: sends *h to the leader */
static int local_gather(const char *call, struct kmpi_comm *lc, int leader, int tag,
                        struct ic_head *h)
{
    int krc = KUMI_OK;

    if (lc->rank != leader)
        return x_sendrecv(call, h, sizeof(*h), leader, NULL, 0, -1, tag, lc->team,
                          KMPI_CTX_INTER);
    for (int i = 0; i < lc->size && krc == KUMI_OK; i++) {
        struct ic_head m;
        if (i == leader)
            continue;
        krc = x_sendrecv(call, NULL, 0, -1, &m, sizeof(m), i, tag, lc->team, KMPI_CTX_INTER);
        h->ok &= m.ok;
        for (int w = 0; w < KUMI_RT_TEAM_WORDS; w++)
            h->used[w] |= m.used[w];
    }
    return krc;
}

/* leader: sends bytes at buf to every member; member: receives them */
static int local_bcast(const char *call, struct kmpi_comm *lc, int leader, int tag, void *buf,
                       size_t bytes)
{
    int krc = KUMI_OK;

    if (lc->rank != leader)
        return x_sendrecv(call, NULL, 0, -1, buf, bytes, leader, tag, lc->team,
                          KMPI_CTX_INTER);
    for (int i = 0; i < lc->size && krc == KUMI_OK; i++)
        if (i != leader)
            krc = x_sendrecv(call, buf, bytes, i, NULL, 0, -1, tag, lc->team, KMPI_CTX_INTER);
    return krc;
}

#pragma weak MPI_Intercomm_create = PMPI_Intercomm_create
int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm)
{
    static const char call[] = "MPI_Intercomm_create";
    int               rc, krc = KUMI_OK, rn = 0, *pes = NULL;
    struct kmpi_comm *lc = comm_check(call, local_comm, &rc), *pc = NULL;
    struct ic_head    h;
    struct pending    p = { -1, NULL };
    kumi_team_t       team = NULL;
    int               overlap = 0;

    if (lc == NULL)
        return rc;
    if (lc->inter)
        return kmpi_error(local_comm, MPI_ERR_COMM, call, "local_comm %d is an "
                          "intercommunicator", local_comm);
    if (newintercomm == NULL)
        return kmpi_error(local_comm, MPI_ERR_ARG, call, "newintercomm is NULL");
    if (local_leader < 0 || local_leader >= lc->size)
        return kmpi_error(local_comm, MPI_ERR_RANK, call, "local_leader %d is not a rank of "
                          "local_comm (size %d)", local_leader, lc->size);
    int leader = lc->rank == local_leader;
    if (leader) {   /* peer_comm, remote_leader and tag matter only here */
        if ((pc = kmpi_comm_fast(peer_comm)) == NULL)
            return kmpi_error(local_comm, MPI_ERR_COMM, call, "peer_comm %d is no "
                              "communicator%s", peer_comm,
                              peer_comm == MPI_COMM_NULL ? " (MPI_COMM_NULL)" : "");
        if (remote_leader < 0 || remote_leader >= pc->psize)
            return kmpi_error(local_comm, MPI_ERR_RANK, call, "remote_leader %d is not a rank "
                              "of peer_comm (size %d)", remote_leader, pc->psize);
        if (kumi_team_pe(pc->team, remote_leader) == kumi_rank())
            return kmpi_error(local_comm, MPI_ERR_RANK, call, "remote_leader %d is the local "
                              "leader itself: the groups must be disjoint", remote_leader);
        if (tag < 0)
            return kmpi_error(local_comm, MPI_ERR_TAG, call, "tag %d is negative", tag);
    }
    kmpi_comm_reclaim(call);
    memset(&h, 0, sizeof(h));
    memcpy(h.used, kumi_rt.team_slots_used, sizeof(h.used));
    h.ok = pending_take(&p);
    int n = lc->size;
    krc  = local_gather(call, lc, local_leader, IC_TAG_LOCAL, &h);
    if (krc == KUMI_OK && leader) {
        /* the leaders: heads, then the groups' members */
        struct ic_head r;
        int           *lpes = malloc((size_t)n * sizeof(int));
        h.n      = n;
        h.leader = kumi_rank();
        h.ok &= lpes != NULL;
        krc = x_sendrecv(call, &h, sizeof(h), remote_leader, &r, sizeof(r), remote_leader, tag,
                         pc->team, KMPI_CTX_INTER_PEER);
        rn = r.n;
        if (krc == KUMI_OK && lpes != NULL) {
            for (int i = 0; i < n; i++)
                lpes[i] = kumi_team_pe(lc->team, i);
            pes = malloc((size_t)(rn + n) * sizeof(int));
            /* both send their lists even when short of memory (r.ok says so) */
            int *into = pes != NULL ? pes : malloc((size_t)(rn > 0 ? rn : 1) * sizeof(int));
            if (into == NULL)
                krc = KUMI_ERR_NOMEM;
            else
                krc = x_sendrecv(call, lpes, (size_t)n * sizeof(int), remote_leader, into,
                                 (size_t)rn * sizeof(int), remote_leader, tag, pc->team,
                                 KMPI_CTX_INTER_PEER);
            if (into != pes)
                free(into);
        }
        free(lpes);
        h.ok &= r.ok & (pes != NULL);
        if (pes != NULL)
            for (int i = 0; i < n; i++)
                pes[rn + i] = kumi_team_pe(lc->team, i);
        for (int i = 0; pes != NULL && i < rn; i++)
            for (int j = 0; j < n; j++)
                overlap |= pes[i] == pes[rn + j];
        h.ok &= !overlap;
        for (int w = 0; w < KUMI_RT_TEAM_WORDS; w++)
            h.used[w] |= r.used[w];
        h.slot = h.ok ? slot_pick(h.used) : -1;
        h.low  = kumi_rank() < r.leader;
        h.n    = rn;
        if (overlap)
            h.slot = -2;
    }
    if (krc == KUMI_OK)
        krc = local_bcast(call, lc, local_leader, IC_TAG_LOCAL + 1, &h, sizeof(h));
    rn = h.n;
    if (krc == KUMI_OK && !leader && h.ok && (pes = malloc((size_t)(rn + n) * sizeof(int)))
                                                 == NULL)
        h.ok = 0;   /* the verdict below fails the creation */
    if (krc == KUMI_OK && h.slot > 0) {
        /* the remote group's members, then mine */
        int *tmp = pes != NULL ? pes : malloc((size_t)(rn > 0 ? rn : 1) * sizeof(int));
        if (tmp == NULL)
            krc = KUMI_ERR_NOMEM;
        else
            krc = local_bcast(call, lc, local_leader, IC_TAG_LOCAL + 2, tmp,
                              (size_t)rn * sizeof(int));
        if (tmp != pes)
            free(tmp);
        if (krc == KUMI_OK && pes != NULL) {
            for (int i = 0; i < n; i++)
                pes[rn + i] = kumi_team_pe(lc->team, i);
            team = team_make(call, pes, rn + n, h.slot);
        }
        /* the verdict: ready only if every member of both groups is */
        struct ic_head v;
        memset(&v, 0, sizeof(v));
        v.ok = team != NULL;
        if (krc == KUMI_OK)
            krc = local_gather(call, lc, local_leader, IC_TAG_LOCAL + 3, &v);
        if (krc == KUMI_OK && leader) {
            struct ic_head r;
            krc = x_sendrecv(call, &v, sizeof(v), remote_leader, &r, sizeof(r), remote_leader,
                             tag, pc->team, KMPI_CTX_INTER_PEER);
            v.ok &= r.ok;
        }
        if (krc == KUMI_OK)
            krc = local_bcast(call, lc, local_leader, IC_TAG_LOCAL + 4, &v, sizeof(v));
        h.ok = krc == KUMI_OK && v.ok;
    }
    free(pes);
    if (krc == KUMI_OK && h.ok && h.slot > 0 && team != NULL) {
        *newintercomm = pending_finish(&p, team, lc->rank, n, rn,
                                       h.low ? KMPI_INTER_LOW : KMPI_INTER_HIGH, lc->errh);
        return MPI_SUCCESS;
    }
    team_drop(team);
    pending_drop(&p);
    if (krc != KUMI_OK)
        return kmpi_error_kumi(local_comm, krc, call, "agreeing on the intercommunicator");
    if (h.slot == -2)
        return kmpi_error(local_comm, MPI_ERR_COMM, call, "the two groups overlap (a process "
                          "is in both): MPI needs them disjoint");
    if (h.ok && h.slot < 0)
        return no_slot(call, local_comm);
    return kmpi_error(local_comm, MPI_ERR_NO_MEM, call, "a member of either group had no "
                      "memory for the intercommunicator");
}

/* ------------------------------------------------------------ queries */

#pragma weak MPI_Comm_test_inter = PMPI_Comm_test_inter
int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    static const char call[] = "MPI_Comm_test_inter";
    int               rc;
    struct kmpi_comm *c = comm_check(call, comm, &rc);

    if (c == NULL)
        return rc;
    if (flag == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "flag is NULL");
    *flag = c->inter != 0;
    return MPI_SUCCESS;
}

static struct kmpi_comm *inter_check(const char *call, MPI_Comm comm, const void *out,
                                     int *rc)
{
    struct kmpi_comm *c = comm_check(call, comm, rc);

    if (c == NULL)
        return NULL;
    if (!c->inter) {
        *rc = kmpi_error(comm, MPI_ERR_COMM, call, "communicator %d is an intracommunicator",
                         comm);
        return NULL;
    }
    if (out == NULL) {
        *rc = kmpi_error(comm, MPI_ERR_ARG, call, "the output argument is NULL");
        return NULL;
    }
    return c;
}

#pragma weak MPI_Comm_remote_size = PMPI_Comm_remote_size
int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    int               rc;
    struct kmpi_comm *c = inter_check("MPI_Comm_remote_size", comm, size, &rc);

    if (c == NULL)
        return rc;
    *size = c->psize;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_remote_group = PMPI_Comm_remote_group
int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    static const char call[] = "MPI_Comm_remote_group";
    int               rc, *pes;
    struct kmpi_comm *c = inter_check(call, comm, group, &rc);

    if (c == NULL)
        return rc;
    if ((pes = malloc((size_t)c->psize * sizeof(int))) == NULL)
        return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for a group");
    for (int i = 0; i < c->psize; i++)
        pes[i] = kumi_team_pe(c->team, i);
    return kmpi_group_new(call, pes, c->psize, group);
}

/* the remote (0) or local (1) group's PEs of a and b: 0 different, 1 the
 * same set, 2 the same list */
static int same_group(const struct kmpi_comm *a, const struct kmpi_comm *b, int local)
{
    int na = local ? a->size : a->psize, nb = local ? b->size : b->psize;
    int oa = local ? a->psize : 0, ob = local ? b->psize : 0, order = 1;

    if (na != nb)
        return 0;
    for (int i = 0; i < na; i++) {
        int pe = kumi_team_pe(a->team, oa + i), found = 0;
        if (kumi_team_pe(b->team, ob + i) == pe)
            continue;
        order = 0;
        for (int j = 0; j < nb && !found; j++)
            found = kumi_team_pe(b->team, ob + j) == pe;
        if (!found)
            return 0;
    }
    return order ? 2 : 1;
}

int kmpi_inter_compare(const struct kmpi_comm *a, const struct kmpi_comm *b)
{
    if (!a->inter || !b->inter)
        return MPI_UNEQUAL;
    int l = same_group(a, b, 1), r = same_group(a, b, 0);
    if (l == 0 || r == 0)
        return MPI_UNEQUAL;
    return l == 2 && r == 2 ? MPI_CONGRUENT : MPI_SIMILAR;
}

/* ------------------------------------------------------------ dup, split, merge */

/* what every member of an intercommunicator tells the others */
struct inter_rec {
    uint64_t used[KUMI_RT_TEAM_WORDS];
    int32_t  ok;
    int32_t  color, key;
    int32_t  high;
};

#define IR_TAG_MAKE    0x2c0   /* on the intercommunicator, in KMPI_CTX_INTER */
#define IR_TAG_VERDICT 0x2c1

/* The first round of a constructor on intercommunicator c: every member's
 * record (used filled here) into all[] (place order, n of them); *slot the
 * lowest slot free on all (-1 none), *ok whether all are ready. */
static int inter_round(const char *call, struct kmpi_comm *c, struct inter_rec *mine,
                       struct inter_rec *all, int *slot, int *ok)
{
    int      n = kumi_team_size(c->team), krc;
    uint64_t used[KUMI_RT_TEAM_WORDS];

    memcpy(mine->used, kumi_rt.team_slots_used, sizeof(mine->used));
    if ((krc = inter_allgather(call, c, IR_TAG_MAKE, mine, sizeof(*mine), all)) != KUMI_OK)
        return krc;
    memset(used, 0, sizeof(used));
    *ok = 1;
    for (int g = 0; g < n; g++) {
        *ok &= all[g].ok;
        for (int w = 0; w < KUMI_RT_TEAM_WORDS; w++)
            used[w] |= all[g].used[w];
    }
    *slot = *ok ? slot_pick(used) : -1;
    return KUMI_OK;
}

/* The second round: whether every member made its handle (made: mine) */
static int inter_verdict(const char *call, struct kmpi_comm *c, int made, int *all_ok)
{
    int      n = kumi_team_size(c->team), krc;
    int32_t  mine = made, *all = malloc((size_t)n * sizeof(int32_t));

    if (all == NULL)
        return KUMI_ERR_NOMEM;
    krc     = inter_allgather(call, c, IR_TAG_VERDICT, &mine, sizeof(mine), all);
    *all_ok = 1;
    for (int g = 0; g < n; g++)
        *all_ok &= all[g];
    free(all);
    return krc;
}

/* The end of a constructor on c: the agreement's outcome (krc, ok, slot:
 * the first round's) and my team (NULL when I make none or could not)
 * become *newcomm or an error. */
static int inter_conclude(const char *call, MPI_Comm comm, struct kmpi_comm *c, int krc,
                          int ok, int slot, int member, kumi_team_t team, struct pending *p,
                          int rank, int size, int psize, int inter, MPI_Comm *newcomm)
{
    int all_ok = 0;

    if (krc == KUMI_OK && ok && slot > 0)
        krc = inter_verdict(call, c, !member || team != NULL, &all_ok);
    if (krc == KUMI_OK && all_ok) {
        if (!member) {
            pending_drop(p);
            *newcomm = MPI_COMM_NULL;
            return MPI_SUCCESS;
        }
        *newcomm = pending_finish(p, team, rank, size, psize, inter, c->errh);
        return MPI_SUCCESS;
    }
    team_drop(team);
    pending_drop(p);
    if (krc != KUMI_OK)
        return kmpi_error_kumi(comm, krc, call, "agreeing on the new communicator");
    if (ok && slot < 0)
        return no_slot(call, comm);
    return kmpi_error(comm, MPI_ERR_NO_MEM, call, "a member had no memory for the new "
                      "communicator");
}

int kmpi_inter_dup(const char *call, MPI_Comm comm, struct kmpi_comm *c, MPI_Comm *newcomm)
{
    int               n = kumi_team_size(c->team), slot = -1, ok = 0, krc, rc;
    struct inter_rec  mine, *all = malloc((size_t)n * sizeof(*all));
    struct pending    p = { -1, NULL };
    kumi_team_t       team = NULL;

    kmpi_comm_reclaim(call);
    memset(&mine, 0, sizeof(mine));
    if (all == NULL)
        return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory");
    mine.ok = pending_take(&p);
    krc = inter_round(call, c, &mine, all, &slot, &ok);
    free(all);
    if (krc == KUMI_OK && ok && slot > 0)
        team = team_make(call, c->team->pes, n, slot);
    rc = inter_conclude(call, comm, c, krc, ok, slot, 1, team, &p, c->rank, c->size, c->psize,
                        c->inter, newcomm);
    if (rc == MPI_SUCCESS)
        rc = kmpi_attr_copy(call, comm, *newcomm);
    return rc;
}

/* members of one group (places lo..hi) with color, ordered by key, then
 * by place: their places into out, their number returned */
static int by_key(const struct inter_rec *all, int lo, int hi, int color, int *out)
{
    int k = 0;

    for (int g = lo; g < hi; g++) {
        if (all[g].color != color)
            continue;
        int j = k++;
        while (j > 0 && all[out[j - 1]].key > all[g].key) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = g;
    }
    return k;
}

int kmpi_inter_split(const char *call, MPI_Comm comm, struct kmpi_comm *c, int color, int key,
                     MPI_Comm *newcomm)
{
    int               n = kumi_team_size(c->team), slot = -1, ok = 0, krc;
    int               low = c->inter == KMPI_INTER_LOW, nlow = low ? c->size : c->psize;
    struct inter_rec  mine, *all = malloc((size_t)n * sizeof(*all));
    int              *lp = malloc((size_t)n * sizeof(int)), *rp = malloc((size_t)n * sizeof(int));
    int              *pes = malloc((size_t)n * sizeof(int));
    struct pending    p = { -1, NULL };
    kumi_team_t       team = NULL;
    int               member = 0, nl = 0, nr = 0, rank = -1;

    if (all == NULL || lp == NULL || rp == NULL || pes == NULL) {
        free(all);
        free(lp);
        free(rp);
        free(pes);
        return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory");
    }
    kmpi_comm_reclaim(call);
    memset(&mine, 0, sizeof(mine));
    mine.color = color == MPI_UNDEFINED ? -1 : color;
    mine.key   = key;
    mine.ok    = color == MPI_UNDEFINED || pending_take(&p);
    krc = inter_round(call, c, &mine, all, &slot, &ok);
    if (krc == KUMI_OK && ok && slot > 0 && color != MPI_UNDEFINED) {
        int me = place_of(c, kumi_team_rank(c->team));
        if (low) {
            nl = by_key(all, 0, nlow, mine.color, lp);
            nr = by_key(all, nlow, n, mine.color, rp);
        } else {
            nl = by_key(all, nlow, n, mine.color, lp);
            nr = by_key(all, 0, nlow, mine.color, rp);
        }
        member = nl > 0 && nr > 0;
        for (int i = 0; i < nr; i++)
            pes[i] = kumi_team_pe(c->team, team_of(c, rp[i]));
        for (int i = 0; i < nl; i++) {
            pes[nr + i] = kumi_team_pe(c->team, team_of(c, lp[i]));
            if (lp[i] == me)
                rank = i;
        }
        if (member)
            team = team_make(call, pes, nr + nl, slot);
    }
    free(all);
    free(lp);
    free(rp);
    free(pes);
    return inter_conclude(call, comm, c, krc, ok, slot, member, team, &p, rank, nl, nr,
                          c->inter, newcomm);
}

#pragma weak MPI_Intercomm_merge = PMPI_Intercomm_merge
int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    static const char call[] = "MPI_Intercomm_merge";
    int               rc, slot = -1, ok = 0, krc;
    struct kmpi_comm *c = inter_check(call, intercomm, newintracomm, &rc);

    if (c == NULL)
        return rc;
    int               n = kumi_team_size(c->team), low = c->inter == KMPI_INTER_LOW;
    int               nlow = low ? c->size : c->psize;
    struct inter_rec  mine, *all = malloc((size_t)n * sizeof(*all));
    int              *pes = malloc((size_t)n * sizeof(int));
    struct pending    p = { -1, NULL };
    kumi_team_t       team = NULL;
    int               rank = -1;

    if (all == NULL || pes == NULL) {
        free(all);
        free(pes);
        return kmpi_error(intercomm, MPI_ERR_NO_MEM, call, "no memory");
    }
    kmpi_comm_reclaim(call);
    memset(&mine, 0, sizeof(mine));
    mine.high = high != 0;
    mine.ok   = pending_take(&p);
    krc = inter_round(call, c, &mine, all, &slot, &ok);
    if (krc == KUMI_OK && ok && slot > 0) {
        /* the group that said high = false first; when both said the
         * same, the low group first (MPI-3.1 6.6.2 leaves it open) */
        int hlow = all[0].high, hhigh = all[n - 1].high;
        int first_low = hlow == hhigh || !hlow;
        int me = place_of(c, kumi_team_rank(c->team)), k = 0;
        for (int pass = 0; pass < 2; pass++) {
            int from_low = pass == 0 ? first_low : !first_low;
            int lo = from_low ? 0 : nlow, hi = from_low ? nlow : n;
            for (int g = lo; g < hi; g++) {
                if (g == me)
                    rank = k;
                pes[k++] = kumi_team_pe(c->team, team_of(c, g));
            }
        }
        team = team_make(call, pes, n, slot);
    }
    free(all);
    free(pes);
    rc = inter_conclude(call, intercomm, c, krc, ok, slot, 1, team, &p, rank, n, n, 0,
                        newintracomm);
    return rc;
}

/* ------------------------------------------------------------ MPI_Comm_idup
 * The agreement of kmpi_inter_dup as a schedule of the non-blocking
 * collectives' engine (nbc.h), so it moves in every MPI call that polls:
 * every member sends every other its map of slots in use, each takes the
 * same slot (the lowest free on all; after a lost race one picked by a
 * pseudo-random choice that every member computes alike), and a second
 * exchange says whether every member could take it. A member may have
 * lost the slot meanwhile (the program made other communicators): then
 * all drop it and agree again. A member does not take a slot while
 * kumi's own waits run the schedule (kmpi_nbc_in_kumi). */

#define IDUP_TRIES 64

struct inter_idup {
    struct kmpi_comm *c, *nc;
    int               n, me, slot, tries;
    unsigned          seed;
    struct inter_rec  mine, *all;   /* all: n, place order */
    int32_t           took, *oks;
    kumi_team_t       team;
};

static int iidup_snapshot(struct kmpi_sched *s, void *arg)
{
    struct inter_idup *d = arg;

    (void)s;
    memcpy(d->mine.used, kumi_rt.team_slots_used, sizeof(d->mine.used));
    d->mine.ok = 1;
    return KMPI_SCHED_NEXT;
}

static int iidup_take(struct kmpi_sched *s, void *arg)
{
    struct inter_idup *d = arg;
    uint64_t           used[KUMI_RT_TEAM_WORDS];
    int                nfree = 0, pick, k = 0;

    (void)s;
    if (kmpi_nbc_in_kumi)
        return KMPI_SCHED_LATER;   /* a blocking constructor may be between its steps */
    d->all[d->me] = d->mine;
    memset(used, 0, sizeof(used));
    for (int g = 0; g < d->n; g++)
        for (int w = 0; w < KUMI_RT_TEAM_WORDS; w++)
            used[w] |= d->all[g].used[w];
    for (int t = 1; t < kumi_rt.team_slots; t++)
        nfree += !kumi_rt_team_bit(used, t);
    d->slot = -1;
    pick    = d->tries == 0 || nfree == 0 ? 0 : (int)(d->seed % (unsigned)nfree);
    d->seed = d->seed * 1103515245u + 12345u;   /* the same sequence on every member */
    for (int t = 1; t < kumi_rt.team_slots && d->slot < 0; t++)
        if (!kumi_rt_team_bit(used, t) && k++ == pick)
            d->slot = t;
    d->took = 0;
    if (d->slot > 0 && !kumi_rt_team_bit(kumi_rt.team_slots_used, d->slot))
        d->took = (d->team = team_make("MPI_Comm_idup", d->c->team->pes, d->n, d->slot))
                  != NULL;
    return KMPI_SCHED_NEXT;
}

static int iidup_finish(struct kmpi_sched *s, void *arg)
{
    struct inter_idup *d = arg;
    int                all = 1;

    d->oks[d->me] = d->took;
    for (int g = 0; g < d->n; g++)
        all &= d->oks[g] != 0;
    if (all) {
        d->nc->team = d->team;
        return KMPI_SCHED_NEXT;
    }
    team_drop(d->team);
    d->team = NULL;
    if (++d->tries < IDUP_TRIES)
        return 0;   /* the start: agree again */
    kmpi_sched_fail(s, MPI_ERR_OTHER);
    return KMPI_SCHED_NEXT;
}

int kmpi_inter_idup(const char *call, MPI_Comm comm, struct kmpi_comm *c, MPI_Comm *newcomm,
                    MPI_Request *request)
{
    struct kmpi_sched *s = kmpi_sched_new(call, comm, c);
    struct inter_idup *d;
    struct pending     p = { -1, NULL };
    int                n = kumi_team_size(c->team), me = kumi_team_rank(c->team), rc;

    if (s == NULL)
        return MPI_ERR_NO_MEM;
    d = kmpi_sched_tmp(s, sizeof(*d));
    if (d != NULL) {
        memset(d, 0, sizeof(*d));
        d->all = kmpi_sched_tmp(s, (size_t)n * sizeof(*d->all));
        d->oks = kmpi_sched_tmp(s, (size_t)n * sizeof(*d->oks));
    }
    if (d == NULL || d->all == NULL || d->oks == NULL || !pending_take(&p)) {
        kmpi_sched_discard(s);
        return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for a communicator");
    }
    d->c  = c;
    d->n  = n;
    d->me = place_of(c, me);
    /* the same on every member, different for idups in flight together */
    d->seed = (c->nbc_seq * 2654435761u) ^ ((unsigned)c->team->slot * 40503u);
    /* the new communicator, without its team until the schedule ends */
    d->nc = p.nc;
    pending_finish(&p, NULL, c->rank, c->size, c->psize, c->inter, c->errh);
    if ((rc = kmpi_attr_copy(call, comm, p.slot)) != MPI_SUCCESS) {
        kmpi_attr_drop(d->nc);
        kmpi_comms[p.slot] = NULL;
        kmpi_errh_unref(d->nc->errh);
        free(d->nc);
        kmpi_sched_discard(s);
        return rc;
    }
    kmpi_sched_call(s, iidup_snapshot, d);
    for (int t = 0; t < n; t++)
        if (t != me) {
            kmpi_sched_recv(s, &d->all[place_of(c, t)], sizeof(*d->all), t, 0);
            kmpi_sched_send(s, &d->mine, sizeof(d->mine), t, 0);
        }
    kmpi_sched_wait(s);
    kmpi_sched_call(s, iidup_take, d);
    for (int t = 0; t < n; t++)
        if (t != me) {
            kmpi_sched_recv(s, &d->oks[place_of(c, t)], sizeof(*d->oks), t, 1);
            kmpi_sched_send(s, &d->took, sizeof(d->took), t, 1);
        }
    kmpi_sched_wait(s);
    kmpi_sched_call(s, iidup_finish, d);
    *newcomm = p.slot;
    return kmpi_sched_start(s, request);
}
