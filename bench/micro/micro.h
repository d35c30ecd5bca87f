// micro.h -- what kumi-micro's files share: the kumi state set up once in
// main() (singleton mode: a job of one PE) and each file's registration.
#ifndef KUMI_MICRO_H
#define KUMI_MICRO_H

#include <cstddef>

#include <benchmark/benchmark.h>

#include "kumi.h"

struct kumi_micro_env {
    int         init_status;   // kumi_init(); the kumi benchmarks skip unless KUMI_OK
    size_t      llcm_off;      // 8 bytes of my LLCM, the kick target
    void       *heap;          // kumi_micro_heap_bytes of symmetric heap
    kumi_ring_t ring;          // producer = consumer = PE 0, 64 KiB
    int         ring_status;   // kumi_ring_create()
};

extern kumi_micro_env kumi_micro;
constexpr size_t kumi_micro_heap_bytes = size_t(1) << 20;
constexpr size_t kumi_micro_ring_bytes = size_t(64) << 10;

// Skips the benchmark (and returns true) when what failed with status.
bool kumi_micro_skip(benchmark::State &st, const char *what, int status);

void kumi_micro_register_reduce_op();
void kumi_micro_register_onesided();
void kumi_micro_register_ring();

#endif // KUMI_MICRO_H
