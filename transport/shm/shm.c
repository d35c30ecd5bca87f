/*
 * shm.c -- the shared-memory transport: kumi's AOTF/LLCM fast path.
 *
 * Each PE owns one POSIX shared-memory segment "/kumi-<job>-<rank>" (mode
 * 0600, created exclusively) laid out as
 *
 *   [header page][LLCM][incoming active-message queues, one per sender]
 *   [pad to 2 MiB][symmetric heap][pad to a page][static data]
 *
 * mapped where the heap's address is a multiple of p->heap_align (1 GiB:
 * the file keeps the 2 MiB pad, the address space takes the rest).
 *
 * The static data area exists with KUMI_INIT_SYMMETRIC_DATA: at open the
 * program's .data/.bss range is copied into it and the area is mapped over
 * the range (kumi_shm_data_move), so the program's globals are this memory
 * and peers reach them as they reach the heap.
 *
 * and maps every peer's segment at start-up (<job> is the bootstrap's job
 * id, unique among the jobs of this host, whatever launcher started it).
 * The table of resolved peer
 * bases (struct kumi_shm_peer) is DIMMnet-1's header-seed table (HTLB):
 * resolved once, then every kick is one store to base + offset. Once all PEs
 * have mapped each other the names are unlinked, so nothing of a running
 * job is left in /dev/shm even if every process is killed.
 *
 * Ordering: every write to a peer is a plain store (or memcpy) and kicks
 * are release stores, so "put data, then kick" arrives in order.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../transport.h"

#define KUMI_SHM_MAGIC    0x6b756d692d73686dULL   /* "kumi-shm" */
#define KUMI_SHM_VERSION  3
#define KUMI_SHM_HDR_SIZE 4096
#define KUMI_SHM_HEAP_FILE_ALIGN ((size_t)2 << 20)   /* the heap's offset in the file */
#define KUMI_SHM_AM_SKIP  0xffffu                 /* wrap marker */
#define KUMI_SHM_AM_ALIGN 1   /* small records never straddle two lines */

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "kick encoding assumes little endian");

/* Written once by the owner before ready; read by peers after ready. */
struct kumi_shm_hdr {
    uint64_t magic;
    uint32_t version, rank, npes;
    int32_t  pid;
    uint64_t llcm_off, llcm_size;
    uint64_t amq_off, amq_bytes;    /* per-sender queue, header included */
    uint64_t heap_off, heap_size;
    uint64_t data_off, data_size;   /* static data (size 0: none)      */
    uint64_t total;
    volatile uint32_t ready;        /* release-set when the above is valid */
    volatile uint32_t boot_count;   /* PE 0 only: PEs that mapped everyone */
    __attribute__((aligned(64))) struct kumi_tp_doorbell doorbell;
};
_Static_assert(sizeof(struct kumi_shm_hdr) <= KUMI_SHM_HDR_SIZE, "shm header too large");

/* A single-producer single-consumer byte queue in the receiver's segment.
 * A record is [u64 header][payload, padded to 8]; the header word is
 * len | handler << 32 | KUMI_SHM_AM_LIVE << 48, so a published one is
 * never 0. There is no shared tail: the receiver polls the header word at
 * its head, and the sender publishes a record by one release store of its
 * header after the payload, so a small message costs the receiver one
 * cache line, not a tail's line and then the record's.
 *
 * Stale bytes of an earlier lap must never look like a header. So before
 * publishing a record at t (need bytes) the sender stores 0 to the word at
 * t + need, where the next header will go: the receiver that sees the
 * header at t (acquire) then sees 0 or a fresh record at t + need. That
 * word must be free too, so the room check keeps 8 bytes of slack
 * (t + need + 8 - head <= cap). The segment starts zeroed: word 0 is 0.
 *
 * Wrap: a record that does not fit before the end is preceded by a skip
 * record (handler KUMI_SHM_AM_SKIP) covering the end, published the same
 * way (its "next header" is word 0). A record of at most a cache line
 * that would straddle two lines is moved to the next line by a skip too
 * (KUMI_SHM_AM_ALIGN), so the receiver reads it in one line.
 *
 * head (the receiver's, released after each record) is read by the sender
 * only when its cached copy says the queue is full. */
struct kumi_shm_amq {
    __attribute__((aligned(64))) volatile uint64_t head;  /* consumer's */
    __attribute__((aligned(64))) uint8_t data[];
};
#define KUMI_SHM_AMQ_HDR offsetof(struct kumi_shm_amq, data)
#define KUMI_SHM_AM_LIVE ((uint64_t)1 << 48)
#define KUMI_SHM_REC     ((size_t)8)    /* the header word */
#define KUMI_SHM_LINE    ((size_t)64)

static inline uint64_t kumi_shm_rec_word(size_t len, unsigned handler)
{
    return (uint64_t)len | (uint64_t)handler << 32 | KUMI_SHM_AM_LIVE;
}

/* The header-seed table entry for one peer. */
struct kumi_shm_peer {
    uint8_t              *base;     /* the peer's whole segment, mapped here */
    uint8_t              *seg[KUMI_SEG_COUNT];
    struct kumi_shm_hdr  *hdr;
    struct kumi_shm_amq  *out;      /* my queue in the peer's segment       */
    uint64_t              out_tail; /* producer position (mine)            */
    uint64_t              out_head; /* cached consumer position            */
    uint32_t              out_lock; /* threads: one producer at a time      */
};

