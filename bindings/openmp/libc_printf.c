/*
 * libc_printf.c -- the printf family for translated OpenMP programs.
 *
 * The format is walked with a copy of the arguments to find what libc
 * will touch through pointers: each %s string (read, up to its
 * precision) and each %n target (written); those DSM ranges and the
 * format are made valid at once, then libc formats. On a worker the
 * output is formatted here and its bytes sent to the stream at PE 0
 * (libc_fwd.c); into a buffer that may be DSM (sprintf & co.) it is
 * formatted privately and stored.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libc_io.h"
#include "check.h"

/* ----------------------------------------------------- printf's format */

/* Walks a printf format with a copy of its arguments, collecting the
 * ranges libc will touch: each %s string (read, up to its precision) and
 * each %n target (write). Returns the number of ranges (at most max), or
 * fails naming call for what it cannot follow (positional arguments). */
static int printf_ranges(const char *call, const char *fmt, va_list ap,
                         struct kumi_omp_range *r, int max)
{
    int nr = 0;

    for (const char *p = fmt; *p != '\0'; p++) {
        if (*p != '%')
            continue;
        p++;
        if (*p == '%')
            continue;
        int prec = -1, lng = 0;   /* lng: 0 int, 1 l, 2 ll, -1 h, -2 hh, 3 L, 4 j/z/t */
        if (*p >= '1' && *p <= '9') {
            const char *q = p;
            while (*q >= '0' && *q <= '9')
                q++;
            if (*q == '$')
                kumi_omp_fail(call, "positional arguments (%%n$) in \"%s\" are not supported "
                              "by libkumi-omp", fmt);
        }
        while (strchr("-+ #0'I", *p) != NULL && *p != '\0')
            p++;
        if (*p == '*') {
            (void)va_arg(ap, int);
            p++;
        } else {
            while (*p >= '0' && *p <= '9')
                p++;
        }
        if (*p == '.') {
            p++;
            if (*p == '*') {
                prec = va_arg(ap, int);
                p++;
            } else {
                prec = 0;
                while (*p >= '0' && *p <= '9')
                    prec = prec * 10 + (*p++ - '0');
            }
        }
        for (;; p++) {
            if (*p == 'h')
                lng = lng == -1 ? -2 : -1;
            else if (*p == 'l')
                lng = lng == 1 ? 2 : 1;
            else if (*p == 'q' || *p == 'L')
                lng = *p == 'L' ? 3 : 2;
            else if (*p == 'j' || *p == 'z' || *p == 't' || *p == 'Z')
                lng = 4;
            else
                break;
        }
        switch (*p) {
        case 'd': case 'i': case 'o': case 'u': case 'x': case 'X':
            if (lng >= 1)
                (void)va_arg(ap, long long);   /* long, long long, intmax_t, size_t: 8 bytes */
            else
                (void)va_arg(ap, int);
            break;
        case 'c': case 'C':
            (void)va_arg(ap, int);
            break;
        case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A':
            if (lng == 3)
                (void)va_arg(ap, long double);
            else
                (void)va_arg(ap, double);
            break;
        case 'p':
            (void)va_arg(ap, void *);
            break;
        case 's': {
            const char *s = va_arg(ap, const char *);
            if (lng == 1)
                kumi_omp_fail(call, "%%ls in \"%s\" is not supported by libkumi-omp", fmt);
            if (s != NULL && kumi_dsm_is_shared(s) && nr < max) {
                size_t n = kumi_omp_strnlen_acquire(call, s, prec >= 0 ? (size_t)prec : SIZE_MAX);
                r[nr++] = (struct kumi_omp_range){ s, prec >= 0 && n == (size_t)prec ? n : n + 1,
                                                    KUMI_DSM_READ };
            }
            break;
        }
        case 'S':
            kumi_omp_fail(call, "%%S in \"%s\" is not supported by libkumi-omp", fmt);
        case 'n': {
            void  *t  = va_arg(ap, void *);
            size_t sz = lng == -2 ? 1 : lng == -1 ? 2 : lng == 0 ? 4 : 8;
            if (t != NULL && kumi_dsm_is_shared(t) && nr < max)
                r[nr++] = (struct kumi_omp_range){ t, sz, KUMI_DSM_WRITE };
            break;
        }
        case 'm':
            break;
        case '\0':
            return nr;
        default:
            break;
        }
        if (nr == max)
            kumi_omp_fail(call, "more than %d DSM strings or %%n targets in one call", max);
    }
    return nr;
}

