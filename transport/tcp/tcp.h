/*
 * tcp.h -- what INTERNAL tests may ask of the tcp transport (never the
 * runtime or user programs): where a PE listens, and a hook that sends a
 * malformed frame over a real, authenticated connection.
 */
#ifndef KUMI_TCP_H
#define KUMI_TCP_H

#include <stddef.h>

#include "../transport.h"

/* pe's listening endpoint as a numeric address and port; KUMI_OK, or
 * KUMI_ERR_INVALID (not a tcp transport, or a job of one PE). */
int kumi_tcp_endpoint(struct kumi_tp *tp, int pe, char *addr, size_t addrlen, int *port);

/* Sends to pe a put frame whose offset lies beyond the heap (the receiver
 * must reject it and fail the job). KUMI_OK, or KUMI_ERR_INVALID (not tcp,
 * or pe is me) or the put's or fence's error. */
int kumi_tcp_test_bad_frame(struct kumi_tp *tp, int pe);

#endif /* KUMI_TCP_H */
