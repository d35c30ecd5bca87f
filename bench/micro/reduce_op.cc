// reduce_op.cc -- the reduction kernels of collectives/reduce_op.h, every
// valid type x op at 8, 1024 and 1M elements ("reduce/DOUBLE/SUM/1048576").
// Bytes/s counts what one call moves: both operands read and the result
// written, 3 x count x size (as STREAM counts its Add kernel).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "micro.h"
#include "reduce_op.h"

// Values that keep every op in its ordinary fast path however many times it
// repeats: in[] = 1 (PROD never reaches inf or subnormals, SUM only grows).
template <typename T> static void fill(void *inout, void *in, size_t n)
{
    T *a = static_cast<T *>(inout), *b = static_cast<T *>(in);
    for (size_t i = 0; i < n; i++) {
        a[i] = static_cast<T>(i % 100);
        b[i] = static_cast<T>(1);
    }
}

static void fill_type(kumi_type_t t, void *inout, void *in, size_t n)
{
    switch (t) {
    case KUMI_INT32:  fill<int32_t>(inout, in, n); break;
    case KUMI_INT64:  fill<int64_t>(inout, in, n); break;
    case KUMI_UINT32: fill<uint32_t>(inout, in, n); break;
    case KUMI_UINT64: fill<uint64_t>(inout, in, n); break;
    case KUMI_FLOAT:  fill<float>(inout, in, n); break;
    case KUMI_DOUBLE: fill<double>(inout, in, n); break;
    case KUMI_INT8:   fill<int8_t>(inout, in, n); break;
    case KUMI_INT16:  fill<int16_t>(inout, in, n); break;
    case KUMI_UINT8:  fill<uint8_t>(inout, in, n); break;
    case KUMI_UINT16: fill<uint16_t>(inout, in, n); break;
    case KUMI_LONG_DOUBLE: fill<long double>(inout, in, n); break;
    case KUMI_FLOAT_COMPLEX:   /* real and imaginary parts as two floats */
        fill<float>(inout, in, 2 * n); break;
    case KUMI_DOUBLE_COMPLEX:
        fill<double>(inout, in, 2 * n); break;
    }
}

static void *alloc64(size_t bytes)
{
    return std::aligned_alloc(64, (bytes + 63) / 64 * 64);
}

static void bm_reduce(benchmark::State &st, kumi_type_t t, kumi_op_t op)
{
    kumi_coll_op_fn fn = kumi_coll_op_lookup(t, op);
    size_t n = static_cast<size_t>(st.range(0)), sz = kumi_coll_type_size(t);
    void *a = alloc64(n * sz), *b = alloc64(n * sz);

    if (a == nullptr || b == nullptr) {
        st.SkipWithError("out of memory");
    } else {
        fill_type(t, a, b, n);
        for (auto _ : st) {
            fn(a, b, n);
            benchmark::DoNotOptimize(a);
            benchmark::ClobberMemory();
        }
        st.SetItemsProcessed(st.iterations() * static_cast<int64_t>(n));
        st.SetBytesProcessed(st.iterations() * static_cast<int64_t>(3 * n * sz));
    }
    std::free(a);
    std::free(b);
}

void kumi_micro_register_reduce_op()
{
    static const kumi_type_t types[] = { KUMI_INT32, KUMI_INT64, KUMI_UINT32, KUMI_UINT64,
                                         KUMI_FLOAT, KUMI_DOUBLE };
    static const kumi_op_t ops[] = { KUMI_SUM, KUMI_PROD, KUMI_MIN, KUMI_MAX, KUMI_BAND,
                                     KUMI_BOR, KUMI_BXOR };
    const size_t prefix = std::strlen("KUMI_");

    for (kumi_type_t t : types)
        for (kumi_op_t op : ops) {
            if (kumi_coll_op_lookup(t, op) == nullptr)
                continue;   // bitwise on float/double
            std::string name = std::string("reduce/") + (kumi_coll_type_name(t) + prefix) +
                               "/" + (kumi_coll_op_name(op) + prefix);
            benchmark::RegisterBenchmark(name.c_str(), bm_reduce, t, op)
                ->Arg(8)->Arg(1024)->Arg(1 << 20);
        }
}
