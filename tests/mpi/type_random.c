/*
 * type_random.c -- 400 datatypes built at random (a fixed seed) by every
 * constructor on basic types and on each other: negative and zero strides,
 * overlapping and out-of-order blocks, resized parts, pair types. The test
 * keeps its own typemap of each (a list of entries worked out from the
 * constructor's definition and the parts' extents) and checks that
 * MPI_Type_size agrees and that MPI_Pack/MPI_Unpack of 1 to 3 elements
 * move exactly those bytes in that order (type_util.h's tu_typemap). The
 * bounds rules have their own test (type_extent); here the extents are
 * the library's. Any number of ranks; rank 0 prints a summary.
 */
#include "type_util.h"

#define NTYPES  400
#define MAXENT  1500
#define SPAN    12000   /* entries stay within +-SPAN bytes of the origin */

struct model {
    MPI_Datatype   t;
    int            n;   /* entries */
    struct tu_ent *e;
    MPI_Aint       extent;
};

static struct model types[NTYPES];
static int          ntypes;
static unsigned     seed = 12345;

static int rnd(int lo, int hi)   /* inclusive; the same on every MPI */
{
    seed = seed * 1103515245u + 12345u;
    return lo + (int)((seed >> 8) % (unsigned)(hi - lo + 1));
}

/* appends copies of model m displaced by d; 0 when the map grows too big */
static int put(struct tu_ent *e, int *n, const struct model *m, long d)
{
    if (*n + m->n > MAXENT)
        return 0;
    for (int i = 0; i < m->n; i++)
        e[(*n)++] = (struct tu_ent){ m->e[i].off + d, m->e[i].len };
    return 1;
}

static void add_basic(MPI_Datatype t, struct tu_ent a, struct tu_ent b, int two)
{
    struct model *m = &types[ntypes++];
    MPI_Aint      lb;

    m->t = t;
    m->n = two ? 2 : 1;
    m->e = malloc(2 * sizeof *m->e);
    m->e[0] = a;
    m->e[1] = b;
    MPI_Type_get_extent(t, &lb, &m->extent);
}

/* a part for a new type: seldom an empty one */
static struct model *pick(void)
{
    struct model *m = &types[rnd(0, ntypes - 1)];

    for (int i = 0; i < 3 && m->n == 0; i++)
        m = &types[rnd(0, ntypes - 1)];
    return m;
}

/* one random type from the ones there are; 0 when it came out too big */
static int build(void)
{
    static struct tu_ent e[MAXENT];
    struct model        *m = &types[ntypes], *o = pick();
    int                  n = 0, ok = 1, kind = rnd(0, 8), count, bl[4], di[4];
    MPI_Aint             ad[4], lb;
    MPI_Datatype         ty[4], t = MPI_DATATYPE_NULL;

    count = rnd(0, 9) ? rnd(1, 4) : 0;   /* zero now and then */
    for (int i = 0; i < 4; i++) {
        bl[i] = rnd(0, 7) ? rnd(1, 3) : 0;
        di[i] = rnd(-4, 6);
        ad[i] = rnd(-40, 60);
        ty[i] = MPI_DATATYPE_NULL;
    }
    switch (kind) {
    case 0:
        MPI_Type_contiguous(count, o->t, &t);
        for (int i = 0; i < count && ok; i++)
            ok = put(e, &n, o, i * (long)o->extent);
        break;
    case 1:
    case 2: {
        int  b = rnd(0, 7) ? rnd(1, 3) : 0, s = rnd(-3, 3);
        long step = kind == 1 ? s * (long)o->extent : rnd(-40, 40);

        if (kind == 1)
            MPI_Type_vector(count, b, s, o->t, &t);
        else
            MPI_Type_create_hvector(count, b, step, o->t, &t);
        for (int i = 0; i < count && ok; i++)
            for (int j = 0; j < b && ok; j++)
                ok = put(e, &n, o, i * step + j * (long)o->extent);
        break;
    }
    case 3:
        MPI_Type_indexed(count, bl, di, o->t, &t);
        for (int i = 0; i < count && ok; i++)
            for (int j = 0; j < bl[i] && ok; j++)
                ok = put(e, &n, o, (di[i] + j) * (long)o->extent);
        break;
    case 4:
        MPI_Type_create_hindexed(count, bl, ad, o->t, &t);
        for (int i = 0; i < count && ok; i++)
            for (int j = 0; j < bl[i] && ok; j++)
                ok = put(e, &n, o, ad[i] + j * (long)o->extent);
        break;
    case 5:
        MPI_Type_create_indexed_block(count, bl[0], di, o->t, &t);
        for (int i = 0; i < count && ok; i++)
            for (int j = 0; j < bl[0] && ok; j++)
                ok = put(e, &n, o, (di[i] + j) * (long)o->extent);
        break;
    case 6: {
        const struct model *p[4];

        for (int i = 0; i < 4; i++) {
            p[i] = pick();
            ty[i] = p[i]->t;
        }
        MPI_Type_create_struct(count, bl, ad, ty, &t);
        for (int i = 0; i < count && ok; i++)
            for (int j = 0; j < bl[i] && ok; j++)
                ok = put(e, &n, p[i], ad[i] + j * (long)p[i]->extent);
        break;
    }
    case 7:
        MPI_Type_create_resized(o->t, rnd(-16, 16), rnd(1, 40), &t);
        ok = put(e, &n, o, 0);
        break;
    default:
        MPI_Type_dup(o->t, &t);
        ok = put(e, &n, o, 0);
        break;
    }
    for (int i = 0; i < n && ok; i++)
        ok = e[i].off > -SPAN / 4 && e[i].off < SPAN / 4;
    MPI_Type_get_extent(t, &lb, &m->extent);
    if (!ok || m->extent > SPAN / 4 || m->extent < -SPAN / 4) {
        MPI_Type_free(&t);
        return 0;
    }
    m->t = t;
    m->n = n;
    m->e = malloc((size_t)(n ? n : 1) * sizeof *m->e);
    memcpy(m->e, e, (size_t)n * sizeof *e);
    ntypes++;
    return 1;
}

