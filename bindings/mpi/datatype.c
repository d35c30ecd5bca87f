/*
 * datatype.c -- MPI datatypes: the handle table, the predefined types
 * (from mpi.h's KMPI_PREDEFINED_TYPES), the constructors, sizes and
 * bounds, names, commit and free, MPI_Get_address. typemap.c flattens a
 * committed type and packs with it.
 *
 * Bounds follow MPI-3.1 4.1.6 on the typemap itself: lb is the lowest
 * displacement of its entries and ub the end of the highest, rounded up
 * to the largest alignment of its basic entries, unless it holds the
 * lb/ub markers of a Type_create_resized (they then decide, and nothing
 * is rounded). Every constructor computes them from its parts' bounds in
 * closed form, so a vector of a billion elements costs nothing to build.
 *
 * Derived handles start at KMPI_DT_FIRST; the slot of a freed handle is
 * reused. A type is kept alive by its handle, by every type built on it
 * and by pending operations (kmpi_type_hold), and goes with the last.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datatype.h"

/* ------------------------------------------------------------ predefined */
/* a pair type's value bytes and the offset of its int (MPI-3.1 5.9.4
 * defines MPI_DOUBLE_INT etc. as a struct of the value and an int) */
#define KMPI_PAIR_VLEN(ct)                                                                   \
    _Generic((ct *)0, kmpi_float_int_t *: sizeof(float), kmpi_double_int_t *: sizeof(double), \
             kmpi_long_int_t *: sizeof(long), kmpi_2int_t *: sizeof(int),                    \
             kmpi_short_int_t *: sizeof(short), kmpi_long_double_int_t *: sizeof(long double), \
             default: (size_t)0)
#define KMPI_PAIR_IOFF(ct)                                                                   \
    _Generic((ct *)0, kmpi_float_int_t *: offsetof(kmpi_float_int_t, i),                     \
             kmpi_double_int_t *: offsetof(kmpi_double_int_t, i),                            \
             kmpi_long_int_t *: offsetof(kmpi_long_int_t, i),                                \
             kmpi_2int_t *: offsetof(kmpi_2int_t, i),                                        \
             kmpi_short_int_t *: offsetof(kmpi_short_int_t, i),                              \
             kmpi_long_double_int_t *: offsetof(kmpi_long_double_int_t, i), default: (size_t)0)
/* bytes of data, and the end of the data (the padding of a pair excluded) */
#define KMPI_BASIC_SIZE(ct) (KMPI_PAIR_VLEN(ct) ? KMPI_PAIR_VLEN(ct) + sizeof(int) : sizeof(ct))
#define KMPI_BASIC_END(ct)  (KMPI_PAIR_VLEN(ct) ? KMPI_PAIR_IOFF(ct) + sizeof(int) : sizeof(ct))
/* a hole between a pair's value and its int (MPI_SHORT_INT) */
#define KMPI_BASIC_SPLIT(ct) (KMPI_PAIR_IOFF(ct) > KMPI_PAIR_VLEN(ct))

