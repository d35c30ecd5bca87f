/*
 * hash.c -- chained hash tables: integer keys with inserts, lookups,
 * updates and deletes (nodes recycled through a free list, the bucket
 * array doubled as the table grows), then a string-keyed table counting
 * words (a symbol table's work: hash the bytes, compare them along the
 * chain). Plain C for bench/ptrchase/ (README.md); no kumi calls.
 *
 * Every answer is checked against a direct-mapped reference array.
 *
 *   hash [SCALE]     SCALE (default 4) repeats the work
 * Prints checksums, "time S" (the timed part) and "OK", or the first
 * mismatch on stderr and exits 1.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PTRCHASE_PROG "hash"
#include "ptrchase.h"

static uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return k;
}

/* ------------------------------------------------------ integer keys */
struct node {
    uint64_t key;
    uint64_t val;
    struct node *next;
};

struct table {
    struct node **b;
    size_t mask;
    size_t count;
    struct node *free;          /* deleted nodes, reused by inserts */
    size_t nodes;               /* allocated with malloc */
};

static void table_init(struct table *t, size_t nb)
{
    t->b = calloc(nb, sizeof *t->b);
    if (!t->b)
        fail("out of memory", nb, 0);
    t->mask = nb - 1;
    t->count = 0;
    t->free = NULL;
    t->nodes = 0;
}

static struct node *table_find(const struct table *t, uint64_t key)
{
    struct node *n = t->b[mix(key) & t->mask];
    while (n && n->key != key)
        n = n->next;
    return n;
}

static void table_grow(struct table *t)
{
    size_t nb = 2 * (t->mask + 1);
    struct node **b = calloc(nb, sizeof *b);
    if (!b)
        fail("out of memory", nb, 0);
    for (size_t i = 0; i <= t->mask; i++) {
        struct node *n = t->b[i];
        while (n) {
            struct node *next = n->next;
            size_t h = mix(n->key) & (nb - 1);
            n->next = b[h];
            b[h] = n;
            n = next;
        }
    }
    free(t->b);
    t->b = b;
    t->mask = nb - 1;
}

/* Returns 1 when the key was new. */
static int table_put(struct table *t, uint64_t key, uint64_t val)
{
    struct node **head = &t->b[mix(key) & t->mask];
    for (struct node *n = *head; n; n = n->next)
        if (n->key == key) {
            n->val = val;
            return 0;
        }
    struct node *n = t->free;
    if (n)
        t->free = n->next;
    else {
        n = xmalloc(sizeof *n);
        t->nodes++;
    }
    n->key = key;
    n->val = val;
    n->next = *head;
    *head = n;
    if (++t->count > 2 * (t->mask + 1))
        table_grow(t);
    return 1;
}

/* Returns the deleted value, 0 when the key was absent. */
static uint64_t table_del(struct table *t, uint64_t key)
{
    struct node **pp = &t->b[mix(key) & t->mask];
    for (struct node *n = *pp; n; pp = &n->next, n = n->next)
        if (n->key == key) {
            uint64_t v = n->val;
            *pp = n->next;
            n->next = t->free;
            t->free = n;
            t->count--;
            return v;
        }
    return 0;
}

static void table_free(struct table *t)
{
    for (size_t i = 0; i <= t->mask; i++)
        for (struct node *n = t->b[i], *next; n; n = next) {
            next = n->next;
            free(n);
        }
    for (struct node *n = t->free, *next; n; n = next) {
        next = n->next;
        free(n);
    }
    free(t->b);
}

/* nops random operations on keys < nkeys: 50% lookup, 30% insert or
 * update, 20% delete, each checked against ref[]. Returns a checksum. */
static uint64_t run_int(uint64_t seed, size_t nkeys, size_t nops)
{
    struct table t;
    uint64_t *ref = calloc(nkeys, sizeof *ref);     /* 0: absent */
    uint64_t sum = 0, s = seed;
    size_t live = 0;
    if (!ref)
        fail("out of memory", nkeys, 0);
    table_init(&t, 64);
    for (size_t i = 0; i < nops; i++) {
        uint64_t r = rng_next(&s);
        uint64_t key = (r >> 8) % nkeys, op = r & 15;
        if (op < 8) {
            struct node *n = table_find(&t, key);
            if ((n ? n->val : 0) != ref[key])
                fail("lookup", key, ref[key]);
            sum += n ? n->val >> 7 : 1;
        } else if (op < 13) {
            uint64_t v = rng_next(&s) | 1;
            if (table_put(&t, key, v) != (ref[key] == 0))
                fail("insert", key, ref[key]);
            live += ref[key] == 0;
            ref[key] = v;
        } else {
            uint64_t v = table_del(&t, key);
            if (v != ref[key])
                fail("delete", key, ref[key]);
            live -= ref[key] != 0;
            ref[key] = 0;
            sum ^= v;
        }
    }
    if (t.count != live)
        fail("count", t.count, live);
    uint64_t walk = 0, want = 0;        /* every node once, every live key found */
    size_t seen = 0;
    for (size_t i = 0; i <= t.mask; i++)
        for (struct node *n = t.b[i]; n; n = n->next) {
            walk += n->key * 3 + n->val;
            seen++;
        }
    for (size_t k = 0; k < nkeys; k++)
        if (ref[k])
            want += k * 3 + ref[k];
    if (seen != live || walk != want)
        fail("walk", walk, want);
    table_free(&t);
    free(ref);
    return sum + walk;
}

