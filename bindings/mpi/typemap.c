/*
 * typemap.c -- the flattened type map and what runs on it: the flattening
 * MPI_Type_commit does, kmpi_pack/kmpi_unpack (sends and receives of any
 * datatype), MPI_Pack, MPI_Unpack, MPI_Pack_size, MPI_Get_count and
 * MPI_Get_elements.
 *
 * A map is a list of runs -- n equal blocks at a constant stride -- in
 * typemap order, built bottom-up: a constructor repeats its parts' runs at
 * their displacements and merges whatever touches the previous block or
 * continues the previous run's stride. A vector of a basic type is thus
 * one run whatever its count, and packing it is one loop of fixed-size
 * copies. count elements repeat the map at extent steps; when the map is
 * one run that the repetition continues, the whole message is one run too.
 */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "datatype.h"

/* ------------------------------------------------------------ building */
/* copies copies of run r, the k-th displaced by k * step, as one run in
 * *out; 0 when they do not form one */
static int run_repeat(const struct kmpi_dt_run *r, size_t copies, MPI_Aint step,
                      struct kmpi_dt_run *out)
{
    *out = *r;
    if (copies == 1)
        return 1;
    if (r->n == 1 && step == (MPI_Aint)r->len) {
        out->len = r->len * copies;
        return 1;
    }
    if (r->n == 1) {
        out->n = copies;
        out->stride = step;
        return 1;
    }
    if (step == (MPI_Aint)r->n * r->stride) {
        out->n = r->n * copies;
        return 1;
    }
    return 0;
}

/* m += r, merged into m's last run when r touches or continues it */
static int map_append(struct kmpi_dt_map *m, struct kmpi_dt_run r)
{
    if (r.len == 0 || r.n == 0)
        return MPI_SUCCESS;
    if (m->nruns > 0) {
        struct kmpi_dt_run *last = &m->runs[m->nruns - 1];

        if (last->n == 1 && r.n == 1 && r.off == last->off + (MPI_Aint)last->len) {
            last->len += r.len;
            return MPI_SUCCESS;
        }
        if (last->len == r.len) {
            MPI_Aint s = last->n > 1 ? last->stride : r.n > 1 ? r.stride : r.off - last->off;

            if ((last->n == 1 || last->stride == s) && (r.n == 1 || r.stride == s)
                && r.off == last->off + (MPI_Aint)last->n * s) {
                last->n += r.n;
                last->stride = s;
                return MPI_SUCCESS;
            }
        }
    }
    if (m->nruns == m->cap) {
        size_t              cap = m->cap == 0 ? 4 : 2 * m->cap;
        struct kmpi_dt_run *runs = realloc(m->runs, cap * sizeof *runs);

        if (runs == NULL)
            return MPI_ERR_NO_MEM;
        m->runs = runs;
        m->cap = cap;
    }
    if (r.n == 1)
        r.stride = 0;
    m->runs[m->nruns++] = r;
    return MPI_SUCCESS;
}

/* m += copies copies of src, the k-th displaced by base + k * step */
static int map_repeat(struct kmpi_dt_map *m, const struct kmpi_dt_map *src, size_t copies,
                      MPI_Aint step, MPI_Aint base)
{
    struct kmpi_dt_run r;

    if (copies == 0 || src->nruns == 0)
        return MPI_SUCCESS;
    if (src->nruns == 1 && run_repeat(&src->runs[0], copies, step, &r)) {
        r.off += base;
        return map_append(m, r);
    }
    for (size_t k = 0; k < copies; k++)
        for (size_t i = 0; i < src->nruns; i++) {
            r = src->runs[i];
            r.off += base + (MPI_Aint)k * step;
            if (map_append(m, r) != MPI_SUCCESS)
                return MPI_ERR_NO_MEM;
        }
    return MPI_SUCCESS;
}

