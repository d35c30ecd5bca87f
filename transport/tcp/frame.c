/* frame.c -- frame validation and the receive state machine (see frame.h).
 * Nothing here trusts the peer: every field is checked before a byte of
 * payload is placed, and replies must match a request of ours. */
#include "frame.h"

#include <stdio.h>
#include <string.h>

static const char *const kumi_frame_names[KUMI_TCP_TYPE_MAX] = {
    [KUMI_TCP_KICK] = "kick", [KUMI_TCP_PUT] = "put", [KUMI_TCP_GET_REQ] = "get request",
    [KUMI_TCP_GET_REP] = "get reply", [KUMI_TCP_AMO_REQ] = "atomic",
    [KUMI_TCP_AMO_REP] = "atomic reply", [KUMI_TCP_AM] = "active message",
    [KUMI_TCP_CREDIT] = "credit", [KUMI_TCP_FIN] = "fin",
    [KUMI_TCP_AM_LONG] = "long active message",
};

static const char *const kumi_frame_segs[KUMI_SEG_COUNT] = {
    [KUMI_SEG_LLCM] = "LLCM", [KUMI_SEG_HEAP] = "heap", [KUMI_SEG_DATA] = "static data",
};

void kumi_frame_rx_init(struct kumi_frame_rx *rx, const struct kumi_frame_limits *lim,
                        uint8_t *const seg[KUMI_SEG_COUNT], struct kumi_frame_req *req,
                        kumi_frame_fn on_frame, void *arg)
{
    memset(rx, 0, offsetof(struct kumi_frame_rx, am_buf));
    rx->lim = lim;
    for (int i = 0; i < KUMI_SEG_COUNT; i++)
        rx->seg[i] = seg[i];
    rx->req                = req;
    rx->on_frame           = on_frame;
    rx->arg                = arg;
}

/* [off, off + n) inside segment seg, which exists here? (written so
 * nothing overflows; a segment of size 0 is absent, even for n = 0) */
static int kumi_frame_in_seg(const struct kumi_frame_limits *lim, unsigned seg, uint64_t off,
                             uint64_t n)
{
    return seg < KUMI_SEG_COUNT && lim->seg_size[seg] != 0 && off <= lim->seg_size[seg]
           && n <= lim->seg_size[seg] - off;
}

static int kumi_frame_fits(uint64_t v, unsigned width)
{
    return width >= 8 || (v >> (8 * width)) == 0;
}

#define KUMI_FRAME_BAD(...)                    \
    do {                                       \
        snprintf(why, whylen, __VA_ARGS__);    \
        return KUMI_ERR_INVALID;               \
    } while (0)

