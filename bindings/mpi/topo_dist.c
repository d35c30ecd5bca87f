/*
 * topo_dist.c -- distributed graph topologies (MPI-3.1 7.5.4):
 * MPI_Dist_graph_create_adjacent (each process names its own neighbors),
 * MPI_Dist_graph_create (any process names any edges; an all-to-all
 * exchange tells every process its own), MPI_Dist_graph_neighbors_count,
 * MPI_Dist_graph_neighbors. nbc_nbr.c runs the neighborhood collectives
 * on them.
 *
 * A distributed graph is an MPI_Comm_dup of the old communicator that
 * carries the topology (reorder is not acted on: the ranks are kept).
 * MPI_Dist_graph_create orders a process's sources and destinations by
 * the rank that named the edge, then in the order that rank gave them
 * (MPI leaves the order to the implementation; the neighborhood
 * collectives use the same one).
 */
#include <stdlib.h>
#include <string.h>

#include "topo.h"

const int kmpi_weights_empty[1];   /* MPI_WEIGHTS_EMPTY points here (mpi.h) */

/* ints: one block holding n ints (n 0 included), NULL: no memory */
static int *ints(size_t n)
{
    return malloc((n ? n : 1) * sizeof(int));
}

/* ------------------------------------------------------------ distributed graphs */

/* a neighbor list's check: ranks of the communicator (or MPI_PROC_NULL),
 * weights >= 0 when given */
static int adj_check(const char *call, MPI_Comm comm, int size, int n, const int *ranks,
                     const int *weights, const char *what)
{
    if (n < 0)
        return kmpi_error(comm, MPI_ERR_ARG, call, "%sdegree %d is negative", what, n);
    if (n > 0 && ranks == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "the %s list is NULL", what);
    if (n > 0 && weights == MPI_WEIGHTS_EMPTY)
        return kmpi_error(comm, MPI_ERR_ARG, call, "MPI_WEIGHTS_EMPTY given for %d %s "
                          "neighbors", n, what);
    for (int i = 0; i < n; i++) {
        if ((ranks[i] < 0 || ranks[i] >= size) && ranks[i] != MPI_PROC_NULL)
            return kmpi_error(comm, MPI_ERR_RANK, call, "%s neighbor %d is rank %d, not in the "
                              "communicator (size %d)", what, i, ranks[i], size);
        if (weights != MPI_UNWEIGHTED && weights != MPI_WEIGHTS_EMPTY && weights[i] < 0)
            return kmpi_error(comm, MPI_ERR_ARG, call, "%s weight %d is negative (%d)", what,
                              i, weights[i]);
    }
    return MPI_SUCCESS;
}

/* The distributed graph on comm_old with these neighbor lists (weighted:
 * with the weights inw/outw, read only for degrees above 0) into
 * *comm_dist_graph. */
static int dist_make(const char *call, MPI_Comm comm_old, int weighted, int indegree,
                     const int *in, const int *inw, int outdegree, const int *out,
                     const int *outw, MPI_Comm *comm_dist_graph)
{
    struct kmpi_comm *nc;
    struct kmpi_topo *t;
    MPI_Comm          newcomm;
    int               rc;
    size_t            nn = (size_t)indegree + (size_t)outdegree;

    if ((t = calloc(1, sizeof(*t))) == NULL || (t->dims = ints(0)) == NULL
        || (t->in = ints(nn)) == NULL || (weighted && (t->inw = ints(nn)) == NULL)) {
        kmpi_topo_free(t);
        return kmpi_error(comm_old, MPI_ERR_NO_MEM, call, "no memory for the topology");
    }
    t->kind     = MPI_DIST_GRAPH;
    t->indeg    = indegree;
    t->outdeg   = outdegree;
    t->out      = t->in + indegree;
    t->weighted = weighted;
    t->periods = t->coords = t->dims;
    if (indegree > 0)
        memcpy(t->in, in, (size_t)indegree * sizeof(int));
    if (outdegree > 0)
        memcpy(t->out, out, (size_t)outdegree * sizeof(int));
    if (weighted) {
        t->outw = t->inw + indegree;
        if (indegree > 0)
            memcpy(t->inw, inw, (size_t)indegree * sizeof(int));
        if (outdegree > 0)
            memcpy(t->outw, outw, (size_t)outdegree * sizeof(int));
    }
    if ((rc = PMPI_Comm_dup(comm_old, &newcomm)) != MPI_SUCCESS) {
        kmpi_topo_free(t);
        return rc;
    }
    nc = kmpi_comm_fast(newcomm);
    kmpi_topo_free(nc->topo);   /* a copy of comm_old's, if it had one */
    nc->topo = t;
    *comm_dist_graph = newcomm;
    return MPI_SUCCESS;
}

