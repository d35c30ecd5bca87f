/*
 * attr.c -- communicator attributes: the predefined ones of
 * MPI_Comm_get_attr (MPI_TAG_UB .. MPI_APPNUM) and user keys
 * (MPI_Comm_create_keyval, set, get, delete, free_keyval, with their copy
 * callbacks at MPI_Comm_dup and delete callbacks at MPI_Comm_free, at
 * MPI_Comm_delete_attr, when a value is replaced, and for MPI_COMM_SELF at
 * the start of MPI_Finalize, MPI-3.1 8.7.1), and the deprecated MPI-1 names
 * (MPI_Keyval_create, MPI_Attr_put/get/delete, MPI_Keyval_free).
 *
 * Key values above the predefined ones index a table; a freed key stays
 * until no communicator holds a value of it. A communicator's values are a
 * list, newest first.
 */
#include <limits.h>
#include <stdlib.h>

#include "datatype.h"

enum { KEY_COMM = 0, KEY_TYPE = 1 };   /* which objects a key is for */

struct kmpi_keyval {
    int                            kind;
    MPI_Comm_copy_attr_function   *copy;
    MPI_Comm_delete_attr_function *del;
    void                          *extra;
    int                            refs;    /* values held + 1 until freed */
    int                            freed;   /* the program freed it (values still hold it) */
};

struct kmpi_attr {
    struct kmpi_attr *next;
    int               key;
    void             *val;
};

#define KEY_FIRST (MPI_LASTUSEDCODE + 1)   /* the first user key */

static struct kmpi_keyval **keys;    /* [key - KEY_FIRST]; NULL: free */
static int                  nkeys;

static struct kmpi_keyval *key_any(int k)
{
    return k >= KEY_FIRST && k - KEY_FIRST < nkeys ? keys[k - KEY_FIRST] : NULL;
}

/* the key k of kind, NULL when k is none (or of another kind) */
static struct kmpi_keyval *key_of(int k, int kind)
{
    struct kmpi_keyval *kv = key_any(k);

    return kv != NULL && kv->kind == kind ? kv : NULL;
}

static struct kmpi_keyval *key_at(int k)
{
    return key_of(k, KEY_COMM);
}

static void key_unref(int k)
{
    struct kmpi_keyval *kv = key_any(k);

    if (kv != NULL && --kv->refs == 0) {
        free(kv);
        keys[k - KEY_FIRST] = NULL;
    }
}

