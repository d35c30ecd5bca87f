/*
 * topo.c -- process topologies: MPI_Dims_create, Cartesian communicators
 * (Cart_create/coords/rank/shift/get, Cartdim_get), MPI_Topo_test
 * (distributed graphs: topo_dist.c). nbc_nbr.c runs the neighborhood
 * collectives on them.
 *
 * reorder is not acted on: a topology communicator keeps the ranks of
 * the old one (MPI allows that). A Cartesian communicator is a
 * MPI_Comm_split of the old one (the ranks beyond the grid get
 * MPI_COMM_NULL), a distributed graph a MPI_Comm_dup; either way its
 * struct kmpi_comm carries the topology (comm.c frees it, and copies it
 * for MPI_Comm_dup).
 */
#include <stdlib.h>
#include <string.h>

#include "topo.h"


void kmpi_topo_free(struct kmpi_topo *t)
{
    if (t == NULL)
        return;
    free(t->dims);
    free(t->in);
    free(t->inw);
    free(t->gindex);
    free(t);
}

/* ints: one block holding n ints (n 0 included), NULL: no memory */
static int *ints(size_t n)
{
    return malloc((n ? n : 1) * sizeof(int));
}

struct kmpi_topo *kmpi_topo_dup(const struct kmpi_topo *t)
{
    struct kmpi_topo *d;

    if (t == NULL || (d = calloc(1, sizeof(*d))) == NULL)
        return NULL;
    *d = *t;
    d->dims = d->in = d->inw = d->gindex = NULL;
    size_t nd = 3 * (size_t)t->ndims, nn = (size_t)t->indeg + (size_t)t->outdeg;
    size_t ng = t->gindex != NULL ? (size_t)t->gnnodes
                                        + (size_t)(t->gnnodes > 0 ? t->gindex[t->gnnodes - 1] : 0)
                                  : 0;
    if ((d->dims = ints(nd)) == NULL || (d->in = ints(nn)) == NULL
        || (t->weighted && (d->inw = ints(nn)) == NULL)
        || (t->gindex != NULL && (d->gindex = ints(ng)) == NULL)) {
        kmpi_topo_free(d);
        return NULL;
    }
    if (t->gindex != NULL)
        memcpy(d->gindex, t->gindex, ng * sizeof(int));
    memcpy(d->dims, t->dims, nd * sizeof(int));
    memcpy(d->in, t->in, nn * sizeof(int));
    if (t->weighted)
        memcpy(d->inw, t->inw, nn * sizeof(int));
    d->periods = d->dims + t->ndims;
    d->coords  = d->periods + t->ndims;
    d->out     = d->in + t->indeg;
    d->outw    = t->weighted ? d->inw + t->indeg : NULL;
    return d;
}

struct kmpi_topo *kmpi_topo_get(const char *call, MPI_Comm comm, int kind, int *rc)
{
    struct kmpi_comm *c;

    if ((*rc = kmpi_live(call)) != MPI_SUCCESS)
        return NULL;
    if ((c = kmpi_comm_fast(comm)) == NULL) {
        *rc = kmpi_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "%d is no communicator%s", comm,
                         comm == MPI_COMM_NULL ? " (MPI_COMM_NULL)" : "");
        return NULL;
    }
    if (c->topo == NULL || (kind != 0 && c->topo->kind != kind)) {
        *rc = kmpi_error(comm, MPI_ERR_TOPOLOGY, call, "the communicator has %s (%s)",
                         kind == MPI_CART ? "no Cartesian topology" : kind == MPI_GRAPH
                         ? "no graph topology" : "no distributed graph topology",
                         c->topo == NULL ? "none" : c->topo->kind == MPI_CART ? "a Cartesian one"
                         : c->topo->kind == MPI_GRAPH ? "a graph" : "a distributed graph");
        return NULL;
    }
    return c->topo;
}

/* ------------------------------------------------------------ MPI_Dims_create */

/* The balanced factorization (MPI-3.1 7.5.2): the non-increasing k
 * factors of m that are lexicographically smallest, i.e. the largest as
 * small as possible, then the next... dv: m's divisors, ascending.
 * 1 and out[0..k-1] when there is one with every factor <= max. */
