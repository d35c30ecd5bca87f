/*
 * libc_stdio.c -- stdio for translated OpenMP programs (but printf,
 * libc_printf.c, and scanf, libc_scan.c).
 *
 * Every stream lives on PE 0. On one machine all threads share one
 * process's FILEs (stdout's buffer included); here each PE is a process,
 * so PE 0 (the master) owns stdin, stdout, stderr and every file any PE
 * opens, and the other PEs forward each stdio call to it: output from
 * any thread lands in PE 0's buffer in the order the calls happened (as
 * the reference run prints it), a FILE* the master opened works on a
 * worker, and a worker's fopen returns a FILE* that means the same on
 * every PE. A worker formats printf's output itself (with its own view
 * of the DSM) and sends the bytes; scanf's conversions are done at PE 0
 * into private slots and stored by the caller.
 *
 * How a request reaches PE 0 and when PE 0 serves it: libc_fwd.c.
 *
 * Not forwarded: file descriptors (open/read/write/close are per PE),
 * popen and fdopen on a worker (a clear error), setvbuf/setbuf buffers
 * from a worker (PE 0 allocates its own).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libc_io.h"
#include "check.h"

/* ------------------------------------------------------- other output */

size_t kumi_omp_libc_fwrite(const void *p, size_t size, size_t n, FILE *f)
{
    if (size == 0 || n == 0)
        return 0;
    size_t bytes = size * n;
    if (!kumi_omp_io_forwarded()) {
        if (!kumi_dsm_is_shared(p))
            return fwrite(p, size, n, f);
        /* in pieces: one acquire of a big array would hold all its lines */
        size_t done = 0;
        while (done < bytes) {
            size_t k = bytes - done < KUMI_OMP_IO_CHUNK ? bytes - done : KUMI_OMP_IO_CHUNK;
            kumi_omp_acquire1("fwrite", (const char *)p + done, k, KUMI_DSM_READ);
            size_t w = fwrite((const char *)p + done, 1, k, f);
            done += w;
            if (w < k)
                break;
        }
        return done / size;
    }
    /* a private copy: p may be DSM */
    char *buf = malloc(bytes);
    if (buf == NULL)
        kumi_omp_fail("fwrite", "out of memory for %zu bytes", bytes);
    if (kumi_dsm_is_shared(p)) {
        if (kumi_dsm_read(buf, p, bytes) != KUMI_OK)
            kumi_omp_fail("fwrite", "cannot read [%p, +%zu)", p, bytes);
    } else {
        memcpy(buf, p, bytes);
    }
    size_t w = kumi_omp_io_write("fwrite", f, buf, bytes);
    free(buf);
    return w / size;
}

int kumi_omp_libc_fputs(const char *s, FILE *f)
{
    size_t n = kumi_omp_strnlen_acquire("fputs", s, SIZE_MAX);
    if (!kumi_omp_io_forwarded())
        return fputs(s, f);
    char *buf = malloc(n + 1);
    if (buf == NULL)
        kumi_omp_fail("fputs", "out of memory for %zu bytes", n);
    memcpy(buf, s, n);
    size_t w = kumi_omp_io_write("fputs", f, buf, n);
    free(buf);
    return w == n ? 1 : EOF;
}

int kumi_omp_libc_puts(const char *s)
{
    size_t n = kumi_omp_strnlen_acquire("puts", s, SIZE_MAX);
    if (!kumi_omp_io_forwarded())
        return puts(s);
    char *buf = malloc(n + 1);
    if (buf == NULL)
        kumi_omp_fail("puts", "out of memory for %zu bytes", n);
    memcpy(buf, s, n);
    buf[n] = '\n';
    size_t w = kumi_omp_io_write("puts", stdout, buf, n + 1);
    free(buf);
    return w == n + 1 ? 1 : EOF;
}

int kumi_omp_libc_fputc(int c, FILE *f)
{
    if (!kumi_omp_io_forwarded())
        return fputc(c, f);
    unsigned char b = (unsigned char)c;
    return kumi_omp_io_write("fputc", f, &b, 1) == 1 ? b : EOF;
}