struct kumi_shm {
    char                  job[64];
    int                   fd;
    uint8_t              *base;
    size_t                total;
    size_t                amq_data;  /* bytes of data per queue */
    struct kumi_shm_hdr  *hdr;
    struct kumi_shm_peer *peer;      /* npes entries; mine maps my own base */
    int                   in_progress; /* threads: the progress try-lock */
    unsigned              next_src;  /* round-robin start for progress */
    int                   threads;   /* kumi_tp_params.threads          */
    double                timeout;
    int                   linked;    /* my name still exists in /dev/shm */
    int                   size;
};

static struct kumi_shm *kumi_tp_shm(struct kumi_tp *tp)
{
    return tp->priv;
}

static size_t kumi_shm_round(size_t v, size_t a)
{
    return (v + a - 1) / a * a;
}

static void kumi_shm_nap(void)
{
    struct timespec ts = { 0, 50000 };
    nanosleep(&ts, NULL);
}

static void kumi_shm_segname(char *buf, size_t len, const char *job, int rank)
{
    snprintf(buf, len, "/kumi-%s-%d", job, rank);
}

/* Per-sender queue size: 64 KiB for small jobs, shrinking so a segment's
 * queues stay near 4 MiB, never below what two maximal records need.
 * Always a power of two: positions are masked, never divided (a 64-bit
 * division is some 40 cycles, twice per message on the sending side). */
static size_t kumi_shm_amq_data(int npes)
{
    size_t per = ((size_t)4 << 20) / (size_t)npes;
    size_t min = 4 * (KUMI_TP_AM_MAX_PAYLOAD + KUMI_SHM_REC);
    size_t q   = 64 << 10;

    while (q > per && q / 2 >= min)
        q /= 2;
    return q;
}

/* Maps len bytes of fd so that the start is aligned to align. */
/* Maps fd's len bytes where base + at is a multiple of align. */
static void *kumi_shm_map_aligned(int fd, size_t len, size_t align, size_t at)
{
    uint8_t  *resv = mmap(NULL, len + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                          -1, 0);
    uintptr_t start;

    if (resv == MAP_FAILED)
        return NULL;
    start = (((uintptr_t)resv + at + align - 1) & ~(uintptr_t)(align - 1)) - at;
    if (mmap((void *)start, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0)
        == MAP_FAILED) {
        munmap(resv, len + align);
        return NULL;
    }
    if (start > (uintptr_t)resv)
        munmap(resv, start - (uintptr_t)resv);
    if ((uintptr_t)resv + len + align > start + len)
        munmap((void *)(start + len), (uintptr_t)resv + len + align - (start + len));
    return (void *)start;
}

/* Is the page at pg all zero? Reads the program's static data, sanitizer
 * redzones around globals included, so it is not instrumented. */
__attribute__((no_sanitize("address", "thread")))
static int kumi_shm_page_zero(const uint8_t *pg, size_t len)
{
    const uint64_t *w = (const uint64_t *)pg;

    for (size_t i = 0; i < len / 8; i++)
        if (w[i] != 0)
            return 0;
    return 1;
}

/* Moves the program's static data [base, base + len) into my segment at
 * data_off and maps that part of the segment over the range: same address,
 * same contents, now shared with the peers that map my segment. Zero pages
 * are not written (the file reads as zero there), so a large .bss costs
 * no memory until it is touched.
 *
 * Between the copy and the map nothing may write the range: this function
 * writes only its locals (kumi's own state may lie in the range when
 * libkumi is linked statically), and no other thread of kumi exists yet.
 * Raw system calls, not libc's: sanitizers intercept pwrite (and would
 * check the range, redzones included) and mmap (and would treat the range
 * as fresh memory, forgetting what they know of the globals in it). */
static int kumi_shm_data_move(int fd, uint8_t *base, size_t len, size_t data_off)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);

    for (size_t at = 0; at < len;) {
        size_t run = 0;
        while (at + run < len && !kumi_shm_page_zero(base + at + run, page))
            run += page;
        for (size_t done = 0; done < run;) {
            long w = syscall(SYS_pwrite64, fd, base + at + done, run - done,
                             (off_t)(data_off + at + done));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                kumi_tp_log(KUMI_TP_LOG_ERROR, "shm", "cannot copy the static data (%zu bytes "
                            "at %p) into shared memory: %s (is /dev/shm full?)", len,
                            (void *)base, w < 0 ? strerror(errno) : "short write");
                return KUMI_ERR_TRANSPORT;
            }
            done += (size_t)w;
        }
        at += run + (at + run < len ? page : 0);
    }
    if ((void *)syscall(SYS_mmap, base, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
                        (off_t)data_off) != base) {
        kumi_tp_log(KUMI_TP_LOG_ERROR, "shm", "cannot map shared memory over the static data "
                    "(%zu bytes at %p): %s", len, (void *)base, strerror(errno));
        return KUMI_ERR_TRANSPORT;
    }
    return KUMI_OK;
}

/* Start-up guard. Until every PE has mapped every segment, my segment's
 * name exists in /dev/shm; a launcher that ends a failing job (mpirun,
 * srun, kumirun) sends SIGTERM first, and a PE it kills in that window
 * would leave the name behind. So from creating the name to unlinking it
 * SIGTERM first removes the name (unlink, async-signal-safe, of a path
 * made in advance), then does what it did before: the program's handler,
 * or the default (the signal is delivered again when this one returns),
 * or nothing. One transport per process: file-scope state. */
static char             kumi_shm_guard_path[160];
static struct sigaction kumi_shm_guard_old;
static volatile sig_atomic_t kumi_shm_guard_on;

