/* singleton_errors.c -- argument checks, state checks and their messages, in
 * one singleton process (no kumirun). kumi cannot start again after
 * kumi_finalize, so the tests run in order: before init, initialized,
 * finalized. Each bad call must return its code and print exactly one line
 * naming the call (stderr is captured into a file around each call). */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kumi.h"
#include "rt.h"

/* ------------------------------------------------------- stderr capture */

static int   saved_stderr = -1;
static FILE *capture_file;
static char  captured[4096];

static void capture_begin(void)
{
    fflush(stderr);
    capture_file = tmpfile();
    assert_non_null(capture_file);
    saved_stderr = dup(2);
    assert_true(saved_stderr >= 0);
    assert_true(dup2(fileno(capture_file), 2) == 2);
}

static const char *capture_end(void)
{
    size_t n;

    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    rewind(capture_file);
    n = fread(captured, 1, sizeof(captured) - 1, capture_file);
    captured[n] = '\0';
    fclose(capture_file);
    return captured;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Runs expr (an int status) with stderr captured; it must return want and
 * print one line containing each of the strings in the "needles" list. */
#define EXPECT_RC(want, expr, ...)                                                    \
    do {                                                                              \
        const char *needles_[] = { __VA_ARGS__, NULL };                               \
        capture_begin();                                                              \
        int rc_ = (expr);                                                             \
        const char *out_ = capture_end();                                             \
        if (rc_ != (want))                                                            \
            print_error("%s:%d: %s returned %d (%s), expected %d; stderr: %s\n",      \
                        __FILE__, __LINE__, #expr, rc_, kumi_strerror(rc_), (want),   \
                        out_);                                                        \
        assert_int_equal(rc_, (want));                                                \
        check_message(__LINE__, #expr, out_, needles_, (want) < 0);            \
    } while (0)

static void check_message(int line, const char *expr, const char *out, const char **needles,
                          int want_line)
{
    if (!want_line) {
        if (out[0] != '\0')
            print_error("line %d: %s succeeded but printed: %s\n", line, expr, out);
        assert_string_equal(out, "");
        return;
    }
    if (count_lines(out) != 1)
        print_error("line %d: %s printed %d lines, expected 1: '%s'\n", line, expr,
                    count_lines(out), out);
    assert_int_equal(count_lines(out), 1);
    for (const char **n = needles; *n != NULL; n++) {
        if (strstr(out, *n) == NULL)
            print_error("line %d: message of %s lacks '%s': '%s'\n", line, expr, *n, out);
        assert_non_null(strstr(out, *n));
    }
}

/* ------------------------------------------------------------- fixtures */

static uint64_t *sym;          /* 4 KiB from kumi_malloc */
static size_t    llcm_user;    /* 64 bytes from kumi_llcm_alloc */

static uint8_t *heap_base(void) { return kumi_rt.tp.local[KUMI_SEG_HEAP]; }
static size_t   heap_bytes(void) { return kumi_rt.tp.seg_size[KUMI_SEG_HEAP]; }
static size_t   llcm_bytes(void) { return kumi_rt.tp.seg_size[KUMI_SEG_LLCM]; }

/* ----------------------------------------------------------- before init */

static void test_before_init(void **state)
{
    uint64_t v = 0, old = 0;
    uint32_t w = 0, old32 = 0;
    int      x = 0;
    (void)state;

    assert_int_equal(kumi_rank(), -1);
    assert_int_equal(kumi_size(), 0);
    assert_string_equal(kumi_transport_name(), "none");
    assert_null(kumi_team_world());
    assert_int_equal(kumi_team_rank(kumi_team_world()), -1);

    EXPECT_RC(KUMI_ERR_STATE, kumi_put(&v, &x, 1, 0), "kumi_put: ", "not initialized");
    EXPECT_RC(KUMI_ERR_STATE, kumi_get(&x, &v, 1, 0), "kumi_get: ", "not initialized");
    EXPECT_RC(KUMI_ERR_STATE, kumi_put_signal(&v, &x, 1, &v, 1, 0), "kumi_put_signal: ",
              "not initialized");
    EXPECT_RC(KUMI_ERR_STATE, kumi_fence(), "kumi_fence: ", "not initialized");
    EXPECT_RC(KUMI_ERR_STATE, kumi_quiet(), "kumi_quiet: ", "not initialized");
    EXPECT_RC(KUMI_ERR_STATE, kumi_atomic_add_u64(&v, 1, 0), "kumi_atomic_add_u64: ");
    EXPECT_RC(KUMI_ERR_STATE, kumi_atomic_fetch_add_u64(&v, 1, 0, &old),
              "kumi_atomic_fetch_add_u64: ");
    EXPECT_RC(KUMI_ERR_STATE, kumi_atomic_swap_u32(&w, 1, 0, &old32), "kumi_atomic_swap_u32: ");
    EXPECT_RC(KUMI_ERR_STATE, kumi_atomic_cswap_u32(&w, 0, 1, 0, &old32),
              "kumi_atomic_cswap_u32: ");
    EXPECT_RC(KUMI_ERR_STATE, kumi_kick(0, 0, &v, 8), "kumi_kick: ", "not initialized");
    EXPECT_RC(KUMI_ERR_STATE, kumi_wait_until_u64(&v, KUMI_CMP_EQ, 0), "kumi_wait_until_u64: ");
    EXPECT_RC(KUMI_ERR_STATE, kumi_barrier(kumi_team_world()), "kumi_barrier: ");
    EXPECT_RC(KUMI_ERR_STATE, kumi_finalize(), "kumi_finalize: ", "not initialized");

    capture_begin();
    void  *p   = kumi_malloc(64);
    size_t off = kumi_llcm_alloc(8);
    const char *out = capture_end();
    assert_null(p);
    assert_true(off == (size_t)-1);
    assert_non_null(strstr(out, "kumi_malloc: "));
    assert_non_null(strstr(out, "kumi_llcm_alloc: "));
    assert_null(kumi_llcm(0));
    assert_null(kumi_ptr(&v, 0));
    assert_int_equal(v, 0);                      /* nothing was written */
    assert_int_equal(w, 0);
}

/* ----------------------------------------------------------- initialized */

static void test_init(void **state)
{
    (void)state;
    double t0 = kumi_wtime();
    EXPECT_RC(KUMI_OK, kumi_init(), "");
    EXPECT_RC(KUMI_OK, kumi_init(), "");         /* twice is fine */
    assert_int_equal(kumi_rank(), 0);
    assert_int_equal(kumi_size(), 1);
    assert_string_equal(kumi_transport_name(), "shm");
    assert_non_null(kumi_team_world());
    assert_int_equal(kumi_team_rank(kumi_team_world()), 0);
    assert_int_equal(kumi_team_size(kumi_team_world()), 1);
    assert_true(kumi_wtime() >= t0);

    sym = kumi_malloc(4096);
    assert_non_null(sym);
    memset(sym, 0, 4096);
    llcm_user = kumi_llcm_alloc(64);
    assert_true(llcm_user != (size_t)-1);
    assert_true(llcm_user % 64 == 0);
}

/* the exact line of api.md */
static void test_message_format(void **state)
{
    char buf[8] = "abcdefg";
    (void)state;

    capture_begin();
    int rc = kumi_put(sym, buf, 8, 7);
    const char *out = capture_end();
    assert_int_equal(rc, KUMI_ERR_INVALID);
    assert_string_equal(out, "kumi[0]: kumi_put: pe 7 out of range (size 1)\n");

    capture_begin();
    rc = kumi_get(buf, sym, 8, -1);
    out = capture_end();
    assert_int_equal(rc, KUMI_ERR_INVALID);
    assert_string_equal(out, "kumi[0]: kumi_get: pe -1 out of range (size 1)\n");
}

static void test_bad_pe(void **state)
{
    static const int pes[] = { -1, 1, 2, 7, INT_MAX, INT_MIN };
    uint8_t  buf[16] = { 1, 2, 3 };
    uint64_t old = 0;
    uint32_t old32 = 0, *s32 = (uint32_t *)sym;
    char     msg[64];
    (void)state;

    sym[0] = 5;
    s32[4] = 6;
    for (size_t i = 0; i < sizeof(pes) / sizeof(pes[0]); i++) {
        int pe = pes[i];
        snprintf(msg, sizeof(msg), "pe %d out of range (size 1)", pe);
        EXPECT_RC(KUMI_ERR_INVALID, kumi_put(sym, buf, 8, pe), "kumi[0]: kumi_put: ", msg);
        EXPECT_RC(KUMI_ERR_INVALID, kumi_put(sym, buf, 0, pe), "kumi[0]: kumi_put: ", msg);
        EXPECT_RC(KUMI_ERR_INVALID, kumi_get(buf, sym, 8, pe), "kumi[0]: kumi_get: ", msg);
        EXPECT_RC(KUMI_ERR_INVALID, kumi_put_signal(sym + 2, buf, 8, sym + 1, 1, pe),
                  "kumi_put_signal: ", msg);
        EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_add_u64(sym, 1, pe), "kumi_atomic_add_u64: ", msg);
        EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_fetch_add_u64(sym, 1, pe, &old),
                  "kumi_atomic_fetch_add_u64: ", msg);
        EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_swap_u64(sym, 1, pe, &old),
                  "kumi_atomic_swap_u64: ", msg);
        EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_cswap_u64(sym, 5, 1, pe, &old),
                  "kumi_atomic_cswap_u64: ", msg);
        EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_add_u32(s32 + 4, 1, pe), "kumi_atomic_add_u32: ",
                  msg);
        EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_fetch_add_u32(s32 + 4, 1, pe, &old32),
                  "kumi_atomic_fetch_add_u32: ", msg);
        EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_swap_u32(s32 + 4, 1, pe, &old32),
                  "kumi_atomic_swap_u32: ", msg);
        EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_cswap_u32(s32 + 4, 6, 1, pe, &old32),
                  "kumi_atomic_cswap_u32: ", msg);
        EXPECT_RC(KUMI_ERR_INVALID, kumi_kick(pe, llcm_user, buf, 8), "kumi[0]: kumi_kick: ",
                  msg);
        assert_null(kumi_ptr(sym, pe));
    }
    /* nothing happened: no data, no atomic, no kick, old values untouched */
    assert_int_equal(sym[0], 5);
    assert_int_equal(sym[1], 0);
    assert_int_equal(s32[4], 6);
    assert_int_equal(old, 0);
    assert_int_equal(old32, 0);
    assert_int_equal(*(volatile uint64_t *)kumi_llcm(llcm_user), 0);
}