#define KMPI_DT_FIRST 64   /* the first derived handle */
#define X(name, ct, h)                                                                       \
    _Static_assert((h) > 0 && (h) < KMPI_BASIC_MAX && (h) < KMPI_DT_FIRST, "handle of " #name);
KMPI_PREDEFINED_TYPES(X)
#undef X

static struct kmpi_dt_run basic_runs[KMPI_BASIC_MAX][2] = {
#define X(name, ct, h)                                                                       \
    [h] = { { 0, KMPI_BASIC_SPLIT(ct) ? KMPI_PAIR_VLEN(ct) : KMPI_BASIC_SIZE(ct), 1, 0 },     \
            { (MPI_Aint)KMPI_PAIR_IOFF(ct), sizeof(int), 1, 0 } },
    KMPI_PREDEFINED_TYPES(X)
#undef X
};
static struct kmpi_dt_map basic_maps[KMPI_BASIC_MAX] = {
#define X(name, ct, h) [h] = { 1 + KMPI_BASIC_SPLIT(ct), 0, basic_runs[h] },
    KMPI_PREDEFINED_TYPES(X)
#undef X
};
/* not const: MPI_Type_set_name may rename a predefined type */
static struct kmpi_dt basic_dt[KMPI_BASIC_MAX] = {
#define X(nm, ct, h)                                                                         \
    [h] = { .pub = { .size = KMPI_BASIC_SIZE(ct), .lb = 0, .extent = sizeof(ct),             \
                     .true_lb = 0, .true_extent = KMPI_BASIC_END(ct),                        \
                     .contig = KMPI_BASIC_SIZE(ct) == sizeof(ct), .basic = h, .nbasic = 1,   \
                     .predefined = 1, .committed = 1, .refs = 1, .name = #nm,                \
                     .map = &basic_maps[h] },                                                \
            .kind = KMPI_DT_BASIC, .data_lb = 0, .data_ub = KMPI_BASIC_END(ct),              \
            .align = _Alignof(ct), .nelem = KMPI_PAIR_VLEN(ct) ? 2 : 1,                      \
            .pair_vlen = KMPI_PAIR_VLEN(ct) },
    KMPI_PREDEFINED_TYPES(X)
#undef X
};

struct kmpi_type *const kmpi_basic_types[KMPI_BASIC_MAX] = {
#define X(nm, ct, h) [h] = &basic_dt[h].pub,
    KMPI_PREDEFINED_TYPES(X)
#undef X
};

size_t kmpi_basic_size(int basic)
{
    return basic > 0 && basic < KMPI_BASIC_MAX && basic_dt[basic].pub.predefined
               ? (size_t)basic_dt[basic].pub.extent
               : 0;
}

/* ------------------------------------------------------------ handles */
static pthread_mutex_t dt_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kmpi_dt **dt_slot;   /* [handle - KMPI_DT_FIRST]; NULL: free */
static int             *dt_free;   /* stack of free slot indices */
static int              dt_nslot, dt_nfree;

struct kmpi_type *kmpi_type(MPI_Datatype h)
{
    struct kmpi_dt *t = NULL;

    if (h > 0 && h < KMPI_BASIC_MAX)
        return basic_dt[h].pub.predefined ? &basic_dt[h].pub : NULL;
    if (h < KMPI_DT_FIRST)
        return NULL;
    pthread_mutex_lock(&dt_lock);
    if (h - KMPI_DT_FIRST < dt_nslot)
        t = dt_slot[h - KMPI_DT_FIRST];
    pthread_mutex_unlock(&dt_lock);
    return t != NULL ? &t->pub : NULL;
}

struct kmpi_dt *kmpi_dt_get(MPI_Comm comm, const char *call, const char *what,
                            MPI_Datatype h, int *rc)
{
    struct kmpi_type *t = kmpi_type(h);

    if (t != NULL)
        return kmpi_dt(t);
    if (h == MPI_DATATYPE_NULL)
        *rc = kmpi_error(comm, MPI_ERR_TYPE, call, "%s is MPI_DATATYPE_NULL", what);
    else
        *rc = kmpi_error(comm, MPI_ERR_TYPE, call, "%s %d is not a datatype (freed?)", what, h);
    return NULL;
}

/* a handle for t: MPI_DATATYPE_NULL when out of memory */
static MPI_Datatype dt_register(struct kmpi_dt *t)
{
    static int dt_cap;
    int        i = -1;

    pthread_mutex_lock(&dt_lock);
    if (dt_nfree > 0) {
        i = dt_free[--dt_nfree];
    } else {
        if (dt_nslot == dt_cap && dt_cap <= (INT_MAX - KMPI_DT_FIRST) / 2) {
            int              cap = dt_cap == 0 ? 64 : 2 * dt_cap;
            struct kmpi_dt **s = realloc(dt_slot, (size_t)cap * sizeof *s);
            int             *f = s != NULL ? realloc(dt_free, (size_t)cap * sizeof *f) : NULL;

            if (s != NULL)
                dt_slot = s;
            if (f != NULL) {
                dt_free = f;
                dt_cap = cap;
            }
        }
        if (dt_nslot < dt_cap)
            i = dt_nslot++;
    }
    if (i >= 0)
        dt_slot[i] = t;
    pthread_mutex_unlock(&dt_lock);
    return i >= 0 ? KMPI_DT_FIRST + i : MPI_DATATYPE_NULL;
}

MPI_Datatype kmpi_dt_register(struct kmpi_dt *t)
{
    return dt_register(t);
}

MPI_Datatype kmpi_dt_basic_handle(const struct kmpi_dt *t)
{
    return t >= basic_dt && t < basic_dt + KMPI_BASIC_MAX ? (MPI_Datatype)(t - basic_dt)
                                                          : MPI_DATATYPE_NULL;
}

void kmpi_dt_attrs_drop(void)
{
    for (int h = 1; h < KMPI_BASIC_MAX; h++)
        kmpi_type_attr_drop(&basic_dt[h]);
    pthread_mutex_lock(&dt_lock);
    for (int i = 0; i < dt_nslot; i++)
        if (dt_slot[i] != NULL)
            kmpi_type_attr_drop(dt_slot[i]);
    pthread_mutex_unlock(&dt_lock);
}

/* ------------------------------------------------------------ lifetime */
static void dt_hold(struct kmpi_dt *t)
{
    if (!t->pub.predefined)
        __atomic_add_fetch(&t->pub.refs, 1, __ATOMIC_RELAXED);
}

static void dt_release(struct kmpi_dt *t)
{
    if (t == NULL || t->pub.predefined || __atomic_sub_fetch(&t->pub.refs, 1, __ATOMIC_ACQ_REL))
        return;
    if (t->types != NULL) {
        for (size_t i = 0; i < t->count; i++)
            dt_release(t->types[i]);
        free(t->types);
    }
    dt_release(t->old);
    kmpi_dt_env_free(t);
    kmpi_type_attr_drop(t);
    kmpi_dt_map_free(t->pub.map);
    free(t->blocklens);
    free(t->disps);
    free(t);
}

void kmpi_type_hold(struct kmpi_type *t)
{
    dt_hold(kmpi_dt(t));
}

void kmpi_type_release(struct kmpi_type *t)
{
    dt_release(kmpi_dt(t));
}

/* ------------------------------------------------------------ bounds */
static MPI_Aint amin(MPI_Aint a, MPI_Aint b)
{
    return a < b ? a : b;
}
static MPI_Aint amax(MPI_Aint a, MPI_Aint b)
{
    return a > b ? a : b;
}

/* t gains `copies` copies of old, displaced between dmin and dmax bytes;
 * *first: nothing added yet. 0, or MPI_ERR_COUNT when the size overflows. */
static int dt_add(struct kmpi_dt *t, const struct kmpi_dt *old, size_t copies, MPI_Aint dmin,
                  MPI_Aint dmax, int *first)
{
    size_t bytes, elems, nb;

    if (copies == 0)
        return 0;
    if (__builtin_mul_overflow(copies, old->pub.size, &bytes)
        || __builtin_add_overflow(t->pub.size, bytes, &t->pub.size)
        || __builtin_mul_overflow(copies, old->nelem, &elems)
        || __builtin_add_overflow(t->nelem, elems, &t->nelem)
        || __builtin_mul_overflow(copies, old->pub.nbasic, &nb)
        || __builtin_add_overflow(t->pub.nbasic, nb, &t->pub.nbasic))
        return MPI_ERR_COUNT;
    if (*first)
        t->pub.basic = old->pub.basic;
    else if (t->pub.basic != old->pub.basic)
        t->pub.basic = 0;
    if (old->pub.size > 0) {
        int data = t->pub.size > bytes;   /* t had data before */

        t->data_lb = data ? amin(t->data_lb, old->data_lb + dmin) : old->data_lb + dmin;
        t->data_ub = data ? amax(t->data_ub, old->data_ub + dmax) : old->data_ub + dmax;
        if (old->align > t->align)
            t->align = old->align;
    }
    if (old->marked) {
        t->mark_lb = t->marked ? amin(t->mark_lb, old->mark_lb + dmin) : old->mark_lb + dmin;
        t->mark_ub = t->marked ? amax(t->mark_ub, old->mark_ub + dmax) : old->mark_ub + dmax;
        t->marked = 1;
    }
    *first = 0;
    return 0;
}

/* pub's bounds from the typemap's (MPI-3.1 4.1.6) */
static void dt_bounds(struct kmpi_dt *t)
{
    struct kmpi_type *p = &t->pub;

    if (p->basic == 0)
        p->nbasic = 0;
    p->true_lb = p->size > 0 ? t->data_lb : 0;
    p->true_extent = p->size > 0 ? t->data_ub - t->data_lb : 0;
    if (t->marked) {
        p->lb = t->mark_lb;
        p->extent = t->mark_ub - t->mark_lb;
    } else if (p->size > 0) {
        MPI_Aint a = (MPI_Aint)t->align, span = t->data_ub - t->data_lb;

        p->lb = t->data_lb;
        p->extent = (span + a - 1) / a * a;   /* + epsilon: the alignment's round-up */
    } else {
        p->lb = p->extent = 0;
    }
}

/* ------------------------------------------------------------ constructors */
static struct kmpi_dt *dt_new(enum kmpi_dt_kind kind)
{
    struct kmpi_dt *t = calloc(1, sizeof *t);

    if (t != NULL) {
        t->kind = kind;
        t->pub.refs = 1;   /* its handle's */
        t->align = 1;
    }
    return t;
}

/* the end of every constructor: t's bounds, a handle in *newtype */
static int dt_finish(const char *call, struct kmpi_dt *t, int rc, MPI_Datatype *newtype)
{
    MPI_Datatype h = MPI_DATATYPE_NULL;

    if (t != NULL && rc == MPI_SUCCESS) {
        dt_bounds(t);
        if (t->kind == KMPI_DT_DUP && t->old->pub.committed) {
            rc = kmpi_dt_flatten(t);   /* a dup keeps the committed state */
            t->pub.committed = rc == MPI_SUCCESS;
        }
        if (rc == MPI_SUCCESS && (h = dt_register(t)) == MPI_DATATYPE_NULL)
            rc = MPI_ERR_NO_MEM;
    }
    if (t == NULL)
        rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        dt_release(t);
        if (rc == MPI_ERR_NO_MEM)
            return kmpi_error(MPI_COMM_NULL, rc, call, "out of memory");
        return kmpi_error(MPI_COMM_NULL, rc, call, "the new type's size overflows");
    }
    *newtype = h;
    return MPI_SUCCESS;
}