int main(int argc, char **argv)
{
    int tried = 0, bad_size = 0, kept;

    tu_init(&argc, &argv);
    tu_quiet = 1;
    add_basic(MPI_INT, (struct tu_ent){ 0, 4 }, (struct tu_ent){ 0, 0 }, 0);
    add_basic(MPI_DOUBLE, (struct tu_ent){ 0, 8 }, (struct tu_ent){ 0, 0 }, 0);
    add_basic(MPI_CHAR, (struct tu_ent){ 0, 1 }, (struct tu_ent){ 0, 0 }, 0);
    add_basic(MPI_SHORT, (struct tu_ent){ 0, 2 }, (struct tu_ent){ 0, 0 }, 0);
    add_basic(MPI_SHORT_INT, (struct tu_ent){ 0, 2 }, (struct tu_ent){ 4, 4 }, 1);
    add_basic(MPI_DOUBLE_INT, (struct tu_ent){ 0, 8 }, (struct tu_ent){ 8, 4 }, 1);
    kept = ntypes;
    while (ntypes < NTYPES && tried < 20 * NTYPES) {
        tried++;
        build();
    }
    printf("type_random: %d types built (%d attempts, the rest came out too large)\n",
           ntypes - kept, tried);
    for (int i = kept; i < ntypes; i++) {
        struct model *m = &types[i];
        int           size, want = 0, saved = tu_failures;

        for (int k = 0; k < m->n; k++)
            want += m->e[k].len;
        MPI_Type_size(m->t, &size);
        bad_size += size != want;
        MPI_Type_commit(&m->t);
        for (int count = 1; count <= 3; count++) {
            long lo = 0, hi = 0;

            for (int k = 0; k < m->n; k++)
                for (int c = 0; c < count; c++) {
                    long at = m->e[k].off + c * (long)m->extent;

                    lo = at < lo ? at : lo;
                    hi = at + m->e[k].len > hi ? at + m->e[k].len : hi;
                }
            if (lo > -SPAN && hi < SPAN && count * (long)want < TU_MEM) {
                char name[32];

                snprintf(name, sizeof name, "random type %d", i);
                tu_typemap(name, m->t, count, m->e, m->n);
            }
        }
        if (tu_failures != saved)
            fprintf(stderr, "  (type %d: %d entries, extent %ld)\n", i, m->n,
                    (long)m->extent);
    }
    TU_CHECK(bad_size == 0, "%d types of the wrong size", bad_size);
    for (int i = kept; i < ntypes; i++)
        MPI_Type_free(&types[i].t);
    return tu_finish("type_random");
}
