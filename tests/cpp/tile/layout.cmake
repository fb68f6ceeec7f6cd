# The layout algebra, prover and finite checker (tack_tile_layout).
tack_add_test(tile_layout_tests
  layout_golden_test.cpp
  layout_exhaustive_test.cpp
  layout_random_test.cpp
  layout_prover_test.cpp
  layout_inadmissible_test.cpp
  layout_typed_test.cpp
)
target_link_libraries(tile_layout_tests PRIVATE tack_tile_layout)
