/*
 * libc.c -- the wrappers translated OpenMP code calls instead of libc
 * functions that read or write memory through pointers (string.h,
 * stdlib.h, time.h, math.h's pointer outputs). The list is
 * libc_wrap.def; kumi-translate --openmp renames a call to name into
 * kumi_omp_libc_name. Each wrapper makes the DSM parts of its ranges
 * valid at once (kumi_omp_acquire) and then calls libc, which runs
 * untranslated code on plain memory. Where libc would call back into the
 * program (qsort's and bsearch's comparators may miss, and a miss serves
 * requests that can take the array's lines away) the wrapper works on a
 * private copy instead. stdio lives in libc_stdio.c.
 *
 * Ending the job: exit, _Exit, quick_exit and abort from any PE end the
 * whole job with that status (abort: 134, as a shell reports SIGABRT);
 * for exit a worker first has PE 0 flush its streams, where its output
 * went (the others flush nothing, as in one process).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "libc_io.h"
#include "rt.h"
#include "check.h"

/* ----------------------------------------------------------- helpers */

_Noreturn void kumi_omp_fail(const char *call, const char *fmt, ...)
{
    char    msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    kumi_rt_error(KUMI_ERR_INVALID, call, "%s", msg);
    kumi_global_exit(1);
}

static int range_in_dsm(const struct kumi_omp_range *r)
{
    return r->p != NULL && r->n != 0 && kumi_dsm_is_shared(r->p);
}

void kumi_omp_acquire(const char *call, const struct kumi_omp_range *r, int n)
{
    for (int pass = 0;; pass++) {
        for (int i = 0; i < n; i++)
            if (range_in_dsm(&r[i]) && kumi_dsm_acquire(r[i].p, r[i].n, r[i].mode) != KUMI_OK)
                kumi_omp_fail(call, "cannot make [%p, +%zu) valid", r[i].p, r[i].n);
        if (n == 1)
            return;   /* one acquire is valid as a whole on return */
        int ok = 1;
        for (int i = 0; i < n && ok; i++)
            if (range_in_dsm(&r[i]))
                ok = kumi_dsm_ready((uintptr_t)r[i].p, (uintptr_t)r[i].p + r[i].n,
                                    (r[i].mode & KUMI_DSM_WRITE) != 0);
        if (ok)
            return;
        if (pass > 1000)
            kumi_omp_fail(call, "%d ranges did not stay valid together over 1000 passes "
                          "(other PEs keep taking them)", n);
    }
}

void kumi_omp_acquire1(const char *call, const void *p, size_t n, int mode)
{
    struct kumi_omp_range r = { p, n, mode };
    kumi_omp_acquire(call, &r, 1);
}

size_t kumi_omp_strnlen_acquire(const char *call, const char *s, size_t max)
{
    if (s == NULL || !kumi_dsm_is_shared(s))
        return s == NULL ? 0 : strnlen(s, max);
    size_t len = 0;
    for (;;) {
        const char *p    = s + len;
        size_t      line = KUMI_DSM_LINE - ((uintptr_t)p & (KUMI_DSM_LINE - 1));
        if (line > max - len)
            line = max - len;
        if (line == 0)
            break;
        kumi_omp_acquire1(call, p, line, KUMI_DSM_READ);
        const char *z = memchr(p, '\0', line);
        if (z != NULL) {
            len += (size_t)(z - p);
            kumi_omp_acquire1(call, s, len + 1, KUMI_DSM_READ);
            return len;
        }
        len += line;
    }
    kumi_omp_acquire1(call, s, len, KUMI_DSM_READ);
    return len;
}

void kumi_omp_store_ptr(const char *call, void **dst, void *v)
{
    if (dst == NULL)
        return;
    if (!kumi_dsm_is_shared(dst)) {
        *dst = v;
        return;
    }
    if (kumi_dsm_write(dst, &v, sizeof v) != KUMI_OK)
        kumi_omp_fail(call, "cannot store to %p", (void *)dst);
}

