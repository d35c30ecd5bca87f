/*
 * libc_scan.c -- the scanf family for translated OpenMP programs.
 *
 * libc stores scanf's conversions through the program's pointers, which
 * may be DSM memory, and a %s target's length is unknown beforehand. So
 * every call scans into private slots (one per conversion: a fixed size
 * for numbers, a share of the buffer for strings, whose width is written
 * into the format when it has none) and then stores each assigned slot
 * through its pointer, coherently. On a worker, fscanf/scanf on a stream
 * (streams live on PE 0, libc_stdio.c) sends the format to PE 0, which
 * scans into the same slots and returns them.
 *
 * A string conversion that fills its whole slot is reported (the token
 * may have been longer) rather than cut silently.
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

#define SCAN_MAX_CONV 32

struct scan_conv {
    size_t off, size;   /* slot in the buffer                                  */
    int    string;      /* 1: %s/%[ (store strlen+1), 0: store size bytes      */
    int    counted;     /* conversions counted in scanf's result before this   */
    int    is_n;        /* %n: assigned when the scan got this far             */
};

struct scan_layout {
    int              n;
    struct scan_conv c[SCAN_MAX_CONV];
    char             fmt[1024];   /* the format with widths for strings */
};

/* Lays out the slots of fmt in a buffer of cap bytes; the same on the
 * caller and on PE 0. */
static void scan_layout(const char *call, const char *fmt, size_t cap, struct scan_layout *L)
{
    size_t fixed = 0;
    int    nstr_free = 0, counted = 0;
    size_t fixed_str = 0;

    /* pass 1: sizes of everything but width-less strings */
    memset(L, 0, sizeof *L);
    for (int pass = 0; pass < 2; pass++) {
        size_t share = 0, off = 0;
        char  *o = L->fmt, *oend = L->fmt + sizeof L->fmt - 16;
        if (pass == 1) {
            if (fixed + fixed_str > cap)
                kumi_omp_fail(call, "the conversions of \"%s\" need more than %zu bytes", fmt, cap);
            share = nstr_free ? (cap - fixed - fixed_str) / (size_t)nstr_free : 0;
            if (nstr_free && share < 2)
                kumi_omp_fail(call, "no room for the strings of \"%s\"", fmt);
        }
        L->n = 0;
        counted = 0;
        for (const char *p = fmt; *p != '\0';) {
            if (o >= oend)
                kumi_omp_fail(call, "format \"%s\" is too long", fmt);
            if (*p != '%') {
                *o++ = *p++;
                continue;
            }
            *o++ = *p++;
            if (*p == '%') {
                *o++ = *p++;
                continue;
            }
            int suppress = 0;
            if (*p == '*') {
                suppress = 1;
                *o++ = *p++;
            }
            const char *num = p;
            long        width = 0;
            while (*p >= '0' && *p <= '9')
                width = width * 10 + (*p++ - '0');
            if (*p == '$')
                kumi_omp_fail(call, "positional arguments (%%n$) in \"%s\" are not supported "
                              "by libkumi-omp", fmt);
            if (*p == 'm')
                kumi_omp_fail(call, "%%m (allocating) in \"%s\" is not supported by "
                              "libkumi-omp", fmt);
            int lng = 0;   /* -2 hh, -1 h, 0, 1 l, 2 ll/L/j/z/t/q */
            const char *mods = p;
            for (;; p++) {
                if (*p == 'h')
                    lng = lng == -1 ? -2 : -1;
                else if (*p == 'l')
                    lng = lng == 1 ? 2 : 1;
                else if (*p == 'L' || *p == 'q')
                    lng = 3;
                else if (*p == 'j' || *p == 'z' || *p == 't')
                    lng = 2;
                else
                    break;
            }
            char   conv = *p;
            size_t size = 0;
            int    string = 0;
            const char *set_end = p + 1;
            switch (conv) {
            case 'd': case 'i': case 'o': case 'u': case 'x': case 'X': case 'n':
                size = lng == -2 ? 1 : lng == -1 ? 2 : lng == 0 ? 4 : 8;
                break;
            case 'a': case 'e': case 'f': case 'g': case 'A': case 'E': case 'F': case 'G':
                size = lng == 0 ? 4 : lng == 1 ? 8 : sizeof(long double);
                break;
            case 'p':
                size = sizeof(void *);
                break;
            case 'c':
                if (lng == 1)
                    kumi_omp_fail(call, "%%lc in \"%s\" is not supported by libkumi-omp", fmt);
                size = width > 0 ? (size_t)width : 1;
                break;
            case '[':
                set_end = p + 1;
                if (*set_end == '^')
                    set_end++;
                if (*set_end == ']')
                    set_end++;
                while (*set_end != '\0' && *set_end != ']')
                    set_end++;
                if (*set_end == '\0')
                    kumi_omp_fail(call, "unterminated %%[ in \"%s\"", fmt);
                set_end++;
                /* fall through */
            case 's':
                if (lng == 1)
                    kumi_omp_fail(call, "%%l%c in \"%s\" is not supported by libkumi-omp", conv,
                                  fmt);
                string = 1;
                size   = width > 0 ? (size_t)width + 1 : 0;
                break;
            default:
                kumi_omp_fail(call, "conversion '%c' in \"%s\" is not supported by libkumi-omp",
                              conv == '\0' ? '?' : conv, fmt);
            }
            /* copy width (possibly made up), modifiers, conversion */
            if (string && width == 0 && !suppress) {
                if (pass == 0) {
                    nstr_free++;
                } else {
                    size = share;
                    o += snprintf(o, 24, "%zu", share - 1);
                }
            } else {
                memcpy(o, num, (size_t)(mods - num));
                o += mods - num;
            }
            memcpy(o, mods, (size_t)(set_end - mods));
            o += set_end - mods;
            p = set_end;
            if (suppress)
                continue;
            if (L->n == SCAN_MAX_CONV)
                kumi_omp_fail(call, "more than %d conversions in \"%s\"", SCAN_MAX_CONV, fmt);
            if (pass == 0) {
                if (string && size > 0)
                    fixed_str += size;
                else if (!string)
                    fixed += (size + 15) & ~(size_t)15;
            }
            struct scan_conv *c = &L->c[L->n++];
            c->size    = size;
            c->string  = string;
            c->is_n    = conv == 'n';
            c->counted = counted;
            if (conv != 'n')
                counted++;
            if (pass == 1) {
                c->off = off;
                off += string ? size : (size + 15) & ~(size_t)15;
            }
        }
        *o = '\0';
    }
}

