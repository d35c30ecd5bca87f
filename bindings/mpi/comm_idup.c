/*
 * comm_idup.c -- MPI_Comm_idup (MPI-3.1 6.4.2): MPI_Comm_dup as a
 * non-blocking collective, a schedule of the non-blocking collectives'
 * engine (nbc.h), so it moves in every MPI call that polls.
 *
 * A communicator is a kumi team, and a team needs a slot that is free on
 * every member. kumi_team_create agrees on one with a blocking allreduce;
 * here the communicator's rank 0 gathers every member's map of slots in
 * use, picks the lowest free on all and sends it back; each member makes
 * its handle of the team there (kumi_coll_team_at), and a last round with
 * rank 0 makes sure all did before any uses it. The program may make
 * other communicators meanwhile (other idups, blocking dups on other
 * communicators), so a member may find the chosen slot taken by then: it
 * says so, every member drops its handle, and the agreement runs again.
 * A member never takes a slot while kumi's own waits run the schedule
 * (a blocking dup elsewhere is between its agreement and its choice): that
 * step waits for the member's next MPI call.
 *
 * The new handle is returned at once (it is not to be used before the
 * request completes); its attributes are copied (the keys' copy
 * callbacks run) in MPI_Comm_idup itself.
 */
#include <stdlib.h>
#include <string.h>

#include "nbc.h"
#include "rt.h"

#define IDUP_TRIES 64   /* agreements before giving up (each lost a race) */

/* what a member sends rank 0 and rank 0 sends back */
struct idup_msg {
    uint64_t used[KUMI_RT_TEAM_WORDS];   /* member: slots in use here        */
    int32_t  ok;                         /* member: ready / took the slot;
                                            rank 0: the verdict             */
    int32_t  slot;                       /* rank 0: the slot, -1: none free  */
};

struct idup {
    struct kmpi_comm *c;        /* the parent                       */
    MPI_Comm          newh;
    struct kmpi_comm *nc;       /* the new one, team set at the end */
    int              *pes;      /* the members' world ranks         */
    struct idup_msg   mine;
    struct idup_msg  *all;      /* rank 0: [1..size)                */
    struct kumi_team *team;     /* my handle of the team, once made */
    int               tries;
    unsigned          seed;     /* rank 0: idup_pick's after a lost race */
    size_t            start;    /* the schedule's first step        */
};

static int idup_snapshot(struct kmpi_sched *s, void *arg)
{
    struct idup *d = arg;

    (void)s;
    memcpy(d->mine.used, kumi_rt.team_slots_used, sizeof(d->mine.used));
    d->mine.ok   = 1;
    d->mine.slot = -1;
    return KMPI_SCHED_NEXT;
}

/* slots this process, as rank 0 of an idup in flight, has handed out:
 * two idups it leads never get the same one */
static uint64_t promised[KUMI_RT_TEAM_WORDS];

static void promise(int slot, int on)
{
    uint64_t bit = (uint64_t)1 << (slot % 64);

    if (on)
        promised[slot / 64] |= bit;
    else
        promised[slot / 64] &= ~bit;
}

/* rank 0: a slot free on every member (and not promised to another idup
 * led here): the lowest the first time; after a lost race one at random,
 * so that two idups led by different processes that keep choosing the
 * same slot part ways */
static int idup_pick(struct kmpi_sched *s, void *arg)
{
    struct idup *d = arg;
    int          nfree = 0, pick;

    (void)s;
    for (int w = 0; w < KUMI_RT_TEAM_WORDS; w++)
        d->mine.used[w] |= promised[w];
    for (int i = 1; i < d->c->size; i++)
        for (int w = 0; w < KUMI_RT_TEAM_WORDS; w++)
            d->mine.used[w] |= d->all[i].used[w];
    for (int k = 1; k < kumi_rt.team_slots; k++)
        nfree += !kumi_rt_team_bit(d->mine.used, k);
    d->mine.slot = -1;
    if (nfree == 0)
        return KMPI_SCHED_NEXT;
    pick = d->tries == 0 ? 0 : rand_r(&d->seed) % nfree;
    for (int k = 1; k < kumi_rt.team_slots && d->mine.slot < 0; k++)
        if (!kumi_rt_team_bit(d->mine.used, k) && pick-- == 0)
            d->mine.slot = k;
    promise(d->mine.slot, 1);
    return KMPI_SCHED_NEXT;
}

/* every member: my handle of the team at the chosen slot, if still free */
static int idup_take(struct kmpi_sched *s, void *arg)
{
    struct idup *d = arg;

    (void)s;
    if (d->mine.slot < 0) {
        d->mine.ok = 0;
        return KMPI_SCHED_NEXT;
    }
    if (kmpi_nbc_in_kumi)
        return KMPI_SCHED_LATER;
    d->mine.ok = !kumi_rt_team_bit(kumi_rt.team_slots_used, d->mine.slot)
                 && kumi_coll_team_at("MPI_Comm_idup", d->pes, d->c->size, d->mine.slot,
                                      &d->team) == KUMI_OK;
    return KMPI_SCHED_NEXT;
}