#pragma weak MPI_Dist_graph_create_adjacent = PMPI_Dist_graph_create_adjacent
int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    static const char call[] = "MPI_Dist_graph_create_adjacent";
    int               rc;
    struct kmpi_comm *c = kmpi_nbc_comm(call, comm_old, NULL, 1, &rc);

    (void)info;      /* no hints are used */
    (void)reorder;   /* ranks are kept */
    if (c == NULL)
        return rc;
    if (c->inter)
        return kmpi_inter_refuse(call, comm_old);
    if (comm_dist_graph == NULL)
        return kmpi_error(comm_old, MPI_ERR_ARG, call, "comm_dist_graph is NULL");
    if ((rc = adj_check(call, comm_old, c->size, indegree, sources, sourceweights, "in"))
            != MPI_SUCCESS
        || (rc = adj_check(call, comm_old, c->size, outdegree, destinations, destweights,
                           "out")) != MPI_SUCCESS)
        return rc;
    /* MPI_WEIGHTS_EMPTY (no neighbors on that side) is weighted */
    return dist_make(call, comm_old,
                     sourceweights != MPI_UNWEIGHTED && destweights != MPI_UNWEIGHTED, indegree,
                     sources, sourceweights, outdegree, destinations, destweights,
                     comm_dist_graph);
}

/* MPI_Dist_graph_create's exchange: a record per edge end, (side, peer,
 * weight), side OUT to the edge's source ("an edge to peer"), IN to its
 * destination ("an edge from peer") */
enum { DIST_OUT = 0, DIST_IN = 1, DIST_REC = 3 };

#pragma weak MPI_Dist_graph_create = PMPI_Dist_graph_create
int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info,
                           int reorder, MPI_Comm *comm_dist_graph)
{
    static const char call[] = "MPI_Dist_graph_create";
    int               rc;
    struct kmpi_comm *c = kmpi_nbc_comm(call, comm_old, NULL, 1, &rc);

    (void)info;      /* no hints are used */
    (void)reorder;   /* ranks are kept */
    if (c == NULL)
        return rc;
    if (c->inter)
        return kmpi_inter_refuse(call, comm_old);
    if (comm_dist_graph == NULL)
        return kmpi_error(comm_old, MPI_ERR_ARG, call, "comm_dist_graph is NULL");
    if (n < 0)
        return kmpi_error(comm_old, MPI_ERR_ARG, call, "n %d is negative", n);
    if (n > 0 && (sources == NULL || degrees == NULL))
        return kmpi_error(comm_old, MPI_ERR_ARG, call, "%s is NULL for %d sources",
                          sources == NULL ? "sources" : "degrees", n);
    int    size   = c->size;
    size_t nedges = 0;
    for (int i = 0; i < n; i++) {
        if (sources[i] < 0 || sources[i] >= size)
            return kmpi_error(comm_old, MPI_ERR_RANK, call, "source %d is rank %d, not in the "
                              "communicator (size %d)", i, sources[i], size);
        if (degrees[i] < 0)
            return kmpi_error(comm_old, MPI_ERR_ARG, call, "degree %d is negative (%d)", i,
                              degrees[i]);
        nedges += (size_t)degrees[i];
    }
    if (nedges > (size_t)0x7fffffff / (2 * DIST_REC))
        return kmpi_error(comm_old, MPI_ERR_ARG, call, "%zu edges are too many", nedges);
    if (nedges > 0 && destinations == NULL)
        return kmpi_error(comm_old, MPI_ERR_ARG, call, "destinations is NULL for %zu edges",
                          nedges);
    if (nedges > 0 && weights == MPI_WEIGHTS_EMPTY)
        return kmpi_error(comm_old, MPI_ERR_ARG, call, "MPI_WEIGHTS_EMPTY given for %zu "
                          "edges", nedges);
    int weighted = weights != MPI_UNWEIGHTED;
    for (size_t k = 0; k < nedges; k++) {
        if (destinations[k] < 0 || destinations[k] >= size)
            return kmpi_error(comm_old, MPI_ERR_RANK, call, "destination %zu is rank %d, not "
                              "in the communicator (size %d)", k, destinations[k], size);
        if (weighted && weights[k] < 0)
            return kmpi_error(comm_old, MPI_ERR_ARG, call, "weight %zu is negative (%d)", k,
                              weights[k]);
    }
    /* MPI_UNWEIGHTED everywhere or nowhere (MPI-3.1 7.5.4) */
    int wf[2] = { weighted, !weighted }, wall[2];
    if ((rc = PMPI_Allreduce(wf, wall, 2, MPI_INT, MPI_MAX, comm_old)) != MPI_SUCCESS)
        return rc;
    if (wall[0] && wall[1])
        return kmpi_error(comm_old, MPI_ERR_ARG, call, "some processes gave MPI_UNWEIGHTED, "
                          "others weights");

    int *cnt = calloc(4 * (size_t)size, sizeof(int)), *sbuf = ints(2 * DIST_REC * nedges);
    int *rbuf = NULL, *lists = NULL;
    if (cnt == NULL || sbuf == NULL) {
        rc = kmpi_error(comm_old, MPI_ERR_NO_MEM, call, "no memory for %zu edges", nedges);
        goto out;
    }
    int *scount = cnt, *sdispl = cnt + size, *rcount = cnt + 2 * size, *rdispl = cnt + 3 * size;
    size_t k = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, k++) {
            scount[sources[i]] += DIST_REC;
            scount[destinations[k]] += DIST_REC;
        }
    for (int p = 1; p < size; p++)
        sdispl[p] = sdispl[p - 1] + scount[p - 1];
    k = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, k++) {
            int  s = sources[i], d = destinations[k], w = weighted ? weights[k] : 0;
            int *o = sbuf + sdispl[s], *in;
            o[0] = DIST_OUT, o[1] = d, o[2] = w;
            sdispl[s] += DIST_REC;
            in = sbuf + sdispl[d];
            in[0] = DIST_IN, in[1] = s, in[2] = w;
            sdispl[d] += DIST_REC;
        }
    for (int p = 0; p < size; p++)   /* back to the starts */
        sdispl[p] -= scount[p];
    if ((rc = PMPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, comm_old)) != MPI_SUCCESS)
        goto out;
    size_t total = (size_t)rcount[0];
    for (int p = 1; p < size; p++) {
        rdispl[p] = rdispl[p - 1] + rcount[p - 1];
        total += (size_t)rcount[p];
    }
    if ((rbuf = ints(total)) == NULL || (lists = ints(2 * (total / DIST_REC))) == NULL) {
        rc = kmpi_error(comm_old, MPI_ERR_NO_MEM, call, "no memory for %zu edge ends",
                        total / DIST_REC);
        goto out;
    }
    if ((rc = PMPI_Alltoallv(sbuf, scount, sdispl, MPI_INT, rbuf, rcount, rdispl, MPI_INT,
                             comm_old)) != MPI_SUCCESS)
        goto out;
    /* in the order of the ranks that named the edges, then their order */
    int indeg = 0, outdeg = 0;
    for (size_t r = 0; r < total; r += DIST_REC)
        indeg += rbuf[r] == DIST_IN, outdeg += rbuf[r] == DIST_OUT;
    size_t ne = (size_t)indeg + (size_t)outdeg;
    int   *in = lists, *out = lists + indeg, *inw = lists + ne, *outw = inw + indeg;
    int    ii = 0, oi = 0;
    for (size_t r = 0; r < total; r += DIST_REC)
        if (rbuf[r] == DIST_IN)
            in[ii] = rbuf[r + 1], inw[ii++] = rbuf[r + 2];
        else
            out[oi] = rbuf[r + 1], outw[oi++] = rbuf[r + 2];
    rc = dist_make(call, comm_old, weighted, indeg, in, inw, outdeg, out, outw,
                   comm_dist_graph);