int kmpi_comm_null_copy_fn(MPI_Comm oldcomm, int keyval, void *extra_state, void *in, void *out,
                           int *flag)
{
    (void)oldcomm, (void)keyval, (void)extra_state, (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}

int kmpi_comm_dup_fn(MPI_Comm oldcomm, int keyval, void *extra_state, void *in, void *out,
                     int *flag)
{
    (void)oldcomm, (void)keyval, (void)extra_state;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

int kmpi_comm_null_delete_fn(MPI_Comm comm, int keyval, void *val, void *extra_state)
{
    (void)comm, (void)keyval, (void)val, (void)extra_state;
    return MPI_SUCCESS;
}

static int key_create(const char *call, int kind, MPI_Comm_copy_attr_function *copy,
                      MPI_Comm_delete_attr_function *del, int *comm_keyval, void *extra_state)
{
    int                 rc = kmpi_live(call), i;
    struct kmpi_keyval *kv;

    if (rc != MPI_SUCCESS)
        return rc;
    if (comm_keyval == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "comm_keyval is NULL");
    for (i = 0; i < nkeys && keys[i] != NULL; i++)
        ;
    if (i == nkeys) {
        int                  m = nkeys ? 2 * nkeys : 16;
        struct kmpi_keyval **t = realloc(keys, (size_t)m * sizeof(*t));
        if (t == NULL)
            return kmpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "no memory for a key");
        for (int j = nkeys; j < m; j++)
            t[j] = NULL;
        keys  = t;
        nkeys = m;
    }
    if ((kv = malloc(sizeof(*kv))) == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "no memory for a key");
    kv->kind  = kind;
    kv->copy  = copy != NULL ? copy : kmpi_comm_null_copy_fn;
    kv->del   = del != NULL ? del : kmpi_comm_null_delete_fn;
    kv->extra = extra_state;
    kv->refs  = 1;
    kv->freed = 0;
    keys[i]   = kv;
    *comm_keyval = KEY_FIRST + i;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval
int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                            void *extra_state)
{
    return key_create("MPI_Comm_create_keyval", KEY_COMM, comm_copy_attr_fn,
                      comm_delete_attr_fn, comm_keyval, extra_state);
}

static int key_free(const char *call, int kind, int *comm_keyval);

#pragma weak MPI_Comm_free_keyval = PMPI_Comm_free_keyval
int PMPI_Comm_free_keyval(int *comm_keyval)
{
    return key_free("MPI_Comm_free_keyval", KEY_COMM, comm_keyval);
}

static int key_free(const char *call, int kind, int *comm_keyval)
{
    int rc = kmpi_live(call);

    if (rc != MPI_SUCCESS)
        return rc;
    if (comm_keyval == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "comm_keyval is NULL");
    if (key_of(*comm_keyval, kind) == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_KEYVAL, call, "%d is no key of yours%s",
                          *comm_keyval, *comm_keyval >= MPI_TAG_UB && *comm_keyval < KEY_FIRST
                          ? " (a predefined attribute cannot be freed)"
                          : key_any(*comm_keyval) != NULL
                          ? (kind == KEY_COMM ? " (a datatype's key)" : " (a communicator's key)")
                          : " (freed?)");
    /* Only the first free drops the program's reference: a key freed while
     * values still hold it stays until they are deleted, and freeing it
     * again through a copy of the handle (or from its own delete callback)
     * must not take a value's reference and free the key under it (MPICH's
     * attr/keyval_double_free does this). */
    if (!key_of(*comm_keyval, kind)->freed) {
        key_of(*comm_keyval, kind)->freed = 1;
        key_unref(*comm_keyval);   /* values already set keep it until deleted */
    }
    *comm_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

/* the user key k for call on comm, or NULL with the error reported */
static struct kmpi_keyval *key_check(const char *call, MPI_Comm comm, struct kmpi_comm **c,
                                     int k, int *rc)
{
    struct kmpi_keyval *kv;

    *rc = MPI_SUCCESS;
    if ((*rc = kmpi_live(call)) != MPI_SUCCESS)
        return NULL;
    if ((*c = kmpi_comm_fast(comm)) == NULL) {
        *rc = kmpi_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "%d is no communicator", comm);
        return NULL;
    }
    if ((kv = key_at(k)) == NULL)
        *rc = kmpi_error(comm, MPI_ERR_KEYVAL, call, "%d is no key of yours%s", k,
                         k >= MPI_TAG_UB && k < KEY_FIRST ? " (a predefined attribute cannot "
                         "be set or deleted)" : " (freed?)");
    return kv;
}

/* the link to key k's value in the list at *head (communicator or
 * datatype), or to the list's end */
static struct kmpi_attr **attr_find(struct kmpi_attr **head, int k)
{
    struct kmpi_attr **a = head;

    while (*a != NULL && (*a)->key != k)
        a = &(*a)->next;
    return a;
}

/* removes *a from the list of handle h (a communicator or a datatype: both
 * ints, and a datatype key's callback is called as a communicator key's),
 * calling its key's delete callback first; the callback's error is
 * returned and the value stays */
static int attr_delete(int h, struct kmpi_attr **a)
{
    struct kmpi_attr   *v  = *a;
    struct kmpi_keyval *kv = key_any(v->key);
    int                 rc = kv->del(h, v->key, v->val, kv->extra);

    if (rc != MPI_SUCCESS)
        return rc;
    *a = v->next;
    key_unref(v->key);
    free(v);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_set_attr = PMPI_Comm_set_attr
int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    static const char   call[] = "MPI_Comm_set_attr";
    int                 rc;
    struct kmpi_comm   *c;
    struct kmpi_keyval *kv = key_check(call, comm, &c, comm_keyval, &rc);
    struct kmpi_attr  **a, *v;

    if (kv == NULL)
        return rc;
    if (*(a = attr_find(&c->attrs, comm_keyval)) != NULL) {   /* replaced: the old one deleted */
        if ((rc = kv->del(comm, comm_keyval, (*a)->val, kv->extra)) != MPI_SUCCESS)
            return kmpi_error(comm, rc, call, "the delete callback of key %d failed with %d",
                              comm_keyval, rc);
        (*a)->val = attribute_val;
        return MPI_SUCCESS;
    }
    if ((v = malloc(sizeof(*v))) == NULL)
        return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for an attribute");
    v->key   = comm_keyval;
    v->val   = attribute_val;
    v->next  = c->attrs;
    c->attrs = v;
    kv->refs++;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_delete_attr = PMPI_Comm_delete_attr
int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    static const char   call[] = "MPI_Comm_delete_attr";
    int                 rc;
    struct kmpi_comm   *c;
    struct kmpi_keyval *kv = key_check(call, comm, &c, comm_keyval, &rc);
    struct kmpi_attr  **a;

    if (kv == NULL)
        return rc;
    if (*(a = attr_find(&c->attrs, comm_keyval)) == NULL)
        return kmpi_error(comm, MPI_ERR_KEYVAL, call, "the communicator has no value of key %d",
                          comm_keyval);
    if ((rc = attr_delete(comm, a)) != MPI_SUCCESS)
        return kmpi_error(comm, rc, call, "the delete callback of key %d failed with %d",
                          comm_keyval, rc);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr
int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    static const char call[] = "MPI_Comm_get_attr";
    static int        tag_ub = INT_MAX, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE,
                      wtime_global = 0, universe, appnum = 0;
    int               rc = kmpi_live(call);
    struct kmpi_comm *c;
    struct kmpi_attr *a;
    int              *v = NULL;

    if (rc != MPI_SUCCESS)
        return rc;
    if ((c = kmpi_comm_fast(comm)) == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "%d is no communicator%s", comm,
                          comm == MPI_COMM_NULL ? " (MPI_COMM_NULL)" : "");
    if (attribute_val == NULL || flag == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "attribute_val or flag is NULL");
    switch (comm_keyval) {
    case MPI_TAG_UB:          v = &tag_ub; break;
    case MPI_HOST:            v = &host; break;
    case MPI_IO:              v = &io; break;
    case MPI_WTIME_IS_GLOBAL: v = &wtime_global; break;
    case MPI_UNIVERSE_SIZE:   universe = kumi_size(); v = &universe; break;
    case MPI_APPNUM:          v = &appnum; break;
    case MPI_LASTUSEDCODE:    v = &kmpi_lastused; break;
    default:
        if (key_at(comm_keyval) == NULL)
            return kmpi_error(comm, MPI_ERR_KEYVAL, call, "keyval %d is neither a predefined "
                              "attribute nor a key of yours (freed?)", comm_keyval);
        a = *attr_find(&c->attrs, comm_keyval);
        *flag = a != NULL;
        if (a != NULL)
            *(void **)attribute_val = a->val;
        return MPI_SUCCESS;
    }
    *(int **)attribute_val = v;
    *flag = 1;
    return MPI_SUCCESS;
}

int kmpi_attr_copy(const char *call, MPI_Comm oldcomm, MPI_Comm newcomm)
{
    struct kmpi_comm *o = kmpi_comm_fast(oldcomm), *n = kmpi_comm_fast(newcomm);

    for (struct kmpi_attr *a = o->attrs; a != NULL; a = a->next) {
        struct kmpi_keyval *kv = key_at(a->key);
        void               *out = NULL;
        int                 flag = 0, rc = kv->copy(oldcomm, a->key, kv->extra, a->val, &out,
                                                    &flag);
        struct kmpi_attr   *v;

        if (rc != MPI_SUCCESS)
            return kmpi_error(oldcomm, rc, call, "the copy callback of key %d failed with %d",
                              a->key, rc);
        if (!flag)
            continue;
        if ((v = malloc(sizeof(*v))) == NULL)
            return kmpi_error(oldcomm, MPI_ERR_NO_MEM, call, "no memory for an attribute");
        v->key   = a->key;
        v->val   = out;
        v->next  = n->attrs;
        n->attrs = v;
        kv->refs++;
    }
    return MPI_SUCCESS;
}

int kmpi_attr_delete_all(const char *call, MPI_Comm comm)
{
    struct kmpi_comm *c = kmpi_comm_fast(comm);
    int               rc;

    while (c->attrs != NULL)
        if ((rc = attr_delete(comm, &c->attrs)) != MPI_SUCCESS)
            return kmpi_error(comm, rc, call, "the delete callback of key %d failed with %d",
                              c->attrs->key, rc);
    return MPI_SUCCESS;
}

void kmpi_attr_drop(struct kmpi_comm *c)
{
    while (c->attrs != NULL) {
        struct kmpi_attr *a = c->attrs;
        c->attrs = a->next;
        free(a);
    }
}

void kmpi_attr_fini(void)
{
    kmpi_dt_attrs_drop();   /* types may outlive MPI_Finalize: no values left on them */
    for (int i = 0; i < nkeys; i++)
        free(keys[i]);
    free(keys);
    keys  = NULL;
    nkeys = 0;
}

/* ------------------------------------------------------------ MPI-1 names */

#pragma weak MPI_Keyval_create = PMPI_Keyval_create
int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state)
{
    return PMPI_Comm_create_keyval(copy_fn, delete_fn, keyval, extra_state);
}

