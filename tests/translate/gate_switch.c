/*
 * gate_switch.c -- the function gate across kumi_init (dsm/translate/
 * README.md, "The gate"). main starts before the DSM region exists, so it
 * runs its unchecked copy; it calls kumi_init in the middle (through
 * start(), a function of this file that calls it through a pointer) and
 * must go on checked in the same frame: a private list, its sum and a
 * private array made before stay live across the switch, and afterwards
 * the last PE writes words of a DSM array that PE 0 homes and had written
 * first, and every PE reads them back in main. Read unchecked, PE 0 would
 * see its own stale words or the invalid lines' flag pattern (the negative
 * control: the same source built with KUMI_TRANSLATE=0 fails at 2 PEs).
 * After kumi_finalize the copies run again (the list is walked once more).
 * Prints "gate_switch: PE p: ... ok", or "BAD" and exits 1.
 */
#include <kumi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4096
#define L 1000

struct node { long v; struct node *next; };

static long list_sum(const struct node *n)
{
    long s = 0;
    for (; n; n = n->next)
        s += n->v;
    return s;
}

static int (*volatile init_fn)(void) = kumi_init;

static int start(void) { return init_fn(); }

int main(void)
{
    struct node *head = NULL;
    for (long i = 0; i < L; i++) {
        struct node *n = malloc(sizeof *n);
        if (n == NULL) return 1;
        n->v = 3 * i;
        n->next = head;
        head = n;
    }
    long  pre = list_sum(head);
    long *priv = malloc(64 * sizeof *priv);
    if (priv == NULL) return 1;
    for (int i = 0; i < 64; i++)
        priv[i] = (long)i * i + pre;

    if (start() != KUMI_OK)          /* the region appears here */
        return 1;
    int   me = kumi_rank(), np = kumi_size(), bad = 0;
    long *a = NULL;
    if (me == 0 && (a = kumi_dsm_malloc(N * sizeof *a)) == NULL) {
        fprintf(stderr, "gate_switch: BAD: kumi_dsm_malloc failed\n");
        return 1;
    }
    kumi_broadcast(kumi_team_world(), &a, sizeof a, 0);
    if (me == 0)
        for (int i = 0; i < N; i++)
            a[i] = -1;
    kumi_barrier(kumi_team_world());
    if (me == np - 1)
        for (int i = 0; i < N; i++)
            a[i] = 7L * i + 1;
    kumi_barrier(kumi_team_world());
    long s = 0;
    for (int i = 0; i < N; i++)
        s += a[i];
    long want = 7L * N * (N - 1) / 2 + N;
    if (s != want) {
        fprintf(stderr, "gate_switch: BAD: PE %d: DSM sum %ld, want %ld\n", me, s, want);
        bad = 1;
    }
    for (int i = 0; i < 64; i++)
        if (priv[i] != (long)i * i + pre) bad = 1;
    if (pre != 3L * L * (L - 1) / 2 || list_sum(head) != pre) {
        fprintf(stderr, "gate_switch: BAD: PE %d: private list %ld\n", me, pre);
        bad = 1;
    }
    kumi_barrier(kumi_team_world());
    if (me == 0) kumi_dsm_free(a);
    kumi_finalize();
    if (list_sum(head) != pre) bad = 1;   /* no region again: the copy */
    printf("gate_switch: PE %d: DSM sum %ld, private %ld %s\n", me, s, pre, bad ? "BAD" : "ok");
    while (head) {
        struct node *n = head->next;
        free(head);
        head = n;
    }
    free(priv);
    return bad;
}