static void kumi_shm_guard_handler(int sig, siginfo_t *si, void *uc)
{
    struct sigaction old = kumi_shm_guard_old;

    if (kumi_shm_guard_on) {
        kumi_shm_guard_on = 0;
        unlink(kumi_shm_guard_path);
    }
    sigaction(SIGTERM, &old, NULL);
    if (old.sa_flags & SA_SIGINFO)
        old.sa_sigaction(sig, si, uc);
    else if (old.sa_handler == SIG_DFL)
        raise(sig);   /* pending until this handler returns: then fatal */
    else if (old.sa_handler != SIG_IGN)
        old.sa_handler(sig);
}

static void kumi_shm_guard_set(const char *name)
{
    struct sigaction sa;

    snprintf(kumi_shm_guard_path, sizeof(kumi_shm_guard_path), "/dev/shm%s", name);
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = kumi_shm_guard_handler;
    sa.sa_flags     = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    kumi_shm_guard_on = 1;
    if (sigaction(SIGTERM, &sa, &kumi_shm_guard_old) != 0)
        kumi_shm_guard_on = 0;
}

static void kumi_shm_guard_clear(void)
{
    if (!kumi_shm_guard_on)
        return;
    kumi_shm_guard_on = 0;
    sigaction(SIGTERM, &kumi_shm_guard_old, NULL);
}

static int kumi_shm_open(struct kumi_tp *tp, const struct kumi_tp_params *p)
{
    struct kumi_shm *s = calloc(1, sizeof(*s));
    char             name[128];
    size_t           amq_bytes, off;

    if (s == NULL)
        return KUMI_ERR_NOMEM;
    s->fd      = -1;
    s->timeout = p->connect_timeout;
    s->size    = p->size;
    snprintf(s->job, sizeof(s->job), "%s", p->job_id);
    s->peer = calloc((size_t)p->size, sizeof(*s->peer));
    if (s->peer == NULL)
        goto err_nomem;

    s->amq_data = kumi_shm_amq_data(p->size);
    amq_bytes   = kumi_shm_round(KUMI_SHM_AMQ_HDR + s->amq_data, 4096);
    off = KUMI_SHM_HDR_SIZE + p->llcm_size;
    size_t amq_off = off;
    off += amq_bytes * (size_t)p->size;
    size_t heap_off = kumi_shm_round(off, KUMI_SHM_HEAP_FILE_ALIGN);
    size_t data_off = kumi_shm_round(heap_off + p->heap_size, (size_t)sysconf(_SC_PAGESIZE));
    s->total = data_off + p->data_size;

    kumi_shm_segname(name, sizeof(name), s->job, p->rank);
    s->fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (s->fd < 0) {
        kumi_tp_log(KUMI_TP_LOG_ERROR, "shm", "cannot create shared memory segment %s: %s", name,
                    strerror(errno));
        goto err_tp;
    }
    s->linked = 1;
    kumi_shm_guard_set(name);
    if (ftruncate(s->fd, (off_t)s->total) != 0) {
        kumi_tp_log(KUMI_TP_LOG_ERROR, "shm", "cannot size %s to %zu bytes: %s "
                    "(is /dev/shm full? see KUMI_HEAP_SIZE)", name, s->total,
                    strerror(errno));
        goto err_tp;
    }
    s->base = kumi_shm_map_aligned(s->fd, s->total, p->heap_align, heap_off);
    if (s->base == NULL) {
        kumi_tp_log(KUMI_TP_LOG_ERROR, "shm", "cannot map %s (%zu bytes): %s", name,
                    s->total, strerror(errno));
        goto err_tp;
    }
    s->hdr = (struct kumi_shm_hdr *)s->base;
    *s->hdr = (struct kumi_shm_hdr){
        .magic = KUMI_SHM_MAGIC, .version = KUMI_SHM_VERSION, .rank = (uint32_t)p->rank,
        .npes = (uint32_t)p->size, .pid = (int32_t)getpid(),
        .llcm_off = KUMI_SHM_HDR_SIZE, .llcm_size = p->llcm_size,
        .amq_off = amq_off, .amq_bytes = amq_bytes,
        .heap_off = heap_off, .heap_size = p->heap_size,
        .data_off = data_off, .data_size = p->data_size, .total = s->total,
    };
    if (p->data_size != 0
        && kumi_shm_data_move(s->fd, p->data_base, p->data_size, data_off) != KUMI_OK)
        goto err_tp;
    __atomic_store_n(&s->hdr->ready, 1, __ATOMIC_RELEASE);

    kumi_tp_take_params(tp, p, s);
    tp->progress_mask           = 63;   /* peers' stores need no progress */
    tp->kicks_publish           = 1;    /* release stores: see transport.h */
    tp->local[KUMI_SEG_LLCM]    = s->base + KUMI_SHM_HDR_SIZE;
    tp->local[KUMI_SEG_HEAP]    = s->base + heap_off;
    tp->doorbell                = &s->hdr->doorbell;
    s->threads                  = p->threads;
    return KUMI_OK;

err_nomem:
    free(s->peer);
    free(s);
    return KUMI_ERR_NOMEM;
err_tp:
    kumi_shm_guard_clear();
    if (s->base != NULL)
        munmap(s->base, s->total);
    if (s->fd >= 0)
        close(s->fd);
    if (s->linked)
        shm_unlink(name);
    free(s->peer);
    free(s);
    return KUMI_ERR_TRANSPORT;
}

