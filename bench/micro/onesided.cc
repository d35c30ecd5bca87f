// onesided.cc -- the kick path and put/get, all to myself (PE 0 of a job of
// one): what the library costs above the store or memcpy it ends in.
//   kick/self                 kumi_kick of 8 bytes into my LLCM
//   put/self/N, get/self/N    N = 8 B, 4 KiB, 1 MiB to/from my symmetric heap
#include <cstdint>
#include <vector>

#include "micro.h"

static void bm_kick(benchmark::State &st)
{
    if (kumi_micro_skip(st, "kumi_init", kumi_micro.init_status))
        return;
    uint64_t v = 0;
    for (auto _ : st) {
        v++;
        int rc = kumi_kick(0, kumi_micro.llcm_off, &v, sizeof v);
        if (kumi_micro_skip(st, "kumi_kick", rc))
            break;
    }
    st.SetItemsProcessed(st.iterations());
}

static void bm_put(benchmark::State &st)
{
    if (kumi_micro_skip(st, "kumi_init", kumi_micro.init_status))
        return;
    size_t n = static_cast<size_t>(st.range(0));
    std::vector<unsigned char> src(n, 0x5a);
    for (auto _ : st) {
        int rc = kumi_put(kumi_micro.heap, src.data(), n, 0);
        if (kumi_micro_skip(st, "kumi_put", rc))
            break;
    }
    st.SetBytesProcessed(st.iterations() * static_cast<int64_t>(n));
}

static void bm_get(benchmark::State &st)
{
    if (kumi_micro_skip(st, "kumi_init", kumi_micro.init_status))
        return;
    size_t n = static_cast<size_t>(st.range(0));
    std::vector<unsigned char> dst(n);
    for (auto _ : st) {
        int rc = kumi_get(dst.data(), kumi_micro.heap, n, 0);
        if (kumi_micro_skip(st, "kumi_get", rc))
            break;
        benchmark::DoNotOptimize(dst.data());
        benchmark::ClobberMemory();
    }
    st.SetBytesProcessed(st.iterations() * static_cast<int64_t>(n));
}

void kumi_micro_register_onesided()
{
    static_assert(kumi_micro_heap_bytes >= (1 << 20), "heap buffer holds 1 MiB");
    benchmark::RegisterBenchmark("kick/self", bm_kick);
    benchmark::RegisterBenchmark("put/self", bm_put)->Arg(8)->Arg(4 << 10)->Arg(1 << 20);
    benchmark::RegisterBenchmark("get/self", bm_get)->Arg(8)->Arg(4 << 10)->Arg(1 << 20);
}
