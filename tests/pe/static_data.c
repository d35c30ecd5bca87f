/* static_data.c -- kumi_init_ex(KUMI_INIT_SYMMETRIC_DATA): the program's
 * globals and statics (initialized .data, zero .bss, a static array of
 * several pages, a struct member) as targets of put, get, every atomic,
 * put_signal and kumi_wait_until from another PE, and kumi_ptr (non-NULL
 * for a peer on shm, NULL on tcp, the address itself for me). Their
 * contents survive kumi_init; addresses outside the heap and the static
 * data (stack, malloc, a string literal, past the end) still fail with
 * KUMI_ERR_INVALID and one line naming both ranges.
 *
 * usage: static_data [on|off|forced_on|forced_off]
 *   on          kumi_init_ex(KUMI_INIT_SYMMETRIC_DATA) (default)
 *   off         kumi_init(): static data is rejected, naming the flag
 *   forced_on   kumi_init() with KUMI_SYMMETRIC_DATA=on: as "on"
 *   forced_off  the flag with KUMI_SYMMETRIC_DATA=off: as "off"
 *   mixed       PE 0 passes the flag, the others do not: kumi_init fails
 *               on every PE, saying why */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kumi.h>

#include "pe_test.h"

#define BIG_BYTES (5 * 4096 + 123)     /* spans several pages */

/* initialized (.data) */
static uint64_t d_u64 = 0x1122334455667788ull;
static uint32_t d_u32 = 0x0badf00du;
static char     d_text[] = "static data survives kumi_init";
static uint32_t d_table[2048] = { [0] = 1, [1000] = 2, [2047] = 3 };
uint64_t        d_global = 77;          /* external linkage too */
/* zero (.bss) */
static uint64_t b_u64;
static uint32_t b_u32;
static uint8_t  b_big[BIG_BYTES];
uint64_t        b_global;
static uint64_t b_sig;
static uint32_t b_flag;
static struct {
    char     tag[13];                   /* puts the members off alignment */
    uint64_t counter;
    uint32_t bits;
    uint64_t word;
} d_struct = { "struct", 5, 0, 0 };
/* one word per atomic, per width, on every PE */
static uint64_t a64[16];
static uint32_t a32[16];

static int me, npes, left, right;

static uint8_t pattern(int pe, size_t i)
{
    return (uint8_t)(i * 7 + (size_t)pe * 31 + 1);
}

static void check_survived(void)
{
    CHECK(d_u64 == 0x1122334455667788ull && d_u32 == 0x0badf00du && d_global == 77,
          ".data changed by kumi_init: 0x%llx 0x%x %llu", (unsigned long long)d_u64, d_u32,
          (unsigned long long)d_global);
    CHECK(strcmp(d_text, "static data survives kumi_init") == 0, "d_text now '%s'", d_text);
    CHECK(d_table[0] == 1 && d_table[1000] == 2 && d_table[2047] == 3 && d_table[1] == 0,
          "d_table changed by kumi_init");
    CHECK(strcmp(d_struct.tag, "struct") == 0 && d_struct.counter == 5, "d_struct changed");
    /* written before kumi_init */
    CHECK(b_u64 == 42 && b_big[BIG_BYTES - 1] == 9, ".bss written before kumi_init lost: %llu %u",
          (unsigned long long)b_u64, b_big[BIG_BYTES - 1]);
    for (size_t i = 0; i < BIG_BYTES - 1; i++)
        CHECK(b_big[i] == 0, "b_big[%zu] = %u, expected 0", i, b_big[i]);
}

