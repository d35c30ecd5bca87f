/*
 * info.c -- info objects (MPI_Info_*), MPI_INFO_ENV, the communicator info
 * hints (MPI_Comm_set_info/get_info), MPI_Comm_split_type, MPI_Alloc_mem,
 * MPI_Free_mem and MPI_Pcontrol.
 *
 * An info object is an ordered list of (key, value) strings; handles index
 * a table (0 is MPI_INFO_NULL, 1 MPI_INFO_ENV, which cannot be freed). No
 * hint changes what kumi does: communicators keep the hints they were given
 * (MPI-3.1 6.4.4 lets an implementation ignore them), and get_info returns
 * of them "the hints actually used": the communicator assertions MPI-4.0
 * 7.4.4 defines (mpi_assert_*: a promise kumi keeps trivially) as set, not
 * keys kumi does not know.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi_int.h"

struct kmpi_info_pair {
    char *key, *val;
};

struct kmpi_info {
    int                    n, cap;
    struct kmpi_info_pair *kv;
};

static struct kmpi_info   info_env;   /* MPI_INFO_ENV: no entries */
static struct kmpi_info **infos;      /* [handle]; NULL: free */
static int                ninfos;

static struct kmpi_info *info_at(MPI_Info h)
{
    if (h == MPI_INFO_ENV)
        return &info_env;
    return h > MPI_INFO_ENV && h < ninfos ? infos[h] : NULL;
}

static struct kmpi_info *info_check(const char *call, MPI_Info h, int *rc)
{
    struct kmpi_info *p;

    if ((*rc = kmpi_live(call)) != MPI_SUCCESS)
        return NULL;
    if ((p = info_at(h)) == NULL)
        *rc = kmpi_error(MPI_COMM_WORLD, MPI_ERR_INFO, call, "%d is no info object%s", h,
                         h == MPI_INFO_NULL ? " (MPI_INFO_NULL)" : " (freed?)");
    return p;
}

/* a new empty object's handle, or -1 (no memory) */
static int info_add(void)
{
    int h;

    for (h = MPI_INFO_ENV + 1; h < ninfos && infos[h] != NULL; h++)
        ;
    if (h >= ninfos) {
        int                m = ninfos ? 2 * ninfos : 16;
        struct kmpi_info **t = realloc(infos, (size_t)m * sizeof(*t));
        if (t == NULL)
            return -1;
        memset(t + ninfos, 0, (size_t)(m - ninfos) * sizeof(*t));
        infos  = t;
        ninfos = m;
    }
    if ((infos[h] = calloc(1, sizeof(**infos))) == NULL)
        return -1;
    return h;
}

static void info_clear(struct kmpi_info *p)
{
    for (int i = 0; i < p->n; i++) {
        free(p->kv[i].key);
        free(p->kv[i].val);
    }
    free(p->kv);
    memset(p, 0, sizeof(*p));
}

static int info_find(const struct kmpi_info *p, const char *key)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->kv[i].key, key) == 0)
            return i;
    return -1;
}

/* key is a valid key (1..MPI_MAX_INFO_KEY - 1 characters) for call */
static int key_check(const char *call, const char *key)
{
    size_t n;

    if (key == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_INFO_KEY, call, "key is NULL");
    n = strlen(key);
    if (n == 0 || n >= MPI_MAX_INFO_KEY)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_INFO_KEY, call, "key \"%.40s%s\" is %s "
                          "(1 to %d characters)", key, n > 40 ? "..." : "",
                          n == 0 ? "empty" : "too long", MPI_MAX_INFO_KEY - 1);
    return MPI_SUCCESS;
}

/* the object of handle h and a valid key for call (writable: not
 * MPI_INFO_ENV), or NULL with the error reported in *rc */
static struct kmpi_info *info_key_check(const char *call, MPI_Info h, const char *key,
                                        int writable, int *rc)
{
    struct kmpi_info *p = info_check(call, h, rc);

    if (p == NULL)
        return NULL;
    if (writable && h == MPI_INFO_ENV) {
        *rc = kmpi_error(MPI_COMM_WORLD, MPI_ERR_INFO, call, "MPI_INFO_ENV cannot be changed");
        return NULL;
    }
    if ((*rc = key_check(call, key)) != MPI_SUCCESS)
        return NULL;
    return p;
}