static void test_bad_address(void **state)
{
    uint8_t   local[64] = { 0 };
    uint64_t  stack_word = 0, old = 0;
    uint8_t  *end = heap_base() + heap_bytes();
    void     *libc = malloc(64);
    void     *bad[] = { local, &stack_word, end, end + 4096, heap_base() - 8, libc };
    uint64_t  zero = 0;
    (void)state;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        void *b = bad[i];
        EXPECT_RC(KUMI_ERR_INVALID, kumi_put(b, local, 8, 0), "kumi_put: ",
                  "outside the symmetric heap");
        if (b != end)     /* (end, 0 bytes) is the empty range at the end */
            EXPECT_RC(KUMI_ERR_INVALID, kumi_put(b, local, 0, 0), "kumi_put: ",
                      "outside the symmetric heap");
        EXPECT_RC(KUMI_ERR_INVALID, kumi_get(local, b, 8, 0), "kumi_get: ",
                  "outside the symmetric heap");
        EXPECT_RC(KUMI_ERR_INVALID, kumi_put_signal(b, local, 8, sym, 1, 0), "kumi_put_signal: ");
        EXPECT_RC(KUMI_ERR_INVALID, kumi_put_signal(sym + 8, local, 8, b, 1, 0),
                  "kumi_put_signal: ");
        EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_add_u64(b, 1, 0), "kumi_atomic_add_u64: ");
        EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_fetch_add_u32(b, 1, 0, (uint32_t *)&old),
                  "kumi_atomic_fetch_add_u32: ");
        EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_cswap_u64(b, 0, 1, 0, &old),
                  "kumi_atomic_cswap_u64: ");
        assert_null(kumi_ptr(b, 0));
    }
    EXPECT_RC(KUMI_ERR_INVALID, kumi_put(NULL, local, 8, 0), "kumi_put: ");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_get(local, NULL, 8, 0), "kumi_get: ");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_add_u64(NULL, 1, 0), "kumi_atomic_add_u64: ");

    /* ranges that start inside and run past the end */
    EXPECT_RC(KUMI_ERR_INVALID, kumi_put(end - 4, local, 8, 0), "kumi_put: ", "+8 bytes");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_get(local, end - 1, 2, 0), "kumi_get: ");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_put(sym, local, SIZE_MAX, 0), "kumi_put: ");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_get(local, sym, heap_bytes() + 1, 0), "kumi_get: ");
    /* ... and the last bytes inside are fine */
    local[0] = 0x5a;
    EXPECT_RC(KUMI_OK, kumi_put(end - 1, local, 1, 0), "");
    EXPECT_RC(KUMI_OK, kumi_get(local + 1, end - 1, 1, 0), "");
    assert_int_equal(local[1], 0x5a);
    EXPECT_RC(KUMI_OK, kumi_atomic_add_u64((uint64_t *)(end - 8), 1, 0), "");
    /* the heap's unused tail must stay zero: the allocator hands it out as such */
    EXPECT_RC(KUMI_OK, kumi_atomic_swap_u64((uint64_t *)(end - 8), 0, 0, &old), "");
    assert_int_equal(old, 0x5a00000000000001ull);
    EXPECT_RC(KUMI_OK, kumi_put(end - 8, &zero, 8, 0), "");

    /* NULL local buffer: bad unless the length is 0 */
    EXPECT_RC(KUMI_ERR_INVALID, kumi_put(sym, NULL, 8, 0), "kumi_put: ", "NULL");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_get(NULL, sym, 8, 0), "kumi_get: ", "NULL");
    EXPECT_RC(KUMI_OK, kumi_put(sym, NULL, 0, 0), "");
    EXPECT_RC(KUMI_OK, kumi_get(NULL, sym, 0, 0), "");
    free(libc);
}