/* Copies n bytes between memory that may be DSM and private memory. */
static void get_bytes(const char *call, void *dst, const void *src, size_t n)
{
    if (n == 0)
        return;
    if (!kumi_dsm_is_shared(src))
        memcpy(dst, src, n);
    else if (kumi_dsm_read(dst, src, n) != KUMI_OK)
        kumi_omp_fail(call, "cannot read [%p, +%zu)", src, n);
}

static void put_bytes(const char *call, void *dst, const void *src, size_t n)
{
    if (n == 0 || dst == NULL)
        return;
    if (!kumi_dsm_is_shared(dst))
        memcpy(dst, src, n);
    else if (kumi_dsm_write(dst, src, n) != KUMI_OK)
        kumi_omp_fail(call, "cannot write [%p, +%zu)", dst, n);
}

#define RD(p, n) { (p), (n), KUMI_DSM_READ }
#define WR(p, n) { (p), (n), KUMI_DSM_WRITE }
#define ACQ(call, ...)                                                             \
    do {                                                                           \
        const struct kumi_omp_range r_[] = { __VA_ARGS__ };                        \
        kumi_omp_acquire(call, r_, (int)(sizeof r_ / sizeof r_[0]));               \
    } while (0)

/* Length of a string argument, acquired (the acquire is redone with the
 * other ranges of the call). */
#define SLEN(s) kumi_omp_strnlen_acquire(__func__, (s), SIZE_MAX)

/* ---------------------------------------------------------- string.h */

void *kumi_omp_libc_memcpy(void *d, const void *s, size_t n)
{
    kumi_dsm_memmove(d, s, n);
    return d;
}

void *kumi_omp_libc_memmove(void *d, const void *s, size_t n)
{
    kumi_dsm_memmove(d, s, n);
    return d;
}

void *kumi_omp_libc_mempcpy(void *d, const void *s, size_t n)
{
    kumi_dsm_memmove(d, s, n);
    return (char *)d + n;
}

/* Big ranges go in chunks: one acquire of a whole large array would
 * have to hold every line at once while other PEs keep asking for some. */
#define CHUNK ((size_t)64 << 10)

void *kumi_omp_libc_memset(void *d, int c, size_t n)
{
    for (size_t at = 0; at < n; at += CHUNK) {
        size_t k = n - at < CHUNK ? n - at : CHUNK;
        ACQ("memset", WR((char *)d + at, k));
        memset((char *)d + at, c, k);
    }
    return d;
}

void kumi_omp_libc_bzero(void *d, size_t n)
{
    kumi_omp_libc_memset(d, 0, n);
}

static int cmp_chunked(const char *call, const void *a, const void *b, size_t n)
{
    for (size_t at = 0; at < n; at += CHUNK) {
        size_t k = n - at < CHUNK ? n - at : CHUNK;
        ACQ(call, RD((const char *)a + at, k), RD((const char *)b + at, k));
        int r = memcmp((const char *)a + at, (const char *)b + at, k);
        if (r != 0)
            return r;
    }
    return 0;
}

int kumi_omp_libc_memcmp(const void *a, const void *b, size_t n)
{
    return cmp_chunked("memcmp", a, b, n);
}

int kumi_omp_libc_bcmp(const void *a, const void *b, size_t n)
{
    return cmp_chunked("bcmp", a, b, n);
}

void *kumi_omp_libc_memchr(const void *s, int c, size_t n)
{
    for (size_t at = 0; at < n; at += CHUNK) {
        size_t k = n - at < CHUNK ? n - at : CHUNK;
        ACQ("memchr", RD((const char *)s + at, k));
        void *r = memchr((const char *)s + at, c, k);
        if (r != NULL)
            return r;
    }
    return NULL;
}

void *kumi_omp_libc_memrchr(const void *s, int c, size_t n)
{
    ACQ("memrchr", RD(s, n));
    return memrchr(s, c, n);
}

size_t kumi_omp_libc_strlen(const char *s)
{
    return SLEN(s);
}

size_t kumi_omp_libc_strnlen(const char *s, size_t max)
{
    return kumi_omp_strnlen_acquire("strnlen", s, max);
}