static void test_put_get(void)
{
    uint8_t  *buf = malloc(BIG_BYTES);
    uint64_t  v;
    uint32_t  v32;
    char      text[sizeof(d_text)];

    CHECK(buf != NULL, "malloc");
    for (size_t i = 0; i < BIG_BYTES; i++)
        buf[i] = pattern(me, i);
    d_u64 = 1000 + (uint64_t)me;
    d_u32 = 2000 + (uint32_t)me;
    BARRIER();
    /* the whole array, and single words of .data, .bss and a struct member */
    OK(kumi_put(b_big, buf, BIG_BYTES, right));
    OK(kumi_put(&b_global, &d_u64, 8, right));
    v = 0xabc0 + (uint64_t)me;
    OK(kumi_put(&d_struct.word, &v, 8, right));
    OK(kumi_put(&d_struct.tag[1], "XY", 2, right));
    OK(kumi_put(&d_table[1500], &d_u32, 4, right));
    OK(kumi_put(&b_u32, &d_u32, 4, right));
    BARRIER();
    for (size_t i = 0; i < BIG_BYTES; i++)
        CHECK(b_big[i] == pattern(left, i), "b_big[%zu] = %u after left's put, expected %u", i,
              b_big[i], pattern(left, i));
    CHECK(b_global == 1000 + (uint64_t)left, "b_global %llu", (unsigned long long)b_global);
    CHECK(d_struct.word == 0xabc0 + (uint64_t)left, "d_struct.word 0x%llx",
          (unsigned long long)d_struct.word);
    CHECK(memcmp(d_struct.tag, "sXYuct", 7) == 0, "d_struct.tag '%s'", d_struct.tag);
    CHECK(d_struct.counter == 5, "a put to tag[1..2] changed counter: %llu",
          (unsigned long long)d_struct.counter);
    CHECK(d_table[1500] == 2000 + (uint32_t)left, "d_table[1500] %u", d_table[1500]);
    CHECK(b_u32 == 2000 + (uint32_t)left, "b_u32 %u", b_u32);

    /* gets of .data words, a string and a slice of the array */
    OK(kumi_get(&v, &d_u64, 8, left));
    CHECK(v == 1000 + (uint64_t)left, "get d_u64 from %d: %llu", left, (unsigned long long)v);
    OK(kumi_get(&v32, &d_u32, 4, right));
    CHECK(v32 == 2000 + (uint32_t)right, "get d_u32 from %d: %u", right, v32);
    OK(kumi_get(text, d_text, sizeof(text), right));
    CHECK(strcmp(text, d_text) == 0, "get d_text: '%s'", text);
    OK(kumi_get(buf, b_big + 4000, 5000, right));
    for (size_t i = 0; i < 5000; i++)
        CHECK(buf[i] == pattern(me, 4000 + i), "get b_big[%zu] from %d: %u", 4000 + i, right,
              buf[i]);
    /* 0 bytes at the very end is valid; heap puts still work beside */
    OK(kumi_put(b_big + BIG_BYTES, buf, 0, right));
    uint64_t *h = kumi_calloc(1, 8);
    CHECK(h != NULL, "kumi_calloc");
    OK(kumi_put(h, &d_u64, 8, right));
    BARRIER();
    CHECK(*h == 1000 + (uint64_t)left, "heap word %llu", (unsigned long long)*h);
    BARRIER();
    kumi_free(h);
    d_u64 = 0x1122334455667788ull;
    d_u32 = 0x0badf00du;
    free(buf);
}

/* Every atomic on both widths, all PEs at once on PE 0's words (and on
 * right's for the fetch/set pair); results checked on every PE. */