int kumi_frame_check(const struct kumi_tcp_hdr *h, const struct kumi_frame_limits *lim,
                     char *why, size_t whylen)
{
    const char *name;

    if (h->version != KUMI_TCP_VERSION)
        KUMI_FRAME_BAD("version %u, expected %u", h->version, KUMI_TCP_VERSION);
    if (h->type == 0 || h->type >= KUMI_TCP_TYPE_MAX)
        KUMI_FRAME_BAD("unknown frame type %u", h->type);
    name = kumi_frame_names[h->type];
    if (h->reserved[0] | h->reserved[1] | h->reserved[2] | h->reserved2)
        KUMI_FRAME_BAD("%s with reserved bits set", name);
    if (h->credit > lim->window)
        KUMI_FRAME_BAD("%s returns %u credits, window is %u", name, h->credit, lim->window);
    if (h->len > lim->max_payload)
        KUMI_FRAME_BAD("%s of %u bytes, limit %u", name, h->len, lim->max_payload);

    switch (h->type) {
    case KUMI_TCP_KICK:
        if (h->width != 1 && h->width != 2 && h->width != 4 && h->width != 8)
            KUMI_FRAME_BAD("kick of width %u", h->width);
        if (h->seg != KUMI_SEG_LLCM || h->off % h->width != 0
            || !kumi_frame_in_seg(lim, KUMI_SEG_LLCM, h->off, h->width))
            KUMI_FRAME_BAD("kick of %u bytes at LLCM offset 0x%llx (segment %u) outside "
                           "%llu bytes or unaligned", h->width, (unsigned long long)h->off,
                           h->seg, (unsigned long long)lim->seg_size[KUMI_SEG_LLCM]);
        if (h->op || h->len || h->cmp || h->tag || !kumi_frame_fits(h->val, h->width))
            KUMI_FRAME_BAD("kick with unused fields set");
        return KUMI_OK;
    case KUMI_TCP_PUT:
        if (h->seg >= KUMI_SEG_COUNT)
            KUMI_FRAME_BAD("put to segment %u", h->seg);
        if (!kumi_frame_in_seg(lim, h->seg, h->off, h->len))
            KUMI_FRAME_BAD("put of %u bytes at %s offset 0x%llx beyond %llu", h->len,
                           kumi_frame_segs[h->seg], (unsigned long long)h->off,
                           (unsigned long long)lim->seg_size[h->seg]);
        if (h->width || h->op || h->val || h->cmp || h->tag)
            KUMI_FRAME_BAD("put with unused fields set");
        return KUMI_OK;
    case KUMI_TCP_GET_REQ:
        if (h->seg >= KUMI_SEG_COUNT)
            KUMI_FRAME_BAD("get from segment %u", h->seg);
        if (h->val > lim->max_payload)
            KUMI_FRAME_BAD("get of %llu bytes, limit %u", (unsigned long long)h->val,
                           lim->max_payload);
        if (!kumi_frame_in_seg(lim, h->seg, h->off, h->val))
            KUMI_FRAME_BAD("get of %llu bytes at %s offset 0x%llx beyond %llu",
                           (unsigned long long)h->val, kumi_frame_segs[h->seg],
                           (unsigned long long)h->off, (unsigned long long)lim->seg_size[h->seg]);
        if (h->tag >= lim->tags)
            KUMI_FRAME_BAD("get with unknown tag %u", h->tag);
        if (h->width || h->op || h->len || h->cmp)
            KUMI_FRAME_BAD("get request with unused fields set");
        return KUMI_OK;
    case KUMI_TCP_GET_REP:
        if (h->tag >= lim->tags)
            KUMI_FRAME_BAD("get reply with unknown tag %u", h->tag);
        if (h->seg || h->width || h->op || h->off || h->val || h->cmp)
            KUMI_FRAME_BAD("get reply with unused fields set");
        return KUMI_OK;
    case KUMI_TCP_AMO_REQ:
        if (h->width != 4 && h->width != 8)
            KUMI_FRAME_BAD("atomic of width %u", h->width);
        if (h->op >= KUMI_AMO_COUNT)
            KUMI_FRAME_BAD("atomic with unknown operation %u", h->op);
        if (h->seg >= KUMI_SEG_COUNT || h->off % h->width != 0
            || !kumi_frame_in_seg(lim, h->seg, h->off, h->width))
            KUMI_FRAME_BAD("atomic of %u bytes at offset 0x%llx of segment %u outside it or "
                           "unaligned", h->width, (unsigned long long)h->off, h->seg);
        if (h->tag >= lim->tags || (!kumi_tp_amo_fetches(h->op) && h->tag != 0))
            KUMI_FRAME_BAD("atomic with unknown tag %u", h->tag);
        if (h->len || !kumi_frame_fits(h->val, h->width) || !kumi_frame_fits(h->cmp, h->width)
            || (h->op != KUMI_AMO_CSWAP && h->cmp) || (h->op == KUMI_AMO_FETCH && h->val))
            KUMI_FRAME_BAD("atomic with unused fields set");
        return KUMI_OK;
    case KUMI_TCP_AMO_REP:
        if (h->tag >= lim->tags)
            KUMI_FRAME_BAD("atomic reply with unknown tag %u", h->tag);
        if (h->seg || h->width || h->op || h->len || h->off || h->cmp)
            KUMI_FRAME_BAD("atomic reply with unused fields set");
        return KUMI_OK;
    case KUMI_TCP_AM:
        if (h->seg >= lim->am_handlers)
            KUMI_FRAME_BAD("active message for handler %u (limit %u)", h->seg, lim->am_handlers);
        if (h->len > KUMI_TP_AM_MAX_PAYLOAD)
            KUMI_FRAME_BAD("active message of %u bytes, limit %u", h->len,
                           KUMI_TP_AM_MAX_PAYLOAD);
        if (h->width || h->op || h->off || h->val || h->cmp || h->tag)
            KUMI_FRAME_BAD("active message with unused fields set");
        return KUMI_OK;
    case KUMI_TCP_AM_LONG:
        if (h->seg >= lim->am_handlers)
            KUMI_FRAME_BAD("long active message for handler %u (limit %u)", h->seg,
                           lim->am_handlers);
        if (h->val > KUMI_TP_AM_LONG_HDR || h->val > h->len
            || h->len - h->val > KUMI_TP_AM_LONG_MAX)
            KUMI_FRAME_BAD("long active message of %u bytes with a %llu-byte header (limits "
                           "%u, %u)", h->len, (unsigned long long)h->val, KUMI_TP_AM_LONG_HDR,
                           KUMI_TP_AM_LONG_MAX);
        if (h->width || h->op || h->off || h->cmp || h->tag)
            KUMI_FRAME_BAD("long active message with unused fields set");
        return KUMI_OK;
    default: /* CREDIT, FIN: only credit may be set */
        if (h->seg || h->width || h->op || h->len || h->off || h->val || h->cmp || h->tag)
            KUMI_FRAME_BAD("%s with unused fields set", name);
        return KUMI_OK;
    }
}