char *kumi_omp_libc_strcpy(char *d, const char *s)
{
    size_t n = SLEN(s) + 1;
    ACQ("strcpy", RD(s, n), WR(d, n));
    return memmove(d, s, n);
}

char *kumi_omp_libc_stpcpy(char *d, const char *s)
{
    size_t n = SLEN(s);
    ACQ("stpcpy", RD(s, n + 1), WR(d, n + 1));
    memmove(d, s, n + 1);
    return d + n;
}

char *kumi_omp_libc_strncpy(char *d, const char *s, size_t n)
{
    size_t k = kumi_omp_strnlen_acquire("strncpy", s, n);
    ACQ("strncpy", RD(s, k), WR(d, n));
    return strncpy(d, s, n);
}

char *kumi_omp_libc_stpncpy(char *d, const char *s, size_t n)
{
    size_t k = kumi_omp_strnlen_acquire("stpncpy", s, n);
    ACQ("stpncpy", RD(s, k), WR(d, n));
    return stpncpy(d, s, n);
}

char *kumi_omp_libc_strcat(char *d, const char *s)
{
    size_t ld = SLEN(d), ls = SLEN(s);
    ACQ("strcat", RD(s, ls + 1), WR(d, ld + ls + 1));
    return strcat(d, s);
}

char *kumi_omp_libc_strncat(char *d, const char *s, size_t n)
{
    size_t ld = SLEN(d), ls = kumi_omp_strnlen_acquire("strncat", s, n);
    ACQ("strncat", RD(s, ls), WR(d, ld + ls + 1));
    return strncat(d, s, n);
}

#define TWO_STRINGS(name, expr)                                                    \
    {                                                                              \
        size_t la = SLEN(a) + 1, lb = SLEN(b) + 1;                                 \
        ACQ(name, RD(a, la), RD(b, lb));                                           \
        return expr;                                                               \
    }

int kumi_omp_libc_strcmp(const char *a, const char *b) TWO_STRINGS("strcmp", strcmp(a, b))
int kumi_omp_libc_strcoll(const char *a, const char *b) TWO_STRINGS("strcoll", strcoll(a, b))
int kumi_omp_libc_strcasecmp(const char *a, const char *b)
    TWO_STRINGS("strcasecmp", strcasecmp(a, b))
char *kumi_omp_libc_strstr(const char *a, const char *b) TWO_STRINGS("strstr", strstr(a, b))
char *kumi_omp_libc_strcasestr(const char *a, const char *b)
    TWO_STRINGS("strcasestr", strcasestr(a, b))
size_t kumi_omp_libc_strspn(const char *a, const char *b) TWO_STRINGS("strspn", strspn(a, b))
size_t kumi_omp_libc_strcspn(const char *a, const char *b)
    TWO_STRINGS("strcspn", strcspn(a, b))
char *kumi_omp_libc_strpbrk(const char *a, const char *b) TWO_STRINGS("strpbrk", strpbrk(a, b))

#define TWO_STRINGS_N(name, expr)                                                  \
    {                                                                              \
        size_t la = kumi_omp_strnlen_acquire(name, a, n);                          \
        size_t lb = kumi_omp_strnlen_acquire(name, b, n);                          \
        ACQ(name, RD(a, la < n ? la + 1 : n), RD(b, lb < n ? lb + 1 : n));         \
        return expr;                                                               \
    }

int kumi_omp_libc_strncmp(const char *a, const char *b, size_t n)
    TWO_STRINGS_N("strncmp", strncmp(a, b, n))
int kumi_omp_libc_strncasecmp(const char *a, const char *b, size_t n)
    TWO_STRINGS_N("strncasecmp", strncasecmp(a, b, n))

char *kumi_omp_libc_strchr(const char *s, int c)
{
    SLEN(s);
    return strchr(s, c);
}

char *kumi_omp_libc_strrchr(const char *s, int c)
{
    SLEN(s);
    return strrchr(s, c);
}