#pragma weak MPI_Keyval_free = PMPI_Keyval_free
int PMPI_Keyval_free(int *keyval)
{
    return PMPI_Comm_free_keyval(keyval);
}

#pragma weak MPI_Attr_put = PMPI_Attr_put
int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return PMPI_Comm_set_attr(comm, keyval, attribute_val);
}

#pragma weak MPI_Attr_get = PMPI_Attr_get
int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return PMPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}

#pragma weak MPI_Attr_delete = PMPI_Attr_delete
int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return PMPI_Comm_delete_attr(comm, keyval);
}

/* ------------------------------------------------------------ datatypes' attributes
 * The same keys and callbacks (MPI_Datatype and MPI_Comm are both ints,
 * so the callback types are the same) in a kind of their own; a type's
 * values live in its struct kmpi_dt. Copied by MPI_Type_dup, deleted by
 * MPI_Type_free (before the type goes, MPI-3.1 6.7.2). */

int kmpi_type_null_copy_fn(MPI_Datatype oldtype, int keyval, void *extra_state, void *in,
                           void *out, int *flag)
{
    return kmpi_comm_null_copy_fn(oldtype, keyval, extra_state, in, out, flag);
}

int kmpi_type_dup_fn(MPI_Datatype oldtype, int keyval, void *extra_state, void *in, void *out,
                     int *flag)
{
    return kmpi_comm_dup_fn(oldtype, keyval, extra_state, in, out, flag);
}

