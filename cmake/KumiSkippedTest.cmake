# kumi_skipped_test(NAME LABELS REASON): registers a test that prints
# "NAME: skipped: REASON" and exits 77, which CTest reports as skipped
# (SKIP_RETURN_CODE). Used where a group of tests cannot run in this
# configuration (no translator, a sanitizer build, a missing tool), so the
# group shows up in ctest's summary as skipped with its reason instead of
# disappearing from the suite.
function(kumi_skipped_test name labels reason)
  add_test(NAME ${name} COMMAND sh -c "echo \"${name}: skipped: ${reason}\"; exit 77")
  set_tests_properties(${name} PROPERTIES LABELS "${labels}" SKIP_RETURN_CODE 77)
endfunction()
