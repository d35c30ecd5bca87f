/*
 * typedecode.c -- how a datatype was made: the envelope every public
 * constructor records (MPI_Type_get_envelope, MPI_Type_get_contents,
 * MPI-3.1 4.1.13), and MPI_Type_create_darray, which is built from the
 * other constructors and then records its own envelope.
 *
 * The envelope keeps the arguments exactly as the program passed them
 * (a vector's stride in elements, a subarray's order...), not the
 * engine's flattened form. MPI_Type_get_contents gives predefined types
 * back as their handles and derived ones as new handles (the program
 * frees them): each a new type object equal to the one used, with the
 * same envelope, so a decoder can walk the whole tree.
 */
#include <stdlib.h>
#include <string.h>

#include "datatype.h"

void kmpi_dt_env_free(struct kmpi_dt *t)
{
    for (int i = 0; t->env_types != NULL && i < t->env_nd; i++)
        kmpi_type_release(&t->env_types[i]->pub);
    free(t->env_types);
    free(t->env_ints);
    free(t->env_addrs);
    t->env_types = NULL;
    t->env_ints  = NULL;
    t->env_addrs = NULL;
    t->env_ni = t->env_na = t->env_nd = 0;
}

int kmpi_dt_set_env(const char *call, MPI_Datatype *h, int combiner, int npieces,
                    const struct kmpi_env_piece *ints, int na, const MPI_Aint *addrs, int nd,
                    const MPI_Datatype *types)
{
    struct kmpi_dt *t = kmpi_dt(kmpi_type(*h));
    int             ni = 0;

    for (int i = 0; i < npieces; i++)
        ni += ints[i].n > 0 ? ints[i].n : 0;
    kmpi_dt_env_free(t);   /* a subarray's or darray's replaces its parts' */
    t->env_ints  = malloc((size_t)(ni > 0 ? ni : 1) * sizeof(int));
    t->env_addrs = malloc((size_t)(na > 0 ? na : 1) * sizeof(MPI_Aint));
    t->env_types = malloc((size_t)(nd > 0 ? nd : 1) * sizeof(*t->env_types));
    if (t->env_ints == NULL || t->env_addrs == NULL || t->env_types == NULL) {
        kmpi_dt_env_free(t);
        PMPI_Type_free(h);
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "no memory for the type's "
                          "envelope");
    }
    ni = 0;
    for (int i = 0; i < npieces; i++)
        if (ints[i].n > 0) {
            memcpy(t->env_ints + ni, ints[i].p, (size_t)ints[i].n * sizeof(int));
            ni += ints[i].n;
        }
    if (na > 0)
        memcpy(t->env_addrs, addrs, (size_t)na * sizeof(MPI_Aint));
    for (int i = 0; i < nd; i++) {   /* checked by the constructor: all are types */
        t->env_types[i] = kmpi_dt(kmpi_type(types[i]));
        kmpi_type_hold(&t->env_types[i]->pub);
    }
    t->env_ni   = ni;
    t->env_na   = na;
    t->env_nd   = nd;
    t->combiner = combiner;
    return MPI_SUCCESS;
}

/* the datatype of a decoding call, or NULL with *rc set */
static struct kmpi_dt *decode_type(const char *call, MPI_Datatype h, int *rc)
{
    if ((*rc = kmpi_check_live(call)) != MPI_SUCCESS)
        return NULL;
    return kmpi_dt_get(MPI_COMM_NULL, call, "datatype", h, rc);
}

#pragma weak MPI_Type_get_envelope = PMPI_Type_get_envelope
int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                           int *num_datatypes, int *combiner)
{
    static const char call[] = "MPI_Type_get_envelope";
    int               rc;
    struct kmpi_dt   *t = decode_type(call, datatype, &rc);

    if (t == NULL)
        return rc;
    if (num_integers == NULL || num_addresses == NULL || num_datatypes == NULL
        || combiner == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "an output argument is NULL");
    if (t->pub.predefined) {
        *num_integers = *num_addresses = *num_datatypes = 0;
        *combiner = MPI_COMBINER_NAMED;
        return MPI_SUCCESS;
    }
    *num_integers  = t->env_ni;
    *num_addresses = t->env_na;
    *num_datatypes = t->env_nd;
    *combiner      = t->combiner;
    return MPI_SUCCESS;
}

