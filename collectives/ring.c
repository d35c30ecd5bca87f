/* ring.c -- placeholder, being written */
#include "rt.h"
#include "reduce_op.h"
int kumi_ring_create(int producer, int consumer, size_t capacity_bytes, kumi_ring_t *out)
{ (void)producer; (void)consumer; (void)capacity_bytes; (void)out; return KUMI_ERR_UNSUPPORTED; }
int kumi_ring_push(kumi_ring_t r, const void *msg, size_t len) { (void)r; (void)msg; (void)len; return KUMI_ERR_UNSUPPORTED; }
int kumi_ring_try_push(kumi_ring_t r, const void *msg, size_t len) { (void)r; (void)msg; (void)len; return KUMI_ERR_UNSUPPORTED; }
int kumi_ring_pop(kumi_ring_t r, void *buf, size_t cap, size_t *len) { (void)r; (void)buf; (void)cap; (void)len; return KUMI_ERR_UNSUPPORTED; }
int kumi_ring_try_pop(kumi_ring_t r, void *buf, size_t cap, size_t *len) { (void)r; (void)buf; (void)cap; (void)len; return KUMI_ERR_UNSUPPORTED; }
int kumi_ring_destroy(kumi_ring_t r) { (void)r; return KUMI_ERR_UNSUPPORTED; }
