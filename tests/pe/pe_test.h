/* pe_test.h -- what every multi-PE test program shares: CHECK (print where
 * and why, exit 1), OK (a kumi call must succeed), BARRIER, and capturing
 * this process's stderr to assert on kumi's messages. */
#ifndef KUMI_PE_TEST_H
#define KUMI_PE_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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

/* Marks: a handshake through files, for a PE that must wait for others
 * without any kumi call (a victim that must serve no more requests before
 * it dies). pe_test_marks_begin() is collective: PE 0 makes a directory
 * and every PE gets its name. pe_test_mark() records that this PE got
 * where it waits (past its last message from the victim, about to block);
 * pe_test_wait_marks() waits until every PE but `skip` has, at most
 * `seconds` (then CHECK fails: nothing hangs), and removes the marks. */
typedef struct {
    char dir[64];
} pe_test_marks_t;

static inline void pe_test_marks_begin(pe_test_marks_t *m)
{
    memset(m, 0, sizeof *m);
    if (kumi_rank() == 0) {
        const char *t = getenv("TMPDIR");
        snprintf(m->dir, sizeof m->dir, "%s/kumi-marks-XXXXXX",
                 t != NULL && strlen(t) < 32 ? t : "/tmp");
        CHECK(mkdtemp(m->dir) != NULL, "mkdtemp(%s): %s", m->dir, strerror(errno));
    }
    OK(kumi_broadcast(kumi_team_world(), m, sizeof *m, 0));
}

static inline void pe_test_mark(const pe_test_marks_t *m)
{
    char path[96];
    snprintf(path, sizeof path, "%s/%d", m->dir, kumi_rank());
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    CHECK(fd >= 0, "open(%s): %s", path, strerror(errno));
    close(fd);
}

static inline void pe_test_wait_marks(const pe_test_marks_t *m, int skip, double seconds)
{
    struct timespec nap = { 0, 1000000L }, t0, t;
    char            path[96];
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int pe = 0; pe < kumi_size(); pe++) {
        if (pe == skip)
            continue;
        snprintf(path, sizeof path, "%s/%d", m->dir, pe);
        while (access(path, F_OK) != 0) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            CHECK((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) < seconds,
                  "PE %d did not reach its mark (%s) within %.0f s", pe, path, seconds);
            nanosleep(&nap, NULL);
        }
    }
    for (int pe = 0; pe < kumi_size(); pe++) {
        snprintf(path, sizeof path, "%s/%d", m->dir, pe);
        unlink(path);
    }
    rmdir(m->dir);
}

#endif /* KUMI_PE_TEST_H */
