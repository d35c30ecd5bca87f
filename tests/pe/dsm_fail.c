/*
 * dsm_fail.c -- a PE dies (SIGKILL) while others need DSM data it holds:
 * the survivors' DSM calls must fail with KUMI_ERR_PEER naming the dead
 * PE, never hang. kumirun then ends the job with the victim's status
 * (137). tests/dsm.cmake checks the status and the survivor's line.
 *
 *   dsm_fail CASE
 *
 * PE 1 is the victim in every case. It sets things up, enters a barrier
 * with the others, kicks every survivor (its last kumi call: from then on
 * it serves no request), waits until every survivor has left a mark (a
 * file: pe_test_mark, no kumi call) and kills itself. A survivor waits for
 * that kick, marks and makes its DSM call at once, which therefore needs
 * the victim; whether the request is on its way or not yet sent when the
 * victim dies, the call must fail with KUMI_ERR_PEER. (Over tcp a PE that
 * exits at once could take its last messages with it: the kick is read
 * before the mark, and the victim sends nothing after it.)
 *   owner       PE 1 wrote the blocks (holds them exclusive); their home
 *               is PE 0 (2 PEs) or PE 2 (3 PEs: the read is forwarded,
 *               3 hops). PE 0 reads them with kumi_dsm_read.
 *   owner_load  the same, read by kumi_dsm_ld64 (translated code): the
 *               miss cannot return a status, so it ends the job itself
 *   home        PE 1 allocated the blocks (their home) and wrote them;
 *               PE 0 read them first (a shared copy) and now writes one
 *               (an upgrade the dead home must grant); with 3 PEs, PE 2
 *               reads blocks it never had
 *   sharer      PE 1 holds shared copies; their home PE 0 writes them
 *               (PE 1's copy must be invalidated, and it will never ack)
 *   mutex       PE 1 holds a kumi_mutex in DSM memory; PE 0 locks it
 * A survivor that gets KUMI_ERR_PEER says so and exits 0; kumi's own
 * line ("kumi[0]: kumi_dsm_read: PE 1 failed (status 137)...") names the
 * dead PE.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../dsm/check.h"
#include "pe_test.h"

#define NBLK 8
#define BS   256

static int me, npes;

static size_t          quiet_flag;   /* LLCM word: the victim serves no more */
static pe_test_marks_t marks;        /* the survivors reached their calls */

/* The victim's last kumi call tells every survivor that it will serve no
 * more requests (a survivor that left the barrier first could otherwise
 * be served while the victim is still in the barrier); then it waits for
 * every survivor's mark, without a kumi call, and dies. */
static _Noreturn void die_later(void)
{
    uint64_t one = 1;
    for (int pe = 0; pe < npes; pe++)
        if (pe != me)
            OK(kumi_kick(pe, quiet_flag, &one, 8));
    pe_test_wait_marks(&marks, me, 60);
    raise(SIGKILL);
    for (;;)
        pause();
}

/* A survivor waits until the victim has stopped serving, then marks: its
 * call needing the victim comes next. */
static void victim_gone_quiet(void)
{
    OK(kumi_wait_until_u64(kumi_llcm(quiet_flag), KUMI_CMP_GE, 1));
    pe_test_mark(&marks);
}

static _Noreturn void survived(const char *call, int rc)
{
    CHECK(rc == KUMI_ERR_PEER, "%s returned %s, not KUMI_ERR_PEER, after PE 1 died", call,
          kumi_strerror(rc));
    fprintf(stderr, "dsm_fail: PE %d: %s returned KUMI_ERR_PEER as it should\n", me, call);
    _exit(0);
}

/* The others (not the victim, not the actor) wait in a barrier. */
static _Noreturn void bystander(void)
{
    pe_test_mark(&marks);
    int rc = kumi_barrier(kumi_team_world());
    survived("kumi_barrier", rc);
}

static uint8_t *alloc_at(int home)
{
    uint8_t *p = NULL;
    if (me == home) {
        p = kumi_dsm_malloc_block(NBLK * BS, BS);
        CHECK(p != NULL, "kumi_dsm_malloc_block");
        uint8_t zero[NBLK * BS] = { 0 };
        OK(kumi_dsm_write(p, zero, sizeof zero));
    }
    OK(kumi_broadcast(kumi_team_world(), &p, sizeof p, home));
    return p;
}

