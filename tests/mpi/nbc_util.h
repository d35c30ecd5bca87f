/*
 * nbc_util.h -- what the tests of non-blocking and neighborhood
 * collectives, topologies, groups and windows (tests/mpi/nbc_*.c,
 * topo_*.c, group_*.c, win_*.c) share beyond coll_util.h (failure
 * counting, sections, deterministic values): int arrays and a
 * non-commutative user operation. Plain MPI: every test builds with
 * another MPI's mpicc too and prints the same lines (rank 0 only).
 */
#ifndef NBC_UTIL_H
#define NBC_UTIL_H

#include "coll_util.h"   /* failure counting, sections, cu_val */

static inline int *nu_ints(size_t n)
{
    int *p = malloc((n ? n : 1) * sizeof(int));
    if (p == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    return p;
}

/* A non-commutative operation: an element is an affine map x -> a x + b
 * (unsigned, wrapping); "l op r" is l then r, i.e. r(l(x)). MPI hands
 * the function (in, inout) and wants inout = in op inout. */
typedef struct {
    unsigned a, b;
} nu_affine;

static inline void nu_affine_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const nu_affine *l = in;
    nu_affine       *r = inout;

    (void)dt;
    for (int i = 0; i < *len; i++) {
        nu_affine v = { l[i].a * r[i].a, r[i].a * l[i].b + r[i].b };
        r[i]        = v;
    }
}

static inline nu_affine nu_affine_of(int rank, int i)
{
    nu_affine v = { 2u * (unsigned)rank + 3u + (unsigned)i, (unsigned)rank * 7u + (unsigned)i };
    return v;
}

static inline nu_affine nu_affine_then(nu_affine l, nu_affine r)
{
    nu_affine v = { l.a * r.a, r.a * l.b + r.b };
    return v;
}

/* ranks lo..hi's elements i in rank order */
static inline nu_affine nu_affine_range(int lo, int hi, int i)
{
    nu_affine v = nu_affine_of(lo, i);
    for (int r = lo + 1; r <= hi; r++)
        v = nu_affine_then(v, nu_affine_of(r, i));
    return v;
}

#endif /* NBC_UTIL_H */