/* a copy of t's envelope into its equal d */
static int env_copy(struct kmpi_dt *d, const struct kmpi_dt *t)
{
    d->env_ints  = malloc((size_t)(t->env_ni > 0 ? t->env_ni : 1) * sizeof(int));
    d->env_addrs = malloc((size_t)(t->env_na > 0 ? t->env_na : 1) * sizeof(MPI_Aint));
    d->env_types = malloc((size_t)(t->env_nd > 0 ? t->env_nd : 1) * sizeof(*d->env_types));
    if (d->env_ints == NULL || d->env_addrs == NULL || d->env_types == NULL)
        return MPI_ERR_NO_MEM;
    memcpy(d->env_ints, t->env_ints, (size_t)t->env_ni * sizeof(int));
    memcpy(d->env_addrs, t->env_addrs, (size_t)t->env_na * sizeof(MPI_Aint));
    for (int i = 0; i < t->env_nd; i++) {
        d->env_types[i] = t->env_types[i];
        kmpi_type_hold(&d->env_types[i]->pub);
    }
    d->env_ni   = t->env_ni;
    d->env_na   = t->env_na;
    d->env_nd   = t->env_nd;
    d->combiner = t->combiner;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents
int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                           int max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    static const char call[] = "MPI_Type_get_contents";
    int               rc, made = 0;
    struct kmpi_dt   *t = decode_type(call, datatype, &rc);

    if (t == NULL)
        return rc;
    if (t->pub.predefined)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_TYPE, call, "%s is a predefined (named) type: "
                          "it has no contents (MPI_Type_get_envelope says "
                          "MPI_COMBINER_NAMED)", t->pub.name);
    if (max_integers < t->env_ni || max_addresses < t->env_na || max_datatypes < t->env_nd)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "the arrays hold %d integers, %d "
                          "addresses, %d datatypes; the type needs %d, %d, %d (see "
                          "MPI_Type_get_envelope)", max_integers, max_addresses, max_datatypes,
                          t->env_ni, t->env_na, t->env_nd);
    if ((t->env_ni > 0 && array_of_integers == NULL)
        || (t->env_na > 0 && array_of_addresses == NULL)
        || (t->env_nd > 0 && array_of_datatypes == NULL))
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "an output array is NULL");
    for (int i = 0; i < t->env_nd; i++) {
        struct kmpi_dt *o = t->env_types[i], *d;

        MPI_Datatype    h = kmpi_dt_basic_handle(o);

        if (h == MPI_DATATYPE_NULL) {   /* derived: a new object equal to it */
            if ((h = kmpi_dt_dup_of(o)) == MPI_DATATYPE_NULL) {
                rc = MPI_ERR_NO_MEM;
            } else if (env_copy(d = kmpi_dt(kmpi_type(h)), o) != MPI_SUCCESS) {
                PMPI_Type_free(&h);
                rc = MPI_ERR_NO_MEM;
            }
        }
        if (rc != MPI_SUCCESS) {
            while (made-- > 0)
                if (kmpi_dt_basic_handle(kmpi_dt(kmpi_type(array_of_datatypes[made])))
                    == MPI_DATATYPE_NULL)
                    PMPI_Type_free(&array_of_datatypes[made]);
            return kmpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "no memory for a datatype");
        }
        array_of_datatypes[made++] = h;
    }
    if (t->env_ni > 0)
        memcpy(array_of_integers, t->env_ints, (size_t)t->env_ni * sizeof(int));
    if (t->env_na > 0)
        memcpy(array_of_addresses, t->env_addrs, (size_t)t->env_na * sizeof(MPI_Aint));
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ MPI_Type_create_darray */

/* One dimension of a darray (MPI-3.1 4.1.4): the blocks of this process
 * (coordinate coord of psize) among gsize elements of inner (extent e
 * bytes), as a type of lb 0 and extent gsize * e. Block: one block of
 * blk = darg (or ceil(gsize / psize)) elements; cyclic: blocks of darg
 * (or 1) elements dealt round-robin, the last one possibly short; none:
 * the whole dimension. */
static int darray_dim(const char *call, int distrib, int darg, int gsize, int psize, int coord,
                      MPI_Datatype inner, MPI_Aint e, MPI_Datatype *out)
{
    int          blk, nblocks, n = 0, rc;
    int         *lens;
    MPI_Aint    *offs;
    MPI_Datatype t;

    if (distrib == MPI_DISTRIBUTE_NONE) {
        distrib = MPI_DISTRIBUTE_BLOCK;   /* psize is 1: one block of everything */
        darg    = gsize;
    }
    if (distrib == MPI_DISTRIBUTE_BLOCK) {
        blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
        if (blk <= 0 || (long long)blk * psize < gsize)
            return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "a block distribution of %d "
                              "elements over %d processes with darg %d leaves some out (darg "
                              "* psize must be >= gsize)", gsize, psize, darg);
    } else {
        blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        if (blk <= 0)
            return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "cyclic darg %d is not "
                              "positive", darg);
    }
    nblocks = (int)(((long long)gsize + blk - 1) / blk);
    lens    = malloc((size_t)(nblocks / psize + 1) * sizeof(*lens));
    offs    = malloc((size_t)(nblocks / psize + 1) * sizeof(*offs));
    if (lens == NULL || offs == NULL) {
        free(lens);
        free(offs);
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "no memory for %d blocks",
                          nblocks);
    }
    /* block: only block `coord` exists for me; cyclic: coord, coord + psize, ... */
    for (int b = coord; b < nblocks; b += psize) {
        long long first = (long long)b * blk, len = gsize - first < blk ? gsize - first : blk;
        lens[n] = (int)len;
        offs[n] = (MPI_Aint)first * e;
        n++;
        if (distrib == MPI_DISTRIBUTE_BLOCK)
            break;
    }
    rc = PMPI_Type_create_hindexed(n, lens, offs, inner, &t);
    free(lens);
    free(offs);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Type_create_resized(t, 0, (MPI_Aint)gsize * e, out);
    PMPI_Type_free(&t);
    return rc;
}

