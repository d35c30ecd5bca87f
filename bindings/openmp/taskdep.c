/*
 * taskdep.c -- task dependences: depend(in | out | inout | mutexinoutset |
 * inoutset) and omp_all_memory on tasks (deferred: a task starts once its
 * predecessors have finished, on any PE of the team), on taskwait and on
 * task if(0) (the encountering task waits for the predecessors).
 *
 * Dependences only order siblings (children of one task), and a task runs
 * on one PE from its start to its end, so everything about one set of
 * siblings has one owner: the PE running their parent.
 *  - The owner keeps, per frame (task_int.h), a private table from
 *    addresses to the last group of sibling tasks that named them: one
 *    out/inout/mutexinoutset task, or a group of in tasks, or of inoutset
 *    tasks, with the group before it (what a new member of the group
 *    depends on).
 *  - Every deferred dependent task has a node in its owner's pool (the
 *    owner's symmetric scratch, under a lock word driven by kumi atomics):
 *    predecessors left, its successors (node numbers: all on the same PE),
 *    and how many events its completion still needs (its end; for detach,
 *    also omp_fulfill_event).
 *  - The PE where a task completes (any PE) locks the owner's pool, marks
 *    the node done and counts down each successor; a successor that reaches
 *    0 goes to that PE's own queue (task.c says why that is safe).
 * A node stays while the owner's table refers to it (the owner drops done
 * nodes from its tables when the pool runs short, and the whole table of a
 * frame whose children have all finished). When the pool cannot hold a new
 * task's node and edges, the task is run at once, after its predecessors
 * (as an undeferred task): a throttle, never an error.
 *
 * mutexinoutset is ordered like inout: its tasks then never run at the
 * same time, in creation order (one of the orders OpenMP allows).
 */
#include <stdlib.h>
#include <string.h>

#include "omp_libc.h"
#include "task_int.h"

#define DEP_NODES 4096   /* nodes per PE (dependent tasks alive, and successor lists) */
#define DEP_SUCC  8      /* successors per node; more in extension nodes             */

enum { NODE_FREE, NODE_LIVE, NODE_DONE, NODE_EXT };

struct dep_node {
    uint32_t npred;          /* predecessors not finished (+1 while being added)   */
    uint32_t hold;           /* events its completion still needs                  */
    uint32_t refs;           /* references from the owner's tables                 */
    uint32_t nsucc;          /* successors in succ[]                               */
    uint32_t more;           /* extension with more successors, or the next free
                                node (index + 1); 0: none                          */
    uint32_t state;          /* NODE_*                                             */
    uint64_t task;           /* the task (kmp_task_t *)                            */
    uint32_t succ[DEP_SUCC]; /* successors' nodes (index + 1)                      */
};
_Static_assert(sizeof(struct dep_node) == 64, "one node per cache line");

struct dep_pool {            /* per PE, symmetric */
    uint64_t        lock;
    uint64_t        free_head;   /* first free node (index + 1), linked by .more */
    uint64_t        nfree;
    uint64_t        pad_[5];
    struct dep_node node[DEP_NODES];
};

static struct dep_pool *pool;

/* kmp_depend_info of the LLVM OpenMP ABI */
struct kmp_dep {
    intptr_t base_addr;
    size_t   len;
    uint8_t  flags;   /* in 1, out 2, mutexinoutset 4, inoutset 8, omp_all_memory 0x80 */
};
enum { DEP_NONE, DEP_IN, DEP_SET, DEP_OUT, DEP_ALL };

/* ------------------------------------------------ the owner's tables */
struct dep_vec {
    uint32_t *v;
    uint32_t  n, cap;
};
struct dep_ent {
    uintptr_t      addr;   /* 0: empty slot */
    int            type;   /* of the last group (DEP_IN, DEP_SET, DEP_OUT) */
    struct dep_vec cur, prev;
};
struct dep_table {
    struct dep_ent *e;
    size_t          cap, used;
    uint32_t        all;   /* the last omp_all_memory task's node, 0: none */
};
static struct dep_table tables[KUMI_OMP_TASK_DEPTH];

/* ------------------------------------------------------- pool access */
/* Under pe's pool lock: copy a node (or word) of pe's pool in or out
 * (directly when pe's memory is mapped here). */
