# tests/mpi/coll.cmake -- collectives and reduction operations (bindings/mpi/
# coll.c, coll_msg.c, op.c). Each program also builds with Open MPI's mpicc
# and prints the same lines (tests/mpi/vs_openmpi.sh). Quick set: 2 and 3
# PEs on shm and tcp; 1, 4 and 8 in mpi-full.
kumi_mpi_test(coll_basic coll_basic.c QUICK 2 3)
kumi_mpi_test(op_types op_types.c QUICK 2 3)
kumi_mpi_test(coll_ddt coll_ddt.c QUICK 2 3)
kumi_mpi_test(coll_userop coll_userop.c QUICK 2 3)
kumi_mpi_test(coll_err coll_err.c QUICK 2)
kumi_mpi_test(coll_comm coll_comm.c QUICK 2 3)
