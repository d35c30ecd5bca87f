/*
 * comm.c -- communicators: MPI_COMM_WORLD, MPI_COMM_SELF, dup, split,
 * free, compare, attributes, names, and the collective traffic context.
 *
 * Every communicator is a kumi team of its own (the world team for
 * MPI_COMM_WORLD, one team per PE made by a split at MPI_Init for
 * MPI_COMM_SELF, kumi_team_create/kumi_team_split for dup and split), so
 * messages of two communicators never match each other, and kumi's native
 * collectives run on comm->team. Within a team, point-to-point traffic and
 * the collectives' messages have contexts of their own (msg/msg.h).
 *
 * Handles are indices into kmpi_comms (0 MPI_COMM_NULL, 1 WORLD, 2 SELF);
 * a freed handle is reused by a later communicator.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_int.h"
#include "msg.h"
#include "rt.h"

struct kmpi_comm **kmpi_comms;
int                kmpi_ncomms;

struct kmpi_comm *kmpi_comm(MPI_Comm c)
{
    return kmpi_comm_fast(c);
}

/* the lowest free handle (>= 3), the table grown if needed; -1: no memory */
static int comm_slot(void);
int kmpi_comm_slot(void)
{
    return comm_slot();
}

static int comm_slot(void)
{
    int i;

    for (i = MPI_COMM_SELF + 1; i < kmpi_ncomms && kmpi_comms[i] != NULL; i++)
        ;
    if (i >= kmpi_ncomms) {
        int                n = kmpi_ncomms ? 2 * kmpi_ncomms : 16;
        struct kmpi_comm **t = realloc(kmpi_comms, (size_t)n * sizeof(*t));
        if (t == NULL)
            return -1;
        memset(t + kmpi_ncomms, 0, (size_t)(n - kmpi_ncomms) * sizeof(*t));
        kmpi_comms  = t;
        kmpi_ncomms = n;
    }
    return i;
}

static struct kmpi_comm *comm_make(kumi_team_t team, MPI_Errhandler errh, const char *name)
{
    struct kmpi_comm *c = calloc(1, sizeof(*c));

    if (c == NULL)
        return NULL;
    c->team = team;
    c->rank = kumi_team_rank(team);
    c->size = kumi_team_size(team);
    c->psize = c->size;
    c->errh = errh;
    kmpi_errh_ref(errh);
    if (name != NULL)
        snprintf(c->name, sizeof c->name, "%s", name);
    return c;
}

int kmpi_comm_init(void)
{
    static const char call[] = "MPI_Init";
    kumi_team_t       self;
    int               rc, slot = comm_slot();

    if (slot < 0)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "no memory for communicators");
    /* one team per PE, from one call: it counts as one team slot */
    if ((rc = kumi_team_split(kumi_team_world(), kumi_rank(), 0, &self)) != KUMI_OK)
        return kmpi_error_kumi(MPI_COMM_WORLD, rc, call, "making MPI_COMM_SELF");
    kmpi_comms[MPI_COMM_WORLD] = comm_make(kumi_team_world(), kmpi_world_errh, "MPI_COMM_WORLD");
    kmpi_comms[MPI_COMM_SELF]  = comm_make(self, MPI_ERRORS_ARE_FATAL, "MPI_COMM_SELF");
    if (kmpi_comms[MPI_COMM_WORLD] == NULL || kmpi_comms[MPI_COMM_SELF] == NULL) {
        kmpi_comm_fini();
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "no memory for communicators");
    }
    return MPI_SUCCESS;
}

/* After a world barrier no PE uses any team any more: each is released
 * here without the barrier kumi_team_destroy would make (which, made in
 * each PE's own handle order, could wait in a cycle). */
void kmpi_comm_fini(void)
{
    for (int i = 0; i < kmpi_ncomms; i++) {
        struct kmpi_comm *c = kmpi_comms[i];
        if (c == NULL)
            continue;
        if (i != MPI_COMM_WORLD && c->team != NULL) {
            kumi_rt_team_release_slot(c->team);
            free(c->team->pes);
            free(c->team);
        }
        kmpi_topo_free(c->topo);
        kmpi_comm_info_free(c);
        kmpi_attr_drop(c);
        kmpi_errh_unref(c->errh);
        free(c);
    }
    free(kmpi_comms);
    kmpi_comms  = NULL;
    kmpi_ncomms = 0;
}