void kmpi_dt_map_free(struct kmpi_dt_map *m)
{
    if (m != NULL)
        free(m->runs);
    free(m);
}

static int flatten(struct kmpi_dt *t)
{
    struct kmpi_dt_map *m, row = { 0 };
    int                 rc = MPI_SUCCESS;
    struct kmpi_type   *p = &t->pub;

    if (p->map != NULL)   /* predefined, committed, or flattened as a part */
        return MPI_SUCCESS;
    if (t->old != NULL && (rc = flatten(t->old)) != MPI_SUCCESS)
        return rc;
    for (size_t i = 0; t->types != NULL && i < t->count; i++)
        if ((rc = flatten(t->types[i])) != MPI_SUCCESS)
            return rc;
    if ((m = calloc(1, sizeof *m)) == NULL)
        return MPI_ERR_NO_MEM;
    switch (t->kind) {
    case KMPI_DT_VECTOR:
        rc = map_repeat(&row, t->old->pub.map, t->blocklen, t->old->pub.extent, 0);
        if (rc == MPI_SUCCESS)
            rc = map_repeat(m, &row, t->count, t->stride, 0);
        free(row.runs);
        break;
    case KMPI_DT_BLOCKS:
        for (size_t i = 0; i < t->count && rc == MPI_SUCCESS; i++) {
            const struct kmpi_dt *o = t->types != NULL ? t->types[i] : t->old;

            rc = map_repeat(m, o->pub.map, t->blocklens[i], o->pub.extent, t->disps[i]);
        }
        break;
    case KMPI_DT_RESIZED:
    case KMPI_DT_DUP:
        rc = map_repeat(m, t->old->pub.map, 1, 0, 0);
        break;
    case KMPI_DT_BASIC:
        break;
    }
    if (rc != MPI_SUCCESS) {
        kmpi_dt_map_free(m);
        return rc;
    }
    if (m->nruns < m->cap) {   /* maps live long: give back the slack */
        struct kmpi_dt_run *runs = realloc(m->runs, (m->nruns ? m->nruns : 1) * sizeof *runs);

        if (runs != NULL) {
            m->runs = runs;
            m->cap = m->nruns;
        }
    }
    /* one block of all the data at the element's start, elements tiling */
    p->contig = p->lb == 0 && p->extent == (MPI_Aint)p->size
                && (p->size == 0
                    || (m->nruns == 1 && m->runs[0].n == 1 && m->runs[0].off == 0
                        && m->runs[0].len == p->size));
    p->map = m;
    return MPI_SUCCESS;
}

int kmpi_dt_flatten(struct kmpi_dt *t)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    int                    rc;

    pthread_mutex_lock(&lock);
    rc = flatten(t);
    pthread_mutex_unlock(&lock);
    return rc;
}

/* ------------------------------------------------------------ packing */
/* n blocks of len bytes from src to dst, stepping sstep and dstep. The
 * sizes of the basic types get a copy of constant size: a move, no call. */
static void copy_blocks(char *dst, MPI_Aint dstep, const char *src, MPI_Aint sstep, size_t len,
                        size_t n)
{
#define KMPI_COPY_LOOP(L)                                                                    \
    for (size_t i = 0; i < n; i++, dst += dstep, src += sstep)                               \
        memcpy(dst, src, L);                                                                 \
    break
    switch (len) {
    case 1: KMPI_COPY_LOOP(1);
    case 2: KMPI_COPY_LOOP(2);
    case 4: KMPI_COPY_LOOP(4);
    case 8: KMPI_COPY_LOOP(8);
    case 12: KMPI_COPY_LOOP(12);
    case 16: KMPI_COPY_LOOP(16);
    case 24: KMPI_COPY_LOOP(24);
    case 32: KMPI_COPY_LOOP(32);
    default: KMPI_COPY_LOOP(len);
    }
#undef KMPI_COPY_LOOP
}