static int dims_split(long m, int k, long max, const long *dv, int ndv, int *out)
{
    if (k == 1) {
        if (m > max)
            return 0;
        out[0] = (int)m;
        return 1;
    }
    for (int i = 0; i < ndv && dv[i] <= max; i++) {
        long d = dv[i], p = 1;
        if (m % d != 0)
            continue;
        for (int j = 0; j < k && p < m; j++)   /* d^k >= m: d can be the largest */
            p *= d;
        if (p < m)
            continue;
        if (dims_split(m / d, k - 1, d, dv, ndv, out + 1)) {
            out[0] = (int)d;
            return 1;
        }
    }
    return 0;
}

#pragma weak MPI_Dims_create = PMPI_Dims_create
int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    static const char call[] = "MPI_Dims_create";
    int               rc = kmpi_live(call), nfree = 0;
    long              fixed = 1;

    if (rc != MPI_SUCCESS)
        return rc;
    if (ndims < 0)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_DIMS, call, "ndims %d is negative", ndims);
    if (nnodes <= 0)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_DIMS, call, "nnodes %d is not positive",
                          nnodes);
    if (ndims > 0 && dims == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "dims is NULL");
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return kmpi_error(MPI_COMM_NULL, MPI_ERR_DIMS, call, "dims[%d] = %d is negative", i,
                              dims[i]);
        if (dims[i] == 0)
            nfree++;
        else if ((fixed *= dims[i]) > nnodes)
            break;
    }
    if (nnodes % fixed != 0 || (nfree == 0 && fixed != nnodes))
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_DIMS, call, "%d nodes cannot fill the fixed "
                          "dimensions given (their product%s is %ld)", nnodes,
                          nfree ? " does not divide nnodes:" : "", fixed);
    if (nfree == 0)
        return MPI_SUCCESS;
    /* m's divisors, ascending */
    long m = nnodes / fixed, dv[1600];
    int  ndv = 0, nhi = 0;
    long hi[800];
    for (long d = 1; d * d <= m; d++)
        if (m % d == 0) {
            dv[ndv++] = d;
            if (d * d != m)
                hi[nhi++] = m / d;
        }
    while (nhi > 0)
        dv[ndv++] = hi[--nhi];
    int *f = ints((size_t)nfree);
    if (f == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "no memory");
    dims_split(m, nfree, m, dv, ndv, f);   /* always succeeds: m, 1, 1, ... fits */
    for (int i = 0, j = 0; i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = f[j++];
    free(f);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ Cartesian */

static void cart_coords(const struct kmpi_topo *t, int rank, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

/* the rank at coords (wrapped on periodic dimensions), MPI_PROC_NULL when
 * off a non-periodic edge */
static int cart_rank(const struct kmpi_topo *t, const int *coords)
{
    int rank = 0;

    for (int i = 0; i < t->ndims; i++) {
        int c = coords[i], d = t->dims[i];
        if (c < 0 || c >= d) {
            if (!t->periods[i])
                return MPI_PROC_NULL;
            c = ((c % d) + d) % d;
        }
        rank = rank * d + c;
    }
    return rank;
}

/* the neighbor disp away along dim (MPI_PROC_NULL off an edge) */
static int cart_step(const struct kmpi_topo *t, int dim, long disp)
{
    int  save = t->coords[dim], r;
    long c = save + disp;
    if (t->periods[dim])
        c = ((c % t->dims[dim]) + t->dims[dim]) % t->dims[dim];
    else if (c < 0 || c >= t->dims[dim])
        return MPI_PROC_NULL;
    t->coords[dim] = (int)c;
    r = cart_rank(t, t->coords);
    t->coords[dim] = save;
    return r;
}

/* Gives newcomm (made for it) a Cartesian topology of ndims dimensions
 * (its size is the grid's); on failure newcomm is freed. */
static int cart_attach(const char *call, MPI_Comm newcomm, int ndims, const int *dims,
                       const int *periods)
{
    struct kmpi_comm *nc = kmpi_comm_fast(newcomm);
    struct kmpi_topo *t;

    if ((t = calloc(1, sizeof(*t))) == NULL || (t->dims = ints(3 * (size_t)ndims + 1)) == NULL
        || (t->in = ints(4 * (size_t)ndims + 1)) == NULL) {
        kmpi_topo_free(t);
        PMPI_Comm_free(&newcomm);
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "no memory for the topology");
    }
    t->kind    = MPI_CART;
    t->ndims   = ndims;
    t->periods = t->dims + ndims;
    t->coords  = t->periods + ndims;
    t->indeg = t->outdeg = 2 * ndims;
    t->out = t->in + 2 * ndims;
    for (int i = 0; i < ndims; i++) {
        t->dims[i]    = dims[i];
        t->periods[i] = periods[i] != 0;
    }
    cart_coords(t, nc->rank, t->coords);
    for (int i = 0; i < ndims; i++) {
        t->in[2 * i]     = cart_step(t, i, -1);
        t->in[2 * i + 1] = cart_step(t, i, +1);
    }
    memcpy(t->out, t->in, 2 * (size_t)ndims * sizeof(int));
    kmpi_topo_free(nc->topo);
    nc->topo = t;
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_create = PMPI_Cart_create
int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    static const char  call[] = "MPI_Cart_create";
    int                rc;
    struct kmpi_comm  *c = kmpi_nbc_comm(call, comm_old, NULL, 1, &rc);
    long               cells = 1;
    MPI_Comm           newcomm;

    (void)reorder;   /* ranks are kept */
    if (c == NULL)
        return rc;
    if (c->inter)
        return kmpi_inter_refuse(call, comm_old);
    if (comm_cart == NULL)
        return kmpi_error(comm_old, MPI_ERR_ARG, call, "comm_cart is NULL");
    if (ndims < 0)
        return kmpi_error(comm_old, MPI_ERR_ARG, call, "ndims %d is negative", ndims);
    if (ndims > 0 && (dims == NULL || periods == NULL))
        return kmpi_error(comm_old, MPI_ERR_ARG, call, "%s is NULL",
                          dims == NULL ? "dims" : "periods");
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return kmpi_error(comm_old, MPI_ERR_DIMS, call, "dims[%d] = %d is not positive", i,
                              dims[i]);
        if ((cells *= dims[i]) > c->size)
            return kmpi_error(comm_old, MPI_ERR_ARG, call, "the grid has more cells than the "
                              "communicator's %d processes", c->size);
    }
    rc = PMPI_Comm_split(comm_old, c->rank < cells ? 0 : MPI_UNDEFINED, c->rank, &newcomm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (newcomm == MPI_COMM_NULL) {
        *comm_cart = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    if ((rc = cart_attach(call, newcomm, ndims, dims, periods)) != MPI_SUCCESS)
        return rc;
    *comm_cart = newcomm;
    return MPI_SUCCESS;
}

/* MPI-3.1 7.5.7: the processes with the same coordinates in the dropped
 * dimensions form one grid of the kept ones, ranked in the old order */
#pragma weak MPI_Cart_sub = PMPI_Cart_sub
int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Cart_sub";
    int               rc, color = 0, key = 0, nd = 0, *dims, *periods;
    struct kmpi_topo *t = kmpi_topo_get(call, comm, MPI_CART, &rc);

    if (t == NULL)
        return rc;
    if (newcomm == NULL || (t->ndims > 0 && remain_dims == NULL))
        return kmpi_error(comm, MPI_ERR_ARG, call, "remain_dims or newcomm is NULL");
    if ((dims = ints(2 * (size_t)t->ndims + 1)) == NULL)
        return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory");
    periods = dims + t->ndims;
    for (int i = 0; i < t->ndims; i++)
        if (remain_dims[i]) {
            key = key * t->dims[i] + t->coords[i];
            dims[nd]      = t->dims[i];
            periods[nd++] = t->periods[i];
        } else {
            color = color * t->dims[i] + t->coords[i];
        }
    rc = PMPI_Comm_split(comm, color, key, newcomm);
    if (rc == MPI_SUCCESS && (rc = cart_attach(call, *newcomm, nd, dims, periods))
                             != MPI_SUCCESS)
        *newcomm = MPI_COMM_NULL;   /* cart_attach freed it */
    free(dims);
    return rc;
}

/* MPI-3.1 7.5.8: ranks are kept (as MPI_Cart_create does), so my place is
 * my rank, or none beyond the grid */
#pragma weak MPI_Cart_map = PMPI_Cart_map
int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    static const char call[] = "MPI_Cart_map";
    int               rc;
    struct kmpi_comm *c = kmpi_nbc_comm(call, comm, NULL, 1, &rc);
    long              cells = 1;

    (void)periods;
    if (c == NULL)
        return rc;
    if (c->inter)
        return kmpi_inter_refuse(call, comm);
    if (newrank == NULL || ndims < 0 || (ndims > 0 && dims == NULL))
        return kmpi_error(comm, MPI_ERR_ARG, call, "newrank or dims is NULL, or ndims %d is "
                          "negative", ndims);
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return kmpi_error(comm, MPI_ERR_DIMS, call, "dims[%d] = %d is not positive", i,
                              dims[i]);
        if ((cells *= dims[i]) > c->size)
            return kmpi_error(comm, MPI_ERR_ARG, call, "the grid has more cells than the "
                              "communicator's %d processes", c->size);
    }
    *newrank = c->rank < cells ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_coords = PMPI_Cart_coords
