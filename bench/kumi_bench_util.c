/*
 * kumi_bench_util.c -- what every kumi-bench op leans on: failing with a
 * message (kb_die, kb_wrong), barriers and allocation that end the job on
 * error, and kb_agree, which lets all PEs skip an op the runtime lacks
 * together. Kept apart from kumi_bench.c (the table, options, sweep).
 */
#include "kumi_bench.h"

#include <stdarg.h>
#include <stdlib.h>

/* ------------------------------------------------------------- failing */

_Noreturn void kb_die(const char *op, const char *call, int rc)
{
    fprintf(stderr, "kumi-bench[%d]: %s: %s failed: %s\n", kb.me, op, call, kumi_strerror(rc));
    exit(1);
}

_Noreturn void kb_wrong(const struct kb_run *run, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "kumi-bench[%d]: %s %zu bytes: wrong result: ", kb.me, run->op->name,
            run->bytes);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (no numbers reported)\n", stderr);
    exit(1);
}

void kb_barrier(const char *op)
{
    int rc = kumi_barrier(kb.world);
    if (rc != KUMI_OK)
        kb_die(op, "kumi_barrier", rc);
}

void *kb_xmalloc(const char *op, size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "kumi-bench[%d]: %s: out of memory (%zu bytes)\n", kb.me, op, n);
        exit(1);
    }
    return p;
}

void *kb_sym_alloc(const char *op, size_t n)
{
    void *p = kumi_malloc(n);   /* kumi itself names KUMI_HEAP_SIZE when full */
    if (p == NULL)
        kb_die(op, "kumi_malloc", KUMI_ERR_NOMEM);
    return p;
}

/* Collective: every PE learns whether any PE got KUMI_ERR_UNSUPPORTED, so
 * all skip an op together instead of some waiting for the others forever.
 * Any other error ends the job here. Goes through put/get and barriers on
 * PE 0, never through a collective under test. */
int kb_agree(const char *op, const char *call, int rc)
{
    static int64_t *all;
    int64_t         mine = rc;

    if (rc != KUMI_OK && rc != KUMI_ERR_UNSUPPORTED)
        kb_die(op, call, rc);
    if (all == NULL)
        all = kb_xmalloc(op, (size_t)kb.n * sizeof *all);
    if ((rc = kumi_put(&kb.agree[kb.me], &mine, sizeof mine, 0)) != KUMI_OK)
        kb_die(op, "kumi_put", rc);
    kb_barrier(op);
    if ((rc = kumi_get(all, kb.agree, (size_t)kb.n * sizeof *all, 0)) != KUMI_OK)
        kb_die(op, "kumi_get", rc);
    kb_barrier(op);   /* nobody overwrites a word before everyone has read it */
    for (int p = 0; p < kb.n; p++)
        if (all[p] == KUMI_ERR_UNSUPPORTED)
            return KUMI_ERR_UNSUPPORTED;
    return KUMI_OK;
}
