# docs/ and its man pages (`ctest -L docs`):
#   docs.man   every option a tool's --help lists is in its man page and
#              every option the page documents is in --help; kumirun.1
#              names every variable of `kumirun --help-env`; each page
#              renders without a warning (check_man.sh)
#   docs.refs  docs/ links resolve, docs/api.md names every public name of
#              kumi.h, no issue numbers, and nothing in the tree points outside
#              it (check_refs.sh)
# The tools must be built first (the default target builds them all).
add_test(NAME docs.man
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/docs/check_man.sh
                 ${PROJECT_SOURCE_DIR}/docs/man ${CMAKE_BINARY_DIR}/bin)
set_tests_properties(docs.man PROPERTIES LABELS docs TIMEOUT 120)
add_test(NAME docs.refs
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/docs/check_refs.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(docs.refs PROPERTIES LABELS docs TIMEOUT 60)