static void pool_rd(int pe, void *dst, const void *sym, size_t n)
{
    const void *p = pe == kumi_omp_th.pe ? sym : kumi_ptr(sym, pe);
    if (p != NULL)
        memcpy(dst, p, n);
    else if (kumi_get(dst, sym, n, pe) != KUMI_OK)
        kumi_global_exit(1);   /* the job is ending (reported by kumi) */
}

static void pool_wr(int pe, void *sym, const void *src, size_t n)
{
    void *p = pe == kumi_omp_th.pe ? sym : kumi_ptr(sym, pe);
    if (p != NULL)
        memcpy(p, src, n);
    else if (kumi_put(sym, src, n, pe) != KUMI_OK)
        kumi_global_exit(1);
}

static void pool_lock(int pe)
{
    kumi_omp_w_lock(&pool->lock, pe);
}

static void pool_unlock(int pe)
{
    /* what was written under the lock is visible before it is free */
    if (pe != kumi_omp_th.pe && kumi_ptr(pool, pe) == NULL && kumi_quiet() != KUMI_OK)
        kumi_global_exit(1);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    kumi_omp_w_unlock(&pool->lock, pe);
}

static void node_rd(int pe, uint32_t id, struct dep_node *n)
{
    pool_rd(pe, n, &pool->node[id - 1], sizeof *n);
}

static void node_wr(int pe, uint32_t id, const struct dep_node *n)
{
    pool_wr(pe, &pool->node[id - 1], n, sizeof *n);
}

/* pe's pool, locked: put node id back on the free list */
static void node_free(int pe, uint32_t id)
{
    uint64_t        w[2];   /* free_head, nfree */
    struct dep_node n;
    pool_rd(pe, w, &pool->free_head, sizeof w);
    memset(&n, 0, sizeof n);
    n.state = NODE_FREE;
    n.more  = (uint32_t)w[0];
    node_wr(pe, id, &n);
    w[0] = id;
    w[1]++;
    pool_wr(pe, &pool->free_head, w, sizeof w);
}

/* own pool, locked */
static uint32_t node_alloc(int state)
{
    uint32_t id = (uint32_t)pool->free_head;
    if (id == 0)
        return 0;
    struct dep_node *n = &pool->node[id - 1];
    pool->free_head    = n->more;
    pool->nfree--;
    memset(n, 0, sizeof *n);
    n->state = (uint32_t)state;
    return id;
}

/* own pool, locked: the tables let go of node id */
static void node_unref(uint32_t id)
{
    struct dep_node *n = &pool->node[id - 1];
    if (--n->refs == 0 && n->state == NODE_DONE)
        node_free(kumi_omp_th.pe, id);
}

void kumi_omp_dep_init(void)
{
    pool = kumi_omp_sym_alloc(sizeof(*pool));
    for (uint32_t i = 0; i < DEP_NODES; i++)
        pool->node[i].more = i + 2 <= DEP_NODES ? i + 2 : 0;
    pool->free_head = 1;
    pool->nfree     = DEP_NODES;
}

/* ----------------------------------------------------------- tables */

static void vec_push(struct dep_vec *v, uint32_t id)
{
    if (v->n == v->cap) {
        uint32_t  cap = v->cap ? v->cap * 2 : 4;
        uint32_t *nv  = realloc(v->v, cap * sizeof *nv);
        if (nv == NULL)
            kumi_omp_fatal("__kmpc_omp_task_with_deps", "out of memory");
        v->v   = nv;
        v->cap = cap;
    }
    v->v[v->n++] = id;
    pool->node[id - 1].refs++;
}

static void vec_drop(struct dep_vec *v)
{
    for (uint32_t i = 0; i < v->n; i++)
        node_unref(v->v[i]);
    v->n = 0;
}

/* own pool, locked: forget the done nodes of v */
static void vec_prune(struct dep_vec *v)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < v->n; i++) {
        if (pool->node[v->v[i] - 1].state == NODE_DONE)
            node_unref(v->v[i]);
        else
            v->v[k++] = v->v[i];
    }
    v->n = k;
}