static void kumi_frame_fail(struct kumi_frame_rx *rx)
{
    rx->failed = 1;
}

void kumi_frame_store(uint8_t *dst, unsigned width, uint64_t v)
{
    switch (width) {
    case 1: __atomic_store_n(dst, (uint8_t)v, __ATOMIC_RELEASE); break;
    case 2: __atomic_store_n((uint16_t *)(void *)dst, (uint16_t)v, __ATOMIC_RELEASE); break;
    case 4: __atomic_store_n((uint32_t *)(void *)dst, (uint32_t)v, __ATOMIC_RELEASE); break;
    default: __atomic_store_n((uint64_t *)(void *)dst, v, __ATOMIC_RELEASE); break;
    }
}

/* The frame is complete: finish its memory effect, then hand it over. */
static int kumi_frame_done(struct kumi_frame_rx *rx)
{
    const struct kumi_tcp_hdr *h = &rx->hdr;
    struct kumi_frame_req     *r = NULL;

    rx->have       = 0;
    rx->in_payload = 0;
    switch (h->type) {
    case KUMI_TCP_KICK:
        kumi_frame_store(rx->seg[KUMI_SEG_LLCM] + h->off, h->width, h->val);
        break;
    case KUMI_TCP_PUT:
        /* release: a waiter's acquire load of data written here pairs */
        __atomic_thread_fence(__ATOMIC_RELEASE);
        break;
    case KUMI_TCP_GET_REP:
    case KUMI_TCP_AMO_REP:
        r = &rx->req[h->tag];
        if (h->type == KUMI_TCP_AMO_REP)
            r->val = h->val;
        __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
        break;
    default:
        break;
    }
    if (rx->on_frame != NULL
        && rx->on_frame(rx, h, h->type == KUMI_TCP_AM || h->type == KUMI_TCP_AM_LONG
                                   ? rx->am_buf : NULL, rx->arg) != KUMI_OK) {
        kumi_frame_fail(rx);
        return KUMI_ERR_INVALID;
    }
    return KUMI_OK;
}

/* A long active message's header is in am_buf: ask where its payload goes. */
static int kumi_frame_place(struct kumi_frame_rx *rx)
{
    if (rx->place == NULL) {
        snprintf(rx->err, sizeof(rx->err), "long active message for handler %u, which takes "
                 "none", rx->hdr.seg);
        rx->dst = NULL;
    } else {
        rx->dst = rx->place(rx, &rx->hdr, rx->am_buf, rx->arg);
    }
    if (rx->dst == NULL) {
        kumi_frame_fail(rx);
        return KUMI_ERR_INVALID;
    }
    return KUMI_OK;
}

/* A header is complete: validate, match replies, pick the destination. */
static int kumi_frame_header(struct kumi_frame_rx *rx)
{
    struct kumi_tcp_hdr   *h = &rx->hdr;
    struct kumi_frame_req *r;

    if (kumi_frame_check(h, rx->lim, rx->err, sizeof(rx->err)) != KUMI_OK) {
        kumi_frame_fail(rx);
        return KUMI_ERR_INVALID;
    }
    rx->dst = NULL;
    if (h->type == KUMI_TCP_GET_REP || h->type == KUMI_TCP_AMO_REP) {
        unsigned want = h->type == KUMI_TCP_GET_REP ? KUMI_REQ_GET : KUMI_REQ_AMO;
        r = &rx->req[h->tag];
        if (r->kind != want || __atomic_load_n(&r->done, __ATOMIC_RELAXED)) {
            snprintf(rx->err, sizeof(rx->err), "%s for tag %u, which has no request pending",
                     kumi_frame_names[h->type], h->tag);
            kumi_frame_fail(rx);
            return KUMI_ERR_INVALID;
        }
        if (want == KUMI_REQ_GET && h->len != r->len) {
            snprintf(rx->err, sizeof(rx->err), "get reply of %u bytes for a request of %u "
                     "(tag %u)", h->len, r->len, h->tag);
            kumi_frame_fail(rx);
            return KUMI_ERR_INVALID;
        }
        rx->dst = r->dst;
    } else if (h->type == KUMI_TCP_PUT) {
        rx->dst = rx->seg[h->seg] + h->off;
    } else if (h->type == KUMI_TCP_AM) {
        rx->dst = rx->am_buf;
    }
    rx->have = 0;
    rx->skip = h->type == KUMI_TCP_AM_LONG ? (size_t)h->val : 0;
    if (rx->skip == 0 && h->type == KUMI_TCP_AM_LONG && kumi_frame_place(rx) != KUMI_OK)
        return KUMI_ERR_INVALID;
    if (h->len == 0)
        return kumi_frame_done(rx);
    rx->in_payload = 1;
    return KUMI_OK;
}

