/*
 * group.c -- process groups (MPI_Comm_group, MPI_Group_*) and
 * MPI_Comm_create.
 *
 * A group is an ordered list of world PEs (kumi ranks). Handles index a
 * table: 0 is MPI_GROUP_NULL, 1 MPI_GROUP_EMPTY (predefined: freeing it
 * only resets the handle); a freed slot is reused. MPI_Comm_create is a
 * MPI_Comm_split of the parent: the group's members get color 0 and their
 * place in the group as key, the others MPI_UNDEFINED.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi_int.h"

struct kmpi_group {
    int  n;
    int *pes;   /* world PEs, in group rank order */
};

static struct kmpi_group  group_empty;
static struct kmpi_group **groups;   /* [handle]; NULL: free */
static int                 ngroups;

static struct kmpi_group *group_at(MPI_Group g)
{
    if (g == MPI_GROUP_EMPTY)
        return &group_empty;
    return g > MPI_GROUP_EMPTY && g < ngroups ? groups[g] : NULL;
}

/* the group of handle g for call, or NULL with the error reported */
static struct kmpi_group *group_check(const char *call, MPI_Group g, const char *what, int *rc)
{
    struct kmpi_group *p;

    if ((*rc = kmpi_live(call)) != MPI_SUCCESS)
        return NULL;
    if ((p = group_at(g)) == NULL)
        *rc = kmpi_error(MPI_COMM_NULL, MPI_ERR_GROUP, call, "%s %d is no group%s", what, g,
                         g == MPI_GROUP_NULL ? " (MPI_GROUP_NULL)" : " (freed?)");
    return p;
}

/* A new group of the n PEs in pes (taken over: freed on failure) into
 * *out; n 0 is MPI_GROUP_EMPTY. */
static int group_add(const char *call, int *pes, int n, MPI_Group *out)
{
    struct kmpi_group *p;
    int                h;

    if (n == 0) {
        free(pes);
        *out = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    for (h = MPI_GROUP_EMPTY + 1; h < ngroups && groups[h] != NULL; h++)
        ;
    if (h >= ngroups) {
        int                 m = ngroups ? 2 * ngroups : 16;
        struct kmpi_group **t = realloc(groups, (size_t)m * sizeof(*t));
        if (t == NULL)
            goto nomem;
        memset(t + ngroups, 0, (size_t)(m - ngroups) * sizeof(*t));
        groups  = t;
        ngroups = m;
    }
    if ((p = malloc(sizeof(*p))) == NULL)
        goto nomem;
    p->n      = n;
    p->pes    = pes;
    groups[h] = p;
    *out      = h;
    return MPI_SUCCESS;
nomem:
    free(pes);
    return kmpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "no memory for a group");
}

/* index of pe in group p, or -1 */
static int group_find(const struct kmpi_group *p, int pe)
{
    for (int i = 0; i < p->n; i++)
        if (p->pes[i] == pe)
            return i;
    return -1;
}

#pragma weak MPI_Comm_group = PMPI_Comm_group
int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    static const char call[] = "MPI_Comm_group";
    int               rc = kmpi_live(call);
    struct kmpi_comm *c;
    int              *pes;

    if (rc != MPI_SUCCESS)
        return rc;
    if ((c = kmpi_comm_fast(comm)) == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "%d is no communicator%s", comm,
                          comm == MPI_COMM_NULL ? " (MPI_COMM_NULL)" : "");
    if (group == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "group is NULL");
    if ((pes = malloc((size_t)c->size * sizeof(int))) == NULL)
        return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for a group");
    for (int i = 0; i < c->size; i++)
        pes[i] = kmpi_local_pe(c, i);
    return group_add(call, pes, c->size, group);
}