/* rank 0: the slot holds only if every member took it */
static int idup_verdict(struct kmpi_sched *s, void *arg)
{
    struct idup *d = arg;

    (void)s;
    for (int i = 1; i < d->c->size; i++)
        d->mine.ok &= d->all[i].ok;
    return KMPI_SCHED_NEXT;
}

static void idup_drop_team(struct idup *d)
{
    if (d->team != NULL) {   /* nobody uses it: each member releases its handle alone */
        kumi_rt_team_release_slot(d->team);
        free(d->team->pes);
        free(d->team);
        d->team = NULL;
    }
}

static int idup_finish(struct kmpi_sched *s, void *arg)
{
    struct idup *d = arg;

    if (d->c->rank == 0 && d->mine.slot > 0)
        promise(d->mine.slot, 0);   /* taken or lost: no longer handed out */
    if (d->mine.ok && d->mine.slot > 0 && d->team != NULL) {
        d->nc->team = d->team;
        return KMPI_SCHED_NEXT;
    }
    idup_drop_team(d);
    if (d->mine.slot > 0 && ++d->tries < IDUP_TRIES)
        return (int)d->start;   /* a member lost the slot to another communicator: again */
    kmpi_comms[d->newh] = NULL;   /* the handle the program holds is no communicator */
    kmpi_attr_drop(d->nc);
    kmpi_topo_free(d->nc->topo);
    kmpi_errh_unref(d->nc->errh);
    free(d->nc);
    d->nc = NULL;
    kmpi_sched_fail(s, MPI_ERR_OTHER);
    return KMPI_SCHED_NEXT;
}

#pragma weak MPI_Comm_idup = PMPI_Comm_idup
int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    static const char  call[] = "MPI_Comm_idup";
    int                rc, slot, n;
    struct kmpi_comm  *c = kmpi_nbc_comm(call, comm, request, 0, &rc), *nc;
    struct kmpi_sched *s;
    struct idup       *d;

    if (c == NULL)
        return rc;
    if (newcomm == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "newcomm is NULL");
    if (c->inter)
        return kmpi_inter_idup(call, comm, c, newcomm, request);
    n = c->size;
    if ((s = kmpi_sched_new(call, comm, c)) == NULL)
        return MPI_ERR_NO_MEM;
    d = kmpi_sched_tmp(s, sizeof(*d));
    if (d != NULL) {
        memset(d, 0, sizeof(*d));
        d->pes = kmpi_sched_tmp(s, (size_t)n * sizeof(int));
        d->all = c->rank == 0 ? kmpi_sched_tmp(s, (size_t)n * sizeof(*d->all)) : NULL;
    }
    if (d == NULL || d->pes == NULL || (c->rank == 0 && d->all == NULL)
        || (slot = kmpi_comm_slot()) < 0 || (nc = calloc(1, sizeof(*nc))) == NULL) {
        kmpi_sched_discard(s);
        return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for a communicator");
    }
    for (int i = 0; i < n; i++)
        d->pes[i] = kumi_team_pe(c->team, i);
    /* the new communicator, without its team until the schedule ends */
    nc->rank = c->rank;
    nc->size = n;
    nc->psize = n;
    nc->errh = c->errh;
    kmpi_errh_ref(c->errh);
    kmpi_comms[slot] = nc;
    d->c    = c;
    d->seed = (unsigned)(kumi_rank() * 7919 + slot * 104729) ^ (unsigned)(uintptr_t)d;
    d->newh = slot;
    d->nc   = nc;
    if ((rc = kmpi_attr_copy(call, comm, slot)) != MPI_SUCCESS
        || (c->topo != NULL && (nc->topo = kmpi_topo_dup(c->topo)) == NULL)) {
        kmpi_attr_drop(nc);   /* the copies made: no callbacks (the dup did not happen) */
        kmpi_topo_free(nc->topo);
        kmpi_comms[slot] = NULL;
        kmpi_errh_unref(nc->errh);
        free(nc);
        kmpi_sched_discard(s);
        return rc != MPI_SUCCESS ? rc
                                 : kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for the "
                                              "topology");
    }
    /* the agreement: rank 0 gathers the maps, picks, gathers the takes,
     * tells the verdict; the tags' sub numbers keep the rounds apart */
    d->start = kmpi_sched_mark(s);
    kmpi_sched_call(s, idup_snapshot, d);
    for (int i = 1; i < n; i++)
        if (c->rank == 0)
            kmpi_sched_recv(s, &d->all[i], sizeof(d->all[i]), i, 0);
    if (c->rank != 0)
        kmpi_sched_send(s, &d->mine, sizeof(d->mine), 0, 0);
    kmpi_sched_wait(s);
    if (c->rank == 0)
        kmpi_sched_call(s, idup_pick, d);
    for (int i = 1; i < n; i++)
        if (c->rank == 0)
            kmpi_sched_send(s, &d->mine, sizeof(d->mine), i, 1);
    if (c->rank != 0)
        kmpi_sched_recv(s, &d->mine, sizeof(d->mine), 0, 1);
    kmpi_sched_wait(s);
    kmpi_sched_call(s, idup_take, d);
    for (int i = 1; i < n; i++)
        if (c->rank == 0)
            kmpi_sched_recv(s, &d->all[i], sizeof(d->all[i]), i, 2);
    if (c->rank != 0)
        kmpi_sched_send(s, &d->mine, sizeof(d->mine), 0, 2);
    kmpi_sched_wait(s);
    if (c->rank == 0)
        kmpi_sched_call(s, idup_verdict, d);
    for (int i = 1; i < n; i++)
        if (c->rank == 0)
            kmpi_sched_send(s, &d->mine, sizeof(d->mine), i, 3);
    if (c->rank != 0)
        kmpi_sched_recv(s, &d->mine, sizeof(d->mine), 0, 3);
    kmpi_sched_wait(s);
    kmpi_sched_call(s, idup_finish, d);
    *newcomm = slot;
    return kmpi_sched_start(s, request);
}

