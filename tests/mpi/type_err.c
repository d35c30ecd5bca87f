/*
 * type_err.c -- the datatype calls' errors under MPI_ERRORS_RETURN: negative
 * counts (MPI_ERR_COUNT) and block lengths (MPI_ERR_ARG), MPI_DATATYPE_NULL
 * where a type is needed, freeing a predefined type, an uncommitted type
 * in MPI_Pack/MPI_Unpack and in communication (MPI_Send, MPI_Recv,
 * MPI_Bcast: MPI_ERR_TYPE), a Pack or Unpack that overflows its buffer
 * (MPI_ERR_TRUNCATE, position unchanged). Any number of ranks; rank 0
 * reports.
 */
#include "type_util.h"

static void expect(const char *what, int rc, int want)
{
    printf("%-48s %s\n", what, tu_class(rc));
    TU_CHECK(rc != MPI_SUCCESS ? (MPI_Error_class(rc, &rc), rc == want) : want == MPI_SUCCESS,
             "%s: expected %s", what, tu_class(want));
}

int main(int argc, char **argv)
{
    MPI_Datatype t = MPI_DATATYPE_NULL, u, p = MPI_INT, null = MPI_DATATYPE_NULL;
    MPI_Datatype tys[2] = { MPI_INT, MPI_DATATYPE_NULL };
    int          bl[2] = { 1, -1 }, bl1[2] = { 1, 1 }, d[2] = { 0, 2 }, n, pos, rc;
    MPI_Aint     ad[2] = { 0, 8 }, lb, ext;
    int          buf[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    char         packed[64];
    MPI_Status   st;

    tu_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    expect("MPI_Type_contiguous count -1", MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
    expect("MPI_Type_vector count -1", MPI_Type_vector(-1, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    expect("MPI_Type_vector blocklength -1", MPI_Type_vector(1, -1, 1, MPI_INT, &t),
           MPI_ERR_ARG);
    expect("MPI_Type_create_hvector count -1", MPI_Type_create_hvector(-1, 1, 8, MPI_INT, &t),
           MPI_ERR_COUNT);
    expect("MPI_Type_create_hvector blocklength -1",
           MPI_Type_create_hvector(2, -1, 8, MPI_INT, &t), MPI_ERR_ARG);
    expect("MPI_Type_indexed count -1", MPI_Type_indexed(-1, bl1, d, MPI_INT, &t),
           MPI_ERR_COUNT);
    expect("MPI_Type_indexed blocklength -1", MPI_Type_indexed(2, bl, d, MPI_INT, &t),
           MPI_ERR_ARG);
    expect("MPI_Type_create_hindexed count -1", MPI_Type_create_hindexed(-1, bl1, ad, MPI_INT, &t),
           MPI_ERR_COUNT);
    expect("MPI_Type_create_hindexed blocklength -1",
           MPI_Type_create_hindexed(2, bl, ad, MPI_INT, &t), MPI_ERR_ARG);
    expect("MPI_Type_create_indexed_block count -1",
           MPI_Type_create_indexed_block(-1, 1, d, MPI_INT, &t), MPI_ERR_COUNT);
    expect("MPI_Type_create_indexed_block blocklength -1",
           MPI_Type_create_indexed_block(2, -1, d, MPI_INT, &t), MPI_ERR_ARG);
    tys[1] = MPI_INT;
    expect("MPI_Type_create_struct count -1", MPI_Type_create_struct(-1, bl1, ad, tys, &t),
           MPI_ERR_COUNT);
    expect("MPI_Type_create_struct blocklength -1", MPI_Type_create_struct(2, bl, ad, tys, &t),
           MPI_ERR_ARG);
    tys[1] = MPI_DATATYPE_NULL;
    expect("MPI_Type_create_struct type MPI_DATATYPE_NULL",
           MPI_Type_create_struct(2, bl1, ad, tys, &t), MPI_ERR_TYPE);
    expect("MPI_Type_contiguous of MPI_DATATYPE_NULL",
           MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    expect("MPI_Type_vector of MPI_DATATYPE_NULL",
           MPI_Type_vector(2, 1, 2, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    expect("MPI_Type_create_resized of MPI_DATATYPE_NULL",
           MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 8, &t), MPI_ERR_TYPE);
    expect("MPI_Type_dup of MPI_DATATYPE_NULL", MPI_Type_dup(MPI_DATATYPE_NULL, &t),
           MPI_ERR_TYPE);
    expect("MPI_Type_size of MPI_DATATYPE_NULL", MPI_Type_size(MPI_DATATYPE_NULL, &n),
           MPI_ERR_TYPE);
    expect("MPI_Type_get_extent of MPI_DATATYPE_NULL",
           MPI_Type_get_extent(MPI_DATATYPE_NULL, &lb, &ext), MPI_ERR_TYPE);
    expect("MPI_Type_commit of MPI_DATATYPE_NULL", MPI_Type_commit(&null), MPI_ERR_TYPE);
    expect("MPI_Type_free of MPI_DATATYPE_NULL", MPI_Type_free(&null), MPI_ERR_TYPE);

    rc = MPI_Type_free(&p);
    expect("MPI_Type_free of MPI_INT", rc, MPI_ERR_TYPE);
    TU_CHECK(p == MPI_INT, "the handle of MPI_INT was changed");
    expect("MPI_Type_commit of MPI_INT", MPI_Type_commit(&p), MPI_SUCCESS);

    /* uncommitted */
    MPI_Type_vector(2, 1, 2, MPI_INT, &u);
    pos = 0;
    expect("MPI_Pack of an uncommitted type",
           MPI_Pack(buf, 1, u, packed, (int)sizeof packed, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
    TU_CHECK(pos == 0, "position moved to %d", pos);
    expect("MPI_Unpack of an uncommitted type",
           MPI_Unpack(packed, (int)sizeof packed, &pos, buf, 1, u, MPI_COMM_WORLD), MPI_ERR_TYPE);
    expect("MPI_Send of an uncommitted type", MPI_Send(buf, 1, u, 0, 0, MPI_COMM_WORLD),
           MPI_ERR_TYPE);
    expect("MPI_Recv of an uncommitted type",
           MPI_Recv(buf, 1, u, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st), MPI_ERR_TYPE);
    expect("MPI_Bcast of an uncommitted type", MPI_Bcast(buf, 1, u, 0, MPI_COMM_WORLD),
           MPI_ERR_TYPE);
    MPI_Type_commit(&u);

    /* buffers too small */
    pos = 60;
    expect("MPI_Pack of 8 bytes at 60 of 64", MPI_Pack(buf, 1, u, packed, 64, &pos,
                                                        MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    TU_CHECK(pos == 60, "position moved to %d", pos);
    pos = 0;
    expect("MPI_Pack count -1", MPI_Pack(buf, -1, u, packed, 64, &pos, MPI_COMM_WORLD),
           MPI_ERR_COUNT);
    expect("MPI_Pack into 4 bytes", MPI_Pack(buf, 1, u, packed, 4, &pos, MPI_COMM_WORLD),
           MPI_ERR_TRUNCATE);
    expect("MPI_Pack of MPI_DATATYPE_NULL",
           MPI_Pack(buf, 1, MPI_DATATYPE_NULL, packed, 64, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
    pos = 0;
    expect("MPI_Unpack of 8 bytes from 4", MPI_Unpack(packed, 4, &pos, buf, 1, u,
                                                      MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    TU_CHECK(pos == 0, "position moved to %d", pos);
    expect("MPI_Unpack count -1", MPI_Unpack(packed, 64, &pos, buf, -1, u, MPI_COMM_WORLD),
           MPI_ERR_COUNT);

    /* the library still works */
    pos = 0;
    rc = MPI_Pack(buf, 2, u, packed, 64, &pos, MPI_COMM_WORLD);
    expect("MPI_Pack of 2 vectors after the errors", rc, MPI_SUCCESS);
    TU_CHECK(pos == 16 && memcmp(packed + 4, &buf[2], 4) == 0
                 && memcmp(packed + 12, &buf[5], 4) == 0,
             "packed wrong after errors");
    MPI_Type_free(&u);
    TU_CHECK(u == MPI_DATATYPE_NULL, "MPI_Type_free leaves the handle MPI_DATATYPE_NULL");
    return tu_finish("type_err");
}