#pragma weak MPI_Group_size = PMPI_Group_size
int PMPI_Group_size(MPI_Group group, int *size)
{
    static const char  call[] = "MPI_Group_size";
    int                rc;
    struct kmpi_group *p = group_check(call, group, "group", &rc);

    if (p == NULL)
        return rc;
    if (size == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "size is NULL");
    *size = p->n;
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_rank = PMPI_Group_rank
int PMPI_Group_rank(MPI_Group group, int *rank)
{
    static const char  call[] = "MPI_Group_rank";
    int                rc;
    struct kmpi_group *p = group_check(call, group, "group", &rc);

    if (p == NULL)
        return rc;
    if (rank == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "rank is NULL");
    int i  = group_find(p, kumi_rank());
    *rank = i >= 0 ? i : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/* ranks[0..n-1]: distinct ranks of p; *mark (p->n flags, 1 = listed) */
static int ranks_check(const char *call, const struct kmpi_group *p, int n, const int *ranks,
                       char **mark)
{
    if (n < 0 || n > p->n)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "n %d is not in 0..%d (the group's "
                          "size)", n, p->n);
    if (n > 0 && ranks == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "ranks is NULL");
    if ((*mark = calloc((size_t)p->n + 1, 1)) == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "no memory");
    for (int i = 0; i < n; i++) {
        int r = ranks[i];
        if (r < 0 || r >= p->n || (*mark)[r]) {
            free(*mark);
            return kmpi_error(MPI_COMM_NULL, MPI_ERR_RANK, call, "ranks[%d] = %d is %s", i, r,
                              r < 0 || r >= p->n ? "not a rank of the group" : "listed twice");
        }
        (*mark)[r] = 1;
    }
    return MPI_SUCCESS;
}

static int group_incl(const char *call, struct kmpi_group *p, int n, const int ranks[],
                      MPI_Group *newgroup)
{
    int   rc, *pes;
    char *mark;

    if ((rc = ranks_check(call, p, n, ranks, &mark)) != MPI_SUCCESS)
        return rc;
    free(mark);
    if ((pes = malloc(((size_t)n + 1) * sizeof(int))) == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "no memory for a group");
    for (int i = 0; i < n; i++)
        pes[i] = p->pes[ranks[i]];
    return group_add(call, pes, n, newgroup);
}

static int group_excl(const char *call, struct kmpi_group *p, int n, const int ranks[],
                      MPI_Group *newgroup)
{
    int   rc, *pes, k = 0;
    char *mark;

    if ((rc = ranks_check(call, p, n, ranks, &mark)) != MPI_SUCCESS)
        return rc;
    if ((pes = malloc(((size_t)(p->n - n) + 1) * sizeof(int))) == NULL) {
        free(mark);
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "no memory for a group");
    }
    for (int i = 0; i < p->n; i++)
        if (!mark[i])
            pes[k++] = p->pes[i];
    free(mark);
    return group_add(call, pes, k, newgroup);
}

/* MPI_Group_incl, _excl: the listed ranks kept (in their order) or left out */
static int group_pick(const char *call, MPI_Group group, int n, const int ranks[], int excl,
                      MPI_Group *newgroup)
{
    int                rc;
    struct kmpi_group *p = group_check(call, group, "group", &rc);

    if (p == NULL)
        return rc;
    if (newgroup == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "newgroup is NULL");
    return excl ? group_excl(call, p, n, ranks, newgroup) : group_incl(call, p, n, ranks, newgroup);
}

#pragma weak MPI_Group_incl = PMPI_Group_incl
int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return group_pick("MPI_Group_incl", group, n, ranks, 0, newgroup);
}

#pragma weak MPI_Group_excl = PMPI_Group_excl
int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return group_pick("MPI_Group_excl", group, n, ranks, 1, newgroup);
}

/* The ranks of n (first, last, stride) triplets, in order, into a new
 * array (*out, *count): a stride of 0 or a rank outside the group is
 * MPI_ERR_RANK / MPI_ERR_ARG (duplicates are left to ranks_check). */