/* count blocks of blocklen copies of old, stride bytes (or extents of
 * old) apart; Type_contiguous(n) is vector(1, n) with n checked as a count */
static int dt_vector(const char *call, int contiguous, int count, int blocklen, MPI_Aint stride,
                     int stride_in_extents, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int             rc = kmpi_check_live(call), first = 1;
    struct kmpi_dt *old, *t;

    if (rc != MPI_SUCCESS)
        return rc;
    if (count < 0 || (contiguous && blocklen < 0))
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_COUNT, call, "count %d < 0",
                          contiguous ? blocklen : count);
    if (blocklen < 0)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "blocklength %d < 0", blocklen);
    if ((old = kmpi_dt_get(MPI_COMM_NULL, call, "oldtype", oldtype, &rc)) == NULL)
        return rc;
    if (newtype == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "newtype is NULL");
    if (stride_in_extents)
        stride *= old->pub.extent;
    if ((t = dt_new(KMPI_DT_VECTOR)) != NULL) {
        MPI_Aint e = old->pub.extent, last = count > 0 ? (MPI_Aint)(count - 1) * stride : 0,
                 inner = blocklen > 0 ? (MPI_Aint)(blocklen - 1) * e : 0;

        t->count = (size_t)count;
        t->blocklen = (size_t)blocklen;
        t->stride = stride;
        t->old = old;
        dt_hold(old);
        rc = dt_add(t, old, (size_t)count * (size_t)blocklen, amin(0, last) + amin(0, inner),
                    amax(0, last) + amax(0, inner), &first);
    }
    return dt_finish(call, t, rc, newtype);
}