static const struct kmpi_dt_map *map_of(const struct kmpi_type *t)
{
    if (t->map == NULL)   /* callers commit first; a part is flattened with its whole */
        kmpi_dt_flatten(kmpi_dt(t));
    return t->map;
}

/* the gather (pack) or scatter (unpack) of count elements of t at buf */
static void move_elements(void *buf, size_t count, const struct kmpi_type *t, char *packed,
                          int pack)
{
    const struct kmpi_dt_map *m;
    struct kmpi_dt_run        whole;

    if (count == 0 || t->size == 0)
        return;
    if (t->contig) {
        if (pack)
            memcpy(packed, buf, count * t->size);
        else
            memcpy(buf, packed, count * t->size);
        return;
    }
    if ((m = map_of(t)) == NULL)
        return;   /* out of memory flattening a type nobody committed */
    if (m->nruns == 1 && run_repeat(&m->runs[0], count, t->extent, &whole)) {
        char *b = kmpi_at(buf, whole.off);

        if (pack)
            copy_blocks(packed, (MPI_Aint)whole.len, b, whole.stride, whole.len, whole.n);
        else
            copy_blocks(b, whole.stride, packed, (MPI_Aint)whole.len, whole.len, whole.n);
        return;
    }
    for (size_t e = 0; e < count; e++) {
        for (size_t i = 0; i < m->nruns; i++) {
            const struct kmpi_dt_run *r = &m->runs[i];
            char                     *b = kmpi_at(buf, (MPI_Aint)e * t->extent + r->off);

            if (pack)
                copy_blocks(packed, (MPI_Aint)r->len, b, r->stride, r->len, r->n);
            else
                copy_blocks(b, r->stride, packed, (MPI_Aint)r->len, r->len, r->n);
            packed += r->len * r->n;
        }
    }
}

void kmpi_pack(const void *inbuf, size_t count, const struct kmpi_type *t, void *packed)
{
    move_elements((void *)inbuf, count, t, packed, 1);
}

void kmpi_unpack(const void *packed, size_t count, const struct kmpi_type *t, void *outbuf)
{
    move_elements(outbuf, count, t, (char *)packed, 0);
}

void kmpi_unpack_bytes(const void *packed, size_t bytes, const struct kmpi_type *t,
                       void *outbuf)
{
    const struct kmpi_dt_map *m;
    const char               *src = packed;
    size_t                    whole, rest;
    MPI_Aint                  base;

    if (t->contig) {
        memcpy(outbuf, packed, bytes);
        return;
    }
    if (t->size == 0)
        return;
    whole = bytes / t->size;
    rest = bytes % t->size;
    kmpi_unpack(packed, whole, t, outbuf);
    if (rest == 0 || (m = map_of(t)) == NULL)
        return;
    /* the first rest bytes of element `whole`, along its runs */
    src += whole * t->size;
    base = (MPI_Aint)whole * t->extent;
    for (size_t i = 0; i < m->nruns; i++) {
        const struct kmpi_dt_run *r = &m->runs[i];

        for (size_t k = 0; k < r->n; k++) {
            size_t len = r->len < rest ? r->len : rest;

            memcpy(kmpi_at(outbuf, base + r->off + (MPI_Aint)k * r->stride), src, len);
            src += len;
            if ((rest -= len) == 0)
                return;
        }
    }
}

/* ------------------------------------------------------------ MPI_Pack... */
/* the checks MPI_Pack, MPI_Unpack and MPI_Pack_size share */
static struct kmpi_dt *pack_check(const char *call, int count, MPI_Datatype datatype,
                                  MPI_Comm comm, int need_commit, int *rc)
{
    struct kmpi_dt *t;

    if ((*rc = kmpi_check_live(call)) != MPI_SUCCESS)
        return NULL;
    if (kmpi_comm(comm) == NULL) {
        *rc = kmpi_error(MPI_COMM_NULL, MPI_ERR_COMM, call, "comm %d is not a communicator",
                         comm);
        return NULL;
    }
    if (count < 0) {
        *rc = kmpi_error(comm, MPI_ERR_COUNT, call, "count %d < 0", count);
        return NULL;
    }
    if ((t = kmpi_dt_get(comm, call, "datatype", datatype, rc)) == NULL)
        return NULL;
    if (need_commit && !t->pub.committed) {
        *rc = kmpi_error(comm, MPI_ERR_TYPE, call, "datatype %d is not committed", datatype);
        return NULL;
    }
    return t;
}