static void test_kick(void **state)
{
    static const size_t bad_len[] = { 0, 3, 5, 6, 7, 9, 16, 64 };
    uint64_t val = 0x0807060504030201ull;
    volatile uint8_t *l = kumi_llcm(llcm_user);
    char     msg[64];
    (void)state;

    assert_non_null(l);
    for (size_t i = 0; i < sizeof(bad_len) / sizeof(bad_len[0]); i++) {
        snprintf(msg, sizeof(msg), "length %zu is not 1, 2, 4 or 8", bad_len[i]);
        EXPECT_RC(KUMI_ERR_INVALID, kumi_kick(0, llcm_user, &val, bad_len[i]),
                  "kumi[0]: kumi_kick: ", msg);
    }
    EXPECT_RC(KUMI_ERR_INVALID, kumi_kick(0, llcm_user + 1, &val, 2), "kumi_kick: ", "aligned");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_kick(0, llcm_user + 2, &val, 4), "kumi_kick: ", "aligned");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_kick(0, llcm_user + 4, &val, 8), "kumi_kick: ", "aligned");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_kick(0, llcm_user + 1, &val, 8), "kumi_kick: ", "aligned");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_kick(0, llcm_bytes(), &val, 8), "kumi_kick: ",
              "outside the LLCM");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_kick(0, llcm_bytes(), &val, 1), "kumi_kick: ",
              "outside the LLCM");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_kick(0, llcm_bytes() + 4096, &val, 4), "kumi_kick: ");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_kick(0, SIZE_MAX & ~(size_t)7, &val, 8), "kumi_kick: ");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_kick(0, llcm_user, NULL, 8), "kumi_kick: ", "NULL");
    for (int i = 0; i < 64; i++)
        assert_int_equal(l[i], 0);               /* no bad kick wrote anything */

    /* good kicks land in exactly their bytes */
    EXPECT_RC(KUMI_OK, kumi_kick(0, llcm_user + 1, &val, 1), "");
    EXPECT_RC(KUMI_OK, kumi_kick(0, llcm_user + 2, &val, 2), "");
    EXPECT_RC(KUMI_OK, kumi_kick(0, llcm_user + 4, &val, 4), "");
    EXPECT_RC(KUMI_OK, kumi_kick(0, llcm_user + 8, &val, 8), "");
    static const uint8_t want[16] = { 0, 1, 1, 2, 1, 2, 3, 4, 1, 2, 3, 4, 5, 6, 7, 8 };
    for (int i = 0; i < 16; i++) {
        if (l[i] != want[i])
            print_error("LLCM byte %d is %u, expected %u\n", i, l[i], want[i]);
        assert_int_equal(l[i], want[i]);
    }
    for (int i = 16; i < 64; i++)
        assert_int_equal(l[i], 0);
    assert_null(kumi_llcm(llcm_bytes()));
    assert_null(kumi_llcm(SIZE_MAX));
    assert_non_null(kumi_llcm(llcm_bytes() - 1));
}