static int kumi_shm_failed(struct kumi_tp *tp)
{
    return tp->failed != NULL && __atomic_load_n(tp->failed, __ATOMIC_ACQUIRE) != 0;
}

/* Says why peer pe's segment (fd, size bytes) differs from mine: the first
 * part of the layout that does, once its owner has described it. */
static void kumi_shm_mismatch(struct kumi_tp *tp, int pe, int fd, size_t size, double deadline)
{
    struct kumi_shm           *s = kumi_tp_shm(tp);
    const struct kumi_shm_hdr *h = mmap(NULL, KUMI_SHM_HDR_SIZE, PROT_READ, MAP_SHARED, fd, 0);
    const struct kumi_shm_hdr *m = s->hdr;

    if (h != MAP_FAILED)
        while (!__atomic_load_n(&h->ready, __ATOMIC_ACQUIRE) && !kumi_shm_failed(tp)
               && kumi_tp_now() < deadline)
            kumi_shm_nap();
    if (h == MAP_FAILED || !h->ready || h->magic != KUMI_SHM_MAGIC
        || h->version != KUMI_SHM_VERSION)
        kumi_tp_log(KUMI_TP_LOG_ERROR, "shm", "segment of PE %d is %zu bytes, mine %zu: mixed "
                    "kumi versions or settings?", pe, size, s->total);
    else if (h->llcm_size != m->llcm_size)
        kumi_tp_log(KUMI_TP_LOG_ERROR, "shm", "PE %d has %llu bytes of LLCM, I have %llu: do all "
                    "PEs have the same KUMI_LLCM_SIZE?", pe,
                    (unsigned long long)h->llcm_size, (unsigned long long)m->llcm_size);
    else if (h->heap_size != m->heap_size)
        kumi_tp_log(KUMI_TP_LOG_ERROR, "shm", "PE %d has a heap segment of %llu bytes, I have "
                    "%llu: do all PEs have the same KUMI_HEAP_SIZE and KUMI_COLL_SCRATCH?", pe,
                    (unsigned long long)h->heap_size,
                    (unsigned long long)m->heap_size);
    else if (h->data_size != m->data_size)
        kumi_tp_log(KUMI_TP_LOG_ERROR, "shm", "static data of PE %d is %llu bytes, mine %llu: "
                    "with KUMI_INIT_SYMMETRIC_DATA every PE must run the same executable (and "
                    "the same KUMI_SYMMETRIC_DATA)", pe,
                    (unsigned long long)h->data_size, (unsigned long long)m->data_size);
    else
        kumi_tp_log(KUMI_TP_LOG_ERROR, "shm", "segment of PE %d is %zu bytes, mine %zu: mixed "
                    "kumi versions or settings?", pe, size, s->total);
    if (h != MAP_FAILED)
        munmap((void *)h, KUMI_SHM_HDR_SIZE);
}

/* Maps peer pe once its owner has created and described its segment. */
static int kumi_shm_map_peer(struct kumi_tp *tp, int pe, double deadline)
{
    struct kumi_shm      *s = kumi_tp_shm(tp);
    struct kumi_shm_peer *pp = &s->peer[pe];
    struct kumi_shm_hdr  *h;
    char                  name[128];
    int                   fd;
    struct stat           st;

    if (pe == tp->rank) {
        pp->base = s->base;
    } else {
        kumi_shm_segname(name, sizeof(name), s->job, pe);
        for (;;) {
            fd = shm_open(name, O_RDWR, 0);
            /* sized once, by one ftruncate: nonzero is final */
            if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size != 0)
                break;
            if (fd >= 0)
                close(fd);
            else if (errno != ENOENT)
                goto err_errno;
            if (kumi_shm_failed(tp))
                return KUMI_ERR_PEER;
            if (kumi_tp_now() > deadline) {
                kumi_tp_log(KUMI_TP_LOG_ERROR, "shm", "PE %d did not create its segment %s "
                            "within %.0f s (KUMI_STARTUP_TIMEOUT)", pe, name, s->timeout);
                return KUMI_ERR_TIMEOUT;
            }
            kumi_shm_nap();
        }
        if ((size_t)st.st_size != s->total) {
            kumi_shm_mismatch(tp, pe, fd, (size_t)st.st_size, deadline);
            close(fd);
            return KUMI_ERR_INVALID;
        }
        pp->base = mmap(NULL, s->total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
        if (pp->base == MAP_FAILED) {
            pp->base = NULL;
            goto err_errno;
        }
    }
    h = (struct kumi_shm_hdr *)pp->base;
    while (__atomic_load_n(&h->ready, __ATOMIC_ACQUIRE) == 0) {
        if (kumi_shm_failed(tp))
            return KUMI_ERR_PEER;
        if (kumi_tp_now() > deadline) {
            kumi_tp_log(KUMI_TP_LOG_ERROR, "shm", "PE %d never finished describing its segment",
                        pe);
            return KUMI_ERR_TIMEOUT;
        }
        kumi_shm_nap();
    }
    if (h->magic != KUMI_SHM_MAGIC || h->version != KUMI_SHM_VERSION || h->rank != (uint32_t)pe
        || h->npes != (uint32_t)tp->size || h->total != s->total) {
        kumi_tp_log(KUMI_TP_LOG_ERROR, "shm", "segment of PE %d does not match mine "
                    "(version, size or job): mixed kumi versions or settings?", pe);
        return KUMI_ERR_INVALID;
    }
    pp->hdr                = h;
    pp->seg[KUMI_SEG_LLCM] = pp->base + h->llcm_off;
    pp->seg[KUMI_SEG_HEAP] = pp->base + h->heap_off;
    /* my own static data: the program's addresses themselves (one mapping
     * of the same pages; kumi_ptr(&x, me) == &x) */
    pp->seg[KUMI_SEG_DATA] = h->data_size == 0 ? NULL
                             : pe == tp->rank ? (uint8_t *)tp->local[KUMI_SEG_DATA]
                             : pp->base + h->data_off;
    pp->out = (struct kumi_shm_amq *)(pp->base + h->amq_off + h->amq_bytes * (size_t)tp->rank);
    return KUMI_OK;

err_errno:
    kumi_tp_log(KUMI_TP_LOG_ERROR, "shm", "cannot map the segment of PE %d: %s", pe,
                strerror(errno));
    return KUMI_ERR_TRANSPORT;
}

