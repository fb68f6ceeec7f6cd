# Tile kernels compiled on every backend present (the CPU needs LLVM).
# Without the LLVM CPU backend (a GPU machine: scripts/device-check.sh) the
# executable is built for its GPU variants (--gtest_filter='*/cuda*') and
# left out of ctest, whose CPU tests would all fail.
if(TACK_BUILD_CORE)
  set(tack_tile_compile_sources
    compile_lib_test.cpp
    compile_policy_test.cpp
    compile_view_test.cpp
    compile_elementwise_test.cpp
    compile_pipeline_test.cpp
    compile_workgroups_test.cpp
    compile_binding_test.cpp
    compile_mma_atom_test.cpp
    compile_store_test.cpp
    compile_random_test.cpp
  )
  if(TACK_ENABLE_LLVM)
    tack_add_test(tile_compile_tests ${tack_tile_compile_sources})
  else()
    add_executable(tile_compile_tests ${tack_tile_compile_sources})
    target_link_libraries(tile_compile_tests PRIVATE GTest::gtest_main)
    target_include_directories(tile_compile_tests PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/include)
  endif()
  target_link_libraries(tile_compile_tests PRIVATE tack_core)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(tile_compile_tests PRIVATE -Wno-restrict)
  endif()
endif()