/* the envelope of a constructor that succeeded (rc) */
#define DT_ENV(call, rc, newtype, comb, np, pieces, na, addrs, nd, types)                      \
    ((rc) == MPI_SUCCESS ? kmpi_dt_set_env(call, newtype, comb, np, pieces, na, addrs, nd, types) \
                         : (rc))
#define PIECE(ptr, n) ((struct kmpi_env_piece){ (ptr), (n) })
#define SCALAR(v)     PIECE(&(v), 1)

#pragma weak MPI_Type_contiguous = PMPI_Type_contiguous
int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int rc = dt_vector("MPI_Type_contiguous", 1, 1, count, 0, 0, oldtype, newtype);
    struct kmpi_env_piece p[] = { SCALAR(count) };

    return DT_ENV("MPI_Type_contiguous", rc, newtype, MPI_COMBINER_CONTIGUOUS, 1, p, 0, NULL, 1,
                  &oldtype);
}

#pragma weak MPI_Type_vector = PMPI_Type_vector
int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    int rc = dt_vector("MPI_Type_vector", 0, count, blocklength, stride, 1, oldtype, newtype);
    struct kmpi_env_piece p[] = { SCALAR(count), SCALAR(blocklength), SCALAR(stride) };

    return DT_ENV("MPI_Type_vector", rc, newtype, MPI_COMBINER_VECTOR, 3, p, 0, NULL, 1,
                  &oldtype);
}

#pragma weak MPI_Type_create_hvector = PMPI_Type_create_hvector
int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    int rc = dt_vector("MPI_Type_create_hvector", 0, count, blocklength, stride, 0, oldtype,
                       newtype);
    struct kmpi_env_piece p[] = { SCALAR(count), SCALAR(blocklength) };

    return DT_ENV("MPI_Type_create_hvector", rc, newtype, MPI_COMBINER_HVECTOR, 2, p, 1, &stride,
                  1, &oldtype);
}

/* count blocks: blocklens[i] (or blocklen) copies of types[i] (or oldtype)
 * at disps[i] (or idisps[i]) times the old type's extent (or bytes) */
struct dt_blocks_args {
    int                 count;
    int                 one_blocklen;   /* Type_create_indexed_block */
    const int          *blocklens;      /* else */
    int                 blocklen;
    const int          *idisps;         /* in extents of the old type, or */
    const MPI_Aint     *adisps;         /* in bytes */
    int                 is_struct;      /* types, else oldtype for all */
    const MPI_Datatype *types;
    MPI_Datatype        oldtype;
};

static int dt_blocks(const char *call, const struct dt_blocks_args *a, MPI_Datatype *newtype)
{
    int             rc = kmpi_check_live(call), first = 1;
    struct kmpi_dt *old = NULL, *t;
    size_t          n = a->count > 0 ? (size_t)a->count : 0;

    if (rc != MPI_SUCCESS)
        return rc;
    if (a->count < 0)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_COUNT, call, "count %d < 0", a->count);
    if (a->one_blocklen && a->blocklen < 0)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "blocklength %d < 0", a->blocklen);
    if (n > 0 && ((!a->one_blocklen && a->blocklens == NULL) || (a->is_struct && a->types == NULL)
                  || (a->idisps == NULL && a->adisps == NULL)))
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "array_of_%s is NULL",
                          !a->one_blocklen && a->blocklens == NULL ? "blocklengths"
                          : a->is_struct && a->types == NULL       ? "types"
                                                                   : "displacements");
    for (size_t i = 0; i < n && !a->one_blocklen; i++)
        if (a->blocklens[i] < 0)
            return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call,
                              "array_of_blocklengths[%zu] = %d < 0", i, a->blocklens[i]);
    if (!a->is_struct) {
        if ((old = kmpi_dt_get(MPI_COMM_NULL, call, "oldtype", a->oldtype, &rc)) == NULL)
            return rc;
    } else {
        for (size_t i = 0; i < n; i++) {
            char what[48];

            snprintf(what, sizeof what, "array_of_types[%zu]", i);
            if (kmpi_dt_get(MPI_COMM_NULL, call, what, a->types[i], &rc) == NULL)
                return rc;
        }
    }
    if (newtype == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "newtype is NULL");

    if ((t = dt_new(KMPI_DT_BLOCKS)) == NULL)
        return dt_finish(call, t, MPI_ERR_NO_MEM, newtype);
    t->count = n;
    t->blocklens = malloc((n ? n : 1) * sizeof *t->blocklens);
    t->disps = malloc((n ? n : 1) * sizeof *t->disps);
    if (a->is_struct && (t->types = calloc(n ? n : 1, sizeof *t->types)) == NULL)
        rc = MPI_ERR_NO_MEM;
    if (t->blocklens == NULL || t->disps == NULL)
        rc = MPI_ERR_NO_MEM;
    if (old != NULL) {
        t->old = old;
        dt_hold(old);
    }
    for (size_t i = 0; i < n && rc == MPI_SUCCESS; i++) {
        struct kmpi_dt *o = old;
        size_t          bl = (size_t)(a->one_blocklen ? a->blocklen : a->blocklens[i]);
        MPI_Aint        d, inner;

        if (o == NULL) {
            o = kmpi_dt(kmpi_type(a->types[i]));
            t->types[i] = o;
            dt_hold(o);
        }
        d = a->adisps != NULL ? a->adisps[i] : (MPI_Aint)a->idisps[i] * o->pub.extent;
        inner = bl > 0 ? (MPI_Aint)(bl - 1) * o->pub.extent : 0;
        t->blocklens[i] = bl;
        t->disps[i] = d;
        rc = dt_add(t, o, bl, d + amin(0, inner), d + amax(0, inner), &first);
    }
    return dt_finish(call, t, rc, newtype);
}