/* *position in a buffer of size bytes takes need more: MPI_SUCCESS or the error */
static int pack_room(const char *call, MPI_Comm comm, const int *position, int size,
                     long long need)
{
    if (position == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "position is NULL");
    if (size < 0 || *position < 0 || *position > size)
        return kmpi_error(comm, MPI_ERR_ARG, call, "position %d outside a buffer of %d bytes",
                          *position, size);
    if (need > (long long)(size - *position))
        return kmpi_error(comm, MPI_ERR_TRUNCATE, call,
                          "%lld bytes at position %d overflow the buffer of %d", need,
                          *position, size);
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack = PMPI_Pack
int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    static const char call[] = "MPI_Pack";
    int               rc;
    struct kmpi_dt   *t = pack_check(call, incount, datatype, comm, 1, &rc);
    long long         need;

    if (t == NULL)
        return rc;
    need = (long long)incount * (long long)t->pub.size;
    if ((rc = pack_room(call, comm, position, outsize, need)) != MPI_SUCCESS)
        return rc;
    if (need > 0 && outbuf == NULL)
        return kmpi_error(comm, MPI_ERR_BUFFER, call, "outbuf is NULL");
    kmpi_pack(inbuf, (size_t)incount, &t->pub, (char *)outbuf + *position);
    *position += (int)need;
    return MPI_SUCCESS;
}

#pragma weak MPI_Unpack = PMPI_Unpack
int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    static const char call[] = "MPI_Unpack";
    int               rc;
    struct kmpi_dt   *t = pack_check(call, outcount, datatype, comm, 1, &rc);
    long long         need;

    if (t == NULL)
        return rc;
    need = (long long)outcount * (long long)t->pub.size;
    if ((rc = pack_room(call, comm, position, insize, need)) != MPI_SUCCESS)
        return rc;
    if (need > 0 && inbuf == NULL)
        return kmpi_error(comm, MPI_ERR_BUFFER, call, "inbuf is NULL");
    kmpi_unpack((const char *)inbuf + *position, (size_t)outcount, &t->pub, outbuf);
    *position += (int)need;
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack_size = PMPI_Pack_size
int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    static const char call[] = "MPI_Pack_size";
    int               rc;
    struct kmpi_dt   *t = pack_check(call, incount, datatype, comm, 0, &rc);
    long long         need;

    if (t == NULL)
        return rc;
    if (size == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "size is NULL");
    need = (long long)incount * (long long)t->pub.size;
    if (need > INT_MAX)
        return kmpi_error(comm, MPI_ERR_COUNT, call, "%d elements of %zu bytes exceed an int",
                          incount, t->pub.size);
    *size = (int)need;   /* packed data is the bytes alone: no header */
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ counts */
/* basic entries in the first r bytes of one element's data (r <= size),
 * or -1 when r ends inside one */
