# dsm_model.cmake -- the SPIN check of the DSM coherence protocol, included
# by tests/CMakeLists.txt. dsm/model/run.sh checks that the Promela table
# is what dsm/protocol.def generates, then runs SPIN's exhaustive safety
# search and a liveness search (dsm/model/README.md). It needs python3,
# spin and gcc (.ci/deps installs them); without one of them the test
# fails saying which. `ctest -L model`.
#
# The two searches run side by side (~100 s on 2 cores): PROCESSORS 2
# keeps ctest -j from running timing-sensitive PE tests beside them.
add_test(NAME dsm.model COMMAND bash ${PROJECT_SOURCE_DIR}/dsm/model/run.sh)
set_tests_properties(dsm.model PROPERTIES LABELS "model;dsm" TIMEOUT 300 PROCESSORS 2)