/* ------------------------------------------------------- string keys */
struct snode {
    struct snode *next;
    uint32_t hash;
    uint32_t len;
    uint64_t count;
    char key[24];
};

struct stable {
    struct snode **b;
    size_t mask;
    size_t count;
};

static uint32_t str_hash(const char *s, uint32_t len)
{
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static int str_same(const char *a, const char *b, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

static struct snode *stable_intern(struct stable *t, const char *s, uint32_t len)
{
    uint32_t h = str_hash(s, len);
    struct snode **head = &t->b[h & t->mask];
    for (struct snode *n = *head; n; n = n->next)
        if (n->hash == h && n->len == len && str_same(n->key, s, len))
            return n;
    struct snode *n = xmalloc(sizeof *n);
    n->hash = h;
    n->len = len;
    n->count = 0;
    memcpy(n->key, s, len);
    n->key[len] = 0;
    n->next = *head;
    *head = n;
    t->count++;
    return n;
}

/* The word for number w < 26^4: its four base-26 digits (so different
 * numbers give different words), then 0 to 9 letters more. */
static uint32_t word_of(uint64_t w, char *buf)
{
    uint32_t len = 4 + (uint32_t)(mix(w) % 10);
    uint64_t x = w;
    for (uint32_t i = 0; i < len; i++) {
        buf[i] = (char)('a' + x % 26);
        x = i < 3 ? x / 26 : x * 7 + 3;
    }
    buf[len] = 0;
    return len;
}

/* Counts nwords draws from a vocabulary of nvocab words (skewed towards
 * small numbers), then checks every count. Returns a checksum. */
static uint64_t run_str(uint64_t seed, size_t nvocab, size_t nwords)
{
    struct stable t;
    uint64_t *ref = calloc(nvocab, sizeof *ref), s = seed, sum = 0;
    char buf[24];
    if (!ref)
        fail("out of memory", nvocab, 0);
    t.mask = 4095;
    t.count = 0;
    t.b = calloc(t.mask + 1, sizeof *t.b);
    if (!t.b)
        fail("out of memory", t.mask + 1, 0);
    for (size_t i = 0; i < nwords; i++) {
        uint64_t r = rng_next(&s);
        uint64_t w = (r % nvocab) & ((r >> 32) % nvocab);
        uint32_t len = word_of(w, buf);
        stable_intern(&t, buf, len)->count++;
        ref[w]++;
    }
    size_t distinct = 0;
    for (size_t w = 0; w < nvocab; w++) {
        if (!ref[w])
            continue;
        distinct++;
        uint32_t len = word_of(w, buf);
        struct snode *n = stable_intern(&t, buf, len);
        if (n->count != ref[w])
            fail("word count", n->count, ref[w]);
        sum += n->count * n->hash;
    }
    if (distinct != t.count)
        fail("distinct words", t.count, distinct);
    for (size_t i = 0; i <= t.mask; i++)
        for (struct snode *n = t.b[i], *next; n; n = next) {
            next = n->next;
            free(n);
        }
    free(t.b);
    free(ref);
    return sum;
}

int main(int argc, char **argv)
{
    int scale = argc > 1 ? atoi(argv[1]) : 4;
    if (scale < 1 || scale > 1000) {
        fprintf(stderr, "usage: hash [SCALE 1..1000]\n");
        return 2;
    }
    uint64_t ci = 0, cs = 0;
    double t0 = now();
    for (int i = 0; i < scale; i++) {
        ci += run_int(0x9e3779b97f4a7c15ull + (uint64_t)i, 1u << 17, 1500000);
        cs += run_str(0x2545f4914f6cdd1dull + (uint64_t)i, 1u << 15, 300000);
    }
    double t1 = now();
    printf("hash: int %016" PRIx64 " str %016" PRIx64 "\n", ci, cs);
    printf("time %.4f\n", t1 - t0);
    printf("OK\n");
    return 0;
}