static struct dep_ent *table_find(struct dep_table *t, uintptr_t addr, int insert)
{
    if (insert && (t->used + 1) * 2 > t->cap) {
        size_t          cap = t->cap ? t->cap * 2 : 64;
        struct dep_ent *ne  = calloc(cap, sizeof *ne);
        if (ne == NULL)
            kumi_omp_fatal("__kmpc_omp_task_with_deps", "out of memory");
        for (size_t i = 0; i < t->cap; i++) {
            if (t->e[i].addr == 0)
                continue;
            size_t h = (t->e[i].addr >> 3) * 0x9e3779b97f4a7c15ull >> 7;
            while (ne[h & (cap - 1)].addr != 0)
                h++;
            ne[h & (cap - 1)] = t->e[i];
        }
        free(t->e);
        t->e   = ne;
        t->cap = cap;
    }
    if (t->cap == 0)
        return NULL;
    for (size_t h = (addr >> 3) * 0x9e3779b97f4a7c15ull >> 7;; h++) {
        struct dep_ent *e = &t->e[h & (t->cap - 1)];
        if (e->addr == addr)
            return e;
        if (e->addr == 0) {
            if (!insert)
                return NULL;
            memset(e, 0, sizeof *e);
            e->addr = addr;
            t->used++;
            return e;
        }
    }
}

/* own pool, locked */
static void table_clear(struct dep_table *t)
{
    for (size_t i = 0; i < t->cap && t->used > 0; i++) {
        struct dep_ent *e = &t->e[i];
        if (e->addr == 0)
            continue;
        vec_drop(&e->cur);
        vec_drop(&e->prev);
        free(e->cur.v);
        free(e->prev.v);
        memset(e, 0, sizeof *e);
        t->used--;
    }
    if (t->all != 0)
        node_unref(t->all);
    t->all = 0;
}

/* own pool, locked: drop every done node from every frame's table */
static void tables_prune(void)
{
    for (int d = 0; d < KUMI_OMP_TASK_DEPTH; d++) {
        struct dep_table *t = &tables[d];
        for (size_t i = 0; i < t->cap && t->used > 0; i++) {
            if (t->e[i].addr != 0) {
                vec_prune(&t->e[i].cur);
                vec_prune(&t->e[i].prev);
            }
        }
        if (t->all != 0 && pool->node[t->all - 1].state == NODE_DONE) {
            node_unref(t->all);
            t->all = 0;
        }
    }
}

void kumi_omp_dep_frame_clear(int depth)
{
    struct dep_table *t = &tables[depth];
    if (pool == NULL || (t->used == 0 && t->all == 0))
        return;
    pool_lock(kumi_omp_th.pe);
    table_clear(t);
    pool_unlock(kumi_omp_th.pe);
}

/* ------------------------------------------------- reading the clauses */

static int dep_type(uint8_t flags)
{
    if (flags & 0x80)
        return DEP_ALL;
    if (flags & (2 | 4))
        return DEP_OUT;   /* out, inout, mutexinoutset */
    if (flags & 8)
        return DEP_SET;
    return DEP_IN;
}

struct dep_list {
    struct { uintptr_t addr; int type; } *d;
    int n;
};

/* The clauses as one list, an address once (in and out on the same
 * address make it out); omp_all_memory as type DEP_ALL. */
static void deps_read(struct dep_list *l, int32_t ndeps, const void *deps, int32_t nna,
                      const void *noalias)
{
    int total = (ndeps > 0 ? ndeps : 0) + (nna > 0 ? nna : 0);
    l->n      = 0;
    l->d      = total ? malloc((size_t)total * sizeof *l->d) : NULL;
    if (total && l->d == NULL)
        kumi_omp_fatal("__kmpc_omp_task_with_deps", "out of memory");
    for (int i = 0; i < total; i++) {
        const struct kmp_dep *src = i < ndeps ? (const struct kmp_dep *)deps + i
                                              : (const struct kmp_dep *)noalias + (i - ndeps);
        struct kmp_dep dp;
        if (kumi_dsm_is_shared(src)) {
            if (kumi_dsm_read(&dp, src, sizeof dp) != KUMI_OK)
                kumi_global_exit(1);
        } else {
            memcpy(&dp, src, sizeof dp);
        }
        /* omp_all_memory: the flag, or (an older encoding) address -1 */
        int type = dp.base_addr == (intptr_t)-1 ? DEP_ALL : dep_type(dp.flags);
        int j    = 0;
        if (type != DEP_ALL)
            while (j < l->n && l->d[j].addr != (uintptr_t)dp.base_addr)
                j++;
        else
            j = l->n;
        if (j < l->n) {
            if (l->d[j].type != type)
                l->d[j].type = DEP_OUT;
            continue;
        }
        l->d[l->n].addr = (uintptr_t)dp.base_addr;
        l->d[l->n].type = type;
        l->n++;
    }
}

