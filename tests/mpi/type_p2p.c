/*
 * type_p2p.c -- derived datatypes in point-to-point messages between rank 0
 * and rank 1 (other ranks idle): what travels is the type signature, so a
 * vector sent arrives as contiguous elements and the other way round;
 * negative strides, an array of structs, pair types received through a
 * struct of the same signature, Sendrecv of matrix columns, a message of
 * 800 KB through a vector both ways, Get_count/Get_elements on the
 * statuses, and types freed while a send or a receive using them is
 * pending (MPI-3.1 4.1.9: the operation completes normally). Rank 0
 * prints.
 */
#include <stddef.h>

#include "type_util.h"

#define BIG 100000

static int rank;

static void say(const char *what)
{
    if (rank == 0)
        printf("%s\n", what);
}

/* 1: vector(4, 1, 3, double) sent, 4 doubles received; and back */
static void vector_contiguous(void)
{
    double       a[12], b[12];
    MPI_Datatype vec;
    MPI_Status   st;
    int          n = -1, e = -1, ok = 1;

    MPI_Type_vector(4, 1, 3, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    for (int i = 0; i < 12; i++) {
        a[i] = i + 0.5;
        b[i] = -1;
    }
    if (rank == 0) {
        MPI_Send(a, 1, vec, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(b, 1, vec, 1, 2, MPI_COMM_WORLD, &st);
        for (int i = 0; i < 12; i++)
            ok &= b[i] == (i % 3 == 0 ? 10.0 * i : -1);
        MPI_Get_count(&st, vec, &n);
        MPI_Get_elements(&st, vec, &e);
        TU_CHECK(ok && n == 1 && e == 4, "4 doubles into a vector: count %d elements %d", n, e);
    } else if (rank == 1) {
        MPI_Recv(b, 12, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &st);
        for (int i = 0; i < 4; i++)
            ok &= b[i] == 3 * i + 0.5;
        for (int i = 4; i < 12; i++)
            ok &= b[i] == -1;
        MPI_Get_count(&st, MPI_DOUBLE, &n);
        TU_CHECK(ok && n == 4, "a vector into doubles: count %d", n);
        for (int i = 0; i < 4; i++)
            b[i] = 30.0 * i;
        MPI_Send(b, 4, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
    }
    say("vector(4, 1, 3, double) sent, 4 doubles received; 4 doubles sent, one vector received");
    MPI_Type_free(&vec);
}

/* 2: contiguous ints into an indexed type */
static void contiguous_indexed(void)
{
    int          c[6], r[16], bl[3] = { 2, 1, 3 }, d[3] = { 4, 0, 10 }, ok = 1;
    int          want[16] = { 102, -1, -1, -1, 100, 101, -1, -1, -1, -1, 103, 104, 105, -1, -1, -1 };
    MPI_Datatype idx;
    MPI_Status   st;

    MPI_Type_indexed(3, bl, d, MPI_INT, &idx);
    MPI_Type_commit(&idx);
    if (rank == 1) {
        for (int i = 0; i < 6; i++)
            c[i] = 100 + i;
        MPI_Send(c, 6, MPI_INT, 0, 3, MPI_COMM_WORLD);
    } else if (rank == 0) {
        for (int i = 0; i < 16; i++)
            r[i] = -1;
        MPI_Recv(r, 1, idx, 1, 3, MPI_COMM_WORLD, &st);
        for (int i = 0; i < 16; i++)
            ok &= r[i] == want[i];
        TU_CHECK(ok, "6 ints into indexed({2,1,3}, {4,0,10}, int)");
    }
    say("6 ints sent, received into indexed({2,1,3}, {4,0,10}, int)");
    MPI_Type_free(&idx);
}

/* 3: a negative stride */
static void negative_stride(void)
{
    int          a[9], b[5], ok = 1;
    MPI_Datatype rev;

    MPI_Type_vector(5, 1, -2, MPI_INT, &rev);   /* a[8], a[6], ..., a[0] */
    MPI_Type_commit(&rev);
    if (rank == 0) {
        for (int i = 0; i < 9; i++)
            a[i] = i * i;
        MPI_Send(&a[8], 1, rev, 1, 4, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(b, 5, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < 5; i++)
            ok &= b[i] == (8 - 2 * i) * (8 - 2 * i);
        TU_CHECK(ok, "vector(5, 1, -2, int) into 5 ints");
    }
    say("vector(5, 1, -2, int) sent from the last element, 5 ints received in reverse order");
    MPI_Type_free(&rev);
}

/* 4: an array of structs */
struct particle {
    int    id;
    double x[3];
    char   tag;
};

static MPI_Datatype particle_type(void)
{
    int          bl[3] = { 1, 3, 1 };
    MPI_Aint     d[3] = { offsetof(struct particle, id), offsetof(struct particle, x),
                          offsetof(struct particle, tag) };
    MPI_Datatype ty[3] = { MPI_INT, MPI_DOUBLE, MPI_CHAR }, s, t;

    MPI_Type_create_struct(3, bl, d, ty, &s);
    MPI_Type_create_resized(s, 0, sizeof(struct particle), &t);
    MPI_Type_free(&s);
    MPI_Type_commit(&t);
    return t;
}

static void structs(void)
{
    struct particle p[5];
    MPI_Datatype    t = particle_type();
    MPI_Status      st;
    int             n = -1, ok = 1;

    memset(p, 0, sizeof p);
    if (rank == 0) {
        for (int i = 0; i < 5; i++) {
            p[i].id = i + 1;
            p[i].x[0] = i;
            p[i].x[1] = -i;
            p[i].x[2] = i / 4.0;
            p[i].tag = (char)('a' + i);
        }
        MPI_Send(p, 5, t, 1, 5, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(p, 5, t, 0, 5, MPI_COMM_WORLD, &st);
        for (int i = 0; i < 5; i++)
            ok &= p[i].id == i + 1 && p[i].x[0] == i && p[i].x[1] == -i && p[i].x[2] == i / 4.0
                  && p[i].tag == 'a' + i;
        MPI_Get_count(&st, t, &n);
        TU_CHECK(ok && n == 5, "5 particles: count %d", n);
    }
    say("5 structs {int, double[3], char} (resized to the C struct) sent and received");
    MPI_Type_free(&t);
}

/* 5: MPI_DOUBLE_INT received through a struct of the same signature */
static void pairs(void)
{
    struct {
        double v;
        int    i;
    } s[3];
    MPI_Datatype t, u;
    int          bl[2] = { 1, 1 }, ok = 1;
    MPI_Aint     d[2] = { 0, 8 };
    MPI_Datatype ty[2] = { MPI_DOUBLE, MPI_INT };

    MPI_Type_create_struct(2, bl, d, ty, &u);
    MPI_Type_create_resized(u, 0, sizeof s[0], &t);
    MPI_Type_commit(&t);
    memset(s, 0, sizeof s);
    if (rank == 1) {
        for (int i = 0; i < 3; i++) {
            s[i].v = 1.5 * i;
            s[i].i = -i;
        }
        MPI_Send(s, 3, MPI_DOUBLE_INT, 0, 6, MPI_COMM_WORLD);
    } else if (rank == 0) {
        MPI_Recv(s, 3, t, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < 3; i++)
            ok &= s[i].v == 1.5 * i && s[i].i == -i;
        TU_CHECK(ok, "3 MPI_DOUBLE_INT into a struct");
    }
    say("3 MPI_DOUBLE_INT sent, received as struct{double, int}");
    MPI_Type_free(&t);
    MPI_Type_free(&u);
}

/* 6: columns of 4x4 matrices swapped with MPI_Sendrecv */
static void columns(void)
{
    int          m[4][4], ok = 1, other = 1 - rank;
    MPI_Datatype col;
    MPI_Status   st;

    MPI_Type_vector(4, 1, 4, MPI_INT, &col);
    MPI_Type_commit(&col);
    if (rank <= 1) {
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                m[i][j] = rank * 100 + i * 4 + j;
        MPI_Sendrecv(&m[0][0], 1, col, other, 7, &m[0][3], 1, col, other, 7, MPI_COMM_WORLD,
                     &st);
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                ok &= m[i][j] == (j == 3 ? other * 100 + i * 4 : rank * 100 + i * 4 + j);
        TU_CHECK(ok, "columns swapped");
    }
    say("column 0 of a 4x4 matrix swapped into column 3 with MPI_Sendrecv");
    MPI_Type_free(&col);
}

/* 7: 800 KB through vectors, both ways */
static void big(void)
{
    double      *a = malloc(2 * BIG * sizeof *a), *b = malloc(2 * BIG * sizeof *b);
    MPI_Datatype vec;
    MPI_Status   st;
    int          ok = 1, n = -1;

    MPI_Type_vector(BIG, 1, 2, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    for (int i = 0; i < 2 * BIG; i++) {
        a[i] = i;
        b[i] = -1;
    }
    if (rank == 0) {
        MPI_Send(a, 1, vec, 1, 8, MPI_COMM_WORLD);
        MPI_Recv(b, 1, vec, 1, 9, MPI_COMM_WORLD, &st);
        for (int i = 0; i < 2 * BIG; i++)
            ok &= b[i] == (i % 2 ? -1 : 3.0 * i);
        MPI_Get_elements(&st, vec, &n);
        TU_CHECK(ok && n == BIG, "vector received: elements %d", n);
    } else if (rank == 1) {
        MPI_Recv(b, BIG, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD, &st);
        for (int i = 0; i < BIG; i++)
            ok &= b[i] == 2.0 * i;
        MPI_Get_count(&st, MPI_DOUBLE, &n);
        TU_CHECK(ok && n == BIG, "doubles received: count %d", n);
        for (int i = 0; i < BIG; i++)
            b[i] = 6.0 * i;
        MPI_Send(b, BIG, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD);
    }
    say("vector(100000, 1, 2, double) sent as 100000 doubles and received back into it");
    MPI_Type_free(&vec);
    free(a);
    free(b);
}

/* 8: a message that ends inside an element of the receive type */
struct iid {
    int    a, b;
    double gap, d;   /* the type skips gap */
};

static void partial(void)
{
    struct {
        int    a, b;
        double d;
        int    c;
    } out = { 1, 2, 2.5, 3 };
    struct iid   in[2] = { { -1, -1, -1, -1 }, { -1, -1, -1, -1 } };
    int          c = -1, e = -1, bl[4] = { 1, 1, 1, 1 };
    MPI_Aint     d[4] = { 0, 4, 8, 16 }, di[3] = { 0, 4, offsetof(struct iid, d) };
    MPI_Datatype ty[4] = { MPI_INT, MPI_INT, MPI_DOUBLE, MPI_INT }, iidi, iid;
    MPI_Status   st;

    MPI_Type_create_struct(4, bl, d, ty, &iidi);   /* int int double int */
    MPI_Type_create_struct(3, bl, di, ty, &iid);   /* int int (gap) double */
    MPI_Type_commit(&iidi);
    MPI_Type_commit(&iid);
    if (rank == 0) {
        MPI_Send(&out, 1, iidi, 1, 10, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(in, 2, iid, 0, 10, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, iid, &c);
        MPI_Get_elements(&st, iid, &e);
        TU_CHECK(c == MPI_UNDEFINED && e == 4, "int int double int into 2 struct{int int double}:"
                 " count %d elements %d", c, e);
        TU_CHECK(in[0].a == 1 && in[0].b == 2 && in[0].gap == -1 && in[0].d == 2.5
                     && in[1].a == 3 && in[1].b == -1 && in[1].gap == -1 && in[1].d == -1,
                 "the partial element's int did not arrive alone");
    }
    say("struct{int, int, double, int} received as 2 struct{int, int, (gap), double}: count "
        "MPI_UNDEFINED, elements 4, the last int in place");
    MPI_Type_free(&iid);
    MPI_Type_free(&iidi);
}

/* 9: types freed while a send and a receive using them are pending */
static void freed_pending(void)
{
    int          a[10], b[10], go = 0, ok = 1;
    MPI_Datatype t;
    MPI_Request  req;

    for (int i = 0; i < 10; i++) {
        a[i] = 7 * i;
        b[i] = -1;
    }
    MPI_Type_vector(5, 1, 2, MPI_INT, &t);
    MPI_Type_commit(&t);
    if (rank == 1) {
        MPI_Irecv(b, 1, t, 0, 11, MPI_COMM_WORLD, &req);
        MPI_Type_free(&t);
        MPI_Send(&go, 1, MPI_INT, 0, 12, MPI_COMM_WORLD);   /* now rank 0 may send */
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        for (int i = 0; i < 10; i++)
            ok &= b[i] == (i % 2 ? -1 : 7 * i);
        TU_CHECK(ok, "receive into a freed vector");
    } else if (rank == 0) {
        MPI_Recv(&go, 1, MPI_INT, 1, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Isend(a, 1, t, 1, 11, MPI_COMM_WORLD, &req);
        MPI_Type_free(&t);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Type_free(&t);
    }
    say("a vector freed while an Isend and an Irecv with it were pending");
}

int main(int argc, char **argv)
{
    int size, theirs[2] = { 0, 0 };

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        printf("type_p2p needs 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    vector_contiguous();
    contiguous_indexed();
    negative_stride();
    structs();
    pairs();
    columns();
    big();
    partial();
    freed_pending();
    if (rank == 1) {
        int mine[2] = { tu_checks, tu_failures };

        MPI_Send(mine, 2, MPI_INT, 0, 99, MPI_COMM_WORLD);
    } else if (rank == 0) {
        MPI_Recv(theirs, 2, MPI_INT, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        tu_checks += theirs[0];
        tu_failures += theirs[1];
    }
    if (rank != 0) {
        MPI_Finalize();
        return tu_failures != 0;
    }
    return tu_finish("type_p2p");
}