static void test_atomics(void)
{
    const int k = 50;
    uint64_t  o64;
    uint32_t  o32;

    memset(a64, 0, sizeof(a64));
    memset(a32, 0, sizeof(a32));
    a64[4] = ~0ull;
    a32[4] = ~0u;
    BARRIER();
    for (int i = 0; i < k; i++) {
        OK(kumi_atomic_add_u64(&a64[0], 1, 0));
        OK(kumi_atomic_add_u32(&a32[0], 1, 0));
        OK(kumi_atomic_fetch_add_u64(&a64[1], 2, 0, &o64));
        CHECK(o64 % 2 == 0 && o64 < 2ull * k * (uint64_t)npes, "fetch_add_u64 old %llu",
              (unsigned long long)o64);
        OK(kumi_atomic_fetch_add_u32(&a32[1], 2, 0, &o32));
        CHECK(o32 % 2 == 0 && o32 < 2u * (uint32_t)(k * npes), "fetch_add_u32 old %u", o32);
    }
    /* bits: PE p owns bit p (and bit p + 32 of the u64 words) */
    uint64_t b64 = (1ull << me) | (1ull << (32 + me));
    uint32_t b32 = 1u << me;
    OK(kumi_atomic_or_u64(&a64[2], b64, 0));
    OK(kumi_atomic_or_u32(&a32[2], b32, 0));
    OK(kumi_atomic_fetch_or_u64(&a64[3], b64, 0, &o64));
    CHECK(!(o64 & b64), "fetch_or_u64: my bits already set in 0x%llx", (unsigned long long)o64);
    OK(kumi_atomic_fetch_or_u32(&a32[3], b32, 0, &o32));
    CHECK(!(o32 & b32), "fetch_or_u32: my bit already set in 0x%x", o32);
    OK(kumi_atomic_and_u64(&a64[4], ~b64, 0));
    OK(kumi_atomic_and_u32(&a32[4], ~b32, 0));
    OK(kumi_atomic_fetch_and_u64(&a64[3], ~b64, 0, &o64));   /* a64[3] back to what others left */
    CHECK((o64 & b64) == b64, "fetch_and_u64: my bits gone from 0x%llx", (unsigned long long)o64);
    OK(kumi_atomic_fetch_and_u32(&a32[3], ~b32, 0, &o32));
    CHECK((o32 & b32) == b32, "fetch_and_u32: my bit gone from 0x%x", o32);
    OK(kumi_atomic_xor_u64(&a64[5], b64, 0));
    OK(kumi_atomic_xor_u32(&a32[5], b32, 0));
    OK(kumi_atomic_fetch_xor_u64(&a64[6], b64, 0, &o64));
    CHECK(!(o64 & b64), "fetch_xor_u64: 0x%llx", (unsigned long long)o64);
    OK(kumi_atomic_fetch_xor_u32(&a32[6], b32, 0, &o32));
    CHECK(!(o32 & b32), "fetch_xor_u32: 0x%x", o32);
    /* swap and cswap on a struct member: everyone once */
    OK(kumi_atomic_swap_u64(&d_struct.word, 0x5000 + (uint64_t)me, 0, &o64));
    OK(kumi_atomic_cswap_u32(&d_struct.bits, 0, 0x100 + (uint32_t)me, 0, &o32));
    CHECK(o32 == 0 || (o32 >= 0x100 && o32 < 0x100 + (uint32_t)npes), "cswap_u32 old 0x%x", o32);
    OK(kumi_atomic_swap_u32(&a32[8], 0x300 + (uint32_t)me, 0, &o32));
    CHECK(o32 == 0 || (o32 >= 0x300 && o32 < 0x300 + (uint32_t)npes), "swap_u32 old 0x%x", o32);
    OK(kumi_atomic_cswap_u64(&a64[8], 0, 0x600 + (uint64_t)me, 0, &o64));
    CHECK(o64 == 0 || (o64 >= 0x600 && o64 < 0x600 + (uint64_t)npes), "cswap_u64 old 0x%llx",
          (unsigned long long)o64);
    /* set on right's word, fetch it back */
    OK(kumi_atomic_set_u64(&a64[7], 0x7700 + (uint64_t)me, right));
    OK(kumi_atomic_set_u32(&a32[7], 0x7800 + (uint32_t)me, right));
    BARRIER();
    OK(kumi_atomic_fetch_u64(&a64[7], right, &o64));
    CHECK(o64 == 0x7700 + (uint64_t)me, "fetch_u64 of my set: 0x%llx", (unsigned long long)o64);
    OK(kumi_atomic_fetch_u32(&a32[7], right, &o32));
    CHECK(o32 == 0x7800 + (uint32_t)me, "fetch_u32 of my set: 0x%x", o32);
    CHECK(a64[7] == 0x7700 + (uint64_t)left && a32[7] == 0x7800 + (uint32_t)left,
          "left's set: 0x%llx 0x%x", (unsigned long long)a64[7], a32[7]);

    /* everyone reads PE 0's results with fetch */
    uint64_t all64 = 0;
    uint32_t all32 = 0;
    for (int p = 0; p < npes; p++) {
        all64 |= (1ull << p) | (1ull << (32 + p));
        all32 |= 1u << p;
    }
    const uint64_t want64[] = { (uint64_t)k * (uint64_t)npes, 2ull * k * (uint64_t)npes, all64,
                                0, ~all64, all64, all64 };
    const uint32_t want32[] = { (uint32_t)(k * npes), 2u * (uint32_t)(k * npes), all32, 0,
                                ~all32, all32, all32 };
    for (int i = 0; i < 7; i++) {
        OK(kumi_atomic_fetch_u64(&a64[i], 0, &o64));
        CHECK(o64 == want64[i], "a64[%d] on PE 0 is 0x%llx, expected 0x%llx", i,
              (unsigned long long)o64, (unsigned long long)want64[i]);
        OK(kumi_atomic_fetch_u32(&a32[i], 0, &o32));
        CHECK(o32 == want32[i], "a32[%d] on PE 0 is 0x%x, expected 0x%x", i, o32, want32[i]);
    }
    OK(kumi_atomic_fetch_u64(&d_struct.word, 0, &o64));
    CHECK(o64 >= 0x5000 && o64 < 0x5000 + (uint64_t)npes, "swap_u64 final 0x%llx",
          (unsigned long long)o64);
    OK(kumi_atomic_fetch_u32(&d_struct.bits, 0, &o32));
    CHECK(o32 >= 0x100 && o32 < 0x100 + (uint32_t)npes, "cswap_u32 final 0x%x", o32);
    OK(kumi_atomic_fetch_u32(&a32[8], 0, &o32));
    CHECK(o32 >= 0x300 && o32 < 0x300 + (uint32_t)npes, "swap_u32 final 0x%x", o32);
    OK(kumi_atomic_fetch_u64(&a64[8], 0, &o64));
    CHECK(o64 >= 0x600 && o64 < 0x600 + (uint64_t)npes, "cswap_u64 final 0x%llx",
          (unsigned long long)o64);
    /* alignment is checked on static words as on the heap */
    capture_begin();
    int rc = kumi_atomic_add_u64((uint64_t *)(void *)(b_big + 1), 1, right);
    const char *msg = capture_end();
    CHECK(rc == KUMI_ERR_INVALID && strstr(msg, "not 8-byte aligned"), "misaligned: %d '%s'", rc,
          msg);
    BARRIER();
    d_struct.word = 0;
    d_struct.bits = 0;
    BARRIER();
}

