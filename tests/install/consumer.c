/* A program built against an installed kumi, three ways (install test). */
#include <kumi.h>
#include <stdio.h>

int main(void)
{
    if (kumi_init() != KUMI_OK)
        return 1;
    long *x = kumi_malloc(sizeof(long));
    long  v = 42, back = 0;
    int   rc = kumi_put(x, &v, sizeof(v), kumi_rank());
    rc |= kumi_get(&back, x, sizeof(back), kumi_rank());
    printf("consumer: PE %d of %d on %s: %ld\n", kumi_rank(), kumi_size(),
           kumi_transport_name(), back);
    kumi_free(x);
    rc |= kumi_finalize();
    return rc != KUMI_OK || back != 42;
}