/* The predecessors a new sibling with these dependences has, in the
 * current frame's table (own pool, locked): calls f(id, arg) for each
 * (a node may come more than once). */
static void preds_each(const struct dep_list *l, void (*f)(uint32_t, void *), void *arg)
{
    struct dep_table *t = &tables[kumi_omp_task_depth()];
    if (t->all != 0)
        f(t->all, arg);
    for (int i = 0; i < l->n; i++) {
        if (l->d[i].type == DEP_ALL) {
            for (size_t k = 0; k < t->cap; k++)
                if (t->e[k].addr != 0)
                    for (uint32_t j = 0; j < t->e[k].cur.n; j++)
                        f(t->e[k].cur.v[j], arg);
            continue;
        }
        struct dep_ent *e = table_find(t, l->d[i].addr, 0);
        if (e == NULL)
            continue;
        const struct dep_vec *v =
            (l->d[i].type == DEP_IN || l->d[i].type == DEP_SET) && e->type == l->d[i].type
                ? &e->prev : &e->cur;
        for (uint32_t j = 0; j < v->n; j++)
            f(v->v[j], arg);
    }
}

static void count_pred(uint32_t id, void *arg)
{
    (void)id;
    ++*(size_t *)arg;
}

/* own pool, locked: pred -> succ (no edge from a finished task; a
 * successor once per predecessor: its edges are added one after another) */
static void edge_add(uint32_t pred, void *arg)
{
    uint32_t         succ = *(uint32_t *)arg;
    struct dep_node *p    = &pool->node[pred - 1];
    if (pred == succ || p->state != NODE_LIVE)
        return;
    while (p->more != 0)
        p = &pool->node[p->more - 1];
    if (p->nsucc > 0 && p->succ[p->nsucc - 1] == succ)
        return;
    if (p->nsucc == DEP_SUCC) {
        uint32_t ext = node_alloc(NODE_EXT);
        if (ext == 0)   /* counted for in kumi_omp_dep_add: cannot happen */
            kumi_omp_fatal("__kmpc_omp_task_with_deps", "dependence pool exhausted");
        p->more = ext;
        p       = &pool->node[ext - 1];
    }
    p->succ[p->nsucc++] = succ;
    pool->node[succ - 1].npred++;
}

/* own pool, locked: the table after the new sibling `id` */
static void table_update(const struct dep_list *l, uint32_t id)
{
    struct dep_table *t = &tables[kumi_omp_task_depth()];
    for (int i = 0; i < l->n; i++) {
        int type = l->d[i].type;
        if (type == DEP_ALL) {
            table_clear(t);
            t->all = id;
            pool->node[id - 1].refs++;
            continue;
        }
        struct dep_ent *e = table_find(t, l->d[i].addr, 1);
        if (type != DEP_OUT && e->type == type) {
            vec_push(&e->cur, id);   /* joins the group */
            continue;
        }
        vec_drop(&e->prev);
        if (type == DEP_OUT) {
            vec_drop(&e->cur);   /* an out task is never joined: no group before it needed */
        } else {
            struct dep_vec v = e->prev;
            e->prev          = e->cur;
            e->cur           = v;
        }
        vec_push(&e->cur, id);
        e->type = type;
    }
}

/* ------------------------------------------------------ entry points */

