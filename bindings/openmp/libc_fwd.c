/*
 * libc_fwd.c -- stdio forwarding: every stream lives on PE 0.
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
 * Request and reply travel as kumi active messages (handler
 * KUMI_RT_AM_OMP). PE 0's handler only queues a request; PE 0 serves the
 * queue from every kumi wait (the runtime's binding poll hook: a barrier,
 * a lock, a DSM miss, taskwait) and the task scheduler's idle loop, so a
 * worker's printf waits until the master next waits (at the latest the
 * region's end). A worker waits for its reply, which orders the output
 * before anything the worker does next.
 *
 * This file: the messages (libc_io.h), PE 0's handler and server, and a
 * worker's request/reply. The wrappers are libc_stdio.c, libc_printf.c
 * and libc_scan.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "libc_io.h"
#include "rt.h"
#include "check.h"

_Static_assert(KUMI_OMP_IO_MSG <= KUMI_TP_AM_MAX_PAYLOAD, "a stdio message is one active message");

/* ------------------------------------------------------ the protocol */

/* requests queued by the handler for PE 0's main thread */
struct req_node {
    struct req_node *next;
    int              src;
    struct kumi_omp_io_msg       m;
};
static struct {
    pthread_mutex_t  mu;
    struct req_node *head, *tail;
    int              pending;       /* atomic hint: head != NULL */
    /* the reply to my one outstanding request */
    uint32_t         done;
    struct kumi_omp_io_msg       reply;
    int              up;
    int              serving;
} io = { .mu = PTHREAD_MUTEX_INITIALIZER };

static void io_am(struct kumi_tp *tp, int src, const void *payload, size_t len, void *arg)
{
    (void)tp;
    (void)arg;
    const struct kumi_omp_io_msg *m = payload;
    if (len < sizeof(struct kumi_omp_io_hdr) || len > sizeof(struct kumi_omp_io_msg))
        return;
    if (m->h.reply) {
        memcpy(&io.reply, m, len);
        __atomic_store_n(&io.done, 1, __ATOMIC_RELEASE);
        return;
    }
    struct req_node *n = malloc(sizeof(*n));
    if (n == NULL)
        kumi_rt_abort("libkumi-omp: out of memory queueing a stdio request");
    n->next = NULL;
    n->src  = src;
    memcpy(&n->m, m, len);
    pthread_mutex_lock(&io.mu);
    if (io.tail != NULL)
        io.tail->next = n;
    else
        io.head = n;
    io.tail = n;
    __atomic_store_n(&io.pending, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&io.mu);
}

static int io_hook(void)
{
    return kumi_omp_libc_serve();
}

void kumi_omp_libc_init(void)
{
    if (io.up || kumi_rt.state != 1)
        return;
    kumi_tp_am_register(&kumi_rt.tp, KUMI_RT_AM_OMP, io_am, NULL);
    if (kumi_rt_poll_hook_add(io_hook) != KUMI_OK)
        kumi_rt_abort("libkumi-omp: no room for the stdio poll hook");
    io.up = 1;
}

/* Forwarding is needed on every PE but 0 of a multi-PE job. */
int kumi_omp_io_forwarded(void)
{
    return kumi_rt.state == 1 && kumi_rt.rank != 0 && io.up;
}

/* One request to PE 0, waiting for its reply (serving DSM requests
 * meanwhile). data may be NULL. Returns the reply (valid until the next
 * call); errno is set from PE 0's. */