static int info_set(struct kmpi_info *p, const char *key, const char *val)
{
    int   i = info_find(p, key);
    char *v = strdup(val), *k = NULL;

    if (v == NULL)
        return -1;
    if (i >= 0) {
        free(p->kv[i].val);
        p->kv[i].val = v;
        return 0;
    }
    if (p->n == p->cap) {
        int                    m = p->cap ? 2 * p->cap : 8;
        struct kmpi_info_pair *t = realloc(p->kv, (size_t)m * sizeof(*t));
        if (t == NULL) {
            free(v);
            return -1;
        }
        p->kv  = t;
        p->cap = m;
    }
    if ((k = strdup(key)) == NULL) {
        free(v);
        return -1;
    }
    p->kv[p->n++] = (struct kmpi_info_pair){ k, v };
    return 0;
}

#pragma weak MPI_Info_create = PMPI_Info_create
int PMPI_Info_create(MPI_Info *info)
{
    static const char call[] = "MPI_Info_create";
    int               rc = kmpi_live(call), h;

    if (rc != MPI_SUCCESS)
        return rc;
    if (info == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "info is NULL");
    if ((h = info_add()) < 0)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "no memory for an info object");
    *info = h;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_set = PMPI_Info_set
int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    static const char call[] = "MPI_Info_set";
    int               rc;
    struct kmpi_info *p = info_key_check(call, info, key, 1, &rc);
    size_t            n;

    if (p == NULL)
        return rc;
    if (value == NULL || (n = strlen(value)) == 0 || n >= MPI_MAX_INFO_VAL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_INFO_VALUE, call, "the value of \"%s\" is %s "
                          "(1 to %d characters)", key, value == NULL ? "NULL"
                          : n == 0 ? "empty" : "too long", MPI_MAX_INFO_VAL - 1);
    if (info_set(p, key, value) != 0)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "no memory for \"%s\"", key);
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_delete = PMPI_Info_delete
int PMPI_Info_delete(MPI_Info info, const char *key)
{
    static const char call[] = "MPI_Info_delete";
    int               rc, i;
    struct kmpi_info *p = info_key_check(call, info, key, 1, &rc);

    if (p == NULL)
        return rc;
    if ((i = info_find(p, key)) < 0)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_INFO_NOKEY, call, "no key \"%s\"", key);
    free(p->kv[i].key);
    free(p->kv[i].val);
    memmove(&p->kv[i], &p->kv[i + 1], (size_t)(p->n - i - 1) * sizeof(*p->kv));
    p->n--;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get = PMPI_Info_get
int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    static const char call[] = "MPI_Info_get";
    int               rc, i;
    struct kmpi_info *p = info_key_check(call, info, key, 0, &rc);

    if (p == NULL)
        return rc;
    if (flag == NULL || valuelen < 0 || (valuelen > 0 && value == NULL))
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "flag or value is NULL, or "
                          "valuelen %d is negative", valuelen);
    if ((i = info_find(p, key)) < 0) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    /* at most valuelen characters and the terminating NUL (MPI-3.1 9.1:
     * value must hold valuelen + 1 characters) */
    size_t n = strlen(p->kv[i].val);
    if (n > (size_t)valuelen)
        n = (size_t)valuelen;
    memcpy(value, p->kv[i].val, n);
    value[n] = '\0';
    *flag = 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_valuelen = PMPI_Info_get_valuelen
int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    static const char call[] = "MPI_Info_get_valuelen";
    int               rc, i;
    struct kmpi_info *p = info_key_check(call, info, key, 0, &rc);

    if (p == NULL)
        return rc;
    if (valuelen == NULL || flag == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "valuelen or flag is NULL");
    *flag = (i = info_find(p, key)) >= 0;
    if (*flag)
        *valuelen = (int)strlen(p->kv[i].val);
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_nkeys = PMPI_Info_get_nkeys
int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    static const char call[] = "MPI_Info_get_nkeys";
    int               rc;
    struct kmpi_info *p = info_check(call, info, &rc);

    if (p == NULL)
        return rc;
    if (nkeys == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "nkeys is NULL");
    *nkeys = p->n;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_nthkey = PMPI_Info_get_nthkey