uint32_t kumi_omp_dep_node_new(kmp_task_t *t, uint32_t hold)
{
    int      me = kumi_omp_th.pe;
    uint32_t id;
    unsigned spins = 0;
    for (;;) {
        pool_lock(me);
        id = node_alloc(NODE_LIVE);
        if (id == 0) {
            tables_prune();
            id = node_alloc(NODE_LIVE);
        }
        if (id != 0) {
            pool->node[id - 1].hold = hold;
            pool->node[id - 1].task = (uint64_t)(uintptr_t)t;
        }
        pool_unlock(me);
        if (id != 0)
            return id;
        kumi_omp_task_wait_step(&spins);   /* full of running tasks: let some finish */
    }
}

int kumi_omp_dep_add(kmp_task_t *t, struct kumi_omp_task_hdr *hd, int32_t ndeps,
                     const void *deps, int32_t ndeps_noalias, const void *noalias)
{
    int             me = kumi_omp_th.pe;
    struct dep_list l;
    size_t          need = 1;
    int             edges;

    deps_read(&l, ndeps, deps, ndeps_noalias, noalias);
    /* room for a node and, at worst, an extension per edge (only this
     * PE takes nodes from its pool: what is free now stays free) */
    pool_lock(me);
    preds_each(&l, count_pred, &need);
    if (pool->nfree < need) {
        tables_prune();
        need = 1;
        preds_each(&l, count_pred, &need);
    }
    edges = pool->nfree >= need;
    if (!edges && hd->dep_node == 0) {
        /* no room: run it now, after its predecessors (a throttle) */
        pool_unlock(me);
        free(l.d);
        kumi_omp_dep_wait(ndeps, deps, ndeps_noalias, noalias);
        kumi_omp_task_run(t);
        return KUMI_OMP_DEP_RAN;
    }
    if (hd->dep_node == 0) {
        uint32_t id             = node_alloc(NODE_LIVE);
        pool->node[id - 1].hold = 1;
        pool->node[id - 1].task = (uint64_t)(uintptr_t)t;
        hd->dep_node            = id;
    } else {
        edges = pool->nfree + 1 >= need;   /* a detached task's node exists */
    }
    pool->node[hd->dep_node - 1].npred = 1;   /* held while the edges go in */
    pool_unlock(me);

    /* counted before its edges are published: from then on a predecessor
     * finishing on another PE may queue it */
    kumi_omp_task_count(t, hd);

    uint32_t id = hd->dep_node;
    if (!edges)   /* no room for a detached task's edges: wait for them here */
        kumi_omp_dep_wait(ndeps, deps, ndeps_noalias, noalias);
    pool_lock(me);
    if (edges)
        preds_each(&l, edge_add, &id);
    table_update(&l, id);
    int ready = --pool->node[id - 1].npred == 0;
    pool_unlock(me);
    free(l.d);
    return ready ? KUMI_OMP_DEP_READY : KUMI_OMP_DEP_BLOCKED;
}

/* Completion of node (pe, id) by one event: 1 when it completed (its
 * successors were released), with *task set. */
static int node_finish(const char *call, int pe, uint32_t id, kmp_task_t **task, int event)
{
    /* released tasks, queued once the lock is free (queueing may run one
     * here, which may finish nodes: the list is this call's own) */
    uint64_t        local[16], *ready = local;
    size_t          nready = 0, ready_cap = 16;
    struct dep_node n, s;

    pool_lock(pe);
    node_rd(pe, id, &n);
    if (n.state != NODE_LIVE || n.hold == 0)
        kumi_omp_fatal(call, "the task of node %u on PE %d has completed already", id, pe);
    if (--n.hold > 0) {
        node_wr(pe, id, &n);
        pool_unlock(pe);
        return 0;
    }
    *task            = (kmp_task_t *)(uintptr_t)n.task;
    struct dep_node c = n;
    uint32_t        cid = id;
    for (;;) {
        for (uint32_t i = 0; i < c.nsucc; i++) {
            node_rd(pe, c.succ[i], &s);
            if (--s.npred == 0) {
                if (nready == ready_cap) {
                    size_t    cap = ready_cap * 2;
                    uint64_t *nr  = malloc(cap * sizeof *nr);
                    if (nr == NULL)
                        kumi_omp_fatal(call, "out of memory");
                    memcpy(nr, ready, nready * sizeof *nr);
                    if (ready != local)
                        free(ready);
                    ready     = nr;
                    ready_cap = cap;
                }
                ready[nready++] = s.task;
            }
            node_wr(pe, c.succ[i], &s);
        }
        uint32_t next = c.more;
        if (cid != id)
            node_free(pe, cid);   /* an extension */
        if (next == 0)
            break;
        cid = next;
        node_rd(pe, cid, &c);
    }
    n.state = NODE_DONE;
    n.nsucc = 0;
    n.more  = 0;
    if (n.refs == 0)
        node_free(pe, id);
    else
        node_wr(pe, id, &n);
    pool_unlock(pe);
    for (size_t i = 0; i < nready; i++) {
        if (event)
            kumi_omp_task_ready_event((kmp_task_t *)(uintptr_t)ready[i]);
        else
            kumi_omp_task_ready((kmp_task_t *)(uintptr_t)ready[i]);
    }
    if (ready != local)
        free(ready);
    return 1;
}

