# tests/mpi/win.cmake -- one-sided communication (bindings/mpi/win*.c).
# win_ops, win_types and win_atomic also build with Open MPI's mpicc and
# print the same lines (tests/mpi/vs_openmpi.sh; Open MPI 4.1.4's osc/rdma
# component crashes in their passive-target parts, so compare with
# OMPI_MCA_osc=sm,ucx). win_err passes invalid handles, which Open MPI does
# not check, and win_errfatal fails on purpose: kumi only.
# Quick set: 1, 2, 3 and 4 PEs on shm and tcp; 8 in mpi-full.
# every call under fence, PSCW, lock/lock_all, on every window flavor
kumi_mpi_test(win_ops win_ops.c PES 1 2 3 4 8 QUICK 1 2 3 4)
# derived datatypes on both sides, MINLOC on pairs, struct types
kumi_mpi_test(win_types win_types.c PES 1 2 3 4 8 QUICK 2 3)
# accumulates under contention: tickets, vectors, CAS (a longer sweep in mpi-full)
kumi_mpi_test(win_atomic win_atomic.c PES 2 3 4 8 QUICK 2 4)
kumi_mpi_test(win_atomic.long win_atomic.c ARGS 3000 PES 4 8 QUICK "" LABELS mpi-sweep)
# operations that move no data (count 0, datatypes of size 0, basic types
# that differ): they succeed and change nothing, on every flavor
kumi_mpi_test(win_zero win_zero.c PES 1 2 3 4 QUICK 2 3)
# errors through the window's handler, names, info, group, attributes
kumi_mpi_test(win_err win_err.c PES 1 2 3 4 QUICK 2 3)
kumi_mpi_test(win_errfatal win_errfatal.c PES 1 2 QUICK 2
  EXPECT_RC 1 EXPECT_REGEX "MPI_Put: MPI_ERR_RMA_SYNC: window 1: no access epoch")
# a window's target and a non-blocking collective served together from
# kumi's own waits (MPI_Barrier): both of the binding's poll hooks run
kumi_mpi_test(win_nbc win_nbc.c PES 1 2 3 4 8 QUICK 2 3)
# MPI_Win_lock_all behind another rank's exclusive lock, on shared-memory
# lock words and on lock messages
kumi_mpi_test(win_lockall win_lockall.c PES 2 3 4 QUICK 2 3)
# MPI_Win_lock_all where one target answers an error (a malloc made to
# fail there): the error returned, the granted shared locks released
# (a lock left held makes it hang: the short time limit)
kumi_mpi_test(win_lockall_fail win_lockall_fail.c PES 3 4 QUICK 3 TIMEOUT 30)
# MPI_Win_lock_all whose origin cannot send a request part-way (a malloc
# made to fail there, after rank 0's request went out): rank 0's answer
# waited for and its shared lock given back before the call returns and
# before the window's handler function runs (it takes every exclusive lock)
kumi_mpi_test(win_lockall_sendfail win_lockall_sendfail.c PES 2 3 4 QUICK 2 3 TIMEOUT 30)
