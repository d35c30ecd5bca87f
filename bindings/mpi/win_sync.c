/*
 * win_sync.c -- synchronization (MPI-3.1 11.5): MPI_Win_fence, general
 * active target (post, start, complete, wait, test), passive target
 * (lock, unlock, lock_all, unlock_all, flush, flush_all, flush_local,
 * flush_local_all), MPI_Win_sync; and the target's side of their
 * messages (lock queue, post and complete counts).
 *
 * Every synchronization that must know the operations done at a target
 * sends it a message that the target answers after it has executed
 * everything the origin sent before (one tag, one order: win_int.h). A
 * fence is that to every target touched since the last one, then a
 * barrier: when a process leaves it, every operation aimed at it is done.
 * MPI_Win_start waits for the targets' posts (MPI-3.1 allows it to).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "win_int.h"

enum { LK_NONE = 0, LK_EXCL = 1, LK_SHARED = 2, LK_NOCHECK = 3 };

/* ------------------------------------------------------------ the target */

static int lock_free_for(struct kmpi_win *w, int type)
{
    if (type == LK_EXCL)
        return w->lock_excl < 0 && w->lock_shared == 0;
    return w->lock_excl < 0;
}

static void lock_take(struct kmpi_win *w, int type, int origin)
{
    if (type == LK_EXCL)
        w->lock_excl = origin;
    else
        w->lock_shared++;
}

/* grants the waiters at the queue's head while they fit (FIFO: a shared
 * request behind an exclusive one waits, so neither starves) */
static void lock_grant_waiters(struct kmpi_win *w)
{
    struct kmpi_win_waiter *q;

    while ((q = w->waiters) != NULL && lock_free_for(w, q->type)) {
        w->waiters = q->next;
        if (w->waiters == NULL)
            w->waiters_tail = NULL;
        lock_take(w, q->type, q->origin);
        kmpi_win_answer(q->pe, q->tag, MPI_SUCCESS);
        free(q);
    }
}

static int take_err(struct kmpi_win *w, int origin)
{
    int e = w->err_of[origin];

    w->err_of[origin] = MPI_SUCCESS;
    return e;
}

void kmpi_win_serve_sync(struct kmpi_win *w, const struct kmpi_win_hdr *h, int pe)
{
    switch (h->kind) {
    case KW_FLUSH:
        kmpi_win_answer(pe, h->tag, take_err(w, h->origin));
        break;
    case KW_LOCK:
        if (w->waiters == NULL && lock_free_for(w, h->aux)) {
            lock_take(w, h->aux, h->origin);
            kmpi_win_answer(pe, h->tag, MPI_SUCCESS);
        } else {
            struct kmpi_win_waiter *q = malloc(sizeof *q);
            if (q == NULL) {
                kmpi_win_answer(pe, h->tag, MPI_ERR_NO_MEM);
                break;
            }
            *q = (struct kmpi_win_waiter){ h->aux, h->origin, pe, h->tag, NULL };
            if (w->waiters_tail != NULL)
                w->waiters_tail->next = q;
            else
                w->waiters = q;
            w->waiters_tail = q;
        }
        break;
    case KW_UNLOCK:
        if (h->aux == LK_EXCL && w->lock_excl == h->origin)
            w->lock_excl = -1;
        else if (h->aux == LK_SHARED && w->lock_shared > 0)
            w->lock_shared--;
        kmpi_win_answer(pe, h->tag, take_err(w, h->origin));
        lock_grant_waiters(w);
        break;
    case KW_POST:
        w->posts[h->origin]++;
        break;
    case KW_COMPLETE:
        w->post_expect--;
        kmpi_win_answer(pe, h->tag, take_err(w, h->origin));
        break;
    }
}

/* ------------------------------------------------------------ the origin */