static long long elems_prefix(const struct kmpi_dt *t, size_t r)
{
    long long acc = 0, p;

    if (r == 0)
        return 0;
    if (r == t->pub.size)
        return (long long)t->nelem;
    switch (t->kind) {
    case KMPI_DT_BASIC:
        return t->pair_vlen != 0 && r == t->pair_vlen ? 1 : -1;
    case KMPI_DT_VECTOR:   /* r < size: the old type has data */
        p = elems_prefix(t->old, r % t->old->pub.size);
        return p < 0 ? -1 : (long long)(r / t->old->pub.size * t->old->nelem) + p;
    case KMPI_DT_BLOCKS:
        for (size_t i = 0; i < t->count; i++) {
            const struct kmpi_dt *o = t->types != NULL ? t->types[i] : t->old;
            size_t                b = t->blocklens[i] * o->pub.size;

            if (r >= b) {
                acc += (long long)(t->blocklens[i] * o->nelem);
                r -= b;
                continue;
            }
            p = elems_prefix(o, r % o->pub.size);
            return p < 0 ? -1 : acc + (long long)(r / o->pub.size * o->nelem) + p;
        }
        return acc;
    case KMPI_DT_RESIZED:
    case KMPI_DT_DUP:
        return elems_prefix(t->old, r);
    }
    return -1;
}

/* the inverse of elems_prefix: the fewest bytes of one element's data
 * that hold its first k basic entries (0 <= k < nelem), or -1 when no
 * prefix holds exactly k. Walks the constructor tree once, so its cost
 * is the tree's, not the type's size. */
static long long elems_bytes(const struct kmpi_dt *t, size_t k)
{
    long long acc = 0, p;

    if (k == 0)
        return 0;
    switch (t->kind) {
    case KMPI_DT_BASIC:
        return t->pair_vlen != 0 && k == 1 ? (long long)t->pair_vlen : -1;
    case KMPI_DT_VECTOR:   /* the old type's copies follow each other in the data */
        if (t->old->nelem == 0)
            return -1;
        p = elems_bytes(t->old, k % t->old->nelem);
        return p < 0 ? -1 : (long long)(k / t->old->nelem * t->old->pub.size) + p;
    case KMPI_DT_BLOCKS:
        for (size_t i = 0; i < t->count; i++) {
            const struct kmpi_dt *o = t->types != NULL ? t->types[i] : t->old;
            size_t                e = t->blocklens[i] * o->nelem;

            if (k >= e) {
                acc += (long long)(t->blocklens[i] * o->pub.size);
                k -= e;
                continue;
            }
            p = elems_bytes(o, k % o->nelem);
            return p < 0 ? -1 : acc + (long long)(k / o->nelem * o->pub.size) + p;
        }
        return k == 0 ? acc : -1;
    case KMPI_DT_RESIZED:
    case KMPI_DT_DUP:
        return elems_bytes(t->old, k);
    }
    return -1;
}

/* the status and datatype of Get_count/Get_elements, or NULL with *rc set */
static struct kmpi_dt *count_check(const char *call, const MPI_Status *status,
                                   MPI_Datatype datatype, const int *count, int *rc)
{
    struct kmpi_dt *t;

    if ((*rc = kmpi_check_live(call)) != MPI_SUCCESS)
        return NULL;
    if ((t = kmpi_dt_get(MPI_COMM_NULL, call, "datatype", datatype, rc)) == NULL)
        return NULL;
    if (status == MPI_STATUS_IGNORE || count == NULL) {
        *rc = kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "%s",
                         count == NULL ? "count is NULL" : "status is MPI_STATUS_IGNORE");
        return NULL;
    }
    return t;
}

#pragma weak MPI_Get_count = PMPI_Get_count
int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    int             rc;
    struct kmpi_dt *t = count_check("MPI_Get_count", status, datatype, count, &rc);
    long long       bytes, n;

    if (t == NULL)
        return rc;
    bytes = status->kmpi_bytes;
    if (t->pub.size == 0) {   /* MPI-3.1 3.2.5: a count of zero */
        *count = 0;
        return MPI_SUCCESS;
    }
    n = bytes / (long long)t->pub.size;
    *count = n * (long long)t->pub.size == bytes && n <= INT_MAX ? (int)n : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_elements = PMPI_Get_elements
