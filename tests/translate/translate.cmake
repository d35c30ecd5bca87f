# translate.cmake -- tests of kumi-translate and kumicc's translation,
# included from dsm/translate/CMakeLists.txt. Label "translate".
#   translate.ir.NAME     tests/translate/NAME.ll through kumi-translate,
#                         expectations (grep) in check_ir.sh
#   translate.e2e.*       tests/translate/spmd_sum.c compiled by kumicc
#                         (translated) and run on 2 PEs over shm and tcp;
#                         the same source with KUMI_TRANSLATE=0 on 1 PE
#   translate.kumicc      kumicc stops when it cannot translate, -S and
#                         -c -o translate, -fopenmp's commands (kumicc.sh)
#   translate.version.*   tests/translate/version.c (loop versions under
#                         concurrent writes) translated at 2 PEs (shm, tcp)
#                         and 1 PE; untranslated at 2 PEs it must fail
#   translate.gate.*      tests/translate/gate_switch.c (the function gate:
#                         unchecked until kumi_init, checked after, in one
#                         frame) at 2 PEs (shm, tcp) and 1 PE; untranslated
#                         at 2 PEs it must fail
set(_tdir ${PROJECT_SOURCE_DIR}/tests/translate)
foreach(t load_arg load_alloca load_global batch loop store memcpy atomic wide warn
          opt_align opt_rmw opt_group opt_root opt_loop opt_version opt_version_rot priv_omp
          gate opt_flag)
  add_test(NAME translate.ir.${t}
    COMMAND sh ${_tdir}/check_ir.sh $<TARGET_FILE:kumi-translate> ${_tdir} ${t}
            ${CMAKE_CURRENT_BINARY_DIR}/ir)
  set_tests_properties(translate.ir.${t} PROPERTIES LABELS translate TIMEOUT 60)
endforeach()
# the OpenMP pass's IR tests (omp_*.ll), registered by its own file
include(${_tdir}/omp.cmake)

# end to end: built by kumicc at build time (after libkumi and the translator).
# Not in sanitizer builds: kumicc links without the sanitizer runtime.
if(KUMI_SANITIZE)
  set(_why "a sanitizer build (KUMI_SANITIZE=${KUMI_SANITIZE}): kumicc links without the sanitizer runtime")
  kumi_skipped_test(translate.e2e.skipped "translate" "${_why}")
  kumi_skipped_test(translate.litmus.skipped "translate;dsm" "${_why}")
  return()
endif()
set(_kumicc ${CMAKE_BINARY_DIR}/bin/kumicc)
# _kumicc_prog(OUT SRC TRANSLATE [FLAGS...]): OUT built from SRC by
# kumicc -O2 FLAGS with KUMI_TRANSLATE=TRANSLATE (1: translated, 0: plain)
function(_kumicc_prog out src tr)
  set(_deps kumi)
  set(_what "KUMI_TRANSLATE=0")
  if(tr)
    set(_deps kumi kumi-translate)
    set(_what "translated")
  endif()
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E env KUMI_TRANSLATE=${tr} ${_kumicc} -O2 ${ARGN} ${_tdir}/${src} -o ${out}
    DEPENDS ${_tdir}/${src} ${_deps} ${PROJECT_SOURCE_DIR}/launcher/kumicc.in
    COMMENT "kumicc (${_what}) ${src}")
endfunction()
set(_e2e ${CMAKE_CURRENT_BINARY_DIR}/spmd_sum)
set(_e2e_plain ${CMAKE_CURRENT_BINARY_DIR}/spmd_sum_plain)
_kumicc_prog(${_e2e} spmd_sum.c 1 -g)
_kumicc_prog(${_e2e_plain} spmd_sum.c 0)
# memcpy/memmove with both pointers in DSM under false sharing (memcopy.c)
set(_memcopy ${CMAKE_CURRENT_BINARY_DIR}/memcopy)
_kumicc_prog(${_memcopy} memcopy.c 1 -g)
# loop versions under concurrent writes (version.c); -w: its clock_gettime
# on a local struct is warned as a possible DSM pointer
set(_version ${CMAKE_CURRENT_BINARY_DIR}/version)
set(_version_plain ${CMAKE_CURRENT_BINARY_DIR}/version_plain)
_kumicc_prog(${_version} version.c 1 -g -w)
_kumicc_prog(${_version_plain} version.c 0)
# the function gate across kumi_init (gate_switch.c)
set(_gate ${CMAKE_CURRENT_BINARY_DIR}/gate_switch)
set(_gate_plain ${CMAKE_CURRENT_BINARY_DIR}/gate_switch_plain)
_kumicc_prog(${_gate} gate_switch.c 1 -g)
_kumicc_prog(${_gate_plain} gate_switch.c 0)
add_custom_target(translate_e2e ALL DEPENDS ${_e2e} ${_e2e_plain} ${_memcopy} ${_version} ${_version_plain}
                  ${_gate} ${_gate_plain})

