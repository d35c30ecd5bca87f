# omp.cmake -- IR tests of kumi-translate --openmp (dsm/translate/omp.c),
# included from translate.cmake. Label "translate" and "openmp".
#   translate.omp.NAME   tests/translate/NAME.ll through the pass,
#                        expectations (grep, readelf) in omp_check_ir.sh
foreach(t omp_globals omp_stack omp_calls omp_reduce)
  add_test(NAME translate.omp.${t}
    COMMAND sh ${_tdir}/omp_check_ir.sh $<TARGET_FILE:kumi-translate> ${_tdir} ${t}
            ${CMAKE_CURRENT_BINARY_DIR}/ir)
  set_tests_properties(translate.omp.${t} PROPERTIES LABELS "translate;openmp" TIMEOUT 60)
endforeach()

# end to end (omp_e2e.c: a shared local, a global array, a reduction, ...):
# built by kumicc -fopenmp -O0 and -O2 in a test (the fixture of the runs),
# run under kumirun on 1, 2 and 4 PEs (shm) and 2 (tcp). Not in sanitizer
# builds: kumicc links without the sanitizer runtime.
if(NOT KUMI_SANITIZE)
  set(_omp_e2e_dir ${CMAKE_CURRENT_BINARY_DIR}/omp_e2e)
  foreach(o 0 2)
    add_test(NAME translate.omp.e2e.O${o}.build
      COMMAND sh -c "mkdir -p '${_omp_e2e_dir}' && '${CMAKE_BINARY_DIR}/bin/kumicc' -fopenmp -O${o} '${_tdir}/omp_e2e.c' -o '${_omp_e2e_dir}/omp_e2e.O${o}'")
    set_tests_properties(translate.omp.e2e.O${o}.build PROPERTIES LABELS "translate;openmp" TIMEOUT 120
      FIXTURES_SETUP omp_e2e_O${o})
    foreach(run "shm;1" "shm;2" "shm;4" "tcp;2")
      list(GET run 0 tp)
      list(GET run 1 n)
      set(_name translate.omp.e2e.O${o}.${tp}.n${n})
      add_test(NAME ${_name}
        COMMAND ${CMAKE_BINARY_DIR}/bin/kumirun -n ${n} --transport ${tp} --timeout 60 ${_omp_e2e_dir}/omp_e2e.O${o})
      set_tests_properties(${_name} PROPERTIES LABELS "translate;openmp" TIMEOUT 90
        FIXTURES_REQUIRED omp_e2e_O${o}
        PASS_REGULAR_EXPRESSION "omp_e2e: ok, ${n} threads" FAIL_REGULAR_EXPRESSION "BAD")
      if(tp STREQUAL "tcp")
        set_property(TEST ${_name} APPEND PROPERTY LABELS tcp)
      endif()
    endforeach()
  endforeach()
  # the negative control: the same source untranslated (KUMI_TRANSLATE=0
  # kumicc -fopenmp) must not pass at 2 PEs (the workers cannot reach the
  # master's locals or see its globals)
  add_test(NAME translate.omp.e2e.plain.build
    COMMAND sh -c "mkdir -p '${_omp_e2e_dir}' && KUMI_TRANSLATE=0 '${CMAKE_BINARY_DIR}/bin/kumicc' -fopenmp -O2 '${_tdir}/omp_e2e.c' -o '${_omp_e2e_dir}/omp_e2e.plain'")
  set_tests_properties(translate.omp.e2e.plain.build PROPERTIES LABELS "translate;openmp" TIMEOUT 120
    FIXTURES_SETUP omp_e2e_plain)
  add_test(NAME translate.omp.e2e.plain.n2
    COMMAND sh -c "out=$('${CMAKE_BINARY_DIR}/bin/kumirun' -n 2 --timeout 30 '${_omp_e2e_dir}/omp_e2e.plain' 2>&1); case \"$out\" in *'omp_e2e: ok'*) echo \"untranslated, it passed: $out\"; exit 1;; esac; echo 'untranslated: fails as it should'")
  set_tests_properties(translate.omp.e2e.plain.n2 PROPERTIES LABELS "translate;openmp" TIMEOUT 60
    FIXTURES_REQUIRED omp_e2e_plain)
else()
  kumi_skipped_test(translate.omp.e2e.skipped "translate;openmp"
    "a sanitizer build (KUMI_SANITIZE=${KUMI_SANITIZE}): kumicc links without the sanitizer runtime")
endif()