#define RANGES_MAX 64

/* Acquires the format and the ranges of its arguments. */
static void printf_prepare(const char *call, const char *fmt, va_list ap)
{
    struct kumi_omp_range r[RANGES_MAX + 1];
    va_list               aq;
    size_t                lf = kumi_omp_strnlen_acquire(call, fmt, SIZE_MAX);

    va_copy(aq, ap);
    int n = printf_ranges(call, fmt, aq, r + 1, RANGES_MAX);
    va_end(aq);
    r[0] = (struct kumi_omp_range){ fmt, lf + 1, KUMI_DSM_READ };
    kumi_omp_acquire(call, r, n + 1);
}

static int do_vfprintf(const char *call, FILE *f, const char *fmt, va_list ap)
{
    printf_prepare(call, fmt, ap);
    if (!kumi_omp_io_forwarded())
        return vfprintf(f, fmt, ap);
    char *buf = NULL;
    int   n   = vasprintf(&buf, fmt, ap);
    if (n < 0)
        return n;
    size_t w = kumi_omp_io_write(call, f, buf, (size_t)n);
    free(buf);
    return w == (size_t)n ? n : -1;
}

int kumi_omp_libc_vfprintf(FILE *f, const char *fmt, va_list ap)
{
    return do_vfprintf("vfprintf", f, fmt, ap);
}

int kumi_omp_libc_vprintf(const char *fmt, va_list ap)
{
    return do_vfprintf("vprintf", stdout, fmt, ap);
}

int kumi_omp_libc_fprintf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = do_vfprintf("fprintf", f, fmt, ap);
    va_end(ap);
    return n;
}

int kumi_omp_libc_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = do_vfprintf("printf", stdout, fmt, ap);
    va_end(ap);
    return n;
}

int kumi_omp_libc_vdprintf(int fd, const char *fmt, va_list ap)
{
    printf_prepare("vdprintf", fmt, ap);
    return vdprintf(fd, fmt, ap);
}

int kumi_omp_libc_dprintf(int fd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = kumi_omp_libc_vdprintf(fd, fmt, ap);
    va_end(ap);
    return n;
}

/* snprintf into a buffer that may be DSM: format privately, store. */
static int do_vsnprintf(const char *call, char *s, size_t cap, const char *fmt, va_list ap)
{
    printf_prepare(call, fmt, ap);
    if (s == NULL || !kumi_dsm_is_shared(s))
        return cap == (size_t)-1 ? vsprintf(s, fmt, ap) : vsnprintf(s, cap, fmt, ap);
    char *buf = NULL;
    int   n   = vasprintf(&buf, fmt, ap);
    if (n < 0)
        return n;
    size_t k = (size_t)n + 1;
    if (cap != (size_t)-1 && k > cap)
        k = cap;
    if (k > 0) {
        buf[k - 1] = '\0';
        kumi_omp_acquire1(call, s, k, KUMI_DSM_WRITE);
        memcpy(s, buf, k);
    }
    free(buf);
    return n;
}

int kumi_omp_libc_vsnprintf(char *s, size_t n, const char *fmt, va_list ap)
{
    return do_vsnprintf("vsnprintf", s, n, fmt, ap);
}

int kumi_omp_libc_vsprintf(char *s, const char *fmt, va_list ap)
{
    return do_vsnprintf("vsprintf", s, (size_t)-1, fmt, ap);
}

int kumi_omp_libc_snprintf(char *s, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = do_vsnprintf("snprintf", s, n, fmt, ap);
    va_end(ap);
    return r;
}

int kumi_omp_libc_sprintf(char *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = do_vsnprintf("sprintf", s, (size_t)-1, fmt, ap);
    va_end(ap);
    return r;
}

int kumi_omp_libc_vasprintf(char **sp, const char *fmt, va_list ap)
{
    printf_prepare("vasprintf", fmt, ap);
    char *buf = NULL;
    int   n   = vasprintf(&buf, fmt, ap);
    if (n < 0)
        return n;
    /* the program frees it with free(), which is kumi_omp_free */
    char *d = kumi_omp_malloc((size_t)n + 1);
    if (d == NULL) {
        free(buf);
        return -1;
    }
    memcpy(d, buf, (size_t)n + 1);
    free(buf);
    kumi_omp_store_ptr("vasprintf", (void **)sp, d);
    return n;
}

int kumi_omp_libc_asprintf(char **sp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = kumi_omp_libc_vasprintf(sp, fmt, ap);
    va_end(ap);
    return r;
}
