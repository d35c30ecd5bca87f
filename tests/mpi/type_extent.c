/*
 * type_extent.c -- sizes, bounds and true bounds (MPI-3.1 4.1.5-4.1.8) of
 * every predefined type and every constructor: struct padding to the
 * largest alignment, resized types and the lb/ub markers they carry into
 * the types built on them, negative strides and displacements, zero-count
 * types, nested types. The expected values are worked out by hand from
 * the typemaps (x86-64 / LP64 sizes, read from the C types). Any number of
 * ranks; rank 0 reports.
 */
#include <stddef.h>
#include <stdint.h>

#include "type_util.h"

typedef struct { float v; int i; } float_int;
typedef struct { double v; int i; } double_int;
typedef struct { long v; int i; } long_int;
typedef struct { short v; int i; } short_int;
typedef struct { long double v; int i; } long_double_int;

#define BASIC(T, ct) tu_bounds(#T, T, (int)sizeof(ct), 0, sizeof(ct), 0, sizeof(ct))
#define PAIR(T, st, vt)                                                                      \
    tu_bounds(#T, T, (int)(sizeof(vt) + sizeof(int)), 0, sizeof(st), 0,                     \
              offsetof(st, i) + sizeof(int))

static void predefined(void)
{
    BASIC(MPI_CHAR, char);
    BASIC(MPI_SIGNED_CHAR, signed char);
    BASIC(MPI_UNSIGNED_CHAR, unsigned char);
    BASIC(MPI_BYTE, unsigned char);
    BASIC(MPI_SHORT, short);
    BASIC(MPI_UNSIGNED_SHORT, unsigned short);
    BASIC(MPI_INT, int);
    BASIC(MPI_UNSIGNED, unsigned);
    BASIC(MPI_LONG, long);
    BASIC(MPI_UNSIGNED_LONG, unsigned long);
    BASIC(MPI_LONG_LONG_INT, long long);
    BASIC(MPI_LONG_LONG, long long);
    BASIC(MPI_UNSIGNED_LONG_LONG, unsigned long long);
    BASIC(MPI_FLOAT, float);
    BASIC(MPI_DOUBLE, double);
    BASIC(MPI_LONG_DOUBLE, long double);
    BASIC(MPI_WCHAR, wchar_t);
    BASIC(MPI_C_BOOL, _Bool);
    BASIC(MPI_INT8_T, int8_t);
    BASIC(MPI_INT16_T, int16_t);
    BASIC(MPI_INT32_T, int32_t);
    BASIC(MPI_INT64_T, int64_t);
    BASIC(MPI_UINT8_T, uint8_t);
    BASIC(MPI_UINT16_T, uint16_t);
    BASIC(MPI_UINT32_T, uint32_t);
    BASIC(MPI_UINT64_T, uint64_t);
    BASIC(MPI_C_FLOAT_COMPLEX, float _Complex);
    BASIC(MPI_C_COMPLEX, float _Complex);
    BASIC(MPI_C_DOUBLE_COMPLEX, double _Complex);
    BASIC(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex);
    BASIC(MPI_AINT, MPI_Aint);
    BASIC(MPI_OFFSET, MPI_Offset);
    BASIC(MPI_COUNT, MPI_Count);
    BASIC(MPI_PACKED, char);
    tu_bounds("MPI_2INT", MPI_2INT, 8, 0, 8, 0, 8);
    PAIR(MPI_FLOAT_INT, float_int, float);
    PAIR(MPI_DOUBLE_INT, double_int, double);
    PAIR(MPI_LONG_INT, long_int, long);
    PAIR(MPI_SHORT_INT, short_int, short);
    PAIR(MPI_LONG_DOUBLE_INT, long_double_int, long double);
}