static void test_atomics(void **state)
{
    uint8_t  *b = (uint8_t *)sym + 512;
    uint64_t  old = 77, *w = (uint64_t *)b;
    uint32_t  old32 = 77, *h = (uint32_t *)b;
    (void)state;

    memset(b, 0, 64);
    EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_add_u64((uint64_t *)(b + 1), 1, 0),
              "kumi_atomic_add_u64: ", "not 8-byte aligned");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_add_u64((uint64_t *)(b + 4), 1, 0),
              "kumi_atomic_add_u64: ", "not 8-byte aligned");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_fetch_add_u64((uint64_t *)(b + 2), 1, 0, &old),
              "kumi_atomic_fetch_add_u64: ", "aligned");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_swap_u64((uint64_t *)(b + 7), 1, 0, &old),
              "kumi_atomic_swap_u64: ", "aligned");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_cswap_u64((uint64_t *)(b + 4), 0, 1, 0, &old),
              "kumi_atomic_cswap_u64: ", "aligned");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_add_u32((uint32_t *)(b + 2), 1, 0),
              "kumi_atomic_add_u32: ", "not 4-byte aligned");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_fetch_add_u32((uint32_t *)(b + 1), 1, 0, &old32),
              "kumi_atomic_fetch_add_u32: ", "aligned");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_swap_u32((uint32_t *)(b + 3), 1, 0, &old32),
              "kumi_atomic_swap_u32: ", "aligned");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_cswap_u32((uint32_t *)(b + 6), 0, 1, 0, &old32),
              "kumi_atomic_cswap_u32: ", "aligned");
    /* old must not be NULL for the fetching ones */
    EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_fetch_add_u64(w, 1, 0, NULL), "fetch_add_u64: ");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_swap_u64(w, 1, 0, NULL), "swap_u64: ");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_cswap_u64(w, 0, 1, 0, NULL), "cswap_u64: ");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_fetch_add_u32(h, 1, 0, NULL), "fetch_add_u32: ");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_swap_u32(h, 1, 0, NULL), "swap_u32: ");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_atomic_cswap_u32(h, 0, 1, 0, NULL), "cswap_u32: ");
    for (int i = 0; i < 64; i++)
        assert_int_equal(b[i], 0);
    assert_int_equal(old, 77);                   /* untouched on failure */
    assert_int_equal(old32, 77);

    /* semantics on myself */
    EXPECT_RC(KUMI_OK, kumi_atomic_add_u64(w, 5, 0), "");
    EXPECT_RC(KUMI_OK, kumi_atomic_fetch_add_u64(w, 3, 0, &old), "");
    assert_int_equal(old, 5);
    EXPECT_RC(KUMI_OK, kumi_atomic_swap_u64(w, 0xfedcba9876543210ull, 0, &old), "");
    assert_int_equal(old, 8);
    EXPECT_RC(KUMI_OK, kumi_atomic_cswap_u64(w, 1, 2, 0, &old), "");     /* fails */
    assert_true(old == 0xfedcba9876543210ull);
    assert_true(w[0] == 0xfedcba9876543210ull);
    EXPECT_RC(KUMI_OK, kumi_atomic_cswap_u64(w, 0xfedcba9876543210ull, 2, 0, &old), "");
    assert_true(old == 0xfedcba9876543210ull);
    assert_int_equal(w[0], 2);
    /* a u32 wraps without touching its neighbours */
    h[2] = 0xffffffffu;
    h[3] = 0x12345678u;
    EXPECT_RC(KUMI_OK, kumi_atomic_fetch_add_u32(h + 2, 1, 0, &old32), "");
    assert_int_equal(old32, 0xffffffffu);
    assert_int_equal(h[2], 0);
    assert_int_equal(h[3], 0x12345678u);
    assert_int_equal(h[1], 0);
    EXPECT_RC(KUMI_OK, kumi_atomic_cswap_u32(h + 3, 0x12345678u, 0xabcdef01u, 0, &old32), "");
    assert_int_equal(old32, 0x12345678u);
    assert_int_equal(h[3], 0xabcdef01u);
    assert_int_equal(h[2], 0);
}

