/*
 * win_lockall_sendfail.c -- MPI_Win_lock_all on a window of lock messages
 * (MPI_Win_create) whose origin fails part-way through sending its lock
 * requests: the request to rank 0 is out, the one to rank 1 cannot be
 * sent (this program's malloc fails the origin's second allocation of a
 * request message, or of an answer's buffer). The call must wait for the
 * answers to what it sent and give back every shared lock granted before
 * it returns the error, and before the window's error handler runs:
 *   return   MPI_ERRORS_RETURN, the message fails: MPI_ERR_NO_MEM; then
 *            rank 0 takes every rank's exclusive lock in turn, which waits
 *            forever (the time limit) for a shared lock left held;
 *   handler  a handler function, the answer's buffer fails; the handler
 *            itself takes every rank's exclusive lock in turn (it would
 *            wait forever behind its own shared lock at rank 0);
 *   cancel   the same, the message fails (the receive posted for its
 *            answer is taken back: the next MPI_Win_lock_all works).
 * The origin is the last rank (2 ranks or more). First a good
 * MPI_Win_lock_all counts the allocations of each size: one per rank in
 * rank order while the requests go out, then the answer the origin sends
 * to its own request as a target (fewer: the binding changed and the test
 * says it cannot inject).
 * kumi only (the binding's message layout); under a sanitizer, whose
 * malloc this one cannot stand in for, the test only says so.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "win_util.h"

/* bindings/mpi/win_int.h: struct kmpi_win_hdr (a request without data)
 * and an answer's status word */
#define MSG_BYTES 48
#define ANS_BYTES 4

#ifndef W_NO_INJECT
extern void *__libc_malloc(size_t n);

/* per thread: only the caller's allocations count, not the tcp
 * transport's progress thread's */
static _Thread_local size_t watch;        /* the size counted, 0: none */
static _Thread_local int    seen, fail_at; /* allocations of it; fail the fail_at-th (0: none) */

void *malloc(size_t n)
{
    if (watch != 0 && n == watch && ++seen == fail_at) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_malloc(n);
}

static int handled, handler_rc;

static void on_error(MPI_Win *win, int *code, ...)
{
    size_t w = watch;

    watch = 0;
    handled++;
    handler_rc = *code;
    w_lock_each(*win);
    watch = w;
}

/* the origin's allocations of size bytes in a good MPI_Win_lock_all */
static int count(MPI_Win win, size_t size)
{
    watch   = size;
    seen    = 0;
    fail_at = 0;
    MPI_OK(MPI_Win_lock_all(0, win));
    watch = 0;
    MPI_OK(MPI_Win_unlock_all(win));
    return seen;
}

/* the last rank's MPI_Win_lock_all fails at its second allocation of
 * size bytes; 1 when it could be injected */
static int fail_once(MPI_Win win, size_t size, int with_handler, const char *what)
{
    int last = t_size - 1, n = 0;

    if (t_rank == last) {
        n = count(win, size);
        if (n >= t_size) {
            handled = 0;
            watch   = size;
            seen    = 0;
            fail_at = 2;
            int rc  = MPI_Win_lock_all(0, win);
            watch   = 0;
            CHECK(seen >= 2, "%s: the second allocation of %zu bytes never came", what, size);
            CHECK(w_class(rc) == MPI_ERR_NO_MEM, "%s: MPI_Win_lock_all returned %d (%s), not "
                  "MPI_ERR_NO_MEM", what, rc, t_err_name(rc));
            if (with_handler)
                CHECK(handled == 1 && w_class(handler_rc) == MPI_ERR_NO_MEM,
                      "%s: the handler ran %d times (code %d)", what, handled, handler_rc);
            else
                CHECK(handled == 0, "%s: the handler ran", what);
        }
    }
    MPI_OK(MPI_Bcast(&n, 1, MPI_INT, last, MPI_COMM_WORLD));
    if (n < t_size) {
        if (t_rank == 0)
            printf("ok: %s skipped (%d allocations of %zu bytes in MPI_Win_lock_all at %d "
                   "ranks, not one per rank: the binding changed)\n", what, n, size, t_size);
        return 0;
    }
    if (t_rank == 0)
        w_lock_each(win);   /* no shared lock left anywhere */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (t_rank == last) {   /* nothing left in flight either */
        MPI_OK(MPI_Win_lock_all(0, win));
        MPI_OK(MPI_Win_unlock_all(win));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    return 1;
}
#endif

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
#ifdef W_NO_INJECT
    return w_skip("a sanitizer's malloc: no failure can be injected");
#else
    long             cbuf = 0;
    MPI_Win          win;
    MPI_Errhandler   eh;

    if (t_size < 2)
        return w_skip("one rank");
    MPI_OK(MPI_Win_create(&cbuf, sizeof cbuf, sizeof cbuf, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    if (fail_once(win, MSG_BYTES, 0, "return"))
        w_section("a request not sent: the error returned after the granted locks went back");
    MPI_OK(MPI_Win_create_errhandler(on_error, &eh));
    MPI_OK(MPI_Win_set_errhandler(win, eh));
    if (fail_once(win, ANS_BYTES, 1, "handler"))
        w_section("the handler runs after the granted locks went back");
    if (fail_once(win, MSG_BYTES, 1, "cancel"))
        w_section("the same when the request's message fails (its answer's receive taken back)");
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Errhandler_free(&eh));
    MPI_OK(MPI_Win_free(&win));
    MPI_Finalize();
    return 0;
#endif
}