int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    static const char call[] = "MPI_Cart_coords";
    int               rc;
    struct kmpi_topo *t = kmpi_topo_get(call, comm, MPI_CART, &rc);

    if (t == NULL)
        return rc;
    if (rank < 0 || rank >= kmpi_comm_fast(comm)->size)
        return kmpi_error(comm, MPI_ERR_RANK, call, "rank %d is not in the communicator "
                          "(size %d)", rank, kmpi_comm_fast(comm)->size);
    if (maxdims < t->ndims)
        return kmpi_error(comm, MPI_ERR_ARG, call, "maxdims %d is less than the %d dimensions",
                          maxdims, t->ndims);
    if (t->ndims > 0 && coords == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "coords is NULL");
    cart_coords(t, rank, coords);
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_rank = PMPI_Cart_rank
int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    static const char call[] = "MPI_Cart_rank";
    int               rc;
    struct kmpi_topo *t = kmpi_topo_get(call, comm, MPI_CART, &rc);

    if (t == NULL)
        return rc;
    if (rank == NULL || (t->ndims > 0 && coords == NULL))
        return kmpi_error(comm, MPI_ERR_ARG, call, "%s is NULL",
                          rank == NULL ? "rank" : "coords");
    for (int i = 0; i < t->ndims; i++)
        if (!t->periods[i] && (coords[i] < 0 || coords[i] >= t->dims[i]))
            return kmpi_error(comm, MPI_ERR_ARG, call, "coords[%d] = %d is outside the "
                              "non-periodic dimension %d (0..%d)", i, coords[i], i,
                              t->dims[i] - 1);
    *rank = cart_rank(t, coords);
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_shift = PMPI_Cart_shift
int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    static const char call[] = "MPI_Cart_shift";
    int               rc;
    struct kmpi_topo *t = kmpi_topo_get(call, comm, MPI_CART, &rc);

    if (t == NULL)
        return rc;
    if (direction < 0 || direction >= t->ndims)
        return kmpi_error(comm, MPI_ERR_ARG, call, "direction %d is not a dimension (0..%d)",
                          direction, t->ndims - 1);
    if (rank_source == NULL || rank_dest == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "%s is NULL",
                          rank_source == NULL ? "rank_source" : "rank_dest");
    *rank_source = cart_step(t, direction, -(long)disp);
    *rank_dest   = cart_step(t, direction, disp);
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_get = PMPI_Cart_get
int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    static const char call[] = "MPI_Cart_get";
    int               rc;
    struct kmpi_topo *t = kmpi_topo_get(call, comm, MPI_CART, &rc);

    if (t == NULL)
        return rc;
    int n = maxdims < t->ndims ? maxdims : t->ndims;
    if (n > 0 && (dims == NULL || periods == NULL || coords == NULL))
        return kmpi_error(comm, MPI_ERR_ARG, call, "dims, periods or coords is NULL");
    for (int i = 0; i < n; i++) {
        dims[i]    = t->dims[i];
        periods[i] = t->periods[i];
        coords[i]  = t->coords[i];
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Cartdim_get = PMPI_Cartdim_get
int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    static const char call[] = "MPI_Cartdim_get";
    int               rc;
    struct kmpi_topo *t = kmpi_topo_get(call, comm, MPI_CART, &rc);

    if (t == NULL)
        return rc;
    if (ndims == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "ndims is NULL");
    *ndims = t->ndims;
    return MPI_SUCCESS;
}

#pragma weak MPI_Topo_test = PMPI_Topo_test
int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    static const char call[] = "MPI_Topo_test";
    int               rc = kmpi_live(call);
    struct kmpi_comm *c;

    if (rc != MPI_SUCCESS)
        return rc;
    if ((c = kmpi_comm_fast(comm)) == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "%d is no communicator%s", comm,
                          comm == MPI_COMM_NULL ? " (MPI_COMM_NULL)" : "");
    if (status == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "status is NULL");
    *status = c->topo != NULL ? c->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
