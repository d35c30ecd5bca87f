/*
 * libc_io.h -- the stdio forwarding of libkumi-omp (libc_fwd.c), shared
 * by the stdio wrappers (libc_stdio.c, libc_printf.c, libc_scan.c).
 * Internal: never installed.
 */
#ifndef KUMI_OMP_LIBC_IO_H
#define KUMI_OMP_LIBC_IO_H

#include <stdint.h>
#include <stdio.h>

#include "omp_libc.h"

/* What a worker asks PE 0 to do. */
enum {
    OP_WRITE = 1, OP_READ, OP_GETS, OP_GETC, OP_UNGETC, OP_OPEN, OP_REOPEN, OP_CLOSE,
    OP_FLUSH, OP_SEEK, OP_TELL, OP_REWIND, OP_EOF, OP_ERROR, OP_CLEARERR, OP_FILENO,
    OP_SETVBUF, OP_SCAN, OP_REMOVE, OP_RENAME, OP_RAND, OP_SRAND, OP_TMPFILE, OP_PERROR,
    OP_GETDELIM, OP_RNG
};


/* One message, request or reply: at most one active message's payload
 * (KUMI_TP_AM_MAX_PAYLOAD, checked in libc_fwd.c). */
#define KUMI_OMP_IO_MSG 4096u
struct kumi_omp_io_hdr {
    uint32_t reply;     /* 0 request, 1 reply                          */
    uint32_t op;
    uint64_t file;      /* FILE* at PE 0                                */
    int64_t  a, b;      /* arguments / results                          */
    int32_t  err;       /* errno at PE 0 (reply)                        */
    uint32_t len;       /* bytes of data that follow                     */
};
#define KUMI_OMP_IO_DATA (KUMI_OMP_IO_MSG - sizeof(struct kumi_omp_io_hdr))
struct kumi_omp_io_msg {
    struct kumi_omp_io_hdr h;
    char                   data[KUMI_OMP_IO_DATA];
};

/* Big buffers move in pieces of this many bytes (one acquire of a large
 * array would have to hold all its lines at once). */
#define KUMI_OMP_IO_CHUNK ((size_t)64 << 10)

/* 1 on a PE whose stdio goes to PE 0 (every PE but 0 of a started job). */
int kumi_omp_io_forwarded(void);
/* One request to PE 0 and its reply (valid until the next call); errno is
 * PE 0's. Ends the job naming call when PE 0 cannot be reached. */
const struct kumi_omp_io_msg *kumi_omp_io_call(const char *call, uint32_t op, FILE *f, int64_t a,
                                               int64_t b, const void *data, size_t len);
/* len bytes to stream f at PE 0, in as many messages as it takes; the
 * bytes written. */
size_t kumi_omp_io_write(const char *call, FILE *f, const void *buf, size_t len);

/* libc_scan.c: scans f (or the string str) with fmt into out (cap
 * bytes); scanf's result, and the number of conversions in *nconv. */
int kumi_omp_scan_slots(const char *fmt, char *out, size_t cap, FILE *f, const char *str,
                        int *nconv);
/* libc_fwd.c: fscanf on a worker, done at PE 0 into slots (*local = 1 and
 * nothing done on PE 0 itself). */
int kumi_omp_libc_forward_scan(const char *call, FILE *f, const char *fmt, char *out,
                               size_t *cap, int *local);
/* libc_fwd.c: PE 0 flushes its streams (exit on a worker). */
void kumi_omp_libc_flush_master(void);

#endif /* KUMI_OMP_LIBC_IO_H */
