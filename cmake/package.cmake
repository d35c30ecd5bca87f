# package.cmake -- `make package` (cmake --build BUILD --target package):
# one Debian package, kumi_<version>_<arch>.deb, installing into /usr.
# Included from the top-level CMakeLists.txt after every install rule.
#
# What it holds: everything `make install` installs except the peers of
# the benchmarks (component "peers": kumi-bench-mpi and kumi-bench-shmem are
# Open MPI programs; the package must not depend on Open MPI). Open MPI's
# Debian packages own /usr/bin/oshcc, oshc++ and oshrun and manage mpicc,
# mpicxx, mpic++, mpirun and mpiexec as alternatives, so kumi's wrappers are
# packaged as NAME.kumi (cmake/deb/rename.cmake); postinst registers
# mpicc.kumi and mpirun.kumi as alternatives at a lower priority than Open
# MPI's, so /usr/bin/mpicc is kumi's only where no other MPI is installed.
# Depends: dpkg-shlibdeps' for the ELF files (libjemalloc2, libhwloc15,
# libpmix2, libllvm14...), and by hand what the wrappers run: clang-14
# (kumicc's compiles for kumi-translate), gcc (links, oshcc, mpicc).
# tests/package/smoke.sh (`make test-package`, label package) builds,
# installs, uses and removes it.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME kumi)
set(CPACK_PACKAGE_VENDOR kumi)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "PGAS runtime with a fine-grain DSM, OpenSHMEM, OpenMP and MPI-subset bindings")
set(CPACK_PACKAGE_DESCRIPTION
  "kumi is a C11 PGAS runtime: a symmetric heap, one-sided put/get, remote atomics,
collectives, two-sided messages and a fine-grain DSM filled in by a translator
(kumicc), with OpenSHMEM 1.5, OpenMP and MPI 3.1 subset bindings and the kumirun
launcher. The MPI and OpenSHMEM wrappers are installed as mpicc.kumi, mpirun.kumi,
oshcc.kumi, oshrun.kumi ... (mpicc and mpirun as alternatives).")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)              # kumi_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "kumi developers <kumi@localhost>")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS
  ${CMAKE_BINARY_DIR}/lib)                           # libkumi.so.0 for the bindings' libraries
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "gcc, libc6-dev")
if(KUMI_TRANSLATOR)
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", clang-14")
endif()
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "g++, python3, pkg-config")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS
  "gnuplot-nox, libjemalloc-dev, libhwloc-dev, libpmix-dev")   # kumi-bench --plot; static links
# one package of every component but the peers
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)
set(CPACK_COMPONENTS_ALL Unspecified)
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_CURRENT_LIST_DIR}/deb/rename.cmake)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
  ${CMAKE_CURRENT_LIST_DIR}/deb/postinst ${CMAKE_CURRENT_LIST_DIR}/deb/prerm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
include(CPack)