/* ------------------------------------------------------------ MPI_Comm_free's release
 * MPI_Comm_free does not wait for the other members (MPICH and Open MPI
 * free locally too, and programs free communicators in different orders
 * on different ranks). The team slot must still not be reused while a
 * member could write into it, which kumi_team_destroy ensures with a
 * barrier; here the same barrier runs as a schedule (dissemination over
 * the communicator's collective context) and releases the slot when it
 * completes, from any later MPI call that polls. MPI_Finalize waits for
 * the schedules still running (freed requests, kmpi_req_fini). */

static int      releasing;      /* release schedules not finished */
static unsigned release_starts; /* release schedules started, ever */
static unsigned reclaim_gave_up = ~0u;  /* release_starts when a wait timed out */

static int release_team(struct kmpi_sched *s, void *arg)
{
    struct kmpi_comm *c = arg;

    (void)s;
    releasing--;
    kumi_rt_team_release_slot(c->team);
    free(c->team->pes);
    free(c->team);
    free(c);
    return KMPI_SCHED_NEXT;
}

int kmpi_comm_release(const char *call, struct kmpi_comm *c)
{
    struct kmpi_sched *s = kmpi_sched_new(call, MPI_COMM_WORLD, c);
    MPI_Request        req;
    int                rc;

    if (s == NULL)
        return MPI_ERR_NO_MEM;
    for (int k = 1; k < c->size; k <<= 1) {
        kmpi_sched_send(s, NULL, 0, (c->rank + k) % c->size, 0);
        kmpi_sched_recv(s, NULL, 0, (c->rank - k + c->size) % c->size, 0);
        kmpi_sched_wait(s);
    }
    kmpi_sched_call(s, release_team, c);
    releasing++;
    release_starts++;
    if ((rc = kmpi_sched_start(s, &req)) != MPI_SUCCESS) {
        releasing--;
        return rc;
    }
    return PMPI_Request_free(&req);
}

#define KMPI_RECLAIM_WAIT_S 5   /* how long a constructor waits for releases */

/* every release done, or the wait's deadline (*arg) passed */
static int released(void *arg)
{
    return releasing == 0 || kumi_wtime() > *(const double *)arg;
}

/* Before a blocking constructor takes a team slot: when few slots are free
 * here and freed communicators still hold some, wait for their releases
 * (their other members release them from any MPI call that waits). Only
 * then: a program may free a communicator on one rank after a constructor
 * that another rank enters first. The wait is bounded: a release that needs
 * the other members to free the communicator too may never come while they
 * wait in this constructor for me (MPICH's cmfree: one rank frees a dup, then
 * all split); after KMPI_RECLAIM_WAIT_S the constructor goes on with the
 * slots there are (and fails with the limit's error if none is free), and
 * later constructors do not wait again until another release starts. */
void kmpi_comm_reclaim(const char *call)
{
    int    used = 0;
    double deadline;

    if (releasing == 0 || reclaim_gave_up == release_starts)
        return;
    for (int k = 0; k < kumi_rt.team_slots; k++)
        used += kumi_rt_team_bit(kumi_rt.team_slots_used, k);
    if (kumi_rt.team_slots - used >= 4)
        return;
    deadline = kumi_wtime() + KMPI_RECLAIM_WAIT_S;
    kmpi_wait_until(call, released, &deadline);
    if (releasing != 0)
        reclaim_gave_up = release_starts;
}