int kmpi_win_epoch_check(const char *call, struct kmpi_win *w, int target)
{
    if (w->fence_open || w->lock_all || w->locked[target])
        return MPI_SUCCESS;
    for (int i = 0; i < w->nstart; i++)
        if (w->start_group[i] == target)
            return MPI_SUCCESS;
    return kmpi_win_error(w, MPI_ERR_RMA_SYNC, call, "no access epoch covers rank %d (no fence, "
                          "MPI_Win_start, MPI_Win_lock or MPI_Win_lock_all)", target);
}

static int assert_check(const char *call, struct kmpi_win *w, int assert, int allowed)
{
    if ((assert & ~allowed) != 0)
        return kmpi_win_error(w, MPI_ERR_ASSERT, call, "assert %#x has bits this call does not "
                              "take (%#x)", (unsigned)assert, (unsigned)(assert & ~allowed));
    return MPI_SUCCESS;
}

/* the ranks touched since the last synchronization, cleared */
static int *touched_list(struct kmpi_win *w, int *n)
{
    int *t = malloc((size_t)w->size * sizeof(int));

    *n = 0;
    if (t == NULL)
        return NULL;
    for (int i = 0; i < w->size; i++)
        if (w->touched[i]) {
            t[(*n)++]     = i;
            w->touched[i] = 0;
        }
    return t;
}

static int flush_touched(const char *call, struct kmpi_win *w)
{
    int  n, *t = touched_list(w, &n), rc;

    if (t == NULL)
        return kmpi_win_error(w, MPI_ERR_NO_MEM, call, "no memory");
    rc = n > 0 ? kmpi_win_roundtrips(call, w, t, n, KW_FLUSH, 0, NULL) : MPI_SUCCESS;
    free(t);
    return rc;
}

#pragma weak MPI_Win_fence = PMPI_Win_fence
int PMPI_Win_fence(int assert, MPI_Win win)
{
    static const char call[] = "MPI_Win_fence";
    int               rc;
    struct kmpi_win  *w = kmpi_win_check(call, win, &rc);

    if (w == NULL)
        return rc;
    if ((rc = assert_check(call, w, assert, MPI_MODE_NOSTORE | MPI_MODE_NOPUT
                                            | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED))
        != MPI_SUCCESS)
        return rc;
    if (w->lock_all || w->start_group != NULL || w->post_active)
        return kmpi_win_error(w, MPI_ERR_RMA_SYNC, call, "a %s epoch is open",
                              w->lock_all ? "passive target" : "general active target");
    if ((rc = flush_touched(call, w)) != MPI_SUCCESS)
        return rc;
    if ((rc = kmpi_win_wait_local(call, w, -1)) != MPI_SUCCESS)
        return rc;
    if ((rc = PMPI_Barrier(w->comm)) != MPI_SUCCESS)
        return rc;
    w->fence_open = !(assert & MPI_MODE_NOSUCCEED);
    return MPI_SUCCESS;
}

/* the window ranks of group's members into a new array; error raised on w */
static int group_ranks(const char *call, struct kmpi_win *w, MPI_Group group, int **out, int *n)
{
    const int *pes;
    int        m = kmpi_group_pes(group, &pes);

    *out = NULL;
    if (m < 0)
        return kmpi_win_error(w, MPI_ERR_GROUP, call, "%d is no group", group);
    int *r = malloc((size_t)(m > 0 ? m : 1) * sizeof(int));
    if (r == NULL)
        return kmpi_win_error(w, MPI_ERR_NO_MEM, call, "no memory");
    for (int i = 0; i < m; i++) {
        int k;
        for (k = 0; k < w->size && w->pes[k] != pes[i]; k++)
            ;
        if (k == w->size) {
            free(r);
            return kmpi_win_error(w, MPI_ERR_GROUP, call, "world rank %d of the group is not in "
                                  "the window", pes[i]);
        }
        r[i] = k;
    }
    *out = r;
    *n   = m;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_post = PMPI_Win_post
int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    static const char call[] = "MPI_Win_post";
    int               rc, n, *r;
    struct kmpi_win  *w = kmpi_win_check(call, win, &rc);

    if (w == NULL)
        return rc;
    if ((rc = assert_check(call, w, assert, MPI_MODE_NOCHECK | MPI_MODE_NOSTORE
                                            | MPI_MODE_NOPUT)) != MPI_SUCCESS)
        return rc;
    if (w->post_active)
        return kmpi_win_error(w, MPI_ERR_RMA_SYNC, call, "an exposure epoch is open already "
                              "(MPI_Win_post without MPI_Win_wait)");
    if ((rc = group_ranks(call, w, group, &r, &n)) != MPI_SUCCESS)
        return rc;
    w->post_active = 1;
    w->post_expect += n;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        struct kmpi_win_hdr h = { 0 };
        h.kind = KW_POST;
        h.tag  = -1;
        rc     = kmpi_win_send(call, w, r[i], &h, NULL, 0, NULL, 0);
    }
    free(r);
    return rc;
}