const struct kumi_omp_io_msg *kumi_omp_io_call(const char *call, uint32_t op, FILE *f, int64_t a,
                                               int64_t b, const void *data, size_t len)
{
    static struct kumi_omp_io_msg m;

    if (len > KUMI_OMP_IO_DATA)
        kumi_omp_fail(call, "internal: %zu bytes exceed one stdio message", len);
    memset(&m.h, 0, sizeof m.h);
    m.h.op   = op;
    m.h.file = (uint64_t)(uintptr_t)f;
    m.h.a    = a;
    m.h.b    = b;
    m.h.len  = (uint32_t)len;
    if (len > 0)
        memcpy(m.data, data, len);
    __atomic_store_n(&io.done, 0, __ATOMIC_RELAXED);
    int rc = kumi_tp_am_send(&kumi_rt.tp, 0, KUMI_RT_AM_OMP, &m, sizeof m.h + len);
    if (rc != KUMI_OK)
        kumi_omp_fail(call, "cannot send the request to PE 0 (where the program's streams "
                      "are): %s", kumi_strerror(rc));
    if (kumi_rt_wait(call, &io.done, 4, KUMI_CMP_EQ, 1) != KUMI_OK)
        kumi_omp_fail(call, "PE 0 (which holds the program's streams) is gone");
    errno = io.reply.h.err;
    return &io.reply;
}

/* Sends len bytes to stream f at PE 0, in as many messages as it takes;
 * returns the bytes written. */
size_t kumi_omp_io_write(const char *call, FILE *f, const void *buf, size_t len)
{
    size_t done = 0;

    while (done < len) {
        size_t k = len - done < KUMI_OMP_IO_DATA ? len - done : KUMI_OMP_IO_DATA;
        const struct kumi_omp_io_msg *r = kumi_omp_io_call(call, OP_WRITE, f, 0, 0, (const char *)buf + done, k);
        done += (size_t)r->h.a;
        if ((size_t)r->h.a < k)
            break;
    }
    return done;
}
/* ------------------------------------------------------- PE 0's side */


static void serve_one(int src, const struct kumi_omp_io_msg *q)
{
    static struct kumi_omp_io_msg r;
    FILE             *f = (FILE *)(uintptr_t)q->h.file;
    size_t            n;

    memset(&r.h, 0, sizeof r.h);
    r.h.reply = 1;
    r.h.op    = q->h.op;
    errno     = 0;
    switch (q->h.op) {
    case OP_WRITE:
        r.h.a = (int64_t)fwrite(q->data, 1, q->h.len, f);
        break;
    case OP_READ:
        n = (size_t)q->h.a < KUMI_OMP_IO_DATA ? (size_t)q->h.a : KUMI_OMP_IO_DATA;
        r.h.a   = (int64_t)fread(r.data, 1, n, f);
        r.h.len = (uint32_t)r.h.a;
        break;
    case OP_GETS:
        n = (size_t)q->h.a < KUMI_OMP_IO_DATA ? (size_t)q->h.a : KUMI_OMP_IO_DATA;
        r.h.a = fgets(r.data, (int)n, f) != NULL;
        r.h.len = r.h.a ? (uint32_t)strlen(r.data) + 1 : 0;
        break;
    case OP_GETC:     r.h.a = fgetc(f); break;
    case OP_GETDELIM: {
        /* up to and including the delimiter, at most KUMI_OMP_IO_DATA bytes */
        int c = 0;
        n = 0;
        while (n < KUMI_OMP_IO_DATA && (c = fgetc(f)) != EOF) {
            r.data[n++] = (char)c;
            if (c == (int)q->h.a)
                break;
        }
        r.h.len = (uint32_t)n;
        r.h.a   = n > 0 && (c == (int)q->h.a || n == KUMI_OMP_IO_DATA);   /* more may follow */
        r.h.b   = c == EOF && ferror(f);
        break;
    }
    case OP_UNGETC:   r.h.a = ungetc((int)q->h.a, f); break;
    case OP_OPEN:
    case OP_REOPEN: {
        const char *path = q->data, *mode = q->data + strlen(q->data) + 1;
        FILE       *g    = q->h.op == OP_OPEN ? fopen(q->h.a ? path : NULL, mode)
                                              : freopen(q->h.a ? path : NULL, mode, f);
        if (q->h.op == OP_OPEN && !q->h.a)
            g = NULL;
        r.h.file = (uint64_t)(uintptr_t)g;
        break;
    }
    case OP_TMPFILE:  r.h.file = (uint64_t)(uintptr_t)tmpfile(); break;
    case OP_CLOSE:    r.h.a = fclose(f); break;
    case OP_FLUSH:    r.h.a = fflush(f); break;
    case OP_SEEK:     r.h.a = fseeko(f, (off_t)q->h.a, (int)q->h.b); break;
    case OP_TELL:     r.h.a = ftello(f); break;
    case OP_REWIND:   rewind(f); break;
    case OP_EOF:      r.h.a = feof(f); break;
    case OP_ERROR:    r.h.a = ferror(f); break;
    case OP_CLEARERR: clearerr(f); break;
    case OP_FILENO:   r.h.a = fileno(f); break;
    case OP_SETVBUF:  r.h.a = setvbuf(f, NULL, (int)q->h.a, (size_t)q->h.b); break;
    case OP_REMOVE:   r.h.a = remove(q->data); break;
    case OP_RENAME:   r.h.a = rename(q->data, q->data + strlen(q->data) + 1); break;
    case OP_RAND:     r.h.a = rand(); break;
    case OP_RNG:
        switch (q->h.a) {
        case 0: { double d = drand48(); memcpy(&r.h.b, &d, sizeof d); break; }
        case 1: r.h.b = lrand48(); break;
        case 2: r.h.b = mrand48(); break;
        case 3: r.h.b = random(); break;
        case 4: srand48((long)q->h.b); break;
        case 5: srandom((unsigned)q->h.b); break;
        }
        break;
    case OP_SRAND:    srand((unsigned)q->h.a); break;
    case OP_PERROR:
        errno = (int)q->h.a;
        perror(q->h.len > 0 ? q->data : NULL);
        break;
    case OP_SCAN: {
        int nconv = 0;
        r.h.a   = kumi_omp_scan_slots(q->data, r.data, KUMI_OMP_IO_DATA, f, NULL, &nconv);
        r.h.b   = nconv;
        r.h.len = KUMI_OMP_IO_DATA;
        break;
    }
    default:
        r.h.a = -1;
        errno = ENOSYS;
    }
    r.h.err = errno;
    int rc = kumi_tp_am_send(&kumi_rt.tp, src, KUMI_RT_AM_OMP, &r, sizeof r.h + r.h.len);
    if (rc != KUMI_OK)
        kumi_rt_error(rc, "libkumi-omp stdio", "cannot reply to PE %d", src);
}