/* a struct type of n blocks of one element each */
static MPI_Datatype mkstruct(int n, const MPI_Aint *disp, const MPI_Datatype *types)
{
    int          bl[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
    MPI_Datatype t;

    MPI_Type_create_struct(n, bl, disp, types, &t);
    return t;
}

int main(int argc, char **argv)
{
    MPI_Datatype t, v, s_cdi, s_dc, r, r9, tmp;
    MPI_Aint     ext = -1;

    tu_init(&argc, &argv);
    predefined();

    MPI_Type_contiguous(3, MPI_INT, &t);
    tu_bounds("contiguous(3, int)", t, 12, 0, 12, 0, 12);
    MPI_Type_free(&t);
    MPI_Type_vector(3, 2, 4, MPI_INT, &t);   /* ints at 0 4, 16 20, 32 36 */
    tu_bounds("vector(3, 2, 4, int)", t, 24, 0, 40, 0, 40);
    MPI_Type_free(&t);
    MPI_Type_vector(3, 1, -2, MPI_INT, &t);   /* ints at 0, -8, -16 */
    tu_bounds("vector(3, 1, -2, int)", t, 12, -16, 20, -16, 20);
    MPI_Type_free(&t);
    MPI_Type_create_hvector(2, 3, 20, MPI_SHORT, &t);   /* 0 2 4, 20 22 24 */
    tu_bounds("hvector(2, 3, 20 B, short)", t, 12, 0, 26, 0, 26);
    MPI_Type_free(&t);
    MPI_Type_create_hvector(2, 1, 5, MPI_INT, &t);   /* ints at 0, 5: 9 rounds up to 12 */
    tu_bounds("hvector(2, 1, 5 B, int)", t, 8, 0, 12, 0, 9);
    MPI_Type_free(&t);
    MPI_Type_create_hvector(3, 1, 0, MPI_INT, &t);   /* the same int three times */
    tu_bounds("hvector(3, 1, 0 B, int)", t, 12, 0, 4, 0, 4);
    MPI_Type_free(&t);
    {
        int bl[3] = { 2, 1, 3 }, d[3] = { 4, 0, 10 };   /* doubles at 32 40, 0, 80 88 96 */

        MPI_Type_indexed(3, bl, d, MPI_DOUBLE, &t);
        tu_bounds("indexed({2,1,3}, {4,0,10}, double)", t, 48, 0, 104, 0, 104);
        MPI_Type_free(&t);
    }
    {
        int      bl[2] = { 1, 2 };
        MPI_Aint d[2] = { 12, -4 };   /* ints at 12, -4 0 */

        MPI_Type_create_hindexed(2, bl, d, MPI_INT, &t);
        tu_bounds("hindexed({1,2}, {12,-4} B, int)", t, 12, -4, 20, -4, 20);
        MPI_Type_free(&t);
    }
    {
        int d[3] = { 5, 0, 2 };   /* floats at 20 24, 0 4, 8 12 */

        MPI_Type_create_indexed_block(3, 2, d, MPI_FLOAT, &t);
        tu_bounds("indexed_block(2, {5,0,2}, float)", t, 24, 0, 28, 0, 28);
        MPI_Type_free(&t);
    }

    /* struct padding: the extent rounds up to the largest alignment */
    {
        MPI_Aint     d[3] = { 0, 8, 16 };
        MPI_Datatype ty[3] = { MPI_CHAR, MPI_DOUBLE, MPI_INT };
        struct cdi { char c; double d; int i; };

        s_cdi = mkstruct(3, d, ty);
        tu_bounds("struct{char@0 double@8 int@16}", s_cdi, 13, 0, 24, 0, 20);
        TU_CHECK(sizeof(struct cdi) == 24, "the C struct has extent 24");
    }
    {
        MPI_Aint     d[2] = { 0, 8 };
        MPI_Datatype ty[2] = { MPI_DOUBLE, MPI_CHAR };

        s_dc = mkstruct(2, d, ty);
        tu_bounds("struct{double@0 char@8}", s_dc, 9, 0, 16, 0, 9);
    }
    {
        MPI_Aint     d[2] = { 0, 1 };
        MPI_Datatype ty[2] = { MPI_CHAR, MPI_CHAR };

        t = mkstruct(2, d, ty);
        tu_bounds("struct{char@0 char@1}", t, 2, 0, 2, 0, 2);
        MPI_Type_free(&t);
    }
    {
        MPI_Aint     d[2] = { 8, 0 };   /* typemap order differs from address order */
        MPI_Datatype ty[2] = { MPI_DOUBLE, MPI_SHORT };

        t = mkstruct(2, d, ty);
        tu_bounds("struct{double@8 short@0}", t, 10, 0, 16, 0, 16);
        MPI_Type_free(&t);
    }
    {
        MPI_Aint     d[2] = { -8, 4 };
        MPI_Datatype ty[2] = { MPI_DOUBLE, MPI_INT };

        t = mkstruct(2, d, ty);
        tu_bounds("struct{double@-8 int@4}", t, 12, -8, 16, -8, 16);
        MPI_Type_free(&t);
    }
    {
        MPI_Aint     d[2] = { 0, 16 };
        MPI_Datatype ty[2] = { MPI_CHAR, MPI_LONG_DOUBLE };

        t = mkstruct(2, d, ty);
        tu_bounds("struct{char@0 long double@16}", t, 1 + (int)sizeof(long double), 0, 32, 0,
                  32);
        MPI_Type_free(&t);
    }
    {
        MPI_Aint     d[2] = { 0, 8 };   /* short@0 int@4 char@8: 9 rounds up to 12 */
        MPI_Datatype ty[2] = { MPI_SHORT_INT, MPI_CHAR };

        t = mkstruct(2, d, ty);
        tu_bounds("struct{short_int@0 char@8}", t, 7, 0, 12, 0, 9);
        MPI_Type_free(&t);
    }
    {
        int          bl[2] = { 0, 0 };
        MPI_Aint     d[2] = { 8, 16 };
        MPI_Datatype ty[2] = { MPI_DOUBLE, MPI_INT };

        MPI_Type_create_struct(2, bl, d, ty, &t);
        tu_bounds("struct of empty blocks", t, 0, 0, 0, 0, 0);
        MPI_Type_free(&t);
    }

    /* resized types: their markers decide the bounds of what holds them */
    MPI_Type_create_resized(MPI_INT, -4, 16, &r);
    tu_bounds("resized(int, -4, 16)", r, 4, -4, 16, 0, 4);
    MPI_Type_contiguous(2, r, &t);   /* markers -4 12, 12 28; ints at 0, 16 */
    tu_bounds("contiguous(2, resized)", t, 8, -4, 32, 0, 20);
    MPI_Type_free(&t);
    MPI_Type_vector(2, 1, 2, r, &t);   /* copies at 0 and 32 */
    tu_bounds("vector(2, 1, 2, resized)", t, 8, -4, 48, 0, 36);
    MPI_Type_free(&t);
    {
        MPI_Aint     d[2] = { 0, 8 };   /* markers of r at 4 and 20 only count */
        MPI_Datatype ty[2] = { MPI_INT, r };

        t = mkstruct(2, d, ty);
        tu_bounds("struct{int@0 resized@8}", t, 8, 4, 16, 0, 12);
        MPI_Type_free(&t);
        ty[0] = MPI_DOUBLE;
        d[1] = 40;
        t = mkstruct(2, d, ty);
        tu_bounds("struct{double@0 resized@40}", t, 12, 36, 16, 0, 44);
        MPI_Type_free(&t);
    }
    MPI_Type_create_resized(s_dc, 0, 9, &r9);   /* no padding: the markers are not rounded */
    tu_bounds("resized(struct{double char}, 0, 9)", r9, 9, 0, 9, 0, 9);
    MPI_Type_contiguous(2, r9, &t);
    tu_bounds("contiguous(2, resized to 9)", t, 18, 0, 18, 0, 18);
    MPI_Type_free(&t);
    MPI_Type_create_resized(MPI_DOUBLE, 0, 4, &tmp);   /* smaller than its data */
    tu_bounds("resized(double, 0, 4)", tmp, 8, 0, 4, 0, 8);
    MPI_Type_contiguous(3, tmp, &t);   /* doubles at 0, 4, 8 */
    tu_bounds("contiguous(3, resized(double, 0, 4))", t, 24, 0, 12, 0, 16);
    MPI_Type_free(&t);
    MPI_Type_free(&tmp);
    MPI_Type_create_resized(MPI_INT, 8, 4, &tmp);   /* lb above the data */
    tu_bounds("resized(int, 8, 4)", tmp, 4, 8, 4, 0, 4);
    MPI_Type_free(&tmp);

    /* nested */
    MPI_Type_vector(2, 1, 2, s_dc, &t);   /* struct copies at 0 and 32: data ends at 41 */
    tu_bounds("vector(2, 1, 2, struct{double char})", t, 18, 0, 48, 0, 41);
    MPI_Type_free(&t);
    MPI_Type_contiguous(3, s_cdi, &t);
    tu_bounds("contiguous(3, struct{char double int})", t, 39, 0, 72, 0, 68);
    MPI_Type_free(&t);
    MPI_Type_vector(2, 1, 3, MPI_INT, &v);   /* ints at 0, 12; extent 16 */
    tu_bounds("vector(2, 1, 3, int)", v, 8, 0, 16, 0, 16);
    {
        int bl[2] = { 1, 2 }, d[2] = { 3, 0 };   /* v at 48; v at 0, 16: ints 48 60 0 12 16 28 */

        MPI_Type_indexed(2, bl, d, v, &t);
        tu_bounds("indexed({1,2}, {3,0}, vector)", t, 24, 0, 64, 0, 64);
        MPI_Type_free(&t);
    }
    {
        MPI_Aint     d[2] = { 0, 64 };
        int          bl[2] = { 2, 1 };
        MPI_Datatype ty[2] = { v, s_cdi };   /* v v at 0 16 (ints to 32), struct at 64 */

        MPI_Type_create_struct(2, bl, d, ty, &t);
        tu_bounds("struct{2 vector@0 struct@64}", t, 29, 0, 88, 0, 84);
        MPI_Type_free(&t);
    }
    MPI_Type_dup(s_cdi, &t);
    tu_bounds("dup(struct{char double int})", t, 13, 0, 24, 0, 20);
    MPI_Type_free(&t);
    MPI_Type_dup(r, &t);   /* the markers come along */
    tu_bounds("dup(resized(int, -4, 16))", t, 4, -4, 16, 0, 4);
    MPI_Type_free(&t);

    /* zero counts */
    MPI_Type_contiguous(0, MPI_INT, &t);
    tu_bounds("contiguous(0, int)", t, 0, 0, 0, 0, 0);
    MPI_Type_free(&t);
    MPI_Type_vector(0, 2, 3, MPI_INT, &t);
    tu_bounds("vector(0, 2, 3, int)", t, 0, 0, 0, 0, 0);
    MPI_Type_free(&t);
    MPI_Type_vector(3, 0, 3, MPI_INT, &t);
    tu_bounds("vector(3, 0, 3, int)", t, 0, 0, 0, 0, 0);
    MPI_Type_free(&t);
    MPI_Type_indexed(0, NULL, NULL, MPI_INT, &t);
    tu_bounds("indexed(0)", t, 0, 0, 0, 0, 0);
    MPI_Type_free(&t);
    MPI_Type_create_struct(0, NULL, NULL, NULL, &t);
    tu_bounds("struct(0)", t, 0, 0, 0, 0, 0);
    MPI_Type_free(&t);
    MPI_Type_contiguous(0, MPI_INT, &tmp);
    MPI_Type_create_resized(tmp, 0, 8, &t);   /* no data, an extent */
    tu_bounds("resized(contiguous(0), 0, 8)", t, 0, 0, 8, 0, 0);
    MPI_Type_free(&t);
    MPI_Type_free(&tmp);

#ifdef KUMI_MPI
    MPI_Type_extent(s_cdi, &ext);   /* the MPI-1 name (Open MPI's mpi.h removed it) */
#else
    {
        MPI_Aint lb;

        MPI_Type_get_extent(s_cdi, &lb, &ext);
    }
#endif
    printf("MPI_Type_extent(struct{char double int}) %ld\n", (long)ext);
    TU_CHECK(ext == 24, "MPI_Type_extent gave %ld", (long)ext);

    MPI_Type_free(&v);
    MPI_Type_free(&r9);
    MPI_Type_free(&r);
    MPI_Type_free(&s_dc);
    MPI_Type_free(&s_cdi);
    return tu_finish("type_extent");
}
