/*
 * tcp.h -- what INTERNAL tests may ask of the tcp transport (never the
 * runtime or user programs): where a PE listens, a hook that sends a
 * malformed frame over a real, authenticated connection, and what a
 * connection has queued and read.
 */
#ifndef KUMI_TCP_H
#define KUMI_TCP_H

#include <stddef.h>
#include <stdint.h>

#include "../transport.h"

/* pe's listening endpoint as a numeric address and port; KUMI_OK, or
 * KUMI_ERR_INVALID (not a tcp transport, or a job of one PE). */
int kumi_tcp_endpoint(struct kumi_tp *tp, int pe, char *addr, size_t addrlen, int *port);

/* Sends to pe a put frame whose offset lies beyond the heap (the receiver
 * must reject it and fail the job). KUMI_OK, or KUMI_ERR_INVALID (not tcp,
 * or pe is me) or the put's or fence's error. */
int kumi_tcp_test_bad_frame(struct kumi_tp *tp, int pe);

/* What the connection to pe holds and has read: bytes queued for pe but
 * not written to its socket yet (*unsent), and bytes its socket has given
 * to the staging buffer so far (*staged; payloads received in place are
 * not counted). KUMI_OK, or KUMI_ERR_INVALID (not tcp, pe is me or out of
 * range). */
int kumi_tcp_test_counts(struct kumi_tp *tp, int pe, size_t *unsent, uint64_t *staged);

/* The socket engine's system calls so far (this PE, all connections):
 * epolls, the engine round's epoll_wait (not the progress thread's own
 * wait); recvs on connections, of them recvs_empty those that found
 * nothing (EAGAIN), and trailing those that found nothing since the last
 * one that found something; writes, send and writev calls. */
struct kumi_tcp_calls {
    uint64_t epolls, recvs, recvs_empty, trailing, writes;
};

/* *out: the counts above. KUMI_OK, or KUMI_ERR_INVALID (not tcp). */
int kumi_tcp_test_calls(struct kumi_tp *tp, struct kumi_tcp_calls *out);

/* The congestion control of the connection to pe (NUL-terminated, at most
 * len - 1 bytes). KUMI_OK, KUMI_ERR_INVALID (not tcp, pe is me or out of
 * range) or KUMI_ERR_TRANSPORT (no connection, getsockopt failed). */
int kumi_tcp_test_cc(struct kumi_tp *tp, int pe, char *name, size_t len);

#endif /* KUMI_TCP_H */
