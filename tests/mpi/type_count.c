/*
 * type_count.c -- MPI_Get_count and MPI_Get_elements (MPI-3.1 3.2.5,
 * 4.1.11) on statuses of messages of chosen byte lengths (packed data sent
 * to self, received as the type asked about): whole elements, partial
 * elements that end on a basic entry (Get_count MPI_UNDEFINED,
 * Get_elements a number) or inside one (both MPI_UNDEFINED), pair types
 * inside derived types (two basic entries each), zero-size types, resized
 * types. Any number of ranks, each checking the same; rank 0 reports.
 */
#include "type_util.h"

/* a message of bytes bytes of packed data to self, received as up to 64
 * elements of t (MPI-3.1 3.3.1: MPI_PACKED matches any type); its status */
static MPI_Status self_message(int bytes, MPI_Datatype t)
{
    static char out[256], in[64 * 256];
    MPI_Status  st;
    int         rank;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Sendrecv(out, bytes, MPI_PACKED, rank, 5, in, 64, t, rank, 5, MPI_COMM_WORLD, &st);
    return st;
}

static void show(int v)
{
    if (v == MPI_UNDEFINED)
        printf(" UNDEFINED");
    else
        printf(" %d", v);
}

/* Get_count and Get_elements of t on messages of each length */
static void counts(const char *name, MPI_Datatype t, const int *bytes, const int *count,
                   const int *elements, int n)
{
    printf("%s:\n", name);
    for (int i = 0; i < n; i++) {
        MPI_Status st = self_message(bytes[i], t);
        int        c = -1, e = -1, rc1, rc2;

        rc1 = MPI_Get_count(&st, t, &c);
        rc2 = MPI_Get_elements(&st, t, &e);
        printf("  %3d bytes: count", bytes[i]);
        show(c);
        printf(", elements");
        show(e);
        printf("\n");
        TU_CHECK(rc1 == MPI_SUCCESS && rc2 == MPI_SUCCESS && c == count[i] && e == elements[i],
                 "%s, %d bytes: expected count %d elements %d", name, bytes[i], count[i],
                 elements[i]);
    }
}

#define U MPI_UNDEFINED
#define N(a) (int)(sizeof(a) / sizeof((a)[0]))

int main(int argc, char **argv)
{
    MPI_Datatype t, r, z;

    tu_init(&argc, &argv);
    {
        int b[] = { 0, 4, 12, 10, 1 }, c[] = { 0, 1, 3, U, U }, e[] = { 0, 1, 3, U, U };

        counts("MPI_INT", MPI_INT, b, c, e, N(b));
    }
    {
        int b[] = { 0, 8, 9 }, c[] = { 0, 8, 9 }, e[] = { 0, 8, 9 };

        counts("MPI_BYTE", MPI_BYTE, b, c, e, N(b));
    }
    {
        int          bl[3] = { 1, 1, 1 };
        MPI_Aint     d[3] = { 0, 4, 8 };
        MPI_Datatype ty[3] = { MPI_INT, MPI_SHORT, MPI_DOUBLE };   /* 4 + 2 + 8 = 14 bytes */
        int          b[] = { 0, 4, 6, 8, 14, 18, 20, 28, 1 };
        int          c[] = { 0, U, U, U, 1, U, U, 2, U };
        int          e[] = { 0, 1, 2, U, 3, 4, 5, 6, U };

        MPI_Type_create_struct(3, bl, d, ty, &t);
        MPI_Type_commit(&t);
        counts("struct{int short double}", t, b, c, e, N(b));
        MPI_Type_free(&t);
    }
    {
        int b[] = { 16, 24, 20, 22, 32 }, c[] = { 1, U, U, U, 2 }, e[] = { 4, 6, 5, U, 8 };

        MPI_Type_vector(2, 2, 3, MPI_INT, &t);
        MPI_Type_commit(&t);
        counts("vector(2, 2, 3, int)", t, b, c, e, N(b));
        MPI_Type_free(&t);
    }
    {
        /* a double and an int in each pair: two basic entries */
        int b[] = { 8, 12, 20, 24, 48 }, c[] = { U, U, U, U, 1 }, e[] = { 1, 2, 3, 4, 8 };

        MPI_Type_vector(2, 2, 3, MPI_DOUBLE_INT, &t);
        MPI_Type_commit(&t);
        counts("vector(2, 2, 3, MPI_DOUBLE_INT)", t, b, c, e, N(b));
        MPI_Type_free(&t);
    }
    {
        int b[] = { 0, 4, 12 }, c[] = { 0, 1, 3 }, e[] = { 0, 1, 3 };

        MPI_Type_create_resized(MPI_INT, 0, 64, &r);   /* the extent plays no part */
        MPI_Type_commit(&r);
        counts("resized(int, 0, 64)", r, b, c, e, N(b));
        MPI_Type_free(&r);
    }
    {
        int b[] = { 0 }, c[] = { 0 }, e[] = { 0 };

        MPI_Type_contiguous(0, MPI_INT, &z);
        MPI_Type_commit(&z);
        counts("contiguous(0, int)", z, b, c, e, N(b));
        MPI_Type_free(&z);
    }
    {
        int b[] = { 24, 36, 28 }, c[] = { 1, U, U }, e[] = { 6, 9, 7 };

        MPI_Type_contiguous(3, MPI_2INT, &t);
        MPI_Type_commit(&t);
        counts("contiguous(3, MPI_2INT)", t, b, c, e, N(b));
        MPI_Type_free(&t);
    }
    return tu_finish("type_count");
}