struct posts_arg {
    struct kmpi_win *w;
};

static int posts_ready(void *arg)
{
    struct kmpi_win *w = ((struct posts_arg *)arg)->w;

    kmpi_win_progress();
    for (int i = 0; i < w->nstart; i++)
        if (w->posts[w->start_group[i]] == 0)
            return 0;
    return 1;
}

#pragma weak MPI_Win_start = PMPI_Win_start
int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    static const char call[] = "MPI_Win_start";
    int               rc, n, *r;
    struct kmpi_win  *w = kmpi_win_check(call, win, &rc);

    if (w == NULL)
        return rc;
    if ((rc = assert_check(call, w, assert, MPI_MODE_NOCHECK)) != MPI_SUCCESS)
        return rc;
    if (w->start_group != NULL || w->lock_all)
        return kmpi_win_error(w, MPI_ERR_RMA_SYNC, call, "an access epoch is open already");
    if ((rc = group_ranks(call, w, group, &r, &n)) != MPI_SUCCESS)
        return rc;
    w->start_group = r;
    w->nstart      = n;
    struct posts_arg a = { w };
    int krc = kmpi_wait_until(call, posts_ready, &a);
    if (krc != KUMI_OK)
        return kmpi_error_kumi(w->comm, krc, call, "waiting for the targets' MPI_Win_post");
    for (int i = 0; i < n; i++)
        w->posts[r[i]]--;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_complete = PMPI_Win_complete
int PMPI_Win_complete(MPI_Win win)
{
    static const char call[] = "MPI_Win_complete";
    int               rc;
    struct kmpi_win  *w = kmpi_win_check(call, win, &rc);

    if (w == NULL)
        return rc;
    if (w->start_group == NULL)
        return kmpi_win_error(w, MPI_ERR_RMA_SYNC, call, "no MPI_Win_start before");
    rc = kmpi_win_roundtrips(call, w, w->start_group, w->nstart, KW_COMPLETE, 0, NULL);
    for (int i = 0; i < w->nstart; i++)
        w->touched[w->start_group[i]] = 0;
    free(w->start_group);
    w->start_group = NULL;
    w->nstart      = 0;
    if (rc == MPI_SUCCESS)
        rc = kmpi_win_wait_local(call, w, -1);
    return rc;
}

static int completes_ready(void *arg)
{
    struct kmpi_win *w = arg;

    kmpi_win_progress();
    return w->post_expect <= 0;
}

#pragma weak MPI_Win_wait = PMPI_Win_wait
int PMPI_Win_wait(MPI_Win win)
{
    static const char call[] = "MPI_Win_wait";
    int               rc;
    struct kmpi_win  *w = kmpi_win_check(call, win, &rc);

    if (w == NULL)
        return rc;
    if (!w->post_active)
        return kmpi_win_error(w, MPI_ERR_RMA_SYNC, call, "no MPI_Win_post before");
    int krc = kmpi_wait_until(call, completes_ready, w);
    if (krc != KUMI_OK)
        return kmpi_error_kumi(w->comm, krc, call, "waiting for the origins' MPI_Win_complete");
    w->post_active = 0;
    return kmpi_win_wait_local(call, w, -1);   /* the POST messages' sends */
}

