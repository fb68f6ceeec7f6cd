# tack_add_test(tile_layout_tests layout_....cpp) ; target_link_libraries(... tack_tile_layout)