#pragma weak MPI_Type_indexed = PMPI_Type_indexed
int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    struct dt_blocks_args a = { .count = count, .blocklens = array_of_blocklengths,
                                .idisps = array_of_displacements, .oldtype = oldtype };

    int rc = dt_blocks("MPI_Type_indexed", &a, newtype);
    struct kmpi_env_piece p[] = { SCALAR(count), PIECE(array_of_blocklengths, count),
                                  PIECE(array_of_displacements, count) };

    return DT_ENV("MPI_Type_indexed", rc, newtype, MPI_COMBINER_INDEXED, 3, p, 0, NULL, 1,
                  &oldtype);
}

#pragma weak MPI_Type_create_hindexed = PMPI_Type_create_hindexed
int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    struct dt_blocks_args a = { .count = count, .blocklens = array_of_blocklengths,
                                .adisps = array_of_displacements, .oldtype = oldtype };

    int rc = dt_blocks("MPI_Type_create_hindexed", &a, newtype);
    struct kmpi_env_piece p[] = { SCALAR(count), PIECE(array_of_blocklengths, count) };

    return DT_ENV("MPI_Type_create_hindexed", rc, newtype, MPI_COMBINER_HINDEXED, 2, p, count,
                  array_of_displacements, 1, &oldtype);
}

#pragma weak MPI_Type_create_indexed_block = PMPI_Type_create_indexed_block
int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    struct dt_blocks_args a = { .count = count, .one_blocklen = 1, .blocklen = blocklength,
                                .idisps = array_of_displacements, .oldtype = oldtype };

    int rc = dt_blocks("MPI_Type_create_indexed_block", &a, newtype);
    struct kmpi_env_piece p[] = { SCALAR(count), SCALAR(blocklength),
                                  PIECE(array_of_displacements, count) };

    return DT_ENV("MPI_Type_create_indexed_block", rc, newtype, MPI_COMBINER_INDEXED_BLOCK, 3, p,
                  0, NULL, 1, &oldtype);
}

#pragma weak MPI_Type_create_hindexed_block = PMPI_Type_create_hindexed_block
int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    struct dt_blocks_args a = { .count = count, .one_blocklen = 1, .blocklen = blocklength,
                                .adisps = array_of_displacements, .oldtype = oldtype };

    int rc = dt_blocks("MPI_Type_create_hindexed_block", &a, newtype);
    struct kmpi_env_piece p[] = { SCALAR(count), SCALAR(blocklength) };

    return DT_ENV("MPI_Type_create_hindexed_block", rc, newtype, MPI_COMBINER_HINDEXED_BLOCK, 2,
                  p, count, array_of_displacements, 1, &oldtype);
}

/* MPI-3.1 17.2.5: the predefined C type of that class and size */
#pragma weak MPI_Type_match_size = PMPI_Type_match_size
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    static const char  call[] = "MPI_Type_match_size";
    static const struct { int cls; MPI_Datatype t; } table[] = {
        { MPI_TYPECLASS_INTEGER, MPI_INT8_T },  { MPI_TYPECLASS_INTEGER, MPI_INT16_T },
        { MPI_TYPECLASS_INTEGER, MPI_INT32_T }, { MPI_TYPECLASS_INTEGER, MPI_INT64_T },
        { MPI_TYPECLASS_REAL, MPI_FLOAT },      { MPI_TYPECLASS_REAL, MPI_DOUBLE },
        { MPI_TYPECLASS_REAL, MPI_LONG_DOUBLE },
        { MPI_TYPECLASS_COMPLEX, MPI_C_FLOAT_COMPLEX },
        { MPI_TYPECLASS_COMPLEX, MPI_C_DOUBLE_COMPLEX },
        { MPI_TYPECLASS_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX },
    };
    int rc = kmpi_check_live(call);

    if (rc != MPI_SUCCESS)
        return rc;
    if (datatype == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "datatype is NULL");
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        int sz = 0;
        PMPI_Type_size(table[i].t, &sz);
        if (table[i].cls == typeclass && sz == size) {
            *datatype = table[i].t;
            return MPI_SUCCESS;
        }
    }
    return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "no predefined type of class %d "
                      "(MPI_TYPECLASS_REAL, _INTEGER or _COMPLEX) has %d bytes", typeclass,
                      size);
}

