# Tile kernels compiled for the CPU (needs the kernel compiler and LLVM).
if(TACK_BUILD_CORE AND TACK_ENABLE_LLVM)
  tack_add_test(tile_compile_tests
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
  target_link_libraries(tile_compile_tests PRIVATE tack_core)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(tile_compile_tests PRIVATE -Wno-restrict)
  endif()
endif()