int kmpi_type_null_delete_fn(MPI_Datatype type, int keyval, void *val, void *extra_state)
{
    return kmpi_comm_null_delete_fn(type, keyval, val, extra_state);
}

#pragma weak MPI_Type_create_keyval = PMPI_Type_create_keyval
int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn,
                            int *type_keyval, void *extra_state)
{
    return key_create("MPI_Type_create_keyval", KEY_TYPE, type_copy_attr_fn,
                      type_delete_attr_fn, type_keyval, extra_state);
}

#pragma weak MPI_Type_free_keyval = PMPI_Type_free_keyval
int PMPI_Type_free_keyval(int *type_keyval)
{
    return key_free("MPI_Type_free_keyval", KEY_TYPE, type_keyval);
}

/* the datatype's struct and the type key k for call, or NULL with *rc */
static struct kmpi_keyval *type_key_check(const char *call, MPI_Datatype type,
                                          struct kmpi_dt **t, int k, int *rc)
{
    struct kmpi_keyval *kv;

    if ((*rc = kmpi_live(call)) != MPI_SUCCESS)
        return NULL;
    if ((*t = kmpi_dt_get(MPI_COMM_NULL, call, "datatype", type, rc)) == NULL)
        return NULL;
    if ((kv = key_of(k, KEY_TYPE)) == NULL)
        *rc = kmpi_error(MPI_COMM_NULL, MPI_ERR_KEYVAL, call, "%d is no datatype key of "
                         "yours%s", k, key_any(k) != NULL ? " (a communicator's key)"
                         : " (freed?)");
    return kv;
}