/* the communicator of handle comm for call, or NULL with the error
 * reported (*rc) */
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

#pragma weak MPI_Comm_rank = PMPI_Comm_rank
int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    int               rc;
    struct kmpi_comm *c = comm_check("MPI_Comm_rank", comm, &rc);

    if (c == NULL)
        return rc;
    if (rank == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, "MPI_Comm_rank", "rank is NULL");
    *rank = c->rank;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_size = PMPI_Comm_size
int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    int               rc;
    struct kmpi_comm *c = comm_check("MPI_Comm_size", comm, &rc);

    if (c == NULL)
        return rc;
    if (size == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, "MPI_Comm_size", "size is NULL");
    *size = c->size;
    return MPI_SUCCESS;
}

/* A new communicator on team (made by a collective call over parent's
 * members) into *newcomm; the parent's error handler. */
static int comm_add(const char *call, MPI_Comm parent, kumi_team_t team, MPI_Comm *newcomm)
{
    struct kmpi_comm *p = kmpi_comm_fast(parent);
    int               slot = comm_slot();
    struct kmpi_comm *c = slot >= 0 ? comm_make(team, p->errh, NULL) : NULL;

    if (c == NULL) {
        /* the others have the team: leave it with them */
        kumi_team_destroy(team);
        return kmpi_error(parent, MPI_ERR_NO_MEM, call, "no memory for a communicator");
    }
    kmpi_comms[slot] = c;
    *newcomm = slot;
    return MPI_SUCCESS;
}

static int team_error(const char *call, MPI_Comm comm, int krc)
{
    if (krc == KUMI_ERR_NOMEM)
        return kmpi_error(comm, MPI_ERR_OTHER, call, "no room for another communicator: at "
                          "most %d can be alive at once here (one kumi team each, "
                          "KUMI_LLCM_SIZE / 16 KiB of them, up to %d from 2m; world and self "
                          "included): free some with MPI_Comm_free", kumi_rt.team_slots,
                          KUMI_TEAM_MAX);
    return kmpi_error_kumi(comm, krc, call, "making the communicator's team");
}

#pragma weak MPI_Comm_dup = PMPI_Comm_dup
int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Comm_dup";
    int               rc, krc;
    struct kmpi_comm *c = comm_check(call, comm, &rc);
    kumi_team_t       team;

    if (c == NULL)
        return rc;
    if (newcomm == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "newcomm is NULL");
    if (c->inter)
        return kmpi_inter_dup(call, comm, c, newcomm);
    int *ranks = malloc((size_t)c->size * sizeof(int));
    if (ranks == NULL)
        return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for %d ranks", c->size);
    for (int i = 0; i < c->size; i++)
        ranks[i] = i;
    kmpi_comm_reclaim(call);
    krc = kumi_team_create(c->team, ranks, c->size, &team);
    free(ranks);
    if (krc != KUMI_OK)
        return team_error(call, comm, krc);
    if ((rc = comm_add(call, comm, team, newcomm)) != MPI_SUCCESS)
        return rc;
    /* the keys' copy callbacks decide which attributes the copy gets */
    if ((rc = kmpi_attr_copy(call, comm, *newcomm)) != MPI_SUCCESS)
        return rc;
    /* a duplicate keeps the topology (MPI-3.1 6.4.2) */
    if (c->topo != NULL && (kmpi_comm_fast(*newcomm)->topo = kmpi_topo_dup(c->topo)) == NULL)
        return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for the topology");
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_split = PMPI_Comm_split
int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    return kmpi_comm_split("MPI_Comm_split", comm, color, key, newcomm);
}

