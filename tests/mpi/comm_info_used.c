/* comm_info_used.c -- MPI_Comm_get_info returns "the hints actually used"
 * (MPI-3.1 6.4.4): a key kumi does not know is kept but not returned
 * (before the fix every key set came back, which MPICH's comm/comm_info
 * counts as an error); the communicator assertions of MPI-4.0 7.4.4 come
 * back as set, also through MPI_Comm_dup_with_info. */
#include "core_test.h"

static void expect(MPI_Comm c, const char *key, const char *val)
{
    MPI_Info used;
    int      n, flag;
    char     v[MPI_MAX_INFO_VAL + 1];

    MPI_OK(MPI_Comm_get_info(c, &used));
    MPI_OK(MPI_Info_get_nkeys(used, &n));
    CHECK(n == (key != NULL), "%d keys returned", n);
    MPI_OK(MPI_Info_get(used, "invalid_test_key", MPI_MAX_INFO_VAL, v, &flag));
    CHECK(!flag, "an unknown key was returned (%s)", v);
    if (key != NULL) {
        MPI_OK(MPI_Info_get(used, key, MPI_MAX_INFO_VAL, v, &flag));
        CHECK(flag && strcmp(v, val) == 0, "%s: flag %d value %s", key, flag, flag ? v : "");
    }
    MPI_OK(MPI_Info_free(&used));
}

int main(int argc, char **argv)
{
    MPI_Comm c, d;
    MPI_Info in;

    t_init(&argc, &argv);
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    expect(c, NULL, NULL);
    MPI_OK(MPI_Info_create(&in));
    MPI_OK(MPI_Info_set(in, "invalid_test_key", "true"));
    MPI_OK(MPI_Comm_set_info(c, in));
    expect(c, NULL, NULL);
    MPI_OK(MPI_Info_set(in, "mpi_assert_no_any_tag", "true"));
    MPI_OK(MPI_Comm_set_info(c, in));
    expect(c, "mpi_assert_no_any_tag", "true");
    MPI_OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, in, &d));
    expect(d, "mpi_assert_no_any_tag", "true");
    MPI_OK(MPI_Info_free(&in));
    MPI_OK(MPI_Comm_free(&d));
    MPI_OK(MPI_Comm_free(&c));
    SAY("MPI_Comm_get_info: the hints used, not unknown keys\n");
    MPI_OK(MPI_Finalize());
    return 0;
}