#define P32(b, L) \
    b + L.c[0].off, b + L.c[1].off, b + L.c[2].off, b + L.c[3].off, b + L.c[4].off,          \
    b + L.c[5].off, b + L.c[6].off, b + L.c[7].off, b + L.c[8].off, b + L.c[9].off,          \
    b + L.c[10].off, b + L.c[11].off, b + L.c[12].off, b + L.c[13].off, b + L.c[14].off,     \
    b + L.c[15].off, b + L.c[16].off, b + L.c[17].off, b + L.c[18].off, b + L.c[19].off,     \
    b + L.c[20].off, b + L.c[21].off, b + L.c[22].off, b + L.c[23].off, b + L.c[24].off,     \
    b + L.c[25].off, b + L.c[26].off, b + L.c[27].off, b + L.c[28].off, b + L.c[29].off,     \
    b + L.c[30].off, b + L.c[31].off

/* Scans into slots (libc_io.h); here and at PE 0 for a worker. */
int kumi_omp_scan_slots(const char *fmt, char *out, size_t cap, FILE *f, const char *str,
                        int *nconv)
{
    static struct scan_layout L;   /* one scan at a time per PE */

    scan_layout(str != NULL ? "sscanf" : "fscanf", fmt, cap, &L);
    memset(out, 0, cap);
    *nconv = L.n;
    if (str != NULL)
        return sscanf(str, L.fmt, P32(out, L));
    return fscanf(f, L.fmt, P32(out, L));
}

/* Stores the slots scanf assigned through the caller's pointers. */
static void scan_store(const char *call, const char *fmt, const char *slots, size_t cap, int ret,
                       va_list ap)
{
    struct scan_layout L;

    scan_layout(call, fmt, cap, &L);
    for (int i = 0; i < L.n; i++) {
        void                   *t = va_arg(ap, void *);
        const struct scan_conv *c = &L.c[i];
        if (ret == EOF || (c->is_n ? c->counted > ret : c->counted >= ret))
            continue;   /* not assigned */
        size_t n = c->size;
        if (c->string) {
            n = strnlen(slots + c->off, c->size) + 1;
            if (n >= c->size)
                kumi_omp_fail(call, "a string conversion of \"%s\" filled its %zu-byte slot "
                              "(give it a width below that)", fmt, c->size - 1);
        }
        if (t == NULL)
            continue;
        if (kumi_dsm_is_shared(t)) {
            if (kumi_dsm_write(t, slots + c->off, n) != KUMI_OK)
                kumi_omp_fail(call, "cannot store to %p", t);
        } else {
            memcpy(t, slots + c->off, n);
        }
    }
}


