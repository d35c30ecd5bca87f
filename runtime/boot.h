/*
 * boot.h -- the bootstrap: how a PE learns who it is, which PEs share its
 * host, and how it meets the others, whoever started the job.
 *
 * One backend per launcher, picked at kumi_init (KUMI_BOOTSTRAP, or from
 * the environment the launcher left):
 *   kumirun    boot_kumirun.c  kumirun's environment, its control segment
 *                              and its rendezvous (rdv.h)
 *   pmix       boot_pmix.c     a PMIx launcher: Open MPI's mpirun, prterun,
 *                              srun --mpi=pmix (built when libpmix is found)
 *   pmi2       boot_pmi2.c     Slurm's PMI-2 (srun --mpi=pmi2), libpmi2
 *                              loaded at run time
 *   singleton  boot.c          a program started alone: a job of one
 *
 * Every backend gives the same service: the identity (rank, size, a job id
 * unique on the host, the node of every PE), the exchange (put my blob,
 * fence, get a peer's blob; an all-gather of equal-sized blobs), where the
 * job's failure is recorded (the failure notice: the launcher's or a
 * peer's word that the job fails reaches kumi_rt.failed), and the end
 * (finalize, a failed PE, kumi_global_exit). A backend implements either a
 * key-value store (put/fence/get: PMIx, PMI-2) or an all-gather of blobs
 * of any size (kumirun); boot.c builds the other from it, keeping every
 * PE's pairs as one blob (boot_kv.c, the format).
 *
 * Transports see the exchange through struct kumi_tp_boot (transport.h),
 * which kumi_boot_tp fills; they never read the environment.
 */
#ifndef KUMI_BOOT_H
#define KUMI_BOOT_H

#include <stddef.h>
#include <stdint.h>

#include "../transport/transport.h"

struct kumi_boot;

/* How a PE's part in the job ends (fini). */
enum kumi_boot_end {
    KUMI_BOOT_END_FINALIZED,   /* kumi_finalize agreed                   */
    KUMI_BOOT_END_FAILED,      /* kumi_init or kumi_finalize failed      */
    KUMI_BOOT_END_EXIT,        /* kumi_global_exit(status): exit follows */
};

/* Every PE's blob of one all-gather of blobs of any size. */
struct kumi_boot_blobs {
    uint8_t  *data;
    uint32_t *off, *len;          /* per PE */
    int       n;
    void    (*free)(struct kumi_boot_blobs *b);
};

struct kumi_boot_ops {
    const char *name;
    /* 1 when this PE's environment says this backend's launcher started
     * it (KUMI_BOOTSTRAP=auto tries the backends in turn) */
    int  (*detect)(void);
    /* Fills rank, size, job_id, node_of/nodes, oversubscribed, host_addr
     * and, when the launcher keeps one, failed/fail_status. Reports its
     * own errors (kumi_rt_error). */
    int  (*init)(struct kumi_boot *b);
    /* The exchange: either kv_put/kv_fence/kv_get ... */
    int  (*kv_put)(struct kumi_boot *b, const char *key, const void *val, size_t len);
    int  (*kv_fence)(struct kumi_boot *b);
    /* KUMI_ERR_INVALID when pe has no such key */
    int  (*kv_get)(struct kumi_boot *b, int pe, const char *key, void *val, size_t cap,
                   size_t *len);
    /* ... or an all-gather of blobs (collective) */
    int  (*gather)(struct kumi_boot *b, const void *mine, size_t len,
                   struct kumi_boot_blobs *all);
    /* optional: serve the launcher's channel; nonzero once the job failed
     * (recorded in *failed). Callers: a transport thread, or boot.c's. */
    int  (*poll)(struct kumi_boot *b, double now);
    /* optional: 1 while poll has something to serve */
    int  (*needs_poll)(struct kumi_boot *b);
    /* kumi_global_exit, before the transport says goodbye: claim the
     * request (*pe, *status: the request that counts, perhaps another
     * PE's) ... */
    void (*exit_claim)(struct kumi_boot *b, int *pe, int *status);
    /* ... tell the launcher and wait for its answer; returns the status
     * the job ends with */
    int  (*exit_job)(struct kumi_boot *b, int status);
    /* the end (status: for KUMI_BOOT_END_EXIT) */
    void (*fini)(struct kumi_boot *b, enum kumi_boot_end how, int status);
};

