/*
 * topo_graph.c -- graph topologies (MPI-3.1 7.5.3, 7.5.5): MPI_Graph_create
 * and its queries (MPI_Graphdims_get, MPI_Graph_get,
 * MPI_Graph_neighbors_count, MPI_Graph_neighbors), MPI_Graph_map.
 *
 * As for the other topologies, reorder is not acted on: the graph's
 * communicator is a MPI_Comm_split of the old one keeping the first
 * nnodes ranks (the others get MPI_COMM_NULL). It keeps the whole graph
 * for MPI_Graph_get, and its own neighbors, in the graph's order, as both
 * its sources and destinations: the neighborhood collectives (nbc_nbr.c)
 * run on it as on a distributed graph.
 */
#include <stdlib.h>
#include <string.h>

#include "topo.h"

/* the graph's checks (MPI_Graph_create, MPI_Graph_map): index
 * non-decreasing from 0, edges in 0..nnodes-1 */
static int graph_check(const char *call, MPI_Comm comm, int size, int nnodes,
                       const int *index, const int *edges)
{
    if (nnodes < 0 || nnodes > size)
        return kmpi_error(comm, MPI_ERR_ARG, call, "nnodes %d is not in 0..%d (the "
                          "communicator's size)", nnodes, size);
    if (nnodes > 0 && index == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "index is NULL");
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i > 0 ? index[i - 1] : 0))
            return kmpi_error(comm, MPI_ERR_ARG, call, "index[%d] = %d is smaller than the "
                              "one before", i, index[i]);
    int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
    if (nedges > 0 && edges == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "edges is NULL");
    for (int e = 0; e < nedges; e++)
        if (edges[e] < 0 || edges[e] >= nnodes)
            return kmpi_error(comm, MPI_ERR_ARG, call, "edges[%d] = %d is not a node "
                              "(0..%d)", e, edges[e], nnodes - 1);
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_create = PMPI_Graph_create
int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm *comm_graph)
{
    static const char call[] = "MPI_Graph_create";
    int               rc;
    struct kmpi_comm *c = kmpi_nbc_comm(call, comm_old, NULL, 1, &rc), *nc;
    struct kmpi_topo *t;
    MPI_Comm          newcomm;

    (void)reorder;   /* ranks are kept */
    if (c == NULL)
        return rc;
    if (c->inter)
        return kmpi_inter_refuse(call, comm_old);
    if (comm_graph == NULL)
        return kmpi_error(comm_old, MPI_ERR_ARG, call, "comm_graph is NULL");
    if ((rc = graph_check(call, comm_old, c->size, nnodes, index, edges)) != MPI_SUCCESS)
        return rc;
    rc = PMPI_Comm_split(comm_old, c->rank < nnodes ? 0 : MPI_UNDEFINED, c->rank, &newcomm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (newcomm == MPI_COMM_NULL) {
        *comm_graph = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    int nedges = index[nnodes - 1], me = c->rank;
    int first = me > 0 ? index[me - 1] : 0, deg = index[me] - first;
    if ((t = calloc(1, sizeof(*t))) == NULL || (t->dims = malloc(sizeof(int))) == NULL
        || (t->in = malloc((size_t)(2 * deg + 1) * sizeof(int))) == NULL
        || (t->gindex = malloc((size_t)(nnodes + nedges) * sizeof(int))) == NULL) {
        kmpi_topo_free(t);
        PMPI_Comm_free(&newcomm);
        return kmpi_error(comm_old, MPI_ERR_NO_MEM, call, "no memory for the topology");
    }
    t->kind    = MPI_GRAPH;
    t->periods = t->coords = t->dims;
    t->indeg = t->outdeg = deg;
    t->out     = t->in + deg;
    memcpy(t->in, edges + first, (size_t)deg * sizeof(int));
    memcpy(t->out, edges + first, (size_t)deg * sizeof(int));
    t->gnnodes = nnodes;
    memcpy(t->gindex, index, (size_t)nnodes * sizeof(int));
    memcpy(t->gindex + nnodes, edges, (size_t)nedges * sizeof(int));
    nc = kmpi_comm_fast(newcomm);
    kmpi_topo_free(nc->topo);
    nc->topo    = t;
    *comm_graph = newcomm;
    return MPI_SUCCESS;
}

#pragma weak MPI_Graphdims_get = PMPI_Graphdims_get
int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    static const char call[] = "MPI_Graphdims_get";
    int               rc;
    struct kmpi_topo *t = kmpi_topo_get(call, comm, MPI_GRAPH, &rc);

    if (t == NULL)
        return rc;
    if (nnodes == NULL || nedges == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "nnodes or nedges is NULL");
    *nnodes = t->gnnodes;
    *nedges = t->gindex[t->gnnodes - 1];
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_get = PMPI_Graph_get
int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    static const char call[] = "MPI_Graph_get";
    int               rc;
    struct kmpi_topo *t = kmpi_topo_get(call, comm, MPI_GRAPH, &rc);

    if (t == NULL)
        return rc;
    int ni = maxindex < t->gnnodes ? maxindex : t->gnnodes;
    int nedges = t->gindex[t->gnnodes - 1], ne = maxedges < nedges ? maxedges : nedges;
    if (ni < 0 || ne < 0 || (ni > 0 && index == NULL) || (ne > 0 && edges == NULL))
        return kmpi_error(comm, MPI_ERR_ARG, call, "maxindex %d or maxedges %d is negative, or "
                          "an array is NULL", maxindex, maxedges);
    memcpy(index, t->gindex, (size_t)ni * sizeof(int));
    memcpy(edges, t->gindex + t->gnnodes, (size_t)ne * sizeof(int));
    return MPI_SUCCESS;
}

/* the neighbors of rank in t's graph: *first edge, *deg of them */
static int graph_node(const char *call, MPI_Comm comm, const struct kmpi_topo *t, int rank,
                      int *first, int *deg)
{
    if (rank < 0 || rank >= t->gnnodes)
        return kmpi_error(comm, MPI_ERR_RANK, call, "rank %d is not a node of the graph "
                          "(0..%d)", rank, t->gnnodes - 1);
    *first = rank > 0 ? t->gindex[rank - 1] : 0;
    *deg   = t->gindex[rank] - *first;
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_neighbors_count = PMPI_Graph_neighbors_count
int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    static const char call[] = "MPI_Graph_neighbors_count";
    int               rc, first, deg;
    struct kmpi_topo *t = kmpi_topo_get(call, comm, MPI_GRAPH, &rc);

    if (t == NULL)
        return rc;
    if (nneighbors == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "nneighbors is NULL");
    if ((rc = graph_node(call, comm, t, rank, &first, &deg)) != MPI_SUCCESS)
        return rc;
    *nneighbors = deg;
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_neighbors = PMPI_Graph_neighbors
int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    static const char call[] = "MPI_Graph_neighbors";
    int               rc, first, deg;
    struct kmpi_topo *t = kmpi_topo_get(call, comm, MPI_GRAPH, &rc);

    if (t == NULL)
        return rc;
    if ((rc = graph_node(call, comm, t, rank, &first, &deg)) != MPI_SUCCESS)
        return rc;
    int n = maxneighbors < deg ? maxneighbors : deg;
    if (n < 0 || (n > 0 && neighbors == NULL))
        return kmpi_error(comm, MPI_ERR_ARG, call, "maxneighbors %d is negative or neighbors "
                          "is NULL", maxneighbors);
    memcpy(neighbors, t->gindex + t->gnnodes + first, (size_t)n * sizeof(int));
    return MPI_SUCCESS;
}

/* MPI-3.1 7.5.8: no reordering here, so node i is rank i; ranks beyond
 * the graph get MPI_UNDEFINED */
#pragma weak MPI_Graph_map = PMPI_Graph_map
int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    static const char call[] = "MPI_Graph_map";
    int               rc;
    struct kmpi_comm *c = kmpi_nbc_comm(call, comm, NULL, 1, &rc);

    if (c == NULL)
        return rc;
    if (c->inter)
        return kmpi_inter_refuse(call, comm);
    if (newrank == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "newrank is NULL");
    if ((rc = graph_check(call, comm, c->size, nnodes, index, edges)) != MPI_SUCCESS)
        return rc;
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