#pragma weak MPI_Win_test = PMPI_Win_test
int PMPI_Win_test(MPI_Win win, int *flag)
{
    static const char call[] = "MPI_Win_test";
    int               rc;
    struct kmpi_win  *w = kmpi_win_check_arg(call, win, flag != NULL, "flag", &rc);

    if (w == NULL)
        return rc;
    if (!w->post_active)
        return kmpi_win_error(w, MPI_ERR_RMA_SYNC, call, "no MPI_Win_post before");
    kmpi_poll(call);
    kmpi_win_progress();
    *flag = w->post_expect <= 0;
    if (*flag) {
        w->post_active = 0;
        return kmpi_win_wait_local(call, w, -1);
    }
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ passive target
 * A window in shared memory keeps each rank's lock in its lock word
 * (win_int.h): the origins take and release it with atomics, and the
 * target need not be in any MPI call. Other windows ask the target. */

struct shm_lock_arg {
    uint64_t *word;
    int       type;
};

static int shm_lock_try(void *arg)
{
    struct shm_lock_arg *a = arg;
    uint64_t             v = __atomic_load_n(a->word, __ATOMIC_RELAXED);

    if (a->type == LK_EXCL)
        return v == 0 && __atomic_compare_exchange_n(a->word, &v, KMPI_WIN_EXCL, 0,
                                                     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
    return !(v & KMPI_WIN_EXCL) && __atomic_compare_exchange_n(a->word, &v, v + 1, 0,
                                                               __ATOMIC_ACQUIRE,
                                                               __ATOMIC_RELAXED);
}

static int shm_lock(const char *call, struct kmpi_win *w, int rank, int type)
{
    struct shm_lock_arg a = { &w->locks[(size_t)rank * KMPI_WIN_SHM_HDR], type };

    if (shm_lock_try(&a))
        return MPI_SUCCESS;
    int krc = kmpi_wait_until(call, shm_lock_try, &a);
    return krc == KUMI_OK ? MPI_SUCCESS
                          : kmpi_error_kumi(w->comm, krc, call, "waiting for a window lock");
}

static void shm_unlock(struct kmpi_win *w, int rank, int type)
{
    uint64_t *word = &w->locks[(size_t)rank * KMPI_WIN_SHM_HDR];

    if (type == LK_EXCL)
        __atomic_store_n(word, 0, __ATOMIC_RELEASE);
    else
        __atomic_fetch_sub(word, 1, __ATOMIC_RELEASE);
}

/* MPI_Win_lock_all's shared locks, taken in rank order: ranks [0, next)
 * are held */
struct shm_lock_all_arg {
    struct kmpi_win *w;
    int              next;
};

static int shm_lock_all_try(void *arg)
{
    struct shm_lock_all_arg *a = arg;

    for (; a->next < a->w->size; a->next++) {
        struct shm_lock_arg l = { &a->w->locks[(size_t)a->next * KMPI_WIN_SHM_HDR], LK_SHARED };
        if (!shm_lock_try(&l))
            return 0;
    }
    return 1;
}

/* Every rank's shared lock in ascending rank order, each one tried as
 * soon as the one before it is held, in one wait (not one wait per
 * rank). The order matters: a program that takes exclusive locks in rank
 * order can never deadlock against lock_all, which holds only a prefix
 * of the ranks while it waits. Taken all, or none when the wait failed. */
static int shm_lock_all(const char *call, struct kmpi_win *w)
{
    struct shm_lock_all_arg a = { w, 0 };
    int                     krc = KUMI_OK;

    if (!shm_lock_all_try(&a) && (krc = kmpi_wait_until(call, shm_lock_all_try, &a)) != KUMI_OK)
        while (--a.next >= 0)
            shm_unlock(w, a.next, LK_SHARED);
    return krc == KUMI_OK ? MPI_SUCCESS
                          : kmpi_error_kumi(w->comm, krc, call, "waiting for a window lock");
}

static int rank_check(const char *call, struct kmpi_win *w, int rank)
{
    if (rank < 0 || rank >= w->size)
        return kmpi_win_error(w, MPI_ERR_RANK, call, "rank %d is not in 0..%d", rank,
                              w->size - 1);
    return MPI_SUCCESS;
}

static int passive_check(const char *call, struct kmpi_win *w, int rank)
{
    if (w->lock_all || (rank >= 0 && w->locked[rank]))
        return MPI_SUCCESS;
    if (rank < 0)
        for (int i = 0; i < w->size; i++)
            if (w->locked[i])
                return MPI_SUCCESS;
    return kmpi_win_error(w, MPI_ERR_RMA_SYNC, call, "no passive target epoch (MPI_Win_lock or "
                          "MPI_Win_lock_all) covers %s", rank < 0 ? "any rank" : "the rank");
}

enum { EP_ANY, EP_PASSIVE };
#define ALL_RANKS INT_MIN   /* a call on every rank: none to check (passive_check: any) */

/* The start of a call on rank of win (ALL_RANKS: the whole window): w
 * valid, rank in it, the epoch the call needs (EP_PASSIVE: a lock or
 * lock_all covering rank, or any rank). NULL with *rc; rank
 * MPI_PROC_NULL makes the call do nothing (NULL, *rc MPI_SUCCESS). */
static struct kmpi_win *win_enter(const char *call, MPI_Win win, int rank, int epoch, int *rc)
{
    struct kmpi_win *w = kmpi_win_check(call, win, rc);

    if (w == NULL)
        return NULL;
    if (rank == MPI_PROC_NULL) {
        *rc = MPI_SUCCESS;
        return NULL;
    }
    if ((rank != ALL_RANKS && (*rc = rank_check(call, w, rank)) != MPI_SUCCESS)
        || (epoch == EP_PASSIVE
            && (*rc = passive_check(call, w, rank)) != MPI_SUCCESS))
        return NULL;
    return w;
}

#pragma weak MPI_Win_lock = PMPI_Win_lock
int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    static const char call[] = "MPI_Win_lock";
    int               rc;
    struct kmpi_win  *w = kmpi_win_check(call, win, &rc);

    if (w == NULL)
        return rc;
    if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)
        return kmpi_win_error(w, MPI_ERR_LOCKTYPE, call, "lock_type %d is neither "
                              "MPI_LOCK_EXCLUSIVE nor MPI_LOCK_SHARED", lock_type);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if ((rc = rank_check(call, w, rank)) != MPI_SUCCESS
        || (rc = assert_check(call, w, assert, MPI_MODE_NOCHECK)) != MPI_SUCCESS)
        return rc;
    if (w->locked[rank] || w->lock_all)
        return kmpi_win_error(w, MPI_ERR_RMA_SYNC, call, "rank %d is locked already%s", rank,
                              w->lock_all ? " (MPI_Win_lock_all)" : "");
    int type = lock_type == MPI_LOCK_EXCLUSIVE ? LK_EXCL : LK_SHARED;
    if (assert & MPI_MODE_NOCHECK) {
        w->locked[rank] = LK_NOCHECK;
        return MPI_SUCCESS;
    }
    rc = w->locks != NULL ? shm_lock(call, w, rank, type)
                          : kmpi_win_roundtrip(call, w, rank, KW_LOCK, type);
    if (rc != MPI_SUCCESS)
        return rc;
    w->locked[rank] = (uint8_t)type;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_unlock = PMPI_Win_unlock
int PMPI_Win_unlock(int rank, MPI_Win win)
{
    static const char call[] = "MPI_Win_unlock";
    int               rc;
    struct kmpi_win  *w = win_enter(call, win, rank, EP_ANY, &rc);

    if (w == NULL)
        return rc;
    if (!w->locked[rank])
        return kmpi_win_error(w, MPI_ERR_RMA_SYNC, call, "rank %d is not locked", rank);
    int type = w->locked[rank];
    w->locked[rank]  = LK_NONE;
    w->touched[rank] = 0;
    if (w->locks != NULL) {   /* every operation is done already */
        __atomic_thread_fence(__ATOMIC_ACQ_REL);
        if (type != LK_NOCHECK)
            shm_unlock(w, rank, type);
        return MPI_SUCCESS;
    }
    rc = type == LK_NOCHECK ? kmpi_win_roundtrip(call, w, rank, KW_FLUSH, 0)
                            : kmpi_win_roundtrip(call, w, rank, KW_UNLOCK, type);
    if (rc == MPI_SUCCESS)
        rc = kmpi_win_wait_local(call, w, rank);
    return rc;
}

static int *all_ranks(struct kmpi_win *w)
{
    int *r = malloc((size_t)w->size * sizeof(int));

    if (r != NULL)
        for (int i = 0; i < w->size; i++)
            r[i] = i;
    return r;
}

#pragma weak MPI_Win_lock_all = PMPI_Win_lock_all
int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    static const char call[] = "MPI_Win_lock_all";
    int               rc, *r, n = 0;
    struct kmpi_win  *w = kmpi_win_check(call, win, &rc);

    if (w == NULL)
        return rc;
    if ((rc = assert_check(call, w, assert, MPI_MODE_NOCHECK)) != MPI_SUCCESS)
        return rc;
    if (w->lock_all)
        return kmpi_win_error(w, MPI_ERR_RMA_SYNC, call, "MPI_Win_lock_all is in force already");
    for (int i = 0; i < w->size; i++)
        if (w->locked[i])
            return kmpi_win_error(w, MPI_ERR_RMA_SYNC, call, "rank %d is locked already", i);
    if (assert & MPI_MODE_NOCHECK) {
        w->lock_all = 2;
        return MPI_SUCCESS;
    }
    if (w->locks != NULL) {
        if ((rc = shm_lock_all(call, w)) == MPI_SUCCESS)
            w->lock_all = 1;
        return rc;
    }
    /* message windows: every lock request sent, then one wait for the
     * grants (each target queues its own in arrival order). When a target
     * answers with an error, or a request could not be sent (the requests
     * already sent are answered all the same), those that granted theirs
     * release it again: no epoch began. The error reaches the user's
     * handler only then (kmpi_win_defer). */
    uint8_t *ok;
    if ((r = all_ranks(w)) == NULL || (ok = malloc((size_t)w->size)) == NULL) {
        free(r);
        return kmpi_win_error(w, MPI_ERR_NO_MEM, call, "no memory");
    }
    kmpi_win_defer(w);
    rc = kmpi_win_roundtrips(call, w, r, w->size, KW_LOCK, LK_SHARED, ok);
    if (rc == MPI_SUCCESS) {
        w->lock_all = 1;
    } else {
        for (int i = 0; i < w->size; i++)
            if (ok[i])
                r[n++] = i;
        if (n > 0)
            kmpi_win_roundtrips(call, w, r, n, KW_UNLOCK, LK_SHARED, NULL);
    }
    free(ok);
    free(r);
    int drc = kmpi_win_undefer(w);
    return rc != MPI_SUCCESS ? rc : drc;
}