struct kumi_boot {
    const struct kumi_boot_ops *ops;
    int    rank, size;
    char   job_id[64];            /* "<pid>-<hex>": names job-private
                                     resources of this host (launch.h)   */
    int   *node_of;               /* per PE: its node, numbered in order of
                                     each node's lowest PE                */
    int    nodes;
    int    local_rank, local_size; /* among the PEs of my node            */
    int    oversubscribed;        /* more PEs on my node than cores       */
    char   host_addr[64];         /* numeric address of my host to listen
                                     on (KUMI_TCP_ADDR), or ""            */
    /* seconds a PE that lost a peer waits for the launcher's verdict
     * before it reports the loss (kumi_rt_peer_error) */
    double verdict_s;
    /* the job's failure word and status; NULL: the runtime's own pair */
    volatile uint32_t *failed;
    volatile int32_t  *fail_status;
    /* gather backends: every PE's pairs of each fence so far (newest
     * last); put collects mine until the next fence */
    struct kumi_boot_blobs *rounds;
    int    nrounds;
    uint8_t *pending;
    size_t   pending_len, pending_cap;
    unsigned ag_seq;              /* kv backends: all-gathers so far      */
    struct kumi_tp_boot tp;       /* what transports see                  */
    /* boot.c's service thread (a backend that needs poll, under a
     * transport that does not call it) */
    int    thread_on;
    uint32_t stop;
    void  *thread;
    uint32_t busy;                /* someone is in poll / the exchange    */
    void  *priv;                  /* the backend's                        */
};

/* Picks the backend (KUMI_BOOTSTRAP: cfg_choice), initializes it into b
 * and fills b->tp. Reports errors itself. */
int  kumi_boot_init(struct kumi_boot *b, int cfg_choice);

/* The exchange (collective where it says so; every PE in the same order).
 * Keys are short printable strings without '=' ("tcp.ep"). */
int  kumi_boot_put(struct kumi_boot *b, const char *key, const void *val, size_t len);
int  kumi_boot_fence(struct kumi_boot *b);
int  kumi_boot_get(struct kumi_boot *b, int pe, const char *key, void *val, size_t cap,
                   size_t *len);
/* every PE's len bytes of mine into all (size * len bytes), in rank order */
int  kumi_boot_allgather(struct kumi_boot *b, const void *mine, void *all, size_t len);

/* After the transport opened (its exchange joined the launcher's
 * channel, if it has one): serves that channel from a thread of the
 * bootstrap's own unless the transport does (tp_serves). */
void kumi_boot_started(struct kumi_boot *b, int tp_serves);
/* Stops that thread (before the transport closes, or the job exits). */
void kumi_boot_stop(struct kumi_boot *b);

/* kumi_global_exit's part, see struct kumi_boot_ops. */
void kumi_boot_exit_claim(struct kumi_boot *b, int *pe, int *status);
int  kumi_boot_exit_job(struct kumi_boot *b, int status);
/* The end; frees what kumi_boot_init made. */
void kumi_boot_fini(struct kumi_boot *b, enum kumi_boot_end how, int status);

/* The backends built in (boot.c's table), for KUMI_BOOTSTRAP. */
extern const struct kumi_boot_ops kumi_boot_kumirun_ops, kumi_boot_pmix_ops,
    kumi_boot_pmi2_ops, kumi_boot_singleton_ops;

/* Helpers for backends (boot.c). */
/* The node of every PE from each PE's host name (an all-gather of the
 * names; the caller's exchange must work already): node_of, nodes,
 * local_rank, local_size. base_pid: see kumi_boot_job_id. */
int  kumi_boot_nodes_by_name(struct kumi_boot *b, const char *host, long my_pid,
                             long *base_pid);
/* job_id "<pid>-<16 hex of a hash of name>" */
void kumi_boot_job_id(struct kumi_boot *b, long pid, const char *name);
/* more PEs on my node than CPUs this host has */
int  kumi_boot_count_oversubscribed(int local_size);
/* The launcher's or a peer's word that the job fails: into the job's
 * failure word (kumi_tp_fail's rules: the first verdict stays, unless it
 * had no status), waking whoever sleeps. Any thread. */
void kumi_boot_record_fail(uint32_t failed, int32_t status);

/* ------------------------------------------------ boot_kv.c: the blob
 * A gather backend's fence publishes each PE's pairs as one blob:
 *   repeated { u8 keylen (1..KUMI_BOOT_KEY_MAX), key, u32 vallen
 *              (little-endian, <= KUMI_BOOT_VAL_MAX), value }
 * A blob comes from another process: kumi_boot_kv_find validates it whole
 * (a pure function, fuzzed by tests/fuzz/fuzz_boot_kv.c). */
#define KUMI_BOOT_KEY_MAX 63
#define KUMI_BOOT_VAL_MAX 2048
/* Appends key=val to *buf (growing it); 0 or KUMI_ERR_NOMEM/INVALID. */
int kumi_boot_kv_append(uint8_t **buf, size_t *len, size_t *cap, const char *key,
                        const void *val, size_t vlen);
/* The last value of key in blob: 1 with *val and *vlen, 0 when absent, -1
 * when the blob is malformed (anywhere, not only before the key). */
int kumi_boot_kv_find(const uint8_t *blob, size_t len, const char *key, const uint8_t **val,
                      size_t *vlen);

#endif /* KUMI_BOOT_H */