int kumi_omp_dep_finish(int pe, uint32_t node)
{
    kmp_task_t *t;
    return node_finish("__kmpc_omp_task", pe, node, &t, 0);
}

kmp_task_t *kumi_omp_dep_finish_event(int pe, uint32_t node)
{
    kmp_task_t *t = NULL;
    return node_finish("omp_fulfill_event", pe, node, &t, 1) ? t : NULL;
}

struct dep_hold {
    uint32_t *v;
    size_t    n, cap;
};

static void hold_pred(uint32_t id, void *arg)
{
    struct dep_hold *h = arg;
    if (pool->node[id - 1].state != NODE_LIVE)
        return;
    if (h->n == h->cap) {
        size_t    cap = h->cap ? h->cap * 2 : 16;
        uint32_t *nv  = realloc(h->v, cap * sizeof *nv);
        if (nv == NULL)
            kumi_omp_fatal("__kmpc_omp_wait_deps", "out of memory");
        h->v   = nv;
        h->cap = cap;
    }
    h->v[h->n++] = id;
    pool->node[id - 1].refs++;   /* stays while waited for */
}

static void live_pred(uint32_t id, void *arg)
{
    if (pool->node[id - 1].state == NODE_LIVE)
        *(int *)arg = 1;
}

int kumi_omp_dep_pending(int32_t ndeps, const void *deps, int32_t ndeps_noalias,
                         const void *noalias)
{
    int             me = kumi_omp_th.pe, live = 0;
    struct dep_list l;
    struct dep_table *t = &tables[kumi_omp_task_depth()];

    if (t->used == 0 && t->all == 0)
        return 0;
    deps_read(&l, ndeps, deps, ndeps_noalias, noalias);
    pool_lock(me);
    preds_each(&l, live_pred, &live);
    pool_unlock(me);
    free(l.d);
    return live;
}

void kumi_omp_dep_wait(int32_t ndeps, const void *deps, int32_t ndeps_noalias,
                       const void *noalias)
{
    int             me = kumi_omp_th.pe;
    struct dep_list l;
    struct dep_hold h = { NULL, 0, 0 };
    unsigned        spins = 0;

    deps_read(&l, ndeps, deps, ndeps_noalias, noalias);
    pool_lock(me);
    preds_each(&l, hold_pred, &h);
    pool_unlock(me);
    for (size_t i = 0; i < h.n;) {
        pool_lock(me);
        while (i < h.n && pool->node[h.v[i] - 1].state == NODE_DONE)
            i++;
        pool_unlock(me);
        if (i < h.n)
            kumi_omp_task_wait_step(&spins);   /* the predecessors are my children */
    }
    pool_lock(me);
    for (size_t i = 0; i < h.n; i++)
        node_unref(h.v[i]);
    pool_unlock(me);
    free(h.v);
    free(l.d);
}

void __kmpc_omp_wait_deps(kumi_omp_ident_t *loc, int32_t gtid, int32_t ndeps, void *deps,
                          int32_t ndeps_noalias, void *noalias)
{
    (void)loc;
    (void)gtid;
    if (ndeps + ndeps_noalias > 0)
        kumi_omp_dep_wait(ndeps, deps, ndeps_noalias, noalias);
}