size_t kumi_omp_libc_strxfrm(char *d, const char *s, size_t n)
{
    size_t ls = SLEN(s);
    ACQ("strxfrm", RD(s, ls + 1), WR(d, n));
    return strxfrm(d, s, n);
}

/* strtok's hidden position is this PE's (threads of one process share
 * it; OpenMP programs must not rely on either). */
static char *strtok_pos;

char *kumi_omp_libc_strtok_r(char *s, const char *delim, char **save)
{
    char *pos;
    if (s != NULL)
        pos = s;
    else
        get_bytes("strtok_r", &pos, save, sizeof pos);
    if (pos == NULL)
        return NULL;
    size_t lp = SLEN(pos), ld = SLEN(delim);
    ACQ("strtok_r", WR(pos, lp + 1), RD(delim, ld + 1));
    char *tok = strtok_r(pos, delim, &pos);
    kumi_omp_store_ptr("strtok_r", (void **)save, pos);
    return tok;
}

char *kumi_omp_libc_strtok(char *s, const char *delim)
{
    return kumi_omp_libc_strtok_r(s, delim, &strtok_pos);
}

char *kumi_omp_libc_strsep(char **sp, const char *delim)
{
    char *s;
    get_bytes("strsep", &s, sp, sizeof s);
    if (s == NULL)
        return NULL;
    size_t ls = SLEN(s), ld = SLEN(delim);
    ACQ("strsep", WR(s, ls + 1), RD(delim, ld + 1));
    char *tok = strsep(&s, delim);
    kumi_omp_store_ptr("strsep", (void **)sp, s);
    return tok;
}

/* ---------------------------------------------------------- stdlib.h */

#define STR_TO(T, name, ...)                                                       \
    {                                                                              \
        char *end;                                                                 \
        size_t l = SLEN(s);                                                        \
        ACQ(#name, RD(s, l + 1));                                                  \
        T v = name(__VA_ARGS__);                                                   \
        if (endp != NULL)                                                          \
            kumi_omp_store_ptr(#name, (void **)endp, end);                         \
        return v;                                                                  \
    }

long kumi_omp_libc_strtol(const char *s, char **endp, int b) STR_TO(long, strtol, s, &end, b)
unsigned long kumi_omp_libc_strtoul(const char *s, char **endp, int b)
    STR_TO(unsigned long, strtoul, s, &end, b)
long long kumi_omp_libc_strtoll(const char *s, char **endp, int b)
    STR_TO(long long, strtoll, s, &end, b)
unsigned long long kumi_omp_libc_strtoull(const char *s, char **endp, int b)
    STR_TO(unsigned long long, strtoull, s, &end, b)
double kumi_omp_libc_strtod(const char *s, char **endp) STR_TO(double, strtod, s, &end)
float kumi_omp_libc_strtof(const char *s, char **endp) STR_TO(float, strtof, s, &end)
long double kumi_omp_libc_strtold(const char *s, char **endp)
    STR_TO(long double, strtold, s, &end)

int kumi_omp_libc_atoi(const char *s)
{
    SLEN(s);
    return atoi(s);
}

long kumi_omp_libc_atol(const char *s)
{
    SLEN(s);
    return atol(s);
}

long long kumi_omp_libc_atoll(const char *s)
{
    SLEN(s);
    return atoll(s);
}

double kumi_omp_libc_atof(const char *s)
{
    SLEN(s);
    return atof(s);
}

char *kumi_omp_libc_getenv(const char *name)
{
    SLEN(name);
    return getenv(name);
}

/* The comparator is program code: it may miss, and a miss serves
 * requests that could take the array away from under libc, so the sort
 * runs on a private copy that is written back. */
void kumi_omp_libc_qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n == 0 || size == 0)
        return;
    if (!kumi_dsm_is_shared(base)) {
        qsort(base, n, size, cmp);
        return;
    }
    if (n > SIZE_MAX / size)
        kumi_omp_fail("qsort", "%zu x %zu bytes overflows", n, size);
    void *copy = malloc(n * size);
    if (copy == NULL)
        kumi_omp_fail("qsort", "out of memory for a private copy of %zu bytes", n * size);
    get_bytes("qsort", copy, base, n * size);
    qsort(copy, n, size, cmp);
    put_bytes("qsort", base, copy, n * size);
    free(copy);
}

