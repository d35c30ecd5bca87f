/*
 * win_int.h -- one-sided communication's own interface, shared by the
 * win*.c files only: win.c (windows: creation, free, shared memory),
 * win_attr.c (names, info, groups, error handlers, attributes),
 * win_rma.c (Put/Get/Accumulate and their request forms, the origin's
 * bookkeeping), win_target.c (the target's executor and the progress
 * hook), win_sync.c (fence, PSCW, locks, flushes), win_type.c (a
 * datatype on the wire).
 *
 * How it works. On a window in shared memory (MPI_Win_allocate on the
 * shm transport, MPI_Win_allocate_shared) the origin does every
 * operation itself by load and store, accumulates under the target's
 * accumulate lock, and passive-target locks are words of the segment
 * (win.c, win_rma.c, win_sync.c). On MPI_Win_create's memory on the shm
 * transport contiguous puts and gets go by cross-memory attach. Every
 * other operation is a message on the world team in context
 * KMPI_CTX_RMA, tag 0, to the target's PE: a header, the target
 * datatype's flattened map (derived types) and the packed data. The
 * target executes it in its progress hook (kumi_rt_poll_hook_add, run
 * by every wait of kumi and of this binding), so it makes progress
 * whenever it is in any MPI call, as MPI-3.1 11.7.2 permits. One tag on
 * one context keeps the messages of one origin to one target in issue
 * order, so a flush, an unlock or a complete that asks for an answer
 * learns that every earlier operation is done. Answers (get data, lock
 * grants, flush acknowledgements) come back in context KMPI_CTX_RMA_REPLY
 * with a tag the origin chose and posted a receive for beforehand. The
 * target executes one operation at a time on its own thread: accumulates
 * are atomic with respect to each other, whatever their op and type.
 */
#ifndef KUMI_MPI_WIN_INT_H
#define KUMI_MPI_WIN_INT_H

#include <stdint.h>

#include "mpi_int.h"

#pragma GCC visibility push(hidden)

/* lock words per rank at the start of a shared segment: [0] the passive
 * target lock (KMPI_WIN_EXCL | shared holders), [1] the accumulate lock */
#define KMPI_WIN_SHM_HDR 8
#define KMPI_WIN_EXCL    (1ull << 62)

/* message contexts of the world team (msg/msg.h), away from the others */
#define KMPI_CTX_RMA       200
#define KMPI_CTX_RMA_REPLY 201

/* what a request message asks of the target */
enum kmpi_win_kind {
    KW_PUT = 1, KW_GET, KW_ACC, KW_GACC, KW_CAS,
    KW_FLUSH,     /* answer once everything before is done (error status) */
    KW_LOCK,      /* grant when free (lock type in aux) */
    KW_UNLOCK,    /* release, answer */
    KW_POST,      /* PSCW: the target posted (to each origin of its group) */
    KW_COMPLETE,  /* PSCW: the origin completed; answer */
};

/* the header of every request message; then tdesc bytes of the target
 * datatype (win_type.c), then the data */
struct kmpi_win_hdr {
    uint8_t  kind;
    uint8_t  aux;        /* KW_LOCK: MPI_LOCK_*; ops: 1 = target type is derived */
    uint16_t op;         /* accumulates: the predefined MPI_Op */
    int32_t  win;        /* the window's id (the same on every member) */
    int32_t  origin;     /* the origin's rank in the window */
    int32_t  tag;        /* the answer's tag, or -1 */
    uint64_t disp;       /* bytes from the window's base (dynamic: an address) */
    uint64_t count;      /* elements of the target datatype */
    uint64_t bytes;      /* data bytes after the datatype */
    uint32_t tdesc;      /* bytes of the datatype's description */
    int32_t  tbasic;     /* the target datatype handle when predefined */
};

/* an attached region of a dynamic window */
struct kmpi_win_region {
    uintptr_t base;
    size_t    size;
};