int kumi_omp_libc_putc(int c, FILE *f)
{
    return kumi_omp_libc_fputc(c, f);
}

int kumi_omp_libc__IO_putc(int c, FILE *f)
{
    return kumi_omp_libc_fputc(c, f);
}

int kumi_omp_libc_putchar(int c)
{
    return kumi_omp_libc_fputc(c, stdout);
}

void kumi_omp_libc_perror(const char *s)
{
    size_t n = s == NULL ? 0 : kumi_omp_strnlen_acquire("perror", s, KUMI_OMP_IO_DATA - 1);
    if (!kumi_omp_io_forwarded()) {
        perror(s);
        return;
    }
    char buf[KUMI_OMP_IO_DATA];
    memcpy(buf, s, n);
    buf[n] = '\0';
    kumi_omp_io_call("perror", OP_PERROR, NULL, errno, 0, buf, s == NULL ? 0 : n + 1);
}

/* --------------------------------------------------------------- input */

size_t kumi_omp_libc_fread(void *p, size_t size, size_t n, FILE *f)
{
    if (size == 0 || n == 0)
        return 0;
    size_t bytes = size * n;
    if (!kumi_omp_io_forwarded()) {
        if (!kumi_dsm_is_shared(p))
            return fread(p, size, n, f);
        size_t done = 0;
        while (done < bytes) {
            size_t k = bytes - done < KUMI_OMP_IO_CHUNK ? bytes - done : KUMI_OMP_IO_CHUNK;
            kumi_omp_acquire1("fread", (char *)p + done, k, KUMI_DSM_WRITE);
            size_t got = fread((char *)p + done, 1, k, f);
            done += got;
            if (got < k)
                break;
        }
        return done / size;
    }
    size_t done = 0;
    while (done < bytes) {
        size_t            k = bytes - done < KUMI_OMP_IO_DATA ? bytes - done : KUMI_OMP_IO_DATA;
        const struct kumi_omp_io_msg *r = kumi_omp_io_call("fread", OP_READ, f, (int64_t)k, 0, NULL, 0);
        size_t            got = (size_t)r->h.a;
        if (got > 0) {
            kumi_omp_acquire1("fread", (char *)p + done, got, KUMI_DSM_WRITE);
            memcpy((char *)p + done, r->data, got);
        }
        done += got;
        if (got < k)
            break;
    }
    return done / size;
}

char *kumi_omp_libc_fgets(char *s, int n, FILE *f)
{
    if (n <= 0)
        return NULL;
    if (!kumi_omp_io_forwarded()) {
        if (!kumi_dsm_is_shared(s))
            return fgets(s, n, f);
        char *buf = malloc((size_t)n);
        if (buf == NULL)
            kumi_omp_fail("fgets", "out of memory for %d bytes", n);
        char *r = fgets(buf, n, f);
        if (r != NULL) {
            size_t k = strlen(buf) + 1;
            kumi_omp_acquire1("fgets", s, k, KUMI_DSM_WRITE);
            memcpy(s, buf, k);
        }
        free(buf);
        return r != NULL ? s : NULL;
    }
    if ((size_t)n > KUMI_OMP_IO_DATA)
        n = (int)KUMI_OMP_IO_DATA;   /* a longer line comes in the next call, as fgets allows */
    const struct kumi_omp_io_msg *r = kumi_omp_io_call("fgets", OP_GETS, f, n, 0, NULL, 0);
    if (!r->h.a)
        return NULL;
    kumi_omp_acquire1("fgets", s, r->h.len, KUMI_DSM_WRITE);
    memcpy(s, r->data, r->h.len);
    return s;
}

char *kumi_omp_libc_gets(char *s)
{
    kumi_omp_fail("gets", "gets cannot be used safely (removed in C11); use fgets");
    (void)s;
}

