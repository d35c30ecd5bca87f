# rename.cmake -- CPack pre-build script of the Debian package (package.cmake):
# the static libraries lose their debug information (below), and
# kumi's MPI and OpenSHMEM wrappers and their man pages become NAME.kumi in
# the staging tree (Open MPI's packages own or manage the plain names), and
# the man pages are compressed.
file(GLOB_RECURSE _files LIST_DIRECTORIES false "${CPACK_TEMPORARY_DIRECTORY}/*")
set(_bins ${_files})
list(FILTER _bins INCLUDE REGEX "/bin/[^/]+$")
set(_pages ${_files})
list(FILTER _pages INCLUDE REGEX "/man1/[^/]+\\.1$")
set(_n 0)
foreach(f IN LISTS _bins)
  get_filename_component(name "${f}" NAME)
  if(name MATCHES "^(mpicc|mpicxx|mpic\\+\\+|mpirun|mpiexec|oshcc|oshc\\+\\+|oshrun)$")
    file(RENAME "${f}" "${f}.kumi")
    math(EXPR _n "${_n} + 1")
  endif()
endforeach()
if(NOT _n EQUAL 8)
  message(FATAL_ERROR "kumi package: renamed ${_n} of the 8 MPI and OpenSHMEM wrappers "
                      "under ${CPACK_TEMPORARY_DIRECTORY}")
endif()
foreach(f IN LISTS _pages)
  get_filename_component(full "${f}" NAME)
  if(full MATCHES "^(mpicc|mpicxx|mpic\\+\\+|mpirun|mpiexec|oshcc|oshc\\+\\+|oshrun)\\.1$")
    string(REGEX REPLACE "\\.1$" ".kumi.1" to "${f}")
    file(RENAME "${f}" "${to}")
  endif()
endforeach()

# Debian installs man pages compressed (policy 12.1): gzip -9n, no name or
# time stamp in the header so two builds give the same bytes
file(GLOB_RECURSE _pages LIST_DIRECTORIES false "${CPACK_TEMPORARY_DIRECTORY}/*.1")
list(FILTER _pages INCLUDE REGEX "/man1/[^/]+\\.1$")
find_program(_gzip gzip REQUIRED)
foreach(f IN LISTS _pages)
  execute_process(COMMAND ${_gzip} -9nf "${f}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "kumi package: gzip -9n ${f} failed")
  endif()
endforeach()

# CPACK_STRIP_FILES strips programs and shared libraries; the static
# libraries and the OpenMP start object keep their debug information (the
# build tree's paths) unless stripped here
find_program(_strip strip)
set(_objs ${_files})
list(FILTER _objs INCLUDE REGEX "/lib/[^/]+\\.(a|o)$")
if(_strip)
  foreach(f IN LISTS _objs)
    execute_process(COMMAND ${_strip} --strip-debug "${f}" RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "kumi package: strip --strip-debug ${f} failed")
    endif()
  endforeach()
endif()