static void test_put_signal(void **state)
{
    uint8_t  src[100];
    uint64_t *sig = sym + 1;
    (void)state;

    for (int i = 0; i < 100; i++)
        src[i] = (uint8_t)(i * 7 + 1);
    EXPECT_RC(KUMI_ERR_INVALID, kumi_put_signal(sym + 16, src, 100, (uint64_t *)((uint8_t *)sig + 4),
                                                1, 0), "kumi_put_signal: ", "8-byte aligned");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_put_signal(sym + 16, src, 100, NULL, 1, 0),
              "kumi_put_signal: ");
    *sig = 0;
    EXPECT_RC(KUMI_OK, kumi_put_signal(sym + 16, src, 100, sig, 0x1122334455667788ull, 0), "");
    assert_true(*sig == 0x1122334455667788ull);
    assert_memory_equal(sym + 16, src, 100);
    EXPECT_RC(KUMI_OK, kumi_put_signal(sym + 16, NULL, 0, sig, 9, 0), "");
    assert_int_equal(*sig, 9);
}

static void test_wait_args(void **state)
{
    static uint64_t word[2] __attribute__((aligned(8)));
    volatile uint64_t *w64 = word;
    volatile uint32_t *w32 = (volatile uint32_t *)word;
    volatile uint8_t  *w8  = (volatile uint8_t *)word;
    (void)state;

    word[0] = 5;
    EXPECT_RC(KUMI_ERR_INVALID, kumi_wait_until_u64(w64, 6, 5), "kumi_wait_until_u64: ",
              "comparison");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_wait_until_u64(w64, -1, 5), "kumi_wait_until_u64: ");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_wait_until_u32(w32, 99, 5), "kumi_wait_until_u32: ");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_wait_until_u8(w8, 6, 5), "kumi_wait_until_u8: ");
    EXPECT_RC(KUMI_ERR_INVALID,
              kumi_wait_until_u64((volatile uint64_t *)((volatile uint8_t *)word + 4), KUMI_CMP_EQ, 0),
              "kumi_wait_until_u64: ", "aligned");
    EXPECT_RC(KUMI_ERR_INVALID,
              kumi_wait_until_u32((volatile uint32_t *)((volatile uint8_t *)word + 2), KUMI_CMP_EQ, 0),
              "kumi_wait_until_u32: ", "aligned");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_wait_until_u64(NULL, KUMI_CMP_EQ, 0),
              "kumi_wait_until_u64: ");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_test_u64(w64, 6, 5), "kumi_test_u64: ");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_test_u32(w32, -1, 5), "kumi_test_u32: ");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_test_u8(w8, 17, 5), "kumi_test_u8: ");
    EXPECT_RC(KUMI_ERR_INVALID, kumi_test_u64(NULL, KUMI_CMP_EQ, 5), "kumi_test_u64: ");
    /* conditions that already hold return at once */
    EXPECT_RC(KUMI_OK, kumi_wait_until_u64(w64, KUMI_CMP_EQ, 5), "");
    EXPECT_RC(KUMI_OK, kumi_wait_until_u64(w64, KUMI_CMP_LE, 5), "");
    EXPECT_RC(KUMI_OK, kumi_wait_until_u32(w32, KUMI_CMP_GT, 4), "");
    EXPECT_RC(KUMI_OK, kumi_wait_until_u8(w8, KUMI_CMP_NE, 4), "");
    EXPECT_RC(1, kumi_test_u64(w64, KUMI_CMP_GE, 5), "");
    EXPECT_RC(0, kumi_test_u64(w64, KUMI_CMP_GT, 5), "");
}

