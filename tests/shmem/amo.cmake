# tests/shmem/amo.cmake -- shmem-amo's tests: atomics, point-to-point
# synchronization, locks (kumi_shmem_test in shmem.cmake). Each runs at 2,
# 3, 4 and 8 PEs (some at 1 too) on shm and tcp; the 2-PE runs are the
# quick set of `make test`, the rest are labelled shmem-full.

# every atomic of every type of the three AMO tables, one target and every
# PE's, heap, static and global targets, plain and ctx calls, exact values
kumi_shmem_test(amo_types amo_types.c PES 1 2 3 4 8)
