# tests/mpi/type.cmake -- the datatype engine (bindings/mpi/datatype.c,
# typemap.c). The engine is local to a process, so most programs run on
# one PE; type_p2p sends derived types between two. Each program prints
# the same lines under Open MPI (tests/mpi/vs_openmpi.sh compares them).
foreach(t extent pack count setelem name err life random)
  kumi_mpi_test(type_${t} type_${t}.c PES 1 QUICK 1 TRANSPORTS shm)
endforeach()
kumi_mpi_test(type_p2p type_p2p.c PES 2 QUICK 2)
# envelopes and contents of every combiner (decoded, rebuilt, packed),
# darrays (block, cyclic, none; C and Fortran order) on a grid of the
# world's size, attributes on datatypes
kumi_mpi_test(type_decode type_decode.c PES 1 2 3 4 QUICK 1 3)
# the external32 representation: bytes printed, round trips, errors
kumi_mpi_test(type_external type_external.c PES 1 QUICK 1 TRANSPORTS shm)
