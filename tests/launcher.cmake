# launcher.cmake -- kumirun's tests: usage, exit codes, signals, timeouts,
# cleanup and the control-segment contract. Included from tests/CMakeLists.txt
# with ${KUMIRUN} set to the kumirun binary. Each script takes kumirun's path
# as $1, bounds its own waits, and kills whatever it started on exit.

# Plays the PE side of runtime/launch.h without the library, so these tests
# do not depend on kumi_init working.
add_executable(kumi_test_fake_pe
  ${CMAKE_CURRENT_SOURCE_DIR}/launcher/fake_pe.c
  ${PROJECT_SOURCE_DIR}/runtime/launch.c)
target_include_directories(kumi_test_fake_pe PRIVATE ${PROJECT_SOURCE_DIR}/runtime
  ${PROJECT_SOURCE_DIR}/transport ${PROJECT_SOURCE_DIR}/include)
target_compile_definitions(kumi_test_fake_pe PRIVATE _GNU_SOURCE)
target_link_libraries(kumi_test_fake_pe PRIVATE rt)

foreach(t usage hosts_usage exit_code signal_pe interrupt timeout launcher_killed env two_jobs loaded)
  add_test(NAME launcher.${t}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/launcher/${t}.sh ${KUMIRUN})
endforeach()
add_test(NAME launcher.ctl
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/launcher/ctl.sh ${KUMIRUN}
                 $<TARGET_FILE:kumi_test_fake_pe>)

# kumi_global_exit and kumi_pe_node/kumi_node_count with real kumi jobs:
# global_exit.sh runs tests/pe/global_exit.c on shm, on tcp, and "remote"
# (--hosts with a fake rsh: PEs without the control segment, which hear of
# the job's end over the rendezvous only). The quick set covers every
# place the others wait, both ends of the job, statuses 0, 3 and 255 and
# two PEs asking at once; the full matrix (label shmem-full) every
# combination.
add_executable(pe_global_exit ${CMAKE_CURRENT_SOURCE_DIR}/pe/global_exit.c)
target_compile_definitions(pe_global_exit PRIVATE _GNU_SOURCE)
target_link_libraries(pe_global_exit PRIVATE kumi)
foreach(case shm:2 shm:4 tcp:2 tcp:4 remote:4)
  string(REPLACE ":" ";" parts ${case})
  list(GET parts 0 tp)
  list(GET parts 1 n)
  foreach(set quick full)
    set(name launcher.global_exit.${tp}.n${n})
    set(labels launcher)
    if(set STREQUAL "full")
      set(name launcher.global_exit.full.${tp}.n${n})
      set(labels shmem-full)
    endif()
    if(set STREQUAL "quick" AND NOT tp STREQUAL "shm")
      list(APPEND labels tcp)   # `ctest -L tcp` runs the quick set only
    endif()
    add_test(NAME ${name}
             COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/launcher/global_exit.sh ${KUMIRUN}
                     $<TARGET_FILE:pe_global_exit> ${tp} ${n} ${set})
    set_tests_properties(${name} PROPERTIES LABELS "${labels}" PROCESSORS ${n})
    if(KUMI_SANITIZE)
      set_tests_properties(${name} PROPERTIES ENVIRONMENT TEST_TIME_SCALE=3)
    endif()
  endforeach()
endforeach()

# A PE of this host that is silent but alive (stopped and continued: not
# lost; stopped for good: hung at 6 x the heartbeat timeout) and one on
# "another host" (lost at the timeout). About 20 s: label launcher-full
# (`ctest -L launcher-full`; not in `make test`).
add_executable(pe_silent ${CMAKE_CURRENT_SOURCE_DIR}/launcher/pe_silent.c)
target_compile_definitions(pe_silent PRIVATE _GNU_SOURCE)
target_link_libraries(pe_silent PRIVATE kumi)
add_test(NAME launcher.silent_pe
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/launcher/silent_pe.sh ${KUMIRUN}
                 $<TARGET_FILE:pe_silent>)
set_tests_properties(launcher.silent_pe PROPERTIES LABELS "launcher-full" PROCESSORS 2)

get_property(_kumi_launcher_tests DIRECTORY PROPERTY TESTS)
foreach(t ${_kumi_launcher_tests})
  if(t MATCHES "^launcher\\.")
    # serial: another job's kumirun would sweep the stale segments these
    # tests look for, and the times some of them bound are the job's own
    get_test_property(${t} LABELS labels)
    if(NOT labels)
      set(labels launcher)
    endif()
    set_tests_properties(${t} PROPERTIES TIMEOUT 120 LABELS "${labels}" RUN_SERIAL TRUE)
  endif()
endforeach()