static int kumi_shm_connect(struct kumi_tp *tp)
{
    struct kumi_shm     *s = kumi_tp_shm(tp);
    double               deadline = kumi_tp_now() + s->timeout;
    struct kumi_shm_hdr *h0;
    char                 name[128];
    int                  rc;

    for (int i = 0; i < tp->size; i++) {
        /* start with my right neighbour so PEs do not all poll PE 0 */
        rc = kumi_shm_map_peer(tp, (tp->rank + i) % tp->size, deadline);
        if (rc != KUMI_OK)
            return rc;
    }
    /* Everyone has mapped everyone once PE 0's count reaches npes; only
     * then may the names go. */
    h0 = s->peer[0].hdr;
    __atomic_add_fetch(&h0->boot_count, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&h0->boot_count, __ATOMIC_ACQUIRE) < (uint32_t)tp->size) {
        if (kumi_shm_failed(tp))
            return KUMI_ERR_PEER;
        if (kumi_tp_now() > deadline) {
            kumi_tp_log(KUMI_TP_LOG_ERROR, "shm", "only %u of %d PEs started within %.0f s "
                        "(KUMI_STARTUP_TIMEOUT)", h0->boot_count, tp->size, s->timeout);
            return KUMI_ERR_TIMEOUT;
        }
        sched_yield();
    }
    kumi_shm_segname(name, sizeof(name), s->job, tp->rank);
    shm_unlink(name);
    s->linked = 0;
    kumi_shm_guard_clear();
    close(s->fd);
    s->fd = -1;
    return KUMI_OK;
}

static void kumi_shm_close(struct kumi_tp *tp)
{
    struct kumi_shm *s = kumi_tp_shm(tp);
    char             name[128];

    if (s == NULL)
        return;
    for (int pe = 0; pe < tp->size; pe++)
        if (pe != tp->rank && s->peer[pe].base != NULL)
            munmap(s->peer[pe].base, s->total);
    kumi_shm_guard_clear();
    if (s->linked) {
        /* start-up failed: the job is ending, and a peer that died
         * before the names went would leave its segment behind; names
         * are this job's alone, so whoever is left removes them all */
        for (int pe = 0; pe < s->size; pe++) {
            kumi_shm_segname(name, sizeof(name), s->job, pe);
            shm_unlink(name);
        }
    }
    if (s->fd >= 0)
        close(s->fd);
    /* the static data's mapping over the program's range stays: it is the
     * program's memory now (and keeps the unlinked file alive) */
    munmap(s->base, s->total);
    free(s->peer);
    free(s);
    tp->priv = NULL;
}

static inline void kumi_shm_ring(struct kumi_tp *tp, int pe)
{
    if (tp->doorbells)
        kumi_tp_doorbell_ring(&kumi_tp_shm(tp)->peer[pe].hdr->doorbell);
}

static int kumi_shm_kick(struct kumi_tp *tp, int pe, size_t off, uint64_t val, size_t len)
{
    void *dst = kumi_tp_shm(tp)->peer[pe].seg[KUMI_SEG_LLCM] + off;

    switch (len) {
    case 1: __atomic_store_n((uint8_t *)dst, (uint8_t)val, __ATOMIC_RELEASE); break;
    case 2: __atomic_store_n((uint16_t *)dst, (uint16_t)val, __ATOMIC_RELEASE); break;
    case 4: __atomic_store_n((uint32_t *)dst, (uint32_t)val, __ATOMIC_RELEASE); break;
    case 8: __atomic_store_n((uint64_t *)dst, val, __ATOMIC_RELEASE); break;
    default: return KUMI_ERR_INVALID;
    }
    kumi_shm_ring(tp, pe);
    return KUMI_OK;
}

static int kumi_shm_put(struct kumi_tp *tp, int pe, enum kumi_seg seg, size_t off,
                        const void *src, size_t n)
{
    memcpy(kumi_tp_shm(tp)->peer[pe].seg[seg] + off, src, n);
    kumi_shm_ring(tp, pe);
    return KUMI_OK;
}

static int kumi_shm_get(struct kumi_tp *tp, void *dst, int pe, enum kumi_seg seg, size_t off,
                        size_t n)
{
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    memcpy(dst, kumi_tp_shm(tp)->peer[pe].seg[seg] + off, n);
    return KUMI_OK;
}

static int kumi_shm_atomic(struct kumi_tp *tp, int pe, enum kumi_seg seg, size_t off,
                           enum kumi_amo op, size_t width, uint64_t operand, uint64_t compare,
                           uint64_t *old)
{
    uint64_t result;

    if (width != 8 && width != 4)
        return KUMI_ERR_INVALID;
    result = kumi_tp_amo_apply(kumi_tp_shm(tp)->peer[pe].seg[seg] + off, op, width, operand,
                               compare);
    if (old != NULL)
        *old = result;
    kumi_shm_ring(tp, pe);
    return KUMI_OK;
}