static void test_heap_args(void **state)
{
    int local = 0;
    (void)state;

    capture_begin();
    void *a = kumi_align(3, 64);
    void *b = kumi_align(0, 64);
    void *c = kumi_calloc(SIZE_MAX / 2 + 1, 2);
    const char *out = capture_end();
    assert_null(a);
    assert_null(b);
    assert_null(c);
    assert_int_equal(count_lines(out), 3);
    assert_non_null(strstr(out, "kumi[0]: kumi_align: alignment 3 is not a power of 2"));
    assert_non_null(strstr(out, "kumi[0]: kumi_calloc: "));

    capture_begin();
    kumi_free(&local);
    out = capture_end();
    assert_non_null(strstr(out, "kumi[0]: kumi_free: "));
    assert_non_null(strstr(out, "not in the symmetric heap"));

    capture_begin();
    kumi_free(NULL);
    void *z = kumi_malloc(0);
    out = capture_end();
    assert_null(z);
    assert_string_equal(out, "");

    assert_ptr_equal(kumi_ptr(sym, 0), sym);
    assert_null(kumi_ptr(&local, 0));
    EXPECT_RC(KUMI_ERR_INVALID, kumi_barrier(NULL), "kumi_barrier: ");
    EXPECT_RC(KUMI_OK, kumi_barrier(kumi_team_world()), "");
    EXPECT_RC(KUMI_OK, kumi_fence(), "");
    EXPECT_RC(KUMI_OK, kumi_quiet(), "");
}

