/*
 * tree.c -- linked structures: an AVL tree under random inserts, deletes
 * and lookups (recursive rebalancing, an in-order walk and a full
 * verification of order, heights and balance), then the "binary trees"
 * pattern (build complete trees, walk them, free them), then a sorted
 * doubly linked list threaded through the AVL's nodes and walked both
 * ways. Plain C for bench/ptrchase/ (README.md); no kumi calls.
 *
 * Answers are checked against a direct-mapped reference array and closed
 * forms.
 *
 *   tree [SCALE]     SCALE (default 3) repeats the work
 * Prints checksums, "time S" (the timed part) and "OK", or the first
 * mismatch on stderr and exits 1.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PTRCHASE_PROG "tree"
#include "ptrchase.h"

/* --------------------------------------------------------------- AVL */
struct avl {
    struct avl *l, *r;
    struct avl *prev, *next;    /* the list pass threads these */
    uint64_t key, val;
    int h;
};

static int height(const struct avl *n) { return n ? n->h : 0; }

static void fix_height(struct avl *n)
{
    int a = height(n->l), b = height(n->r);
    n->h = 1 + (a > b ? a : b);
}

static struct avl *rot_right(struct avl *n)
{
    struct avl *l = n->l;
    n->l = l->r;
    l->r = n;
    fix_height(n);
    fix_height(l);
    return l;
}

static struct avl *rot_left(struct avl *n)
{
    struct avl *r = n->r;
    n->r = r->l;
    r->l = n;
    fix_height(n);
    fix_height(r);
    return r;
}

static struct avl *balance(struct avl *n)
{
    fix_height(n);
    int d = height(n->l) - height(n->r);
    if (d > 1) {
        if (height(n->l->l) < height(n->l->r))
            n->l = rot_left(n->l);
        return rot_right(n);
    }
    if (d < -1) {
        if (height(n->r->r) < height(n->r->l))
            n->r = rot_right(n->r);
        return rot_left(n);
    }
    return n;
}

/* Inserts or updates; *added = 1 when the key was new. */
static struct avl *avl_put(struct avl *n, uint64_t key, uint64_t val, int *added)
{
    if (!n) {
        n = xmalloc(sizeof *n);
        n->l = n->r = n->prev = n->next = NULL;
        n->key = key;
        n->val = val;
        n->h = 1;
        *added = 1;
        return n;
    }
    if (key < n->key)
        n->l = avl_put(n->l, key, val, added);
    else if (key > n->key)
        n->r = avl_put(n->r, key, val, added);
    else {
        n->val = val;
        return n;
    }
    return balance(n);
}

static struct avl *avl_pop_min(struct avl *n, struct avl **min)
{
    if (!n->l) {
        *min = n;
        return n->r;
    }
    n->l = avl_pop_min(n->l, min);
    return balance(n);
}

/* Deletes key; *val = its value, 0 when absent. */
static struct avl *avl_del(struct avl *n, uint64_t key, uint64_t *val)
{
    if (!n)
        return NULL;
    if (key < n->key)
        n->l = avl_del(n->l, key, val);
    else if (key > n->key)
        n->r = avl_del(n->r, key, val);
    else {
        struct avl *l = n->l, *r = n->r, *m;
        *val = n->val;
        free(n);
        if (!r)
            return l;
        r = avl_pop_min(r, &m);
        m->l = l;
        m->r = r;
        return balance(m);
    }
    return balance(n);
}

static const struct avl *avl_find(const struct avl *n, uint64_t key)
{
    while (n && n->key != key)
        n = key < n->key ? n->l : n->r;
    return n;
}

/* Checks order and heights below n (keys in [lo, hi)); returns the count,
 * adds key*val into *sum. */
static size_t avl_verify(const struct avl *n, uint64_t lo, uint64_t hi, uint64_t *sum)
{
    if (!n)
        return 0;
    if (n->key < lo || n->key >= hi)
        fail("order", n->key, lo);
    int a = height(n->l), b = height(n->r);
    if (n->h != 1 + (a > b ? a : b) || a - b > 1 || b - a > 1)
        fail("balance", n->key, (uint64_t)n->h);
    *sum += n->key * n->val;
    return 1 + avl_verify(n->l, lo, n->key, sum) + avl_verify(n->r, n->key + 1, hi, sum);
}

/* Threads the nodes in key order into a doubly linked list. */
static void avl_thread(struct avl *n, struct avl **last, struct avl **first)
{
    if (!n)
        return;
    avl_thread(n->l, last, first);
    n->prev = *last;
    n->next = NULL;
    if (*last)
        (*last)->next = n;
    else
        *first = n;
    *last = n;
    avl_thread(n->r, last, first);
}

