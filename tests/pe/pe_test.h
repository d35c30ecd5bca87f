/* pe_test.h -- what every multi-PE test program shares: CHECK (print where
 * and why, exit 1), OK (a kumi call must succeed), BARRIER, and capturing
 * this process's stderr to assert on kumi's messages. */
#ifndef KUMI_PE_TEST_H
#define KUMI_PE_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kumi.h>

#define CHECK(cond, ...)                                                              \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "FAIL %s:%d pe %d: %s: ", __FILE_NAME__, __LINE__,        \
                    kumi_rank(), #cond);                                              \
            fprintf(stderr, __VA_ARGS__);                                             \
            fputc('\n', stderr);                                                      \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)
#define OK(call)                                                                      \
    do {                                                                              \
        int rc_ = (call);                                                             \
        CHECK(rc_ == KUMI_OK, "%s", kumi_strerror(rc_));                              \
    } while (0)
#define BARRIER() OK(kumi_barrier(kumi_team_world()))

static int   pe_test_saved_fd = -1;
static FILE *pe_test_cap;
static char  pe_test_captured[8192];

/* Sends stderr to a temporary file until capture_end(). */
static inline void capture_begin(void)
{
    fflush(stderr);
    pe_test_cap = tmpfile();
    CHECK(pe_test_cap != NULL, "tmpfile");
    pe_test_saved_fd = dup(2);
    dup2(fileno(pe_test_cap), 2);
}

/* Restores stderr; returns what was written meanwhile. */
static inline const char *capture_end(void)
{
    fflush(stderr);
    dup2(pe_test_saved_fd, 2);
    close(pe_test_saved_fd);
    rewind(pe_test_cap);
    size_t n = fread(pe_test_captured, 1, sizeof(pe_test_captured) - 1, pe_test_cap);
    pe_test_captured[n] = '\0';
    fclose(pe_test_cap);
    return pe_test_captured;
}

#endif /* KUMI_PE_TEST_H */
