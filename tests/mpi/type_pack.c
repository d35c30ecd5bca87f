/*
 * type_pack.c -- MPI_Pack/MPI_Unpack of every constructor against typemaps
 * worked out by hand (type_util.h's tu_typemap: the packed bytes are the
 * typemap's entries in order; unpacking writes exactly those bytes), at
 * counts 1 and more (elements repeat at extent steps), negative strides
 * and displacements, out-of-order struct fields, pair types, resized
 * types, nested types, long vectors; MPI_BOTTOM with absolute addresses;
 * several Pack calls into one buffer through position; MPI_Pack_size.
 * Any number of ranks, each checking the same; rank 0 reports.
 */
#include <stddef.h>

#include "type_util.h"

#define N(a) (int)(sizeof(a) / sizeof((a)[0]))

/* vector(count, bl, stride) of len-byte elements, by hand */
static int vector_map(struct tu_ent *e, int count, int bl, long stride_bytes, int len)
{
    int n = 0;

    for (int i = 0; i < count; i++)
        for (int j = 0; j < bl; j++)
            e[n++] = (struct tu_ent){ i * stride_bytes + (long)j * len, len };
    return n;
}

static void constructors(void)
{
    static struct tu_ent big[4096];
    MPI_Datatype         t, s_dc, v, r;
    int                  n;

    MPI_Type_contiguous(5, MPI_INT, &t);
    MPI_Type_commit(&t);
    {
        struct tu_ent e[] = { { 0, 4 }, { 4, 4 }, { 8, 4 }, { 12, 4 }, { 16, 4 } };

        tu_typemap("contiguous(5, int)", t, 3, e, N(e));
    }
    MPI_Type_free(&t);

    MPI_Type_vector(3, 2, 4, MPI_INT, &t);
    MPI_Type_commit(&t);
    {
        struct tu_ent e[] = { { 0, 4 }, { 4, 4 }, { 16, 4 }, { 20, 4 }, { 32, 4 }, { 36, 4 } };

        tu_typemap("vector(3, 2, 4, int)", t, 1, e, N(e));
        tu_typemap("vector(3, 2, 4, int)", t, 4, e, N(e));
    }
    MPI_Type_free(&t);

    MPI_Type_vector(3, 1, -2, MPI_INT, &t);   /* packs from 0 downwards */
    MPI_Type_commit(&t);
    {
        struct tu_ent e[] = { { 0, 4 }, { -8, 4 }, { -16, 4 } };

        tu_typemap("vector(3, 1, -2, int)", t, 3, e, N(e));
    }
    MPI_Type_free(&t);

    MPI_Type_create_hvector(2, 3, 20, MPI_SHORT, &t);
    MPI_Type_commit(&t);
    {
        struct tu_ent e[] = { { 0, 2 }, { 2, 2 }, { 4, 2 }, { 20, 2 }, { 22, 2 }, { 24, 2 } };

        tu_typemap("hvector(2, 3, 20 B, short)", t, 2, e, N(e));
    }
    MPI_Type_free(&t);

    MPI_Type_create_hvector(3, 1, 0, MPI_INT, &t);   /* one int, packed three times */
    MPI_Type_commit(&t);
    {
        struct tu_ent e[] = { { 0, 4 }, { 0, 4 }, { 0, 4 } };

        tu_typemap("hvector(3, 1, 0 B, int)", t, 2, e, N(e));
    }
    MPI_Type_free(&t);

    {
        int           bl[3] = { 2, 1, 3 }, d[3] = { 4, 0, 10 };
        struct tu_ent e[] = { { 32, 8 }, { 40, 8 }, { 0, 8 }, { 80, 8 }, { 88, 8 }, { 96, 8 } };

        MPI_Type_indexed(3, bl, d, MPI_DOUBLE, &t);
        MPI_Type_commit(&t);
        tu_typemap("indexed({2,1,3}, {4,0,10}, double)", t, 2, e, N(e));
        MPI_Type_free(&t);
    }
    {
        int           bl[2] = { 1, 2 };
        MPI_Aint      d[2] = { 12, -4 };
        struct tu_ent e[] = { { 12, 4 }, { -4, 4 }, { 0, 4 } };

        MPI_Type_create_hindexed(2, bl, d, MPI_INT, &t);
        MPI_Type_commit(&t);
        tu_typemap("hindexed({1,2}, {12,-4} B, int)", t, 3, e, N(e));
        MPI_Type_free(&t);
    }
    {
        int           d[3] = { 5, 0, 2 };
        struct tu_ent e[] = { { 20, 4 }, { 24, 4 }, { 0, 4 }, { 4, 4 }, { 8, 4 }, { 12, 4 } };

        MPI_Type_create_indexed_block(3, 2, d, MPI_FLOAT, &t);
        MPI_Type_commit(&t);
        tu_typemap("indexed_block(2, {5,0,2}, float)", t, 2, e, N(e));
        MPI_Type_free(&t);
    }
    {
        int           bl[3] = { 1, 2, 1 };
        MPI_Aint      d[3] = { 0, 8, 24 };
        MPI_Datatype  ty[3] = { MPI_CHAR, MPI_DOUBLE, MPI_INT };
        struct tu_ent e[] = { { 0, 1 }, { 8, 8 }, { 16, 8 }, { 24, 4 } };

        MPI_Type_create_struct(3, bl, d, ty, &t);   /* extent 32 */
        MPI_Type_commit(&t);
        tu_typemap("struct{char@0 2 double@8 int@24}", t, 3, e, N(e));
        MPI_Type_free(&t);
    }
    {
        int           bl[3] = { 1, 1, 1 };
        MPI_Aint      d[3] = { 8, 0, 4 };   /* packed in typemap order, not by address */
        MPI_Datatype  ty[3] = { MPI_DOUBLE, MPI_SHORT, MPI_FLOAT };
        struct tu_ent e[] = { { 8, 8 }, { 0, 2 }, { 4, 4 } };

        MPI_Type_create_struct(3, bl, d, ty, &t);
        MPI_Type_commit(&t);
        tu_typemap("struct{double@8 short@0 float@4}", t, 2, e, N(e));
        MPI_Type_free(&t);
    }
    {
        struct tu_ent e[] = { { 0, 2 }, { 4, 4 } };   /* short, (2 bytes of padding), int */

        tu_typemap("MPI_SHORT_INT", MPI_SHORT_INT, 3, e, N(e));
    }
    {
        struct tu_ent e[] = { { 0, 8 }, { 8, 4 } };   /* extent 16 */

        tu_typemap("MPI_DOUBLE_INT", MPI_DOUBLE_INT, 3, e, N(e));
    }
    {
        struct tu_ent e[] = { { 0, 8 } };

        tu_typemap("MPI_DOUBLE", MPI_DOUBLE, 7, e, N(e));
    }

    /* resized: elements step by the new extent */
    MPI_Type_create_resized(MPI_INT, -4, 16, &r);
    MPI_Type_commit(&r);
    {
        struct tu_ent e[] = { { 0, 4 } };

        tu_typemap("resized(int, -4, 16)", r, 3, e, N(e));
    }
    MPI_Type_contiguous(2, r, &t);
    MPI_Type_commit(&t);
    {
        struct tu_ent e[] = { { 0, 4 }, { 16, 4 } };   /* extent 32 */

        tu_typemap("contiguous(2, resized(int, -4, 16))", t, 2, e, N(e));
    }
    MPI_Type_free(&t);
    MPI_Type_free(&r);
    MPI_Type_create_resized(MPI_DOUBLE, 0, 4, &r);   /* overlapping elements */
    MPI_Type_commit(&r);
    {
        struct tu_ent e[] = { { 0, 8 } };
        int           pos = 0;

        tu_fill();
        MPI_Pack(tu_src + TU_ORIGIN, 3, r, tu_packed, TU_MEM, &pos, MPI_COMM_WORLD);
        TU_CHECK(pos == 24 && memcmp(tu_packed, tu_src + TU_ORIGIN, 8) == 0
                     && memcmp(tu_packed + 8, tu_src + TU_ORIGIN + 4, 8) == 0
                     && memcmp(tu_packed + 16, tu_src + TU_ORIGIN + 8, 8) == 0,
                 "resized(double, 0, 4) x3 packs doubles at 0, 4, 8");
        printf("%-40s x3   pack of overlapping elements ok\n", "resized(double, 0, 4)");
        (void)e;
    }
    MPI_Type_free(&r);

    /* nested */
    {
        int          bl[2] = { 1, 1 };
        MPI_Aint     d[2] = { 0, 8 };
        MPI_Datatype ty[2] = { MPI_DOUBLE, MPI_CHAR };

        MPI_Type_create_struct(2, bl, d, ty, &s_dc);   /* extent 16 */
    }
    MPI_Type_vector(3, 2, 3, s_dc, &t);   /* blocks at 0, 48, 96 of two structs */
    MPI_Type_commit(&t);
    {
        struct tu_ent e[] = { { 0, 8 },  { 8, 1 },  { 16, 8 },  { 24, 1 },  { 48, 8 },  { 56, 1 },
                              { 64, 8 }, { 72, 1 }, { 96, 8 }, { 104, 1 }, { 112, 8 }, { 120, 1 } };

        tu_typemap("vector(3, 2, 3, struct{double char})", t, 2, e, N(e));
    }
    MPI_Type_free(&t);
    MPI_Type_vector(2, 1, 3, MPI_INT, &v);   /* ints at 0 and 12, extent 16 */
    {
        int           bl[2] = { 1, 2 }, d[2] = { 3, -1 };
        struct tu_ent e[] = { { 48, 4 }, { 60, 4 }, { -16, 4 }, { -4, 4 }, { 0, 4 }, { 12, 4 } };

        MPI_Type_indexed(2, bl, d, v, &t);
        MPI_Type_commit(&t);
        tu_typemap("indexed({1,2}, {3,-1}, vector(2,1,3,int))", t, 2, e, N(e));
        MPI_Type_free(&t);
    }
    {
        int           bl[3] = { 1, 2, 1 };
        MPI_Aint      d[3] = { 100, 0, 40 };
        MPI_Datatype  ty[3] = { v, s_dc, MPI_SHORT_INT };
        struct tu_ent e[] = { { 100, 4 }, { 112, 4 }, { 0, 8 }, { 8, 1 },
                              { 16, 8 },  { 24, 1 },  { 40, 2 }, { 44, 4 } };

        MPI_Type_create_struct(3, bl, d, ty, &t);
        MPI_Type_commit(&t);
        tu_typemap("struct{vector@100 2 struct@0 short_int@40}", t, 2, e, N(e));
        MPI_Type_free(&t);
    }
    MPI_Type_free(&v);
    MPI_Type_free(&s_dc);

    /* long vectors: the fast paths must give the typemap's bytes too */
    MPI_Type_vector(300, 3, 5, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    n = vector_map(big, 300, 3, 40, 8);
    tu_typemap("vector(300, 3, 5, double)", t, 2, big, n);
    MPI_Type_free(&t);
    MPI_Type_vector(500, 1, 2, MPI_FLOAT, &t);
    MPI_Type_commit(&t);
    n = vector_map(big, 500, 1, 8, 4);
    tu_typemap("vector(500, 1, 2, float)", t, 3, big, n);
    MPI_Type_free(&t);
    MPI_Type_vector(100, 1, 3, MPI_CHAR, &t);
    MPI_Type_commit(&t);
    n = vector_map(big, 100, 1, 3, 1);
    tu_typemap("vector(100, 1, 3, char)", t, 2, big, n);
    MPI_Type_free(&t);
    MPI_Type_create_hvector(200, 7, 10, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    n = vector_map(big, 200, 7, 10, 1);
    tu_typemap("hvector(200, 7, 10 B, byte)", t, 2, big, n);
    MPI_Type_free(&t);
    MPI_Type_vector(4, 2, 2, MPI_INT, &t);   /* stride == blocklength: all contiguous */
    MPI_Type_commit(&t);
    n = vector_map(big, 4, 2, 8, 4);
    tu_typemap("vector(4, 2, 2, int)", t, 5, big, n);
    MPI_Type_free(&t);
}

/* a struct of absolute addresses, packed from MPI_BOTTOM */
static void bottom(void)
{
    static int    a = 0x11223344;
    static double b = 2.5;
    static short  c[2] = { 7, -9 };
    int           bl[3] = { 1, 1, 2 }, pos = 0, upos = 0, rc;
    MPI_Aint      d[3];
    MPI_Datatype  ty[3] = { MPI_INT, MPI_DOUBLE, MPI_SHORT }, t;
    unsigned char buf[64], want[16];

    MPI_Get_address(&a, &d[0]);
    MPI_Get_address(&b, &d[1]);
    MPI_Get_address(c, &d[2]);
    MPI_Type_create_struct(3, bl, d, ty, &t);
    MPI_Type_commit(&t);
    memcpy(want, &a, 4);
    memcpy(want + 4, &b, 8);
    memcpy(want + 12, c, 4);
    rc = MPI_Pack(MPI_BOTTOM, 1, t, buf, (int)sizeof buf, &pos, MPI_COMM_WORLD);
    TU_CHECK(rc == MPI_SUCCESS && pos == 16 && memcmp(buf, want, 16) == 0,
             "pack from MPI_BOTTOM: rc %s position %d", tu_class(rc), pos);
    a = 0;
    b = 0;
    c[0] = c[1] = 0;
    rc = MPI_Unpack(buf, pos, &upos, MPI_BOTTOM, 1, t, MPI_COMM_WORLD);
    TU_CHECK(rc == MPI_SUCCESS && upos == 16 && a == 0x11223344 && b == 2.5 && c[0] == 7
                 && c[1] == -9,
             "unpack to MPI_BOTTOM: rc %s position %d", tu_class(rc), upos);
    printf("struct of absolute addresses from and to MPI_BOTTOM: %d bytes\n", pos);
    MPI_Type_free(&t);
}

/* several values packed one after the other, unpacked in the same order */
static void positions(void)
{
    int          x = 42, y = 0, v[6] = { 1, 2, 3, 4, 5, 6 }, w[6] = { 0 }, pos = 0, upos = 0, sz;
    double       d[2] = { 1.25, -3.5 }, e[2] = { 0 };
    char         buf[100];
    MPI_Datatype t;

    MPI_Type_vector(3, 1, 2, MPI_INT, &t);   /* v[0], v[2], v[4] */
    MPI_Type_commit(&t);
    MPI_Pack(&x, 1, MPI_INT, buf, (int)sizeof buf, &pos, MPI_COMM_WORLD);
    printf("position after an int: %d\n", pos);
    MPI_Pack(v, 1, t, buf, (int)sizeof buf, &pos, MPI_COMM_WORLD);
    printf("position after vector(3, 1, 2, int): %d\n", pos);
    MPI_Pack(d, 2, MPI_DOUBLE, buf, (int)sizeof buf, &pos, MPI_COMM_WORLD);
    printf("position after 2 doubles: %d\n", pos);
    TU_CHECK(pos == 4 + 12 + 16, "final position %d", pos);
    MPI_Unpack(buf, pos, &upos, &y, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Unpack(buf, pos, &upos, w, 3, MPI_INT, MPI_COMM_WORLD);   /* as contiguous ints */
    MPI_Unpack(buf, pos, &upos, e, 2, MPI_DOUBLE, MPI_COMM_WORLD);
    TU_CHECK(upos == pos && y == 42 && w[0] == 1 && w[1] == 3 && w[2] == 5 && w[3] == 0
                 && e[0] == 1.25 && e[1] == -3.5,
             "unpacked %d %d %d %d %g %g at %d", y, w[0], w[1], w[2], e[0], e[1], upos);
    printf("unpacked: %d | %d %d %d | %g %g\n", y, w[0], w[1], w[2], e[0], e[1]);
    MPI_Pack_size(1, t, MPI_COMM_WORLD, &sz);
    printf("MPI_Pack_size(1, vector(3, 1, 2, int)) = %d\n", sz);
    TU_CHECK(sz >= 12, "Pack_size %d", sz);
    MPI_Pack_size(0, t, MPI_COMM_WORLD, &sz);
    TU_CHECK(sz == 0, "Pack_size of 0 elements %d", sz);
    MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv);
    constructors();
    bottom();
    positions();
    return tu_finish("type_pack");
}