static void avl_free(struct avl *n)
{
    if (!n)
        return;
    avl_free(n->l);
    avl_free(n->r);
    free(n);
}

static uint64_t run_avl(uint64_t seed, size_t nkeys, size_t nops, int walks)
{
    uint64_t *ref = calloc(nkeys, sizeof *ref), s = seed, sum = 0;
    struct avl *root = NULL;
    size_t live = 0;
    if (!ref)
        fail("out of memory", nkeys, 0);
    for (size_t i = 0; i < nops; i++) {
        uint64_t r = rng_next(&s);
        uint64_t key = (r >> 8) % nkeys, op = r & 7;
        if (op < 4) {
            const struct avl *n = avl_find(root, key);
            if ((n ? n->val : 0) != ref[key])
                fail("lookup", key, ref[key]);
            sum += n ? n->val >> 9 : 3;
        } else if (op < 6) {
            int added = 0;
            uint64_t v = rng_next(&s) | 1;
            root = avl_put(root, key, v, &added);
            if (added != (ref[key] == 0))
                fail("insert", key, ref[key]);
            live += (size_t)added;
            ref[key] = v;
        } else {
            uint64_t v = 0;
            root = avl_del(root, key, &v);
            if (v != ref[key])
                fail("delete", key, ref[key]);
            live -= ref[key] != 0;
            ref[key] = 0;
        }
    }
    uint64_t vsum = 0, want = 0;
    if (avl_verify(root, 0, UINT64_MAX, &vsum) != live)
        fail("count", live, 0);
    for (size_t k = 0; k < nkeys; k++)
        want += k * ref[k];
    if (vsum != want)
        fail("sum", vsum, want);

    struct avl *first = NULL, *last = NULL;
    avl_thread(root, &last, &first);
    for (int w = 0; w < walks; w++) {   /* forwards, then back */
        uint64_t f = 0, b = 0, prev = 0;
        size_t nf = 0;
        for (const struct avl *n = first; n; n = n->next, nf++) {
            if (nf && n->key <= prev)
                fail("list order", n->key, prev);
            prev = n->key;
            f += n->val ^ (uint64_t)w;
        }
        for (const struct avl *n = last; n; n = n->prev)
            b += n->val ^ (uint64_t)w;
        if (nf != live || f != b)
            fail("list walk", f, b);
        sum += f;
    }
    avl_free(root);
    free(ref);
    return sum + vsum;
}

/* ------------------------------------------------------- binary trees */
struct bt {
    struct bt *l, *r;
};

static struct bt *bt_make(int depth)
{
    struct bt *n = xmalloc(sizeof *n);
    n->l = depth ? bt_make(depth - 1) : NULL;
    n->r = depth ? bt_make(depth - 1) : NULL;
    return n;
}

static uint64_t bt_check(const struct bt *n)
{
    return n->l ? 1 + bt_check(n->l) + bt_check(n->r) : 1;
}

static void bt_free(struct bt *n)
{
    if (n->l) {
        bt_free(n->l);
        bt_free(n->r);
    }
    free(n);
}

static uint64_t run_bt(int maxdepth)
{
    uint64_t total = 0;
    struct bt *longlived = bt_make(maxdepth);
    for (int d = 4; d <= maxdepth; d += 2) {
        uint64_t iters = 1ull << (maxdepth - d + 4), c = 0;
        for (uint64_t i = 0; i < iters; i++) {
            struct bt *t = bt_make(d);
            c += bt_check(t);
            bt_free(t);
        }
        if (c != iters * ((2ull << d) - 1))
            fail("binary trees", c, (uint64_t)d);
        total += c;
    }
    if (bt_check(longlived) != (2ull << maxdepth) - 1)
        fail("long-lived tree", bt_check(longlived), (uint64_t)maxdepth);
    bt_free(longlived);
    return total;
}

int main(int argc, char **argv)
{
    int scale = argc > 1 ? atoi(argv[1]) : 3;
    if (scale < 1 || scale > 1000) {
        fprintf(stderr, "usage: tree [SCALE 1..1000]\n");
        return 2;
    }
    uint64_t ca = 0, cb = 0;
    double t0 = now();
    for (int i = 0; i < scale; i++) {
        ca += run_avl(0x853c49e6748fea9bull + (uint64_t)i, 1u << 16, 600000, 20);
        cb += run_bt(14);
    }
    double t1 = now();
    printf("tree: avl %016" PRIx64 " bt %" PRIu64 "\n", ca, cb);
    printf("time %.4f\n", t1 - t0);
    printf("OK\n");
    return 0;
}
