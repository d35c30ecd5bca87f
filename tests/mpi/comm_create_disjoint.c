/* comm_create_disjoint.c -- MPI_Comm_create with different, disjoint groups
 * (MPI-3.1 6.4.2; MPI-2.2 on): the evens pass the evens' group, the odds
 * the odds' (in reverse order), the last rank MPI_GROUP_EMPTY when the size
 * is odd and above 1. Each gets a communicator of its own group, ranked as
 * the group. Before the fix every member of any group landed in one
 * communicator (MPICH's comm/commcreate1). Also from a dup of world. */
#include "core_test.h"

static void build(MPI_Comm comm, int reps)
{
    MPI_Group world, mine;
    int       n = 0, ranks[512];

    MPI_OK(MPI_Comm_group(comm, &world));
    for (int rep = 0; rep < reps; rep++) {
        int empty = t_size > 1 && t_size % 2 == 1 && t_rank == t_size - 1;
        n = 0;
        if (t_rank % 2 == 0) {
            for (int r = 0; r < t_size - (t_size > 1 && t_size % 2 == 1); r += 2)
                ranks[n++] = r;
        } else {
            for (int r = t_size - 1 - (t_size % 2 == 1); r >= 1; r -= 2)
                ranks[n++] = r;
        }
        if (empty) {
            mine = MPI_GROUP_EMPTY;
        } else {
            MPI_OK(MPI_Group_incl(world, n, ranks, &mine));
        }
        MPI_Comm c;
        MPI_OK(MPI_Comm_create(comm, mine, &c));
        if (empty) {
            CHECK(c == MPI_COMM_NULL, "not in any group, yet a communicator");
            continue;
        }
        int grank, rank, size, sum = 0;
        MPI_OK(MPI_Group_rank(mine, &grank));
        MPI_OK(MPI_Comm_rank(c, &rank));
        MPI_OK(MPI_Comm_size(c, &size));
        CHECK(size == n && rank == grank, "size %d (group %d), rank %d (group %d)", size, n, rank,
              grank);
        MPI_OK(MPI_Allreduce(&t_rank, &sum, 1, MPI_INT, MPI_SUM, c));
        int want = 0;
        for (int i = 0; i < n; i++)
            want += ranks[i];
        CHECK(sum == want, "sum of world ranks %d, expected %d", sum, want);
        MPI_OK(MPI_Comm_free(&c));
        MPI_OK(MPI_Group_free(&mine));
    }
    MPI_OK(MPI_Group_free(&world));
}

int main(int argc, char **argv)
{
    MPI_Comm dup;

    t_init(&argc, &argv);
    build(MPI_COMM_WORLD, 3);
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    build(dup, 2);
    MPI_OK(MPI_Comm_free(&dup));
    SAY("MPI_Comm_create: disjoint groups, one communicator each\n");
    MPI_OK(MPI_Finalize());
    return 0;
}
