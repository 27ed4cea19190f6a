// An op that does not exist, at line 4 (xDSL reports column 28, just after the name).
!tile = !ttcore.tile<32x32, bf16>
func.func @f(%a: !tile) {
  %x = d2m.tile_frobnicate %a : !tile
  return
}