#pragma weak MPI_Type_set_attr = PMPI_Type_set_attr
int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    static const char   call[] = "MPI_Type_set_attr";
    int                 rc;
    struct kmpi_dt     *t;
    struct kmpi_keyval *kv = type_key_check(call, datatype, &t, type_keyval, &rc);
    struct kmpi_attr  **a, *v;

    if (kv == NULL)
        return rc;
    if (*(a = attr_find(&t->attrs, type_keyval)) != NULL) {   /* replaced: the old one deleted */
        if ((rc = kv->del(datatype, type_keyval, (*a)->val, kv->extra)) != MPI_SUCCESS)
            return kmpi_error(MPI_COMM_NULL, rc, call, "the delete callback of key %d failed "
                              "with %d", type_keyval, rc);
        (*a)->val = attribute_val;
        return MPI_SUCCESS;
    }
    if ((v = malloc(sizeof(*v))) == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "no memory for an attribute");
    v->key   = type_keyval;
    v->val   = attribute_val;
    v->next  = t->attrs;
    t->attrs = v;
    kv->refs++;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_attr = PMPI_Type_get_attr
int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    static const char call[] = "MPI_Type_get_attr";
    int               rc;
    struct kmpi_dt   *t;
    struct kmpi_attr *a;

    if (type_key_check(call, datatype, &t, type_keyval, &rc) == NULL)
        return rc;
    if (attribute_val == NULL || flag == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "attribute_val or flag is NULL");
    a = *attr_find(&t->attrs, type_keyval);
    *flag = a != NULL;
    if (a != NULL)
        *(void **)attribute_val = a->val;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_delete_attr = PMPI_Type_delete_attr
int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    static const char call[] = "MPI_Type_delete_attr";
    int               rc;
    struct kmpi_dt   *t;
    struct kmpi_attr **a;

    if (type_key_check(call, datatype, &t, type_keyval, &rc) == NULL)
        return rc;
    if (*(a = attr_find(&t->attrs, type_keyval)) == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_KEYVAL, call, "the datatype has no value of "
                          "key %d", type_keyval);
    if ((rc = attr_delete(datatype, a)) != MPI_SUCCESS)
        return kmpi_error(MPI_COMM_NULL, rc, call, "the delete callback of key %d failed with "
                          "%d", type_keyval, rc);
    return MPI_SUCCESS;
}

int kmpi_type_attr_copy(const char *call, MPI_Datatype oldh, struct kmpi_dt *o, MPI_Datatype newh,
                        struct kmpi_dt *n)
{
    (void)newh;
    for (struct kmpi_attr *a = o->attrs; a != NULL; a = a->next) {
        struct kmpi_keyval *kv = key_any(a->key);
        void               *out = NULL;
        int                 flag = 0, rc = kv->copy(oldh, a->key, kv->extra, a->val, &out, &flag);
        struct kmpi_attr   *v;

        if (rc != MPI_SUCCESS)
            return kmpi_error(MPI_COMM_NULL, rc, call, "the copy callback of key %d failed "
                              "with %d", a->key, rc);
        if (!flag)
            continue;
        if ((v = malloc(sizeof(*v))) == NULL)
            return kmpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "no memory for an "
                              "attribute");
        v->key   = a->key;
        v->val   = out;
        v->next  = n->attrs;
        n->attrs = v;
        kv->refs++;
    }
    return MPI_SUCCESS;
}

int kmpi_type_attr_delete_all(const char *call, MPI_Datatype h, struct kmpi_dt *t)
{
    int rc;

    while (t->attrs != NULL)
        if ((rc = attr_delete(h, &t->attrs)) != MPI_SUCCESS)
            return kmpi_error(MPI_COMM_NULL, rc, call, "the delete callback of key %d failed "
                              "with %d", t->attrs->key, rc);
    return MPI_SUCCESS;
}

void kmpi_type_attr_drop(struct kmpi_dt *t)
{
    while (t->attrs != NULL) {
        struct kmpi_attr *a = t->attrs;
        t->attrs = a->next;
        key_unref(a->key);
        free(a);
    }
}
