/*
 * amo_bad_args.c -- bad arguments to the atomics, waits, tests and locks:
 * each makes exactly one line on stderr, "kumi[pe]: <the shmem call>:
 * <why>", returns (0, SIZE_MAX or nothing) and the program goes on; no
 * crash, no hang. stderr is captured around each call and checked here;
 * the last message also reaches kumirun's output (amo.cmake matches it).
 */
#include <unistd.h>

#include "amo_test.h"

static int  me, npes;
static long sym_long[2];
static int  sym_int;
static long lock;

static int   saved_fd = -1;
static FILE *cap;
static char  captured[4096];

static void capture_begin(void)
{
    fflush(stderr);
    cap = tmpfile();
    CHECK(cap != NULL, "tmpfile");
    saved_fd = dup(2);
    dup2(fileno(cap), 2);
}

static const char *capture_end(void)
{
    fflush(stderr);
    dup2(saved_fd, 2);
    close(saved_fd);
    rewind(cap);
    size_t n = fread(captured, 1, sizeof captured - 1, cap);
    captured[n] = '\0';
    fclose(cap);
    return captured;
}

/* the one line expected: "kumi[me]: call: ...what..." */
static void expect_line(const char *out, const char *call, const char *what, int line)
{
    char head[128];
    snprintf(head, sizeof head, "kumi[%d]: %s: ", me, call);
    CHECK(strncmp(out, head, strlen(head)) == 0, "line %d: expected \"%s\", got \"%s\"", line,
          head, out);
    CHECK(strstr(out, what) != NULL, "line %d: no \"%s\" in \"%s\"", line, what, out);
    const char *nl = strchr(out, '\n');
    CHECK(nl != NULL && nl[1] == '\0', "line %d: not exactly one line: \"%s\"", line, out);
}

#define BAD(stmt, call, what)                                                                \
    do {                                                                                     \
        capture_begin();                                                                     \
        stmt;                                                                                \
        expect_line(capture_end(), call, what, __LINE__);                                    \
    } while (0)

int main(void)
{
    long   stack_long = 0;
    int    stack_int = 0;
    long  *heap;
    size_t idx[2];

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    heap = shmem_calloc(4, sizeof(long));
    CHECK(heap != NULL, "shmem_calloc");

    /* atomics: a PE out of range (both ends), a non-symmetric address, a
     * misaligned one, the invalid context */
    BAD(CHECK(shmem_long_atomic_fetch_add(sym_long, 1, npes) == 0, "value"),
        "shmem_long_atomic_fetch_add", "out of range");
    BAD(shmem_int_atomic_inc(&sym_int, -1), "shmem_int_atomic_inc", "pe -1 out of range");
    BAD(shmem_ctx_ulong_atomic_or(SHMEM_CTX_DEFAULT, (unsigned long *)sym_long, 1, npes + 3),
        "shmem_ctx_ulong_atomic_or", "out of range");
    BAD(CHECK(shmem_int_atomic_compare_swap(&stack_int, 0, 1, 0) == 0, "value"),
        "shmem_int_atomic_compare_swap", "is outside the symmetric heap");
    BAD(shmem_double_atomic_set((double *)&stack_long, 1.0, 0), "shmem_double_atomic_set",
        "is outside the symmetric heap");
    BAD(CHECK(shmem_long_atomic_fetch((long *)((char *)heap + 4), 0) == 0, "value"),
        "shmem_long_atomic_fetch", "not 8-byte aligned");
    {
        long f = 7;
        BAD(shmem_long_atomic_fetch_add_nbi(&f, &stack_long, 1, 0),
            "shmem_long_atomic_fetch_add_nbi", "is outside the symmetric heap");
    }
    BAD(shmem_ctx_long_atomic_add(SHMEM_CTX_INVALID, sym_long, 1, 0),
        "shmem_ctx_long_atomic_add", "SHMEM_CTX_INVALID");
    BAD(shmem_int_finc(&stack_int, 0), "shmem_int_finc", "is outside the symmetric heap");
    BAD((shmem_swap)(sym_long, 1, npes), "shmem_swap", "out of range");
    CHECK(sym_long[0] == 0 && sym_int == 0 && stack_int == 0, "a bad call changed memory");

    /* waits and tests: a bad comparison, a non-symmetric or NULL object,
     * missing cmp_values or indices (the call returns at once) */
    BAD(shmem_long_wait_until(sym_long, 42, 0), "shmem_long_wait_until", "bad comparison 42");
    BAD(CHECK(shmem_int_test(&sym_int, -1, 0) == 0, "value"), "shmem_int_test",
        "bad comparison -1");
    BAD(shmem_long_wait_until(&stack_long, SHMEM_CMP_EQ, 1), "shmem_long_wait_until",
        "is outside the symmetric heap");
    BAD(CHECK(shmem_long_wait_until_any(NULL, 2, NULL, SHMEM_CMP_EQ, 0) == SIZE_MAX, "value"),
        "shmem_long_wait_until_any", "is NULL");
    BAD(CHECK(shmem_long_test_some(sym_long, 2, NULL, NULL, SHMEM_CMP_EQ, 0) == 0, "value"),
        "shmem_long_test_some", "indices is NULL");
    BAD(shmem_long_wait_until_all_vector(sym_long, 2, NULL, SHMEM_CMP_EQ, NULL),
        "shmem_long_wait_until_all_vector", "cmp_values is NULL");
    BAD(CHECK(shmem_short_test_any((short *)((char *)&sym_int + 1), 1, NULL, SHMEM_CMP_EQ, 0)
              == SIZE_MAX, "value"),
        "shmem_short_test_any", "not 2-byte aligned");
    BAD(shmem_int_wait(&stack_int, 0), "shmem_int_wait", "is outside the symmetric heap");
    (void)idx;

    /* locks: non-symmetric, misaligned, set twice, clear when not held */
    BAD(shmem_set_lock(&stack_long), "shmem_set_lock", "is outside the symmetric heap");
    BAD(CHECK(shmem_test_lock((long *)((char *)heap + 2)) == 1, "value"), "shmem_test_lock",
        "not 8-byte aligned");
    BAD(shmem_clear_lock(&lock), "shmem_clear_lock", "not held by this PE");
    shmem_barrier_all();
    if (me == 0) {
        shmem_set_lock(&lock);
        BAD(shmem_set_lock(&lock), "shmem_set_lock", "already held by this PE");
        shmem_clear_lock(&lock);
        BAD(shmem_clear_lock(&lock), "shmem_clear_lock", "not held by this PE");
    }
    shmem_barrier_all();
    /* the lock still works for everyone */
    shmem_set_lock(&lock);
    shmem_long_atomic_inc(&sym_long[1], 0);
    shmem_clear_lock(&lock);
    shmem_barrier_all();
    if (me == 0)
        CHECK(sym_long[1] == npes, "lock after bad calls: %ld", sym_long[1]);

    /* and once to kumirun's output, for amo.cmake's regex */
    shmem_long_atomic_fetch_add(sym_long, 1, npes + me);
    shmem_barrier_all();
    shmem_free(heap);
    shmem_finalize();
    return 0;
}
