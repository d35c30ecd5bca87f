// core_cxx.cc -- a C++ program against shmem.h and shmemx.h (extern "C"):
// the handles as C++ values, RMA, signals, contexts, a vector of
// results; built with oshc++ and run with oshrun (wrapper.cmake).
#include <shmem.h>
#include <shmemx.h>

#include <cstdio>
#include <vector>

static long data[8];
static uint64_t sig;

int main()
{
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    shmem_team_t team = SHMEM_TEAM_INVALID;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0 || shmem_ctx_get_team(ctx, &team) != 0
        || team != SHMEM_TEAM_WORLD) {
        std::fprintf(stderr, "PE %d: contexts in C++\n", me);
        return 1;
    }
    std::vector<long> src(8, me);
    shmem_ctx_long_put_signal(ctx, data, src.data(), src.size(), &sig, 1, SHMEM_SIGNAL_SET,
                              right);
    shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 1);
    for (long v : data)
        if (v != left) {
            std::fprintf(stderr, "PE %d: got %ld, want %d\n", me, v, left);
            return 1;
        }
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    if (me == 0)
        std::printf("core_cxx: %d PEs, %s, wtime %s\n", npes, SHMEM_VENDOR_STRING,
                    shmemx_wtime() > 0 ? "ok" : "bad");
    shmem_finalize();
    return 0;
}
