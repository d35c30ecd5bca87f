/* make_corpus.c -- writes the seed corpus of fuzz_frame: streams of valid
 * frames of every type and invalid ones (bad version, type, length,
 * offset, width, reserved bits, unknown tag). Each file starts with the
 * fuzzer's mode byte. usage: make_corpus DIR */
#include <stdio.h>
#include <string.h>

#include "frame.h"

static unsigned char buf[1 << 16];
static size_t        len;

static void hdr(unsigned type, unsigned seg, unsigned width, unsigned op, uint32_t plen,
                uint64_t off, uint64_t val, uint64_t cmp, uint32_t tag)
{
    struct kumi_tcp_hdr h = { .version = KUMI_TCP_VERSION, .type = (uint8_t)type,
                              .seg = (uint8_t)seg, .width = (uint8_t)width, .op = (uint8_t)op,
                              .len = plen, .off = off, .val = val, .cmp = cmp, .tag = tag };
    memcpy(buf + len, &h, sizeof(h));
    len += sizeof(h);
    for (uint32_t i = 0; i < plen && len < sizeof(buf); i++)
        buf[len++] = (unsigned char)(i * 13);
}

static void save(const char *dir, const char *name, unsigned mode)
{
    char  path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (f == NULL) {
        perror(path);
        return;
    }
    fputc((int)mode, f);
    fwrite(buf, 1, len, f);
    fclose(f);
    len = 0;
}