void *kumi_omp_libc_bsearch(const void *key, const void *base, size_t n, size_t size,
                            int (*cmp)(const void *, const void *))
{
    if (n == 0 || size == 0 || !kumi_dsm_is_shared(base))
        return bsearch(key, base, n, size, cmp);
    if (n > SIZE_MAX / size)
        kumi_omp_fail("bsearch", "%zu x %zu bytes overflows", n, size);
    char *copy = malloc(n * size);
    if (copy == NULL)
        kumi_omp_fail("bsearch", "out of memory for a private copy of %zu bytes", n * size);
    get_bytes("bsearch", copy, base, n * size);
    char     *r   = bsearch(key, copy, n, size, cmp);
    ptrdiff_t off = r == NULL ? -1 : r - copy;
    free(copy);
    return off < 0 ? NULL : (char *)base + off;
}

#define RNG48(RT, name)                                                            \
    RT kumi_omp_libc_##name(unsigned short x[3])                                   \
    {                                                                              \
        ACQ(#name, WR(x, 3 * sizeof x[0]));                                        \
        return name(x);                                                            \
    }
RNG48(double, erand48)
RNG48(long, nrand48)
RNG48(long, jrand48)

int kumi_omp_libc_rand_r(unsigned *seed)
{
    ACQ("rand_r", WR(seed, sizeof *seed));
    return rand_r(seed);
}

/* ----------------------------------------------------- ending the job */


/* PE 0: exit() as usual (its atexit handlers and buffers run; the
 * start-up's on_exit handler then ends the workers with the status). A
 * worker: PE 0 flushes, then the job ends. */
_Noreturn void kumi_omp_libc_exit(int status)
{
    if (kumi_rank() <= 0)
        exit(status);
    kumi_omp_libc_flush_master();
    kumi_global_exit(status);
}

/* _Exit, _exit, quick_exit: the job ends with status at once; as in one
 * process, nobody flushes the streams (PE 0's buffered output may be
 * lost, as the process's would be). */
_Noreturn void kumi_omp_libc__Exit(int status)
{
    kumi_global_exit(status);
}

_Noreturn void kumi_omp_libc__exit(int status)
{
    kumi_global_exit(status);
}

_Noreturn void kumi_omp_libc_quick_exit(int status)
{
    kumi_global_exit(status);
}

/* The real abort: this PE dies of SIGABRT, kumirun ends the job with
 * 134 (128 + SIGABRT) as a shell reports the process, and nothing is
 * flushed. */
_Noreturn void kumi_omp_libc_abort(void)
{
    abort();
}

/* ------------------------------------------------------------ time.h */

time_t kumi_omp_libc_time(time_t *t)
{
    time_t v = time(NULL);
    if (t != NULL)
        put_bytes("time", t, &v, sizeof v);
    return v;
}

int kumi_omp_libc_gettimeofday(struct timeval *tv, void *tz)
{
    struct timeval v;
    int            rc = gettimeofday(&v, NULL);
    if (tz != NULL) {
        struct timezone z = { 0, 0 };
        put_bytes("gettimeofday", tz, &z, sizeof z);
    }
    if (rc == 0 && tv != NULL)
        put_bytes("gettimeofday", tv, &v, sizeof v);
    return rc;
}

int kumi_omp_libc_clock_gettime(clockid_t c, struct timespec *ts)
{
    struct timespec v;
    int             rc = clock_gettime(c, &v);
    if (rc == 0)
        put_bytes("clock_gettime", ts, &v, sizeof v);
    return rc;
}

/* Only this PE sleeps, and it keeps serving the others meanwhile (DSM
 * requests and stdio: a thief may need the record of a task it created,
 * a worker waits for its printf), in slices of at most 1 ms until the
 * clock c reaches *end. Returns 0, or EINTR with the time left in *left. */
static int sleep_serving(clockid_t c, const struct timespec *end, struct timespec *left)
{
    for (;;) {
        struct timespec now, slice;
        kumi_dsm_poll();
        kumi_omp_libc_serve();
        if (clock_gettime(c, &now) != 0)
            return errno;
        long long ns = (long long)(end->tv_sec - now.tv_sec) * 1000000000LL
                       + (end->tv_nsec - now.tv_nsec);
        if (ns <= 0)
            return 0;
        slice.tv_sec  = 0;
        slice.tv_nsec = ns < 1000000 ? ns : 1000000;
        if (clock_nanosleep(c, 0, &slice, NULL) == EINTR) {
            left->tv_sec  = (time_t)(ns / 1000000000LL);
            left->tv_nsec = (long)(ns % 1000000000LL);
            return EINTR;
        }
    }
}

static int sleep_for(clockid_t c, const struct timespec *req, struct timespec *left)
{
    struct timespec end;
    if (req->tv_nsec < 0 || req->tv_nsec >= 1000000000L || req->tv_sec < 0)
        return EINVAL;
    if (clock_gettime(c, &end) != 0)
        return errno;
    end.tv_sec += req->tv_sec;
    end.tv_nsec += req->tv_nsec;
    if (end.tv_nsec >= 1000000000L) {
        end.tv_sec++;
        end.tv_nsec -= 1000000000L;
    }
    return sleep_serving(c, &end, left);
}

/* the request and the time left may be in the DSM */
int kumi_omp_libc_nanosleep(const struct timespec *req, struct timespec *rem)
{
    struct timespec r, left;
    int             rc;

    get_bytes("nanosleep", &r, req, sizeof r);
    rc = sleep_for(CLOCK_MONOTONIC, &r, &left);
    if (rc == EINTR && rem != NULL)
        put_bytes("nanosleep", rem, &left, sizeof left);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    return 0;
}

int kumi_omp_libc_clock_nanosleep(clockid_t c, int flags, const struct timespec *req,
                                  struct timespec *rem)
{
    struct timespec r, left;
    int             rc;

    get_bytes("clock_nanosleep", &r, req, sizeof r);
    if (flags & TIMER_ABSTIME)
        rc = r.tv_nsec < 0 || r.tv_nsec >= 1000000000L ? EINVAL : sleep_serving(c, &r, &left);
    else
        rc = sleep_for(c, &r, &left);
    if (rc == EINTR && rem != NULL && !(flags & TIMER_ABSTIME))
        put_bytes("clock_nanosleep", rem, &left, sizeof left);
    return rc;
}

int kumi_omp_libc_usleep(useconds_t us)
{
    struct timespec r = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 }, left;
    int             rc = sleep_for(CLOCK_MONOTONIC, &r, &left);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    return 0;
}

