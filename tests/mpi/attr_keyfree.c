/* attr_keyfree.c -- freeing a communicator key more than once.
 *
 * A key freed while values still hold it stays until they are deleted; a
 * second MPI_Comm_free_keyval through a copy of the handle (here also from
 * the key's own delete callback) must neither fail nor take a value's
 * reference: before the fix the key went away under MPI_COMM_SELF's value,
 * a new key reused its number and saw that value, and the last free failed
 * with MPI_ERR_KEYVAL. */
#include <mpi.h>
#include <stdio.h>

static int ndel;

static int del_fn(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)comm, (void)val, (void)extra;
    ndel++;
    MPI_Comm_free_keyval(&key);   /* a copy of the handle */
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Comm dup;
    int      key, copy, other, flag, rc, errs = 0, rank;
    void    *v;
    static int val = 7;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_dup(MPI_COMM_SELF, &dup);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_fn, &key, NULL);
    copy = key;
    MPI_Comm_set_attr(MPI_COMM_SELF, key, &val);
    MPI_Comm_set_attr(dup, key, &val);
    MPI_Comm_free(&dup);                       /* del_fn frees once */
    if ((rc = MPI_Comm_free_keyval(&key)) != MPI_SUCCESS || key != MPI_KEYVAL_INVALID)
        errs++, printf("second free: rc %d key %d\n", rc, key);
    if ((rc = MPI_Comm_free_keyval(&copy)) != MPI_SUCCESS)
        errs++, printf("third free: rc %d\n", rc);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &other, NULL);
    MPI_Comm_get_attr(MPI_COMM_SELF, other, &v, &flag);
    if (flag)
        errs++, printf("a new key sees the freed key's value\n");
    MPI_Comm_free_keyval(&other);
    MPI_Finalize();                            /* deletes SELF's value */
    if (ndel != 2)
        errs++, printf("delete callback ran %d times, expected 2\n", ndel);
    if (rank == 0 || errs)
        printf("attr_keyfree: %s\n", errs ? "FAIL" : "ok");
    return errs != 0;
}