/* an operation at the origin waiting for its send or its answer */
struct kmpi_win_pend {
    kumi_request_t kr;
    int      target;       /* rank in the window */
    int      reply;        /* 1: kr receives an answer (else it sends) */
    int      status;       /* the answer is a status word (into err) */
    int      done, held;   /* held: an MPI request refers to it */
    int      in_list;
    int      err;          /* MPI error class of the answer */
    void    *buf;          /* to free once done */
    void    *ubuf;         /* answer: unpack buf into ubuf as count of dt */
    size_t   count;
    struct kmpi_type *dt;  /* held while pending */
    struct kmpi_win_pend *next;
};

/* a process waiting for a lock at this target */
struct kmpi_win_waiter {
    int type, origin, pe, tag;
    struct kmpi_win_waiter *next;
};

struct kmpi_win_attr {
    int   key;
    void *val;
    struct kmpi_win_attr *next;
};

struct kmpi_win {
    int       id;           /* also its MPI_Win handle */
    MPI_Comm  comm;         /* a dup of the creator's communicator */
    int       rank, size;
    int      *pes;          /* window rank -> world PE */
    int       flavor;       /* MPI_WIN_FLAVOR_* */
    void     *base;
    MPI_Aint  wsize;
    int       disp_unit;
    /* every member's (from creation) */
    uint64_t *bases;
    MPI_Aint *sizes;
    int      *units;
    /* windows in shared memory (win.c): the mapping, every member's part
     * at this process's address (origins access it directly), and the
     * lock words: KMPI_WIN_SHM_HDR per rank */
    void     *shm;
    size_t    shm_bytes;
    char    **dbase;          /* NULL: not in shared memory */
    uint64_t *locks;
    int      *pids;           /* every member's process id */
    int       cma;            /* contiguous puts and gets by cross-memory attach */
    /* dynamic: regions attached here */
    struct kmpi_win_region *regions;
    int       nregions, cap_regions;
    MPI_Errhandler errh;
    MPI_Info  info;
    char      name[MPI_MAX_OBJECT_NAME];
    struct kmpi_win_attr *attrs;
    MPI_Aint  a_size;             /* the predefined attributes' values */
    int       a_unit, a_flavor, a_model;

    /* origin side */
    struct kmpi_win_pend *pend;   /* operations not yet done */
    int       fence_open;         /* a fence opened an epoch */
    int       fence_assert;
    int       lock_all;           /* lock_all held (NOCHECK: 2) */
    uint8_t  *locked;             /* [size]: 0, MPI_LOCK_* - 233 (1, 2), or 3 with NOCHECK */
    uint8_t  *touched;            /* [size]: operations went there since the last sync */
    int      *start_group;        /* PSCW access epoch: ranks, or NULL */
    int       nstart;
    int      *posts;              /* [size]: posts received from each rank not used yet */
    int       tgt_err;            /* an error an answer reported (dynamic windows) */
    /* errors held back while a call cleans up (kmpi_win_defer): the first
     * one, raised by the kmpi_win_undefer that ends the nesting */
    int       defer;
    int       d_code, d_krc;      /* MPI class; the kumi code behind it or KUMI_OK */
    const char *d_call;
    char      d_what[512];

    /* target side */
    int       lock_excl;          /* the rank holding the exclusive lock, -1 */
    int       lock_shared;        /* shared holders */
    struct kmpi_win_waiter *waiters, *waiters_tail;
    int       post_active;        /* PSCW exposure epoch */
    int       post_expect;        /* completes still to come */
    int      *err_of;             /* [size]: errors of operations from each origin */
};

/* win.c: the window with handle w, NULL when there is none */
struct kmpi_win *kmpi_win_get(MPI_Win w);
/* the same by id for the target side (messages for unknown ids dropped) */
struct kmpi_win *kmpi_win_by_id(int id);
/* reports code through w's error handler (MPI_COMM_WORLD's when w is NULL);
 * while w defers its errors, only notes the first one */