int main(int argc, char **argv)
{
    const char *d = argc > 1 ? argv[1] : ".";

    /* valid streams */
    hdr(KUMI_TCP_KICK, 0, 8, 0, 0, 64, 7, 0, 0);
    hdr(KUMI_TCP_KICK, 0, 1, 0, 0, 3, 0xff, 0, 0);
    save(d, "valid_kicks", 0x05);
    hdr(KUMI_TCP_PUT, 1, 0, 0, 100, 4096, 0, 0, 0);
    hdr(KUMI_TCP_PUT, 0, 0, 0, 16, 0, 0, 0, 0);
    hdr(KUMI_TCP_PUT, 1, 0, 0, 0, 65536, 0, 0, 0);
    save(d, "valid_puts", 0x03);
    hdr(KUMI_TCP_PUT, 1, 0, 0, 8192, 0, 0, 0, 0);
    save(d, "valid_put_direct", 0x40);
    hdr(KUMI_TCP_GET_REQ, 1, 0, 0, 0, 0, 256, 0, 9);
    hdr(KUMI_TCP_GET_REP, 0, 0, 0, 256, 0, 0, 0, 1);
    hdr(KUMI_TCP_GET_REP, 0, 0, 0, 0, 0, 0, 0, 3);
    save(d, "valid_get", 0x80);
    hdr(KUMI_TCP_AMO_REQ, 1, 8, KUMI_AMO_CSWAP, 0, 8, 5, 4, 7);
    hdr(KUMI_TCP_AMO_REQ, 1, 4, KUMI_AMO_ADD, 0, 4, 1, 0, 0);
    hdr(KUMI_TCP_AMO_REP, 0, 0, 0, 0, 0, 42, 0, 2);
    save(d, "valid_amo", 0x11);
    /* the bitwise ops, atomic load and store, on the heap and static data */
    for (unsigned op = KUMI_AMO_AND; op < KUMI_AMO_COUNT; op++)
        hdr(KUMI_TCP_AMO_REQ, op % 2 ? KUMI_SEG_DATA : KUMI_SEG_HEAP, op % 3 ? 8 : 4, op, 0,
            16, op == KUMI_AMO_FETCH ? 0 : 0xf0f0, 0, kumi_tp_amo_fetches(op) ? 2 + op : 0);
    save(d, "valid_amo_ext", 0x80);
    hdr(KUMI_TCP_PUT, KUMI_SEG_DATA, 0, 0, 64, 8192 - 64, 0, 0, 0);
    hdr(KUMI_TCP_GET_REQ, KUMI_SEG_DATA, 0, 0, 0, 0, 256, 0, 9);
    hdr(KUMI_TCP_KICK, 0, 4, 0, 0, 8, 1, 0, 0);
    save(d, "valid_data_seg", 0x07);
    hdr(KUMI_TCP_AM, 3, 0, 0, 4096, 0, 0, 0, 0);
    hdr(KUMI_TCP_CREDIT, 0, 0, 0, 0, 0, 0, 0, 0);
    hdr(KUMI_TCP_FIN, 0, 0, 0, 0, 0, 0, 0, 0);
    save(d, "valid_am_credit_fin", 0x20);
    /* long AMs: a 48-byte header and 2000 bytes, then header and payload empty */
    hdr(KUMI_TCP_AM_LONG, 3, 0, 0, 48 + 2000, 0, 48, 0, 0);
    hdr(KUMI_TCP_AM_LONG, 3, 0, 0, 0, 0, 0, 0, 0);
    hdr(KUMI_TCP_AM_LONG, 3, 0, 0, 64, 0, 64, 0, 0);
    save(d, "valid_am_long", 0x40);
    hdr(KUMI_TCP_AM_LONG, 3, 0, 0, 100, 0, 65, 0, 0);
    save(d, "bad_am_long_header", 0x80);
    hdr(KUMI_TCP_AM_LONG, 3, 0, 0, 10, 0, 11, 0, 0);
    save(d, "bad_am_long_split", 0x80);
    /* invalid: one broken field each */
    hdr(KUMI_TCP_PUT, 1, 0, 0, 64, 65536 - 32, 0, 0, 0);
    save(d, "bad_put_beyond_heap", 0x80);
    hdr(KUMI_TCP_PUT, 1, 0, 0, 64, ~0ull - 8, 0, 0, 0);
    save(d, "bad_put_offset_wrap", 0x80);
    hdr(KUMI_TCP_KICK, 0, 3, 0, 0, 0, 0, 0, 0);
    save(d, "bad_kick_width", 0x80);
    hdr(KUMI_TCP_KICK, 0, 8, 0, 0, 4, 0, 0, 0);
    save(d, "bad_kick_unaligned", 0x80);
    hdr(KUMI_TCP_KICK, 0, 1, 0, 0, 0, 0x100, 0, 0);
    save(d, "bad_kick_value", 0x80);
    hdr(KUMI_TCP_GET_REP, 0, 0, 0, 256, 0, 0, 0, 5);
    save(d, "bad_unknown_tag", 0x80);
    hdr(KUMI_TCP_GET_REP, 0, 0, 0, 100, 0, 0, 0, 1);
    save(d, "bad_reply_length", 0x80);
    hdr(KUMI_TCP_AMO_REQ, 1, 8, 200, 0, 0, 0, 0, 1);
    save(d, "bad_amo_op", 0x80);
    hdr(KUMI_TCP_AMO_REQ, 1, 8, KUMI_AMO_COUNT, 0, 0, 0, 0, 1);
    save(d, "bad_amo_op_next", 0x80);
    hdr(KUMI_TCP_AMO_REQ, 1, 8, KUMI_AMO_SET, 0, 0, 1, 0, 5);
    save(d, "bad_amo_set_tag", 0x80);
    hdr(KUMI_TCP_AMO_REQ, 1, 4, KUMI_AMO_FETCH, 0, 0, 1, 0, 5);
    save(d, "bad_amo_fetch_operand", 0x80);
    hdr(KUMI_TCP_PUT, KUMI_SEG_DATA, 0, 0, 64, 8192 - 32, 0, 0, 0);
    save(d, "bad_put_beyond_data", 0x80);
    hdr(KUMI_TCP_PUT, KUMI_SEG_COUNT, 0, 0, 0, 0, 0, 0, 0);
    save(d, "bad_put_segment", 0x80);
    hdr(KUMI_TCP_AM, 40, 0, 0, 8, 0, 0, 0, 0);
    save(d, "bad_am_handler", 0x80);
    hdr(KUMI_TCP_AM, 1, 0, 0, 5000, 0, 0, 0, 0);
    save(d, "bad_am_length", 0x80);
    hdr(KUMI_TCP_PUT, 1, 0, 0, KUMI_TCP_MAX_PAYLOAD + 1, 0, 0, 0, 0);
    save(d, "bad_length", 0x80);
    hdr(99, 0, 0, 0, 0, 0, 0, 0, 0);
    save(d, "bad_type", 0x80);
    hdr(KUMI_TCP_CREDIT, 0, 0, 0, 0, 0, 0, 0, 0);
    buf[0] = 2;                                   /* version */
    save(d, "bad_version", 0x80);
    hdr(KUMI_TCP_CREDIT, 0, 0, 0, 0, 0, 0, 0, 0);
    buf[5] = 1;                                   /* reserved */
    save(d, "bad_reserved", 0x80);
    return 0;
}
