# tack_add_test(tile_ir_tests ir_....cpp) ; target_link_libraries(... tack_tile)
