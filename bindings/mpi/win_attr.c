/*
 * win_attr.c -- a window's other properties (MPI-3.1 11.2.6-7, 6.7.3,
 * 8.3.3): its group, name and info, its error handler, and attributes on
 * it (the predefined MPI_WIN_BASE ... MPI_WIN_MODEL and the program's
 * keys with their callbacks).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "win_int.h"

/* ------------------------------------------------------------ group, name, info */

#pragma weak MPI_Win_get_group = PMPI_Win_get_group
int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    static const char call[] = "MPI_Win_get_group";
    int               rc;
    struct kmpi_win  *w = kmpi_win_check_arg(call, win, group != NULL, "group", &rc);

    if (w == NULL)
        return rc;
    return PMPI_Comm_group(w->comm, group);
}

#pragma weak MPI_Win_set_name = PMPI_Win_set_name
int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    static const char call[] = "MPI_Win_set_name";
    int               rc;
    struct kmpi_win  *w = kmpi_win_check_arg(call, win, win_name != NULL, "win_name", &rc);

    if (w == NULL)
        return rc;
    snprintf(w->name, sizeof w->name, "%s", win_name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_get_name = PMPI_Win_get_name
int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    static const char call[] = "MPI_Win_get_name";
    int               rc;
    struct kmpi_win  *w = kmpi_win_check_arg(call, win, win_name != NULL && resultlen != NULL,
                                             "win_name or resultlen", &rc);

    if (w == NULL)
        return rc;
    *resultlen = snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s", w->name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_set_info = PMPI_Win_set_info
int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    static const char call[] = "MPI_Win_set_info";
    int               rc;
    struct kmpi_win  *w = kmpi_win_check(call, win, &rc);
    MPI_Info          copy;

    if (w == NULL)
        return rc;
    if (info == MPI_INFO_NULL)
        return kmpi_win_error(w, MPI_ERR_INFO, call, "info is MPI_INFO_NULL");
    if ((rc = PMPI_Info_dup(info, &copy)) != MPI_SUCCESS)
        return rc;
    if (w->info != MPI_INFO_NULL)
        PMPI_Info_free(&w->info);
    w->info = copy;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_get_info = PMPI_Win_get_info
int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    static const char call[] = "MPI_Win_get_info";
    int               rc;
    struct kmpi_win  *w = kmpi_win_check_arg(call, win, info_used != NULL, "info_used", &rc);

    if (w == NULL)
        return rc;
    /* MPI-3.1 11.2.7: "all hints actually used by the system": the
     * window hints of 11.2.1 (and 11.2.3), as set or else their defaults;
     * a key kumi does not know is ignored, so it is not returned */
    static const char *const hints[][2] = {
        { "no_locks", "false" },
        { "accumulate_ordering", "rar,raw,war,waw" },
        { "accumulate_ops", "same_op_no_op" },
        { "same_size", "false" },
        { "same_disp_unit", "false" },
        { "alloc_shared_noncontig", NULL },   /* only when given */
    };
    int h = kmpi_info_used(w->info, hints, sizeof hints / sizeof hints[0]);
    if (h < 0)
        return kmpi_win_error(w, MPI_ERR_NO_MEM, call, "no memory for the hints");
    *info_used = h;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ error handlers
 * A window's handler is one of errh.c's (MPI_Win_errhandler_function has
 * the communicator's function's type: handles are ints). */

#pragma weak MPI_Win_create_errhandler = PMPI_Win_create_errhandler
int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                               MPI_Errhandler *errhandler)
{
    return PMPI_Comm_create_errhandler(win_errhandler_fn, errhandler);
}

#pragma weak MPI_Win_set_errhandler = PMPI_Win_set_errhandler
int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    static const char call[] = "MPI_Win_set_errhandler";
    int               rc;
    struct kmpi_win  *w = kmpi_win_check(call, win, &rc);

    if (w == NULL)
        return rc;
    if (!kmpi_errh_valid(errhandler))
        return kmpi_win_error(w, MPI_ERR_ARG, call, "%d is no error handler", errhandler);
    kmpi_errh_ref(errhandler);
    kmpi_errh_unref(w->errh);
    w->errh = errhandler;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_get_errhandler = PMPI_Win_get_errhandler