static int ranges_expand(const char *call, const struct kmpi_group *p, int n, int ranges[][3],
                         int **out, int *count)
{
    long long total = 0;
    int      *r, k = 0;

    if (n < 0)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "n %d is negative", n);
    if (n > 0 && ranges == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "ranges is NULL");
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0)
            return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "ranges[%d] has stride 0", i);
        if (first < 0 || first >= p->n || last < 0 || last >= p->n)
            return kmpi_error(MPI_COMM_NULL, MPI_ERR_RANK, call, "ranges[%d] = (%d, %d, %d) "
                              "leaves the group (size %d)", i, first, last, stride, p->n);
        if ((stride > 0 && last >= first) || (stride < 0 && last <= first))
            total += ((long long)last - first) / stride + 1;
        if (total > p->n)
            return kmpi_error(MPI_COMM_NULL, MPI_ERR_RANK, call, "ranges[0..%d] name more "
                              "ranks than the group has (%d): some rank is listed twice", i,
                              p->n);
    }
    if ((r = malloc(((size_t)total + 1) * sizeof(int))) == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "no memory for %lld ranks",
                          total);
    for (int i = 0; i < n && k < total; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        for (long long v = first; k < total && (stride > 0 ? v <= last : v >= last); v += stride)
            r[k++] = (int)v;
    }
    *out   = r;
    *count = k;
    return MPI_SUCCESS;
}

/* MPI_Group_range_incl, _range_excl: the ranges' ranks kept or left out */
static int group_range(const char *call, MPI_Group group, int n, int ranges[][3], int excl,
                       MPI_Group *newgroup)
{
    int                rc, *ranks = NULL, k = 0;
    struct kmpi_group *p = group_check(call, group, "group", &rc);

    if (p == NULL)
        return rc;
    if (newgroup == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "newgroup is NULL");
    if ((rc = ranges_expand(call, p, n, ranges, &ranks, &k)) != MPI_SUCCESS)
        return rc;
    rc = excl ? group_excl(call, p, k, ranks, newgroup) : group_incl(call, p, k, ranks, newgroup);
    free(ranks);
    return rc;
}

#pragma weak MPI_Group_range_incl = PMPI_Group_range_incl
int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return group_range("MPI_Group_range_incl", group, n, ranges, 0, newgroup);
}

#pragma weak MPI_Group_range_excl = PMPI_Group_range_excl
int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return group_range("MPI_Group_range_excl", group, n, ranges, 1, newgroup);
}

enum set_op { SET_UNION, SET_INTERSECTION, SET_DIFFERENCE };

/* MPI-3.1 6.3.2: union is group1's PEs then group2's not in group1 (in
 * group2's order); intersection and difference keep group1's order. */
static int group_set(const char *call, MPI_Group group1, MPI_Group group2, enum set_op op,
                     MPI_Group *newgroup)
{
    int                rc, *pes, k = 0;
    struct kmpi_group *a = group_check(call, group1, "group1", &rc), *b;

    if (a == NULL)
        return rc;
    if ((b = group_check(call, group2, "group2", &rc)) == NULL)
        return rc;
    if (newgroup == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "newgroup is NULL");
    if ((pes = malloc(((size_t)a->n + (size_t)b->n + 1) * sizeof(int))) == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_NO_MEM, call, "no memory for a group");
    for (int i = 0; i < a->n; i++) {
        int in_b = group_find(b, a->pes[i]) >= 0;
        if (op == SET_UNION || (op == SET_INTERSECTION) == in_b)
            pes[k++] = a->pes[i];
    }
    for (int i = 0; op == SET_UNION && i < b->n; i++)
        if (group_find(a, b->pes[i]) < 0)
            pes[k++] = b->pes[i];
    return group_add(call, pes, k, newgroup);
}

#pragma weak MPI_Group_union = PMPI_Group_union
int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return group_set("MPI_Group_union", group1, group2, SET_UNION, newgroup);
}

#pragma weak MPI_Group_intersection = PMPI_Group_intersection
int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return group_set("MPI_Group_intersection", group1, group2, SET_INTERSECTION, newgroup);
}

#pragma weak MPI_Group_difference = PMPI_Group_difference
int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return group_set("MPI_Group_difference", group1, group2, SET_DIFFERENCE, newgroup);
}

