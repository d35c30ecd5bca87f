/*
 * type_setelem.c -- MPI_Status_set_elements and _x (MPI-3.1 12.3): after
 * setting count basic elements of a type, MPI_Get_elements(_x) gives the
 * count back and MPI_Get_count a compatible value (count / elements per
 * type when that divides, else MPI_UNDEFINED). Every count from 0 to
 * three elements' worth on types of each constructor (pairs inside
 * vectors and structs, zero-length blocks, resized and dup'ed types),
 * then counts that end just before the last entry of very large types
 * (a 1 GiB contiguous, a vector of more than 8 GiB): setting those must
 * take no time proportional to the type's size in bytes.
 */
#include "type_util.h"

#include <limits.h>

/* set_elements(t, k), then get them back, for k in 0..3 elements' worth */
static void round_trips(const char *name, MPI_Datatype t)
{
    int        per = 0, n, c;
    MPI_Count  nx;
    MPI_Status st;

    MPI_Type_commit(&t);
    /* the basic elements in one t: the least count Get_count calls 1 */
    for (int k = 1; k <= 64 && per == 0; k++) {
        MPI_Status_set_elements(&st, t, k);
        MPI_Get_count(&st, t, &c);
        if (c == 1)
            per = k;
    }
    TU_CHECK(per > 0, "%s: no count of elements makes one element", name);
    for (int k = 0; k <= 3 * per; k++) {
        n = c = -1;
        nx = -1;
        TU_CHECK(MPI_Status_set_elements(&st, t, k) == MPI_SUCCESS, "%s: set %d", name, k);
        MPI_Get_elements(&st, t, &n);
        MPI_Get_elements_x(&st, t, &nx);
        MPI_Get_count(&st, t, &c);
        TU_CHECK(n == k && nx == k, "%s: set %d elements, got %d / %lld back", name, k, n,
                 (long long)nx);
        TU_CHECK(c == (per != 0 && k % per == 0 ? k / per : MPI_UNDEFINED),
                 "%s: set %d elements, Get_count %d", name, k, c);
        TU_CHECK(MPI_Status_set_elements_x(&st, t, k) == MPI_SUCCESS, "%s: set_x %d", name, k);
        MPI_Get_elements(&st, t, &n);
        TU_CHECK(n == k, "%s: set_x %d elements, got %d back", name, k, n);
    }
    printf("%s: %d basic elements per element, counts 0..%d set and read back\n", name, per,
           3 * per);
    MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    MPI_Datatype t, u, four;
    MPI_Status   st;
    MPI_Count    nx;
    int          n, c;
    double       t0;

    tu_init(&argc, &argv);
    MPI_Type_dup(MPI_INT, &t);
    round_trips("dup(int)", t);
    MPI_Type_contiguous(3, MPI_DOUBLE_INT, &t);
    round_trips("contiguous(3, MPI_DOUBLE_INT)", t);
    MPI_Type_vector(2, 2, 3, MPI_SHORT_INT, &t);
    round_trips("vector(2, 2, 3, MPI_SHORT_INT)", t);
    {
        int          bl[4] = { 1, 0, 2, 1 };
        MPI_Aint     d[4] = { 0, 8, 16, 40 };
        MPI_Datatype ty[4] = { MPI_CHAR, MPI_INT, MPI_FLOAT_INT, MPI_DOUBLE };

        MPI_Type_create_struct(4, bl, d, ty, &u);
        round_trips("struct{char, 0 int, 2 float_int, double}", u);
        MPI_Type_create_struct(4, bl, d, ty, &u);
        MPI_Type_create_resized(u, -8, 100, &t);
        MPI_Type_free(&u);
        round_trips("resized(struct, -8, 100)", t);
    }
    {
        int bl[3] = { 0, 2, 1 }, d[3] = { 5, 0, 9 };

        MPI_Type_vector(2, 1, 2, MPI_2INT, &u);
        MPI_Type_indexed(3, bl, d, u, &t);
        MPI_Type_free(&u);
        round_trips("indexed{0, 2, 1} of vector(2, 1, 2, MPI_2INT)", t);
    }

    /* 2^28 ints (1 GiB of data, no memory needed): all but the last one */
    MPI_Type_contiguous(1 << 28, MPI_INT, &t);
    MPI_Type_commit(&t);
    t0 = MPI_Wtime();
    MPI_Status_set_elements(&st, t, (1 << 28) - 1);
    MPI_Get_elements(&st, t, &n);
    MPI_Get_count(&st, t, &c);
    TU_CHECK(n == (1 << 28) - 1 && c == MPI_UNDEFINED, "contiguous(2^28, int): %d, count %d", n,
             c);
    TU_CHECK(MPI_Wtime() - t0 < 1.0, "contiguous(2^28, int): set_elements took %.1f s",
             MPI_Wtime() - t0);
    MPI_Type_free(&t);
    /* INT_MAX/2 blocks of 4 ints: 4 * (INT_MAX/2) - 1 elements, past an int */
    MPI_Type_contiguous(4, MPI_INT, &four);
    MPI_Type_vector(INT_MAX / 2, 1, 3, four, &t);
    MPI_Type_commit(&t);
    t0 = MPI_Wtime();
    MPI_Status_set_elements_x(&st, t, 4LL * (INT_MAX / 2) - 1);
    MPI_Get_elements_x(&st, t, &nx);
    MPI_Get_elements(&st, t, &n);
    TU_CHECK(nx == 4LL * (INT_MAX / 2) - 1 && n == MPI_UNDEFINED,
             "vector(INT_MAX/2, 1, 3, 4 ints): %lld, %d", (long long)nx, n);
    TU_CHECK(MPI_Wtime() - t0 < 1.0, "vector(INT_MAX/2, 1, 3, 4 ints): set_elements_x took %.1f s",
             MPI_Wtime() - t0);
    MPI_Type_free(&t);
    MPI_Type_free(&four);
    printf("large types: counts one short of the whole set and read back\n");
    return tu_finish("type_setelem");
}
