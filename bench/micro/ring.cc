// ring.cc -- a producer-consumer ring whose producer and consumer are both
// PE 0 (64 KiB): one push and one pop per iteration, 8 B and 4 KiB messages
// ("ring/push_pop/8"). Skipped with the status when kumi_ring_create failed
// (KUMI_ERR_UNSUPPORTED while rings are not built).
#include <vector>

#include "micro.h"

static void bm_ring_push_pop(benchmark::State &st)
{
    if (kumi_micro_skip(st, "kumi_init", kumi_micro.init_status) ||
        kumi_micro_skip(st, "kumi_ring_create", kumi_micro.ring_status))
        return;
    size_t n = static_cast<size_t>(st.range(0)), len = 0;
    std::vector<unsigned char> msg(n, 0xa5), buf(n);
    for (auto _ : st) {
        int rc = kumi_ring_push(kumi_micro.ring, msg.data(), n);
        if (kumi_micro_skip(st, "kumi_ring_push", rc))
            break;
        rc = kumi_ring_pop(kumi_micro.ring, buf.data(), buf.size(), &len);
        if (kumi_micro_skip(st, "kumi_ring_pop", rc))
            break;
        if (len != n) {
            st.SkipWithError("kumi_ring_pop: wrong length");
            break;
        }
    }
    st.SetItemsProcessed(st.iterations());
    st.SetBytesProcessed(st.iterations() * static_cast<int64_t>(n));
}

void kumi_micro_register_ring()
{
    benchmark::RegisterBenchmark("ring/push_pop", bm_ring_push_pop)->Arg(8)->Arg(4 << 10);
}