#pragma weak MPI_Type_create_darray = PMPI_Type_create_darray
int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_darray";
    int               rc = kmpi_check_live(call), *coords;
    long long         nprocs = 1;
    MPI_Aint          lb, e;
    MPI_Datatype      t = MPI_DATATYPE_NULL, u;

    if (rc != MPI_SUCCESS)
        return rc;
    if (ndims < 1 || array_of_gsizes == NULL || array_of_distribs == NULL
        || array_of_dargs == NULL || array_of_psizes == NULL || newtype == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "ndims %d is not positive or an "
                          "array or newtype is NULL", ndims);
    if (size < 1 || rank < 0 || rank >= size)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "rank %d is not in a group of size "
                          "%d", rank, size);
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "order %d is neither MPI_ORDER_C "
                          "nor MPI_ORDER_FORTRAN", order);
    for (int i = 0; i < ndims; i++) {
        int d = array_of_distribs[i];
        if (array_of_gsizes[i] < 1 || array_of_psizes[i] < 1)
            return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "dimension %d: gsize %d and "
                              "psize %d must be positive", i, array_of_gsizes[i],
                              array_of_psizes[i]);
        if (d != MPI_DISTRIBUTE_BLOCK && d != MPI_DISTRIBUTE_CYCLIC && d != MPI_DISTRIBUTE_NONE)
            return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "dimension %d: distribution %d "
                              "is none of MPI_DISTRIBUTE_BLOCK, _CYCLIC, _NONE", i, d);
        if (d == MPI_DISTRIBUTE_NONE && array_of_psizes[i] != 1)
            return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "dimension %d is not "
                              "distributed (MPI_DISTRIBUTE_NONE) but psize is %d, not 1", i,
                              array_of_psizes[i]);
        if (array_of_dargs[i] != MPI_DISTRIBUTE_DFLT_DARG && array_of_dargs[i] < 1)
            return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "dimension %d: darg %d is "
                              "neither positive nor MPI_DISTRIBUTE_DFLT_DARG", i,
                              array_of_dargs[i]);
        nprocs *= array_of_psizes[i];
        if (nprocs > size)
            break;
    }
    if (nprocs != size)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "the process grid (the product of "
                          "array_of_psizes) does not have size %d processes", size);
    if ((rc = PMPI_Type_get_extent(oldtype, &lb, &e)) != MPI_SUCCESS)
        return rc;
    if ((coords = malloc((size_t)ndims * sizeof(int))) == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "no memory");
    /* the process grid is row-major whatever the array's order */
    for (int i = ndims - 1, r = rank; i >= 0; i--) {
        coords[i] = r % array_of_psizes[i];
        r /= array_of_psizes[i];
    }
    /* from the fastest dimension (C: the last, Fortran: the first) out */
    u = oldtype;
    for (int k = 0; k < ndims && rc == MPI_SUCCESS; k++) {
        int d = order == MPI_ORDER_C ? ndims - 1 - k : k;
        rc = darray_dim(call, array_of_distribs[d], array_of_dargs[d], array_of_gsizes[d],
                        array_of_psizes[d], coords[d], u, e, &t);
        if (u != oldtype)
            PMPI_Type_free(&u);
        u = t;
        e *= array_of_gsizes[d];
    }
    free(coords);
    if (rc != MPI_SUCCESS)
        return rc;
    *newtype = t;
    struct kmpi_env_piece p[] = { { &size, 1 },
                                  { &rank, 1 },
                                  { &ndims, 1 },
                                  { array_of_gsizes, ndims },
                                  { array_of_distribs, ndims },
                                  { array_of_dargs, ndims },
                                  { array_of_psizes, ndims },
                                  { &order, 1 } };
    return kmpi_dt_set_env(call, newtype, MPI_COMBINER_DARRAY, 8, p, 0, NULL, 1, &oldtype);
}