/* put_signal into right's statics; right waits on its own static word */
static void test_signal_wait(void)
{
    uint8_t data[300];

    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (uint8_t)(i + (size_t)me * 3);
    b_sig  = 0;
    b_flag = 0;
    BARRIER();
    OK(kumi_put_signal(b_big + 100, data, sizeof(data), &b_sig, 0x51 + (uint64_t)me, right));
    OK(kumi_wait_until_u64(&b_sig, KUMI_CMP_EQ, 0x51 + (uint64_t)left));
    for (size_t i = 0; i < sizeof(data); i++)
        CHECK(b_big[100 + i] == (uint8_t)(i + (size_t)left * 3), "put_signal data [%zu] %u", i,
              b_big[100 + i]);
    /* a u32 flag written by an atomic set and by a put */
    OK(kumi_atomic_set_u32(&b_flag, 1, right));
    OK(kumi_wait_until_u32(&b_flag, KUMI_CMP_EQ, 1));
    BARRIER();                /* nobody's 1 is still on its way */
    uint32_t two = 2;
    OK(kumi_put(&b_flag, &two, 4, left));
    OK(kumi_wait_until_u32(&b_flag, KUMI_CMP_EQ, 2));
    BARRIER();
}

static void test_ptr(void)
{
    int shm = strcmp(kumi_transport_name(), "shm") == 0;

    CHECK(kumi_ptr(b_big, me) == b_big, "kumi_ptr(b_big, me) %p, expected %p",
          kumi_ptr(b_big, me), (void *)b_big);
    CHECK(kumi_ptr(&d_struct.counter, me) == &d_struct.counter, "kumi_ptr of a member, me");
    for (int pe = 0; pe < npes; pe++) {
        uint8_t *q = kumi_ptr(b_big + 10, pe);
        if (pe == me)
            continue;
        if (!shm) {
            CHECK(q == NULL, "kumi_ptr(b_big, %d) on %s is %p, expected NULL", pe,
                  kumi_transport_name(), (void *)q);
            continue;
        }
        CHECK(q != NULL, "kumi_ptr(b_big, %d) is NULL on shm", pe);
        CHECK(kumi_ptr(b_big + 4096 * 5, pe) == q + 4096 * 5 - 10, "kumi_ptr not offset-preserving");
    }
    BARRIER();
    if (shm && npes > 1) {      /* a store through it lands in right's copy */
        uint64_t *w = kumi_ptr(&b_u64, right);
        __atomic_store_n(w, 0x4000 + (uint64_t)me, __ATOMIC_RELEASE);
        OK(kumi_wait_until_u64(&b_u64, KUMI_CMP_EQ, 0x4000 + (uint64_t)left));
    }
    BARRIER();
}

/* Addresses outside both ranges: one line naming the call and both. */
static void test_bad_addresses(int enabled)
{
    uint64_t    stack_word = 0;
    uint64_t   *heap_word = malloc(8);
    const char *literal = "a string literal";
    uint64_t    v = 1;
    char        buf[32];

    CHECK(heap_word != NULL, "malloc");
    const void *bad[] = { &stack_word, heap_word, literal };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        capture_begin();
        int rp = kumi_put((void *)bad[i], &v, 8, right);
        int rg = kumi_get(buf, bad[i], 8, right);
        int ra = kumi_atomic_fetch_u64(bad[i], right, &v);
        const char *msg = capture_end();
        CHECK(rp == KUMI_ERR_INVALID && rg == KUMI_ERR_INVALID && ra == KUMI_ERR_INVALID,
              "address %zu: put %d get %d fetch %d", i, rp, rg, ra);
        CHECK(strstr(msg, "kumi_put: address") && strstr(msg, "kumi_get: address")
              && strstr(msg, "kumi_atomic_fetch_u64: address"), "messages: '%s'", msg);
        CHECK(strstr(msg, "outside the symmetric heap [") != NULL, "message: '%s'", msg);
        if (enabled)
            CHECK(strstr(msg, "and the symmetric static data [") != NULL, "message: '%s'", msg);
        CHECK(kumi_ptr(bad[i], right) == NULL && kumi_ptr(bad[i], me) == NULL,
              "kumi_ptr of a non-symmetric address");
    }
    if (enabled) {
        /* a range running past the end of the static data */
        capture_begin();
        int rc = kumi_get(buf, b_big, (size_t)1 << 40, right);
        const char *msg = capture_end();
        CHECK(rc == KUMI_ERR_INVALID && strstr(msg, "symmetric static data"), "past the end: %d "
              "'%s'", rc, msg);
    }
    free(heap_word);
}