int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    static const char call[] = "MPI_Win_get_errhandler";
    int               rc;
    struct kmpi_win  *w = kmpi_win_check_arg(call, win, errhandler != NULL, "errhandler", &rc);

    if (w == NULL)
        return rc;
    kmpi_errh_ref(w->errh);
    *errhandler = w->errh;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_call_errhandler = PMPI_Win_call_errhandler
int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    static const char call[] = "MPI_Win_call_errhandler";
    int               rc;
    struct kmpi_win  *w = kmpi_win_check(call, win, &rc);

    if (w == NULL)
        return rc;
    kmpi_win_error(w, errorcode, call, "error code %d raised by the program", errorcode);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ attributes
 * User keys count from KMPI_WIN_KEY0 (the predefined MPI_WIN_BASE...
 * lie below); a freed key's slot is never reused, so values set with it
 * keep their delete callback. */
#define KMPI_WIN_KEY0 1000
struct win_key {
    MPI_Win_copy_attr_function   *copy;
    MPI_Win_delete_attr_function *del;
    void *extra;
    int   freed;
};
static struct win_key *keys;
static int             nkeys, cap_keys;

int kmpi_win_null_copy_fn(MPI_Win w, int k, void *e, void *in, void *out, int *flag)
{
    (void)w, (void)k, (void)e, (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}

int kmpi_win_dup_fn(MPI_Win w, int k, void *e, void *in, void *out, int *flag)
{
    (void)w, (void)k, (void)e;
    memcpy(out, &in, sizeof in);
    *flag = 1;
    return MPI_SUCCESS;
}

int kmpi_win_null_delete_fn(MPI_Win w, int k, void *v, void *e)
{
    (void)w, (void)k, (void)v, (void)e;
    return MPI_SUCCESS;
}

static struct win_key *key_of(int k, int live)
{
    if (k < KMPI_WIN_KEY0 || k - KMPI_WIN_KEY0 >= nkeys)
        return NULL;
    struct win_key *y = &keys[k - KMPI_WIN_KEY0];
    return live && y->freed ? NULL : y;
}

#pragma weak MPI_Win_create_keyval = PMPI_Win_create_keyval
int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                           MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                           void *extra_state)
{
    static const char call[] = "MPI_Win_create_keyval";
    int               rc = kmpi_live(call);

    if (rc != MPI_SUCCESS)
        return rc;
    if (win_keyval == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "win_keyval is NULL");
    if (nkeys == cap_keys) {
        int             m = cap_keys ? 2 * cap_keys : 16;
        struct win_key *t = realloc(keys, (size_t)m * sizeof(*t));
        if (t == NULL)
            return kmpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "no memory for a key");
        keys     = t;
        cap_keys = m;
    }
    keys[nkeys].copy  = win_copy_attr_fn;
    keys[nkeys].del   = win_delete_attr_fn;
    keys[nkeys].extra = extra_state;
    keys[nkeys].freed = 0;
    *win_keyval = KMPI_WIN_KEY0 + nkeys++;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_free_keyval = PMPI_Win_free_keyval
