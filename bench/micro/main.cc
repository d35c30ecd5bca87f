// main.cc -- kumi-micro: single-process Google Benchmark micro-benchmarks of
// kumi's building blocks (see README.md). Runs as a job of one PE.
#include <cstdio>
#include <string>

#include "micro.h"

kumi_micro_env kumi_micro = { KUMI_ERR_STATE, 0, nullptr, nullptr, KUMI_ERR_STATE };

bool kumi_micro_skip(benchmark::State &st, const char *what, int status)
{
    if (status == KUMI_OK)
        return false;
    std::string msg = std::string(what) + ": " + kumi_strerror(status);
    st.SkipWithError(msg.c_str());
    return true;
}

// Collective calls (init, LLCM and heap allocation, ring creation) happen
// here, once, not inside benchmarks that the library may run many times.
static void setup()
{
    kumi_micro.init_status = kumi_init();
    if (kumi_micro.init_status != KUMI_OK)
        return;
    kumi_micro.llcm_off = kumi_llcm_alloc(8);
    if (kumi_micro.llcm_off == (size_t)-1)
        kumi_micro.init_status = KUMI_ERR_NOMEM;
    kumi_micro.heap = kumi_malloc(kumi_micro_heap_bytes);
    if (kumi_micro.heap == nullptr)
        kumi_micro.init_status = KUMI_ERR_NOMEM;
    kumi_micro.ring_status = kumi_ring_create(0, 0, kumi_micro_ring_bytes, &kumi_micro.ring);
}

static void teardown()
{
    if (kumi_micro.ring_status == KUMI_OK)
        kumi_ring_destroy(kumi_micro.ring);
    if (kumi_rank() >= 0) {
        kumi_free(kumi_micro.heap);
        kumi_finalize();
    }
}

int main(int argc, char **argv)
{
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    setup();
    benchmark::AddCustomContext("kumi_transport", kumi_transport_name());
    benchmark::AddCustomContext("kumi_pes", std::to_string(kumi_size()));
    kumi_micro_register_reduce_op();
    kumi_micro_register_onesided();
    kumi_micro_register_ring();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    teardown();
    return 0;
}