int kmpi_win_error(struct kmpi_win *w, int code, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* a kumi failure (kmpi_error_kumi through w's communicator), noted only
 * while w defers its errors */
int kmpi_win_error_kumi(struct kmpi_win *w, int kumi_rc, const char *call, const char *what);
/* Errors of w raised in between are only noted (the first one, returned as
 * usual): a call that must clean up (wait for what it sent, give back what
 * was granted) before the user's error handler runs or it returns.
 * Nests; the undefer that ends the nesting raises the noted error through
 * the handler it was meant for and returns its code (MPI_SUCCESS: none). */
void kmpi_win_defer(struct kmpi_win *w);
int  kmpi_win_undefer(struct kmpi_win *w);
/* the checks every window call starts with: live, w valid; NULL with *rc */
struct kmpi_win *kmpi_win_check(const char *call, MPI_Win win, int *rc);
/* the same, then an argument: !ok is MPI_ERR_ARG "<what> is NULL" */
struct kmpi_win *kmpi_win_check_arg(const char *call, MPI_Win win, int ok, const char *what,
                                    int *rc);

/* win_attr.c: every attribute of w deleted, its callbacks called
 * (MPI_Win_free); a callback's failure is raised and returned */
int  kmpi_win_attrs_delete_all(const char *call, struct kmpi_win *w);

/* win_target.c: the progress hook's install (first window) */
void kmpi_win_hook_install(void);
/* accumulates count elements of t's signature, packed at data, into addr
 * with predefined op (MPI_REPLACE, MPI_NO_OP included): MPI_SUCCESS or
 * an error class */
int  kmpi_win_acc_apply(int op, const void *data, size_t count, const struct kmpi_type *t,
                        char *addr);
/* one round of progress (a wait's) */
int  kmpi_win_poll(const char *call);

/* win_rma.c */
/* sends the request h (+ extra bytes) to target; pend: the send is
 * tracked; an answer of rbytes into rbuf when tag >= 0 (posted first) */
int  kmpi_win_send(const char *call, struct kmpi_win *w, int target, struct kmpi_win_hdr *h,
                   const void *extra, size_t nextra, const void *data, size_t ndata);
/* a new answer tag */
int  kmpi_win_tag(void);
/* posts the receive of an answer from target (tag) into buf */
int  kmpi_win_expect(const char *call, struct kmpi_win *w, int target, int tag, void *buf,
                     size_t bytes, struct kmpi_win_pend **out);
/* completes what has completed; waits for target's (-1: all) operations
 * to be done at the origin (local completion) */
int  kmpi_win_wait_local(const char *call, struct kmpi_win *w, int target);
/* a request to target answered by a status word: waits for the answer;
 * a failure the answer reports is raised on w */
int  kmpi_win_roundtrip(const char *call, struct kmpi_win *w, int target, int kind, int aux);
/* the same to n targets at once; ok (NULL: not wanted) gets ok[i] = 1 for
 * each target that answered MPI_SUCCESS (e.g. granted a lock), else 0 */
int  kmpi_win_roundtrips(const char *call, struct kmpi_win *w, const int *targets, int n,
                         int kind, int aux, uint8_t *ok);
/* drops the window's pending list (free) */
void kmpi_win_pend_drop(struct kmpi_win *w);
/* win_sync.c: the target's part of the synchronization messages */
void kmpi_win_serve_sync(struct kmpi_win *w, const struct kmpi_win_hdr *h, int src_pe);
/* an origin may access target now (an epoch covers it): MPI_SUCCESS or RMA_SYNC reported */
int  kmpi_win_epoch_check(const char *call, struct kmpi_win *w, int target);
/* answers tag to pe with a status word */
void kmpi_win_answer(int pe, int tag, int32_t status);

/* win_type.c: a datatype on the wire */
size_t kmpi_win_type_wire(const struct kmpi_type *t, void *out);
/* the type described by in (n bytes); free *mem after use; NULL when malformed */
struct kmpi_type *kmpi_win_type_unwire(const void *in, size_t n, void **mem);

#pragma GCC visibility pop

#endif /* KUMI_MPI_WIN_INT_H */