#define SIMPLE(name, op, expr_local, RT)                                           \
    RT kumi_omp_libc_##name(FILE *f)                                               \
    {                                                                              \
        if (!kumi_omp_io_forwarded())                                                          \
            return expr_local;                                                     \
        return (RT)kumi_omp_io_call(#name, op, f, 0, 0, NULL, 0)->h.a;                      \
    }
SIMPLE(fgetc, OP_GETC, fgetc(f), int)
SIMPLE(getc, OP_GETC, getc(f), int)
SIMPLE(_IO_getc, OP_GETC, getc(f), int)
SIMPLE(fclose, OP_CLOSE, fclose(f), int)
SIMPLE(ftell, OP_TELL, ftell(f), long)
SIMPLE(ftello, OP_TELL, ftello(f), off_t)
SIMPLE(feof, OP_EOF, feof(f), int)
SIMPLE(ferror, OP_ERROR, ferror(f), int)
SIMPLE(fileno, OP_FILENO, fileno(f), int)

int kumi_omp_libc_fflush(FILE *f)
{
    if (!kumi_omp_io_forwarded())
        return fflush(f);
    return (int)kumi_omp_io_call("fflush", OP_FLUSH, f, 0, 0, NULL, 0)->h.a;
}

int kumi_omp_libc_getchar(void)
{
    return kumi_omp_libc_fgetc(stdin);
}

int kumi_omp_libc_ungetc(int c, FILE *f)
{
    if (!kumi_omp_io_forwarded())
        return ungetc(c, f);
    return (int)kumi_omp_io_call("ungetc", OP_UNGETC, f, c, 0, NULL, 0)->h.a;
}

void kumi_omp_libc_rewind(FILE *f)
{
    if (!kumi_omp_io_forwarded())
        rewind(f);
    else
        kumi_omp_io_call("rewind", OP_REWIND, f, 0, 0, NULL, 0);
}

void kumi_omp_libc_clearerr(FILE *f)
{
    if (!kumi_omp_io_forwarded())
        clearerr(f);
    else
        kumi_omp_io_call("clearerr", OP_CLEARERR, f, 0, 0, NULL, 0);
}

int kumi_omp_libc_fseek(FILE *f, long off, int whence)
{
    if (!kumi_omp_io_forwarded())
        return fseek(f, off, whence);
    return (int)kumi_omp_io_call("fseek", OP_SEEK, f, off, whence, NULL, 0)->h.a;
}

int kumi_omp_libc_fseeko(FILE *f, off_t off, int whence)
{
    if (!kumi_omp_io_forwarded())
        return fseeko(f, off, whence);
    return (int)kumi_omp_io_call("fseeko", OP_SEEK, f, off, whence, NULL, 0)->h.a;
}

int kumi_omp_libc_setvbuf(FILE *f, char *buf, int mode, size_t size)
{
    if (!kumi_omp_io_forwarded()) {
        if (buf != NULL && kumi_dsm_is_shared(buf))
            buf = NULL;   /* libc would write it behind the DSM's back: its own buffer */
        return setvbuf(f, buf, mode, size);
    }
    return (int)kumi_omp_io_call("setvbuf", OP_SETVBUF, f, mode, (int64_t)size, NULL, 0)->h.a;
}

void kumi_omp_libc_setbuf(FILE *f, char *buf)
{
    kumi_omp_libc_setvbuf(f, NULL, buf == NULL ? _IONBF : _IOFBF, BUFSIZ);
}

/* path and mode packed for a request: "path\0mode\0" */
static size_t pack2(const char *call, char *out, const char *a, const char *b)
{
    size_t la = kumi_omp_strnlen_acquire(call, a, KUMI_OMP_IO_DATA);
    size_t lb = kumi_omp_strnlen_acquire(call, b, KUMI_OMP_IO_DATA);
    if (la + lb + 2 > KUMI_OMP_IO_DATA)
        kumi_omp_fail(call, "file name too long to forward to PE 0");
    struct kumi_omp_range r[] = { { a, la + 1, KUMI_DSM_READ }, { b, lb + 1, KUMI_DSM_READ } };
    kumi_omp_acquire(call, r, 2);
    memcpy(out, a, la + 1);
    memcpy(out + la + 1, b, lb + 1);
    return la + lb + 2;
}

FILE *kumi_omp_libc_fopen(const char *path, const char *mode)
{
    char   buf[KUMI_OMP_IO_DATA];
    size_t n = pack2("fopen", buf, path, mode);
    if (!kumi_omp_io_forwarded())
        return fopen(buf, buf + strlen(buf) + 1);
    return (FILE *)(uintptr_t)kumi_omp_io_call("fopen", OP_OPEN, NULL, 1, 0, buf, n)->h.file;
}

FILE *kumi_omp_libc_fopen64(const char *path, const char *mode)
{
    return kumi_omp_libc_fopen(path, mode);
}

FILE *kumi_omp_libc_freopen(const char *path, const char *mode, FILE *f)
{
    char   buf[KUMI_OMP_IO_DATA];
    size_t n = pack2("freopen", buf, path == NULL ? "" : path, mode);
    if (!kumi_omp_io_forwarded())
        return freopen(path == NULL ? NULL : buf, buf + strlen(buf) + 1, f);
    return (FILE *)(uintptr_t)kumi_omp_io_call("freopen", OP_REOPEN, f, path != NULL, 0, buf, n)->h.file;
}

FILE *kumi_omp_libc_tmpfile(void)
{
    if (!kumi_omp_io_forwarded())
        return tmpfile();
    return (FILE *)(uintptr_t)kumi_omp_io_call("tmpfile", OP_TMPFILE, NULL, 0, 0, NULL, 0)->h.file;
}

FILE *kumi_omp_libc_fdopen(int fd, const char *mode)
{
    if (kumi_omp_io_forwarded())
        kumi_omp_fail("fdopen", "file descriptors are per PE and streams live on PE 0: "
                      "fdopen is supported on the master (PE 0) only");
    kumi_omp_strnlen_acquire("fdopen", mode, SIZE_MAX);
    return fdopen(fd, mode);
}

FILE *kumi_omp_libc_popen(const char *cmd, const char *mode)
{
    if (kumi_omp_io_forwarded())
        kumi_omp_fail("popen", "streams live on PE 0: popen is supported on the master "
                      "(PE 0) only");
    char buf[KUMI_OMP_IO_DATA];
    pack2("popen", buf, cmd, mode);
    return popen(buf, buf + strlen(buf) + 1);
}

int kumi_omp_libc_remove(const char *path)
{
    char   buf[KUMI_OMP_IO_DATA];
    size_t n = pack2("remove", buf, path, "");
    if (!kumi_omp_io_forwarded())
        return remove(buf);
    return (int)kumi_omp_io_call("remove", OP_REMOVE, NULL, 0, 0, buf, n)->h.a;
}

int kumi_omp_libc_rename(const char *a, const char *b)
{
    char   buf[KUMI_OMP_IO_DATA];
    size_t n = pack2("rename", buf, a, b);
    if (!kumi_omp_io_forwarded())
        return rename(buf, buf + strlen(buf) + 1);
    return (int)kumi_omp_io_call("rename", OP_RENAME, NULL, 0, 0, buf, n)->h.a;
}

/* ----------------------------------------------------------- rand */

/* One sequence for the whole job, as threads of one process share
 * libc's: a worker's rand() is PE 0's. */
int kumi_omp_libc_rand(void)
{
    if (!kumi_omp_io_forwarded())
        return rand();
    return (int)kumi_omp_io_call("rand", OP_RAND, NULL, 0, 0, NULL, 0)->h.a;
}

void kumi_omp_libc_srand(unsigned seed)
{
    if (!kumi_omp_io_forwarded())
        srand(seed);
    else
        kumi_omp_io_call("srand", OP_SRAND, NULL, seed, 0, NULL, 0);
}

/* getline/getdelim: the buffer grows with the program's realloc (the
 * DSM heap); a worker fetches the line from PE 0 in pieces. */
static ssize_t do_getdelim(const char *call, char **lineptr, size_t *np, int delim, FILE *f)
{
    char  *line;
    size_t cap;

    if (lineptr == NULL || np == NULL) {
        errno = EINVAL;
        return -1;
    }
    if (kumi_dsm_is_shared(lineptr)) {
        if (kumi_dsm_read(&line, lineptr, sizeof line) != KUMI_OK)
            kumi_omp_fail(call, "cannot read %p", (void *)lineptr);
    } else {
        line = *lineptr;
    }
    if (kumi_dsm_is_shared(np)) {
        if (kumi_dsm_read(&cap, np, sizeof cap) != KUMI_OK)
            kumi_omp_fail(call, "cannot read %p", (void *)np);
    } else {
        cap = *np;
    }
    if (line == NULL)
        cap = 0;
    /* the line privately first, then into the program's buffer */
    char  *buf = NULL;
    size_t len = 0;
    int    more = 1, err = 0;
    if (!kumi_omp_io_forwarded()) {
        size_t  bcap = 0;
        ssize_t got  = getdelim(&buf, &bcap, delim, f);
        if (got < 0) {
            free(buf);
            return -1;
        }
        len = (size_t)got;
    } else {
        while (more) {
            const struct kumi_omp_io_msg *r = kumi_omp_io_call(call, OP_GETDELIM, f, delim, 0, NULL, 0);
            char *nb = realloc(buf, len + r->h.len + 1);
            if (nb == NULL)
                kumi_omp_fail(call, "out of memory");
            buf = nb;
            memcpy(buf + len, r->data, r->h.len);
            len += r->h.len;
            err  = (int)r->h.b;
            more = r->h.a && r->h.len > 0 && buf[len - 1] != (char)delim;
        }
        if (len == 0) {
            free(buf);
            if (err)
                errno = EIO;
            return -1;
        }
    }
    if (cap < len + 1) {
        size_t ncap = len + 1 < 120 ? 120 : len + 1;
        char  *nl   = kumi_omp_realloc(line, ncap);
        if (nl == NULL) {
            free(buf);
            errno = ENOMEM;
            return -1;
        }
        line = nl;
        cap  = ncap;
        kumi_omp_store_ptr(call, (void **)lineptr, line);
        if (kumi_dsm_is_shared(np)) {
            if (kumi_dsm_write(np, &cap, sizeof cap) != KUMI_OK)
                kumi_omp_fail(call, "cannot write %p", (void *)np);
        } else {
            *np = cap;
        }
    }
    buf[len] = '\0';
    kumi_omp_acquire1(call, line, len + 1, KUMI_DSM_WRITE);
    memcpy(line, buf, len + 1);
    free(buf);
    return (ssize_t)len;
}

ssize_t kumi_omp_libc_getdelim(char **lineptr, size_t *n, int delim, FILE *f)
{
    return do_getdelim("getdelim", lineptr, n, delim, f);
}

ssize_t kumi_omp_libc___getdelim(char **lineptr, size_t *n, int delim, FILE *f)
{
    return do_getdelim("getdelim", lineptr, n, delim, f);
}

ssize_t kumi_omp_libc_getline(char **lineptr, size_t *n, FILE *f)
{
    return do_getdelim("getline", lineptr, n, '\n', f);
}

/* The other global generators: one sequence too. */
static int64_t rng_call(const char *call, int which, int64_t arg)
{
    return kumi_omp_io_call(call, OP_RNG, NULL, which, arg, NULL, 0)->h.b;
}

double kumi_omp_libc_drand48(void)
{
    if (!kumi_omp_io_forwarded())
        return drand48();
    int64_t b = rng_call("drand48", 0, 0);
    double  d;
    memcpy(&d, &b, sizeof d);
    return d;
}

long kumi_omp_libc_lrand48(void)
{
    return kumi_omp_io_forwarded() ? (long)rng_call("lrand48", 1, 0) : lrand48();
}

long kumi_omp_libc_mrand48(void)
{
    return kumi_omp_io_forwarded() ? (long)rng_call("mrand48", 2, 0) : mrand48();
}

long kumi_omp_libc_random(void)
{
    return kumi_omp_io_forwarded() ? (long)rng_call("random", 3, 0) : random();
}

void kumi_omp_libc_srand48(long seed)
{
    if (kumi_omp_io_forwarded())
        rng_call("srand48", 4, seed);
    else
        srand48(seed);
}

void kumi_omp_libc_srandom(unsigned seed)
{
    if (kumi_omp_io_forwarded())
        rng_call("srandom", 5, seed);
    else
        srandom(seed);
}
