/*
 * boot_kv.c -- the blob in which a gather bootstrap (kumirun's) carries one
 * PE's key-value pairs of a fence (format: boot.h). Decoding is a pure
 * function over bytes that came from another process, fuzzed by
 * tests/fuzz/fuzz_boot_kv.c; it reads nothing outside [blob, blob + len).
 */
#include <stdlib.h>
#include <string.h>

#include "boot.h"

int kumi_boot_kv_append(uint8_t **buf, size_t *len, size_t *cap, const char *key,
                        const void *val, size_t vlen)
{
    size_t klen = strlen(key), need = *len + 1 + klen + 4 + vlen;

    if (klen == 0 || klen > KUMI_BOOT_KEY_MAX || vlen > KUMI_BOOT_VAL_MAX)
        return KUMI_ERR_INVALID;
    if (need > *cap) {
        size_t   ncap = *cap ? *cap : 256;
        uint8_t *p;

        while (ncap < need)
            ncap *= 2;
        if ((p = realloc(*buf, ncap)) == NULL)
            return KUMI_ERR_NOMEM;
        *buf = p;
        *cap = ncap;
    }
    uint8_t *p = *buf + *len;
    p[0] = (uint8_t)klen;
    memcpy(p + 1, key, klen);
    for (int i = 0; i < 4; i++)
        p[1 + klen + i] = (uint8_t)(vlen >> (8 * i));
    if (vlen > 0)
        memcpy(p + 1 + klen + 4, val, vlen);
    *len = need;
    return KUMI_OK;
}

int kumi_boot_kv_find(const uint8_t *blob, size_t len, const char *key, const uint8_t **val,
                      size_t *vlen)
{
    size_t         klen = strlen(key), at = 0, fl = 0;
    const uint8_t *fv = NULL;

    while (at < len) {
        size_t kl = blob[at], vl;

        if (kl == 0 || kl > KUMI_BOOT_KEY_MAX || len - at - 1 < kl + 4)
            return -1;
        const uint8_t *k = blob + at + 1, *l = k + kl;
        vl = (size_t)l[0] | (size_t)l[1] << 8 | (size_t)l[2] << 16 | (size_t)l[3] << 24;
        if (vl > KUMI_BOOT_VAL_MAX || len - at - 1 - kl - 4 < vl)
            return -1;
        if (kl == klen && memcmp(k, key, kl) == 0) {
            fv = l + 4;
            fl = vl;
        }
        at += 1 + kl + 4 + vl;
    }
    if (fv == NULL)
        return 0;
    *val  = fv;
    *vlen = fl;
    return 1;
}