int kmpi_comm_split(const char *call, MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    int               rc, krc;
    struct kmpi_comm *c = comm_check(call, comm, &rc);
    kumi_team_t       team;

    if (c == NULL)
        return rc;
    if (newcomm == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "newcomm is NULL");
    if (color < 0 && color != MPI_UNDEFINED)
        return kmpi_error(comm, MPI_ERR_ARG, call, "color %d is negative (and not "
                          "MPI_UNDEFINED)", color);
    if (c->inter)
        return kmpi_inter_split(call, comm, c, color, key, newcomm);
    kmpi_comm_reclaim(call);
    krc = kumi_team_split(c->team, color == MPI_UNDEFINED ? -1 : color, key, &team);
    if (krc != KUMI_OK)
        return team_error(call, comm, krc);
    if (color == MPI_UNDEFINED) {
        kumi_team_destroy(team);   /* a non-member's handle: no barrier */
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    return comm_add(call, comm, team, newcomm);
}

/* One message of MPI_Comm_create_group's agreement, to or from the group's
 * leader (group rank 0): a member's team slots in use and whether it is
 * ready (first round), the leader's choice of slot (second), each member's
 * result and the leader's verdict (third). */
struct create_msg {
    uint64_t used[KUMI_RT_TEAM_WORDS];
    int32_t  ok;     /* member: 1 ready / 0 failed; leader: the verdict */
    int32_t  slot;   /* leader, second round: the slot, -1 none free    */
};

/* A round with the leader: every member sends *m to it (the leader
 * receives them into all[1..n)), then the leader sends *m, which it may
 * have changed in between through combine, to every member. */
static int create_round(const char *call, struct kmpi_comm *c, const int *prank, int n, int me,
                        int tag, struct create_msg *m, struct create_msg *all,
                        void (*combine)(struct create_msg *m, const struct create_msg *all, int n))
{
    kumi_request_t r;
    int            krc = KUMI_OK;

    if (me != 0) {
        krc = kumi_msg_isend_ctx(call, m, sizeof(*m), prank[0], tag, c->team, KMPI_CTX_CREATE,
                                 0, &r);
        if (krc == KUMI_OK && (krc = kumi_msg_req_wait(call, r)) == KUMI_OK)
            krc = kumi_msg_req_finish(r, NULL);
        if (krc == KUMI_OK)
            krc = kumi_msg_irecv_ctx(call, m, sizeof(*m), prank[0], tag, c->team,
                                     KMPI_CTX_CREATE, &r);
        if (krc == KUMI_OK && (krc = kumi_msg_req_wait(call, r)) == KUMI_OK)
            krc = kumi_msg_req_finish(r, NULL);
        return krc;
    }
    for (int i = 1; i < n && krc == KUMI_OK; i++) {
        krc = kumi_msg_irecv_ctx(call, &all[i], sizeof(*all), prank[i], tag, c->team,
                                 KMPI_CTX_CREATE, &r);
        if (krc == KUMI_OK && (krc = kumi_msg_req_wait(call, r)) == KUMI_OK)
            krc = kumi_msg_req_finish(r, NULL);
    }
    if (krc == KUMI_OK)
        combine(m, all, n);
    for (int i = 1; i < n && krc == KUMI_OK; i++) {
        krc = kumi_msg_isend_ctx(call, m, sizeof(*m), prank[i], tag, c->team, KMPI_CTX_CREATE,
                                 0, &r);
        if (krc == KUMI_OK && (krc = kumi_msg_req_wait(call, r)) == KUMI_OK)
            krc = kumi_msg_req_finish(r, NULL);
    }
    return krc;
}

/* first round: the lowest slot free on every member, -1 if none or a
 * member is not ready */
static void create_pick(struct create_msg *m, const struct create_msg *all, int n)
{
    for (int i = 1; i < n; i++) {
        m->ok &= all[i].ok;
        for (int w = 0; w < KUMI_RT_TEAM_WORDS; w++)
            m->used[w] |= all[i].used[w];
    }
    m->slot = -1;
    for (int s = 1; m->ok && s < kumi_rt.team_slots && m->slot < 0; s++)
        if (!kumi_rt_team_bit(m->used, s))
            m->slot = s;
}

/* third round: ready only if every member is */
static void create_verdict(struct create_msg *m, const struct create_msg *all, int n)
{
    for (int i = 1; i < n; i++)
        m->ok &= all[i].ok;
}

/* Collective over the members of group only (MPI-3.1 6.4.2): the leader
 * gathers the members' team slots in use and hands out the lowest free on
 * all of them, each member makes its handle of the team there
 * (kumi_coll_team_at), and a last round with the leader makes sure all
 * have cleared the slot before anyone uses it. Its messages go on comm's
 * team in a context of their own (KMPI_CTX_CREATE) with the caller's tag,
 * so concurrent calls on overlapping groups with different tags, as MPI
 * asks, keep apart. */
#pragma weak MPI_Comm_create_group = PMPI_Comm_create_group
int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    static const char  call[] = "MPI_Comm_create_group";
    int                rc, krc, n, me = -1, slot;
    struct kmpi_comm  *c = comm_check(call, comm, &rc), *nc = NULL;
    const int         *pes;
    int               *prank;
    struct create_msg  m, *all = NULL;
    struct kumi_team  *team = NULL;

    if (c == NULL)
        return rc;
    if (c->inter)
        return kmpi_inter_refuse(call, comm);
    if ((n = kmpi_group_pes(group, &pes)) < 0)
        return kmpi_error(comm, MPI_ERR_GROUP, call, "%d is no group%s", group,
                          group == MPI_GROUP_NULL ? " (MPI_GROUP_NULL)" : " (freed?)");
    if (newcomm == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "newcomm is NULL");
    if (tag < 0)
        return kmpi_error(comm, MPI_ERR_TAG, call, "tag %d is negative", tag);
    if ((prank = malloc((size_t)(n > 0 ? n : 1) * sizeof(int))) == NULL)
        return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for %d ranks", n);
    /* every member of the group must be one of comm's */
    for (int i = 0; i < n; i++) {
        int r;
        for (r = 0; r < c->size && kumi_team_pe(c->team, r) != pes[i]; r++)
            ;
        if (r == c->size) {
            free(prank);
            return kmpi_error(comm, MPI_ERR_GROUP, call, "group rank %d (PE %d) is not in the "
                              "communicator", i, pes[i]);
        }
        prank[i] = r;
        if (pes[i] == kumi_rank())
            me = i;
    }
    if (me < 0) {   /* MPI_GROUP_EMPTY, or a group without me: no communicator */
        free(prank);
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    /* what can fail here is taken before the others rely on it */
    kmpi_comm_reclaim(call);
    slot = comm_slot();
    if (slot >= 0)
        kmpi_comms[slot] = nc = calloc(1, sizeof(*nc));
    if (me == 0)
        all = calloc((size_t)n, sizeof(*all));
    memset(&m, 0, sizeof(m));
    memcpy(m.used, kumi_rt.team_slots_used, sizeof(m.used));
    m.ok = nc != NULL && (me != 0 || all != NULL);
    krc = create_round(call, c, prank, n, me, tag, &m, all, create_pick);
    if (krc == KUMI_OK && m.ok && m.slot > 0) {
        /* the chosen slot is free here (it was when I sent my bitmap, and
         * nothing took one since); only memory can fail */
        m.ok = kumi_coll_team_at(call, pes, n, m.slot, &team) == KUMI_OK;
        krc  = create_round(call, c, prank, n, me, tag, &m, all, create_verdict);
    }
    free(all);
    free(prank);
    if (krc == KUMI_OK && m.ok && m.slot > 0 && team != NULL) {
        struct kmpi_comm *p = kmpi_comm_fast(comm);
        nc->team = team;
        nc->rank = kumi_team_rank(team);
        nc->size = kumi_team_size(team);
        nc->psize = nc->size;
        nc->errh = p->errh;
        kmpi_errh_ref(p->errh);
        *newcomm = slot;
        return MPI_SUCCESS;
    }
    /* nobody uses the team: each member releases its handle alone */
    if (team != NULL) {
        kumi_rt_team_release_slot(team);
        free(team->pes);
        free(team);
    }
    if (slot >= 0) {
        kmpi_comms[slot] = NULL;
        free(nc);
    }
    if (krc != KUMI_OK)
        return kmpi_error_kumi(comm, krc, call, "agreeing on the new communicator");
    if (nc == NULL)
        return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for a communicator");
    if (m.ok && m.slot < 0)
        return team_error(call, comm, KUMI_ERR_NOMEM);
    return kmpi_error(comm, MPI_ERR_OTHER, call, "another member of the group could not make "
                      "the communicator (no memory there)");
}

#pragma weak MPI_Comm_free = PMPI_Comm_free
int PMPI_Comm_free(MPI_Comm *comm)
{
    static const char call[] = "MPI_Comm_free";
    int               rc, krc;
    struct kmpi_comm *c;

    if ((rc = kmpi_live(call)) != MPI_SUCCESS)
        return rc;
    if (comm == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "comm is NULL");
    if ((c = comm_check(call, *comm, &rc)) == NULL)
        return rc;
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        return kmpi_error(*comm, MPI_ERR_COMM, call, "%s cannot be freed",
                          *comm == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
    /* the delete callbacks run first, while the communicator still works */
    if ((rc = kmpi_attr_delete_all(call, *comm)) != MPI_SUCCESS)
        return rc;
    kmpi_topo_free(c->topo);
    c->topo = NULL;
    kmpi_comm_info_free(c);
    kmpi_errh_unref(c->errh);
    kmpi_comms[*comm] = NULL;
    if (c->inter) {   /* its release runs on the team of both groups (mpi_int.h) */
        c->rank = kumi_team_rank(c->team);
        c->size = kumi_team_size(c->team);
    }
    /* the team goes once every member has freed it (comm_idup.c): no wait here */
    if ((rc = kmpi_comm_release(call, c)) != MPI_SUCCESS) {
        krc = kumi_team_destroy(c->team);   /* no memory: the blocking way */
        free(c);
        if (krc != KUMI_OK)
            return kmpi_error_kumi(MPI_COMM_WORLD, krc, call, "destroying the communicator's "
                                   "team");
    }
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_compare = PMPI_Comm_compare
int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    static const char call[] = "MPI_Comm_compare";
    int               rc;
    struct kmpi_comm *a = comm_check(call, comm1, &rc), *b;

    if (a == NULL)
        return rc;
    if ((b = comm_check(call, comm2, &rc)) == NULL)
        return rc;
    if (result == NULL)
        return kmpi_error(comm1, MPI_ERR_ARG, call, "result is NULL");
    if (comm1 == comm2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (a->inter || b->inter) {
        *result = kmpi_inter_compare(a, b);
        return MPI_SUCCESS;
    }
    if (a->size != b->size) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    int same_order = 1, same_set = 1;
    for (int i = 0; i < a->size && same_set; i++) {
        int pe = kumi_team_pe(a->team, i), found = 0;
        if (kumi_team_pe(b->team, i) == pe)
            continue;
        same_order = 0;
        for (int j = 0; j < b->size && !found; j++)
            found = kumi_team_pe(b->team, j) == pe;
        same_set = found;
    }
    *result = same_order ? MPI_CONGRUENT : same_set ? MPI_SIMILAR : MPI_UNEQUAL;
    return MPI_SUCCESS;
}

/* The predefined attributes (MPI_COMM_WORLD's, answered on every
 * communicator): the value is a pointer to an int that stays valid. */
#pragma weak MPI_Comm_set_name = PMPI_Comm_set_name
int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    static const char call[] = "MPI_Comm_set_name";
    int               rc;
    struct kmpi_comm *c = comm_check(call, comm, &rc);

    if (c == NULL)
        return rc;
    if (comm_name == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "comm_name is NULL");
    snprintf(c->name, sizeof c->name, "%s", comm_name);   /* longer names are cut */
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_name = PMPI_Comm_get_name
int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    static const char call[] = "MPI_Comm_get_name";
    int               rc;
    struct kmpi_comm *c = comm_check(call, comm, &rc);

    if (c == NULL)
        return rc;
    if (comm_name == NULL || resultlen == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "comm_name or resultlen is NULL");
    memcpy(comm_name, c->name, sizeof c->name);
    *resultlen = (int)strlen(c->name);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ collectives' context */

int kmpi_coll_isend(const void *buf, size_t bytes, int rank, int tag, struct kmpi_comm *c,
                    kumi_request_t *req)
{
    return kumi_msg_isend_ctx("MPI collective (send)", buf, bytes, rank, tag, c->team,
                              KUMI_MSG_CTX_COLL, 0, req);
}

int kmpi_coll_irecv(void *buf, size_t bytes, int rank, int tag, struct kmpi_comm *c,
                    kumi_request_t *req)
{
    return kumi_msg_irecv_ctx("MPI collective (receive)", buf, bytes, rank, tag, c->team,
                              KUMI_MSG_CTX_COLL, req);
}