#pragma weak MPI_Win_unlock_all = PMPI_Win_unlock_all
int PMPI_Win_unlock_all(MPI_Win win)
{
    static const char call[] = "MPI_Win_unlock_all";
    int               rc, *r, n;
    struct kmpi_win  *w = kmpi_win_check(call, win, &rc);

    if (w == NULL)
        return rc;
    if (!w->lock_all)
        return kmpi_win_error(w, MPI_ERR_RMA_SYNC, call, "no MPI_Win_lock_all before");
    if (w->locks != NULL) {
        __atomic_thread_fence(__ATOMIC_ACQ_REL);
        if (w->lock_all == 1)
            for (int i = 0; i < w->size; i++)
                shm_unlock(w, i, LK_SHARED);
        w->lock_all = 0;
        return MPI_SUCCESS;
    }
    if (w->lock_all == 2) {
        r = touched_list(w, &n);
        if (r == NULL)
            return kmpi_win_error(w, MPI_ERR_NO_MEM, call, "no memory");
        rc = n > 0 ? kmpi_win_roundtrips(call, w, r, n, KW_FLUSH, 0, NULL) : MPI_SUCCESS;
    } else {
        if ((r = all_ranks(w)) == NULL)
            return kmpi_win_error(w, MPI_ERR_NO_MEM, call, "no memory");
        memset(w->touched, 0, (size_t)w->size);
        rc = kmpi_win_roundtrips(call, w, r, w->size, KW_UNLOCK, LK_SHARED, NULL);
    }
    free(r);
    w->lock_all = 0;
    if (rc == MPI_SUCCESS)
        rc = kmpi_win_wait_local(call, w, -1);
    return rc;
}