int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    static const char call[] = "MPI_Info_get_nthkey";
    int               rc;
    struct kmpi_info *p = info_check(call, info, &rc);

    if (p == NULL)
        return rc;
    if (key == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "key is NULL");
    if (n < 0 || n >= p->n)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "n %d is not in 0..%d (the "
                          "object's keys)", n, p->n - 1);
    strcpy(key, p->kv[n].key);   /* shorter than MPI_MAX_INFO_KEY */
    return MPI_SUCCESS;
}

/* a copy of p into a new handle, or -1 (no memory) */
static int info_copy(const struct kmpi_info *p)
{
    int h = info_add();

    for (int i = 0; h >= 0 && i < p->n; i++)
        if (info_set(infos[h], p->kv[i].key, p->kv[i].val) != 0) {
            info_clear(infos[h]);
            free(infos[h]);
            infos[h] = NULL;
            h = -1;
        }
    return h;
}

#pragma weak MPI_Info_dup = PMPI_Info_dup
int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    static const char call[] = "MPI_Info_dup";
    int               rc, h;
    struct kmpi_info *p = info_check(call, info, &rc);

    if (p == NULL)
        return rc;
    if (newinfo == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "newinfo is NULL");
    if ((h = info_copy(p)) < 0)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "no memory for an info object");
    *newinfo = h;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_free = PMPI_Info_free
int PMPI_Info_free(MPI_Info *info)
{
    static const char call[] = "MPI_Info_free";
    int               rc;
    struct kmpi_info *p;

    if (info == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "info is NULL");
    if ((p = info_check(call, *info, &rc)) == NULL)
        return rc;
    if (*info == MPI_INFO_ENV)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_INFO, call, "MPI_INFO_ENV cannot be freed");
    info_clear(p);
    free(p);
    infos[*info] = NULL;
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

void kmpi_info_fini(void)
{
    for (int h = 0; h < ninfos; h++)
        if (infos[h] != NULL) {
            info_clear(infos[h]);
            free(infos[h]);
        }
    free(infos);
    infos  = NULL;
    ninfos = 0;
}

/* ------------------------------------------------------------ communicator hints */

#pragma weak MPI_Comm_set_info = PMPI_Comm_set_info
int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    static const char call[] = "MPI_Comm_set_info";
    int               rc;
    struct kmpi_comm *c;
    struct kmpi_info *p;

    if ((rc = kmpi_live(call)) != MPI_SUCCESS)
        return rc;
    if ((c = kmpi_comm_fast(comm)) == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "%d is no communicator", comm);
    if ((p = info_check(call, info, &rc)) == NULL)
        return rc;
    /* replaces the hints kept (none of them changes what kumi does) */
    int h = info_copy(p);
    if (h < 0)
        return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for the hints");
    if (c->info > MPI_INFO_ENV) {
        MPI_Info old = c->info;
        PMPI_Info_free(&old);
    }
    c->info = h;
    return MPI_SUCCESS;
}

int kmpi_info_used(MPI_Info set, const char *const (*hints)[2], size_t n)
{
    const struct kmpi_info *from = set > MPI_INFO_ENV ? info_at(set) : NULL;
    int                     h    = info_add();

    for (size_t i = 0; h >= 0 && i < n; i++) {
        int         k = from != NULL ? info_find(from, hints[i][0]) : -1;
        const char *v = k >= 0 ? from->kv[k].val : hints[i][1];
        if (v != NULL && info_set(infos[h], hints[i][0], v) != 0) {
            info_clear(infos[h]);
            free(infos[h]);
            infos[h] = NULL;
            h        = -1;
        }
    }
    return h;
}