/* Without the flag: static data is not symmetric, and the message says
 * how to make it so. */
static void test_disabled(void)
{
    uint64_t v = 5;

    CHECK((kumi_init_flags() & KUMI_INIT_SYMMETRIC_DATA) == 0, "flags 0x%x", kumi_init_flags());
    capture_begin();
    int rp = kumi_put(&b_u64, &v, 8, right);
    int ra = kumi_atomic_add_u32(&d_u32, 1, right);
    int rs = kumi_put_signal(b_big, &v, 8, &b_sig, 1, right);
    const char *msg = capture_end();
    CHECK(rp == KUMI_ERR_INVALID && ra == KUMI_ERR_INVALID && rs == KUMI_ERR_INVALID,
          "static data accepted without the flag: %d %d %d", rp, ra, rs);
    CHECK(strstr(msg, "kumi_put: address") && strstr(msg, "kumi_init_ex(KUMI_INIT_SYMMETRIC_DATA)"),
          "message: '%s'", msg);
    CHECK(kumi_ptr(&b_u64, me) == NULL && kumi_ptr(&b_u64, right) == NULL,
          "kumi_ptr of static data without the flag");
    test_bad_addresses(0);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "on";
    const char *rank = getenv("KUMI_RANK");
    int         ask = strcmp(mode, "on") == 0 || strcmp(mode, "forced_off") == 0
                      || (strcmp(mode, "mixed") == 0 && rank != NULL && strcmp(rank, "0") == 0);
    int         enabled = strcmp(mode, "on") == 0 || strcmp(mode, "forced_on") == 0;

    /* statics written before kumi_init must survive it */
    b_u64 = 42;
    b_big[BIG_BYTES - 1] = 9;
    CHECK(kumi_init_flags() == 0, "flags before init");
    capture_begin();
    int bad = kumi_init_ex(1u << 30);
    const char *msg = capture_end();
    CHECK(bad == KUMI_ERR_INVALID && strstr(msg, "kumi_init: unknown flags 0x40000000"),
          "unknown flag: %d '%s'", bad, msg);
    int rc = ask ? kumi_init_ex(KUMI_INIT_SYMMETRIC_DATA) : kumi_init();
    if (strcmp(mode, "mixed") == 0) {
        CHECK(rc == KUMI_ERR_INVALID || rc == KUMI_ERR_PEER, "mixed flags: kumi_init %s",
              kumi_strerror(rc));
        return 1;
    }
    OK(rc);
    me    = kumi_rank();
    npes  = kumi_size();
    left  = (me + npes - 1) % npes;
    right = (me + 1) % npes;
    check_survived();
    b_u64 = 0;
    b_big[BIG_BYTES - 1] = 0;
    BARRIER();
    if (!enabled) {
        test_disabled();
        capture_begin();
        int rc = kumi_init_ex(KUMI_INIT_SYMMETRIC_DATA);
        const char *msg = capture_end();
        CHECK(rc == (ask ? KUMI_OK : KUMI_ERR_STATE), "second kumi_init_ex: %d '%s'", rc, msg);
    } else {
        CHECK(kumi_init_flags() & KUMI_INIT_SYMMETRIC_DATA, "flags 0x%x", kumi_init_flags());
        OK(kumi_init());                  /* asks for less: fine */
        test_put_get();
        test_atomics();
        test_signal_wait();
        test_ptr();
        test_bad_addresses(1);
    }
    BARRIER();
    OK(kumi_finalize());
    /* the statics stay usable after kumi_finalize */
    d_u64 = 3;
    b_big[0] = 4;
    CHECK(d_u64 == 3 && b_big[0] == 4, "static data after kumi_finalize");
    if (me == 0)
        printf("static_data %s: %d PEs ok\n", mode, npes);
    return 0;
}
