/*
 * win_err.c -- a window's errors come back as their MPI error classes
 * through the window's error handler (MPI_ERRORS_RETURN, then a handler
 * of the program's), never a hang; and the window's other objects:
 * names, info, group, attributes with their delete callbacks.
 */
#include "win_util.h"

#define CLS(call, cls)                                                                 \
    do {                                                                               \
        int rc_ = (call);                                                              \
        CHECK(w_class(rc_) == (cls), "%s gave class %d, expected %s (%d)", #call,      \
              w_class(rc_), #cls, cls);                                                \
    } while (0)

static int handler_calls, handler_win, handler_code;

static void my_handler(MPI_Win *win, int *code, ...)
{
    handler_calls++;
    handler_win  = *win;
    handler_code = *code;
}

static void my_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static int deleted;

static int del_fn(MPI_Win win, int key, void *val, void *extra)
{
    (void)win, (void)key, (void)extra;
    deleted += (int)(long)val;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Win win, bad = MPI_WIN_NULL;
    int    *mem, x = 1, buf[8];
    MPI_Op  myop;

    t_init(&argc, &argv);
    int right = (t_rank + 1) % t_size;

    /* creation errors go to the communicator's handler */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CLS(MPI_Win_create(buf, -1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &bad), MPI_ERR_SIZE);
    CLS(MPI_Win_create(buf, 8, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &bad), MPI_ERR_DISP);
    CLS(MPI_Win_allocate(-8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &bad), MPI_ERR_SIZE);
    CLS(MPI_Win_fence(0, 12345), MPI_ERR_WIN);
    CLS(MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_WIN_NULL), MPI_ERR_WIN);
    w_section("creation errors, invalid windows");

    MPI_OK(MPI_Win_allocate(8 * (int)sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                           &win));
    MPI_Errhandler e;
    MPI_OK(MPI_Win_get_errhandler(win, &e));
    CHECK(e == MPI_ERRORS_ARE_FATAL, "a window's default handler is MPI_ERRORS_ARE_FATAL");
    MPI_Errhandler_free(&e);
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CLS(MPI_Put(&x, 1, MPI_INT, right, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    CLS(MPI_Win_unlock(right, win), MPI_ERR_RMA_SYNC);
    CLS(MPI_Win_flush(right, win), MPI_ERR_RMA_SYNC);
    CLS(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
    CLS(MPI_Win_wait(win), MPI_ERR_RMA_SYNC);
    CLS(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);
    CLS(MPI_Win_lock(999, right, 0, win), MPI_ERR_LOCKTYPE);
    CLS(MPI_Win_lock(MPI_LOCK_SHARED, t_size, 0, win), MPI_ERR_RANK);
    CLS(MPI_Win_fence(12345678, win), MPI_ERR_ASSERT);
    CLS(MPI_Win_shared_query(win, 0, &(MPI_Aint){ 0 }, &x, &mem), MPI_ERR_RMA_FLAVOR);
    CLS(MPI_Win_attach(win, buf, sizeof buf), MPI_ERR_RMA_FLAVOR);
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    CLS(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win), MPI_ERR_RMA_SYNC);
    CLS(MPI_Put(&x, 1, MPI_INT, right, 8, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    CLS(MPI_Put(buf, 2, MPI_INT, right, 7, 2, MPI_INT, win), MPI_ERR_RMA_RANGE);
    CLS(MPI_Put(&x, 1, MPI_INT, right, -1, 1, MPI_INT, win), MPI_ERR_DISP);
    CLS(MPI_Put(&x, 1, MPI_INT, t_size + 3, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    CLS(MPI_Put(&x, -1, MPI_INT, right, 0, 1, MPI_INT, win), MPI_ERR_COUNT);
    CLS(MPI_Put(buf, 2, MPI_INT, right, 0, 1, MPI_INT, win), MPI_ERR_TYPE);
    MPI_Op_create(my_sum, 1, &myop);
    CLS(MPI_Accumulate(&x, 1, MPI_INT, right, 0, 1, MPI_INT, myop, win), MPI_ERR_OP);
    CLS(MPI_Accumulate(&x, 1, MPI_INT, right, 0, 1, MPI_FLOAT, MPI_SUM, win), MPI_ERR_TYPE);
    double d = 1;
    CLS(MPI_Accumulate(&d, 1, MPI_DOUBLE, right, 0, 1, MPI_DOUBLE, MPI_BAND, win), MPI_ERR_OP);
    MPI_Op_free(&myop);
    CLS(MPI_Win_free(&win), MPI_ERR_RMA_SYNC);   /* the lock is still held */
    MPI_OK(MPI_Put(&x, 1, MPI_INT, right, 7, 1, MPI_INT, win));   /* a good one still works */
    MPI_OK(MPI_Win_unlock(right, win));
    w_section("RMA_SYNC, RMA_RANGE, DISP, RANK, COUNT, TYPE, OP, LOCKTYPE, ASSERT, RMA_FLAVOR");

    /* a handler of the program's gets the window and the code */
    MPI_Errhandler mine;
    MPI_OK(MPI_Win_create_errhandler(my_handler, &mine));
    MPI_OK(MPI_Win_set_errhandler(win, mine));
    MPI_Errhandler_free(&mine);
    CLS(MPI_Win_unlock(right, win), MPI_ERR_RMA_SYNC);
    CHECK(handler_calls == 1 && handler_win == win && handler_code == MPI_ERR_RMA_SYNC,
          "handler: %d calls, win %d, code %d", handler_calls, handler_win, handler_code);
    MPI_OK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    CHECK(handler_calls == 2 && handler_code == MPI_ERR_OTHER, "call_errhandler");
    w_section("the program's window error handler");

    /* names, info, group, attributes */
    char name[MPI_MAX_OBJECT_NAME];
    int  len, flag, cmp;
    MPI_OK(MPI_Win_get_name(win, name, &len));
    CHECK(len == 0, "a new window's name is empty");
    MPI_OK(MPI_Win_set_name(win, "ring"));
    MPI_OK(MPI_Win_get_name(win, name, &len));
    CHECK(len == 4 && strcmp(name, "ring") == 0, "name '%s'", name);
    MPI_Info info, got;
    char     val[MPI_MAX_INFO_VAL];
    MPI_Info_create(&info);
    MPI_Info_set(info, "no_locks", "false");
    MPI_Info_set(info, "accumulate_ops", "same_op");
    MPI_Info_set(info, "no_such_window_hint", "true");
    MPI_OK(MPI_Win_set_info(win, info));
    MPI_Info_free(&info);
    MPI_OK(MPI_Win_get_info(win, &got));
    MPI_Info_get(got, "no_locks", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(flag && strcmp(val, "false") == 0, "info no_locks");
    MPI_Info_get(got, "accumulate_ops", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(flag && strcmp(val, "same_op") == 0, "info accumulate_ops");
    /* the hints used (MPI-3.1 11.2.7): a key kumi ignores is not among them,
     * a hint not set has its default */
    MPI_Info_get(got, "no_such_window_hint", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(!flag, "an unknown hint returned by MPI_Win_get_info");
    MPI_Info_get(got, "accumulate_ordering", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(flag && strcmp(val, "rar,raw,war,waw") == 0, "default accumulate_ordering");
    MPI_Info_free(&got);
    MPI_Group g1, g2;
    MPI_OK(MPI_Win_get_group(win, &g1));
    MPI_Comm_group(MPI_COMM_WORLD, &g2);
    MPI_Group_compare(g1, g2, &cmp);
    CHECK(cmp == MPI_IDENT, "the window's group is the communicator's");
    MPI_Group_free(&g1);
    MPI_Group_free(&g2);
    int key;
    void *v;
    MPI_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_fn, &key, NULL));
    MPI_OK(MPI_Win_get_attr(win, key, &v, &flag));
    CHECK(!flag, "no value yet");
    MPI_OK(MPI_Win_set_attr(win, key, (void *)10L));
    MPI_OK(MPI_Win_set_attr(win, key, (void *)20L));   /* the 10 is deleted */
    MPI_OK(MPI_Win_get_attr(win, key, &v, &flag));
    CHECK(flag && v == (void *)20L && deleted == 10, "attr %p, deleted %d", v, deleted);
    MPI_OK(MPI_Win_free_keyval(&key));
    CHECK(key == MPI_KEYVAL_INVALID, "free_keyval resets the key");
    w_section("names, info, group, attributes");
    MPI_OK(MPI_Win_free(&win));
    CHECK(deleted == 30, "the delete callback ran at MPI_Win_free (%d)", deleted);

    /* dynamic windows: attach errors; an access to memory not attached is
     * reported at the next synchronization */
    MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Win_attach(win, buf, sizeof buf));
    CLS(MPI_Win_attach(win, buf + 2, sizeof(int)), MPI_ERR_RMA_ATTACH);
    CLS(MPI_Win_detach(win, buf + 1), MPI_ERR_RMA_ATTACH);
    MPI_Aint mine_a, *addrs = malloc((size_t)t_size * sizeof *addrs);
    MPI_Get_address(buf, &mine_a);
    MPI_Allgather(&mine_a, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
    MPI_OK(MPI_Put(&x, 1, MPI_INT, right, addrs[right] + 64 * (MPI_Aint)sizeof(int), 1, MPI_INT,
                  win));
    CLS(MPI_Win_unlock(right, win), MPI_ERR_RMA_RANGE);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_detach(win, buf));
    MPI_OK(MPI_Win_free(&win));
    free(addrs);
    w_section("dynamic windows: RMA_ATTACH, an unattached target is RMA_RANGE");

    /* the new classes have strings */
    int classes[] = { MPI_ERR_BASE, MPI_ERR_DISP, MPI_ERR_SIZE, MPI_ERR_LOCKTYPE, MPI_ERR_ASSERT,
                      MPI_ERR_RMA_SYNC, MPI_ERR_RMA_RANGE, MPI_ERR_RMA_CONFLICT,
                      MPI_ERR_RMA_ATTACH, MPI_ERR_RMA_SHARED, MPI_ERR_RMA_FLAVOR, MPI_ERR_WIN };
    for (unsigned i = 0; i < sizeof classes / sizeof classes[0]; i++) {
        char s[MPI_MAX_ERROR_STRING];
        int  c = -1;
        MPI_OK(MPI_Error_class(classes[i], &c));
        CHECK(c == classes[i], "class of %d", classes[i]);
        MPI_OK(MPI_Error_string(classes[i], s, &len));
        CHECK(len > 0, "string of %d", classes[i]);
    }
    w_section("error classes and strings");
    MPI_Finalize();
    return 0;
}
