/*
 * datatype.h -- the datatype engine's own declarations, shared by its two
 * files and nothing else: datatype.c (handles, the predefined types, the
 * constructors, bounds, names, commit and free) and typemap.c (the
 * flattened type map, pack/unpack, MPI_Pack/Unpack, MPI_Get_count and
 * MPI_Get_elements). The rest of the binding sees struct kmpi_type
 * (mpi_int.h), except win_type.c, which sends a target datatype's runs
 * to the target of a one-sided operation.
 *
 * A type is its constructor (a small tree over the types it was built
 * from, which it keeps alive by reference) until MPI_Type_commit flattens
 * it into runs of contiguous blocks; pack and unpack only walk the runs.
 */
#ifndef KUMI_MPI_DATATYPE_H
#define KUMI_MPI_DATATYPE_H

#include "mpi_int.h"

/* n blocks of len bytes at off, off + stride, ... (bytes from the
 * element's start), in the order MPI packs them: the typemap's order.
 * Blocks that touch are merged, so a run with n > 1 never has
 * stride == len; stride may be 0 or negative. */
struct kmpi_dt_run {
    MPI_Aint off;
    size_t   len;
    size_t   n;
    MPI_Aint stride;
};

/* struct kmpi_type's map */
struct kmpi_dt_map {
    size_t              nruns, cap;
    struct kmpi_dt_run *runs;
};

enum kmpi_dt_kind {
    KMPI_DT_BASIC,    /* predefined */
    KMPI_DT_VECTOR,   /* count blocks of blocklen copies of old, stride bytes apart:
                         Type_contiguous, Type_vector, Type_create_hvector */
    KMPI_DT_BLOCKS,   /* count blocks at byte displacements: Type_indexed,
                         Type_create_hindexed, Type_create_indexed_block, Type_create_struct */
    KMPI_DT_RESIZED,  /* old between new lb/ub markers */
    KMPI_DT_DUP,      /* old, unchanged */
};

struct kmpi_dt {
    struct kmpi_type  pub;      /* first: kmpi_type() hands out &pub */
    enum kmpi_dt_kind kind;
    /* the typemap's bounds as MPI-3.1 4.1.6 defines them; pub's lb,
     * extent, true_lb and true_extent are computed from these */
    MPI_Aint data_lb, data_ub;  /* of the data entries, when pub.size > 0 */
    int      marked;            /* has lb/ub markers (from Type_create_resized) */
    MPI_Aint mark_lb, mark_ub;
    size_t   align;             /* the largest alignment of its basic entries */
    size_t   nelem;             /* basic entries in one element (MPI_Get_elements;
                                   a pair type such as MPI_DOUBLE_INT holds two) */
    size_t   pair_vlen;         /* BASIC: bytes of a pair type's value, else 0 */
    /* the constructor (the types named here are held by reference) */
    size_t           count, blocklen;  /* VECTOR, BLOCKS (count) */
    MPI_Aint         stride;           /* VECTOR: bytes */
    struct kmpi_dt  *old;              /* VECTOR, RESIZED, DUP; BLOCKS of one old type */
    size_t          *blocklens;        /* BLOCKS */
    MPI_Aint        *disps;            /* BLOCKS: bytes */
    struct kmpi_dt **types;            /* BLOCKS of Type_create_struct, else NULL */
    /* the envelope (MPI_Type_get_envelope/_contents, typedecode.c): the
     * public constructor and its arguments as given; combiner 0 for a
     * predefined type (MPI_COMBINER_NAMED). env_types are held. */
    int              combiner, env_ni, env_na, env_nd;
    int             *env_ints;
    MPI_Aint        *env_addrs;
    struct kmpi_dt **env_types;
    struct kmpi_attr *attrs;           /* attr.c: values of type keys, newest first */
};

static inline struct kmpi_dt *kmpi_dt(const struct kmpi_type *t)
{
    return (struct kmpi_dt *)t;
}

/* the datatype h, or NULL after reporting MPI_ERR_TYPE on comm in *rc;
 * `what` names the argument ("datatype", "oldtype"...) */
struct kmpi_dt *kmpi_dt_get(MPI_Comm comm, const char *call, const char *what,
                            MPI_Datatype h, int *rc);

/* datatype.c: a new handle for t (which the handle then holds: one of
 * t's refs), MPI_DATATYPE_NULL when out of memory; the predefined type's
 * handle for a predefined t */
MPI_Datatype kmpi_dt_register(struct kmpi_dt *t);
MPI_Datatype kmpi_dt_basic_handle(const struct kmpi_dt *t);
/* the handle of a new DUP of old for MPI_Type_get_contents (committed if
 * old is, no attributes): MPI_DATATYPE_NULL when out of memory */
MPI_Datatype kmpi_dt_dup_of(struct kmpi_dt *old);
/* drops every type's attribute values without callbacks (MPI_Finalize) */
void kmpi_dt_attrs_drop(void);

/* typedecode.c: records the envelope of new type *h; on failure frees
 * *h and reports MPI_ERR_NO_MEM. ints: npieces pieces of n ints each (a
 * scalar is a piece of 1), concatenated. */
struct kmpi_env_piece {
    const int *p;
    int        n;
};
int kmpi_dt_set_env(const char *call, MPI_Datatype *h, int combiner, int npieces,
                    const struct kmpi_env_piece *ints, int na, const MPI_Aint *addrs, int nd,
                    const MPI_Datatype *types);
void kmpi_dt_env_free(struct kmpi_dt *t);

/* attr.c: t's attributes copied to n (MPI_Type_dup); deleted with their
 * callbacks (MPI_Type_free: an error leaves the type alone) */
int kmpi_type_attr_copy(const char *call, MPI_Datatype oldh, struct kmpi_dt *o, MPI_Datatype newh,
                        struct kmpi_dt *n);
int kmpi_type_attr_delete_all(const char *call, MPI_Datatype h, struct kmpi_dt *t);
void kmpi_type_attr_drop(struct kmpi_dt *t);

/* typemap.c: build t's runs (and those of the types it is built from
 * that have none yet) and set pub.contig; MPI_SUCCESS or MPI_ERR_NO_MEM.
 * Serialized by its own lock: commits are rare. */
int kmpi_dt_flatten(struct kmpi_dt *t);
void kmpi_dt_map_free(struct kmpi_dt_map *m);

#endif /* KUMI_MPI_DATATYPE_H */
