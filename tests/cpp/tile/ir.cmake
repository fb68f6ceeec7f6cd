# TileIR, capture, the reference library and reduction semantics.
set(tack_tile_test_targets tile_ir_tests tile_capture_tests tile_lib_tests tile_reduce_tests)

tack_add_test(tile_ir_tests
  ir_core_test.cpp
  ir_verifier_test.cpp
  ir_printer_test.cpp
  ir_view_layout_test.cpp
)
tack_add_test(tile_capture_tests
  capture_test.cpp
  capture_exec_test.cpp
  capture_golden_test.cpp
)
# Goldens are read from (and, with TACK_UPDATE_GOLDEN=1, written to) the source tree.
target_compile_definitions(tile_capture_tests PRIVATE TACK_TILE_GOLDEN_DIR="${CMAKE_CURRENT_SOURCE_DIR}/golden")
tack_add_test(tile_lib_tests
  lib_linear_test.cpp
  lib_rows_test.cpp
  lib_order_test.cpp
  lib_data_test.cpp
)
tack_add_test(tile_reduce_tests
  reduce_policy_test.cpp
  reduce_counterexample_test.cpp
)

foreach(target IN LISTS tack_tile_test_targets)
  target_link_libraries(${target} PRIVATE tack_tile)
  # GCC 12 reports false -Wrestrict positives inside std::string concatenation (GCC bug 105329).
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
endforeach()
