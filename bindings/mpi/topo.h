/*
 * topo.h -- the topology a communicator carries (struct kmpi_comm's
 * topo), shared by topo.c, which makes and queries it, and nbc_nbr.c,
 * which runs the neighborhood collectives on it.
 */
#ifndef KUMI_MPI_TOPO_H
#define KUMI_MPI_TOPO_H

#include "nbc.h"

struct kmpi_topo {
    int  kind;      /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH                   */
    int  ndims;     /* Cartesian: dims, periods (0/1) and my coords, ndims
                       each, in one block at dims (a graph: 0, an empty one) */
    int *dims, *periods, *coords;
    int  indeg, outdeg;   /* the neighbors in MPI's order, in one block at in
                             (out = in + indeg); Cartesian: 2 per dimension,
                             -1 then +1, MPI_PROC_NULL off an edge         */
    int *in, *out;
    int  weighted;  /* a graph made with weights: inw/outw as in/out, else NULL */
    int *inw, *outw;
    int  gnnodes;   /* MPI_GRAPH: the whole graph as given, index[gnnodes] then */
    int *gindex;    /* edges[index[gnnodes - 1]] in one block (topo_graph.c)    */
};

/* the topology of comm for call (kind MPI_CART, MPI_GRAPH or
 * MPI_DIST_GRAPH, 0: any), or NULL with the error (MPI_ERR_COMM, MPI_ERR_TOPOLOGY)
 * reported in *rc */
struct kmpi_topo *kmpi_topo_get(const char *call, MPI_Comm comm, int kind, int *rc);

#endif /* KUMI_MPI_TOPO_H */