#pragma weak MPI_Win_flush = PMPI_Win_flush
int PMPI_Win_flush(int rank, MPI_Win win)
{
    static const char call[] = "MPI_Win_flush";
    int               rc;
    struct kmpi_win  *w = win_enter(call, win, rank, EP_PASSIVE, &rc);

    if (w == NULL)
        return rc;
    if (w->dbase != NULL) {
        /* shared memory: every operation is done already; what this
         * process does next (a message, a flag) is ordered after them
         * (MPI_Win_sync orders loads too) */
        __atomic_thread_fence(__ATOMIC_ACQ_REL);
        return MPI_SUCCESS;
    }
    if (w->touched[rank]) {
        w->touched[rank] = 0;
        if ((rc = kmpi_win_roundtrip(call, w, rank, KW_FLUSH, 0)) != MPI_SUCCESS)
            return rc;
    }
    return kmpi_win_wait_local(call, w, rank);
}

#pragma weak MPI_Win_flush_all = PMPI_Win_flush_all
int PMPI_Win_flush_all(MPI_Win win)
{
    static const char call[] = "MPI_Win_flush_all";
    int               rc;
    struct kmpi_win  *w = win_enter(call, win, ALL_RANKS, EP_PASSIVE, &rc);

    if (w == NULL)
        return rc;
    if ((rc = flush_touched(call, w)) != MPI_SUCCESS)
        return rc;
    return kmpi_win_wait_local(call, w, -1);
}