#pragma weak MPI_Type_create_struct = PMPI_Type_create_struct
int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    struct dt_blocks_args a = { .count = count, .blocklens = array_of_blocklengths,
                                .adisps = array_of_displacements, .is_struct = 1,
                                .types = array_of_types };

    int rc = dt_blocks("MPI_Type_create_struct", &a, newtype);
    struct kmpi_env_piece p[] = { SCALAR(count), PIECE(array_of_blocklengths, count) };

    return DT_ENV("MPI_Type_create_struct", rc, newtype, MPI_COMBINER_STRUCT, 2, p, count,
                  array_of_displacements, count, array_of_types);
}

/* RESIZED (new markers at lb, lb + extent) or DUP (markers == NULL) */
static int dt_wrap(const char *call, MPI_Datatype oldtype, const MPI_Aint *markers,
                   MPI_Datatype *newtype)
{
    int             rc = kmpi_check_live(call);
    struct kmpi_dt *old, *t;

    if (rc != MPI_SUCCESS)
        return rc;
    if ((old = kmpi_dt_get(MPI_COMM_NULL, call, "oldtype", oldtype, &rc)) == NULL)
        return rc;
    if (newtype == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "newtype is NULL");
    if ((t = dt_new(markers != NULL ? KMPI_DT_RESIZED : KMPI_DT_DUP)) != NULL) {
        struct kmpi_type *p = &t->pub;

        p->size = old->pub.size;
        p->basic = old->pub.basic;
        p->nbasic = old->pub.nbasic;
        t->data_lb = old->data_lb;
        t->data_ub = old->data_ub;
        t->marked = old->marked;
        t->mark_lb = old->mark_lb;
        t->mark_ub = old->mark_ub;
        t->align = old->align;
        t->nelem = old->nelem;
        t->old = old;
        dt_hold(old);
        if (markers != NULL) {
            t->marked = 1;
            t->mark_lb = markers[0];
            t->mark_ub = markers[0] + markers[1];
        }
    }
    return dt_finish(call, t, rc, newtype);
}

#pragma weak MPI_Type_create_resized = PMPI_Type_create_resized
int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    MPI_Aint m[2] = { lb, extent };
    int      rc = dt_wrap("MPI_Type_create_resized", oldtype, m, newtype);

    return DT_ENV("MPI_Type_create_resized", rc, newtype, MPI_COMBINER_RESIZED, 0, NULL, 2, m, 1,
                  &oldtype);
}

/* MPI-3.1 4.1.3: built from the constructors above -- the fastest
 * dimension contiguous, each slower one an hvector of the faster, the
 * corner placed by a one-block hindexed, the whole resized to the full
 * array (lb the old type's, extent the product of sizes times its extent) */
#pragma weak MPI_Type_create_subarray = PMPI_Type_create_subarray
int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                              const int array_of_subsizes[], const int array_of_starts[],
                              int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_subarray";
    int               rc = kmpi_check_live(call), one = 1;
    MPI_Aint          lb = 0, ext = 0, stride, offset = 0;
    MPI_Datatype      t, u;

    if (rc != MPI_SUCCESS)
        return rc;
    if (ndims < 1 || array_of_sizes == NULL || array_of_subsizes == NULL
        || array_of_starts == NULL || newtype == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "ndims %d is not positive or an "
                          "array or newtype is NULL", ndims);
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "order %d is neither MPI_ORDER_C "
                          "nor MPI_ORDER_FORTRAN", order);
    for (int i = 0; i < ndims; i++)
        if (array_of_sizes[i] < 1 || array_of_subsizes[i] < 0
            || array_of_subsizes[i] > array_of_sizes[i] || array_of_starts[i] < 0
            || array_of_starts[i] > array_of_sizes[i] - array_of_subsizes[i])
            return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "dimension %d: size %d, "
                              "subsize %d, start %d do not fit (size >= 1, 0 <= subsize <= "
                              "size, 0 <= start <= size - subsize)", i, array_of_sizes[i],
                              array_of_subsizes[i], array_of_starts[i]);
    if ((rc = PMPI_Type_get_extent(oldtype, &lb, &ext)) != MPI_SUCCESS)
        return rc;
    /* dimension k from the fastest: C's last, Fortran's first */
#define SUB_DIM(k) (order == MPI_ORDER_C ? ndims - 1 - (k) : (k))
    if ((rc = PMPI_Type_contiguous(array_of_subsizes[SUB_DIM(0)], oldtype, &t)) != MPI_SUCCESS)
        return rc;
    stride = ext;
    for (int k = 0; k < ndims; k++) {
        int d = SUB_DIM(k);
        offset += (MPI_Aint)array_of_starts[d] * stride;
        if (k > 0) {
            rc = PMPI_Type_create_hvector(array_of_subsizes[d], 1, stride, t, &u);
            PMPI_Type_free(&t);
            if (rc != MPI_SUCCESS)
                return rc;
            t = u;
        }
        stride *= array_of_sizes[d];
    }