/* ------------------------------------------------------------- finalized */

static void test_finalize(void **state)
{
    uint64_t old, v = 0;
    int      x = 1;
    (void)state;

    EXPECT_RC(KUMI_OK, kumi_finalize(), "");
    EXPECT_RC(KUMI_ERR_STATE, kumi_finalize(), "kumi[0]: kumi_finalize: ", "already finalized");
    EXPECT_RC(KUMI_ERR_STATE, kumi_init(), "kumi_init: ");
    assert_int_equal(kumi_rank(), -1);
    assert_int_equal(kumi_size(), 0);
    assert_string_equal(kumi_transport_name(), "none");
    assert_null(kumi_team_world());

    EXPECT_RC(KUMI_ERR_STATE, kumi_put(sym, &x, 1, 0), "kumi_put: ", "already finalized");
    EXPECT_RC(KUMI_ERR_STATE, kumi_get(&x, sym, 1, 0), "kumi_get: ", "already finalized");
    EXPECT_RC(KUMI_ERR_STATE, kumi_put_signal(sym, &x, 1, sym + 1, 1, 0), "kumi_put_signal: ");
    EXPECT_RC(KUMI_ERR_STATE, kumi_atomic_fetch_add_u64(sym, 1, 0, &old),
              "kumi_atomic_fetch_add_u64: ");
    EXPECT_RC(KUMI_ERR_STATE, kumi_atomic_cswap_u32((uint32_t *)sym, 0, 1, 0, (uint32_t *)&old),
              "kumi_atomic_cswap_u32: ");
    EXPECT_RC(KUMI_ERR_STATE, kumi_kick(0, llcm_user, &x, 4), "kumi_kick: ");
    EXPECT_RC(KUMI_ERR_STATE, kumi_fence(), "kumi_fence: ");
    EXPECT_RC(KUMI_ERR_STATE, kumi_quiet(), "kumi_quiet: ");
    EXPECT_RC(KUMI_ERR_STATE, kumi_barrier(&kumi_rt.world), "kumi_barrier: ");
    EXPECT_RC(KUMI_ERR_STATE, kumi_wait_until_u64(&v, KUMI_CMP_EQ, 0), "kumi_wait_until_u64: ");

    capture_begin();
    void  *p   = kumi_malloc(8);
    size_t off = kumi_llcm_alloc(8);
    capture_end();
    assert_null(p);
    assert_true(off == (size_t)-1);
    assert_null(kumi_llcm(0));
    assert_null(kumi_ptr(sym, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_before_init),
        cmocka_unit_test(test_init),
        cmocka_unit_test(test_message_format),
        cmocka_unit_test(test_bad_pe),
        cmocka_unit_test(test_bad_address),
        cmocka_unit_test(test_kick),
        cmocka_unit_test(test_atomics),
        cmocka_unit_test(test_put_signal),
        cmocka_unit_test(test_wait_args),
        cmocka_unit_test(test_heap_args),
        cmocka_unit_test(test_finalize),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