set(_kumirun ${CMAKE_BINARY_DIR}/bin/kumirun)
# kumicc itself: never unchecked silently, -S/-c -o translated, -fopenmp's
# commands (never libomp) -- kumicc.sh
add_test(NAME translate.kumicc
  COMMAND sh ${_tdir}/kumicc.sh ${_kumicc} ${CMAKE_CURRENT_BINARY_DIR}/kumicc)
set_tests_properties(translate.kumicc PROPERTIES LABELS translate TIMEOUT 120)
add_test(NAME translate.e2e.n2 COMMAND ${_kumirun} -n 2 --timeout 120 ${_e2e})
add_test(NAME translate.e2e.tcp.n2 COMMAND ${_kumirun} -n 2 --transport tcp --timeout 120 ${_e2e})
add_test(NAME translate.e2e.n1 COMMAND ${_kumirun} -n 1 --timeout 120 ${_e2e})
add_test(NAME translate.e2e.plain.n1 COMMAND ${_kumirun} -n 1 --timeout 120 ${_e2e_plain})
foreach(t n2 tcp.n2 n1 plain.n1)
  # every PE checks and exits 1 on a wrong sum (kumirun fails the job)
  set_tests_properties(translate.e2e.${t} PROPERTIES LABELS translate TIMEOUT 150
    FAIL_REGULAR_EXPRESSION "BAD")
endforeach()
set_property(TEST translate.e2e.tcp.n2 APPEND PROPERTY LABELS tcp)
add_test(NAME translate.memcopy.n2 COMMAND ${_kumirun} -n 2 --timeout 60 ${_memcopy})
add_test(NAME translate.memcopy.tcp.n2 COMMAND ${_kumirun} -n 2 --transport tcp --timeout 60 ${_memcopy})
add_test(NAME translate.memcopy.n1 COMMAND ${_kumirun} -n 1 --timeout 60 ${_memcopy})
foreach(t n2 tcp.n2 n1)
  set_tests_properties(translate.memcopy.${t} PROPERTIES LABELS "translate;dsm" TIMEOUT 90
    FAIL_REGULAR_EXPRESSION "BAD")
endforeach()
set_property(TEST translate.memcopy.tcp.n2 APPEND PROPERTY LABELS tcp)
# version_check.sh: kumirun's exit status 0, every PE's "exit 0" line and
# PE 0's summary (not just one line of output)
set(_vcheck sh ${_tdir}/version_check.sh)
add_test(NAME translate.version.n2 COMMAND ${_vcheck} 2 ${_kumirun} --timeout 60 ${_version})
add_test(NAME translate.version.tcp.n2
  COMMAND ${_vcheck} 2 ${_kumirun} --transport tcp --timeout 60 ${_version})
add_test(NAME translate.version.n1 COMMAND ${_vcheck} 1 ${_kumirun} --timeout 60 ${_version})
foreach(t n2 tcp.n2 n1)
  set_tests_properties(translate.version.${t} PROPERTIES LABELS "translate;dsm" TIMEOUT 90)
endforeach()
set_property(TEST translate.version.tcp.n2 APPEND PROPERTY LABELS tcp)
# the negative control: untranslated, PE 0 reads its stale copies and fails
# (kumirun's status non-zero and "version: BAD")
add_test(NAME translate.version.plain.n2
  COMMAND ${_vcheck} --fail 2 ${_kumirun} --timeout 60 ${_version_plain})
set_tests_properties(translate.version.plain.n2 PROPERTIES LABELS "translate;dsm" TIMEOUT 90)

# the gate: main starts unchecked, calls kumi_init, goes on checked.
# expect.sh: kumirun's exit status (0 only when every PE exited 0 after
# kumi_finalize) and PE 0's line, not the line alone
set(_expect sh ${PROJECT_SOURCE_DIR}/tests/pe/expect.sh)
set(_gate_ok "gate_switch: PE 0: DSM sum [0-9]+, private [0-9]+ ok")
add_test(NAME translate.gate.n2 COMMAND ${_expect} 0 "${_gate_ok}" ${_kumirun} -n 2 --timeout 60 ${_gate})
add_test(NAME translate.gate.tcp.n2
  COMMAND ${_expect} 0 "${_gate_ok}" ${_kumirun} -n 2 --transport tcp --timeout 60 ${_gate})
add_test(NAME translate.gate.n1 COMMAND ${_expect} 0 "${_gate_ok}" ${_kumirun} -n 1 --timeout 60 ${_gate})
foreach(t n2 tcp.n2 n1)
  set_tests_properties(translate.gate.${t} PROPERTIES LABELS "translate;dsm" TIMEOUT 90
    FAIL_REGULAR_EXPRESSION "BAD")
endforeach()
set_property(TEST translate.gate.tcp.n2 APPEND PROPERTY LABELS tcp)
# the negative control: untranslated, PE 0 reads its stale words
add_test(NAME translate.gate.plain.n2 COMMAND ${_kumirun} -n 2 --timeout 60 ${_gate_plain})
set_tests_properties(translate.gate.plain.n2 PROPERTIES LABELS "translate;dsm" TIMEOUT 90
  PASS_REGULAR_EXPRESSION "gate_switch: BAD")

# litmus tests as plain C through kumicc (tests/translate/litmus.cmake)
include(${_tdir}/litmus.cmake)