unsigned kumi_omp_libc_sleep(unsigned s)
{
    struct timespec r = { (time_t)s, 0 }, left;
    if (sleep_for(CLOCK_MONOTONIC, &r, &left) == EINTR)
        return (unsigned)left.tv_sec + (left.tv_nsec > 0);
    return 0;
}

#define TM_FROM_T(name)                                                            \
    struct tm *kumi_omp_libc_##name(const time_t *t)                               \
    {                                                                              \
        time_t v;                                                                  \
        get_bytes(#name, &v, t, sizeof v);                                         \
        return name(&v);                                                           \
    }
TM_FROM_T(localtime)
TM_FROM_T(gmtime)

#define TM_FROM_T_R(name)                                                          \
    struct tm *kumi_omp_libc_##name(const time_t *t, struct tm *out)               \
    {                                                                              \
        time_t    v;                                                               \
        struct tm r;                                                               \
        get_bytes(#name, &v, t, sizeof v);                                         \
        if (name(&v, &r) == NULL)                                                  \
            return NULL;                                                           \
        put_bytes(#name, out, &r, sizeof r);                                       \
        return out;                                                                \
    }
TM_FROM_T_R(localtime_r)
TM_FROM_T_R(gmtime_r)

char *kumi_omp_libc_ctime(const time_t *t)
{
    time_t v;
    get_bytes("ctime", &v, t, sizeof v);
    return ctime(&v);
}

char *kumi_omp_libc_asctime(const struct tm *tm)
{
    struct tm v;
    get_bytes("asctime", &v, tm, sizeof v);
    return asctime(&v);
}

time_t kumi_omp_libc_mktime(struct tm *tm)
{
    struct tm v;
    get_bytes("mktime", &v, tm, sizeof v);
    time_t r = mktime(&v);
    put_bytes("mktime", tm, &v, sizeof v);
    return r;
}

double kumi_omp_libc_difftime(time_t a, time_t b)
{
    return difftime(a, b);
}

size_t kumi_omp_libc_strftime(char *s, size_t max, const char *fmt, const struct tm *tm)
{
    struct tm v;
    size_t    lf = SLEN(fmt);
    char     *buf = malloc(max + 1);
    if (buf == NULL)
        kumi_omp_fail("strftime", "out of memory for %zu bytes", max);
    get_bytes("strftime", &v, tm, sizeof v);
    ACQ("strftime", RD(fmt, lf + 1));
    size_t n = strftime(buf, max, fmt, &v);
    if (n > 0)
        put_bytes("strftime", s, buf, n + 1);
    free(buf);
    return n;
}

/* ------------------------------------------------ math.h pointer outputs */

#define MATH_OUT(RT, name, T1, T2)                                                 \
    RT kumi_omp_libc_##name(T1 x, T2 *out)                                         \
    {                                                                              \
        T2 v;                                                                      \
        RT r = name(x, &v);                                                        \
        put_bytes(#name, out, &v, sizeof v);                                       \
        return r;                                                                  \
    }
MATH_OUT(double, frexp, double, int)
MATH_OUT(float, frexpf, float, int)
MATH_OUT(long double, frexpl, long double, int)
MATH_OUT(double, modf, double, double)
MATH_OUT(float, modff, float, float)
MATH_OUT(long double, modfl, long double, long double)
MATH_OUT(double, lgamma_r, double, int)

void kumi_omp_libc_sincos(double x, double *s, double *c)
{
    double vs, vc;
    sincos(x, &vs, &vc);
    put_bytes("sincos", s, &vs, sizeof vs);
    put_bytes("sincos", c, &vc, sizeof vc);
}

double kumi_omp_libc_remquo(double x, double y, int *q)
{
    int    v;
    double r = remquo(x, y, &v);
    put_bytes("remquo", q, &v, sizeof v);
    return r;
}

/* ----------------------------------------------- POSIX descriptors (per PE) */

ssize_t kumi_omp_libc_read(int fd, void *buf, size_t n)
{
    ACQ("read", WR(buf, n));
    return read(fd, buf, n);
}

ssize_t kumi_omp_libc_write(int fd, const void *buf, size_t n)
{
    ACQ("write", RD(buf, n));
    return write(fd, buf, n);
}

/* ------------------------------------------- paths and buffers (per PE) */

#define PATH_CALL(RT, name, ...)                                                   \
    {                                                                              \
        size_t l = SLEN(path);                                                     \
        ACQ(#name, RD(path, l + 1));                                               \
        return name(__VA_ARGS__);                                                  \
    }

int kumi_omp_libc_system(const char *path) PATH_CALL(int, system, path)
int kumi_omp_libc_unlink(const char *path) PATH_CALL(int, unlink, path)
int kumi_omp_libc_access(const char *path, int mode) PATH_CALL(int, access, path, mode)
int kumi_omp_libc_chdir(const char *path) PATH_CALL(int, chdir, path)

char *kumi_omp_libc_getcwd(char *buf, size_t size)
{
    if (buf == NULL || !kumi_dsm_is_shared(buf))
        return getcwd(buf, size);
    ACQ("getcwd", WR(buf, size));
    return getcwd(buf, size);
}

int kumi_omp_libc_gethostname(char *buf, size_t size)
{
    ACQ("gethostname", WR(buf, size));
    return gethostname(buf, size);
}