static void case_owner(int by_load)
{
    int      home = npes > 2 ? 2 : 0;
    uint8_t *p    = alloc_at(home);
    uint8_t  buf[NBLK * BS];

    BARRIER();
    if (me == 1) {
        memset(buf, 0x11, sizeof buf);
        OK(kumi_dsm_write(p, buf, sizeof buf));   /* exclusive at PE 1 */
    }
    BARRIER();
    if (me == 1)
        die_later();
    if (me != 0)
        bystander();
    victim_gone_quiet();
    if (by_load) {
        uint64_t v = kumi_dsm_ld64((const uint64_t *)(const void *)p);
        /* not reached: the failed miss ends the job */
        CHECK(0, "kumi_dsm_ld64 of a dead PE's block returned 0x%llx", (unsigned long long)v);
    }
    survived("kumi_dsm_read", kumi_dsm_read(buf, p, sizeof buf));
}

static void case_home(void)
{
    uint8_t *p = alloc_at(1);
    uint8_t  buf[NBLK * BS];

    BARRIER();
    if (me == 1) {
        memset(buf, 0x22, sizeof buf);
        OK(kumi_dsm_write(p, buf, sizeof buf));
    }
    BARRIER();
    if (me == 0) {   /* shared copies of the first half */
        OK(kumi_dsm_read(buf, p, sizeof buf / 2));
        CHECK(buf[0] == 0x22, "read 0x%x", buf[0]);
    }
    BARRIER();
    if (me == 1)
        die_later();
    victim_gone_quiet();
    if (me == 0)
        survived("kumi_dsm_write", kumi_dsm_write(p, buf, 8));
    if (me == 2)   /* blocks it never had */
        survived("kumi_dsm_read", kumi_dsm_read(buf, p + sizeof buf / 2, sizeof buf / 2));
    bystander();
}

static void case_sharer(void)
{
    uint8_t *p = alloc_at(0);
    uint8_t  buf[NBLK * BS];

    BARRIER();
    if (me != 0)
        OK(kumi_dsm_read(buf, p, sizeof buf));   /* everyone shares */
    BARRIER();
    if (me == 1)
        die_later();
    if (me != 0)
        bystander();
    memset(buf, 0x33, sizeof buf);
    victim_gone_quiet();
    survived("kumi_dsm_write", kumi_dsm_write(p, buf, sizeof buf));
}

static void case_mutex(void)
{
    kumi_mutex_t *m = NULL;

    if (me == 0) {
        m = kumi_dsm_malloc(sizeof(*m));
        CHECK(m != NULL, "kumi_dsm_malloc");
        OK(kumi_mutex_init(m));
    }
    OK(kumi_broadcast(kumi_team_world(), &m, sizeof m, 0));
    BARRIER();
    if (me == 1)
        OK(kumi_mutex_lock(m));
    BARRIER();
    if (me == 1)
        die_later();
    if (me != 0)
        bystander();
    victim_gone_quiet();
    survived("kumi_mutex_lock", kumi_mutex_lock(m));
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";

    OK(kumi_init());
    me   = kumi_rank();
    npes = kumi_size();
    CHECK(npes >= 2, "dsm_fail needs at least 2 PEs");
    quiet_flag = kumi_llcm_alloc(8);
    CHECK(quiet_flag != (size_t)-1, "kumi_llcm_alloc");
    pe_test_marks_begin(&marks);
    if (strcmp(c, "owner") == 0)
        case_owner(0);
    else if (strcmp(c, "owner_load") == 0)
        case_owner(1);
    else if (strcmp(c, "home") == 0)
        case_home();
    else if (strcmp(c, "sharer") == 0)
        case_sharer();
    else if (strcmp(c, "mutex") == 0)
        case_mutex();
    CHECK(0, "usage: dsm_fail owner|owner_load|home|sharer|mutex (got '%s')", c);
    return 1;
}
