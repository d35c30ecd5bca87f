/* fuzz_boot_kv.c -- libFuzzer target for the blob a gather bootstrap
 * carries one PE's key-value pairs in (runtime/boot_kv.c): bytes from
 * another process. The blob is copied into a buffer of exactly its size,
 * so ASan catches any read past it; a value found must lie inside it.
 * Build: see tests/tcp.cmake (clang -fsanitize=fuzzer). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "boot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const keys[] = { "tcp.ep", "kumi.ag0", "k", "e", "kumi.host" };
    uint8_t *blob = malloc(size ? size : 1);

    if (blob == NULL)
        return 0;
    memcpy(blob, data, size);
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        const uint8_t *v = NULL;
        size_t         vl = 0;
        int            rc = kumi_boot_kv_find(blob, size, keys[i], &v, &vl);

        if (rc == 1 && (v < blob || v + vl > blob + size || vl > KUMI_BOOT_VAL_MAX))
            abort();
        if (rc != 1 && (v != NULL || vl != 0))
            abort();   /* outputs are set only on success */
    }
    /* what append writes, find reads back */
    if (size >= 2 && size - 2 <= KUMI_BOOT_VAL_MAX && data[0] >= 1 && data[0] <= 8) {
        char     key[9] = { 0 };
        uint8_t *b = NULL;
        size_t   len = 0, cap = 0, vl = 0;
        const uint8_t *v = NULL;

        for (int i = 0; i < data[0]; i++)
            key[i] = (char)('a' + data[1] % 26 + i % 3);
        if (kumi_boot_kv_append(&b, &len, &cap, key, data + 2, size - 2) == 0 &&
            (kumi_boot_kv_find(b, len, key, &v, &vl) != 1 || vl != size - 2 ||
             memcmp(v, data + 2, vl) != 0))
            abort();
        free(b);
    }
    free(blob);
    return 0;
}