static int kumi_shm_progress(struct kumi_tp *tp);

/* threads: puts, gets, kicks and atomics are stores and CPU atomics and
 * need no lock; the active-message queues have one producer (this PE) and
 * one consumer, so this PE's threads take turns per queue. The holder
 * only copies a record in: a spin, then yields. */
static void kumi_shm_lock(uint32_t *l)
{
    for (unsigned i = 0; __atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE) != 0; i++)
        while (__atomic_load_n(l, __ATOMIC_RELAXED) != 0) {
            if (i++ < 64) {
#if defined(__x86_64__) || defined(__i386__)
                __builtin_ia32_pause();
#elif defined(__aarch64__)
                __asm__ __volatile__("yield");
#endif
            } else {
                sched_yield();
            }
        }
}

static void kumi_shm_unlock(uint32_t *l)
{
    __atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

/* Publishes the record of need bytes at pos whose header word is w: the
 * word where the next header will go is cleared first (see struct
 * kumi_shm_amq), then w's release store publishes payload and all. */
static inline void kumi_shm_publish(struct kumi_shm_amq *q, size_t cap, size_t pos, size_t need,
                                    uint64_t w)
{
    size_t next = pos + need == cap ? 0 : pos + need;

    __atomic_store_n((uint64_t *)(void *)&q->data[next], 0, __ATOMIC_RELAXED);
    __atomic_store_n((uint64_t *)(void *)&q->data[pos], w, __ATOMIC_RELEASE);
}

/* The bytes to skip before a record of need bytes at pos: to the end when
 * it does not fit there, to the next line when it fits one line but would
 * straddle two; else 0. */
static inline size_t kumi_shm_skip(size_t pos, size_t need, size_t cap)
{
    if (cap - pos < need)
        return cap - pos;
    if (KUMI_SHM_AM_ALIGN && need <= KUMI_SHM_LINE && pos % KUMI_SHM_LINE + need > KUMI_SHM_LINE)
        return KUMI_SHM_LINE - pos % KUMI_SHM_LINE;
    return 0;
}

/* A 16-byte header and at most 16 bytes of payload (msg/'s small EAGER
 * messages) copied inline: two calls of memcpy cost more than the copy.
 * Never reads past the payload's plen bytes. */
static inline void kumi_shm_copy_small(uint8_t *dst, const void *hdr, const void *payload,
                                       size_t plen)
{
    const uint8_t *p = payload;

    memcpy(dst, hdr, 16);
    dst += 16;
    if (plen >= 8) {
        memcpy(dst, p, 8);
        if (plen > 8)
            memcpy(dst + plen - 8, p + plen - 8, 8);   /* overlapping tail */
    } else if (plen >= 4) {
        memcpy(dst, p, 4);
        memcpy(dst + plen - 4, p + plen - 4, 4);
    } else if (plen != 0) {
        dst[0] = p[0];
        dst[plen / 2] = p[plen / 2];
        dst[plen - 1] = p[plen - 1];
    }
}

/* One record of hdr (hlen bytes) then payload: the general case, with
 * wrap and alignment skips, the threads' lock and the wait for room. */
static __attribute__((noinline)) int
kumi_shm_am_sendv_slow(struct kumi_tp *tp, int pe, unsigned handler, const void *hdr,
                       size_t hlen, const void *payload, size_t plen)
{
    struct kumi_shm      *s  = kumi_tp_shm(tp);
    struct kumi_shm_peer *pp = &s->peer[pe];
    struct kumi_shm_amq  *q  = pp->out;
    size_t                len  = hlen + plen;
    size_t                need = KUMI_SHM_REC + kumi_shm_round(len, 8);
    size_t                cap  = s->amq_data;

    if (handler >= KUMI_TP_AM_MAX_HANDLERS || len > KUMI_TP_AM_MAX_PAYLOAD)
        return KUMI_ERR_INVALID;
    for (;;) {
        if (s->threads)
            kumi_shm_lock(&pp->out_lock);
        size_t pos  = pp->out_tail & (cap - 1);
        size_t skip = kumi_shm_skip(pos, need, cap);
        /* + 8: the next header's word is cleared too */
        if (pp->out_tail + skip + need + KUMI_SHM_REC - pp->out_head <= cap) {
            if (skip != 0) {
                kumi_shm_publish(q, cap, pos, skip,
                                 kumi_shm_rec_word(skip - KUMI_SHM_REC, KUMI_SHM_AM_SKIP));
                pp->out_tail += skip;
                pos = pp->out_tail & (cap - 1);
            }
            uint8_t *r = &q->data[pos];
            if (hlen == 16 && plen <= 16)
                kumi_shm_copy_small(r + KUMI_SHM_REC, hdr, payload, plen);
            else {
                if (hlen != 0)
                    memcpy(r + KUMI_SHM_REC, hdr, hlen);
                if (plen != 0)
                    memcpy(r + KUMI_SHM_REC + hlen, payload, plen);
            }
            kumi_shm_publish(q, cap, pos, need, kumi_shm_rec_word(len, handler));
            pp->out_tail += need;
            if (s->threads)
                kumi_shm_unlock(&pp->out_lock);
            kumi_shm_ring(tp, pe);
            return KUMI_OK;
        }
        pp->out_head = __atomic_load_n(&q->head, __ATOMIC_ACQUIRE);
        int room = pp->out_tail + skip + need + KUMI_SHM_REC - pp->out_head <= cap;
        if (s->threads)   /* never held while waiting for room */
            kumi_shm_unlock(&pp->out_lock);
        if (room)
            continue;
        /* full: serve my own queues so two PEs sending to each other move on */
        int rc = kumi_shm_progress(tp);
        if (rc < 0)
            return rc;
        if (kumi_shm_failed(tp))
            return KUMI_ERR_PEER;
        if (rc == 0)
            sched_yield();
    }
}

/* kumi_shm_ring, out of the straight path below (a call there made it
 * save six registers for every message) */
static __attribute__((noinline)) int kumi_shm_ring_ok(struct kumi_tp *tp, int pe)
{
    kumi_shm_ring(tp, pe);
    return KUMI_OK;
}

/* One record of hdr (hlen bytes) then payload. The common small message
 * (msg/'s 16-byte EAGER header, at most 16 bytes of data, one thread, no
 * skip, room by the cached head) takes the straight path: no loop and no
 * call, so no registers to save (an eighth of the sender's instructions
 * per 8-byte message went to the general function's prologue and
 * epilogue); everything else is the slow path's. */
static int kumi_shm_am_sendv(struct kumi_tp *tp, int pe, unsigned handler, const void *hdr,
                             size_t hlen, const void *payload, size_t plen)
{
    struct kumi_shm *s = kumi_tp_shm(tp);

    /* threads first: out_tail is the lock's then */
    if (__builtin_expect(s->threads || hlen != 16 || plen > 16
                         || handler >= KUMI_TP_AM_MAX_HANDLERS, 0))
        return kumi_shm_am_sendv_slow(tp, pe, handler, hdr, hlen, payload, plen);

    struct kumi_shm_peer *pp   = &s->peer[pe];
    size_t                mask = s->amq_data - 1;
    uint64_t              tail = pp->out_tail;
    size_t                pos  = tail & mask;
    size_t                need = KUMI_SHM_REC + kumi_shm_round(plen, 8) + 16;

    if (__builtin_expect(/* no skip: it ends before the line's end (so the
                          * next header word is in the queue too) */
                         pos % KUMI_SHM_LINE + need <= KUMI_SHM_LINE
                         && tail + need + KUMI_SHM_REC - pp->out_head <= mask + 1, 1)) {
        uint8_t *d = pp->out->data;
        kumi_shm_copy_small(d + pos + KUMI_SHM_REC, hdr, payload, plen);
        /* kumi_shm_publish's, the record ending in its line: the next
         * header's word is at (pos + need) & mask */
        __atomic_store_n((uint64_t *)(void *)(d + ((pos + need) & mask)), 0, __ATOMIC_RELAXED);
        __atomic_store_n((uint64_t *)(void *)(d + pos), kumi_shm_rec_word(16 + plen, handler),
                         __ATOMIC_RELEASE);
        tail += need;
        pp->out_tail = tail;
        /* After the publish, the first word of the line after the next
         * header's is cleared ahead, where room allows: the record that
         * later ends at that line's start then clears a word this PE owns
         * already instead of fetching the line first, which would hold up
         * its own publish (stores commit in order) by a cache-line round
         * trip. Always a word in the free part of the queue. */
        uint64_t ahead = (tail | (KUMI_SHM_LINE - 1)) + 1;
        if (ahead + KUMI_SHM_REC - pp->out_head <= mask + 1)
            __atomic_store_n((uint64_t *)(void *)(d + (ahead & mask)), 0, __ATOMIC_RELAXED);
        if (__builtin_expect(tp->doorbells, 0))
            return kumi_shm_ring_ok(tp, pe);
        return KUMI_OK;
    }
    return kumi_shm_am_sendv_slow(tp, pe, handler, hdr, hlen, payload, plen);
}

static int kumi_shm_am_send(struct kumi_tp *tp, int pe, unsigned handler, const void *payload,
                            size_t len)
{
    return kumi_shm_am_sendv(tp, pe, handler, NULL, 0, payload, len);
}

/* Serves src's queue q: at most one queue's worth of records, in order,
 * and at most max handlers (-1: no limit). Returns how many handlers ran,
 * or a negative status (corrupt queue). */
static inline __attribute__((always_inline)) int
kumi_shm_serve(struct kumi_tp *tp, struct kumi_shm *s, struct kumi_shm_amq *q, int src, int max)
{
    size_t   cap = s->amq_data;
    uint64_t head = q->head, end = head + cap;   /* one queue's worth */
    int      handled = 0;

    while (head != end) {
        size_t   at = head & (cap - 1);
        uint64_t w  = __atomic_load_n((uint64_t *)(void *)&q->data[at], __ATOMIC_ACQUIRE);
        size_t   len = (uint32_t)w;
        unsigned handler = (unsigned)(w >> 32) & 0xffffu;

        if (w == 0)
            break;
        if (w >> 48 != KUMI_SHM_AM_LIVE >> 48
            || len > cap - at - KUMI_SHM_REC) {
            kumi_tp_log(KUMI_TP_LOG_ERROR, "shm", "active-message queue from PE %d "
                        "corrupt at %zu (word %#llx)", src, at, (unsigned long long)w);
            return KUMI_ERR_TRANSPORT;
        }
        if (handler != KUMI_SHM_AM_SKIP) {
            const uint8_t *payload = &q->data[at + KUMI_SHM_REC];
            if (handler < KUMI_TP_AM_MAX_HANDLERS && tp->am[handler].fn != NULL)
                tp->am[handler].fn(tp, src, payload, len, tp->am[handler].arg);
            else
                kumi_tp_log(KUMI_TP_LOG_ERROR, "shm", "active message for unregistered "
                            "handler %u from PE %d dropped", handler, src);
            handled++;
        }
        head += KUMI_SHM_REC + kumi_shm_round(len, 8);
        __atomic_store_n(&q->head, head, __ATOMIC_RELEASE);
        if (handled == max)
            break;
    }
    return handled;
}

/* src's queue in my segment (progress and progress_from) */
static inline struct kumi_shm_amq *kumi_shm_inq(const struct kumi_shm *s, int src)
{
    return (struct kumi_shm_amq *)(s->base + s->hdr->amq_off + s->hdr->amq_bytes * (size_t)src);
}

/* progress()'s guard: one thread serves at a time (the others find
 * nothing to do), and never re-entered from a handler. 0: not now. */
static inline int kumi_shm_enter(struct kumi_shm *s)
{
    if (s->threads) {
        if (__atomic_load_n(&s->in_progress, __ATOMIC_RELAXED)
            || __atomic_exchange_n(&s->in_progress, 1, __ATOMIC_ACQUIRE))
            return 0;
    } else if (s->in_progress) {
        return 0;
    } else {
        s->in_progress = 1;
    }
    return 1;
}

static inline void kumi_shm_leave(struct kumi_shm *s)
{
    if (s->threads)
        __atomic_store_n(&s->in_progress, 0, __ATOMIC_RELEASE);
    else
        s->in_progress = 0;
}

/* Serves incoming active messages, at most one queue's backlog per sender.
 * Not re-entered from a handler (a handler that sends while its target's
 * queue is full waits for that peer, not for itself). */
static int kumi_shm_progress(struct kumi_tp *tp)
{
    struct kumi_shm *s = kumi_tp_shm(tp);
    int              handled = 0, rc = 0;

    if (!kumi_shm_enter(s))
        return 0;
    /* round robin from next_src, counted without a division (two per pass
     * at 2 PEs were most of an empty pass: the receiver's spin) */
    int src = (int)s->next_src;
    for (int i = 0; i < tp->size; i++, src = src + 1 == tp->size ? 0 : src + 1) {
        if ((rc = kumi_shm_serve(tp, s, kumi_shm_inq(s, src), src, -1)) < 0)
            break;
        handled += rc;
    }
    s->next_src = s->next_src + 1 >= (unsigned)tp->size ? 0 : s->next_src + 1;
    kumi_shm_leave(s);
    return rc < 0 ? rc : handled;
}

/* progress() for pe's queue alone (msg/'s receive from one source spins
 * here): the empty case is one load of the word where pe's next record
 * lands, no pass over the other queues. One message per call: after a
 * record that ends its line, looking for the next one reads the next
 * line, which the sender owns (it cleared that line's first word ahead,
 * kumi_shm_am_sendv), and in a ping-pong that miss came before the
 * reply's publish (stores commit after older loads): the waiter calls
 * again if the message it wants was not the one (2 PEs, 8 bytes, 25
 * turns each: kumi_recv's half round trip 0.111 -> 0.102 us, MPI_Recv's
 * 0.114 -> 0.102, 2026-11-28). */
static int kumi_shm_progress_from(struct kumi_tp *tp, int pe)
{
    struct kumi_shm *s = kumi_tp_shm(tp);

    if ((unsigned)pe >= (unsigned)tp->size)
        return KUMI_ERR_INVALID;
    struct kumi_shm_amq *q = kumi_shm_inq(s, pe);
    /* nothing there: no guard to take (the word is 0 until published; the
     * head is only read here, another thread may be serving) */
    uint64_t head = __atomic_load_n(&q->head, __ATOMIC_RELAXED);
    if (__atomic_load_n((uint64_t *)(void *)&q->data[head & (s->amq_data - 1)],
                        __ATOMIC_RELAXED) == 0
        || !kumi_shm_enter(s))
        return 0;
    int rc = kumi_shm_serve(tp, s, q, pe, 1);
    kumi_shm_leave(s);
    return rc;
}

static int kumi_shm_fence(struct kumi_tp *tp)
{
    (void)tp;
    __atomic_thread_fence(__ATOMIC_RELEASE);
    return KUMI_OK;
}

static int kumi_shm_quiet(struct kumi_tp *tp)
{
    (void)tp;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return KUMI_OK;
}

static void *kumi_shm_peer_ptr(struct kumi_tp *tp, int pe, enum kumi_seg seg, size_t off)
{
    return kumi_tp_shm(tp)->peer[pe].seg[seg] + off;
}

const struct kumi_tp_ops kumi_tp_shm_ops = {
    .size     = sizeof(struct kumi_tp_ops),
    .name     = "shm",
    .open     = kumi_shm_open,
    .connect  = kumi_shm_connect,
    .close    = kumi_shm_close,
    .kick     = kumi_shm_kick,
    .put      = kumi_shm_put,
    .get      = kumi_shm_get,
    .atomic   = kumi_shm_atomic,
    .am_send  = kumi_shm_am_send,
    .am_sendv = kumi_shm_am_sendv,
    .fence    = kumi_shm_fence,
    .quiet    = kumi_shm_quiet,
    .progress = kumi_shm_progress,
    .progress_from = kumi_shm_progress_from,
    .peer_ptr = kumi_shm_peer_ptr,
    .priority = 100,     /* peers' memory mapped: the fastest there is */
    .flags    = KUMI_TP_F_ONE_NODE,
};
