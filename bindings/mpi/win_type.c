/*
 * win_type.c -- a derived target datatype on the wire: its bounds and its
 * flattened runs (datatype.h's map), enough for the target to pack,
 * unpack and accumulate along it without the origin's handle. The one
 * file outside the datatype engine that reads datatype.h (the runs).
 */
#include <stdlib.h>
#include <string.h>

#include "datatype.h"
#include "win_int.h"

struct wire_type {
    uint64_t size, nbasic, nruns;
    int64_t  lb, extent, true_lb, true_extent;
    int32_t  contig, basic;
};

struct wire_run {
    int64_t  off;
    uint64_t len, n;
    int64_t  stride;
};

size_t kmpi_win_type_wire(const struct kmpi_type *t, void *out)
{
    const struct kmpi_dt_map *m = t->map;
    struct wire_type          w;

    if (!t->contig && m == NULL) {
        kmpi_dt_flatten(kmpi_dt(t));
        m = t->map;
    }
    size_t nruns = t->contig || m == NULL ? 0 : m->nruns;
    if (out == NULL)
        return sizeof w + nruns * sizeof(struct wire_run);
    w.size        = t->size;
    w.nbasic      = t->nbasic;
    w.nruns       = nruns;
    w.lb          = t->lb;
    w.extent      = t->extent;
    w.true_lb     = t->true_lb;
    w.true_extent = t->true_extent;
    w.contig      = t->contig;
    w.basic       = t->basic;
    memcpy(out, &w, sizeof w);
    for (size_t i = 0; i < nruns; i++) {
        struct wire_run r = { m->runs[i].off, m->runs[i].len, m->runs[i].n, m->runs[i].stride };
        memcpy((char *)out + sizeof w + i * sizeof r, &r, sizeof r);
    }
    return sizeof w + nruns * sizeof(struct wire_run);
}

struct kmpi_type *kmpi_win_type_unwire(const void *in, size_t n, void **mem)
{
    struct wire_type w;

    *mem = NULL;
    if (n < sizeof w)
        return NULL;
    memcpy(&w, in, sizeof w);
    if (w.nruns > (n - sizeof w) / sizeof(struct wire_run))
        return NULL;
    /* one block: the type, its map, its runs */
    size_t             bytes = sizeof(struct kmpi_type) + sizeof(struct kmpi_dt_map)
                               + w.nruns * sizeof(struct kmpi_dt_run);
    char              *p     = calloc(1, bytes);
    struct kmpi_type  *t     = (struct kmpi_type *)p;
    struct kmpi_dt_map *m    = (struct kmpi_dt_map *)(p + sizeof *t);
    struct kmpi_dt_run *runs = (struct kmpi_dt_run *)(p + sizeof *t + sizeof *m);

    if (p == NULL)
        return NULL;
    t->size        = w.size;
    t->nbasic      = w.nbasic;
    t->lb          = w.lb;
    t->extent      = w.extent;
    t->true_lb     = w.true_lb;
    t->true_extent = w.true_extent;
    t->contig      = w.contig;
    t->basic       = w.basic;
    t->committed   = 1;
    for (size_t i = 0; i < w.nruns; i++) {
        struct wire_run r;
        memcpy(&r, (const char *)in + sizeof w + i * sizeof r, sizeof r);
        runs[i].off    = r.off;
        runs[i].len    = r.len;
        runs[i].n      = r.n;
        runs[i].stride = r.stride;
    }
    m->nruns = m->cap = w.nruns;
    m->runs  = runs;
    t->map   = w.contig ? NULL : m;
    *mem     = p;
    return t;
}