int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    int             rc;
    struct kmpi_dt *t = count_check("MPI_Get_elements", status, datatype, count, &rc);
    long long       bytes, whole, part;

    if (t == NULL)
        return rc;
    bytes = status->kmpi_bytes;
    if (t->pub.size == 0 || bytes <= 0) {
        *count = 0;
        return MPI_SUCCESS;
    }
    whole = bytes / (long long)t->pub.size;
    part = elems_prefix(t, (size_t)(bytes % (long long)t->pub.size));
    /* MPI-3.1 4.1.11: MPI_UNDEFINED also when the count exceeds an int
     * (part alone can, within one element of a type of over INT_MAX entries) */
    if (part < 0 || part > INT_MAX
        || whole > (INT_MAX - part) / (long long)(t->nelem ? t->nelem : 1))
        *count = MPI_UNDEFINED;
    else
        *count = (int)(whole * (long long)t->nelem + part);
    return MPI_SUCCESS;
}

/* MPI-3.1 4.1.11: the large-count forms */
#pragma weak MPI_Get_elements_x = PMPI_Get_elements_x
int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    int             rc, dummy = 0;
    struct kmpi_dt *t = count_check("MPI_Get_elements_x", status, datatype,
                                    count != NULL ? &dummy : NULL, &rc);
    long long       bytes, part;

    if (t == NULL)
        return rc;
    bytes = status->kmpi_bytes;
    if (t->pub.size == 0 || bytes <= 0) {
        *count = 0;
        return MPI_SUCCESS;
    }
    part   = elems_prefix(t, (size_t)(bytes % (long long)t->pub.size));
    *count = part < 0 ? MPI_UNDEFINED
                      : bytes / (long long)t->pub.size * (long long)t->nelem + part;
    return MPI_SUCCESS;
}

/* MPI-3.1 12.2: status then says count elements of datatype arrived
 * (MPI_Get_elements gives count back; MPI_Get_count count / elements per
 * datatype when that divides). A count that ends inside the type's
 * elements takes the shortest prefix holding that many. */
static int status_set(const char *call, MPI_Status *status, MPI_Datatype datatype,
                      long long count)
{
    int             rc = kmpi_check_live(call);
    struct kmpi_dt *t;
    long long       whole, rest, p = 0;

    if (rc != MPI_SUCCESS)
        return rc;
    if ((t = kmpi_dt_get(MPI_COMM_NULL, call, "datatype", datatype, &rc)) == NULL)
        return rc;
    if (status == NULL || status == MPI_STATUS_IGNORE || count < 0)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "status is NULL or "
                          "MPI_STATUS_IGNORE, or count %lld is negative", count);
    if (t->nelem == 0 || t->pub.size == 0) {
        if (count != 0)
            return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "the datatype holds no "
                              "elements, so count must be 0, not %lld", count);
        status->kmpi_bytes = 0;
        return MPI_SUCCESS;
    }
    whole = count / (long long)t->nelem;
    rest  = count % (long long)t->nelem;
    if (rest > 0 && (p = elems_bytes(t, (size_t)rest)) < 0)
        p = (long long)t->pub.size;   /* no prefix holds them: the whole element */
    status->kmpi_bytes = whole * (long long)t->pub.size + p;
    return MPI_SUCCESS;
}

#pragma weak MPI_Status_set_elements = PMPI_Status_set_elements
int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    return status_set("MPI_Status_set_elements", status, datatype, count);
}

#pragma weak MPI_Status_set_elements_x = PMPI_Status_set_elements_x
int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return status_set("MPI_Status_set_elements_x", status, datatype, count);
}

#pragma weak MPI_Status_set_cancelled = PMPI_Status_set_cancelled
int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    if (status == NULL || status == MPI_STATUS_IGNORE)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Status_set_cancelled",
                          "status is NULL or MPI_STATUS_IGNORE");
    status->kmpi_cancelled = flag != 0;
    return MPI_SUCCESS;
}