#undef SUB_DIM
    rc = PMPI_Type_create_hindexed(1, &one, &offset, t, &u);
    PMPI_Type_free(&t);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Type_create_resized(u, lb, stride, newtype);
    PMPI_Type_free(&u);
    struct kmpi_env_piece p[] = { SCALAR(ndims), PIECE(array_of_sizes, ndims),
                                  PIECE(array_of_subsizes, ndims), PIECE(array_of_starts, ndims),
                                  SCALAR(order) };
    return DT_ENV(call, rc, newtype, MPI_COMBINER_SUBARRAY, 5, p, 0, NULL, 1, &oldtype);
}

#pragma weak MPI_Type_dup = PMPI_Type_dup
int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_dup";
    int               rc = dt_wrap(call, oldtype, NULL, newtype);

    rc = DT_ENV(call, rc, newtype, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, &oldtype);
    if (rc == MPI_SUCCESS) {   /* the keys' copy callbacks decide what the copy gets */
        struct kmpi_dt *n = kmpi_dt(kmpi_type(*newtype));
        if ((rc = kmpi_type_attr_copy(call, oldtype, n->old, *newtype, n)) != MPI_SUCCESS)
            PMPI_Type_free(newtype);
    }
    return rc;
}

MPI_Datatype kmpi_dt_dup_of(struct kmpi_dt *old)
{
    MPI_Datatype h = MPI_DATATYPE_NULL, oh = kmpi_dt_register(old);

    if (oh == MPI_DATATYPE_NULL)
        return MPI_DATATYPE_NULL;
    dt_hold(old);   /* the temporary handle's */
    if (dt_wrap("MPI_Type_get_contents", oh, NULL, &h) != MPI_SUCCESS)
        h = MPI_DATATYPE_NULL;
    pthread_mutex_lock(&dt_lock);   /* the temporary handle goes, t's stays */
    dt_slot[oh - KMPI_DT_FIRST] = NULL;
    dt_free[dt_nfree++] = oh - KMPI_DT_FIRST;
    pthread_mutex_unlock(&dt_lock);
    dt_release(old);
    return h;
}

/* ------------------------------------------------------------ commit, free */
#pragma weak MPI_Type_commit = PMPI_Type_commit
int PMPI_Type_commit(MPI_Datatype *datatype)
{
    static const char call[] = "MPI_Type_commit";
    int               rc = kmpi_check_live(call);
    struct kmpi_dt   *t;

    if (rc != MPI_SUCCESS)
        return rc;
    if (datatype == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "datatype is NULL");
    if ((t = kmpi_dt_get(MPI_COMM_NULL, call, "datatype", *datatype, &rc)) == NULL)
        return rc;
    if (t->pub.committed)
        return MPI_SUCCESS;
    if ((rc = kmpi_dt_flatten(t)) != MPI_SUCCESS)
        return kmpi_error(MPI_COMM_NULL, rc, call, "out of memory flattening the type map");
    t->pub.committed = 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_free = PMPI_Type_free
int PMPI_Type_free(MPI_Datatype *datatype)
{
    static const char call[] = "MPI_Type_free";
    int               rc = kmpi_check_live(call);
    struct kmpi_dt   *t = NULL;
    MPI_Datatype      h;

    if (rc != MPI_SUCCESS)
        return rc;
    if (datatype == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "datatype is NULL");
    h = *datatype;
    if (h > 0 && h < KMPI_BASIC_MAX && basic_dt[h].pub.predefined)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_TYPE, call,
                          "%s is predefined and cannot be freed", basic_dt[h].pub.name);
    /* the delete callbacks run first, while the type still works */
    if ((t = kmpi_dt_get(MPI_COMM_NULL, call, "datatype", h, &rc)) == NULL)
        return rc;
    if ((rc = kmpi_type_attr_delete_all(call, h, t)) != MPI_SUCCESS)
        return rc;
    t = NULL;
    pthread_mutex_lock(&dt_lock);
    if (h >= KMPI_DT_FIRST && h - KMPI_DT_FIRST < dt_nslot
        && (t = dt_slot[h - KMPI_DT_FIRST]) != NULL) {
        dt_slot[h - KMPI_DT_FIRST] = NULL;
        dt_free[dt_nfree++] = h - KMPI_DT_FIRST;
    }
    pthread_mutex_unlock(&dt_lock);
    if (t == NULL)
        return kmpi_dt_get(MPI_COMM_NULL, call, "datatype", h, &rc) == NULL ? rc : MPI_ERR_TYPE;
    dt_release(t);   /* goes now, or with the last type or operation using it */
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ queries */
/* the datatype of a query, or NULL with *rc set */
static struct kmpi_dt *dt_query(const char *call, MPI_Datatype h, const void *out, int *rc)
{
    struct kmpi_dt *t;

    if ((*rc = kmpi_check_live(call)) != MPI_SUCCESS)
        return NULL;
    if ((t = kmpi_dt_get(MPI_COMM_NULL, call, "datatype", h, rc)) == NULL)
        return NULL;
    if (out == NULL) {
        *rc = kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "an output argument is NULL");
        return NULL;
    }
    return t;
}

