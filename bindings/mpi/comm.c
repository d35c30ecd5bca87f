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

int MPI_Comm_rank(MPI_Comm comm, int *rank)
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

int MPI_Comm_size(MPI_Comm comm, int *size)
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

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Comm_dup";
    int               rc, krc;
    struct kmpi_comm *c = comm_check(call, comm, &rc);
    kumi_team_t       team;

    if (c == NULL)
        return rc;
    if (newcomm == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "newcomm is NULL");
    int *ranks = malloc((size_t)c->size * sizeof(int));
    if (ranks == NULL)
        return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for %d ranks", c->size);
    for (int i = 0; i < c->size; i++)
        ranks[i] = i;
    krc = kumi_team_create(c->team, ranks, c->size, &team);
    free(ranks);
    if (krc != KUMI_OK)
        return team_error(call, comm, krc);
    if ((rc = comm_add(call, comm, team, newcomm)) != MPI_SUCCESS)
        return rc;
    /* a duplicate keeps the topology (MPI-3.1 6.4.2) */
    if (c->topo != NULL && (kmpi_comm_fast(*newcomm)->topo = kmpi_topo_dup(c->topo)) == NULL)
        return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for the topology");
    return MPI_SUCCESS;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Comm_split";
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

int MPI_Comm_free(MPI_Comm *comm)
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
    krc = kumi_team_destroy(c->team);   /* a barrier of its members */
    kmpi_topo_free(c->topo);
    kmpi_errh_unref(c->errh);
    kmpi_comms[*comm] = NULL;
    free(c);
    if (krc != KUMI_OK)
        return kmpi_error_kumi(*comm, krc, call, "destroying the communicator's team");
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
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
int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    static const char call[] = "MPI_Comm_get_attr";
    static int        tag_ub = INT_MAX, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE,
                      wtime_global = 0, universe, appnum = 0;
    int               rc;
    struct kmpi_comm *c = comm_check(call, comm, &rc);
    int              *v = NULL;

    if (c == NULL)
        return rc;
    if (attribute_val == NULL || flag == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "attribute_val or flag is NULL");
    switch (comm_keyval) {
    case MPI_TAG_UB:          v = &tag_ub; break;
    case MPI_HOST:            v = &host; break;
    case MPI_IO:              v = &io; break;
    case MPI_WTIME_IS_GLOBAL: v = &wtime_global; break;
    case MPI_UNIVERSE_SIZE:   universe = kumi_size(); v = &universe; break;
    case MPI_APPNUM:          v = &appnum; break;
    default:
        return kmpi_error(comm, MPI_ERR_ARG, call, "keyval %d is none of the predefined "
                          "attributes (MPI_TAG_UB .. MPI_APPNUM; no others exist here)",
                          comm_keyval);
    }
    *(int **)attribute_val = v;
    *flag = 1;
    return MPI_SUCCESS;
}

int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
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

int MPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
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
