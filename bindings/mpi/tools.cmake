# tools.cmake -- mpicc, mpicxx/mpic++ (compiler wrappers), mpirun/mpiexec
# (kumirun under MPI's option names), kumi-mpi.pc and the install rules of
# the MPI binding. Included from bindings/mpi/CMakeLists.txt.
# The build tree's wrappers use absolute paths; the installed ones find
# include/, lib/ and kumirun relative to themselves (relocatable, like
# kumicc and oshcc).
set(MPICC_CC "${CMAKE_C_COMPILER}")
set(MPICC_CXX "${CMAKE_CXX_COMPILER}")
set(_mpi_perm FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
    WORLD_READ WORLD_EXECUTE)

# name, language, the OMPI_/MPICH_ variable that picks the compiler
set(_mpi_wrappers "mpicc\;cc\;CC" "mpicxx\;c++\;CXX" "mpic++\;c++\;CXX")

function(_kumi_mpi_wrappers dir incdir libdir)
  set(MPICC_INCDIR "${incdir}")
  set(MPICC_LIBDIR "${libdir}")
  foreach(w IN LISTS _mpi_wrappers)
    list(GET w 0 MPICC_NAME)
    list(GET w 1 MPICC_LANG)
    list(GET w 2 MPICC_VAR)
    configure_file(${CMAKE_CURRENT_SOURCE_DIR}/mpicc.in ${dir}/${MPICC_NAME} @ONLY ${_mpi_perm})
  endforeach()
endfunction()

_kumi_mpi_wrappers(${CMAKE_BINARY_DIR}/bin "${CMAKE_CURRENT_SOURCE_DIR}" "${CMAKE_BINARY_DIR}/lib")
foreach(name mpirun mpiexec)
  configure_file(${CMAKE_CURRENT_SOURCE_DIR}/mpirun.in ${CMAKE_BINARY_DIR}/bin/${name} @ONLY
                 ${_mpi_perm})
endforeach()
file(RELATIVE_PATH _mpi_rel_inc ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_INCLUDEDIR})
file(RELATIVE_PATH _mpi_rel_lib ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
# installed: INCLUDEDIR/kumi-mpi/mpi.h, not INCLUDEDIR/mpi.h, so that it
# never shadows another MPI's mpi.h for a compiler that searches INCLUDEDIR
_kumi_mpi_wrappers(${CMAKE_BINARY_DIR}/install "$here/${_mpi_rel_inc}/kumi-mpi"
  "$here/${_mpi_rel_lib}")
add_custom_target(kumi_mpi_tools ALL DEPENDS kumi_mpi kumi_mpi_static kumirun)

# ------------------------------------------------------------------ install
install(TARGETS kumi_mpi kumi_mpi_static EXPORT kumiTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${CMAKE_CURRENT_SOURCE_DIR}/mpi.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kumi-mpi)
install(PROGRAMS ${CMAKE_BINARY_DIR}/install/mpicc ${CMAKE_BINARY_DIR}/install/mpicxx
  ${CMAKE_BINARY_DIR}/install/mpic++ ${CMAKE_BINARY_DIR}/bin/mpirun
  ${CMAKE_BINARY_DIR}/bin/mpiexec DESTINATION ${CMAKE_INSTALL_BINDIR})
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/kumi-mpi.pc.in ${CMAKE_BINARY_DIR}/kumi-mpi.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/kumi-mpi.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
