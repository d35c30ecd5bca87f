/*
 * layout.h -- what the inline DSM checks read, in one place: struct
 * kumi_dsm_g, the line and page geometry, the state bytes' encodings and
 * the flag pattern. Three users must agree on it: the runtime (dsm/dsm.c,
 * dsm/protocol.c through dsm_int.h), the hand-written checks of check.h,
 * and the translator (dsm/translate/), which emits the same checks as IR.
 * protocol.h asserts its state enum against the encodings here, and the
 * translator takes kumi_dsm_g's field offsets with offsetof and asserts
 * the field sizes its IR assumes (dsm/translate/translate.h), so a change
 * here that one side does not follow fails the build.
 *
 * Plain C, no kumi.h: the translator includes it too.
 */
#ifndef KUMI_DSM_LAYOUT_H
#define KUMI_DSM_LAYOUT_H

#include <stdint.h>

/* Coherence unit: a 64-byte line; the page summary covers 4 KiB. */
#define KUMI_DSM_LINE_SHIFT 6
#define KUMI_DSM_LINE       64u
#define KUMI_DSM_PAGE_SHIFT 12
_Static_assert(KUMI_DSM_LINE == 1u << KUMI_DSM_LINE_SHIFT, "line size and shift disagree");
_Static_assert(KUMI_DSM_PAGE_SHIFT > KUMI_DSM_LINE_SHIFT, "a page holds lines");

/* The per-line state byte (kumi_dsm_g.state): I must be 0 (a fresh table
 * is all invalid); S and E are the only readable states and E the one a
 * store accepts. The translator tests "readable" as state - S <= E - S
 * and eight bytes at once against KUMI_DSM_STATE_E * 0x0101..., so S and
 * E must stay 1 and 2. protocol.h's enum kumi_dsm_cstate is asserted equal. */
#define KUMI_DSM_STATE_I 0
#define KUMI_DSM_STATE_S 1
#define KUMI_DSM_STATE_E 2
_Static_assert(KUMI_DSM_STATE_S == 1 && KUMI_DSM_STATE_E == 2, "the checks' arithmetic needs S = 1, E = 2");

/* The per-page summary byte (kumi_dsm_g.pstate): KUMI_DSM_PSTATE_ALL_E (1)
 * when every line of the page is E, else KUMI_DSM_PSTATE_READABLE (2) when
 * every line is S or E, else 0. Both tables are padded by KUMI_DSM_TABLE_PAD bytes,
 * so a check may load 8 state or summary bytes as one word. */
#define KUMI_DSM_PSTATE_ALL_E    1
#define KUMI_DSM_PSTATE_READABLE 2
#define KUMI_DSM_TABLE_PAD    8

/* The flag: 0x7fa5c3e7 repeated, little endian, so every aligned 4- and
 * 8-byte word of an invalid line reads as a NaN-like value that real data
 * rarely holds; narrower loads compare with the flag's bytes at their
 * offset. */
#define KUMI_DSM_FLAG32 0x7fa5c3e7u
#define KUMI_DSM_FLAG64 0x7fa5c3e77fa5c3e7ull
_Static_assert((uint32_t)KUMI_DSM_FLAG64 == KUMI_DSM_FLAG32 && (KUMI_DSM_FLAG64 >> 32) == KUMI_DSM_FLAG32,
               "the 8-byte flag is the 4-byte flag twice");

/* Back-edge polls: every KUMI_DSM_POLL_EVERY-th tick serves requests (a
 * power of two: the checks mask the counter). */
#define KUMI_DSM_POLL_EVERY 1024u
_Static_assert((KUMI_DSM_POLL_EVERY & (KUMI_DSM_POLL_EVERY - 1u)) == 0, "poll period is a power of two");

/* Read by the inline checks; base/size are 0 until the region exists, so
 * every range check fails and untouched programs pay one compare. */
struct kumi_dsm_g {
    uintptr_t base;
    uintptr_t size;
    uint8_t  *state;      /* one byte per 64-byte line of the region */
    unsigned  tick;       /* back-edge poll counter                  */
    uint8_t  *pstate;     /* one byte per 4 KiB page: KUMI_DSM_PSTATE_ALL_E
                           * when every line of the page is E (the
                           * translator's first test for a store;
                           * dsm/translate/README.md) */
    unsigned  epoch;      /* counts changes of state bytes (every one goes
                           * through kumi_dsm_pstate_sync): a loop test
                           * that found a range ready at epoch e may trust
                           * it while the epoch is still e, as no line can
                           * have lost its state (dsm/translate/README.md,
                           * "Loop versions") */
};

#endif /* KUMI_DSM_LAYOUT_H */
