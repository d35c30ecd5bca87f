# boot.cmake -- the bootstrap's own tests besides unit.boot and unit.rdv:
# the fuzzer of the blob a gather bootstrap carries (runtime/boot_kv.c;
# label fuzz, as tcp.cmake's frame fuzzer, whose clang-14 it uses).
set(_boot_corpus ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus_boot_kv)
if(KUMI_CLANG14 AND KUMI_FUZZER_LIB)
  set(_boot_fuzz ${CMAKE_CURRENT_BINARY_DIR}/fuzz_boot_kv)
  add_custom_command(OUTPUT ${_boot_fuzz}
    COMMAND ${KUMI_CLANG14} -g -O1 -fsanitize=fuzzer,address,undefined
            -fno-sanitize-recover=undefined -D_GNU_SOURCE
            -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_SOURCE_DIR}/transport
            -I${PROJECT_SOURCE_DIR}/runtime
            ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_boot_kv.c
            ${PROJECT_SOURCE_DIR}/runtime/boot_kv.c -o ${_boot_fuzz}
    DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_boot_kv.c
            ${PROJECT_SOURCE_DIR}/runtime/boot_kv.c ${PROJECT_SOURCE_DIR}/runtime/boot.h
    COMMENT "Building the bootstrap blob fuzzer with clang-14")
  add_custom_target(fuzz_boot_kv ALL DEPENDS ${_boot_fuzz})
  add_test(NAME fuzz.boot_kv COMMAND sh -c
    "mkdir -p fuzz-corpus-boot && exec '${_boot_fuzz}' -max_total_time=15 -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 fuzz-corpus-boot '${_boot_corpus}'")
  set_tests_properties(fuzz.boot_kv PROPERTIES LABELS "unit;fuzz" TIMEOUT 90
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
else()
  add_test(NAME fuzz.boot_kv COMMAND sh -c
    "echo 'fuzz.boot_kv: needs clang-14 and libclang-rt-14-dev; skipped'; exit 77")
  set_tests_properties(fuzz.boot_kv PROPERTIES LABELS "unit;fuzz" SKIP_RETURN_CODE 77)
endif()