/* Copies put data into memory the target program may be polling at this
 * moment (kumi_wait_until on a put's word, from the main thread while the
 * progress thread delivers): word-wise release stores, which cost what
 * plain stores cost on x86 and aarch64's stlr, so that such a wait is not
 * a data race and a waiter that sees a word also sees the words the same
 * put wrote before it. */
static void kumi_frame_copy_polled(uint8_t *dst, const uint8_t *src, size_t n)
{
    while (n > 0) {   /* the widest store the alignment allows: a 4-byte
                         word put alone lands as one 4-byte store */
        uintptr_t a = (uintptr_t)dst;
        if ((a & 7) == 0 && n >= 8) {
            uint64_t w;
            memcpy(&w, src, 8);
            __atomic_store_n((uint64_t *)(void *)dst, w, __ATOMIC_RELEASE);
            dst += 8, src += 8, n -= 8;
        } else if ((a & 3) == 0 && n >= 4) {
            uint32_t w;
            memcpy(&w, src, 4);
            __atomic_store_n((uint32_t *)(void *)dst, w, __ATOMIC_RELEASE);
            dst += 4, src += 4, n -= 4;
        } else if ((a & 1) == 0 && n >= 2) {
            uint16_t w;
            memcpy(&w, src, 2);
            __atomic_store_n((uint16_t *)(void *)dst, w, __ATOMIC_RELEASE);
            dst += 2, src += 2, n -= 2;
        } else {
            __atomic_store_n(dst, *src, __ATOMIC_RELEASE);
            dst++, src++, n--;
        }
    }
}

size_t kumi_frame_rx_feed(struct kumi_frame_rx *rx, const uint8_t *p, size_t n)
{
    size_t used = 0;

    while (used < n && !rx->failed) {
        size_t k;
        if (!rx->in_payload) {
            k = sizeof(rx->hdr) - rx->have;
            if (k > n - used)
                k = n - used;
            memcpy((uint8_t *)&rx->hdr + rx->have, p + used, k);
            rx->have += k;
            used += k;
            if (rx->have == sizeof(rx->hdr) && kumi_frame_header(rx) != KUMI_OK)
                return used;
        } else {
            int head = rx->have < rx->skip;   /* a long AM's header: to am_buf */
            k = (head ? rx->skip : rx->hdr.len) - rx->have;
            if (k > n - used)
                k = n - used;
            if (head)
                memcpy(rx->am_buf + rx->have, p + used, k);
            else if (rx->hdr.type == KUMI_TCP_PUT)
                kumi_frame_copy_polled(rx->dst + rx->have, p + used, k);
            else
                memcpy(rx->dst + (rx->have - rx->skip), p + used, k);
            rx->have += k;
            used += k;
            if (head && rx->have == rx->skip && kumi_frame_place(rx) != KUMI_OK)
                return used;
            if (rx->have == rx->hdr.len && kumi_frame_done(rx) != KUMI_OK)
                return used;
        }
    }
    return used;
}

size_t kumi_frame_rx_want(struct kumi_frame_rx *rx, void **buf)
{
    if (rx->failed || !rx->in_payload || rx->hdr.type == KUMI_TCP_AM || rx->have < rx->skip)
        return KUMI_OK;
    *buf = rx->dst + (rx->have - rx->skip);
    return rx->hdr.len - rx->have;
}

int kumi_frame_rx_got(struct kumi_frame_rx *rx, size_t n)
{
    if (rx->failed || !rx->in_payload || rx->have < rx->skip || n > rx->hdr.len - rx->have)
        return KUMI_ERR_INVALID;
    rx->have += n;
    if (rx->have == rx->hdr.len)
        return kumi_frame_done(rx);
    return KUMI_OK;
}
