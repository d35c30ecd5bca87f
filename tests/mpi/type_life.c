/*
 * type_life.c -- datatype lifetimes (MPI-3.1 4.1.9, 4.1.10): a type freed
 * while types built on it live on keeps working through them (before and
 * after they are committed, with new types created in between), a dup
 * keeps the committed state of its original, commit twice is fine, and
 * thousands of create/commit/free rounds leave the library working. Any
 * number of ranks; under the sanitizers this is the use-after-free test.
 */
#include "type_util.h"

int main(int argc, char **argv)
{
    MPI_Datatype t, v, a, b, c, w, d, e;
    int          pos, rc;
    char         buf[64];

    tu_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* vector of a freed type, committed afterwards */
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_vector(2, 1, 2, t, &v);   /* t at 0 and 16: ints 0 4 16 20 */
    MPI_Type_free(&t);
    TU_CHECK(t == MPI_DATATYPE_NULL, "freed handle not MPI_DATATYPE_NULL");
    MPI_Type_contiguous(5, MPI_DOUBLE, &w);   /* may take the freed handle's place */
    MPI_Type_commit(&v);
    {
        struct tu_ent ent[] = { { 0, 4 }, { 4, 4 }, { 16, 4 }, { 20, 4 } };

        tu_typemap("vector of a freed contiguous", v, 2, ent, 4);
    }
    tu_bounds("vector of a freed contiguous", v, 16, 0, 24, 0, 24);
    tu_bounds("a type made after the free", w, 40, 0, 40, 0, 40);
    MPI_Type_free(&w);

    /* a chain whose parts are all freed before the commit */
    MPI_Type_contiguous(3, MPI_SHORT, &a);   /* extent 6 */
    MPI_Type_vector(2, 1, 2, a, &b);         /* a at 0 and 12 */
    {
        int          bl[3] = { 1, 1, 1 };
        MPI_Aint     disp[3] = { 0, 32, 40 };
        MPI_Datatype ty[3] = { b, a, MPI_INT };

        MPI_Type_create_struct(3, bl, disp, ty, &c);
    }
    MPI_Type_free(&a);
    MPI_Type_free(&b);
    MPI_Type_commit(&c);
    {
        struct tu_ent ent[] = { { 0, 2 },  { 2, 2 },  { 4, 2 },  { 12, 2 }, { 14, 2 },
                                { 16, 2 }, { 32, 2 }, { 34, 2 }, { 36, 2 }, { 40, 4 } };

        tu_typemap("struct of freed vector and contiguous", c, 2, ent, 10);
    }
    MPI_Type_free(&c);

    /* parts committed first, the whole freed before its parts */
    MPI_Type_contiguous(2, MPI_DOUBLE, &a);
    MPI_Type_commit(&a);
    MPI_Type_create_hvector(3, 1, 24, a, &b);
    MPI_Type_commit(&b);
    MPI_Type_free(&b);
    {
        struct tu_ent ent[] = { { 0, 8 }, { 8, 8 } };

        tu_typemap("contiguous outliving its vector", a, 3, ent, 2);
    }
    MPI_Type_free(&a);

    /* dup: a committed original gives a committed copy */
    MPI_Type_dup(v, &d);
    pos = 0;
    rc = MPI_Pack(buf, 1, d, buf + 32, 32, &pos, MPI_COMM_WORLD);
    printf("MPI_Pack with a dup of a committed type: %s, %d bytes\n", tu_class(rc), pos);
    TU_CHECK(rc == MPI_SUCCESS && pos == 16, "dup of committed");
    MPI_Type_free(&v);   /* the dup stands alone */
    {
        struct tu_ent ent[] = { { 0, 4 }, { 4, 4 }, { 16, 4 }, { 20, 4 } };

        tu_typemap("dup of a freed vector", d, 3, ent, 4);
    }
    MPI_Type_free(&d);
    MPI_Type_vector(2, 1, 2, MPI_INT, &v);
    MPI_Type_dup(v, &d);
    pos = 0;
    rc = MPI_Pack(buf, 1, d, buf + 32, 32, &pos, MPI_COMM_WORLD);
    printf("MPI_Pack with a dup of an uncommitted type: %s\n", tu_class(rc));
    TU_CHECK(rc != MPI_SUCCESS, "dup of an uncommitted type packs");
    MPI_Type_commit(&d);
    MPI_Type_commit(&d);   /* twice is fine */
    pos = 0;
    rc = MPI_Pack(buf, 1, d, buf + 32, 32, &pos, MPI_COMM_WORLD);
    TU_CHECK(rc == MPI_SUCCESS && pos == 8, "committed dup");
    MPI_Type_free(&d);
    MPI_Type_free(&v);
    MPI_Type_dup(MPI_INT, &e);   /* a derived type, committed like MPI_INT */
    pos = 0;
    rc = MPI_Pack(buf, 2, e, buf + 32, 32, &pos, MPI_COMM_WORLD);
    TU_CHECK(rc == MPI_SUCCESS && pos == 8, "dup of MPI_INT: %s", tu_class(rc));
    rc = MPI_Type_free(&e);
    printf("MPI_Type_free of a dup of MPI_INT: %s\n", tu_class(rc));
    TU_CHECK(rc == MPI_SUCCESS, "freeing a dup of MPI_INT");

    /* many rounds */
    for (int i = 0; i < 5000; i++) {
        MPI_Type_vector(i % 7 + 1, 2, 3, MPI_INT, &a);
        MPI_Type_create_resized(a, 0, 4, &b);
        MPI_Type_contiguous(i % 3 + 1, b, &c);
        MPI_Type_free(&a);
        MPI_Type_commit(&c);
        if (i % 2)
            MPI_Type_commit(&b);
        MPI_Type_free(&b);
        MPI_Type_free(&c);
    }
    MPI_Type_vector(3, 1, 2, MPI_CHAR, &v);
    MPI_Type_commit(&v);
    {
        struct tu_ent ent[] = { { 0, 1 }, { 2, 1 }, { 4, 1 } };

        tu_typemap("vector after 5000 rounds", v, 4, ent, 3);
    }
    MPI_Type_free(&v);
    return tu_finish("type_life");
}