#pragma weak MPI_Type_size = PMPI_Type_size
int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    int             rc;
    struct kmpi_dt *t = dt_query("MPI_Type_size", datatype, size, &rc);

    if (t == NULL)
        return rc;
    *size = t->pub.size <= INT_MAX ? (int)t->pub.size : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent
int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    int             rc;
    struct kmpi_dt *t = dt_query("MPI_Type_get_extent", datatype,
                                 lb != NULL && extent != NULL ? lb : NULL, &rc);

    if (t == NULL)
        return rc;
    *lb = t->pub.lb;
    *extent = t->pub.extent;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_true_extent = PMPI_Type_get_true_extent
int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    int             rc;
    struct kmpi_dt *t = dt_query("MPI_Type_get_true_extent", datatype,
                                 true_lb != NULL && true_extent != NULL ? true_lb : NULL, &rc);

    if (t == NULL)
        return rc;
    *true_lb = t->pub.true_lb;
    *true_extent = t->pub.true_extent;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_size_x = PMPI_Type_size_x
int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    int             rc;
    struct kmpi_dt *t = dt_query("MPI_Type_size_x", datatype, size, &rc);

    if (t == NULL)
        return rc;
    *size = (MPI_Count)t->pub.size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_extent_x = PMPI_Type_get_extent_x
int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    MPI_Aint l = 0, e = 0;
    int      rc = PMPI_Type_get_extent(datatype, lb != NULL && extent != NULL ? &l : NULL, &e);

    if (rc == MPI_SUCCESS) {
        *lb     = l;
        *extent = e;
    }
    return rc;
}

#pragma weak MPI_Type_get_true_extent_x = PMPI_Type_get_true_extent_x
int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    MPI_Aint l = 0, e = 0;
    int      rc = PMPI_Type_get_true_extent(datatype,
                                            true_lb != NULL && true_extent != NULL ? &l : NULL,
                                            &e);

    if (rc == MPI_SUCCESS) {
        *true_lb     = l;
        *true_extent = e;
    }
    return rc;
}

#pragma weak MPI_Type_extent = PMPI_Type_extent
int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
    int             rc;
    struct kmpi_dt *t = dt_query("MPI_Type_extent", datatype, extent, &rc);

    if (t == NULL)
        return rc;
    *extent = t->pub.extent;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_name = PMPI_Type_get_name
int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    int             rc;
    struct kmpi_dt *t = dt_query("MPI_Type_get_name", datatype,
                                 type_name != NULL && resultlen != NULL ? type_name : NULL, &rc);

    if (t == NULL)
        return rc;
    pthread_mutex_lock(&dt_lock);   /* against a concurrent MPI_Type_set_name */
    strcpy(type_name, t->pub.name);
    pthread_mutex_unlock(&dt_lock);
    *resultlen = (int)strlen(type_name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_set_name = PMPI_Type_set_name
int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    int             rc;
    struct kmpi_dt *t = dt_query("MPI_Type_set_name", datatype, type_name, &rc);

    if (t == NULL)
        return rc;
    pthread_mutex_lock(&dt_lock);   /* longer names are cut, as MPI-3.1 6.8 allows */
    snprintf(t->pub.name, sizeof t->pub.name, "%s", type_name);
    pthread_mutex_unlock(&dt_lock);
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_address = PMPI_Get_address
int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    int rc = kmpi_check_live("MPI_Get_address");

    if (rc != MPI_SUCCESS)
        return rc;
    if (address == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Get_address", "address is NULL");
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}

/* MPI-3.1 4.1.5: address arithmetic (plain integers here) */
#pragma weak MPI_Aint_add = PMPI_Aint_add
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

#pragma weak MPI_Aint_diff = PMPI_Aint_diff
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}

/* ------------------------------------------------------------ MPI-1 names */

#pragma weak MPI_Address = PMPI_Address
int PMPI_Address(void *location, MPI_Aint *address)
{
    return PMPI_Get_address(location, address);
}

#pragma weak MPI_Type_hvector = PMPI_Type_hvector
int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    return PMPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}

#pragma weak MPI_Type_hindexed = PMPI_Type_hindexed
int PMPI_Type_hindexed(int count, int array_of_blocklengths[],
                       MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                       MPI_Datatype *newtype)
{
    return PMPI_Type_create_hindexed(count, array_of_blocklengths, array_of_displacements,
                                     oldtype, newtype);
}

#pragma weak MPI_Type_struct = PMPI_Type_struct
int PMPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                     MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return PMPI_Type_create_struct(count, array_of_blocklengths, array_of_displacements,
                                   array_of_types, newtype);
}

#pragma weak MPI_Type_lb = PMPI_Type_lb
int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
    int             rc;
    struct kmpi_dt *t = dt_query("MPI_Type_lb", datatype, displacement, &rc);

    if (t == NULL)
        return rc;
    *displacement = t->pub.lb;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_ub = PMPI_Type_ub
int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
    int             rc;
    struct kmpi_dt *t = dt_query("MPI_Type_ub", datatype, displacement, &rc);

    if (t == NULL)
        return rc;
    *displacement = t->pub.lb + t->pub.extent;
    return MPI_SUCCESS;
}
