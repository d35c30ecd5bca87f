# reduce_op.cmake -- the reduction kernels (collectives/reduce_op.c), included
# by tests/CMakeLists.txt. A cmocka program against their internal header.
kumi_unit_test(reduce_op)   # every type x op vs a scalar reference, NaN/-0 rules
target_include_directories(unit_reduce_op PRIVATE ${PROJECT_SOURCE_DIR}/collectives)
set_property(TEST unit.reduce_op APPEND PROPERTY LABELS coll)