int kumi_omp_libc_serve(void)
{
    int served = 0;

    if (!__atomic_load_n(&io.pending, __ATOMIC_ACQUIRE) || io.serving)
        return 0;
    io.serving = 1;   /* fclose/fflush never wait in kumi, but be safe */
    for (;;) {
        pthread_mutex_lock(&io.mu);
        struct req_node *n = io.head;
        io.head = io.tail = NULL;
        __atomic_store_n(&io.pending, 0, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&io.mu);
        if (n == NULL)
            break;
        while (n != NULL) {
            struct req_node *next = n->next;
            serve_one(n->src, &n->m);
            free(n);
            served++;
            n = next;
        }
    }
    io.serving = 0;
    return served;
}

void kumi_omp_libc_flush_master(void)
{
    if (kumi_omp_io_forwarded())
        kumi_omp_io_call("exit", OP_FLUSH, NULL, 0, 0, NULL, 0);
    else
        fflush(NULL);
}

/* fscanf on a worker: PE 0 scans into KUMI_OMP_IO_DATA bytes of slots. */
int kumi_omp_libc_forward_scan(const char *call, FILE *f, const char *fmt, char *out,
                               size_t *cap, int *local)
{
    *local = !kumi_omp_io_forwarded();
    if (*local)
        return 0;
    const struct kumi_omp_io_msg *r = kumi_omp_io_call(call, OP_SCAN, f, 0, 0, fmt, strlen(fmt) + 1);
    memcpy(out, r->data, KUMI_OMP_IO_DATA < *cap ? KUMI_OMP_IO_DATA : *cap);
    *cap = KUMI_OMP_IO_DATA;
    return (int)r->h.a;
}
