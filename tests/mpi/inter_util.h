/*
 * inter_util.h -- what the intercommunicator tests (inter_*.c) share: the
 * ways they split MPI_COMM_WORLD into two groups and join them with
 * MPI_Intercomm_create. Plain MPI, on top of coll_util.h.
 */
#ifndef INTER_UTIL_H
#define INTER_UTIL_H

#include "coll_util.h"

#define IU_NSPLITS 4

/* The two groups of split way k (0 or 1: which one world rank w is in)
 * and which local rank leads each group. Every way has both groups
 * non-empty at 2 or more ranks. */
static inline int iu_color(int k, int w, int n)
{
    switch (k) {
    case 0: return w % 2;                  /* even / odd                  */
    case 1: return w >= 1;                 /* rank 0 alone / the rest     */
    case 2: return w < n - 1;              /* the last alone, first group */
    default: return w >= (n + 1) / 2;      /* halves                      */
    }
}
static inline int iu_leader(int k, int color, int lsize)
{
    /* way 0: both lead from rank 0; the others: group 1 from its last rank */
    return k == 0 || color == 0 ? 0 : lsize - 1;
}

/* world ranks of group g of way k, in world order: into out, count returned */
static inline int iu_members(int k, int g, int n, int *out)
{
    int m = 0;
    for (int w = 0; w < n; w++)
        if (iu_color(k, w, n) == g)
            out[m++] = w;
    return m;
}

/* The intercommunicator of way k (*color: my group; *local: the local
 * communicator, to be freed by the caller). peer: the peer communicator
 * (MPI_COMM_WORLD or a duplicate of it). */
static inline MPI_Comm iu_make(int k, MPI_Comm peer, int tag, int *color, MPI_Comm *local)
{
    int      n = cu_size, w = cu_rank, mine[64], other[64];
    MPI_Comm ic = MPI_COMM_NULL;

    *color = iu_color(k, w, n);
    int nm = iu_members(k, *color, n, mine), no = iu_members(k, !*color, n, other);
    CU_OK(MPI_Comm_split(MPI_COMM_WORLD, *color, w, local));
    int ll = iu_leader(k, *color, nm), rl = other[iu_leader(k, !*color, no)];
    CU_OK(MPI_Intercomm_create(*local, ll, peer, rl, tag, &ic));
    return ic;
}

#endif /* INTER_UTIL_H */