out:
    free(lists);
    free(rbuf);
    free(sbuf);
    free(cnt);
    return rc;
}

#pragma weak MPI_Dist_graph_neighbors_count = PMPI_Dist_graph_neighbors_count
int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    static const char call[] = "MPI_Dist_graph_neighbors_count";
    int               rc;
    struct kmpi_topo *t = kmpi_topo_get(call, comm, MPI_DIST_GRAPH, &rc);

    if (t == NULL)
        return rc;
    if (indegree == NULL || outdegree == NULL || weighted == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "indegree, outdegree or weighted is NULL");
    *indegree  = t->indeg;
    *outdegree = t->outdeg;
    *weighted  = t->weighted;
    return MPI_SUCCESS;
}

#pragma weak MPI_Dist_graph_neighbors = PMPI_Dist_graph_neighbors
int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[])
{
    static const char call[] = "MPI_Dist_graph_neighbors";
    int               rc;
    struct kmpi_topo *t = kmpi_topo_get(call, comm, MPI_DIST_GRAPH, &rc);

    if (t == NULL)
        return rc;
    if (maxindegree < 0 || maxoutdegree < 0)
        return kmpi_error(comm, MPI_ERR_ARG, call, "maxindegree %d or maxoutdegree %d is "
                          "negative", maxindegree, maxoutdegree);
    int nin = maxindegree < t->indeg ? maxindegree : t->indeg;
    int nout = maxoutdegree < t->outdeg ? maxoutdegree : t->outdeg;
    if ((nin > 0 && sources == NULL) || (nout > 0 && destinations == NULL))
        return kmpi_error(comm, MPI_ERR_ARG, call, "%s is NULL",
                          nin > 0 && sources == NULL ? "sources" : "destinations");
    for (int i = 0; i < nin; i++) {
        sources[i] = t->in[i];
        if (t->weighted && sourceweights != MPI_UNWEIGHTED)
            sourceweights[i] = t->inw[i];
    }
    for (int i = 0; i < nout; i++) {
        destinations[i] = t->out[i];
        if (t->weighted && destweights != MPI_UNWEIGHTED)
            destweights[i] = t->outw[i];
    }
    return MPI_SUCCESS;
}
