# launcher.cmake -- kumirun's tests: usage, exit codes, signals, timeouts,
# cleanup and the control-segment contract. Included from tests/CMakeLists.txt
# with ${KUMIRUN} set to the kumirun binary. Each script takes kumirun's path
# as $1, bounds its own waits, and kills whatever it started on exit.

# Plays the PE side of runtime/launch.h without the library, so these tests
# do not depend on kumi_init working.
add_executable(kumi_test_fake_pe
  ${CMAKE_CURRENT_SOURCE_DIR}/launcher/fake_pe.c
  ${PROJECT_SOURCE_DIR}/runtime/launch.c)
target_include_directories(kumi_test_fake_pe PRIVATE ${PROJECT_SOURCE_DIR}/runtime)
target_compile_definitions(kumi_test_fake_pe PRIVATE _GNU_SOURCE)
target_link_libraries(kumi_test_fake_pe PRIVATE rt)

foreach(t usage hosts_usage exit_code signal_pe interrupt timeout launcher_killed env two_jobs)
  add_test(NAME launcher.${t}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/launcher/${t}.sh ${KUMIRUN})
endforeach()
add_test(NAME launcher.ctl
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/launcher/ctl.sh ${KUMIRUN}
                 $<TARGET_FILE:kumi_test_fake_pe>)

get_property(_kumi_launcher_tests DIRECTORY PROPERTY TESTS)
foreach(t ${_kumi_launcher_tests})
  if(t MATCHES "^launcher\\.")
    # serial: another job's kumirun would sweep the stale segments these
    # tests look for
    set_tests_properties(${t} PROPERTIES TIMEOUT 120 LABELS launcher RUN_SERIAL TRUE)
  endif()
endforeach()