#define SCAN_LOCAL_CAP (64u << 10)

static int do_vfscanf(const char *call, FILE *f, const char *str, const char *fmt, va_list ap)
{
    size_t lf = kumi_omp_strnlen_acquire(call, fmt, 1023);
    char   fbuf[1024];
    memcpy(fbuf, fmt, lf);
    fbuf[lf] = '\0';
    if (lf == 1023)
        kumi_omp_fail(call, "format longer than 1022 bytes");

    int   nconv, ret, local = 1;
    char *slots;
    size_t cap = SCAN_LOCAL_CAP;
    if (f != NULL) {
        slots = malloc(cap);
        if (slots == NULL)
            kumi_omp_fail(call, "out of memory");
        ret = kumi_omp_libc_forward_scan(call, f, fbuf, slots, &cap, &local);
    }
    if (f == NULL) {
        /* sscanf: the input may be DSM; a private copy */
        size_t ls  = kumi_omp_strnlen_acquire(call, str, SIZE_MAX);
        char  *in  = malloc(ls + 1);
        slots = malloc(cap);
        if (in == NULL || slots == NULL)
            kumi_omp_fail(call, "out of memory");
        memcpy(in, str, ls + 1);
        ret = kumi_omp_scan_slots(fbuf, slots, cap, NULL, in, &nconv);
        free(in);
    } else if (local) {
        ret = kumi_omp_scan_slots(fbuf, slots, cap, f, NULL, &nconv);
    }
    scan_store(call, fbuf, slots, cap, ret, ap);
    free(slots);
    return ret;
}

int kumi_omp_libc_vfscanf(FILE *f, const char *fmt, va_list ap)
{
    return do_vfscanf("vfscanf", f, NULL, fmt, ap);
}

int kumi_omp_libc_vscanf(const char *fmt, va_list ap)
{
    return do_vfscanf("vscanf", stdin, NULL, fmt, ap);
}

int kumi_omp_libc_vsscanf(const char *s, const char *fmt, va_list ap)
{
    return do_vfscanf("vsscanf", NULL, s, fmt, ap);
}

#define SCAN_VARIADIC(name, f, s, last)                                            \
    {                                                                              \
        va_list ap;                                                                \
        va_start(ap, last);                                                        \
        int r = do_vfscanf(#name, f, s, fmt, ap);                                  \
        va_end(ap);                                                                \
        return r;                                                                  \
    }

int kumi_omp_libc_fscanf(FILE *f, const char *fmt, ...) SCAN_VARIADIC(fscanf, f, NULL, fmt)
int kumi_omp_libc_scanf(const char *fmt, ...) SCAN_VARIADIC(scanf, stdin, NULL, fmt)
int kumi_omp_libc_sscanf(const char *s, const char *fmt, ...) SCAN_VARIADIC(sscanf, NULL, s, fmt)
/* glibc's headers may turn the calls into these (C99 scanf) */
int kumi_omp_libc___isoc99_fscanf(FILE *f, const char *fmt, ...)
    SCAN_VARIADIC(fscanf, f, NULL, fmt)
int kumi_omp_libc___isoc99_scanf(const char *fmt, ...) SCAN_VARIADIC(scanf, stdin, NULL, fmt)
int kumi_omp_libc___isoc99_sscanf(const char *s, const char *fmt, ...)
    SCAN_VARIADIC(sscanf, NULL, s, fmt)
int kumi_omp_libc___isoc99_vfscanf(FILE *f, const char *fmt, va_list ap)
{
    return do_vfscanf("vfscanf", f, NULL, fmt, ap);
}
int kumi_omp_libc___isoc99_vscanf(const char *fmt, va_list ap)
{
    return do_vfscanf("vscanf", stdin, NULL, fmt, ap);
}
int kumi_omp_libc___isoc99_vsscanf(const char *s, const char *fmt, va_list ap)
{
    return do_vfscanf("vsscanf", NULL, s, fmt, ap);
}
