// Reader: every tile of an Ht x Wt tiled DRAM tensor into a CB, one at a time, in
// row-major or column-major tile order. Optionally first builds a reduce scaler tile
// in L1 the way tt-metal's generate_reduce_scaler does: zeros, then the bf16 scaler in
// row 0 of each of the four faces.
// Compile-time: cb, Ht, Wt, column_major, cb_scaler (32: no scaler).
// Runtime: address, then the scaler as fp32 bits when cb_scaler < 32.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  constexpr uint32_t cb = get_compile_time_arg_val(0);
  constexpr uint32_t Ht = get_compile_time_arg_val(1);
  constexpr uint32_t Wt = get_compile_time_arg_val(2);
  constexpr bool column_major = get_compile_time_arg_val(3) != 0;
  constexpr uint32_t cb_scaler = get_compile_time_arg_val(4);
  const uint32_t address = get_arg_val<uint32_t>(0);

  if constexpr (cb_scaler < 32) {
    const uint16_t scaler_bf16 = get_arg_val<uint32_t>(1) >> 16;
    cb_reserve_back(cb_scaler, 1);
    volatile tt_l1_ptr uint16_t* tile = reinterpret_cast<volatile tt_l1_ptr uint16_t*>(get_write_ptr(cb_scaler));
    for (uint32_t i = 0; i < 32 * 32; ++i) tile[i] = 0;
    for (uint32_t face = 0; face < 4; ++face)
      for (uint32_t col = 0; col < 16; ++col) tile[face * 256 + col] = scaler_bf16;
    cb_push_back(cb_scaler, 1);
  }

  const InterleavedAddrGenFast<true> in = {
      .bank_base_address = address, .page_size = get_tile_size(cb), .data_format = get_dataformat(cb)};
  for (uint32_t outer = 0; outer < (column_major ? Wt : Ht); ++outer) {
    for (uint32_t inner = 0; inner < (column_major ? Ht : Wt); ++inner) {
      const uint32_t tile = column_major ? inner * Wt + outer : outer * Wt + inner;
      cb_reserve_back(cb, 1);
      noc_async_read_tile(tile, in, get_write_ptr(cb));
      noc_async_read_barrier();
      cb_push_back(cb, 1);
    }
  }
}