#pragma weak MPI_Group_translate_ranks = PMPI_Group_translate_ranks
int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[])
{
    static const char  call[] = "MPI_Group_translate_ranks";
    int                rc;
    struct kmpi_group *a = group_check(call, group1, "group1", &rc), *b;

    if (a == NULL)
        return rc;
    if ((b = group_check(call, group2, "group2", &rc)) == NULL)
        return rc;
    if (n < 0)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "n %d is negative", n);
    if (n > 0 && (ranks1 == NULL || ranks2 == NULL))
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "%s is NULL",
                          ranks1 == NULL ? "ranks1" : "ranks2");
    for (int i = 0; i < n; i++)
        if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= a->n))
            return kmpi_error(MPI_COMM_NULL, MPI_ERR_RANK, call, "ranks1[%d] = %d is not a "
                              "rank of group1 (size %d)", i, ranks1[i], a->n);
    for (int i = 0; i < n; i++) {
        if (ranks1[i] == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
            continue;
        }
        int j     = group_find(b, a->pes[ranks1[i]]);
        ranks2[i] = j >= 0 ? j : MPI_UNDEFINED;
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_compare = PMPI_Group_compare
int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    static const char  call[] = "MPI_Group_compare";
    int                rc;
    struct kmpi_group *a = group_check(call, group1, "group1", &rc), *b;

    if (a == NULL)
        return rc;
    if ((b = group_check(call, group2, "group2", &rc)) == NULL)
        return rc;
    if (result == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "result is NULL");
    if (a->n != b->n) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    int ident = 1, similar = 1;
    for (int i = 0; i < a->n && similar; i++)
        if (a->pes[i] != b->pes[i]) {
            ident   = 0;
            similar = group_find(b, a->pes[i]) >= 0;   /* members are distinct */
        }
    *result = ident ? MPI_IDENT : similar ? MPI_SIMILAR : MPI_UNEQUAL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_free = PMPI_Group_free
int PMPI_Group_free(MPI_Group *group)
{
    static const char call[] = "MPI_Group_free";
    int               rc = kmpi_live(call);

    if (rc != MPI_SUCCESS)
        return rc;
    if (group == NULL)
        return kmpi_error(MPI_COMM_NULL, MPI_ERR_ARG, call, "group is NULL");
    if (group_check(call, *group, "group", &rc) == NULL)
        return rc;
    if (*group != MPI_GROUP_EMPTY) {
        free(groups[*group]->pes);
        free(groups[*group]);
        groups[*group] = NULL;
    }
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}

int kmpi_group_pes(MPI_Group g, const int **pes)
{
    struct kmpi_group *p = group_at(g);

    if (p == NULL)
        return -1;
    *pes = p->pes;
    return p->n;
}

int kmpi_group_new(const char *call, int *pes, int n, MPI_Group *out)
{
    return group_add(call, pes, n, out);
}

#pragma weak MPI_Comm_create = PMPI_Comm_create
int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    static const char  call[] = "MPI_Comm_create";
    int                rc = kmpi_live(call);
    struct kmpi_comm  *c;
    struct kmpi_group *p;

    if (rc != MPI_SUCCESS)
        return rc;
    if ((c = kmpi_comm_fast(comm)) == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "%d is no communicator%s", comm,
                          comm == MPI_COMM_NULL ? " (MPI_COMM_NULL)" : "");
    if ((p = group_at(group)) == NULL)
        return kmpi_error(comm, MPI_ERR_GROUP, call, "%d is no group%s", group,
                          group == MPI_GROUP_NULL ? " (MPI_GROUP_NULL)" : " (freed?)");
    if (newcomm == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "newcomm is NULL");
    /* every member of the group must be one of comm's */
    for (int i = 0; i < p->n; i++) {
        int r;
        for (r = 0; r < c->size && kmpi_local_pe(c, r) != p->pes[i]; r++)
            ;
        if (r == c->size)
            return kmpi_error(comm, MPI_ERR_GROUP, call, "group rank %d (PE %d) is not in the "
                              "communicator%s", i, p->pes[i], c->inter ? "'s local group" : "");
    }
    /* processes may pass different, disjoint groups (MPI-3.1 6.4.2, an
     * intracommunicator): each group is one split color, the communicator
     * rank of its first member, which all its members name alike; an
     * intercommunicator's sides pair up under one color */
    int key = group_find(p, kumi_rank()), color = 0;
    if (key >= 0 && !c->inter)
        for (color = 0; color < c->size && kmpi_local_pe(c, color) != p->pes[0]; color++)
            ;
    return PMPI_Comm_split(comm, key >= 0 ? color : MPI_UNDEFINED, key, newcomm);
}