#pragma weak MPI_Comm_get_info = PMPI_Comm_get_info
int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    static const char call[] = "MPI_Comm_get_info";
    int               rc, h;
    struct kmpi_comm *c;

    if ((rc = kmpi_live(call)) != MPI_SUCCESS)
        return rc;
    if ((c = kmpi_comm_fast(comm)) == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "%d is no communicator", comm);
    if (info_used == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "info_used is NULL");
    static const char *const known[][2] = {   /* no defaults: only as set */
        { "mpi_assert_no_any_tag", NULL }, { "mpi_assert_no_any_source", NULL },
        { "mpi_assert_exact_length", NULL }, { "mpi_assert_allow_overtaking", NULL },
    };
    if ((h = kmpi_info_used(c->info, known, sizeof known / sizeof known[0])) < 0)
        return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for the hints");
    *info_used = h;
    return MPI_SUCCESS;
}

void kmpi_comm_info_free(struct kmpi_comm *c)
{
    if (c->info > MPI_INFO_ENV && info_at(c->info) != NULL) {
        info_clear(infos[c->info]);
        free(infos[c->info]);
        infos[c->info] = NULL;
    }
    c->info = MPI_INFO_NULL;
}

/* ------------------------------------------------------------ split by type */

/* MPI_COMM_TYPE_SHARED: the ranks on my node (kumi_pe_node), ranked by
 * key then comm rank; MPI_UNDEFINED: MPI_COMM_NULL. The info is not read. */
#pragma weak MPI_Comm_split_type = PMPI_Comm_split_type
int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                         MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Comm_split_type";
    int               rc;

    if ((rc = kmpi_live(call)) != MPI_SUCCESS)
        return rc;
    if (kmpi_comm_fast(comm) == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "%d is no communicator", comm);
    if (info != MPI_INFO_NULL && info_at(info) == NULL)
        return kmpi_error(comm, MPI_ERR_INFO, call, "%d is no info object", info);
    if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED)
        return kmpi_error(comm, MPI_ERR_ARG, call, "split_type %d is neither "
                          "MPI_COMM_TYPE_SHARED nor MPI_UNDEFINED", split_type);
    return kmpi_comm_split(call, comm, split_type == MPI_UNDEFINED ? MPI_UNDEFINED
                                       : kumi_pe_node(kumi_rank()), key, newcomm);
}

/* ------------------------------------------------------------ memory, profiling */

/* Ordinary memory: kumi's sends need no registration on shm or tcp. */
#pragma weak MPI_Alloc_mem = PMPI_Alloc_mem
int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    static const char call[] = "MPI_Alloc_mem";
    int               rc;
    void             *p;

    if ((rc = kmpi_live(call)) != MPI_SUCCESS)
        return rc;
    if (size < 0)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "size %lld is negative",
                          (long long)size);
    if (info != MPI_INFO_NULL && info_at(info) == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_INFO, call, "%d is no info object", info);
    if (baseptr == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "baseptr is NULL");
    if ((p = malloc(size > 0 ? (size_t)size : 1)) == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "no memory for %lld bytes",
                          (long long)size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

#pragma weak MPI_Free_mem = PMPI_Free_mem
int PMPI_Free_mem(void *base)
{
    static const char call[] = "MPI_Free_mem";
    int               rc;

    if ((rc = kmpi_live(call)) != MPI_SUCCESS)
        return rc;
    free(base);
    return MPI_SUCCESS;
}

/* No profiling library is attached: every level is accepted and ignored
 * (MPI-3.1 14.2.4). */
#pragma weak MPI_Pcontrol = PMPI_Pcontrol
int PMPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}

/* MPI_Comm_dup, then the hints of info instead of comm's (MPI-3.1 6.4.2) */
#pragma weak MPI_Comm_dup_with_info = PMPI_Comm_dup_with_info
int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Comm_dup_with_info";
    int               rc;

    if ((rc = kmpi_live(call)) != MPI_SUCCESS)
        return rc;
    if (info != MPI_INFO_NULL && info_check(call, info, &rc) == NULL)
        return rc;
    if ((rc = PMPI_Comm_dup(comm, newcomm)) != MPI_SUCCESS)
        return rc;
    struct kmpi_comm *c = kmpi_comm_fast(*newcomm);
    if (c->info > MPI_INFO_ENV) {
        MPI_Info old = c->info;
        PMPI_Info_free(&old);
    }
    c->info = MPI_INFO_NULL;
    return info != MPI_INFO_NULL ? PMPI_Comm_set_info(*newcomm, info) : MPI_SUCCESS;
}