/* MPI_Win_flush_local, and with ALL_RANKS MPI_Win_flush_local_all */
static int flush_local(const char *call, MPI_Win win, int rank)
{
    int              rc;
    struct kmpi_win *w = win_enter(call, win, rank, EP_PASSIVE, &rc);

    if (w == NULL)
        return rc;
    return kmpi_win_wait_local(call, w, rank == ALL_RANKS ? -1 : rank);
}

#pragma weak MPI_Win_flush_local = PMPI_Win_flush_local
int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    return flush_local("MPI_Win_flush_local", win, rank);
}

#pragma weak MPI_Win_flush_local_all = PMPI_Win_flush_local_all
int PMPI_Win_flush_local_all(MPI_Win win)
{
    return flush_local("MPI_Win_flush_local_all", win, ALL_RANKS);
}

#pragma weak MPI_Win_sync = PMPI_Win_sync
int PMPI_Win_sync(MPI_Win win)
{
    static const char call[] = "MPI_Win_sync";
    int               rc;
    struct kmpi_win  *w = kmpi_win_check(call, win, &rc);

    if (w == NULL)
        return rc;
    /* public and private copies are one (MPI_WIN_UNIFIED): order this
     * process's loads and stores, and serve what has arrived */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    kmpi_win_progress();
    return MPI_SUCCESS;
}
