# tests/mpi/link.cmake -- what programs written for other MPIs need to
# build against kumi's subset: osu_link.c names every function the OSU
# micro-benchmarks reference and checks datatype names; autoconf/run.sh
# configures an autoconf project with CC=mpicc the way OSU's configure
# decides what to build (MPI_Init and the one-sided calls present; no
# MPI-4) and
# builds and runs osu_link with mpicc/mpirun.
kumi_mpi_test(osu_link osu_link.c PES 1 2 QUICK 2 TRANSPORTS shm
  COPTS -Werror=implicit-function-declaration)
# Not in sanitizer builds: mpicc adds no sanitizer flags, so the program
# it builds cannot load a sanitized libkumi ("ASan runtime does not come
# first"), as for oshcc's and the install tests.
if(NOT KUMI_SANITIZE)
  add_test(NAME mpi.autoconf
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/mpi/autoconf/run.sh ${CMAKE_BINARY_DIR}/bin)
  set_tests_properties(mpi.autoconf PROPERTIES LABELS mpi TIMEOUT 180 PROCESSORS 2
    SKIP_RETURN_CODE 77)
else()
  kumi_skipped_test(mpi.autoconf "mpi"
    "a sanitizer build (KUMI_SANITIZE=${KUMI_SANITIZE}): mpicc's programs cannot load a sanitized libkumi")
endif()
