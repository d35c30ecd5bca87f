/*
 * nbc_util.h -- what the tests of non-blocking and neighborhood
 * collectives, topologies, groups and windows (tests/mpi/nbc_*.c,
 * topo_*.c, group_*.c, win_*.c) share: failure counting, sections that
 * end the job when any rank failed, deterministic values, and a
 * non-commutative user operation. Plain MPI: every test builds with
 * another MPI's mpicc too and prints the same lines (rank 0 only).
 */
#ifndef NBC_UTIL_H
#define NBC_UTIL_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nu_rank = -1, nu_size, nu_fail;

#define NU_CHECK(cond, ...)                                                                  \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            if (nu_fail++ < 20) {                                                            \
                fprintf(stderr, "FAIL %s:%d: rank %d: %s: ", __FILE__, __LINE__, nu_rank,    \
                        #cond);                                                              \
                fprintf(stderr, __VA_ARGS__);                                                \
                fputc('\n', stderr);                                                         \
            }                                                                                \
        }                                                                                    \
    } while (0)

#define NU_OK(call)                                                                          \
    do {                                                                                     \
        int rc_ = (call);                                                                    \
        NU_CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_);                           \
    } while (0)

/* the error class of rc */
static inline int nu_class(int rc)
{
    int c = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &c);
    return c;
}

static inline void nu_init(int *argc, char ***argv)
{
    if (MPI_Init(argc, argv) != MPI_SUCCESS) {
        fprintf(stderr, "MPI_Init failed\n");
        exit(2);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &nu_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nu_size);
}

/* every rank's failures so far: none, rank 0 prints "name: ok"; some, the
 * job ends with status 1 */
static inline void nu_section(const char *name)
{
    int total = 0;

    MPI_Allreduce(&nu_fail, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (total != 0) {
        if (nu_rank == 0)
            fprintf(stderr, "%s: %d failures\n", name, total);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (nu_rank == 0) {
        printf("%s: ok\n", name);
        fflush(stdout);
    }
}

static inline int *nu_ints(size_t n)
{
    int *p = malloc((n ? n : 1) * sizeof(int));
    if (p == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    return p;
}

/* a value that depends on its sender, its element and a salt */
static inline int nu_val(int rank, int i, int salt)
{
    return rank * 1000 + i * 3 + salt * 7 + 1;
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