int PMPI_Win_free_keyval(int *win_keyval)
{
    static const char call[] = "MPI_Win_free_keyval";
    int               rc = kmpi_live(call);
    struct win_key   *y;

    if (rc != MPI_SUCCESS)
        return rc;
    if (win_keyval == NULL || (y = key_of(*win_keyval, 1)) == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_KEYVAL, call, "%d is no window key",
                          win_keyval ? *win_keyval : MPI_KEYVAL_INVALID);
    y->freed    = 1;
    *win_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

/* deletes w's value of key k (its callback first): MPI_SUCCESS when there
 * was none; the callback's failure leaves the value */
static int attr_delete(const char *call, struct kmpi_win *w, int k)
{
    for (struct kmpi_win_attr **pp = &w->attrs, *a; (a = *pp) != NULL; pp = &a->next)
        if (a->key == k) {
            struct win_key *y = key_of(k, 0);
            if (y->del != NULL) {
                int rc = y->del(w->id, k, a->val, y->extra);
                if (rc != MPI_SUCCESS)
                    return kmpi_win_error(w, rc, call, "the delete callback of key %d failed "
                                          "(%d)", k, rc);
            }
            *pp = a->next;
            free(a);
            return MPI_SUCCESS;
        }
    return MPI_SUCCESS;
}

int kmpi_win_attrs_delete_all(const char *call, struct kmpi_win *w)
{
    while (w->attrs != NULL) {
        int rc = attr_delete(call, w, w->attrs->key);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_set_attr = PMPI_Win_set_attr
int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    static const char    call[] = "MPI_Win_set_attr";
    int                  rc;
    struct kmpi_win     *w = kmpi_win_check(call, win, &rc);
    struct kmpi_win_attr *a;

    if (w == NULL)
        return rc;
    if (key_of(win_keyval, 1) == NULL)
        return kmpi_win_error(w, MPI_ERR_KEYVAL, call, "%d is no window key%s", win_keyval,
                              win_keyval >= MPI_WIN_BASE && win_keyval <= MPI_WIN_MODEL
                                  ? " (the predefined ones cannot be set)" : "");
    if ((rc = attr_delete(call, w, win_keyval)) != MPI_SUCCESS)
        return rc;
    if ((a = malloc(sizeof *a)) == NULL)
        return kmpi_win_error(w, MPI_ERR_NO_MEM, call, "no memory");
    a->key   = win_keyval;
    a->val   = attribute_val;
    a->next  = w->attrs;
    w->attrs = a;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_get_attr = PMPI_Win_get_attr
int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    static const char call[] = "MPI_Win_get_attr";
    int               rc;
    struct kmpi_win  *w = kmpi_win_check_arg(call, win, attribute_val != NULL && flag != NULL,
                                             "attribute_val or flag", &rc);

    if (w == NULL)
        return rc;
    /* the predefined values live in the window (pointers to them) */
    void *v = NULL;
    w->a_size   = w->wsize;
    w->a_unit   = w->disp_unit;
    w->a_flavor = w->flavor;
    w->a_model  = MPI_WIN_UNIFIED;
    switch (win_keyval) {
    case MPI_WIN_BASE:          v = w->base; break;
    case MPI_WIN_SIZE:          v = &w->a_size; break;
    case MPI_WIN_DISP_UNIT:     v = &w->a_unit; break;
    case MPI_WIN_CREATE_FLAVOR: v = &w->a_flavor; break;
    case MPI_WIN_MODEL:         v = &w->a_model; break;
    default:
        if (key_of(win_keyval, 0) == NULL)
            return kmpi_win_error(w, MPI_ERR_KEYVAL, call, "%d is no window key", win_keyval);
        *flag = 0;
        for (struct kmpi_win_attr *a = w->attrs; a != NULL; a = a->next)
            if (a->key == win_keyval) {
                memcpy(attribute_val, &a->val, sizeof a->val);
                *flag = 1;
            }
        return MPI_SUCCESS;
    }
    memcpy(attribute_val, &v, sizeof v);
    *flag = 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_delete_attr = PMPI_Win_delete_attr
int PMPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    static const char call[] = "MPI_Win_delete_attr";
    int               rc;
    struct kmpi_win  *w = kmpi_win_check(call, win, &rc);

    if (w == NULL)
        return rc;
    if (key_of(win_keyval, 0) == NULL)
        return kmpi_win_error(w, MPI_ERR_KEYVAL, call, "%d is no window key", win_keyval);
    return attr_delete(call, w, win_keyval);
}
